//! `brief.toml`'s `[check]` table.
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

use std::collections::BTreeMap;

use serde::Deserialize;

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
    Error,
    Warning,
    Off,
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
