//! Rule files: agent instruction files and rules with globs, and when each applies.
//!
//! One table says which files are rules and reads their [`Applies`], whichever loader reads
//! the file (the knowledge base reads agent files, Cursor, Copilot and Claude Code rules; the
//! Kiro source reads steering):
//!
//! | file | applies |
//! |---|---|
//! | `AGENTS.md` / `CLAUDE.md` at the root, `.claude/CLAUDE.md`, `.github/copilot-instructions.md` | always |
//! | a nested `AGENTS.md` / `CLAUDE.md` (or `dir/.claude/CLAUDE.md`), also under `.github/` | files under its folder |
//! | `.claude/skills/<name>/SKILL.md` | only when linked or found by the task's words (the agent picks a skill by its description) |
//! | `.claude/rules/**/*.md` | `paths` (or `globs`); without them always |
//! | `.cursor/rules/**/*.mdc` | always with `alwaysApply: true`, else `globs`, else only when linked |
//! | `.github/instructions/**/*.instructions.md` | `applyTo`; without it only when linked |
//! | `.kiro/steering/*.md` | `inclusion: always` or no `inclusion` → always; `fileMatch` → `fileMatchPattern`; `manual` → only when linked |
//! | `.windsurf/rules/**/*.md` | `trigger: always_on` or no `trigger` → always; `glob` → `globs`; `manual`, `model_decision` → only when linked |
//!
//! A rule file inside a subfolder (`apps/web/.cursor/rules/x.mdc`, `apps/web/.kiro/…`) applies
//! from that folder: its globs are relative to it, and "always" means "files under it".

use serde_json::{Map, Value};

use super::globs;
use brief_model::Applies;

/// Which kind of rule a file is, and the folder it applies from (`""` = the root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleFile {
    /// `AGENTS.md` or `CLAUDE.md` in `dir` (also `dir/.claude/CLAUDE.md`).
    AgentFile {
        /// The folder the file applies from, root-relative.
        dir: String,
    },
    /// `.github/copilot-instructions.md`: the repository's Copilot instructions.
    CopilotInstructions,
    /// `.github/instructions/**/*.instructions.md` (`applyTo`).
    CopilotScoped,
    /// `<base>/.claude/rules/**/*.md` (`paths`).
    ClaudeRule {
        /// The folder holding `.claude/`, root-relative.
        base: String,
    },
    /// `<base>/.claude/skills/<name>/SKILL.md`: a Claude Code skill, which the agent loads
    /// when the task matches its `description`.
    Skill {
        /// The folder holding `.claude/`, root-relative.
        base: String,
    },
    /// `<base>/.cursor/rules/**/*.mdc` (`alwaysApply`, `globs`).
    Cursor {
        /// The folder holding `.cursor/`, root-relative.
        base: String,
    },
    /// `<base>/.kiro/steering/*.md` (`inclusion`, `fileMatchPattern`).
    Steering {
        /// The folder holding `.kiro/`, root-relative.
        base: String,
    },
    /// `<base>/.windsurf/rules/**/*.md`: Windsurf's workspace rules (`trigger`, `globs`).
    Windsurf {
        /// The folder holding `.windsurf/`, root-relative.
        base: String,
    },
}

