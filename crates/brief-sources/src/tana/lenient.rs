//! Lenient deserialization of an export: every value in any JSON type, checked afterwards,
//! so a wrong type is a problem naming its JSON path.

use super::*;

/// A scalar as read: a string (borrowed when it had no escapes), a number, or the name of
/// the JSON type found instead.
pub(super) enum Val<'a> {
    Str(Cow<'a, str>),
    Num(f64),
    Other(&'static str),
}

impl Val<'_> {
    pub(super) fn found(&self) -> &'static str {
        match self {
            Val::Str(_) => "a string",
            Val::Num(_) => "a number",
            Val::Other(what) => what,
        }
    }
}

pub(super) struct ValVisitor;

impl<'de> Visitor<'de> for ValVisitor {
    type Value = Val<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Val<'de>, E> {
        Ok(Val::Num(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Val<'de>, E> {
        Ok(Val::Num(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Val<'de>, E> {
        Ok(Val::Num(v))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Val<'de>, E> {
        Ok(Val::Other("a boolean"))
    }
    fn visit_unit<E>(self) -> Result<Val<'de>, E> {
        Ok(Val::Other("null"))
    }
    fn visit_none<E>(self) -> Result<Val<'de>, E> {
        Ok(Val::Other("null"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Val<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Val::Other("an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Val<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Val::Other("an object"))
    }
}

impl<'de> Deserialize<'de> for Val<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValVisitor)
    }
}

/// An array of scalars, or the JSON type found instead.
pub(super) enum List<'a> {
    Items(Vec<Val<'a>>),
    Other(&'static str),
}

impl<'de> Deserialize<'de> for List<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = List<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<List<'de>, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
                while let Some(item) = seq.next_element::<Val>()? {
                    items.push(item);
                }
                Ok(List::Items(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<List<'de>, A::Error> {
                ValVisitor.visit_map(map).map(|v| List::Other(v.found()))
            }
            fn visit_borrowed_str<E>(self, _: &'de str) -> Result<List<'de>, E> {
                Ok(List::Other("a string"))
            }
            fn visit_str<E>(self, _: &str) -> Result<List<'de>, E> {
                Ok(List::Other("a string"))
            }
            fn visit_i64<E>(self, _: i64) -> Result<List<'de>, E> {
                Ok(List::Other("a number"))
            }
            fn visit_u64<E>(self, _: u64) -> Result<List<'de>, E> {
                Ok(List::Other("a number"))
            }
            fn visit_f64<E>(self, _: f64) -> Result<List<'de>, E> {
                Ok(List::Other("a number"))
            }
            fn visit_bool<E>(self, _: bool) -> Result<List<'de>, E> {
                Ok(List::Other("a boolean"))
            }
            fn visit_unit<E>(self) -> Result<List<'de>, E> {
                Ok(List::Other("null"))
            }
        }
        d.deserialize_any(V)
    }
}

/// An object key (borrowed when it had no escapes).
pub(super) struct Key<'a>(pub(super) Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_str(ValVisitor)? {
            Val::Str(s) => Ok(Key(s)),
            _ => Ok(Key(Cow::Borrowed(""))),
        }
    }
}

/// `props` as read.
#[derive(Default)]
pub(super) struct RawProps<'a> {
    pub(super) name: Option<Val<'a>>,
    pub(super) description: Option<Val<'a>>,
    pub(super) owner: Option<Val<'a>>,
    pub(super) meta: Option<Val<'a>>,
    pub(super) doc_type: Option<Val<'a>>,
    pub(super) created: Option<Val<'a>>,
    /// The JSON type found when `props` is not an object.
    pub(super) not_object: Option<&'static str>,
}

