//! The workspace model: which docs are content, their supertags and fields, and the nodes
//! they become.

use super::*;

/// What a doc is to the loader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// A content node: becomes a [`Node`].
    Content,
    /// A system doc (tuple, metanode, tagDef, …).
    System,
    /// A workspace container.
    Container,
    /// In the trash, a field value owned by a tuple, or under such a doc: not content.
    Hidden,
    /// A content doc without a name or children (an empty bullet): left out.
    Empty,
}

/// The resolved workspace: roles, supertags, fields, and the content nodes sorted by id.
pub(super) struct Workspace<'e, 'a> {
    pub(super) docs: &'e [Doc<'a>],
    pub(super) by_id: HashMap<&'e str, u32>,
    pub(super) role: Vec<Role>,
    /// Supertag names by tagDef doc, and the names each one extends (transitively).
    pub(super) tags: HashMap<u32, (String, Vec<String>)>,
    /// Field names by attrDef doc.
    pub(super) fields: HashMap<u32, String>,
    /// Metanode of a doc that has no `_metaNodeId` (found by the metanode's owner).
    pub(super) metanodes: HashMap<u32, u32>,
    /// Owned children missing from their owner's `children` list.
    pub(super) unlisted: HashMap<u32, Vec<u32>>,
    /// Docs in the trash (at any depth).
    pub(super) trashed: Vec<bool>,
    /// Content docs sorted by id; a node's position here is its stable place in the export.
    pub(super) content: Vec<u32>,
    /// Position in `content` by doc (`u32::MAX` when not content).
    pub(super) position: Vec<u32>,
}

/// Values shared by every node of one export (one allocation, not one per node).
pub(super) struct Shared {
    pub(super) location: Location,
    pub(super) untagged: Kind,
    pub(super) relations: std::sync::Mutex<HashMap<String, Relation>>,
}

