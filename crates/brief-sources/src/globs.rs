//! File globs as rule files write them, made root-relative for [`Applies::Files`], and the
//! matcher of a node's `paths` (files and folders a task or spec names). Whether a rule
//! applies to a file is [`Applies::reaches`] (brief-model), which `check` and the engine share
//! through [`applies_to`].
//!
//! The dialects met in real rule files, all read here:
//! - a YAML list (`globs: ["src/**", "*.ts"]`), a string (`applyTo: "**/*.ts"`), or a
//!   comma-joined string, quoted or not (`globs: **/*.ts,**/*.tsx`, Cursor's `.mdc`, which is
//!   not YAML); commas inside braces stay (`**/*.{ts,tsx}`);
//! - braces, `*` (inside one folder), `**` (across folders), `?`, `[…]`;
//! - a pattern without a `/` matches a file's name at any depth (`*.ts` is `**/*.ts`), as
//!   in `.gitignore`; one with a `/` is anchored at its base (the root, or the folder a
//!   nested rule lives in); a trailing `/` or a plain folder name covers everything under it;
//! - empty values and empty list items are no globs.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use brief_model::Applies;

/// Splits one written glob value into patterns: commas outside braces separate them; quotes
/// and surrounding spaces are dropped; empty items are skipped.
pub(crate) fn split(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let bytes = value.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                push_item(&mut out, &value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    push_item(&mut out, &value[start..]);
    out
}

fn push_item(out: &mut Vec<String>, item: &str) {
    let item = item
        .trim()
        .trim_matches(|c| c == '"' || c == '\'')
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim()
        .trim_matches(|c| c == '"' || c == '\'')
        .trim();
    if !item.is_empty() {
        out.push(item.to_string());
    }
}

/// The patterns of a frontmatter value: a list of strings (each split as [`split`]) or a
/// string; anything else holds none.
pub(crate) fn from_value(value: &serde_json::Value) -> Vec<String> {
    match value {
        serde_json::Value::String(text) => split(text),
        serde_json::Value::Array(items) => items
            .iter()
            .filter_map(serde_json::Value::as_str)
            .flat_map(split)
            .collect(),
        _ => Vec::new(),
    }
}

/// A pattern as written, made root-relative: `base` is the folder the rule applies from
/// (`""` at the root), a pattern without `/` matches names at any depth beneath it.
pub fn scoped(base: &str, pattern: &str) -> String {
    let pattern = pattern.trim();
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let pattern = pattern.trim_start_matches('/');
    let base = escape(base.trim_matches('/'));
    let anywhere = !pattern.trim_end_matches('/').contains('/') && !pattern.starts_with("**");
    let body = if anywhere {
        format!("**/{pattern}")
    } else {
        pattern.to_string()
    };
    if base.is_empty() {
        body
    } else {
        format!("{base}/{body}")
    }
}

/// Why a pattern cannot be used, or `None` when it compiles.
pub fn invalid(pattern: &str) -> Option<String> {
    match compile(pattern) {
        Compiled::Invalid(why) => Some(why),
        _ => None,
    }
}

enum Compiled {
    /// Everything under a folder (`""` is the whole root), or that file.
    Under(String),
    Glob(globset::Glob),
    Invalid(String),
}

/// The folder a pattern is rooted in, read as [`FileMatcher`] reads the pattern: its
/// components before the first with a wildcard (`src/api/**/*.ts` → `src/api`); a pattern
/// without one covers itself and what is under it, so it is its own folder (`src/billing`),
/// unless its last component names a file (`src/main.rs` → `src`). `None` for a pattern
/// rooted nowhere (`**/*.sql`).
pub fn glob_folder(pattern: &str) -> Option<String> {
    let pattern = pattern.trim();
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let parts: Vec<&str> = pattern
        .trim_matches('/')
        .split('/')
        .filter(|p| !p.is_empty())
        .collect();
    let literal: Vec<String> = parts.iter().map_while(|p| literal(p)).collect();
    let is_file = |name: &str| name.contains('.') && !name.starts_with('.');
    let depth = match literal.last() {
        Some(last) if literal.len() == parts.len() && is_file(last) => literal.len() - 1,
        _ => literal.len(),
    };
    let folder = literal[..depth].join("/");
    (!folder.is_empty()).then_some(folder)
}

/// A folder's path as a glob that matches it letter by letter: `*`, `?`, `[`, `]`, `{`, `}`
/// and `\` escaped (a Next.js `app/[slug]` folder).
pub(crate) fn escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The text a glob fragment matches when it has no wildcard (`\[slug\]` → `[slug]`);
/// `None` when it has one, or ends in a dangling `\` (no glob at all).
fn literal(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '*' | '?' | '[' | '{' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// Whether a glob's last component names a file or folder letter by letter (`**/migrations`,
/// `app/\{x\}`), not by a wildcard (`src/*`, `docs/**`): a folder it matches is that folder,
/// not any name in its parent.
pub fn glob_names_its_last_folder(glob: &str) -> bool {
    let last = glob.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    !last.is_empty() && literal(last).is_some()
}

fn compile(pattern: &str) -> Compiled {
    let folder = pattern.trim_end_matches('/');
    if let Some(folder) = literal(folder) {
        return Compiled::Under(folder);
    }
    if let Some(prefix) = folder.strip_suffix("/**") {
        if let Some(prefix) = literal(prefix) {
            return Compiled::Under(prefix);
        }
    }
    if folder == "**" || folder == "**/*" {
        return Compiled::Under(String::new());
    }
    match GlobBuilder::new(folder)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
    {
        Ok(glob) => Compiled::Glob(glob),
        Err(err) => Compiled::Invalid(err.kind().to_string()),
    }
}

/// A node's `paths` compiled once (files, folders and globs, root-relative): whether a
/// root-relative path (`/`-separated, no leading `./`) is covered by any of them. A folder
/// they name covers the files in it.
#[derive(Debug, Clone)]
pub struct FileMatcher {
    everything: bool,
    folders: Vec<String>,
    globs: GlobSet,
}

impl FileMatcher {
    /// Compiles root-relative patterns (as [`scoped`] makes them); invalid ones match nothing
    /// (`brief check` reports them).
    pub fn new(patterns: &[String]) -> FileMatcher {
        let mut everything = false;
        let mut folders = Vec::new();
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns {
            match compile(pattern) {
                Compiled::Under(folder) if folder.is_empty() => everything = true,
                Compiled::Under(folder) => folders.push(folder),
                Compiled::Glob(glob) => {
                    builder.add(glob);
                }
                Compiled::Invalid(_) => {}
            }
        }
        FileMatcher {
            everything,
            folders,
            globs: builder.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }

    /// Whether the path is covered.
    pub fn is_match(&self, path: &str) -> bool {
        let path = path.strip_prefix("./").unwrap_or(path).trim_matches('/');
        if self.everything {
            return true;
        }
        let under = |folder: &str| {
            path == folder
                || (path.starts_with(folder) && path.as_bytes().get(folder.len()) == Some(&b'/'))
        };
        if self.folders.iter().any(|f| under(f)) || self.globs.is_match(path) {
            return true;
        }
        // A glob naming a folder covers the files in it.
        let mut dir = path;
        while let Some(cut) = dir.rfind('/') {
            dir = &dir[..cut];
            if self.globs.is_match(dir) {
                return true;
            }
        }
        false
    }
}

/// Whether a node with this [`Applies`] applies to the root-relative `path`: always for
/// [`Applies::Always`], by its globs for [`Applies::Files`], never without a link otherwise.
/// This is [`Applies::reaches`], the one rule the engine (rule 1b, file targets) and `check`
/// (a glob that matches no file) share.
pub fn applies_to(applies: &Applies, path: &str) -> bool {
    applies.reaches(&[path.to_string()]).is_some()
}

#[cfg(test)]
mod tests {

    #[test]
    fn folders_patterns_are_rooted_in() {
        assert_eq!(glob_folder("src/api/**/*.ts").as_deref(), Some("src/api"));
        assert_eq!(
            glob_folder("./docs/realtime/**").as_deref(),
            Some("docs/realtime")
        );
        assert_eq!(glob_folder("/web/**").as_deref(), Some("web"));
        assert_eq!(glob_folder("src/main.rs").as_deref(), Some("src"));
        // A plain folder covers what is under it, as the matcher reads it.
        assert_eq!(glob_folder("src/billing").as_deref(), Some("src/billing"));
        assert_eq!(glob_folder("src/billing/").as_deref(), Some("src/billing"));
        assert_eq!(glob_folder("**/*.sql"), None);
        assert!(glob_names_its_last_folder("**/migrations"));
        assert!(glob_names_its_last_folder(&escape("app/{x}")));
        assert!(!glob_names_its_last_folder("src/*"));
        assert!(!glob_names_its_last_folder("docs/**"));
        assert!(
            invalid(r"src/\[slug\").is_some(),
            "a dangling backslash is no glob"
        );
        // An escaped wildcard is a letter of the folder's name.
        assert_eq!(
            glob_folder(&format!("{}/**", escape("app/[slug]"))).as_deref(),
            Some("app/[slug]")
        );
        assert_eq!(glob_folder("*.tsx"), None);
    }

    use super::*;

    #[test]
    fn dialects_split_into_patterns() {
        assert_eq!(split("**/*.ts,**/*.tsx"), ["**/*.ts", "**/*.tsx"]);
        assert_eq!(split("\"**/*.ts, **/*.tsx\""), ["**/*.ts", "**/*.tsx"]);
        assert_eq!(split("src/**/*.{ts,tsx}"), ["src/**/*.{ts,tsx}"]);
        assert_eq!(split("['a/**', 'b/*.md']"), ["a/**", "b/*.md"]);
        assert_eq!(split(""), Vec::<String>::new());
        assert_eq!(split(" , ,"), Vec::<String>::new());
        let list = serde_json::json!(["*.py", "docs/**,  *.md", 3]);
        assert_eq!(from_value(&list), ["*.py", "docs/**", "*.md"]);
        assert!(from_value(&serde_json::json!(true)).is_empty());
    }

    #[test]
    fn patterns_are_scoped_to_their_base() {
        assert_eq!(scoped("", "*.ts"), "**/*.ts");
        assert_eq!(scoped("", "src/**/*.ts"), "src/**/*.ts");
        assert_eq!(scoped("", "./src/api/"), "src/api/");
        assert_eq!(scoped("apps/web", "*.tsx"), "apps/web/**/*.tsx");
        assert_eq!(scoped("apps/web/", "src/**"), "apps/web/src/**");
        assert_eq!(scoped("", "**/*.py"), "**/*.py");
    }

    #[test]
    fn the_matcher_covers_files_folders_and_globs() {
        let m = FileMatcher::new(&[
            "**/*.ts".into(),
            "docs/".into(),
            "src/{api,db}/**".into(),
            "[".into(),
        ]);
        assert!(m.is_match("a.ts"));
        assert!(m.is_match("src/deep/a.ts"));
        assert!(m.is_match("docs/x/y.md"));
        assert!(m.is_match("src/api/handler.go"));
        assert!(m.is_match("src/db/x/y.sql"));
        assert!(!m.is_match("src/web/a.tsx"));
        assert!(!m.is_match("docsx/a.md"));
        let star = FileMatcher::new(&["src/*.rs".into()]);
        assert!(star.is_match("src/lib.rs"));
        assert!(!star.is_match("src/a/lib.rs"), "* stays inside one folder");
        let folder_glob = FileMatcher::new(&["src/*/api".into()]);
        assert!(folder_glob.is_match("src/v1/api/x.rs"));
        assert!(FileMatcher::new(&["**".into()]).is_match("anything/at/all"));
        assert!(!FileMatcher::new(&[]).is_match("a"));
        assert_eq!(
            invalid("a/[b"),
            Some("unclosed character class; missing ']'".into())
        );
        assert_eq!(invalid("a/**/b"), None);
    }

    #[test]
    fn applies_answers_per_kind() {
        assert!(applies_to(&Applies::Always, "x/y.rs"));
        assert!(!applies_to(&Applies::Linked, "x/y.rs"));
        let files = Applies::Files(vec![scoped("apps/web", "*.tsx")]);
        assert!(applies_to(&files, "apps/web/src/App.tsx"));
        assert!(!applies_to(&files, "apps/api/src/App.tsx"));
    }
}