impl RuleFile {
    /// The rule a root-relative path is, if any.
    pub fn of(rel: &str) -> Option<RuleFile> {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        if name == "AGENTS.md" || name == "CLAUDE.md" {
            if dir == ".claude" {
                return Some(RuleFile::AgentFile { dir: String::new() });
            }
            if let Some(base) = dir.strip_suffix("/.claude") {
                return Some(RuleFile::AgentFile { dir: base.into() });
            }
            // `.github/` holds the CI's own instructions (`.github/workflows/AGENTS.md`);
            // other hidden folders are tools' state.
            let inside = dir.strip_prefix(".github/").unwrap_or(dir);
            if dir == ".github" || !inside.split('/').any(|part| part.starts_with('.')) {
                return Some(RuleFile::AgentFile { dir: dir.into() });
            }
            return None;
        }
        if rel == ".cursorrules" {
            return Some(RuleFile::AgentFile { dir: String::new() });
        }
        if rel == ".github/copilot-instructions.md" {
            return Some(RuleFile::CopilotInstructions);
        }
        if rel.starts_with(".github/instructions/") && name.ends_with(".instructions.md") {
            return Some(RuleFile::CopilotScoped);
        }
        let under = |marker: &str| -> Option<String> {
            let at = rel.find(marker)?;
            let base = &rel[..at];
            (base.is_empty() || base.ends_with('/')).then(|| base.trim_end_matches('/').to_string())
        };
        if name.ends_with(".mdc") {
            return under(".cursor/rules/").map(|base| RuleFile::Cursor { base });
        }
        if !name.to_ascii_lowercase().ends_with(".md") {
            return None;
        }
        if let Some(base) = under(".claude/rules/") {
            return Some(RuleFile::ClaudeRule { base });
        }
        if name == "SKILL.md" {
            if let Some(base) = under(".claude/skills/") {
                // One folder per skill, its file directly in it.
                let rest = &rel[rel.find(".claude/skills/")? + ".claude/skills/".len()..];
                return (rest.matches('/').count() == 1).then_some(RuleFile::Skill { base });
            }
        }
        if let Some(base) = under(".windsurf/rules/") {
            return Some(RuleFile::Windsurf { base });
        }
        if let Some(base) = under(".kiro/steering/") {
            // Steering files sit directly in the folder.
            let rest = &rel[rel.find(".kiro/steering/")? + ".kiro/steering/".len()..];
            return (!rest.contains('/')).then_some(RuleFile::Steering { base });
        }
        None
    }

    /// The folder the rule applies from (`""` = the root).
    pub fn base(&self) -> &str {
        match self {
            RuleFile::AgentFile { dir } => dir,
            RuleFile::ClaudeRule { base }
            | RuleFile::Skill { base }
            | RuleFile::Cursor { base }
            | RuleFile::Steering { base }
            | RuleFile::Windsurf { base } => base,
            RuleFile::CopilotInstructions | RuleFile::CopilotScoped => "",
        }
    }

    /// When the rule applies, from its frontmatter (a map of keys to values; empty without
    /// frontmatter).
    pub fn applies(&self, front: &Map<String, Value>) -> Applies {
        let everywhere = || self.everywhere();
        let globs_of = |keys: &[&str]| -> Vec<String> {
            keys.iter()
                .filter_map(|key| front.get(*key))
                .flat_map(globs::from_value)
                .map(|pattern| globs::scoped(self.base(), &pattern))
                .collect()
        };
        let files = |globs: Vec<String>| {
            if globs.is_empty() {
                Applies::Linked
            } else if self.base().is_empty() && globs.iter().any(|g| covers_all(g)) {
                Applies::Always
            } else {
                Applies::Files(globs)
            }
        };
        match self {
            RuleFile::AgentFile { .. } | RuleFile::CopilotInstructions => everywhere(),
            RuleFile::CopilotScoped => files(globs_of(&["applyTo"])),
            RuleFile::ClaudeRule { .. } => match globs_of(&["paths", "globs"]) {
                globs if globs.is_empty() => everywhere(),
                globs => files(globs),
            },
            RuleFile::Skill { .. } => Applies::Linked,
            RuleFile::Cursor { .. } => {
                if truthy(front.get("alwaysApply")) {
                    everywhere()
                } else {
                    files(globs_of(&["globs"]))
                }
            }
            RuleFile::Steering { .. } => {
                let inclusion = front
                    .get("inclusion")
                    .and_then(Value::as_str)
                    .map(|s| s.trim().to_ascii_lowercase());
                match inclusion.as_deref() {
                    None | Some("always") | Some("") => everywhere(),
                    Some("filematch") => files(globs_of(&[
                        "fileMatchPattern",
                        "fileMatchPatterns",
                        "filePatterns",
                    ])),
                    // `manual`, `auto` (the agent decides by its description) and anything else.
                    Some(_) => Applies::Linked,
                }
            }
            RuleFile::Windsurf { .. } => {
                let trigger = front
                    .get("trigger")
                    .and_then(Value::as_str)
                    .map(|s| s.trim().to_ascii_lowercase());
                match trigger.as_deref() {
                    None | Some("always_on") | Some("") => everywhere(),
                    Some("glob") => files(globs_of(&["globs"])),
                    // `manual` (an @mention), `model_decision` (the agent decides by its
                    // description) and anything else.
                    Some(_) => Applies::Linked,
                }
            }
        }
    }

