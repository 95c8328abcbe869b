//! The project's source tree: every file (for `paths` globs) and the code annotations in it.
//!
//! Annotations are `@spec ID`, `@decision ID`, `@norm ID` and `@test ID` inside a comment:
//! `// …`, `# …`, `-- …`, `; …`, `/* … */`, `<!-- … -->`, Python docstrings, by file
//! extension. An id is an upper-case word (`SPEC-SYNC-001`); sub-ids (`SPEC-001/login-success`,
//! `SPEC-001.token-validation`) name their base id. Free text may follow. The walk respects
//! `.gitignore` and `.ignore` files inside the root (not the user's global excludes, so results
//! are the same on every machine), never follows symlinks, skips hidden folders, `node_modules`,
//! the knowledge sources themselves and `[check] ignore_patterns`; files over 1 MiB or with a
//! NUL byte in their first 8 KiB are not scanned.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use rayon::prelude::*;

use super::paths::PathSet;
use super::{CheckConfig, Input, Pending, Settings, Sink};
use brief_model::Location;
use brief_project::{Project, Source};
use brief_root::Root;
use brief_sources::rel_path;

/// Largest file scanned for annotations.
const MAX_SCAN_BYTES: u64 = 1 << 20;
/// How much of a file is looked at for a NUL byte.
const BINARY_PROBE: usize = 8 << 10;
/// The annotation keywords.
const KINDS: [&str; 4] = ["spec", "decision", "norm", "test"];

/// One annotation found in code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Annotation {
    /// `spec`, `decision`, `norm` or `test`.
    pub kind: &'static str,
    /// The id as written (with any sub-id).
    pub token: String,
    /// The id without its sub-id.
    pub base: String,
    pub location: Location,
}

/// The files under the root and their annotations.
#[derive(Debug, Default)]
pub(super) struct Tree {
    /// Root-relative paths of every file walked, sorted.
    pub files: Vec<String>,
    /// Every folder holding a walked file (root-relative, no trailing `/`).
    pub dirs: HashSet<String>,
    pub annotations: Vec<Annotation>,
}

impl Tree {
    /// The id an annotation names, if it is in the graph (the full token first, then the base).
    pub(crate) fn resolve<'a>(&self, input: &'a Input, a: &Annotation) -> Option<&'a str> {
        let graph = &input.graph;
        graph
            .lookup(&a.token)
            .or_else(|| graph.lookup(&a.base))
            .map(|ix| graph.node(ix).id.as_str())
    }
}

/// Globs of `ignore_patterns`, root-relative.
pub(super) fn ignore_set(patterns: &[String]) -> Result<GlobSet, (String, String)> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let norm = pattern
            .trim()
            .trim_start_matches("./")
            .trim_start_matches('/');
        let glob = GlobBuilder::new(norm.trim_end_matches('/'))
            .literal_separator(true)
            .build()
            .map_err(|e| (pattern.clone(), e.kind().to_string()))?;
        builder.add(glob);
    }
    builder
        .build()
        .map_err(|e| (String::new(), e.kind().to_string()))
}

