//! Root-relative path patterns (`paths:` of an artifact, `[check] source_paths`): shared by the
//! artifact rules and the annotation scan.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// A set of root-relative `paths` patterns: folders (`src/auth/`, `src/auth/**`), files and
/// globs (`*` stays inside one folder, `**` crosses folders).
pub(crate) struct PathSet {
    prefixes: Vec<String>,
    globs: GlobSet,
    /// True when some pattern names the whole root.
    everything: bool,
}

/// A pattern after normalisation.
pub(super) enum Pattern {
    /// A file or folder, root-relative, without a trailing `/` (`""` = the root).
    Exact(String),
    Glob(Glob),
    Invalid(String),
}

pub(super) fn pattern(text: &str) -> Pattern {
    let norm = text.trim().trim_start_matches("./").trim_start_matches('/');
    let meta = |s: &str| s.contains(['*', '?', '[', '{']);
    let folder = norm.trim_end_matches('/');
    if !meta(folder) {
        return Pattern::Exact(folder.to_string());
    }
    if let Some(prefix) = folder.strip_suffix("/**") {
        if !meta(prefix) {
            return Pattern::Exact(prefix.to_string());
        }
    }
    match GlobBuilder::new(folder).literal_separator(true).build() {
        Ok(glob) => Pattern::Glob(glob),
        Err(err) => Pattern::Invalid(err.kind().to_string()),
    }
}

impl PathSet {
    pub(crate) fn new(patterns: &[String]) -> PathSet {
        let mut prefixes = Vec::new();
        let mut builder = GlobSetBuilder::new();
        let mut everything = false;
        for p in patterns {
            match pattern(p) {
                Pattern::Exact(prefix) if prefix.is_empty() => everything = true,
                Pattern::Exact(prefix) => prefixes.push(prefix),
                Pattern::Glob(glob) => {
                    builder.add(glob);
                }
                Pattern::Invalid(_) => {}
            }
        }
        PathSet {
            prefixes,
            globs: builder.build().unwrap_or_else(|_| GlobSet::empty()),
            everything,
        }
    }

    /// Whether a root-relative file path is covered.
    pub(crate) fn contains(&self, file: &str) -> bool {
        self.everything
            || self.prefixes.iter().any(|p| {
                file == p
                    || (file.starts_with(p.as_str()) && file.as_bytes().get(p.len()) == Some(&b'/'))
            })
            || self.globs.is_match(file)
            || {
                // A glob naming a folder covers the files in it.
                let mut dir = file;
                let mut hit = false;
                while let Some(cut) = dir.rfind('/') {
                    dir = &dir[..cut];
                    if self.globs.is_match(dir) {
                        hit = true;
                        break;
                    }
                }
                hit
            }
    }
}
