//! Tana workspace exports (`tana = "export.json"` in `brief.toml`): one JSON file that
//! becomes many nodes.
//!
//! The export is `{formatVersion, docs: [...], editors, workspaces, …}`, possibly wrapped
//! as `{storeData: {…}}` (supertag.md §2). Every doc is `{id, props, children, modifiedTs}`;
//! what a doc *is* comes from `props._docType` and the tuples around it:
//!
//! - Content nodes (no `_docType`, or one that is not a system type) become [`Node`]s with
//!   Tana's id, their name as title (inline-reference spans resolved to `[[name]]`, date
//!   spans to the date), supertags as kind and tags, fields, created/modified times.
//! - System docs (tuples, metanodes, `tagDef`, `attrDef`, `viewDef`, …) are never nodes;
//!   they define supertags (`tagDef` + metanode tuple `[SYS_A13, SYS_T01, parents…]`), fields
//!   (`attrDef`, or a metanode tuple `[SYS_A13, SYS_T02]`), tag applications (a metanode
//!   tuple `[SYS_A13, tag…]`) and field values (a tuple child `[label, value…]`).
//! - Anything under a `…_TRASH` container (at any depth) is dropped.
//! - Ownership (`_ownerId`) gives `child` edges; a `children` entry owned elsewhere and an
//!   inline reference give `reference` edges; a field value that is a node gives a
//!   `field:<name>` edge.
//!
//! Parsing deserializes straight into compact borrowed structs (no `serde_json::Value`
//! tree): a 1M-doc export must index in seconds. Every value the loader reads is accepted in
//! any JSON type and checked afterwards, so a wrong type is a problem naming its JSON path
//! (`docs[12].children[3]: expected a string id`), never a panic or a silent skip. Unknown
//! `_docType`s are tolerated: they are treated as content.

use super::text::line_col;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::{read_text, rel_path, Problem, Severity, SourceOutput};
use crate::model::{Content, Kind, Link, Location, Node, Origin, Relation, TanaField, TanaFields};
use crate::root::Root;

/// `_docType`s that are structure, not content: they are read to build tags and fields.
const SYSTEM_TYPES: &[&str] = &[
    "tuple",
    "metanode",
    "tagDef",
    "attrDef",
    "viewDef",
    "associatedData",
    "settings",
    "workspace",
    "command",
    "syntax",
    "placeholder",
    "chatbot",
];

/// Workspace containers (`<ws>_SCHEMA`, `<ws>_STASH`, …): folders, not content.
const CONTAINERS: &[&str] = &[
    "_SCHEMA",
    "_TRASH",
    "_STASH",
    "_WORKSPACE",
    "_USERS",
    "_SIDEBAR_AREAS",
    "_SEARCHES",
    "_CAPTURE_INBOX",
    "_QUICK_ADD",
    "_MOVETO",
    "_AVATARS",
    "_PINS",
    "_CHATDRAFTS",
    "_TRAILING_SIDEBAR",
    "_SETTINGS",
];

/// Built-in field labels (`SYS_A*` ids are referenced but never exported).
const BUILTIN_FIELDS: &[(&str, &str)] = &[
    ("SYS_A61", "Due date"),
    ("SYS_A90", "Date"),
    ("SYS_A142", "Attendees"),
    ("SYS_A199", "Transcript"),
];

/// Tuples this large are blobs (daily briefings), not fields (supertag skips them too).
const MAX_FIELD_TUPLE: usize = 50;

/// At most this many problems are listed one by one; the rest are counted.
const MAX_PROBLEMS: usize = 100;

/// The kind of untagged content nodes.
pub const UNTAGGED: &str = "node";

// ---------------------------------------------------------------------------------------
// Lenient deserialization: every value in any JSON type, checked afterwards.