impl<'de> Deserialize<'de> for RawProps<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawProps<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawProps<'de>, A::Error> {
                let mut props = RawProps::default();
                while let Some(Key(key)) = map.next_key::<Key>()? {
                    let slot = match key.as_ref() {
                        "name" => &mut props.name,
                        "description" => &mut props.description,
                        "_ownerId" => &mut props.owner,
                        "_metaNodeId" => &mut props.meta,
                        "_docType" => &mut props.doc_type,
                        "created" => &mut props.created,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = Some(map.next_value::<Val>()?);
                }
                Ok(props)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<RawProps<'de>, A::Error> {
                ValVisitor.visit_seq(seq).map(not_object)
            }
            fn visit_borrowed_str<E>(self, _: &'de str) -> Result<RawProps<'de>, E> {
                Ok(not_object(Val::Other("a string")))
            }
            fn visit_str<E>(self, _: &str) -> Result<RawProps<'de>, E> {
                Ok(not_object(Val::Other("a string")))
            }
            fn visit_i64<E>(self, _: i64) -> Result<RawProps<'de>, E> {
                Ok(not_object(Val::Other("a number")))
            }
            fn visit_u64<E>(self, _: u64) -> Result<RawProps<'de>, E> {
                Ok(not_object(Val::Other("a number")))
            }
            fn visit_f64<E>(self, _: f64) -> Result<RawProps<'de>, E> {
                Ok(not_object(Val::Other("a number")))
            }
            fn visit_bool<E>(self, _: bool) -> Result<RawProps<'de>, E> {
                Ok(not_object(Val::Other("a boolean")))
            }
            fn visit_unit<E>(self) -> Result<RawProps<'de>, E> {
                // `props: null` reads as no props.
                Ok(RawProps::default())
            }
        }
        fn not_object(found: Val<'_>) -> RawProps<'_> {
            RawProps {
                not_object: Some(found.found()),
                ..RawProps::default()
            }
        }
        d.deserialize_any(V)
    }
}

/// A doc as read.
#[derive(Default)]
pub(super) struct RawDoc<'a> {
    pub(super) id: Option<Val<'a>>,
    pub(super) props: Option<RawProps<'a>>,
    pub(super) children: Option<List<'a>>,
    pub(super) modified: Option<List<'a>>,
    pub(super) not_object: Option<&'static str>,
}

impl<'de> Deserialize<'de> for RawDoc<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawDoc<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawDoc<'de>, A::Error> {
                let mut doc = RawDoc::default();
                while let Some(Key(key)) = map.next_key::<Key>()? {
                    match key.as_ref() {
                        "id" => doc.id = Some(map.next_value()?),
                        "props" => doc.props = Some(map.next_value()?),
                        "children" => doc.children = Some(map.next_value()?),
                        "modifiedTs" => doc.modified = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(doc)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<RawDoc<'de>, A::Error> {
                ValVisitor.visit_seq(seq).map(|v| RawDoc {
                    not_object: Some(v.found()),
                    ..RawDoc::default()
                })
            }
            fn visit_borrowed_str<E>(self, _: &'de str) -> Result<RawDoc<'de>, E> {
                Ok(other("a string"))
            }
            fn visit_str<E>(self, _: &str) -> Result<RawDoc<'de>, E> {
                Ok(other("a string"))
            }
            fn visit_i64<E>(self, _: i64) -> Result<RawDoc<'de>, E> {
                Ok(other("a number"))
            }
            fn visit_u64<E>(self, _: u64) -> Result<RawDoc<'de>, E> {
                Ok(other("a number"))
            }
            fn visit_f64<E>(self, _: f64) -> Result<RawDoc<'de>, E> {
                Ok(other("a number"))
            }
            fn visit_bool<E>(self, _: bool) -> Result<RawDoc<'de>, E> {
                Ok(other("a boolean"))
            }
            fn visit_unit<E>(self) -> Result<RawDoc<'de>, E> {
                Ok(other("null"))
            }
        }
        fn other(found: &'static str) -> RawDoc<'static> {
            RawDoc {
                not_object: Some(found),
                ..RawDoc::default()
            }
        }
        d.deserialize_any(V)
    }
}

/// A doc after its checks: only what the loader uses.
pub(super) struct Doc<'a> {
    pub(super) id: Cow<'a, str>,
    pub(super) name: Cow<'a, str>,
    pub(super) description: Option<Cow<'a, str>>,
    pub(super) owner: Option<Cow<'a, str>>,
    pub(super) meta: Option<Cow<'a, str>>,
    pub(super) doc_type: Option<Cow<'a, str>>,
    pub(super) created: Option<i64>,
    pub(super) modified: Option<i64>,
    pub(super) children: Vec<Cow<'a, str>>,
}

/// A problem found while reading, located by its JSON path.
pub(super) struct Found {
    pub(super) severity: Severity,
    pub(super) path: Vec<Seg>,
    pub(super) message: String,
}