impl Shared {
    pub(super) fn new(location: &Location) -> Shared {
        Shared {
            location: location.clone(),
            untagged: Kind::Other(Arc::from(UNTAGGED)),
            relations: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// The `field:<name>` relation, one `Arc` per field name.
    pub(super) fn field(&self, name: &str) -> Relation {
        let mut map = self.relations.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(name.to_string())
            .or_insert_with(|| Relation::Field(Arc::from(format!("field:{name}"))))
            .clone()
    }
}

impl<'e, 'a> Workspace<'e, 'a> {
    pub(super) fn new(
        docs: &'e [Doc<'a>],
        found: &mut Vec<Found>,
        prefix: &[Seg],
    ) -> Workspace<'e, 'a> {
        let mut by_id: HashMap<&'e str, u32> = HashMap::with_capacity(docs.len());
        for (i, doc) in docs.iter().enumerate() {
            if let Some(&first) = by_id.get(doc.id.as_ref()) {
                let mut path = prefix.to_vec();
                path.extend([Seg::Key("docs"), Seg::Index(i), Seg::Key("id")]);
                found.push(Found {
                    severity: Severity::Warning,
                    path,
                    message: format!(
                        "duplicate id `{}` (first at docs[{first}]); the first is kept",
                        doc.id
                    ),
                });
                continue;
            }
            by_id.insert(doc.id.as_ref(), i as u32);
        }
        let owner_of = |i: usize| -> Option<u32> {
            docs[i]
                .owner
                .as_deref()
                .and_then(|o| by_id.get(o).copied())
                .filter(|&o| o as usize != i)
        };
        let hidden = visibility(docs, &by_id, found, prefix);
        let trashed: Vec<bool> = hidden.iter().map(|&h| h == 4).collect();
        let role: Vec<Role> = docs
            .iter()
            .enumerate()
            .map(|(i, doc)| {
                if by_id.get(doc.id.as_ref()) != Some(&(i as u32)) {
                    Role::Hidden
                } else if is_container(&doc.id) {
                    Role::Container
                } else if hidden[i] == 2 || hidden[i] == 4 {
                    Role::Hidden
                } else if is_system(doc.doc_type.as_deref()) {
                    Role::System
                } else if doc.name.trim().is_empty() && doc.children.is_empty() {
                    Role::Empty
                } else {
                    Role::Content
                }
            })
            .collect();
        drop(hidden);

        let mut metanodes = HashMap::new();
        for (i, doc) in docs.iter().enumerate() {
            if doc.doc_type.as_deref() == Some("metanode") {
                if let Some(o) = owner_of(i) {
                    metanodes.entry(o).or_insert(i as u32);
                }
            }
        }
        let mut ws = Workspace {
            docs,
            by_id,
            role,
            tags: HashMap::new(),
            fields: HashMap::new(),
            metanodes,
            unlisted: HashMap::new(),
            trashed,
            content: Vec::new(),
            position: Vec::new(),
        };

        ws.read_definitions();

        ws.find_unlisted();
        ws.order_content();
        ws
    }

    /// Supertags and fields from their definitions, each tag with its transitive parents.
    fn read_definitions(&mut self) {
        let mut parents: HashMap<u32, Vec<u32>> = HashMap::new();
        for (i, doc) in self.docs.iter().enumerate() {
            if self.trashed[i] {
                continue;
            }
            let mut tag = doc.doc_type.as_deref() == Some("tagDef");
            let mut field = doc.doc_type.as_deref() == Some("attrDef");
            let mut supers = Vec::new();
            for tuple in self.meta_tuples(i as u32) {
                let ids = &self.docs[tuple as usize].children;
                if ids.first().map(|c| c.as_ref()) != Some("SYS_A13") {
                    continue;
                }
                if ids.iter().any(|c| c == "SYS_T01") {
                    tag = true;
                    supers.extend(
                        ids.iter()
                            .filter(|c| !c.starts_with("SYS_"))
                            .filter_map(|c| self.by_id.get(c.as_ref()).copied()),
                    );
                }
                if ids.iter().any(|c| c == "SYS_T02") {
                    field = true;
                }
            }
            let name = plain(&doc.name).trim().to_string();
            if name.is_empty() {
                continue;
            }
            if tag {
                self.tags.insert(i as u32, (name, Vec::new()));
                parents.insert(i as u32, supers);
            } else if field {
                self.fields.insert(i as u32, name);
            }
        }
        let tag_ids: Vec<u32> = self.tags.keys().copied().collect();
        for tag in tag_ids {
            // Transitive parents, cycles cut by the visited set.
            let mut seen = BTreeSet::from([tag]);
            let mut todo = parents.get(&tag).cloned().unwrap_or_default();
            let mut names = BTreeSet::new();
            while let Some(p) = todo.pop() {
                if !seen.insert(p) {
                    continue;
                }
                if let Some((name, _)) = self.tags.get(&p) {
                    names.insert(name.clone());
                    todo.extend(parents.get(&p).into_iter().flatten());
                }
            }
            if let Some(entry) = self.tags.get_mut(&tag) {
                names.remove(&entry.0);
                entry.1 = names.into_iter().collect();
            }
        }
    }

    /// Owned children their owner does not list, by owner, sorted by id.
    fn find_unlisted(&mut self) {
        let docs = self.docs;
        let mut listed = vec![false; self.docs.len()];
        for (i, doc) in self.docs.iter().enumerate() {
            for child in &doc.children {
                if let Some(&c) = self.by_id.get(child.as_ref()) {
                    if self.owner(c) == Some(i as u32) {
                        listed[c as usize] = true;
                    }
                }
            }
        }
        for (i, &is_listed) in listed.iter().enumerate() {
            if !is_listed && self.role[i] == Role::Content {
                if let Some(o) = self.owner(i as u32) {
                    if self.role[o as usize] == Role::Content {
                        self.unlisted.entry(o).or_default().push(i as u32);
                    }
                }
            }
        }
        for list in self.unlisted.values_mut() {
            list.sort_by(|a, b| docs[*a as usize].id.cmp(&docs[*b as usize].id));
        }
    }

    /// The content docs sorted by id, and each doc's place among them.
    fn order_content(&mut self) {
        let docs = self.docs;
        let mut content: Vec<u32> = (0..docs.len() as u32)
            .filter(|&i| self.role[i as usize] == Role::Content)
            .collect();
        content.par_sort_unstable_by(|a, b| docs[*a as usize].id.cmp(&docs[*b as usize].id));
        let mut position = vec![u32::MAX; docs.len()];
        for (p, &d) in content.iter().enumerate() {
            position[d as usize] = p as u32;
        }
        self.content = content;
        self.position = position;
    }

    pub(super) fn get(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }

    pub(super) fn owner(&self, doc: u32) -> Option<u32> {
        self.docs[doc as usize]
            .owner
            .as_deref()
            .and_then(|o| self.get(o))
            .filter(|&o| o != doc)
    }

    pub(super) fn is_content(&self, doc: u32) -> bool {
        self.role[doc as usize] == Role::Content
    }

    /// The tuples of a doc's metanode.
    pub(super) fn meta_tuples(&self, doc: u32) -> impl Iterator<Item = u32> + '_ {
        let meta = self.docs[doc as usize]
            .meta
            .as_deref()
            .and_then(|m| self.get(m))
            .filter(|&m| self.docs[m as usize].doc_type.as_deref() == Some("metanode"))
            .or_else(|| self.metanodes.get(&doc).copied());
        meta.into_iter().flat_map(move |m| {
            self.docs[m as usize]
                .children
                .iter()
                .filter_map(|c| self.get(c))
                .filter(|&t| self.docs[t as usize].doc_type.as_deref() == Some("tuple"))
        })
    }

