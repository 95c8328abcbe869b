//! Where a node stands in its lifecycle, read from its status word, and when a node applies
//! to a target it has no link with (agent instruction files, rules with globs, steering).
//!
//! One table decides what every status word means, so ADRs, frontmatter and every other
//! source agree on which nodes are current.

use serde::{Deserialize, Serialize};

/// A node's lifecycle, from its `status`: a node without one is current.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lifecycle {
    /// In force: accepted, approved, active, done — or no status at all.
    Current,
    /// Not decided yet: proposed, pending, draft, in review.
    Proposed,
    /// No longer (or never) in force, and why.
    NotCurrent(Retired),
}

/// Why a node is not current.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Retired {
    /// Replaced by a newer node.
    Superseded,
    /// Still described but no longer to be followed.
    Deprecated,
    /// Considered and turned down.
    Rejected,
    /// Taken back by its authors.
    Withdrawn,
    /// Out of date, abandoned or archived.
    Obsolete,
}

impl Retired {
    /// The normal word for it, as banners and JSON say it.
    pub fn name(self) -> &'static str {
        match self {
            Retired::Superseded => "superseded",
            Retired::Deprecated => "deprecated",
            Retired::Rejected => "rejected",
            Retired::Withdrawn => "withdrawn",
            Retired::Obsolete => "obsolete",
        }
    }
}

impl Lifecycle {
    /// Reads a status as written (`Accepted`, `superseded by ADR-0009`, `In Review`, `WIP`,
    /// `No longer relevant`).
    /// `None` for a word the table does not know: `brief check` warns about it, and the node
    /// is treated as current.
    pub fn parse(status: &str) -> Option<Lifecycle> {
        let lower = status.trim().to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let first = *words.first()?;
        let second = words.get(1).copied();
        if first == "no" && second == Some("longer") {
            // "No longer relevant", "no longer applies": out of date.
            return Some(Lifecycle::NotCurrent(Retired::Obsolete));
        }
        if first == "not" || first == "un" {
            // "not accepted", "not approved": turned down.
            return Some(Lifecycle::NotCurrent(Retired::Rejected));
        }
        if let (Some(next), true) = (second, matches!(first, "in" | "under" | "on" | "for")) {
            return match next {
                "review" | "progress" | "discussion" | "draft" | "hold" | "consideration"
                | "comment" | "comments" => Some(Lifecycle::Proposed),
                _ => None,
            };
        }
        word(first)
    }

    /// The lifecycle of an optional status: no status is current.
    pub fn of(status: Option<&str>) -> Lifecycle {
        status
            .and_then(Lifecycle::parse)
            .unwrap_or(Lifecycle::Current)
    }

    /// Whether the node is in force.
    pub fn is_current(self) -> bool {
        self == Lifecycle::Current
    }

    /// Why the node is no longer (or never was) in force; `None` for a current or proposed
    /// one.
    pub fn retired(self) -> Option<Retired> {
        match self {
            Lifecycle::NotCurrent(why) => Some(why),
            Lifecycle::Current | Lifecycle::Proposed => None,
        }
    }

    /// The normal word for the lifecycle (`current`, `proposed`, or why it is not current).
    pub fn name(self) -> &'static str {
        match self {
            Lifecycle::Current => "current",
            Lifecycle::Proposed => "proposed",
            Lifecycle::NotCurrent(retired) => retired.name(),
        }
    }
}