    /// "Always" from where the rule lives: every context at the root, the files under its
    /// folder elsewhere.
    fn everywhere(&self) -> Applies {
        match self.base() {
            "" => Applies::Always,
            base => Applies::Files(vec![format!("{}/**", crate::globs::escape(base))]),
        }
    }

    /// The globs as written, for display (`scope` on the card).
    pub(crate) fn written_globs(&self, front: &Map<String, Value>) -> Vec<String> {
        let keys: &[&str] = match self {
            RuleFile::AgentFile { .. } | RuleFile::CopilotInstructions | RuleFile::Skill { .. } => {
                &[]
            }
            RuleFile::CopilotScoped => &["applyTo"],
            RuleFile::ClaudeRule { .. } => &["paths", "globs"],
            RuleFile::Cursor { .. } => &["globs"],
            RuleFile::Steering { .. } => &["fileMatchPattern", "fileMatchPatterns", "filePatterns"],
            RuleFile::Windsurf { .. } => &["globs"],
        };
        keys.iter()
            .filter_map(|key| front.get(*key))
            .flat_map(globs::from_value)
            .collect()
    }
}

/// A tool's folder of rule files: `<hidden>/rules/**/*<suffix>`, found at any depth of the
/// tree (`apps/web/.cursor/rules/`), the knowledge base's listing walks each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RuleFolder {
    /// The hidden folder (`.cursor`).
    pub hidden: &'static str,
    /// What a rule file's name ends with.
    pub suffix: &'static str,
    /// A file of its own directly in the hidden folder (`.claude/CLAUDE.md`), if any.
    pub file: Option<&'static str>,
    /// The name of the file in each folder of `<hidden>/skills/` (`SKILL.md`), if the tool
    /// has skills.
    pub skill: Option<&'static str>,
}

/// Every tool's rule folder: one row per convention.
pub(crate) const RULE_FOLDERS: &[RuleFolder] = &[
    RuleFolder {
        hidden: ".cursor",
        suffix: ".mdc",
        file: None,
        skill: None,
    },
    RuleFolder {
        hidden: ".claude",
        suffix: ".md",
        file: Some("CLAUDE.md"),
        skill: Some("SKILL.md"),
    },
    RuleFolder {
        hidden: ".windsurf",
        suffix: ".md",
        file: None,
        skill: None,
    },
];

/// Agent instruction files and rule folders whose presence at the root marks a knowledge base.
pub(crate) const AGENT_MARKERS: &[&str] = &[
    "AGENTS.md",
    "CLAUDE.md",
    ".claude/CLAUDE.md",
    ".claude/rules",
    ".claude/skills",
    ".github/copilot-instructions.md",
    ".github/instructions",
    ".cursor/rules",
    ".cursorrules",
    ".windsurf/rules",
];

/// Frontmatter keys that say when a rule applies: read into [`Applies`], not kept as fields.
pub(crate) const SCOPE_KEYS: [&str; 9] = [
    "trigger",
    "globs",
    "applyTo",
    "paths",
    "alwaysApply",
    "inclusion",
    "fileMatchPattern",
    "fileMatchPatterns",
    "filePatterns",
];

fn covers_all(glob: &str) -> bool {
    matches!(glob, "**" | "**/*" | "**/**" | "**/")
}