/// Walks the root and scans source files for annotations.
pub(super) fn scan(project: &Project, config: &CheckConfig) -> Tree {
    let root = project.root.clone();
    let ignore = ignore_set(&config.ignore_patterns).unwrap_or_else(|_| GlobSet::empty());
    let source_dirs: HashSet<PathBuf> = project
        .sources
        .iter()
        .filter_map(|source| match source {
            Source::SpecGraph { manifest } => manifest
                .parent()
                .filter(|dir| *dir != root.as_path() && !dir.as_os_str().is_empty())
                .map(Path::to_path_buf),
            Source::Contextia { dir } | Source::Folder { dir } => Some(dir.clone()),
            Source::Tana { .. }
            | Source::Markdown { .. }
            | Source::SpecKit { .. }
            | Source::Kiro { .. }
            | Source::Pages { .. } => None,
        })
        .collect();
    let filter_root = root.clone();
    let filter_ignore = ignore.clone();
    let walker = ignore::WalkBuilder::new(&root)
        .hidden(true)
        .parents(false)
        .ignore(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |entry| {
            let path = entry.path();
            if entry.depth() == 0 {
                return true;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if is_dir {
                let name = entry.file_name().to_string_lossy();
                if matches!(
                    name.as_ref(),
                    ".git" | ".brief" | ".contextia" | "specgraph" | "node_modules"
                ) || source_dirs.contains(path)
                {
                    return false;
                }
            }
            let rel = rel_path(&filter_root, path);
            !(filter_ignore.is_match(&rel) || is_dir && filter_ignore.is_match(format!("{rel}/x")))
        })
        .build();
    let mut files = Vec::new();
    for entry in walker.flatten() {
        if entry.file_type().is_some_and(|t| t.is_file()) {
            files.push((rel_path(&root, entry.path()), entry.into_path()));
        }
    }
    files.sort();
    let sources = PathSet::new(&config.source_paths);
    let annotations: Vec<Annotation> = files
        .par_iter()
        .filter(|(rel, _)| config.source_paths.is_empty() || sources.contains(rel))
        .filter_map(|(rel, path)| Some((rel, path, syntax_for(path)?)))
        .flat_map_iter(|(rel, path, syntax)| scan_file(&project.guard, rel, path, syntax))
        .collect();
    let mut dirs = HashSet::new();
    for (rel, _) in &files {
        let mut dir = rel.as_str();
        while let Some(cut) = dir.rfind('/') {
            dir = &dir[..cut];
            if !dirs.insert(dir.to_string()) {
                break;
            }
        }
    }
    Tree {
        files: files.into_iter().map(|(rel, _)| rel).collect(),
        dirs,
        annotations,
    }
}

/// Comment markers of a language.
#[derive(Debug, Clone, Copy)]
pub(super) struct Syntax {
    line: &'static [&'static str],
    block: &'static [(&'static str, &'static str)],
}

const C_LIKE: Syntax = Syntax {
    line: &["//"],
    block: &[("/*", "*/")],
};
const HASH: Syntax = Syntax {
    line: &["#"],
    block: &[],
};
const PYTHON: Syntax = Syntax {
    line: &["#"],
    block: &[("\"\"\"", "\"\"\""), ("'''", "'''")],
};
const RUBY: Syntax = Syntax {
    line: &["#"],
    block: &[("=begin", "=end")],
};
const SQL: Syntax = Syntax {
    line: &["--"],
    block: &[("/*", "*/")],
};
const LUA: Syntax = Syntax {
    line: &["--"],
    block: &[("--[[", "]]")],
};
const HASKELL: Syntax = Syntax {
    line: &["--"],
    block: &[("{-", "-}")],
};
const LISP: Syntax = Syntax {
    line: &[";"],
    block: &[],
};
const INI: Syntax = Syntax {
    line: &[";", "#"],
    block: &[],
};
const PERCENT: Syntax = Syntax {
    line: &["%"],
    block: &[],
};
const MARKUP: Syntax = Syntax {
    line: &[],
    block: &[("<!--", "-->")],
};
const CSS: Syntax = Syntax {
    line: &[],
    block: &[("/*", "*/")],
};
const COMPONENT: Syntax = Syntax {
    line: &["//"],
    block: &[("/*", "*/"), ("<!--", "-->")],
};