/// The meaning of a status's first word.
fn word(word: &str) -> Option<Lifecycle> {
    use Lifecycle::{Current, NotCurrent, Proposed};
    Some(match word {
        "accepted" | "accept" | "approved" | "active" | "adopted" | "agreed" | "current"
        | "decided" | "done" | "implemented" | "final" | "finalized" | "finalised" | "stable"
        | "completed" | "complete" | "merged" | "live" | "enforced" | "amended" | "valid"
        | "ratified" | "published" | "released" | "ok" => Current,
        "proposed" | "proposal" | "pending" | "draft" | "drafted" | "open" | "wip" | "rfc"
        | "planned" | "suggested" | "discussing" | "review" | "reviewing" | "new" | "tentative"
        | "experimental" | "trial" | "exploring" | "idea" | "todo" => Proposed,
        "superseded" | "superceded" | "supersceded" | "replaced" | "succeeded" => {
            NotCurrent(Retired::Superseded)
        }
        "deprecated" | "deprecate" | "sunset" | "retired" => NotCurrent(Retired::Deprecated),
        "rejected" | "declined" | "refused" | "denied" | "vetoed" => NotCurrent(Retired::Rejected),
        "withdrawn" | "retracted" | "revoked" | "cancelled" | "canceled" | "reverted" => {
            NotCurrent(Retired::Withdrawn)
        }
        "obsolete" | "abandoned" | "archived" | "outdated" | "stale" | "dead" | "expired"
        | "discontinued" | "inactive" | "historic" | "historical" | "legacy" => {
            NotCurrent(Retired::Obsolete)
        }
        _ => return None,
    })
}

/// When a node applies to a target it has no link with.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Applies {
    /// Only when a link, a search or the target brings it: every ordinary node.
    #[default]
    Linked,
    /// In every context of the project (Cursor's `alwaysApply`, Kiro's `inclusion: always`,
    /// an agent file at the root).
    Always,
    /// In the context of every target that is, or names, a file matching one of these globs
    /// (root-relative, `/`-separated; a nested `AGENTS.md` covers `its/folder/**`).
    Files(Vec<String>),
}

impl Applies {
    /// Whether this is the default (serialisation skips it).
    pub fn is_linked(&self) -> bool {
        *self == Applies::Linked
    }

    /// Whether the node applies to a target with these files (root-relative, `/`-separated),
    /// and how: for globs, the first glob (in order) that matches one of the files (in
    /// order). A glob without a `/` matches a file name in any folder, as in `.gitignore`;
    /// a glob that does not parse matches nothing (`brief check` reports it).
    pub fn reaches(&self, files: &[String]) -> Option<Scope> {
        match self {
            Applies::Linked => None,
            Applies::Always => Some(Scope::Always),
            Applies::Files(globs) => globs.iter().find_map(|glob| {
                let matcher = matcher(glob)?;
                files
                    .iter()
                    .find(|file| matcher.is_match(file.as_str()))
                    .map(|file| Scope::Glob {
                        glob: glob.clone(),
                        file: file.clone(),
                    })
            }),
        }
    }
}