/// A scalar as read: a string (borrowed when it had no escapes), a number, or the name of
/// the JSON type found instead.
enum Val<'a> {
    Str(Cow<'a, str>),
    Num(f64),
    Other(&'static str),
}

impl Val<'_> {
    fn found(&self) -> &'static str {
        match self {
            Val::Str(_) => "a string",
            Val::Num(_) => "a number",
            Val::Other(what) => what,
        }
    }
}

struct ValVisitor;

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
enum List<'a> {
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
struct Key<'a>(Cow<'a, str>);

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
struct RawProps<'a> {
    name: Option<Val<'a>>,
    description: Option<Val<'a>>,
    owner: Option<Val<'a>>,
    meta: Option<Val<'a>>,
    doc_type: Option<Val<'a>>,
    created: Option<Val<'a>>,
    /// The JSON type found when `props` is not an object.
    not_object: Option<&'static str>,
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
struct RawDoc<'a> {
    id: Option<Val<'a>>,
    props: Option<RawProps<'a>>,
    children: Option<List<'a>>,
    modified: Option<List<'a>>,
    not_object: Option<&'static str>,
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
struct Doc<'a> {
    id: Cow<'a, str>,
    name: Cow<'a, str>,
    description: Option<Cow<'a, str>>,
    owner: Option<Cow<'a, str>>,
    meta: Option<Cow<'a, str>>,
    doc_type: Option<Cow<'a, str>>,
    created: Option<i64>,
    modified: Option<i64>,
    children: Vec<Cow<'a, str>>,
}

/// A problem found while reading, located by its JSON path.
struct Found {
    severity: Severity,
    path: Vec<Seg>,
    message: String,
}

/// One step of a JSON path.
#[derive(Clone)]
enum Seg {
    Key(&'static str),
    Index(usize),
}

fn show_path(path: &[Seg]) -> String {
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
struct DocsSeed<'s> {
    at: &'s Cell<Option<usize>>,
    found: &'s RefCell<Vec<Found>>,
    prefix: &'s [Seg],
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
struct TopSeed<'s> {
    at: &'s Cell<Option<usize>>,
    found: &'s RefCell<Vec<Found>>,
    prefix: Vec<Seg>,
}

/// What the top level held: its docs (or the type found where docs were expected).
enum Top<'a> {
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

fn error(found: &mut Vec<Found>, path: &[Seg], tail: &[Seg], message: String) {
    let mut full = path.to_vec();
    full.extend_from_slice(tail);
    found.push(Found {
        severity: Severity::Error,
        path: full,
        message,
    });
}

/// A string value, or a problem saying what was found (`null` reads as absent).
fn string_of<'a>(
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
fn millis(val: &Val<'_>, found: &mut Vec<Found>, path: &[Seg], tail: &[Seg]) -> Option<i64> {
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

fn check_doc<'a>(raw: RawDoc<'a>, path: &[Seg], found: &mut Vec<Found>) -> Option<Doc<'a>> {
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
    let mut children = Vec::new();
    match raw.children {
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

// ---------------------------------------------------------------------------------------
// Parsing and the workspace model.

/// An id's position among an export's content nodes (sorted by id), if it is one.
pub type Lookup<'l> = &'l (dyn Fn(&str) -> Option<usize> + Sync);

/// Receives the built nodes of an export chunk by chunk: the position of the chunk's first
/// node, the nodes, and the lookup of any id's position.
pub type ChunkSink<'s, E> = dyn FnMut(usize, Vec<Node>, Lookup<'_>) -> Result<(), E> + 's;

/// A parsed export: its docs, and the problems met reading them.
pub struct Export<'a> {
    rel: String,
    text: &'a str,
    docs: Vec<Doc<'a>>,
    found: Vec<Found>,
    prefix: Vec<Seg>,
}

