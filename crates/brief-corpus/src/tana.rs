//! A Tana workspace export of any size, in the real shape (supertag.md §2): containers,
//! supertags defined by `tagDef`s and `[SYS_A13, SYS_T01, parents…]` metanode tuples (with
//! inheritance), fields defined by `attrDef`s and `[SYS_A13, SYS_T02]` tuples, a metanode
//! and tag-application tuple per tagged node, field tuples with option, text, date and
//! reference values, inline-reference and date spans in names, children owned elsewhere
//! (references), one very large child list (an inbox), a trash with nested content, and
//! `#policy` nodes that every project lists in a `Policies` field (written last, so the rest
//! of the workspace is the same for the same seed whatever they are).
//!
//! `total` counts every doc of the export (content and system alike), as Tana does.

use std::io::Write;
use std::path::Path;

use super::labels::TanaLinks;
use super::{title, Rng, Structure};

/// A child entry: another doc, or a `SYS_*` id (never exported as a doc).
#[derive(Clone, Copy)]
enum Child {
    Doc(u32),
    Sys(&'static str),
}

#[derive(Default)]
struct Doc {
    name: Option<String>,
    owner: Option<u32>,
    meta: Option<u32>,
    doc_type: Option<&'static str>,
    children: Vec<Child>,
    created: i64,
    modified: i64,
}

/// Supertags: name and the index (in `TAGS`) of the tag it extends.
const TAGS: &[(&str, Option<usize>)] = &[
    ("work-item", None),
    ("task", Some(0)),
    ("bug", Some(1)),
    ("project", None),
    ("meeting", None),
    ("person", None),
    ("note", None),
    ("goal", None),
    ("milestone", Some(7)),
    ("draft", Some(6)),
];
const TASK: usize = 1;
const BUG: usize = 2;
const PROJECT: usize = 3;
const MEETING: usize = 4;
const PERSON: usize = 5;
const NOTE: usize = 6;

struct Plan {
    docs: Vec<Doc>,
    ids: Vec<String>,
    rng: Rng,
    clock: i64,
}

impl Plan {
    fn add(&mut self, doc: Doc) -> u32 {
        let ix = self.docs.len() as u32;
        // A bijective mix of the index: unique, random-looking, Tana-like ids.
        let mut x = (u64::from(ix) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut id = String::with_capacity(11);
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
        for _ in 0..11 {
            id.push(ALPHABET[(x & 63) as usize] as char);
            x >>= 6;
        }
        self.ids.push(id);
        self.docs.push(doc);
        ix
    }

    fn push_child(&mut self, parent: u32, child: Child) {
        self.docs[parent as usize].children.push(child);
    }

    /// A doc owned by `owner` and listed in its children.
    fn owned(&mut self, owner: u32, mut doc: Doc) -> u32 {
        doc.owner = Some(owner);
        if doc.created == 0 {
            self.clock += 37_000 + self.rng.below(90_000) as i64;
            doc.created = self.clock;
            doc.modified = self.clock + self.rng.below(30 * 86_400_000) as i64;
        }
        let ix = self.add(doc);
        self.push_child(owner, Child::Doc(ix));
        ix
    }

    fn system(&mut self, owner: u32, doc_type: &'static str, children: Vec<Child>) -> u32 {
        self.owned(
            owner,
            Doc {
                doc_type: Some(doc_type),
                children,
                ..Doc::default()
            },
        )
    }

    /// Applies a supertag: a metanode with a `[SYS_A13, tag]` tuple.
    fn tag(&mut self, node: u32, tag: u32) {
        let meta = self.add(Doc {
            owner: Some(node),
            doc_type: Some("metanode"),
            ..Doc::default()
        });
        self.docs[node as usize].meta = Some(meta);
        self.system(meta, "tuple", vec![Child::Sys("SYS_A13"), Child::Doc(tag)]);
    }

    /// A field tuple `[label, values…]` under `node`; `text` values are owned by the tuple.
    fn field(&mut self, node: u32, label: Child, refs: &[u32], text: Option<String>) {
        let mut children = vec![label];
        children.extend(refs.iter().map(|&r| Child::Doc(r)));
        let tuple = self.system(node, "tuple", children);
        if let Some(text) = text {
            self.owned(
                tuple,
                Doc {
                    name: Some(text),
                    ..Doc::default()
                },
            );
        }
    }

    fn span(&self, doc: u32) -> String {
        format!(
            "<span data-inlineref-node=\"{}\"></span>",
            self.ids[doc as usize]
        )
    }
}

fn date_span(day: i64) -> String {
    let (y, m, d) = civil(day);
    format!(
        "<span data-inlineref-date=\"{{&quot;dateTimeString&quot;:&quot;{y:04}-{m:02}-{d:02}&quot;}}\"></span>"
    )
}

/// (year, month, day) of days since 1970-01-01.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn named(name: String) -> Doc {
    Doc {
        name: Some(name),
        ..Doc::default()
    }
}

/// The rules every project lists in its `Policies` field.
const POLICIES: [&str; 8] = [
    "Never log personal data",
    "Every change ships behind a feature flag",
    "Customer data stays in the EU region",
    "Two reviewers for payment code",
    "No production access without a ticket",
    "Dependencies are pinned and scanned",
    "Incidents get a written review within five days",
    "Accessibility check before every release",
];

/// Docs written after the main loop besides one `Policies` tuple per project: the `#policy`
/// tag (def, metanode, tuple), the `Policies` field (def, metanode, tuple), the folder, and
/// per policy the node, its metanode, its tag tuple and its text.
const POLICY_DOCS: usize = 3 + 3 + 1 + 4 * POLICIES.len();

/// Writes `export.json` and `brief.toml` into `out`; returns the number of docs.
pub(crate) fn generate(
    out: &Path,
    total: usize,
    rng: &mut Rng,
) -> Result<(usize, Structure), String> {
    let mut plan = Plan {
        docs: Vec::with_capacity(total + 64),
        ids: Vec::with_capacity(total + 64),
        rng: Rng(rng.next() | 1),
        clock: 1_735_689_600_000, // 2025-01-01
    };
    let schema = Schema::new(&mut plan);
    let outline = Outline::new(&mut plan, &schema, total);
    let mut grown = Grown {
        projects: Vec::new(),
        tasks: Vec::new(),
        notes: Vec::new(),
        all: outline.areas.clone(),
        links: TanaLinks::default(),
    };
    grow(&mut plan, &schema, &outline, total, &mut grown);
    policies(&mut plan, &schema, outline.home, &mut grown);
    let written = plan.docs.len();
    write_export(out, &plan).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok((written, Structure::Tana(grown.links)))
}

impl Plan {
    /// One of `list`, at random.
    fn pick(&mut self, list: &[u32]) -> u32 {
        list[self.rng.below(list.len())]
    }