fn truthy(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.trim().eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// Frontmatter that is not YAML, read one `key: value` per line (Cursor writes `globs:
/// **/*.ts,**/*.tsx` unquoted; `*` opens a YAML alias). Values stay strings; an empty value
/// is null.
pub(crate) fn lenient_front(yaml: &str) -> Map<String, Value> {
    let mut map = Map::new();
    for line in yaml.lines() {
        if line.starts_with([' ', '\t', '-', '#']) {
            continue;
        }
        if let Some((key, value)) = line.split_once(':') {
            let value = value.trim();
            let value = if value.is_empty() {
                Value::Null
            } else {
                Value::String(value.to_string())
            };
            map.insert(key.trim().to_string(), value);
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn front(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn which_files_are_rules() {
        let cases = [
            ("AGENTS.md", Some(RuleFile::AgentFile { dir: "".into() })),
            ("CLAUDE.md", Some(RuleFile::AgentFile { dir: "".into() })),
            (
                ".claude/CLAUDE.md",
                Some(RuleFile::AgentFile { dir: "".into() }),
            ),
            (
                "api/CLAUDE.md",
                Some(RuleFile::AgentFile { dir: "api".into() }),
            ),
            (
                "api/.claude/CLAUDE.md",
                Some(RuleFile::AgentFile { dir: "api".into() }),
            ),
            (
                "src/billing/AGENTS.md",
                Some(RuleFile::AgentFile {
                    dir: "src/billing".into(),
                }),
            ),
            (
                ".github/copilot-instructions.md",
                Some(RuleFile::CopilotInstructions),
            ),
            (
                ".github/instructions/ts.instructions.md",
                Some(RuleFile::CopilotScoped),
            ),
            (
                ".github/instructions/x/py.instructions.md",
                Some(RuleFile::CopilotScoped),
            ),
            (".github/prompts/review.prompt.md", None),
            (
                ".github/AGENTS.md",
                Some(RuleFile::AgentFile {
                    dir: ".github".into(),
                }),
            ),
            (
                ".github/workflows/AGENTS.md",
                Some(RuleFile::AgentFile {
                    dir: ".github/workflows".into(),
                }),
            ),
            (".github/.cache/AGENTS.md", None),
            (".venv/lib/AGENTS.md", None),
            (
                ".claude/skills/release/SKILL.md",
                Some(RuleFile::Skill { base: "".into() }),
            ),
            (
                "web/.claude/skills/ui/SKILL.md",
                Some(RuleFile::Skill { base: "web".into() }),
            ),
            (".claude/skills/SKILL.md", None),
            (".claude/skills/release/docs/SKILL.md", None),
            (".claude/skills/release/reference.md", None),
            (
                ".claude/rules/api.md",
                Some(RuleFile::ClaudeRule { base: "".into() }),
            ),
            (
                ".claude/rules/sub/api.md",
                Some(RuleFile::ClaudeRule { base: "".into() }),
            ),
            (
                ".cursor/rules/api.mdc",
                Some(RuleFile::Cursor { base: "".into() }),
            ),
            (
                "web/.cursor/rules/ui.mdc",
                Some(RuleFile::Cursor { base: "web".into() }),
            ),
            (
                ".kiro/steering/tech.md",
                Some(RuleFile::Steering { base: "".into() }),
            ),
            (
                "svc/.kiro/steering/api.md",
                Some(RuleFile::Steering { base: "svc".into() }),
            ),
            (".kiro/steering/old/x.md", None),
            (".kiro/specs/a/tasks.md", None),
            ("docs/guide.md", None),
            ("x.cursor/rules/a.mdc", None),
        ];
        for (rel, expected) in cases {
            assert_eq!(RuleFile::of(rel), expected, "{rel}");
        }
    }

    #[test]
    fn applies_per_format() {
        let root = RuleFile::AgentFile { dir: "".into() };
        assert_eq!(root.applies(&Map::new()), Applies::Always);
        let nested = RuleFile::AgentFile {
            dir: "src/billing".into(),
        };
        assert_eq!(
            nested.applies(&Map::new()),
            Applies::Files(vec!["src/billing/**".into()])
        );

        let cursor = RuleFile::Cursor { base: "".into() };
        assert_eq!(
            cursor.applies(&front(json!({"alwaysApply": true}))),
            Applies::Always
        );
        assert_eq!(
            cursor.applies(&front(json!({"alwaysApply": "true", "globs": "x"}))),
            Applies::Always
        );
        assert_eq!(
            cursor.applies(&front(
                json!({"globs": "src/api/**,*.sql", "alwaysApply": false})
            )),
            Applies::Files(vec!["src/api/**".into(), "**/*.sql".into()])
        );
        assert_eq!(
            cursor.applies(&front(json!({"description": "when writing SQL"}))),
            Applies::Linked
        );
        assert_eq!(
            cursor.applies(&front(json!({"globs": null}))),
            Applies::Linked
        );
        assert_eq!(
            cursor.applies(&front(json!({"globs": ""}))),
            Applies::Linked
        );
        let nested_cursor = RuleFile::Cursor { base: "web".into() };
        assert_eq!(
            nested_cursor.applies(&front(json!({"alwaysApply": true}))),
            Applies::Files(vec!["web/**".into()])
        );

        let copilot = RuleFile::CopilotScoped;
        assert_eq!(
            copilot.applies(&front(json!({"applyTo": "**/*.ts,**/*.tsx"}))),
            Applies::Files(vec!["**/*.ts".into(), "**/*.tsx".into()])
        );
        assert_eq!(
            copilot.applies(&front(json!({"applyTo": "**"}))),
            Applies::Always
        );
        assert_eq!(copilot.applies(&Map::new()), Applies::Linked);

        let claude = RuleFile::ClaudeRule { base: "".into() };
        assert_eq!(claude.applies(&Map::new()), Applies::Always);
        assert_eq!(
            claude.applies(&front(json!({"paths": ["src/**/*.ts"]}))),
            Applies::Files(vec!["src/**/*.ts".into()])
        );

        let steering = RuleFile::Steering { base: "".into() };
        assert_eq!(steering.applies(&Map::new()), Applies::Always);
        assert_eq!(
            steering.applies(&front(json!({"inclusion": "always"}))),
            Applies::Always
        );
        assert_eq!(
            steering.applies(&front(json!({"inclusion": "manual"}))),
            Applies::Linked
        );
        assert_eq!(
            steering.applies(&front(
                json!({"inclusion": "fileMatch", "fileMatchPattern": "components/**/*.tsx"})
            )),
            Applies::Files(vec!["components/**/*.tsx".into()])
        );
        assert_eq!(
            steering.applies(&front(
                json!({"inclusion": "fileMatch", "fileMatchPattern": ["*.ts", "*.tsx"]})
            )),
            Applies::Files(vec!["**/*.ts".into(), "**/*.tsx".into()])
        );
        let nested_steering = RuleFile::Steering { base: "svc".into() };
        assert_eq!(
            nested_steering.applies(&front(
                json!({"inclusion": "fileMatch", "fileMatchPattern": "api/**"})
            )),
            Applies::Files(vec!["svc/api/**".into()])
        );
    }

    #[test]
    fn windsurf_rules_apply_by_their_trigger() {
        assert_eq!(
            RuleFile::of(".windsurf/rules/api.md"),
            Some(RuleFile::Windsurf { base: "".into() })
        );
        assert_eq!(
            RuleFile::of("web/.windsurf/rules/sub/ui.md"),
            Some(RuleFile::Windsurf { base: "web".into() })
        );
        assert_eq!(RuleFile::of(".windsurf/workflows/deploy.md"), None);
        assert_eq!(RuleFile::of(".windsurf/rules/notes.txt"), None);
        let rule = RuleFile::Windsurf { base: "".into() };
        assert_eq!(rule.applies(&Map::new()), Applies::Always);
        assert_eq!(
            rule.applies(&front(json!({"trigger": "always_on"}))),
            Applies::Always
        );
        assert_eq!(
            rule.applies(&front(
                json!({"trigger": "glob", "globs": "src/api/**/*.ts"})
            )),
            Applies::Files(vec!["src/api/**/*.ts".into()])
        );
        assert_eq!(
            rule.applies(&front(json!({"trigger": "glob"}))),
            Applies::Linked
        );
        for trigger in ["manual", "model_decision"] {
            assert_eq!(
                rule.applies(&front(
                    json!({"trigger": trigger, "description": "when writing SQL"})
                )),
                Applies::Linked,
                "{trigger}"
            );
        }
        let nested = RuleFile::Windsurf { base: "web".into() };
        assert_eq!(
            nested.applies(&front(json!({"trigger": "glob", "globs": "*.tsx"}))),
            Applies::Files(vec!["web/**/*.tsx".into()])
        );
        assert_eq!(
            rule.written_globs(&front(json!({"trigger": "glob", "globs": "*.sql"}))),
            vec!["*.sql".to_string()]
        );
    }

    #[test]
    fn lenient_frontmatter_reads_cursor_lines() {
        let map = lenient_front(
            "description: API rules\nglobs: **/*.ts,**/*.tsx\nalwaysApply: false\nempty:\n",
        );
        assert_eq!(map["globs"], json!("**/*.ts,**/*.tsx"));
        assert_eq!(map["alwaysApply"], json!("false"));
        assert_eq!(map["empty"], Value::Null);
        let cursor = RuleFile::Cursor { base: "".into() };
        assert_eq!(
            cursor.applies(&map),
            Applies::Files(vec!["**/*.ts".into(), "**/*.tsx".into()])
        );
    }
}