    /// The name of a doc with its spans resolved one level deep.
    pub(super) fn name(&self, doc: u32) -> (String, Vec<u32>) {
        resolve(&self.docs[doc as usize].name, &|id| {
            self.get(id)
                .map(|d| (d, ref_name(&self.docs[d as usize].name)))
        })
    }

    pub(super) fn node(&self, d: u32, shared: &Shared) -> Node {
        let doc = &self.docs[d as usize];
        let mut links: Vec<Link> = Vec::new();
        let link = |links: &mut Vec<Link>, relation: Relation, target: u32| {
            if self.is_content(target) && target != d {
                links.push(Link {
                    relation,
                    target: self.docs[target as usize].id.to_string(),
                });
            }
        };
        let (title, refs) = self.name(d);
        for r in refs {
            link(&mut links, Relation::Reference, r);
        }
        let description = doc.description.as_deref().map(|text| {
            let (text, refs) = resolve(text, &|id| {
                self.get(id)
                    .map(|t| (t, ref_name(&self.docs[t as usize].name)))
            });
            for r in refs {
                link(&mut links, Relation::Reference, r);
            }
            text
        });

        // Applied supertags, then what they extend.
        let mut tags: Vec<String> = Vec::new();
        let mut inherited: BTreeSet<String> = BTreeSet::new();
        for tuple in self.meta_tuples(d) {
            let ids = &self.docs[tuple as usize].children;
            if ids.first().map(|c| c.as_ref()) != Some("SYS_A13")
                || ids.iter().any(|c| c == "SYS_T01" || c == "SYS_T02")
            {
                continue;
            }
            for id in ids.iter().skip(1) {
                if let Some((name, supers)) = self.get(id).and_then(|t| self.tags.get(&t)) {
                    if !tags.contains(name) {
                        tags.push(name.clone());
                    }
                    inherited.extend(supers.iter().cloned());
                }
            }
        }
        inherited.retain(|t| !tags.contains(t));

        // Fields (tuple children) and the outline (content children).
        let mut fields: Vec<TanaField> = Vec::new();
        let mut outline: Vec<String> = Vec::new();
        let mut child_count = 0;
        let mut seen_children: Vec<u32> = Vec::new();
        for child in &doc.children {
            let Some(c) = self.get(child) else { continue };
            let cdoc = &self.docs[c as usize];
            if cdoc.doc_type.as_deref() == Some("tuple") {
                self.field(d, c, &mut fields, &mut links, shared);
                continue;
            }
            if !self.is_content(c) || c == d || seen_children.contains(&c) {
                continue;
            }
            seen_children.push(c);
            child_count += 1;
            let owned = self.owner(c) == Some(d);
            if outline.len() < TanaFields::OUTLINE_KEPT {
                let name = self.name(c).0;
                outline.push(if owned { name } else { format!("[[{name}]]") });
            }
            link(
                &mut links,
                if owned {
                    Relation::Child
                } else {
                    Relation::Reference
                },
                c,
            );
        }
        for &c in self.unlisted.get(&d).into_iter().flatten() {
            child_count += 1;
            if outline.len() < TanaFields::OUTLINE_KEPT {
                outline.push(self.name(c).0);
            }
            link(&mut links, Relation::Child, c);
        }

        let kind = match tags.first() {
            Some(tag) => Kind::parse(tag),
            None => shared.untagged.clone(),
        };
        let created = doc.created.map(iso_time);
        let modified = doc.modified.or(doc.created).map(iso_time);
        let date = modified.as_ref().map(|t| t[..10].to_string());
        let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
        Node {
            id: doc.id.to_string(),
            kind,
            title: if title.is_empty() {
                "(untitled)".to_string()
            } else {
                title
            },
            status: None,
            origin: Origin::Tana,
            content: Content::Tana(TanaFields {
                tags,
                inherited: inherited.into_iter().collect(),
                fields,
                description: description.filter(|d| !d.trim().is_empty()),
                children: outline,
                child_count,
                created,
                modified,
            }),
            links,
            date,
            location: shared.location.clone(),
        }
    }