/// The comment syntax of a file, by extension (or name); `None` for files not scanned.
pub(super) fn syntax_for(path: &Path) -> Option<Syntax> {
    let name = path.file_name()?.to_string_lossy();
    match name.as_ref() {
        "Dockerfile" | "Makefile" | "makefile" | "GNUmakefile" | "CMakeLists.txt" | "Gemfile"
        | "Rakefile" | "BUILD" | "WORKSPACE" | "Justfile" | "justfile" => return Some(HASH),
        _ => {}
    }
    let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
    Some(match ext.as_str() {
        "rs" | "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" | "m" | "mm" | "cs"
        | "java" | "kt" | "kts" | "scala" | "sc" | "swift" | "go" | "js" | "jsx" | "mjs"
        | "cjs" | "ts" | "tsx" | "mts" | "cts" | "dart" | "php" | "groovy" | "gradle" | "proto"
        | "zig" | "sol" | "fs" | "fsx" | "scss" | "less" | "jsonc" | "json5" | "v" | "d" | "hx" => {
            C_LIKE
        }
        "py" | "pyi" | "pyw" => PYTHON,
        "rb" | "rake" | "gemspec" => RUBY,
        "sh" | "bash" | "zsh" | "fish" | "ksh" | "pl" | "pm" | "r" | "yaml" | "yml" | "toml"
        | "tf" | "hcl" | "cmake" | "nix" | "ps1" | "psm1" | "ex" | "exs" | "jl" | "cr" | "nim"
        | "bzl" | "star" | "mk" | "dockerfile" | "conf" | "cfg" | "gd" => HASH,
        "sql" => SQL,
        "lua" => LUA,
        "hs" | "lhs" | "elm" | "purs" => HASKELL,
        "ada" | "adb" | "ads" | "vhd" | "vhdl" => Syntax {
            line: &["--"],
            block: &[],
        },
        "lisp" | "el" | "clj" | "cljs" | "cljc" | "edn" | "scm" | "ss" | "rkt" | "asm" | "s" => {
            LISP
        }
        "ini" | "properties" => INI,
        "erl" | "hrl" | "tex" | "sty" | "cls" | "pro" => PERCENT,
        "html" | "htm" | "xhtml" | "xml" | "svg" | "md" | "markdown" | "mdx" => MARKUP,
        "css" => CSS,
        "vue" | "svelte" | "astro" => COMPONENT,
        _ => return None,
    })
}

fn scan_file(root: &Root, rel: &str, path: &Path, syntax: Syntax) -> Vec<Annotation> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Vec::new();
    };
    if !meta.is_file() || meta.len() > MAX_SCAN_BYTES {
        return Vec::new();
    }
    // Opened beneath the root, regular files only, never blocking: the tree may change
    // while it is walked.
    let Ok((bytes, meta)) = root.read_limited(path, MAX_SCAN_BYTES + 1) else {
        return Vec::new();
    };
    if meta.len() > MAX_SCAN_BYTES {
        return Vec::new();
    }
    if bytes[..bytes.len().min(BINARY_PROBE)].contains(&0) || !bytes.contains(&b'@') {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    scan_text(rel, &text, syntax)
}

/// Every annotation in `text`.
pub(super) fn scan_text(rel: &str, text: &str, syntax: Syntax) -> Vec<Annotation> {
    let mut found = Vec::new();
    let mut open: Option<&'static str> = None;
    for (n, line) in text.lines().enumerate() {
        if open.is_none()
            && !line.contains('@')
            && !syntax.block.iter().any(|(o, _)| line.contains(o))
        {
            continue;
        }
        for (start, end) in comment_ranges(line, syntax, &mut open) {
            annotations_in(line, start, end, |kind, token, at| {
                let base = base_id(token);
                if !looks_like_id(base) {
                    return;
                }
                found.push(Annotation {
                    kind,
                    token: token.to_string(),
                    base: base.to_string(),
                    location: Location {
                        path: rel.to_string(),
                        line: n as u32 + 1,
                        col: line[..at].chars().count() as u32 + 1,
                    },
                });
            });
        }
    }
    found
}