    /// A field definition in `schema` (an `attrDef` with its `[SYS_A13, SYS_T02]` tuple) and
    /// its options.
    fn attr(&mut self, schema: u32, name: &str, options: &[&str]) -> (u32, Vec<u32>) {
        let def = self.owned(
            schema,
            Doc {
                name: Some(name.into()),
                doc_type: Some("attrDef"),
                ..Doc::default()
            },
        );
        let meta = self.add(Doc {
            owner: Some(def),
            doc_type: Some("metanode"),
            ..Doc::default()
        });
        self.docs[def as usize].meta = Some(meta);
        self.system(
            meta,
            "tuple",
            vec![Child::Sys("SYS_A13"), Child::Sys("SYS_T02")],
        );
        let opts = options
            .iter()
            .map(|o| self.owned(def, named(o.to_string())))
            .collect();
        (def, opts)
    }
}

/// The workspace's containers, supertags and fields.
struct Schema {
    schema: u32,
    stash: u32,
    trash: u32,
    tags: Vec<u32>,
    status: u32,
    statuses: Vec<u32>,
    owner: u32,
    blocked: u32,
    priority: u32,
}

impl Schema {
    fn new(plan: &mut Plan) -> Schema {
        let schema = plan.add(named("Schema".into()));
        let stash = plan.add(named("Library".into()));
        let trash = plan.add(named("Trash".into()));
        plan.ids[schema as usize] = "genWS_SCHEMA".into();
        plan.ids[stash as usize] = "genWS_STASH".into();
        plan.ids[trash as usize] = "genWS_TRASH".into();
        let tags = supertags(plan, schema);
        let (status, statuses) = plan.attr(schema, "Status", &["Backlog", "Active", "Done"]);
        let (owner, _) = plan.attr(schema, "Owner", &[]);
        let (blocked, _) = plan.attr(schema, "Blocked by", &[]);
        let (priority, _) = plan.attr(schema, "Priority", &[]);
        plan.owned(
            schema,
            Doc {
                name: Some("Table".into()),
                doc_type: Some("viewDef"),
                ..Doc::default()
            },
        );
        Schema {
            schema,
            stash,
            trash,
            tags,
            status,
            statuses,
            owner,
            blocked,
            priority,
        }
    }
}

/// The supertags of `TAGS`, with inheritance.
fn supertags(plan: &mut Plan, schema: u32) -> Vec<u32> {
    let mut tags: Vec<u32> = Vec::new();
    for &(name, _) in TAGS {
        let tag = plan.owned(
            schema,
            Doc {
                name: Some(name.into()),
                doc_type: Some("tagDef"),
                ..Doc::default()
            },
        );
        tags.push(tag);
    }
    for (i, &(_, parent)) in TAGS.iter().enumerate() {
        let meta = plan.add(Doc {
            owner: Some(tags[i]),
            doc_type: Some("metanode"),
            ..Doc::default()
        });
        plan.docs[tags[i] as usize].meta = Some(meta);
        let mut children = vec![Child::Sys("SYS_A13"), Child::Sys("SYS_T01")];
        children.extend(parent.map(|p| Child::Doc(tags[p])));
        plan.system(meta, "tuple", children);
    }
    tags
}

/// The outline's fixed part: a home, areas, each with a meetings folder; people in the
/// library; one inbox that collects thousands of bullets (a large child list).
struct Outline {
    home: u32,
    inbox: u32,
    areas: Vec<u32>,
    folders: Vec<u32>,
    people: Vec<u32>,
}

impl Outline {
    fn new(plan: &mut Plan, schema: &Schema, total: usize) -> Outline {
        let home = plan.add(Doc {
            name: Some("Generated workspace".into()),
            doc_type: Some("home"),
            created: plan.clock,
            modified: plan.clock,
            ..Doc::default()
        });
        let inbox = plan.owned(home, named("Inbox".into()));
        let mut areas = Vec::new();
        let mut folders = Vec::new();
        for a in 0..20 {
            let name = format!("Area {a}: {}", title(&mut plan.rng, a));
            let area = plan.owned(home, named(name));
            folders.push(plan.owned(area, named("Meetings".into())));
            areas.push(area);
        }
        let people_count = (total / 400).clamp(3, 5_000);
        let mut people = Vec::new();
        for p in 0..people_count {
            let person = plan.owned(schema.stash, named(format!("Person {p}")));
            plan.tag(person, schema.tags[PERSON]);
            people.push(person);
        }
        Outline {
            home,
            inbox,
            areas,
            folders,
            people,
        }
    }
}

/// What the random bullets made so far, and what the labels will say of them.
struct Grown {
    projects: Vec<u32>,
    tasks: Vec<u32>,
    notes: Vec<u32>,
    /// Every placed node a bullet may go under.
    all: Vec<u32>,
    links: TanaLinks,
}

/// Adds random bullets until the export holds `total` docs, keeping room for the policies
/// and the one `Policies` tuple each project gets.
fn grow(plan: &mut Plan, schema: &Schema, outline: &Outline, total: usize, grown: &mut Grown) {
    let mut n = 0usize;
    while plan.docs.len() + POLICY_DOCS + grown.projects.len() < total {
        n += 1;
        let roll = plan.rng.below(100);
        let mut name = title(&mut plan.rng, n);
        if plan.rng.below(10) == 0 {
            let person = plan.pick(&outline.people);
            name = format!("{name} with {}", plan.span(person));
        }
        if plan.rng.below(20) == 0 {
            let day = plan.clock / 86_400_000 + plan.rng.below(60) as i64;
            name = format!("{name} by {}", date_span(day));
        }
        let node = match roll {
            0..=3 => project(plan, schema, outline, grown, name),
            4..=43 if !grown.projects.is_empty() => task(plan, schema, outline, grown, name),
            44..=58 => note(plan, schema, outline, grown, name),
            59..=66 => meeting(plan, schema, outline, n, name),
            67..=68 => {
                // Into the trash, with a child of its own.
                let gone = plan.owned(schema.trash, named(name));
                plan.owned(gone, named("Step of a trashed plan".into()));
                continue;
            }
            69..=74 => plan.owned(outline.inbox, named(name)),
            _ => {
                let parent = plan.pick(&grown.all);
                plan.owned(parent, named(name))
            }
        };
        grown.all.push(node);
    }
}

fn project(
    plan: &mut Plan,
    schema: &Schema,
    outline: &Outline,
    grown: &mut Grown,
    name: String,
) -> u32 {
    let area = plan.pick(&outline.areas);
    let project = plan.owned(area, named(name));
    plan.tag(project, schema.tags[PROJECT]);
    let s = schema.statuses[plan.rng.below(schema.statuses.len())];
    plan.field(project, Child::Doc(schema.status), &[s], None);
    grown.projects.push(project);
    project
}

fn task(
    plan: &mut Plan,
    schema: &Schema,
    outline: &Outline,
    grown: &mut Grown,
    name: String,
) -> u32 {
    let under_task = plan.rng.below(4) == 0 && !grown.tasks.is_empty();
    let parent = if under_task {
        plan.pick(&grown.tasks)
    } else {
        plan.pick(&grown.projects)
    };
    let task = plan.owned(parent, named(name));
    let id = plan.ids[task as usize].clone();
    let links = &mut grown.links;
    links
        .parent
        .insert(id.clone(), plan.ids[parent as usize].clone());
    if !under_task {
        links.project_tasks.push(id.clone());
    }
    let tag = if plan.rng.below(8) == 0 { BUG } else { TASK };
    plan.tag(task, schema.tags[tag]);
    let s = schema.statuses[plan.rng.below(schema.statuses.len())];
    plan.field(task, Child::Doc(schema.status), &[s], None);
    let who = plan.pick(&outline.people);
    plan.field(task, Child::Doc(schema.owner), &[who], None);
    links
        .owner
        .insert(id.clone(), plan.ids[who as usize].clone());
    if plan.rng.below(3) == 0 {
        let p = ["High", "Medium", "Low"][plan.rng.below(3)].to_string();
        plan.field(task, Child::Doc(schema.priority), &[], Some(p));
    }
    if plan.rng.below(10) == 0 && !grown.tasks.is_empty() {
        let other = plan.pick(&grown.tasks);
        plan.field(task, Child::Doc(schema.blocked), &[other], None);
        links
            .blocked_by
            .entry(id.clone())
            .or_default()
            .push(plan.ids[other as usize].clone());
    }
    if plan.rng.below(20) == 0 && !grown.notes.is_empty() {
        // A note listed under the task but owned elsewhere: a reference.
        let note = plan.pick(&grown.notes);
        plan.push_child(task, Child::Doc(note));
        links
            .notes
            .entry(id.clone())
            .or_default()
            .push(plan.ids[note as usize].clone());
    }
    grown.tasks.push(task);
    task
}

fn note(
    plan: &mut Plan,
    schema: &Schema,
    outline: &Outline,
    grown: &mut Grown,
    name: String,
) -> u32 {
    let parent = if grown.projects.is_empty() || plan.rng.below(2) == 0 {
        plan.pick(&outline.areas)
    } else {
        plan.pick(&grown.projects)
    };
    let note = plan.owned(parent, named(name));
    grown.links.note_parent.insert(
        plan.ids[note as usize].clone(),
        plan.ids[parent as usize].clone(),
    );
    plan.tag(note, schema.tags[NOTE]);
    let text = format!(
        "{} {}",
        super::sentence(&mut plan.rng),
        super::sentence(&mut plan.rng)
    );
    plan.owned(note, named(text));
    grown.notes.push(note);
    note
}

fn meeting(plan: &mut Plan, schema: &Schema, outline: &Outline, n: usize, name: String) -> u32 {
    let folder = plan.pick(&outline.folders);
    let meeting = plan.owned(folder, named(format!("Meeting: {name}")));
    plan.tag(meeting, schema.tags[MEETING]);
    let k = 1 + plan.rng.below(3);
    let attendees: Vec<u32> = (0..k).map(|_| plan.pick(&outline.people)).collect();
    plan.field(meeting, Child::Sys("SYS_A142"), &attendees, None);
    let day = plan.clock / 86_400_000;
    plan.field(meeting, Child::Sys("SYS_A90"), &[], Some(date_span(day)));
    let agenda = format!("Agenda: {}", title(&mut plan.rng, n));
    plan.owned(meeting, named(agenda));
    meeting
}

/// Policies: a `#policy` tag, a folder of rules, and a `Policies` field on every project
/// naming one or two of them.
fn policies(plan: &mut Plan, schema: &Schema, home: u32, grown: &mut Grown) {
    let policy_tag = plan.owned(
        schema.schema,
        Doc {
            name: Some("policy".into()),
            doc_type: Some("tagDef"),
            ..Doc::default()
        },
    );
    let meta = plan.add(Doc {
        owner: Some(policy_tag),
        doc_type: Some("metanode"),
        ..Doc::default()
    });
    plan.docs[policy_tag as usize].meta = Some(meta);
    plan.system(
        meta,
        "tuple",
        vec![Child::Sys("SYS_A13"), Child::Sys("SYS_T01")],
    );
    let (policies_field, _) = plan.attr(schema.schema, "Policies", &[]);
    let folder = plan.owned(home, named("Policies".into()));
    let mut rules = Vec::new();
    for rule in POLICIES {
        let policy = plan.owned(folder, named(rule.to_string()));
        plan.tag(policy, policy_tag);
        let text = super::sentence(&mut plan.rng);
        plan.owned(policy, named(text));
        rules.push(policy);
    }
    for &project in &grown.projects {
        let first = rules[plan.rng.below(rules.len())];
        let mut chosen = vec![first];
        if plan.rng.below(2) == 0 {
            let second = rules[plan.rng.below(rules.len())];
            if second != first {
                chosen.push(second);
            }
        }
        plan.field(project, Child::Doc(policies_field), &chosen, None);
        grown.links.policies.insert(
            plan.ids[project as usize].clone(),
            chosen
                .iter()
                .map(|&p| plan.ids[p as usize].clone())
                .collect(),
        );
    }
}

fn write_export(out: &Path, plan: &Plan) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("brief.toml"), "tana = \"export.json\"\n")?;
    let file = std::fs::File::create(out.join("export.json"))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    w.write_all(
        b"{\"formatVersion\":1,\"editors\":[[\"bench@example.invalid\",0]],\"workspaces\":{\"genWS\":\"{}\"},\"docs\":[\n",
    )?;
    for (i, doc) in plan.docs.iter().enumerate() {
        if i > 0 {
            w.write_all(b",\n")?;
        }
        write!(w, "{{\"id\":\"{}\",\"props\":{{", plan.ids[i])?;
        write!(w, "\"created\":{}", doc.created)?;
        if let Some(name) = &doc.name {
            w.write_all(b",\"name\":")?;
            serde_json::to_writer(&mut w, name)?;
        }
        if let Some(owner) = doc.owner {
            write!(w, ",\"_ownerId\":\"{}\"", plan.ids[owner as usize])?;
        }
        if let Some(meta) = doc.meta {
            write!(w, ",\"_metaNodeId\":\"{}\"", plan.ids[meta as usize])?;
        }
        if let Some(t) = doc.doc_type {
            write!(w, ",\"_docType\":\"{t}\"")?;
        }
        w.write_all(b"}")?;
        if !doc.children.is_empty() {
            w.write_all(b",\"children\":[")?;
            for (k, child) in doc.children.iter().enumerate() {
                if k > 0 {
                    w.write_all(b",")?;
                }
                match child {
                    Child::Doc(d) => write!(w, "\"{}\"", plan.ids[*d as usize])?,
                    Child::Sys(s) => write!(w, "\"{s}\"")?,
                }
            }
            w.write_all(b"]")?;
        }
        if doc.modified > 0 {
            write!(w, ",\"modifiedTs\":[{},0]", doc.modified)?;
        }
        w.write_all(b"}")?;
    }
    w.write_all(b"\n]}\n")?;
    w.flush()
}
