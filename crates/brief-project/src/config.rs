//! `brief.toml`'s tables other layers read, as plain data: `[check]` for `brief check`,
//! `[session]` for the session store, `[embeddings]` for the embeddings endpoint. They live
//! here, below their readers, so the project never depends on the code that acts on its
//! settings.
//!
//! ```toml
//! [check]
//! identity_max_tokens = 800          # oversized-identity threshold
//! strict_bidirectional = false       # annotation-outside-paths becomes an error
//! source_paths = ["src"]             # where annotations are scanned (default: the root)
//! ignore_patterns = ["**/vendor/**"] # files never scanned (besides .gitignore)
//! required_fields = { spec = ["owner"], task = ["kind"] }
//! rules = { orphan-spec = "error", broken-path = "off" }
//! ```
//!
//! ```toml
//! [session]
//! default_limit = 3          # agents without their own limit
//! safety_margin = 0.15       # share of the window never planned for
//! model = "claude-sonnet-4"  # when `--model` is not given
//! project = "notes-app"      # error patterns shown by `brief context --session`
//! error_limit = 3            # error patterns shown at most
//! url = "postgres://agent@db.example/brief"  # a shared store (no password here)
//! [session.limits]
//! developer = 4
//! [session.windows]
//! "llama-3.1-70b" = 131072
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

mod embeddings;

pub use embeddings::EmbeddingsConfig;
pub(crate) use embeddings::{EmbeddingsTable, Invalid};

/// A step of a path into `brief.toml`: a key of a table, or an item of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// The value under this key.
    Key(&'a str),
    /// The item at this index of an array.
    Item(usize),
}

/// The byte offset where `path` stands in the TOML `text`, as the TOML parser places it: a
/// key's own name for a last step that is a key, the text of a string item (inside its
/// quotes) for one that is an item. `None` when the text does not parse or has no such path.
pub(crate) fn place(text: &str, path: &[Step<'_>]) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    let table = DeTable::parse(text).ok()?;
    let mut value: &DeValue<'_> = &DeValue::Table(table.into_inner());
    // The parsed tree borrows `text`; only the offset leaves this function.
    let mut at = None;
    for step in path {
        let (span, next) = match (step, value) {
            (Step::Key(key), DeValue::Table(table)) => {
                let (name, next) = table.iter().find(|(name, _)| name.get_ref() == key)?;
                (name.span(), next)
            }
            (Step::Item(index), DeValue::Array(items)) => {
                let item = items.get(*index)?;
                let span = item.span();
                let quoted = matches!(item.get_ref(), DeValue::String(_))
                    && text[span.clone()].starts_with(['"', '\'']);
                let inside = if quoted { span.start + 1 } else { span.start };
                (inside..span.end, item)
            }
            _ => return None,
        };
        at = Some(span.start);
        value = next.get_ref();
    }
    at
}

/// Settings of `brief check`, from `brief.toml`'s `[check]` table.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckConfig {
    /// Tokens (cl100k) above which the identity document is reported (default 800).
    pub identity_max_tokens: Option<usize>,
    /// Report a file annotated `@spec X` outside X's `paths` as an error, not a warning.
    #[serde(default)]
    pub strict_bidirectional: bool,
    /// Extra frontmatter fields required per artifact kind (`spec`, `decision`, `norm`,
    /// `task`, or any other kind).
    #[serde(default)]
    pub required_fields: BTreeMap<String, Vec<String>>,
    /// Folders or globs (root-relative) scanned for code annotations; empty = the whole root.
    #[serde(default)]
    pub source_paths: Vec<String>,
    /// Globs (root-relative) of files and folders never scanned.
    #[serde(default)]
    pub ignore_patterns: Vec<String>,
    /// Severity per rule id: `error`, `warning` or `off`.
    #[serde(default)]
    pub rules: BTreeMap<String, Level>,
}

/// A rule's severity as `brief.toml` sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A finding fails `brief check`.
    Error,
    /// A finding is shown but does not fail.
    Warning,
    /// The rule does not run.
    Off,
}

/// Settings for `brief hook` (`[hook]`), all optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HookConfig {
    /// Token budget of the context a hook hands the agent [default: 800].
    pub budget: Option<usize>,
    /// Milliseconds a hook may take before it gives up and prints nothing [default: 200].
    pub time_limit_ms: Option<u64>,
}

