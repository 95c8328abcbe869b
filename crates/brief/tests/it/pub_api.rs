//! Every library crate's public API is as wide as its users: a `pub` item that no other crate
//! names is `pub(crate)` or private instead.
//!
//! The scan: in each library crate's `src/` (test code left out, as in `fn_length`), every
//! item declared `pub` without a restriction (`pub fn`, `struct`, `enum`, `trait`, `type`,
//! `const`, `static`, `mod`, `union`, methods included; `pub use` re-exports are the curation,
//! not items). An item counts as used when its name appears as an identifier in another crate's
//! Rust files — the other members' sources, tests, benches and examples, and this crate's own
//! `tests/`, `benches/`, `examples/` and binary (`src/main.rs`) (each of which Cargo builds as a
//! crate of its own).
//! Matching by name over-counts uses (a `new` anywhere uses every `new`), so the figure is a
//! floor of the unused items, never a guess above it.
//!
//! Run `cargo test -p brief --test it pub_api -- --nocapture` to print the figures per crate.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::fn_length::skip_test_item;
use super::layering::{lex, rust_files, workspace_root, Tok};

/// Items that stay public although no other crate names them, each with the reason (a type
/// other crates only receive from a public signature, or a documented extension point:
/// ARCHITECTURE.md, "Public APIs"), as (crate, item).
#[rustfmt::skip]
const STAY_PUBLIC: &[(&str, &str)] = &[
    ("brief-tokens", "PreTokens"),       // the iterator `Encoding::pre_tokens` returns
    ("brief-model", "IxHasher"),         // the hasher of the public `IxMap` and `IxSet`
    ("brief-sources", "SourceOutput"),   // what `catalogue::read_source` returns
    ("brief-sources", "Walk"),           // what each layout's `listing` returns
    ("brief-sources", "CatalogueFile"),  // the items of `catalogue::Listing::files`
    ("brief-sources", "KbOutput"),       // what `catalogue::load_kb_warnings` returns
    ("brief-sources", "Parsed"),         // what `markdown::parse` returns
    ("brief-sources", "TaskId"),         // what `speckit_task_ids` returns
    ("brief-sources", "Export"),         // what `tana::parse` returns
    ("brief-sources", "PageFormat"),     // the extension point a page format implements;
                                         // other crates call it through `Format`
    ("brief-project", "HookConfig"),     // the type of `Project::hook`
    ("brief-project", "InitError"),      // the error `init_write` returns
    ("brief-engine", "Affected"),       // named by `Impact::targets`
    ("brief-engine", "Because"),        // named by `Explanation::reasons`
    ("brief-engine", "Direction"),      // named by `Reason::Edge::direction`
    ("brief-engine", "Embeddings"),     // named by `Start::embeddings`
    ("brief-engine", "Explanation"),    // named by `explain`
    ("brief-engine", "NamedPaths"),     // named by `Engine::named_paths`
    ("brief-engine", "NamedRule"),      // named by `Start::named`
    ("brief-engine", "Reached"),        // named by `Selection::reached`
    ("brief-engine", "Reason"),         // named by `Reached::reasons`
    ("brief-engine", "RevisionError"),  // named by `EngineError::Revision::0`
    ("brief-engine", "Searched"),       // what `Engine::search` returns
    ("brief-engine", "Selection"),      // named by `select`
    ("brief-engine", "Similar"),        // named by `Semantic::Hits::0`
    ("brief-engine", "TraverseOptions"),// named by `Plan::options`
    ("brief-engine", "Truncation"),     // named by `Selection::truncated`
    ("brief-engine", "UnknownTarget"),  // named by `ContextError::UnknownTarget::0`
    ("brief-engine", "WhyNot"),         // named by `Explanation::why_not`
    ("brief-engine", "WorkLimit"),      // named by `ContextError::Limit::0`
    ("brief-session", "Copied"),        // named by `copy_store`
    ("brief-session", "PgTarget"),      // named by `Location::Postgres::0`
    ("brief-session", "Pruned"),        // named by `prune`
    ("brief-session", "Recorded"),      // named by `error_record`
    ("brief-session", "Redacted"),      // named by `redact`
    ("brief-session", "Zone"),          // named by `Usage::zone`
    ("brief-session", "ZoneOutput"),    // named by `zone_context`
    ("brief-session", "Counts"),        // named by `Copied::counts`
    ("brief-session", "SslMode"),       // named by `PgTarget::sslmode`
    ("brief-check", "BaselineError"),   // named by `baseline::Baseline::read`
    ("brief-check", "CheckError"),      // named by `run`
    ("brief-check", "Finding"),         // named by `Report::findings`
    ("brief-eval", "FileShown"),        // named by `words::methods::Shown::files`
    ("brief-eval", "Label"),            // named by `words::labels::Task::must`
    ("brief-eval", "RepoLine"),         // named by `words::report::WordReport::repos`
    ("brief-eval", "TaskScore"),        // named by `words::report::Row::score`
    ("brief-eval", "WordProject"),      // named by `words::methods::Method::fill`
    ("brief-eval", "Presence"),         // named by `words::methods::FileShown::presence`
];