/// One step of a JSON path.
#[derive(Clone)]
pub(super) enum Seg {
    Key(&'static str),
    Index(usize),
}

pub(super) fn show_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    if out.is_empty() {
        out.push_str("(top level)");
    }
    out
}

/// Reads `docs`, checking each doc as it arrives (so raw and checked docs never coexist).
pub(super) struct DocsSeed<'s> {
    pub(super) at: &'s Cell<Option<usize>>,
    pub(super) found: &'s RefCell<Vec<Found>>,
    pub(super) prefix: &'s [Seg],
}

impl<'de> DeserializeSeed<'de> for DocsSeed<'_> {
    type Value = Result<Vec<Doc<'de>>, &'static str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DocsSeed<'_> {
    type Value = Result<Vec<Doc<'de>>, &'static str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of docs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut docs = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        let mut index = 0;
        loop {
            self.at.set(Some(index));
            let Some(raw) = seq.next_element::<RawDoc>()? else {
                break;
            };
            let mut path = self.prefix.to_vec();
            path.extend([Seg::Key("docs"), Seg::Index(index)]);
            if let Some(doc) = check_doc(raw, &path, &mut self.found.borrow_mut()) {
                docs.push(doc);
            }
            index += 1;
        }
        self.at.set(None);
        Ok(Ok(docs))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        ValVisitor.visit_map(map).map(|v| Err(v.found()))
    }
    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Self::Value, E> {
        Ok(Err("a string"))
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Err("a string"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Err("a number"))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Err("a boolean"))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Err("null"))
    }
}

/// The top level: `{docs: […]}` or `{storeData: {docs: […]}}`; other keys are ignored.
pub(super) struct TopSeed<'s> {
    pub(super) at: &'s Cell<Option<usize>>,
    pub(super) found: &'s RefCell<Vec<Found>>,
    pub(super) prefix: Vec<Seg>,
}

/// What the top level held: its docs (or the type found where docs were expected).
pub(super) enum Top<'a> {
    Docs(Result<Vec<Doc<'a>>, &'static str>),
    NoDocs,
    NotObject(&'static str),
}

