//! No production function is longer than [`MOST_LINES`]: every `fn` with a body in
//! `crates/*/src/**/*.rs`, from its `fn` line to its closing brace, test code left out (files
//! named `tests.rs` or under a `tests/` folder, `#[cfg(test)]` modules inline or in files of
//! their own). A longer function is split into named phases with typed state.
//!
//! The scan reads tokens from `layering`'s lexer (comments and literals skipped), so a brace in
//! a string or a comment never moves a function's end.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::layering::{lex, rust_files, workspace_root, Tok};

/// The most lines one production function may take.
const MOST_LINES: usize = 120;

/// The functions still over [`MOST_LINES`], each to be split into named phases: the list only
/// shrinks. A function not listed here fails the test when it grows past the limit, and a
/// listed one that no longer does fails it until it is taken off.
const NOT_YET_SPLIT: &[(&str, &str)] = &[];

/// A function with a body: where it starts and how many lines it takes.
#[derive(Debug, PartialEq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// Whether the attribute starting at `toks[i]` (`#`) is `#[cfg(test)]` or a `cfg(all(test, …))`
/// and the like: `cfg` with `test` among its words. Returns the index after it.
pub(super) fn cfg_test_attribute(toks: &[(Tok, usize)], i: usize) -> Option<(bool, usize)> {
    if toks.get(i)?.0 != Tok::Punct('#') || toks.get(i + 1)?.0 != Tok::Punct('[') {
        return None;
    }
    let mut depth = 0usize;
    let mut j = i + 1;
    let mut words = Vec::new();
    while let Some((tok, _)) = toks.get(j) {
        match tok {
            Tok::Punct('[') => depth += 1,
            Tok::Punct(']') => {
                depth -= 1;
                if depth == 0 {
                    let test = words.first().is_some_and(|w| w == "cfg")
                        && words.iter().any(|w| w == "test");
                    return Some((test, j + 1));
                }
            }
            Tok::Ident(word) => words.push(word.clone()),
            _ => {}
        }
        j += 1;
    }
    None
}

/// The index of the brace that closes the one at `toks[open]`.
/// When a `#[cfg(test)]` attribute starts at `i`: where scanning goes on, past the item it is
/// on (skipped whole); a `mod x;` it is on names a file to skip, added to `test_files`.
pub(super) fn skip_test_item(
    toks: &[(Tok, usize)],
    i: usize,
    test_files: &mut Vec<String>,
) -> Option<usize> {
    let (true, after) = cfg_test_attribute(toks, i)? else {
        return None;
    };
    let mut j = after;
    while j < toks.len() && !matches!(toks[j].0, Tok::Punct('{') | Tok::Punct(';')) {
        j += 1;
    }
    if toks.get(j).is_some_and(|t| t.0 == Tok::Punct(';')) {
        if let (Some((Tok::Ident(m), _)), Some((Tok::Ident(name), _))) =
            (toks.get(j.wrapping_sub(2)), toks.get(j.wrapping_sub(1)))
        {
            if m == "mod" {
                test_files.push(name.clone());
            }
        }
        Some(j + 1)
    } else {
        Some(closing(toks, j) + 1)
    }
}

pub(super) fn closing(toks: &[(Tok, usize)], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, (tok, _)) in toks.iter().enumerate().skip(open) {
        match tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    toks.len() - 1
}

/// The functions with bodies in one file's source, and the names of the `#[cfg(test)] mod x;`
/// files it declares.
fn functions(src: &str) -> (Vec<Function>, Vec<String>) {
    let toks = lex(src);
    let mut found = Vec::new();
    let mut test_files = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if let Some(next) = skip_test_item(&toks, i, &mut test_files) {
            i = next;
            continue;
        }
        if let (Tok::Ident(word), Some((Tok::Ident(name), _))) = (&toks[i].0, toks.get(i + 1)) {
            if word == "fn" {
                let mut j = i + 2;
                while j < toks.len() && !matches!(toks[j].0, Tok::Punct('{') | Tok::Punct(';')) {
                    j += 1;
                }
                if toks.get(j).is_some_and(|t| t.0 == Tok::Punct('{')) {
                    let end = closing(&toks, j);
                    found.push(Function {
                        name: name.clone(),
                        line: toks[i].1,
                        lines: toks[end].1 - toks[i].1 + 1,
                    });
                }
            }
        }
        i += 1;
    }
    (found, test_files)
}