/// Settings for the session store, all optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SessionConfig {
    /// Packages retrieved per agent type (overrides and additions to the built-in limits).
    pub limits: BTreeMap<String, usize>,
    /// The limit of an agent type with none of its own [default: 3].
    pub default_limit: Option<usize>,
    /// Context windows per model name or name prefix (added to the built-in table).
    pub windows: BTreeMap<String, usize>,
    /// The model assumed when `--model` and `--window` are not given [default: claude].
    pub model: Option<String>,
    /// Share of the window kept free (0 ≤ margin < 1) [default: 0.15].
    pub safety_margin: Option<f64>,
    /// The project whose error patterns zone documents show [default: every project].
    pub project: Option<String>,
    /// Most error patterns in a zone document [default: 3].
    pub error_limit: Option<usize>,
    /// A PostgreSQL database to keep sessions in instead of `.brief/sessions.db`
    /// (`postgres://user@host:port/dbname`, no password; `BRIEF_SESSION_URL` wins over it).
    pub url: Option<String>,
}

/// Built-in retrieval limits per agent type (BAZINGA's defaults).
pub const DEFAULT_LIMITS: &[(&str, usize)] = &[
    ("developer", 3),
    ("senior_software_engineer", 5),
    ("qa_expert", 5),
    ("tech_lead", 5),
    ("investigator", 5),
];

/// The limit of agent types with no entry.
pub const DEFAULT_LIMIT: usize = 3;