/// One `pub` item: its file (from the workspace root), line, kind and name.
#[derive(Debug, Clone, PartialEq)]
struct Item {
    file: String,
    line: usize,
    kind: String,
    name: String,
}

const KINDS: &[&str] = &[
    "fn", "struct", "enum", "trait", "type", "const", "static", "mod", "union",
];

/// The unrestricted `pub` items of one file's source, and the `#[cfg(test)] mod x;` files it
/// declares.
fn pub_items(src: &str) -> (Vec<(usize, String, String)>, Vec<String>) {
    let toks = lex(src);
    let mut found = Vec::new();
    let mut test_files = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if let Some(next) = skip_test_item(&toks, i, &mut test_files) {
            i = next;
            continue;
        }
        if toks[i].0 == Tok::Ident("pub".into())
            && toks.get(i + 1).map(|t| &t.0) != Some(&Tok::Punct('('))
        {
            let mut j = i + 1;
            // Qualifiers before the keyword: `pub const fn`, `pub unsafe fn`, `pub async fn`,
            // `pub extern "C" fn` (the lexer drops the string).
            while let Some((Tok::Ident(w), _)) = toks.get(j) {
                let next_is_keyword = matches!(toks.get(j + 1), Some((Tok::Ident(n), _)) if KINDS.contains(&n.as_str()) || n == "unsafe" || n == "extern");
                if matches!(w.as_str(), "unsafe" | "async" | "extern")
                    || (w == "const" && next_is_keyword)
                {
                    j += 1;
                } else {
                    break;
                }
            }
            if let (Some((Tok::Ident(kind), line)), Some((Tok::Ident(name), _))) =
                (toks.get(j), toks.get(j + 1))
            {
                if KINDS.contains(&kind.as_str()) {
                    found.push((*line, kind.clone(), name.clone()));
                }
            }
        }
        i += 1;
    }
    (found, test_files)
}

/// One workspace member: its directory name and whether it is a library.
fn members(root: &Path) -> Vec<(String, PathBuf)> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("crates/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|d| {
            (
                d.file_name()
                    .expect("a name")
                    .to_string_lossy()
                    .into_owned(),
                d,
            )
        })
        .collect()
}

/// Every identifier in the given files.
fn identifiers(files: &[PathBuf]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for file in files {
        let text = fs::read_to_string(file).expect("a readable source file");
        for (tok, _) in lex(&text) {
            if let Tok::Ident(word) = tok {
                out.insert(word);
            }
        }
    }
    out
}

/// Each library crate's `pub` items and which of them no other crate names.
/// Each library crate's `pub` items and the ones no other crate names (before [`STAY_PUBLIC`]).
fn scan(root: &Path) -> BTreeMap<String, (Vec<Item>, Vec<Item>)> {
    let members = members(root);
    let mut result = BTreeMap::new();
    for (name, dir) in &members {
        if !dir.join("src/lib.rs").is_file() {
            continue;
        }
        let mut own = Vec::new();
        rust_files(&dir.join("src"), &mut own);
        // A binary beside the library (`src/main.rs`) is a crate of its own: a user.
        let bins: Vec<PathBuf> = own
            .iter()
            .filter(|f| f.ends_with("src/main.rs") || f.to_string_lossy().contains("/src/bin/"))
            .cloned()
            .collect();
        own.retain(|f| !bins.contains(f));
        let mut declared = Vec::new();
        let mut test_files = BTreeSet::new();
        for file in &own {
            let text = fs::read_to_string(file).expect("a readable source file");
            let (items, tests) = pub_items(&text);
            test_files.extend(tests);
            let rel = file.strip_prefix(root).expect("under the root");
            declared.push((rel.to_string_lossy().into_owned(), file.clone(), items));
        }
        let is_test_file = |path: &Path| {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let parent = path
                .parent()
                .and_then(|p| p.file_name())
                .and_then(|s| s.to_str());
            stem == "tests"
                || path.components().any(|c| c.as_os_str() == "tests")
                || test_files.contains(stem)
                || (stem == "mod" && parent.is_some_and(|p| test_files.contains(p)))
        };
        let mut users = Vec::new();
        for (other, other_dir) in &members {
            if other == name {
                for part in ["tests", "benches", "examples"] {
                    rust_files(&other_dir.join(part), &mut users);
                }
                users.extend(bins.iter().cloned());
            } else {
                rust_files(other_dir, &mut users);
            }
        }
        let used = identifiers(&users);
        let mut items = Vec::new();
        for (rel, file, found) in declared {
            if is_test_file(file.strip_prefix(dir).expect("in the crate")) {
                continue;
            }
            for (line, kind, item) in found {
                items.push(Item {
                    file: rel.clone(),
                    line,
                    kind,
                    name: item,
                });
            }
        }
        let unused = items
            .iter()
            .filter(|i| !used.contains(&i.name))
            .cloned()
            .collect();
        result.insert(name.clone(), (items, unused));
    }
    result
}