/// Byte ranges of `line` that are comment text; `open` carries an unclosed block comment's
/// closing marker from line to line.
fn comment_ranges(
    line: &str,
    syntax: Syntax,
    open: &mut Option<&'static str>,
) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut pos = 0;
    loop {
        if let Some(close) = *open {
            match line[pos..].find(close) {
                Some(i) => {
                    ranges.push((pos, pos + i));
                    pos += i + close.len();
                    *open = None;
                }
                None => {
                    ranges.push((pos, line.len()));
                    break;
                }
            }
        } else {
            // The earliest opener; at one position the longer marker wins (`--[[` over `--`).
            let mut best: Option<(usize, usize, Option<&'static str>)> = None;
            let mut consider = |at: usize, len: usize, close: Option<&'static str>| {
                let better = match best {
                    None => true,
                    Some((b_at, b_len, _)) => at < b_at || (at == b_at && len > b_len),
                };
                if better {
                    best = Some((at, len, close));
                }
            };
            for marker in syntax.line {
                if let Some(i) = line[pos..].find(marker) {
                    consider(pos + i, marker.len(), None);
                }
            }
            for (opener, closer) in syntax.block {
                if let Some(i) = line[pos..].find(opener) {
                    consider(pos + i, opener.len(), Some(closer));
                }
            }
            match best {
                None => break,
                Some((at, len, None)) => {
                    ranges.push((at + len, line.len()));
                    break;
                }
                Some((at, len, Some(close))) => {
                    pos = at + len;
                    *open = Some(close);
                }
            }
        }
        if pos >= line.len() {
            break;
        }
    }
    ranges
}

/// Calls `found(kind, token, offset_of_token)` for every `@kind TOKEN` in `line[start..end]`.
fn annotations_in(
    line: &str,
    start: usize,
    end: usize,
    mut found: impl FnMut(&'static str, &str, usize),
) {
    let region = &line[start..end];
    let bytes = region.as_bytes();
    let mut i = 0;
    while let Some(at) = region[i..].find('@') {
        let at = i + at;
        i = at + 1;
        let before = line[..start + at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '@' | '-')) {
            continue;
        }
        let Some(kind) = KINDS.iter().find(|k| region[at + 1..].starts_with(**k)) else {
            continue;
        };
        let mut j = at + 1 + kind.len();
        if bytes
            .get(j)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
        {
            continue;
        }
        if bytes.get(j) == Some(&b':') {
            j += 1;
        }
        while bytes.get(j).is_some_and(|b| *b == b' ' || *b == b'\t') {
            j += 1;
        }
        let token_start = j;
        while bytes.get(j).is_some_and(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'#' | b':')
        }) {
            j += 1;
        }
        let token = region[token_start..j].trim_end_matches(['.', ':', '/', '#', '-']);
        if !token.is_empty() {
            found(kind, token, start + token_start);
        }
        i = j.max(i);
    }
}

/// The id without a sub-id: `SPEC-001/login` and `SPEC-001.login` name `SPEC-001`.
fn base_id(token: &str) -> &str {
    token.split(['/', '.', '#', ':']).next().unwrap_or(token)
}