/// Parses an export's text. Fails (with one problem) only when the text is not JSON or has
/// no `docs` array; anything wrong inside a doc is a problem of [`Export::problems`].
pub fn parse<'a>(rel: &str, text: &'a str) -> Result<Export<'a>, Problem> {
    let at = Cell::new(None);
    let found = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = TopSeed {
        at: &at,
        found: &found,
        prefix: Vec::new(),
    };
    let result = seed
        .deserialize(&mut de)
        .and_then(|top| de.end().map(|_| top));
    let (top, prefix) = match result {
        Ok(top) => top,
        Err(err) => {
            let mut message = err.to_string();
            if let Some(cut) = message.rfind(" at line ") {
                message.truncate(cut);
            }
            let place = match at.get() {
                Some(i) => format!("docs[{i}]: "),
                None => String::new(),
            };
            return Err(Problem::error(
                Location {
                    path: rel.to_string(),
                    line: err.line().max(1) as u32,
                    col: err.column().max(1) as u32,
                },
                format!("{place}invalid JSON: {message}"),
            ));
        }
    };
    let docs =
        match top {
            Top::Docs(Ok(docs)) => docs,
            Top::Docs(Err(what)) => {
                let mut path = prefix.clone();
                path.push(Seg::Key("docs"));
                return Err(problem_at(
                    rel,
                    text,
                    &path,
                    Severity::Error,
                    &format!("expected an array of docs, found {what}"),
                ));
            }
            Top::NoDocs => return Err(problem_at(
                rel,
                text,
                &prefix,
                Severity::Error,
                "not a Tana export: expected an object with a `docs` array (or `storeData.docs`)",
            )),
            Top::NotObject(what) => {
                return Err(problem_at(
                    rel,
                    text,
                    &[],
                    Severity::Error,
                    &format!("not a Tana export: expected a JSON object, found {what}"),
                ))
            }
        };
    Ok(Export {
        rel: rel.to_string(),
        text,
        docs,
        found: found.into_inner(),
        prefix,
    })
}

/// A problem at a JSON path, with the line and column of that path in the text.
fn problem_at(rel: &str, text: &str, path: &[Seg], severity: Severity, message: &str) -> Problem {
    let segs: Vec<super::jsonpos::Seg> = path
        .iter()
        .map(|s| match s {
            Seg::Key(k) => super::jsonpos::Seg::key(k),
            Seg::Index(i) => super::jsonpos::Seg::Index(*i),
        })
        .collect();
    let (line, col) = super::jsonpos::locate(text, &segs)
        .map(|offset| line_col(text, offset))
        .unwrap_or((1, 1));
    Problem {
        severity,
        location: Location {
            path: rel.to_string(),
            line,
            col,
        },
        message: format!("{}: {message}", show_path(path)),
    }
}

/// What a doc is to the loader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
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
struct Workspace<'e, 'a> {
    docs: &'e [Doc<'a>],
    by_id: HashMap<&'e str, u32>,
    role: Vec<Role>,
    /// Supertag names by tagDef doc, and the names each one extends (transitively).
    tags: HashMap<u32, (String, Vec<String>)>,
    /// Field names by attrDef doc.
    fields: HashMap<u32, String>,
    /// Metanode of a doc that has no `_metaNodeId` (found by the metanode's owner).
    metanodes: HashMap<u32, u32>,
    /// Owned children missing from their owner's `children` list.
    unlisted: HashMap<u32, Vec<u32>>,
    /// Docs in the trash (at any depth).
    trashed: Vec<bool>,
    /// Content docs sorted by id; a node's position here is its stable place in the export.
    content: Vec<u32>,
    /// Position in `content` by doc (`u32::MAX` when not content).
    position: Vec<u32>,
}

impl<'a> Export<'a> {
    /// Every doc, content or not.
    pub fn doc_count(&self) -> usize {
        self.docs.len()
    }

