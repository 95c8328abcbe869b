//! The layering of the workspace, checked from the source text.
//!
//! Every `crates/*/src/**/*.rs` is scanned (comments and literals skipped) for paths that name a
//! module: `crate::a::b`, `super::x`, `self::x`, a bare `child::x` where `child` is a submodule of
//! the current module, and `brief::x` / `brief_xxx::x` paths into other workspace crates. Each path
//! resolves to the deepest module it names (`crate::sources::tana::parse` → `sources::tana`).
//!
//! Three checks:
//!
//! (a) **No module cycles inside a crate.** The rule: a module's use of its own ancestor
//! (`super::Problem` in brief-sources' `tana/mod.rs`) is not an edge — a parent is the façade of its
//! children, and Rust's privacy already makes the parent's items theirs. `mod` lines and a parent's
//! `pub use` of its own child are not edges either. Every other reference from module A to module B
//! is lifted to the children of their deepest common ancestor (A's and B's branches below it), and
//! at every level those siblings must form an acyclic graph: in brief-check, `schema` may use
//! `artifacts` or the other way round, never both (directly or through a third sibling), and in
//! brief-sources `tana` may not reach `kb` while anything under `kb` reaches `tana`.
//!
//! (b) **Every crate only points down the layer table.** [`LAYERS`] says which stage crate may
//! depend on which. Every module path into another workspace crate, and every stage crate's
//! `Cargo.toml` `[dependencies]` on another member, must be allowed there; the façade (`brief`)
//! and the front ends above it ([`ABOVE`]) may use every stage, and no stage may use them. A
//! member that is in neither list fails the test, so a new crate has to take its place.
//!
//! (c) **The crate graph is acyclic**: the workspace members' `[dependencies]` and
//! `[build-dependencies]` on each other (dev-dependencies may close a loop, as Cargo allows).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The stage crates, bottom up, with the crates each may depend on (besides itself).
const LAYERS: &[(&str, &[&str])] = &[
    ("brief-tokens", &[]),
    ("brief-count", &["brief-tokens"]),
    ("brief-root", &[]),
    ("brief-embed", &[]),
    ("brief-model", &["brief-count", "brief-tokens"]),
    (
        "brief-sources",
        &["brief-model", "brief-root", "brief-count", "brief-tokens"],
    ),
    (
        "brief-project",
        &[
            "brief-model",
            "brief-sources",
            "brief-root",
            "brief-count",
            "brief-tokens",
        ],
    ),
    (
        "brief-index",
        &[
            "brief-embed",
            "brief-model",
            "brief-sources",
            "brief-project",
            "brief-root",
            "brief-count",
            "brief-tokens",
        ],
    ),
    (
        "brief-engine",
        &[
            "brief-embed",
            "brief-index",
            "brief-model",
            "brief-sources",
            "brief-project",
            "brief-root",
            "brief-count",
            "brief-tokens",
        ],
    ),
    (
        "brief-check",
        &[
            "brief-model",
            "brief-sources",
            "brief-project",
            "brief-root",
            "brief-count",
            "brief-tokens",
        ],
    ),
    (
        "brief-session",
        &[
            "brief-embed",
            "brief-engine",
            "brief-index",
            "brief-model",
            "brief-sources",
            "brief-project",
            "brief-root",
            "brief-count",
            "brief-tokens",
        ],
    ),
    (
        "brief-watch",
        &[
            "brief-embed",
            "brief-engine",
            "brief-index",
            "brief-model",
            "brief-sources",
            "brief-project",
            "brief-root",
            "brief-count",
            "brief-tokens",
        ],
    ),
];

/// The crates above the stages: the façade, which re-exports them and holds the command API, and
/// what is built on it (front ends, the corpus generator, the evaluation).
const ABOVE: &[&str] = &[
    "brief",
    "brief-cli",
    "brief-mcp",
    "brief-corpus",
    "brief-eval",
];

fn allowed(from: &str, to: &str) -> Option<bool> {
    if from == to {
        return Some(true);
    }
    let deps = LAYERS.iter().find(|(name, _)| *name == from)?.1;
    Some(deps.contains(&to))
}

pub(super) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/brief sits two levels below the workspace root")
        .to_path_buf()
}

/// One workspace member: its package name and its source files.
struct Member {
    name: String,
    /// The Rust identifier other crates use for it (`brief-tokens` → `brief_tokens`).
    ident: String,
    dir: PathBuf,
    manifest: toml::Table,
}