/// A glob as rule files write it: `*` stays inside one folder, `**` crosses folders, and a
/// glob without `/` matches the file name at any depth.
fn matcher(glob: &str) -> Option<globset::GlobMatcher> {
    let glob = glob.trim().trim_start_matches("./");
    if glob.is_empty() {
        return None;
    }
    let pattern = if glob.contains('/') {
        glob.trim_start_matches('/').to_string()
    } else {
        format!("**/{glob}")
    };
    globset::GlobBuilder::new(&pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// How a node that applies without a link reached a target.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// It applies to every target.
    Always,
    /// `glob` matched `file`, one of the target's files.
    Glob {
        /// The rule's glob, as written.
        glob: String,
        /// The target's file it matched (relative to the root).
        file: String,
    },
    /// A target in words: the rule's own words match the task's, at this share of the best
    /// hit (in ten-thousandths), though no file of the task is known to match its globs.
    Words {
        /// The rule's score over the best hit's, in ten-thousandths.
        share: u16,
    },
    /// A target in words: a section of a long rule of the context (one that applies, as a root
    /// `AGENTS.md`, or a norm a link brings), whose own words match the task's at this share
    /// of the best hit (in ten-thousandths): the part of the rule the task is about, shown
    /// before the rest of it.
    Section {
        /// The section's score over the best hit's, in ten-thousandths.
        share: u16,
    },
    /// A target in words: a word of the task names the folder the rule governs (as the index
    /// stems words, so `providers/` is named by "provider").
    Named {
        /// The folder the rule governs, relative to the root (`src/billing`).
        folder: String,
        /// The task's word that names it, as written.
        word: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_status_forms() {
        let cases = [
            ("Accepted", Lifecycle::Current),
            ("accepted ✅", Lifecycle::Current),
            ("**Accepted**", Lifecycle::Current),
            ("Proposed", Lifecycle::Proposed),
            ("In Review", Lifecycle::Proposed),
            ("pending", Lifecycle::Proposed),
            ("WIP", Lifecycle::Proposed),
            (
                "Superseded by [ADR-0004](0004-x.md)",
                Lifecycle::NotCurrent(Retired::Superseded),
            ),
            (
                "superceded by ADR-0009",
                Lifecycle::NotCurrent(Retired::Superseded),
            ),
            ("Deprecated", Lifecycle::NotCurrent(Retired::Deprecated)),
            (
                "[Deprecated](https://x)",
                Lifecycle::NotCurrent(Retired::Deprecated),
            ),
            ("Rejected", Lifecycle::NotCurrent(Retired::Rejected)),
            ("not accepted", Lifecycle::NotCurrent(Retired::Rejected)),
            ("Withdrawn", Lifecycle::NotCurrent(Retired::Withdrawn)),
            ("obsolete", Lifecycle::NotCurrent(Retired::Obsolete)),
        ];
        for (status, expected) in cases {
            assert_eq!(Lifecycle::parse(status), Some(expected), "{status}");
        }
    }

    #[test]
    fn no_longer_in_force_is_obsolete() {
        for status in [
            "No longer relevant.",
            "no longer applies",
            "No longer valid, see ADR-0012",
            "No-longer-used",
        ] {
            assert_eq!(
                Lifecycle::parse(status),
                Some(Lifecycle::NotCurrent(Retired::Obsolete)),
                "{status}"
            );
        }
        // "no" alone says nothing about the lifecycle.
        assert_eq!(Lifecycle::parse("No decision yet"), None);
    }

    #[test]
    fn globs_reach_the_files_they_cover() {
        let files = |list: &[&str]| list.iter().map(|f| f.to_string()).collect::<Vec<_>>();
        let api = Applies::Files(vec!["src/api/**".into(), "*.sql".into()]);
        assert_eq!(
            api.reaches(&files(&["docs/x.md", "src/api/v1/orders.ts"])),
            Some(Scope::Glob {
                glob: "src/api/**".into(),
                file: "src/api/v1/orders.ts".into()
            })
        );
        assert!(api.reaches(&files(&["db/migrations/001.sql"])).is_some());
        assert_eq!(api.reaches(&files(&["src/apiary.ts", "README.md"])), None);
        let star = Applies::Files(vec!["src/*.ts".into()]);
        assert!(star.reaches(&files(&["src/a.ts"])).is_some());
        assert!(star.reaches(&files(&["src/deep/a.ts"])).is_none());
        assert_eq!(Applies::Always.reaches(&[]), Some(Scope::Always));
        assert_eq!(Applies::Linked.reaches(&files(&["a"])), None);
        assert_eq!(
            Applies::Files(vec!["[".into(), "".into()]).reaches(&files(&["["])),
            None
        );
    }

    #[test]
    fn unknown_words_are_none_and_no_status_is_current() {
        assert_eq!(Lifecycle::parse("flibbertigibbet"), None);
        assert_eq!(Lifecycle::parse(""), None);
        assert_eq!(Lifecycle::of(None), Lifecycle::Current);
        assert_eq!(Lifecycle::of(Some("zzz")), Lifecycle::Current);
        assert!(!Lifecycle::of(Some("Superseded")).is_current());
    }
}