    /// Builds the nodes in chunks of `chunk` (in id order, built on all cores) and hands each
    /// to `sink` with the position of its first node and a lookup from an id to its position
    /// among all content nodes. Returns the problems, sorted by location.
    pub fn build<E>(self, chunk: usize, sink: &mut ChunkSink<'_, E>) -> Result<Vec<Problem>, E> {
        let Export {
            rel,
            text,
            docs,
            mut found,
            prefix,
        } = self;
        let ws = Workspace::new(&docs, &mut found, &prefix);
        let location = Location::file(rel.clone());
        let lookup = |id: &str| -> Option<usize> {
            ws.by_id
                .get(id)
                .map(|&d| ws.position[d as usize])
                .filter(|&p| p != u32::MAX)
                .map(|p| p as usize)
        };
        let shared = Shared::new(&location);
        let mut first = 0;
        while first < ws.content.len() {
            let end = (first + chunk.max(1)).min(ws.content.len());
            let nodes: Vec<Node> = ws.content[first..end]
                .par_iter()
                .map(|&d| ws.node(d, &shared))
                .collect();
            sink(first, nodes, &lookup)?;
            first = end;
        }
        Ok(problems(&rel, text, found))
    }
}

/// Values shared by every node of one export (one allocation, not one per node).
struct Shared {
    location: Location,
    untagged: Kind,
    relations: std::sync::Mutex<HashMap<String, Relation>>,
}