#[test]
fn no_public_item_is_wider_than_its_users() {
    let scan = scan(&workspace_root());
    let mut problems = Vec::new();
    for (krate, (items, unused)) in &scan {
        let stays = |i: &Item| STAY_PUBLIC.contains(&(krate.as_str(), i.name.as_str()));
        let wide: Vec<&Item> = unused.iter().filter(|i| !stays(i)).collect();
        println!(
            "{krate:<14} {:>4} pub items, {:>4} used by no other crate, {:>3} of them listed to stay",
            items.len(),
            unused.len(),
            unused.len() - wide.len()
        );
        for i in &wide {
            println!("  unused {}:{} {} {}", i.file, i.line, i.kind, i.name);
        }
        if !wide.is_empty() {
            problems.push(format!(
                "{krate}: pub items no other crate names (make them pub(crate) or private, or \
                 list them in STAY_PUBLIC with the reason):\n{}",
                wide.iter()
                    .map(|i| format!("  {}:{} {} {}", i.file, i.line, i.kind, i.name))
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
    }
    // The list stays true: an entry must still be a public item no other crate names.
    for (krate, name) in STAY_PUBLIC {
        let listed = scan
            .get(*krate)
            .is_some_and(|(_, unused)| unused.iter().any(|i| i.name == *name));
        if !listed {
            problems.push(format!(
                "STAY_PUBLIC lists {krate} {name}, which is no longer a pub item unused elsewhere: \
                 take it off"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scan_finds_unrestricted_pub_items_outside_test_code() {
    let src = "\
pub fn open() {}
pub(crate) fn inner() {}
pub const fn size() -> usize { 0 }
pub const LIMIT: usize = 3;
pub use other::Thing;
pub struct S { pub field: u8 }
impl S { pub unsafe fn raw(&self) {} }
// pub fn commented() {}
const TEXT: &str = \"pub fn quoted() {}\";
#[cfg(test)]
mod tests { pub fn helper() {} }
#[cfg(test)]
mod kit;
";
    let (items, test_files) = pub_items(src);
    let names: Vec<(&str, &str)> = items
        .iter()
        .map(|(_, k, n)| (k.as_str(), n.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("fn", "open"),
            ("fn", "size"),
            ("const", "LIMIT"),
            ("struct", "S"),
            ("fn", "raw")
        ]
    );
    assert_eq!(test_files, ["kit"]);
}

/// The modules that stay public, each a documented extension point or the API itself
/// (ARCHITECTURE.md, "Public APIs"), as (crate, module). brief-session's `testing` (feature
/// `testing`) is behind a `cfg` the scan reads as test code.
#[rustfmt::skip]
const PUBLIC_MODULES: &[(&str, &str)] = &[
    ("brief", "command"),          // the command API both front ends call
    ("brief", "session"),          // the session commands' types (`Command::Session`)
    ("brief-embed", "stub"),       // feature `stub`: a stub embeddings server for tests and benches
    ("brief-model", "testing"),    // node constructors for the tests of the crates above
    ("brief-eval", "bm25"),        // the evaluation's parts, driven by its binary and tests
    ("brief-eval", "methods"),
    ("brief-eval", "words"),
    ("brief-eval", "metric"),      // the word evaluation's measures, named by its tests
];

#[test]
fn public_modules_are_the_listed_extension_points() {
    let scan = scan(&workspace_root());
    let mut found: Vec<(&str, &str)> = Vec::new();
    for (krate, (items, _)) in &scan {
        for item in items.iter().filter(|i| i.kind == "mod") {
            found.push((krate.as_str(), item.name.as_str()));
        }
    }
    found.sort_unstable();
    let mut listed = PUBLIC_MODULES.to_vec();
    listed.sort_unstable();
    assert_eq!(
        found, listed,
        "a module is public that PUBLIC_MODULES does not list (make it private and re-export \
         what other crates name), or a listed one is no longer public"
    );
}