/// An upper-case word: a capital letter, then capitals, digits, `-` or `_`.
fn looks_like_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// Annotation rules: a named id must exist; a `@spec` file must lie inside the spec's `paths`.
pub(super) fn check(input: &Input, tree: &Tree, _settings: &Settings, sink: &mut Sink) {
    let graph = &input.graph;
    let mut path_sets: std::collections::HashMap<u32, PathSet> = std::collections::HashMap::new();
    for a in &tree.annotations {
        let Some(id) = tree.resolve(input, a) else {
            if input.unloadable.contains(&a.base) || input.unloadable.contains(&a.token) {
                continue;
            }
            sink.push(
                Pending::at(
                    "annotation-broken-ref",
                    &a.location,
                    format!(
                        "`@{} {}` names {}, which is not in the graph: fix the id or create the artifact",
                        a.kind, a.token, a.base
                    ),
                )
                .node(&a.base),
            );
            continue;
        };
        if a.kind != "spec" || !sink.on("annotation-outside-paths") {
            continue;
        }
        let Some(ix) = graph.lookup(id) else { continue };
        let Some(fields) = graph.node(ix).artifact() else {
            continue;
        };
        if fields.paths.is_empty() {
            continue;
        }
        let set = path_sets
            .entry(ix)
            .or_insert_with(|| PathSet::new(&fields.paths));
        if !set.contains(&a.location.path) {
            sink.push(
                Pending::at(
                    "annotation-outside-paths",
                    &a.location,
                    format!(
                        "{} is annotated `@spec {}` but lies outside its paths ({}): add the file to {}'s `paths` or fix the annotation",
                        a.location.path,
                        id,
                        fields.paths.join(", "),
                        id
                    ),
                )
                .node(id),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str, file: &str) -> Vec<(String, u32, u32)> {
        let syntax = syntax_for(Path::new(file)).unwrap();
        scan_text(file, text, syntax)
            .into_iter()
            .map(|a| {
                (
                    format!("{}:{}", a.kind, a.token),
                    a.location.line,
                    a.location.col,
                )
            })
            .collect()
    }

    #[test]
    fn line_comments_of_many_languages() {
        assert_eq!(
            ids("// @spec SPEC-SYNC-001\nfn x() {}\n", "a.rs"),
            vec![("spec:SPEC-SYNC-001".into(), 1, 10)]
        );
        assert_eq!(
            ids("x = 1  # @decision DEC-1 (free text)\n", "a.py"),
            vec![("decision:DEC-1".into(), 1, 20)]
        );
        assert_eq!(
            ids("SELECT 1; -- @norm NORM-DATA-001\n", "q.sql"),
            vec![("norm:NORM-DATA-001".into(), 1, 20)]
        );
        assert_eq!(ids("; @spec LISP-1\n", "a.el").len(), 1);
    }

    #[test]
    fn block_comments_and_docstrings() {
        let ts = "/**\n * Outbox.\n * @spec SPEC-SYNC-001\n * @test SPEC-SYNC-001/replay-once\n */\nconst a = 1;\n";
        assert_eq!(
            ids(ts, "a.ts"),
            vec![
                ("spec:SPEC-SYNC-001".into(), 3, 10),
                ("test:SPEC-SYNC-001/replay-once".into(), 4, 10)
            ]
        );
        let py = "\"\"\"Indexer.\n\n@spec SPEC-SEARCH-001\n\"\"\"\nx = \"@spec NOT-A-COMMENT\"\n";
        assert_eq!(ids(py, "a.py"), vec![("spec:SPEC-SEARCH-001".into(), 3, 7)]);
        assert_eq!(
            ids("<p>@spec NOPE-1</p>\n<!-- @spec SPEC-1 -->\n", "a.html"),
            vec![("spec:SPEC-1".into(), 2, 12)]
        );
        assert_eq!(
            ids("x /* @spec A-1 */ y // @decision D-2\n", "a.c").len(),
            2
        );
    }

    #[test]
    fn code_is_not_a_comment() {
        assert!(ids("let s = \"@spec X-1\";\n", "a.rs").is_empty());
        assert!(ids("#[derive(Debug)] // nothing\n", "a.rs").is_empty());
        assert!(ids("i-- ; @spec A-1\n", "a.c").is_empty());
    }

    #[test]
    fn only_id_shaped_tokens_count() {
        assert!(ids("// mail me@spec.example.com\n", "a.rs").is_empty());
        assert!(ids("// @spec the login flow\n", "a.rs").is_empty());
        assert!(ids("// @specification SPEC-1\n", "a.rs").is_empty());
        assert!(ids("/** @test */\n", "a.php").is_empty());
        assert_eq!(ids("// @spec: SPEC-1.\n", "a.rs")[0].0, "spec:SPEC-1");
    }

    #[test]
    fn sub_ids_name_their_base() {
        assert_eq!(base_id("SPEC-001/login-success"), "SPEC-001");
        assert_eq!(base_id("SPEC-AUTH-001.token-validation"), "SPEC-AUTH-001");
        assert_eq!(base_id("SPEC-1"), "SPEC-1");
    }

    #[test]
    fn unknown_files_are_not_scanned() {
        assert!(syntax_for(Path::new("notes.txt")).is_none());
        assert!(syntax_for(Path::new("data.json")).is_none());
        assert!(syntax_for(Path::new("Dockerfile")).is_some());
    }
}