/// Built-in context windows (tokens) by model name prefix. A name matches the longest key
/// that equals it or is followed in it by `-`, `.`, `:` or `@` (`gpt-4o-mini` → `gpt-4o`,
/// `claude-sonnet-4-5` → `claude`).
pub const DEFAULT_WINDOWS: &[(&str, usize)] = &[
    ("claude", 200_000),
    ("sonnet", 200_000),
    ("opus", 200_000),
    ("haiku", 200_000),
    ("gpt-4", 8_192),
    ("gpt-4-turbo", 128_000),
    ("gpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
];

/// The model assumed when none is named.
pub const DEFAULT_MODEL: &str = "claude";

/// The default safety margin.
pub const DEFAULT_SAFETY_MARGIN: f64 = 0.15;

impl SessionConfig {
    /// Checks values serde cannot: positive limits and windows, a margin below 1.
    pub fn validate(&self) -> Result<(), String> {
        for (agent, limit) in &self.limits {
            if *limit == 0 {
                return Err(format!("[session.limits] {agent} must be at least 1"));
            }
        }
        if self.default_limit == Some(0) || self.error_limit == Some(0) {
            return Err("[session] default_limit and error_limit must be at least 1".into());
        }
        for (model, window) in &self.windows {
            if *window == 0 {
                return Err(format!(
                    "[session.windows] {model} must be at least 1 token"
                ));
            }
        }
        if let Some(m) = self.safety_margin {
            if !(0.0..1.0).contains(&m) {
                return Err(format!(
                    "[session] safety_margin must be at least 0 and below 1, not {m}"
                ));
            }
        }
        Ok(())
    }

    /// The retrieval limit of `agent`.
    pub fn limit_for(&self, agent: &str) -> usize {
        self.limits
            .get(agent)
            .copied()
            .or_else(|| {
                DEFAULT_LIMITS
                    .iter()
                    .find(|(a, _)| *a == agent)
                    .map(|&(_, l)| l)
            })
            .unwrap_or(self.default_limit.unwrap_or(DEFAULT_LIMIT))
    }

    /// The window of `model` (configured entries first, then built-in), or `None`.
    pub fn window_for(&self, model: &str) -> Option<usize> {
        let model = model.trim().to_ascii_lowercase();
        let matches = |key: &str| {
            let key = key.to_ascii_lowercase();
            model == key
                || model
                    .strip_prefix(&key)
                    .is_some_and(|rest| rest.starts_with(['-', '.', ':', '@']))
        };
        let best = |table: &mut dyn Iterator<Item = (&str, usize)>| {
            table
                .filter(|(key, _)| matches(key))
                .max_by_key(|(key, _)| key.len())
                .map(|(_, w)| w)
        };
        best(&mut self.windows.iter().map(|(k, &w)| (k.as_str(), w)))
            .or_else(|| best(&mut DEFAULT_WINDOWS.iter().copied()))
    }

    /// Every model name `window_for` knows, sorted.
    pub fn known_models(&self) -> Vec<String> {
        let mut names: Vec<String> = DEFAULT_WINDOWS
            .iter()
            .map(|(k, _)| k.to_string())
            .chain(self.windows.keys().cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The safety margin in basis points (1500 = 15 %), so zone arithmetic stays integral.
    pub fn margin_bp(&self) -> u64 {
        (self.safety_margin.unwrap_or(DEFAULT_SAFETY_MARGIN) * 10_000.0).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_where_the_parser_read_it() {
        let text = "# rules = { x = 1 } in a comment\n[check]\nrules = { orphan = \"off\" }\n\
                    ignore_patterns = [\"a\", 'b', 3]\n[check.more]\nkey = 1\n";
        let at = |path: &[Step<'_>]| place(text, path).map(|at| brief_sources::line_col(text, at));
        let (check, rules) = (Step::Key("check"), Step::Key("rules"));
        assert_eq!(at(&[check, rules, Step::Key("orphan")]), Some((3, 11)));
        assert_eq!(at(&[check, rules]), Some((3, 1)));
        let ignore = Step::Key("ignore_patterns");
        assert_eq!(at(&[check, ignore, Step::Item(0)]), Some((4, 21)));
        assert_eq!(at(&[check, ignore, Step::Item(1)]), Some((4, 26)));
        assert_eq!(at(&[check, ignore, Step::Item(2)]), Some((4, 30)));
        assert_eq!(
            at(&[check, Step::Key("more"), Step::Key("key")]),
            Some((6, 1))
        );
        assert_eq!(at(&[check, Step::Key("nothing")]), None);
        assert_eq!(at(&[check, ignore, Step::Item(3)]), None);
        assert_eq!(place("not = [toml", &[check]), None);
    }

    #[test]
    fn parses_the_documented_table() {
        let text = r#"
identity_max_tokens = 500
strict_bidirectional = true
source_paths = ["src"]
ignore_patterns = ["**/vendor/**"]
required_fields = { spec = ["owner"] }
rules = { orphan-spec = "error", broken-path = "off" }
"#;
        let config: CheckConfig = toml::from_str(text).unwrap();
        assert_eq!(config.identity_max_tokens, Some(500));
        assert!(config.strict_bidirectional);
        assert_eq!(config.rules["orphan-spec"], Level::Error);
        assert_eq!(config.rules["broken-path"], Level::Off);
        assert_eq!(config.required_fields["spec"], vec!["owner"]);
    }

    #[test]
    fn rejects_unknown_keys_and_levels() {
        assert!(toml::from_str::<CheckConfig>("strict = true").is_err());
        assert!(toml::from_str::<CheckConfig>("rules = { orphan-spec = \"fatal\" }").is_err());
    }

    #[test]
    fn limits_and_windows() {
        let mut c = SessionConfig::default();
        assert_eq!(c.limit_for("developer"), 3);
        assert_eq!(c.limit_for("tech_lead"), 5);
        assert_eq!(c.limit_for("project_manager"), 3);
        c.limits.insert("developer".into(), 7);
        c.default_limit = Some(2);
        assert_eq!(c.limit_for("developer"), 7);
        assert_eq!(c.limit_for("project_manager"), 2);
        assert_eq!(c.window_for("claude-sonnet-4-5"), Some(200_000));
        assert_eq!(c.window_for("gpt-4o-mini"), Some(128_000));
        assert_eq!(c.window_for("gpt-4.1-nano"), Some(1_047_576));
        assert_eq!(c.window_for("gpt-4"), Some(8_192));
        assert_eq!(c.window_for("o3-mini"), Some(200_000));
        assert_eq!(c.window_for("gpt-4oo"), None);
        assert_eq!(c.window_for("llama-3"), None);
        c.windows.insert("llama".into(), 131_072);
        assert_eq!(c.window_for("llama-3"), Some(131_072));
        assert_eq!(c.margin_bp(), 1500);
    }
}