impl Shared {
    fn new(location: &Location) -> Shared {
        Shared {
            location: location.clone(),
            untagged: Kind::Other(Arc::from(UNTAGGED)),
            relations: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// The `field:<name>` relation, one `Arc` per field name.
    fn field(&self, name: &str) -> Relation {
        let mut map = self.relations.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(name.to_string())
            .or_insert_with(|| Relation::Field(Arc::from(format!("field:{name}"))))
            .clone()
    }
}

/// Sorts, caps and locates the problems.
fn problems(rel: &str, text: &str, mut found: Vec<Found>) -> Vec<Problem> {
    let total = found.len();
    found.truncate(MAX_PROBLEMS);
    // Locating walks the text from the start: affordable for a few problems, not thousands
    // in a huge file, where the JSON path in the message still says where.
    let locate = found.len() <= 20 && text.len() <= 64 << 20;
    let mut out: Vec<Problem> = found
        .iter()
        .map(|f| {
            if locate {
                problem_at(rel, text, &f.path, f.severity, &f.message)
            } else {
                Problem {
                    severity: f.severity,
                    location: Location::file(rel),
                    message: format!("{}: {}", show_path(&f.path), f.message),
                }
            }
        })
        .collect();
    if total > MAX_PROBLEMS {
        let severity = found
            .iter()
            .map(|f| f.severity)
            .max()
            .unwrap_or(Severity::Warning);
        out.push(Problem {
            severity,
            location: Location::file(rel),
            message: format!(
                "… and {} more problems in this export",
                total - MAX_PROBLEMS
            ),
        });
    }
    out.sort_by(|a, b| {
        a.location
            .cmp(&b.location)
            .then_with(|| a.message.cmp(&b.message))
    });
    out
}

fn is_system(doc_type: Option<&str>) -> bool {
    doc_type.is_some_and(|t| SYSTEM_TYPES.contains(&t))
}

fn is_container(id: &str) -> bool {
    CONTAINERS.iter().any(|suffix| id.ends_with(suffix))
}

fn is_trash(id: &str) -> bool {
    id.contains("_TRASH")
}

impl<'e, 'a> Workspace<'e, 'a> {
    fn new(docs: &'e [Doc<'a>], found: &mut Vec<Found>, prefix: &[Seg]) -> Workspace<'e, 'a> {
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
        // Hidden: in the trash (at any depth: 4), or owned at any depth by a system doc (2).
        // Memoized walk up the owner chain; a cycle counts as not hidden.
        // 0 unknown, 1 visible, 2 under a system doc, 3 on the stack, 4 trashed.
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

        // Supertags and fields from their definitions.
        let mut parents: HashMap<u32, Vec<u32>> = HashMap::new();
        for (i, doc) in docs.iter().enumerate() {
            if ws.trashed[i] {
                continue;
            }
            let mut tag = doc.doc_type.as_deref() == Some("tagDef");
            let mut field = doc.doc_type.as_deref() == Some("attrDef");
            let mut supers = Vec::new();
            for tuple in ws.meta_tuples(i as u32) {
                let ids = &docs[tuple as usize].children;
                if ids.first().map(|c| c.as_ref()) != Some("SYS_A13") {
                    continue;
                }
                if ids.iter().any(|c| c == "SYS_T01") {
                    tag = true;
                    supers.extend(
                        ids.iter()
                            .filter(|c| !c.starts_with("SYS_"))
                            .filter_map(|c| ws.by_id.get(c.as_ref()).copied()),
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
                ws.tags.insert(i as u32, (name, Vec::new()));
                parents.insert(i as u32, supers);
            } else if field {
                ws.fields.insert(i as u32, name);
            }
        }
        let tag_ids: Vec<u32> = ws.tags.keys().copied().collect();
        for tag in tag_ids {
            // Transitive parents, cycles cut by the visited set.
            let mut seen = BTreeSet::from([tag]);
            let mut todo = parents.get(&tag).cloned().unwrap_or_default();
            let mut names = BTreeSet::new();
            while let Some(p) = todo.pop() {
                if !seen.insert(p) {
                    continue;
                }
                if let Some((name, _)) = ws.tags.get(&p) {
                    names.insert(name.clone());
                    todo.extend(parents.get(&p).into_iter().flatten());
                }
            }
            if let Some(entry) = ws.tags.get_mut(&tag) {
                names.remove(&entry.0);
                entry.1 = names.into_iter().collect();
            }
        }

        // Owned children their owner does not list.
        let mut listed = vec![false; docs.len()];
        for (i, doc) in docs.iter().enumerate() {
            for child in &doc.children {
                if let Some(&c) = ws.by_id.get(child.as_ref()) {
                    if ws.owner(c) == Some(i as u32) {
                        listed[c as usize] = true;
                    }
                }
            }
        }
        for (i, &is_listed) in listed.iter().enumerate() {
            if !is_listed && ws.role[i] == Role::Content {
                if let Some(o) = ws.owner(i as u32) {
                    if ws.role[o as usize] == Role::Content {
                        ws.unlisted.entry(o).or_default().push(i as u32);
                    }
                }
            }
        }
        for list in ws.unlisted.values_mut() {
            list.sort_by(|a, b| docs[*a as usize].id.cmp(&docs[*b as usize].id));
        }

        let mut content: Vec<u32> = (0..docs.len() as u32)
            .filter(|&i| ws.role[i as usize] == Role::Content)
            .collect();
        content.par_sort_unstable_by(|a, b| docs[*a as usize].id.cmp(&docs[*b as usize].id));
        let mut position = vec![u32::MAX; docs.len()];
        for (p, &d) in content.iter().enumerate() {
            position[d as usize] = p as u32;
        }
        ws.content = content;
        ws.position = position;
        ws
    }

    fn get(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }

    fn owner(&self, doc: u32) -> Option<u32> {
        self.docs[doc as usize]
            .owner
            .as_deref()
            .and_then(|o| self.get(o))
            .filter(|&o| o != doc)
    }

    fn is_content(&self, doc: u32) -> bool {
        self.role[doc as usize] == Role::Content
    }

    /// The tuples of a doc's metanode.
    fn meta_tuples(&self, doc: u32) -> impl Iterator<Item = u32> + '_ {
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
    fn name(&self, doc: u32) -> (String, Vec<u32>) {
        resolve(&self.docs[doc as usize].name, &|id| {
            self.get(id)
                .map(|d| (d, ref_name(&self.docs[d as usize].name)))
        })
    }

    fn node(&self, d: u32, shared: &Shared) -> Node {
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
    fn field(
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

// ---------------------------------------------------------------------------------------
// Rich text.

/// Resolves a name's spans: `data-inlineref-node` → `[[name]]` (and the referenced doc),
/// `data-inlineref-date` → the date; other tags are dropped and entities decoded.
fn resolve(raw: &str, lookup: &dyn Fn(&str) -> Option<(u32, String)>) -> (String, Vec<u32>) {
    let mut refs = Vec::new();
    if !raw.contains(['<', '&']) {
        return (raw.to_string(), refs);
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(open) = rest.find('<') {
        out.push_str(&decode(&rest[..open]));
        let tag_text = &rest[open..];
        let Some(close) = tag_text.find('>') else {
            // A lone `<`: text, not a tag.
            out.push_str(&decode(tag_text));
            rest = "";
            break;
        };
        let tag = &tag_text[..=close];
        rest = &tag_text[close + 1..];
        if tag.starts_with("<span") {
            let node = attribute(tag, "data-inlineref-node");
            let date = attribute(tag, "data-inlineref-date");
            if node.is_some() || date.is_some() {
                // The span's own text (usually empty) is replaced.
                let (inner, after) = match rest.find("</span>") {
                    Some(end) => (&rest[..end], &rest[end + "</span>".len()..]),
                    None => (rest, ""),
                };
                rest = after;
                if let Some(id) = node {
                    match lookup(&id) {
                        Some((doc, name)) => {
                            out.push_str(&format!("[[{}]]", name.trim()));
                            refs.push(doc);
                        }
                        None => {
                            let inner = plain(inner);
                            out.push_str(&format!(
                                "[[{}]]",
                                if inner.trim().is_empty() {
                                    id.as_str()
                                } else {
                                    inner.trim()
                                }
                            ));
                        }
                    }
                } else if let Some(date) = date.as_deref().and_then(date_of) {
                    out.push_str(&date);
                } else {
                    out.push_str(&plain(inner));
                }
            }
        }
    }
    out.push_str(&decode(rest));
    (out, refs)
}

/// The most characters of a referenced node's name an inline reference shows (a longer name
/// is cut with `…`): a name made of thousands of references then grows linearly.
const REF_NAME_CHARS: usize = 120;

/// The most bytes of a referenced node's raw name read to find them.
const REF_NAME_SCAN: usize = 4096;

/// A referenced node's name as an inline reference shows it: plain text, whitespace
/// collapsed, at most [`REF_NAME_CHARS`] characters, read from at most [`REF_NAME_SCAN`]
/// bytes of the raw name.
fn ref_name(raw: &str) -> String {
    let mut end = raw.len().min(REF_NAME_SCAN);
    while !raw.is_char_boundary(end) {
        end -= 1;
    }
    let mut cut = &raw[..end];
    // A tag cut in half is dropped, not shown as text.
    if end < raw.len() {
        if let Some(open) = cut.rfind('<').filter(|&open| !cut[open..].contains('>')) {
            cut = &cut[..open];
        }
    }
    let text = plain(cut);
    let mut out = String::new();
    let mut chars = 0;
    let mut shortened = end < raw.len();
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if chars + len + usize::from(chars > 0) > REF_NAME_CHARS {
            shortened = true;
            if chars == 0 {
                out.extend(word.chars().take(REF_NAME_CHARS));
            }
            break;
        }
        if chars > 0 {
            out.push(' ');
            chars += 1;
        }
        out.push_str(word);
        chars += len;
    }
    if shortened {
        out.push('…');
    }
    out
}

/// A name as plain text: spans and tags dropped (their text kept), entities decoded.
fn plain(raw: &str) -> String {
    if !raw.contains(['<', '&']) {
        return raw.to_string();
    }
    resolve(raw, &|_| None).0
}

/// The value of `name="…"` in a tag, entities decoded.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let at = tag.find(name)?;
    let rest = tag[at + name.len()..].trim_start().strip_prefix('=')?;
    let rest = rest.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &rest[1..];
    let end = body.find(quote)?;
    Some(decode(&body[..end]).into_owned())
}

/// `dateTimeString` out of a date span's JSON (`{"dateTimeString":"2026-03-02",…}`).
fn date_of(json: &str) -> Option<String> {
    let at = json.find("dateTimeString")?;
    let rest = &json[at + "dateTimeString".len()..];
    let start = rest.find(':')? + 1;
    let rest = rest[start..].trim_start().strip_prefix('"')?;
    let end = rest.find('"')?;
    let value = rest[..end].trim();
    (!value.is_empty()).then(|| value.to_string())
}

fn decode(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = [
            ("&amp;", "&"),
            ("&lt;", "<"),
            ("&gt;", ">"),
            ("&quot;", "\""),
            ("&#39;", "'"),
            ("&#x27;", "'"),
            ("&apos;", "'"),
            ("&nbsp;", " "),
        ]
        .iter()
        .find(|(e, _)| rest.starts_with(e));
        match entity {
            Some((e, c)) => {
                out.push_str(c);
                rest = &rest[e.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Epoch milliseconds as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
fn iso_time(ms: i64) -> String {
    crate::dates::iso_utc(ms.div_euclid(1000))
}

// ---------------------------------------------------------------------------------------
// Entry points.

/// Loads an export into nodes (for `check` and the in-memory graph).
pub fn load(root: &Root, export: &Path) -> SourceOutput {
    let rel = rel_path(root.path(), export);
    let text = match read_text(root, export) {
        Ok(text) => text,
        Err(problem) => {
            return SourceOutput {
                nodes: Vec::new(),
                problems: vec![problem],
            }
        }
    };
    load_text(&rel, &text)
}

/// Loads an export from its text.
pub fn load_text(rel: &str, text: &str) -> SourceOutput {
    match parse(rel, text) {
        Err(problem) => SourceOutput {
            nodes: Vec::new(),
            problems: vec![problem],
        },
        Ok(export) => {
            let mut nodes = Vec::new();
            let problems = export
                .build::<std::convert::Infallible>(usize::MAX, &mut |_, chunk, _| {
                    nodes.extend(chunk);
                    Ok(())
                })
                .unwrap_or_else(|never| match never {});
            SourceOutput { nodes, problems }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(json: &str) -> SourceOutput {
        load_text("export.json", json)
    }

    fn node<'n>(out: &'n SourceOutput, id: &str) -> &'n Node {
        out.nodes.iter().find(|n| n.id == id).unwrap_or_else(|| {
            panic!(
                "no node {id} in {:?}",
                out.nodes.iter().map(|n| &n.id).collect::<Vec<_>>()
            )
        })
    }

    #[test]
    fn spans_resolve_to_names_and_dates() {
        let json = r#"{"docs":[
          {"id":"a","props":{"name":"see <span data-inlineref-node=\"b\"></span> on <span data-inlineref-date=\"{&quot;dateTimeString&quot;:&quot;2026-03-02&quot;}\"></span> &amp; <b>more</b>"}},
          {"id":"b","props":{"name":"Bob <i>B.</i>"}}]}"#;
        let out = load(json);
        assert!(out.problems.is_empty(), "{:?}", out.problems);
        let a = node(&out, "a");
        assert_eq!(a.title, "see [[Bob B.]] on 2026-03-02 & more");
        assert_eq!(a.links[0].relation, Relation::Reference);
        assert_eq!(a.links[0].target, "b");
    }

    /// Item 6 of issue 13: inline references are expanded with a bounded copy of the name
    /// they point to, so a name that references itself (or a long name) thousands of times
    /// grows linearly, not quadratically.
    #[test]
    fn inline_references_expand_within_a_bound() {
        let span = |id: &str| format!("<span data-inlineref-node=\"{id}\"></span>");
        let self_name = format!("Loop {}", span("self").repeat(300));
        let long_name = "long words ".repeat(1000);
        let many = format!("Refs {}", span("long").repeat(300));
        let json = serde_json::json!({"docs": [
            {"id": "self", "props": {"name": self_name}},
            {"id": "long", "props": {"name": long_name}},
            {"id": "many", "props": {"name": many, "description": many}},
        ]})
        .to_string();
        let out = load(&json);
        let looped = node(&out, "self");
        assert!(
            looped.title.starts_with("Loop [[Loop"),
            "{}",
            &looped.title[..40]
        );
        assert!(
            looped.title.len() <= 4 * self_name.len(),
            "{} bytes from a {}-byte name",
            looped.title.len(),
            self_name.len()
        );
        let refs = node(&out, "many");
        assert!(refs.title.len() <= 4 * many.len(), "{}", refs.title.len());
        assert!(
            refs.title.contains("[[long words long words"),
            "{}",
            &refs.title[..60]
        );
        let Content::Tana(fields) = &refs.content else {
            panic!("a Tana node");
        };
        let description = fields.description.as_deref().unwrap_or_default();
        assert!(description.len() <= 4 * many.len(), "{}", description.len());
    }

    #[test]
    fn wrong_types_name_their_json_path() {
        let json = "{\"docs\":[{\"id\":\"a\",\"children\":[\"c\",3]},{\"id\":\"b\",\"props\":[]},7,{\"id\":\"c\",\"props\":{\"name\":\"C\"}}]}";
        let out = load(json);
        let messages: Vec<String> = out.problems.iter().map(|p| p.to_string()).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains("docs[0].children[1]: expected a string id, found a number")),
            "{messages:?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.contains("docs[1].props: expected an object")),
            "{messages:?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.contains("docs[2]: expected a doc object")),
            "{messages:?}"
        );
        assert_eq!(node(&out, "a").links.len(), 1);
    }

    #[test]
    fn bad_json_names_line_and_doc() {
        let out = load("{\"docs\":[{\"id\":\"a\"},\n{\"id\": }]}");
        assert_eq!(out.problems.len(), 1);
        let text = out.problems[0].to_string();
        assert!(text.starts_with("export.json:2:"), "{text}");
        assert!(text.contains("docs[1]: invalid JSON"), "{text}");
        let out = load("[1]");
        assert!(out.problems[0].message.contains("expected a JSON object"));
        let out = load("{\"storeData\":{\"docs\":{}}}");
        assert!(out.problems[0]
            .message
            .starts_with("storeData.docs: expected an array"));
    }

    #[test]
    fn iso_times() {
        assert_eq!(iso_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_time(1_772_409_600_000), "2026-03-02T00:00:00Z");
        assert_eq!(iso_time(-1), "1969-12-31T23:59:59Z");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
        /// Mutated exports (bytes flipped, cut, spliced) never panic the loader.
        #[test]
        fn mutated_exports_never_panic(cuts in proptest::collection::vec((0usize..2000, 0u8..128), 0..6), cut_end in proptest::option::of(0usize..2000)) {
            let base = include_str!("../../../brief-cli/tests/fixtures/tana/export.json");
            let mut bytes = base.as_bytes().to_vec();
            for (at, byte) in cuts {
                let at = at * bytes.len() / 2000;
                if at < bytes.len() {
                    bytes[at] = byte;
                }
            }
            if let Some(end) = cut_end {
                bytes.truncate(end * bytes.len() / 2000);
            }
            let text = String::from_utf8_lossy(&bytes);
            let _ = load_text("export.json", &text);
        }

        /// Arbitrary JSON-ish text never panics the loader.
        #[test]
        fn arbitrary_text_never_panics(text in "[\\[\\]{}\",:0-9a-z_<>&; \\\\]{0,200}") {
            let _ = load_text("export.json", &text);
            let wrapped = format!("{{\"docs\":[{text}]}}");
            let _ = load_text("export.json", &wrapped);
        }
    }
}