/// Every production function over [`MOST_LINES`]: its file (from the workspace root), line,
/// name and length.
fn too_long(root: &Path) -> Vec<(String, usize, String, usize)> {
    let mut files = Vec::new();
    for member in fs::read_dir(root.join("crates")).expect("crates/") {
        rust_files(&member.expect("entry").path().join("src"), &mut files);
    }
    files.sort();
    // First every file's functions and the test files it declares, then the count: a
    // `mod x;` may sort after the file it names.
    let mut skipped: BTreeSet<PathBuf> = BTreeSet::new();
    let mut scanned = Vec::new();
    for file in files {
        let src = fs::read_to_string(&file).expect("source file");
        let (found, test_files) = functions(&src);
        let dir = match file.file_name().and_then(|n| n.to_str()) {
            Some("mod.rs" | "lib.rs" | "main.rs") => file.parent().map(Path::to_path_buf),
            _ => Some(file.with_extension("")),
        };
        for name in test_files {
            if let Some(dir) = &dir {
                skipped.insert(dir.join(format!("{name}.rs")));
                skipped.insert(dir.join(&name).join("mod.rs"));
            }
        }
        scanned.push((file, found));
    }
    let mut out = Vec::new();
    for (file, found) in scanned {
        let rel = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
        let test_only = file.file_name().is_some_and(|n| n == "tests.rs")
            || rel.iter().skip(3).any(|part| part == "tests")
            || skipped.contains(&file);
        if test_only {
            continue;
        }
        for f in found.into_iter().filter(|f| f.lines > MOST_LINES) {
            let path = rel.to_string_lossy().replace('\\', "/");
            out.push((path, f.line, f.name, f.lines));
        }
    }
    out
}

#[test]
fn no_production_function_is_over_the_limit() {
    let long = too_long(&workspace_root());
    let listed = |path: &str, name: &str| NOT_YET_SPLIT.contains(&(path, name));
    let new: Vec<String> = long
        .iter()
        .filter(|(path, _, name, _)| !listed(path, name))
        .map(|(path, line, name, lines)| format!("{path}:{line} {name} ({lines} lines)"))
        .collect();
    assert!(
        new.is_empty(),
        "{} production functions over {MOST_LINES} lines; split each into named phases:\n{}",
        new.len(),
        new.join("\n")
    );
    let split: Vec<String> = NOT_YET_SPLIT
        .iter()
        .filter(|(path, name)| !long.iter().any(|(p, _, n, _)| p == path && n == name))
        .map(|(path, name)| format!("{path} {name}"))
        .collect();
    assert!(
        split.is_empty(),
        "within {MOST_LINES} lines now: take them off NOT_YET_SPLIT:\n{}",
        split.join("\n")
    );
}

#[test]
fn the_scan_measures_bodies_and_leaves_test_code_out() {
    let src = "\
fn short() {
    let s = \"}\"; // }
}

trait T {
    fn declared(&self);
}

#[cfg(test)]
mod tests {
    fn inside_tests() {}
}

#[cfg(test)]
mod more;

fn pointer(f: fn(u8) -> u8) -> u8 {
    f(1)
}
";
    let (found, test_files) = functions(src);
    let names: Vec<(&str, usize, usize)> = found
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines))
        .collect();
    assert_eq!(names, [("short", 1, 3), ("pointer", 17, 3)]);
    assert_eq!(test_files, ["more"]);
}