    /// Reads a field tuple `[label, value…]` of node `d`.
    pub(super) fn field(
        &self,
        d: u32,
        tuple: u32,
        fields: &mut Vec<TanaField>,
        links: &mut Vec<Link>,
        shared: &Shared,
    ) {
        let ids = &self.docs[tuple as usize].children;
        if ids.len() < 2 || ids.len() >= MAX_FIELD_TUPLE {
            return;
        }
        let label = ids[0].as_ref();
        let name = match BUILTIN_FIELDS.iter().find(|(id, _)| *id == label) {
            Some((_, name)) => name.to_string(),
            None => match self.get(label).and_then(|l| self.fields.get(&l)) {
                Some(name) => name.clone(),
                None => return,
            },
        };
        let mut values = Vec::new();
        let mut targets: Vec<u32> = Vec::new();
        for id in &ids[1..] {
            let Some(v) = self.get(id) else { continue };
            if self.trashed[v as usize] {
                continue;
            }
            let (text, refs) = self.name(v);
            let text = text.trim().to_string();
            if self.owner(v) == Some(tuple) || !self.is_content(v) {
                // An owned value is text; references inside it still link the node.
                if !text.is_empty() {
                    values.push(text);
                }
                targets.extend(refs);
            } else {
                values.push(format!("[[{text}]]"));
                targets.push(v);
            }
        }
        if values.is_empty() {
            return;
        }
        let relation = shared.field(&name);
        for t in targets {
            if self.is_content(t) && t != d {
                links.push(Link {
                    relation: relation.clone(),
                    target: self.docs[t as usize].id.to_string(),
                });
            }
        }
        match fields.iter_mut().find(|f| f.name == name) {
            Some(existing) => existing.values.extend(values),
            None => fields.push(TanaField { name, values }),
        }
    }
}

/// Whether each doc is hidden: in the trash at any depth (4), owned at any depth by a system
/// doc (2), or visible (1). A memoized walk up the owner chain; a cycle counts as not hidden
/// and is reported. (3 marks a doc on the current walk's stack, 0 one not yet seen.)
fn visibility(
    docs: &[Doc<'_>],
    by_id: &HashMap<&str, u32>,
    found: &mut Vec<Found>,
    prefix: &[Seg],
) -> Vec<u8> {
    let owner_of = |i: usize| -> Option<u32> {
        docs[i]
            .owner
            .as_deref()
            .and_then(|o| by_id.get(o).copied())
            .filter(|&o| o as usize != i)
    };
    let mut hidden: Vec<u8> = vec![0; docs.len()];
    let mut stack: Vec<usize> = Vec::new();
    for start in 0..docs.len() {
        let mut at = start;
        let verdict = loop {
            match hidden[at] {
                0 => {}
                3 => {
                    // Back at a doc of this walk: an ownership cycle. Its docs stay (as
                    // content, children of each other); the export is said to be wrong.
                    let from = stack.iter().position(|&s| s == at).unwrap_or(0);
                    let chain: Vec<&str> = stack[from..]
                        .iter()
                        .chain(std::iter::once(&at))
                        .map(|&d| docs[d].id.as_ref())
                        .collect();
                    let mut path = prefix.to_vec();
                    path.extend([
                        Seg::Key("docs"),
                        Seg::Index(at),
                        Seg::Key("props"),
                        Seg::Key("_ownerId"),
                    ]);
                    found.push(Found {
                        severity: Severity::Warning,
                        path,
                        message: format!(
                            "ownership cycle: {} (each `_ownerId` names the next); the nodes \
                             are kept as children of each other",
                            chain.join(" → ")
                        ),
                    });
                    break 1;
                }
                known => break known,
            }
            hidden[at] = 3;
            stack.push(at);
            match owner_of(at) {
                None => break 1,
                Some(o) => {
                    let owner = &docs[o as usize];
                    if is_trash(&owner.id) {
                        break 4;
                    }
                    if is_system(owner.doc_type.as_deref()) && hidden[o as usize] != 4 {
                        // Still trashed if the system doc is: keep walking for that.
                        let mut up = o as usize;
                        let mut steps = 0;
                        let trashed = loop {
                            if hidden[up] == 4 {
                                break true;
                            }
                            match owner_of(up) {
                                Some(next) if steps < 64 => {
                                    if is_trash(&docs[next as usize].id) {
                                        break true;
                                    }
                                    up = next as usize;
                                    steps += 1;
                                }
                                _ => break false,
                            }
                        };
                        break if trashed { 4 } else { 2 };
                    }
                    at = o as usize;
                }
            }
        };
        for i in stack.drain(..) {
            hidden[i] = verdict;
        }
    }
    hidden
}