impl<'de> DeserializeSeed<'de> for TopSeed<'_> {
    type Value = (Top<'de>, Vec<Seg>);

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_> {
    type Value = (Top<'de>, Vec<Seg>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Tana export object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut top = (Top::NoDocs, self.prefix.clone());
        while let Some(Key(key)) = map.next_key::<Key>()? {
            match key.as_ref() {
                "docs" if matches!(top.0, Top::NoDocs) => {
                    let docs = map.next_value_seed(DocsSeed {
                        at: self.at,
                        found: self.found,
                        prefix: &self.prefix,
                    })?;
                    top = (Top::Docs(docs), self.prefix.clone());
                }
                "storeData" if matches!(top.0, Top::NoDocs) && self.prefix.is_empty() => {
                    let mut prefix = self.prefix.clone();
                    prefix.push(Seg::Key("storeData"));
                    top = map.next_value_seed(TopSeed {
                        at: self.at,
                        found: self.found,
                        prefix,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(top)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let prefix = self.prefix.clone();
        ValVisitor
            .visit_seq(seq)
            .map(|v| (Top::NotObject(v.found()), prefix))
    }
    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Self::Value, E> {
        Ok((Top::NotObject("a string"), self.prefix))
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok((Top::NotObject("a string"), self.prefix))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok((Top::NotObject("a number"), self.prefix))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok((Top::NotObject("a number"), self.prefix))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok((Top::NotObject("a number"), self.prefix))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok((Top::NotObject("a boolean"), self.prefix))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok((Top::NotObject("null"), self.prefix))
    }
}

pub(super) fn error(found: &mut Vec<Found>, path: &[Seg], tail: &[Seg], message: String) {
    let mut full = path.to_vec();
    full.extend_from_slice(tail);
    found.push(Found {
        severity: Severity::Error,
        path: full,
        message,
    });
}

/// A string value, or a problem saying what was found (`null` reads as absent).
pub(super) fn string_of<'a>(
    val: Option<Val<'a>>,
    found: &mut Vec<Found>,
    path: &[Seg],
    tail: &[Seg],
    what: &str,
) -> Option<Cow<'a, str>> {
    match val? {
        Val::Str(s) => Some(s),
        Val::Other("null") => None,
        other => {
            error(
                found,
                path,
                tail,
                format!("expected {what}, found {}", other.found()),
            );
            None
        }
    }
}

/// Epoch milliseconds within years 0–9999, or a warning.
pub(super) fn millis(
    val: &Val<'_>,
    found: &mut Vec<Found>,
    path: &[Seg],
    tail: &[Seg],
) -> Option<i64> {
    match val {
        Val::Num(n)
            if n.is_finite() && (-62_167_219_200_000.0..253_402_300_800_000.0).contains(n) =>
        {
            Some(*n as i64)
        }
        Val::Other("null") => None,
        other => {
            let mut full = path.to_vec();
            full.extend_from_slice(tail);
            found.push(Found {
                severity: Severity::Warning,
                path: full,
                message: format!(
                    "expected a time in epoch milliseconds, found {}; ignored",
                    match other {
                        Val::Num(_) => "a number out of range",
                        v => v.found(),
                    }
                ),
            });
            None
        }
    }
}

/// A doc's `children`: the string ids, each other value reported at its index.
fn children_of<'a>(
    raw: Option<List<'a>>,
    path: &[Seg],
    found: &mut Vec<Found>,
) -> Vec<Cow<'a, str>> {
    let mut children = Vec::new();
    match raw {
        None => {}
        Some(List::Other("null")) => {}
        Some(List::Other(what)) => error(
            found,
            path,
            &[Seg::Key("children")],
            format!("expected an array of ids, found {what}"),
        ),
        Some(List::Items(items)) => {
            children.reserve_exact(items.len());
            for (i, item) in items.into_iter().enumerate() {
                match item {
                    Val::Str(child) => children.push(child),
                    other => error(
                        found,
                        path,
                        &[Seg::Key("children"), Seg::Index(i)],
                        format!("expected a string id, found {}", other.found()),
                    ),
                }
            }
        }
    }
    children
}

pub(super) fn check_doc<'a>(
    raw: RawDoc<'a>,
    path: &[Seg],
    found: &mut Vec<Found>,
) -> Option<Doc<'a>> {
    if let Some(what) = raw.not_object {
        error(
            found,
            path,
            &[],
            format!("expected a doc object, found {what}"),
        );
        return None;
    }
    let id = match raw.id {
        Some(Val::Str(id)) if !id.trim().is_empty() => id,
        Some(Val::Str(_)) => {
            error(
                found,
                path,
                &[Seg::Key("id")],
                "expected a non-empty id".into(),
            );
            return None;
        }
        Some(other) => {
            error(
                found,
                path,
                &[Seg::Key("id")],
                format!("expected a string id, found {}", other.found()),
            );
            return None;
        }
        None => {
            error(found, path, &[], "doc has no `id`".into());
            return None;
        }
    };
    let mut props = raw.props.unwrap_or_default();
    if let Some(what) = props.not_object {
        error(
            found,
            path,
            &[Seg::Key("props")],
            format!("expected an object, found {what}"),
        );
    }
    let p = |key: &'static str| [Seg::Key("props"), Seg::Key(key)];
    let name =
        string_of(props.name.take(), found, path, &p("name"), "a string").unwrap_or_default();
    let description = string_of(
        props.description.take(),
        found,
        path,
        &p("description"),
        "a string",
    );
    let owner = string_of(
        props.owner.take(),
        found,
        path,
        &p("_ownerId"),
        "a string id",
    );
    let meta = string_of(
        props.meta.take(),
        found,
        path,
        &p("_metaNodeId"),
        "a string id",
    );
    let doc_type = string_of(
        props.doc_type.take(),
        found,
        path,
        &p("_docType"),
        "a string",
    );
    let created = props
        .created
        .as_ref()
        .and_then(|v| millis(v, found, path, &p("created")));
    let children = children_of(raw.children, path, found);
    // `modifiedTs` is one time per editor (or a string in some exports): the newest counts.
    let modified = match raw.modified {
        Some(List::Items(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match v {
                Val::Num(n) if *n == 0.0 => None,
                v => millis(v, found, path, &[Seg::Key("modifiedTs"), Seg::Index(i)]),
            })
            .max(),
        _ => None,
    };
    Some(Doc {
        id,
        name,
        description,
        owner,
        meta,
        doc_type,
        created,
        modified,
        children,
    })
}