fn members(root: &Path) -> Vec<Member> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("crates/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let text = fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
        let manifest: toml::Table = toml::from_str(&text).expect("Cargo.toml parses");
        let name = manifest["package"]["name"]
            .as_str()
            .expect("package.name")
            .to_string();
        out.push(Member {
            ident: name.replace('-', "_"),
            name,
            dir,
            manifest,
        });
    }
    out
}

pub(super) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("entry").path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a source file below `src/` (`check/mod.rs` → `["check"]`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Punct(char),
    /// `::`
    Path,
}

/// Rust source to tokens, without comments, string, byte-string, raw-string and char literals.
pub(super) fn lex(src: &str) -> Vec<(Tok, usize)> {
    let b: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < b.len() {
        let c = b[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            let mut depth = 1;
            i += 2;
            while i < b.len() && depth > 0 {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                } else {
                    if b[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                if b.get(i) == Some(&'\n') {
                    line += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if b.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < b.len() && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            let word: String = b[start..i].iter().collect();
            // Raw strings and byte strings: r"..", r#".."#, b"..", br#".."#.
            if matches!(word.as_str(), "r" | "br" | "b")
                && matches!(b.get(i), Some('"') | Some('#'))
            {
                let mut hashes = 0;
                while b.get(i) == Some(&'#') {
                    hashes += 1;
                    i += 1;
                }
                if b.get(i) == Some(&'"') {
                    i += 1;
                    loop {
                        if i >= b.len() {
                            break;
                        }
                        if b[i] == '\n' {
                            line += 1;
                        }
                        if word == "b" && b[i] == '\\' {
                            i += 2;
                            continue;
                        }
                        if b[i] == '"' && (0..hashes).all(|k| b.get(i + 1 + k) == Some(&'#')) {
                            i += 1 + hashes;
                            break;
                        }
                        i += 1;
                    }
                    continue;
                }
            }
            if word == "b" && b.get(i) == Some(&'\'') {
                continue; // b'x': the quote is lexed as a char literal next
            }
            out.push((Tok::Ident(word), line));
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push((Tok::Path, line));
            i += 2;
        } else if c.is_whitespace() || c.is_ascii_digit() {
            i += 1;
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}

/// A module path named in a file: where it was written and what it names (still relative:
/// `["super", "x"]`, `["crate", "a", "b"]`, `["child", "y"]`, `["brief_model", "z"]`).
#[derive(Debug)]
struct Reference {
    /// The module the path is written in (the file's module plus inline `mod x { }` blocks).
    from: Vec<String>,
    path: Vec<String>,
    line: usize,
    /// Written in a `pub use` (a re-export).
    reexport: bool,
}

fn is_ident(t: Option<&(Tok, usize)>) -> Option<&str> {
    match t {
        Some((Tok::Ident(w), _)) => Some(w),
        _ => None,
    }
}

/// Reads `a::b::{c, d::e}` starting at `i`; pushes every complete path (prefix included) to `out`.
fn read_paths(
    toks: &[(Tok, usize)],
    mut i: usize,
    prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    let mut path = prefix;
    loop {
        match toks.get(i) {
            Some((Tok::Ident(w), _)) => {
                path.push(w.clone());
                i += 1;
                if toks.get(i).map(|t| &t.0) == Some(&Tok::Path) {
                    i += 1;
                    continue;
                }
                out.push(path);
                return i;
            }
            Some((Tok::Punct('{'), _)) => {
                i += 1;
                loop {
                    match toks.get(i) {
                        Some((Tok::Punct('}'), _)) | None => return i + 1,
                        Some((Tok::Punct(','), _)) => i += 1,
                        Some((Tok::Punct('*'), _)) => {
                            out.push(path.clone());
                            i += 1;
                        }
                        Some((Tok::Ident(w), _)) if w == "as" => i += 2,
                        Some((Tok::Ident(_), _)) | Some((Tok::Punct('{'), _)) => {
                            i = read_paths(toks, i, path.clone(), out);
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            _ => {
                out.push(path);
                return i;
            }
        }
    }
}

/// Every module path written in `text`, a file of module `module` whose submodules are `children`.
fn references(
    text: &str,
    module: &[String],
    children: &BTreeSet<String>,
    crates: &BTreeSet<String>,
) -> Vec<Reference> {
    let toks = lex(text);
    let mut out = Vec::new();
    // Inline `mod name {` blocks: (name, brace depth at which it closes).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let mut stmt_pub_use = false;
    while i < toks.len() {
        let (tok, line) = &toks[i];
        match tok {
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
                continue;
            }
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                i += 1;
                continue;
            }
            Tok::Punct(';') => {
                stmt_pub_use = false;
                i += 1;
                continue;
            }
            Tok::Ident(w) if w == "mod" => {
                if let (Some(name), Some((Tok::Punct('{'), _))) =
                    (is_ident(toks.get(i + 1)), toks.get(i + 2))
                {
                    inline.push((name.to_string(), depth));
                }
                i += 1;
                continue;
            }
            Tok::Ident(w) if w == "use" => {
                // `pub use`, `pub(crate) use`: a re-export.
                stmt_pub_use = matches!(toks.get(i.wrapping_sub(1)), Some((Tok::Ident(p), _)) if p == "pub")
                    || matches!(toks.get(i.wrapping_sub(1)), Some((Tok::Punct(')'), _)));
                // `use child::…` and `use {a, b}` without a keyword.
                i += 1;
                if matches!(toks.get(i), Some((Tok::Path, _))) {
                    i += 1;
                }
                let from: Vec<String> = module
                    .iter()
                    .cloned()
                    .chain(inline.iter().map(|(n, _)| n.clone()))
                    .collect();
                let mut paths = Vec::new();
                let next = read_paths(&toks, i, Vec::new(), &mut paths);
                for path in paths {
                    let head = path.first().map(String::as_str).unwrap_or("");
                    let known = matches!(head, "crate" | "super" | "self")
                        || crates.contains(head)
                        || (inline.is_empty() && children.contains(head));
                    if known && path.len() > 1 || path.len() == 1 && known && head != "self" {
                        out.push(Reference {
                            from: from.clone(),
                            path,
                            line: *line,
                            reexport: stmt_pub_use,
                        });
                    }
                }
                i = next;
                continue;
            }
            Tok::Ident(w) => {
                let head = w.as_str();
                let prev_is_path = i > 0 && toks[i - 1].0 == Tok::Path;
                let known = matches!(head, "crate" | "super" | "self")
                    || crates.contains(head)
                    || (inline.is_empty() && children.contains(head));
                if known && !prev_is_path && toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Path) {
                    let from: Vec<String> = module
                        .iter()
                        .cloned()
                        .chain(inline.iter().map(|(n, _)| n.clone()))
                        .collect();
                    let mut paths = Vec::new();
                    let next = read_paths(&toks, i, Vec::new(), &mut paths);
                    for path in paths {
                        out.push(Reference {
                            from: from.clone(),
                            path,
                            line: *line,
                            reexport: stmt_pub_use,
                        });
                    }
                    i = next;
                    continue;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// The module a path names, as an absolute module path of the crate (`None` for other crates).
fn resolve(reference: &Reference, modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut base: Vec<String> = reference.from.clone();
    let mut rest = reference.path.iter().peekable();
    match rest.peek().map(|s| s.as_str()) {
        Some("crate") => {
            base.clear();
            rest.next();
        }
        Some("self") => {
            rest.next();
        }
        Some("super") => {
            while rest.peek().map(|s| s.as_str()) == Some("super") {
                rest.next();
                base.pop();
            }
        }
        _ => {} // a child of the current module
    }
    let mut deepest = base.clone();
    let mut walk = base;
    for part in rest {
        walk.push(part.clone());
        if modules.contains(&walk) {
            deepest = walk.clone();
        } else {
            break;
        }
    }
    Some(deepest)
}

/// One edge between modules of a crate, with where it was written.
#[derive(Debug, Clone)]
struct Edge {
    from: Vec<String>,
    to: Vec<String>,
    at: String,
}

fn show(module: &[String]) -> String {
    if module.is_empty() {
        "crate".to_string()
    } else {
        module.join("::")
    }
}

/// A cycle in `graph`, if any (nodes in order).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = stack.iter().position(|s| s == m).expect("on the stack");
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(m, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = visit(n, graph, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

struct Scan {
    /// Per crate: the module edges inside it.
    edges: BTreeMap<String, Vec<Edge>>,
    /// Per crate: (module, other crate, where) for paths into other workspace crates.
    external: BTreeMap<String, Vec<(Vec<String>, String, String)>>,
}

fn scan(root: &Path, members: &[Member]) -> Scan {
    let crates: BTreeSet<String> = members.iter().map(|m| m.ident.clone()).collect();
    let mut scan = Scan {
        edges: BTreeMap::new(),
        external: BTreeMap::new(),
    };
    for member in members {
        let src = member.dir.join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(&src, f)).collect();
        // Inline `mod tests { }` blocks and the like are modules too.
        let texts: Vec<(PathBuf, Vec<String>, String)> = files
            .iter()
            .map(|f| {
                (
                    f.clone(),
                    module_of(&src, f),
                    fs::read_to_string(f).expect("source"),
                )
            })
            .collect();
        let mut all_refs = Vec::new();
        for (file, module, text) in &texts {
            let children: BTreeSet<String> = modules
                .iter()
                .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
                .map(|m| m.last().expect("child").clone())
                .collect();
            let own: BTreeSet<String> = crates
                .iter()
                .filter(|c| **c != member.ident)
                .cloned()
                .collect();
            let refs = references(text, module, &children, &own);
            for r in &refs {
                if r.from.len() > module.len() {
                    modules.insert(r.from.clone());
                }
            }
            let rel = file
                .strip_prefix(root)
                .expect("in the workspace")
                .display()
                .to_string();
            all_refs.extend(refs.into_iter().map(|r| (rel.clone(), r)));
        }
        let edges = scan.edges.entry(member.name.clone()).or_default();
        let external = scan.external.entry(member.name.clone()).or_default();
        for (rel, r) in all_refs {
            let at = format!("{rel}:{}", r.line);
            let head = r.path[0].as_str();
            if crates.contains(head) && head != member.ident {
                let name = members
                    .iter()
                    .find(|m| m.ident == head)
                    .expect("member")
                    .name
                    .clone();
                external.push((r.from.clone(), name, at));
                continue;
            }
            let Some(to) = resolve(&r, &modules) else {
                continue;
            };
            if to == r.from {
                continue;
            }
            // A parent's `pub use` of its own descendant is a re-export, not a dependency.
            if r.reexport && to.starts_with(&r.from) {
                continue;
            }
            edges.push(Edge {
                from: r.from.clone(),
                to,
                at,
            });
        }
    }
    scan
}

/// (a): the sibling graphs at every level, per the rule in the file's doc comment.
fn module_cycles(scan: &Scan) -> Vec<String> {
    let mut problems = Vec::new();
    for (krate, edges) in &scan.edges {
        // parent module → sibling graph (child name → child names), with one witness per edge.
        let mut levels: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
        let mut witness: BTreeMap<(Vec<String>, String, String), String> = BTreeMap::new();
        for e in edges {
            if e.from.starts_with(&e.to) {
                continue; // a child using its ancestor: not an edge
            }
            let common = e.from.iter().zip(&e.to).take_while(|(a, b)| a == b).count();
            if common == e.from.len() {
                continue; // a parent using its descendant: cannot close a cycle under this rule
            }
            let parent = e.from[..common].to_vec();
            let a = e.from[common].clone();
            let b = e.to[common].clone();
            levels
                .entry(parent.clone())
                .or_default()
                .entry(a.clone())
                .or_default()
                .insert(b.clone());
            witness
                .entry((parent, a, b))
                .or_insert_with(|| format!("{} → {} at {}", show(&e.from), show(&e.to), e.at));
        }
        for (parent, graph) in &levels {
            // Report every cycle: after each one found, drop its closing edge and look again.
            let mut graph = graph.clone();
            while let Some(cycle) = find_cycle(&graph) {
                let (last, first) = (&cycle[cycle.len() - 2], &cycle[cycle.len() - 1]);
                graph.get_mut(last).expect("in the graph").remove(first);
                let steps: Vec<String> = cycle
                    .windows(2)
                    .map(|w| witness[&(parent.clone(), w[0].clone(), w[1].clone())].clone())
                    .collect();
                problems.push(format!(
                    "{krate}: cycle among the children of `{}`: {}\n    {}",
                    show(parent),
                    cycle.join(" → "),
                    steps.join("\n    ")
                ));
            }
        }
    }
    problems
}

/// (b): every use of another crate, and every stage crate's dependencies, point down the table;
/// every member is a stage or above them.
fn layer_violations(scan: &Scan, members: &[Member]) -> Vec<String> {
    let mut problems = BTreeSet::new();
    for (krate, uses) in &scan.external {
        for (module, other, at) in uses {
            if allowed(krate, other) == Some(false) {
                problems.insert(format!(
                    "{at}: {} ({krate}) uses the crate {other}",
                    show(module)
                ));
            }
        }
    }
    for member in members {
        let staged = LAYERS.iter().any(|(name, _)| *name == member.name);
        if !staged && !ABOVE.contains(&member.name.as_str()) {
            problems.insert(format!(
                "crates/{}: neither a stage in LAYERS nor above them in ABOVE",
                member.name
            ));
        }
        for dep in workspace_deps(member, members) {
            if allowed(&member.name, &dep) == Some(false) {
                problems.insert(format!("crates/{}: depends on {dep}", member.name));
            }
        }
    }
    problems.into_iter().collect()
}

/// A member's `[dependencies]` and `[build-dependencies]` on other workspace members.
fn workspace_deps(member: &Member, members: &[Member]) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    for table in ["dependencies", "build-dependencies"] {
        let Some(t) = member.manifest.get(table).and_then(|t| t.as_table()) else {
            continue;
        };
        for (key, value) in t {
            let name = value
                .as_table()
                .and_then(|v| v.get("package"))
                .and_then(|p| p.as_str())
                .unwrap_or(key);
            if members.iter().any(|m| m.name == name) {
                deps.insert(name.to_string());
            }
        }
    }
    deps
}

#[test]
fn modules_point_down_the_layers() {
    let root = workspace_root();
    let members = members(&root);
    let scan = scan(&root, &members);
    let mut problems = module_cycles(&scan);
    problems.extend(layer_violations(&scan, &members));
    assert!(
        problems.is_empty(),
        "{} layering problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_crate_graph_is_acyclic() {
    let root = workspace_root();
    let members = members(&root);
    let graph: BTreeMap<String, BTreeSet<String>> = members
        .iter()
        .map(|m| (m.name.clone(), workspace_deps(m, &members)))
        .collect();
    assert!(
        graph.contains_key("brief"),
        "the scan found the workspace members: {graph:?}"
    );
    assert_eq!(find_cycle(&graph), None, "crate graph: {graph:?}");
}

/// The scanner itself: grouped `use`, `super`, bare child paths, re-exports, and nothing from
/// comments or strings.
#[test]
fn the_scanner_finds_module_paths_outside_comments_and_strings() {
    let text = r##"
        //! crate::doc::comment is not a path
        use crate::{model::{Graph, Node}, root};
        use super::Problem;
        pub use child::Thing;
        mod child;
        fn f() {
            let s = "crate::in_string";
            let r = r#"crate::in_raw"#;
            let c = '"';
            child::call();
            other::call();
        }
        #[cfg(test)]
        mod tests {
            use super::*;
            use crate::check::jsonpos;
        }
    "##;
    let module = vec!["sources".to_string(), "tana".to_string()];
    let children: BTreeSet<String> = ["child".to_string()].into();
    let refs = references(text, &module, &children, &BTreeSet::new());
    let seen: Vec<(String, String, bool)> = refs
        .iter()
        .map(|r| (r.from.join("::"), r.path.join("::"), r.reexport))
        .collect();
    let expect = |from: &str, path: &str, re: bool| (from.to_string(), path.to_string(), re);
    assert_eq!(
        seen,
        vec![
            expect("sources::tana", "crate::model::Graph", false),
            expect("sources::tana", "crate::model::Node", false),
            expect("sources::tana", "crate::root", false),
            expect("sources::tana", "super::Problem", false),
            expect("sources::tana", "child::Thing", true),
            expect("sources::tana", "child::call", false),
            expect("sources::tana::tests", "super", false),
            expect("sources::tana::tests", "crate::check::jsonpos", false),
        ]
    );
    let modules: BTreeSet<Vec<String>> = [
        vec!["sources".to_string()],
        vec!["sources".to_string(), "tana".to_string()],
        vec!["check".to_string()],
        vec!["check".to_string(), "jsonpos".to_string()],
        vec!["model".to_string()],
    ]
    .into();
    let targets: Vec<String> = refs
        .iter()
        .map(|r| show(&resolve(r, &modules).expect("resolves")))
        .collect();
    assert_eq!(
        targets,
        [
            "model",
            "model",
            "crate",
            "sources",
            "sources::tana",
            "sources::tana",
            "sources::tana",
            "check::jsonpos"
        ]
    );
}
