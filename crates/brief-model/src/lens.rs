//! Lenses: named views of the graph for a kind of work (supertag's five, made real, plus
//! custom ones from `brief.toml`).
//!
//! A lens decides which exploratory relations a context follows — `child` (what a node
//! `contains`), `parent` (its namespace), `reference` (forward links: `depends_on`,
//! `implements`, `derived_from`, `verified_by`, artifact links), `field` (field-value links of
//! Tana exports) — which kinds or tags get a score boost, which extra fields are shown, and
//! the deepest depth. Whatever constrains the target (constrainers, layer guidance) is
//! normative and always included, whatever the lens.

use std::fmt;

use serde::Deserialize;

/// Which relation families a lens follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Follow {
    /// Children: `child` edges walked forward (the nodes a node owns).
    pub child: bool,
    /// Parents: `child` edges walked backward (a node's owner, its namespace).
    pub parent: bool,
    /// References: `reference` edges, and the forward links of other sources.
    pub reference: bool,
    /// Fields: `field:<Name>` edges, the Tana field values that are other nodes.
    pub field: bool,
}

impl Follow {
    /// What a context follows without a lens (docs/traversal.md): namespace and forward links.
    pub const DEFAULT: Follow = Follow {
        child: false,
        parent: true,
        reference: true,
        field: true,
    };
}

/// A lens.
#[derive(Debug, Clone, PartialEq)]
pub struct Lens {
    /// The name `--lens` takes.
    pub name: String,
    /// One line for `brief lenses`: what the lens is for.
    pub description: String,
    /// The relation families a traversal under this lens walks.
    pub follow: Follow,
    /// Kinds, categories or tags (lower case) whose nodes get +0.1 on their score.
    pub boost: Vec<String>,
    /// When set, only these extra fields are shown on cards (lower case).
    pub fields: Option<Vec<String>>,
    /// The deepest `--depth` this lens allows.
    pub max_depth: Option<u32>,
}

/// Score added to a node that matches a boost term (capped at 1).
pub const LENS_BOOST: f64 = 0.1;

/// A lens as written in `brief.toml` (`[lenses.NAME]`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LensConfig {
    /// One line for `brief lenses` (empty when not given).
    #[serde(default)]
    pub description: Option<String>,
    /// Relation families: child, parent, reference, field.
    pub follow: Vec<String>,
    /// Kinds, categories or tags (any case) whose nodes get [`LENS_BOOST`].
    #[serde(default)]
    pub boost: Vec<String>,
    /// When set, only these extra fields are shown on cards.
    #[serde(default)]
    pub fields: Option<Vec<String>>,
    /// The deepest `--depth` the lens allows.
    #[serde(default)]
    pub max_depth: Option<u32>,
}

/// An unknown lens name, or a bad custom lens.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LensError {
    /// `--lens` names no built-in or configured lens.
    #[error(
        "unknown lens `{name}`: available lenses are {available} (`brief lenses` describes them)"
    )]
    Unknown {
        /// The name asked for.
        name: String,
        /// The lens names there are, listed for the message.
        available: String,
    },
    /// A configured lens's `follow` names a family there is not.
    #[error(
        "lens `{name}`: unknown relation family `{family}` (use child, parent, reference, field)"
    )]
    Family {
        /// The custom lens that names it.
        name: String,
        /// The family word that is not one of the four.
        family: String,
    },
}

fn lens(
    name: &str,
    description: &str,
    follow: [bool; 4],
    boost: &[&str],
    fields: Option<&[&str]>,
    max_depth: u32,
) -> Lens {
    Lens {
        name: name.to_string(),
        description: description.to_string(),
        follow: Follow {
            child: follow[0],
            parent: follow[1],
            reference: follow[2],
            field: follow[3],
        },
        boost: boost.iter().map(|s| s.to_string()).collect(),
        fields: fields.map(|f| f.iter().map(|s| s.to_string()).collect()),
        max_depth: Some(max_depth),
    }
}

/// The five built-in lenses (supertag.md §1.3), boosts applied for real.
pub(crate) fn builtin() -> Vec<Lens> {
    vec![
        lens(
            "general",
            "everything around the target: children, parents, references and fields",
            [true, true, true, true],
            &[],
            None,
            3,
        ),
        lens(
            "writing",
            "prose around the target: children and references; notes and drafts first",
            [true, false, true, false],
            &["note", "draft", "writing", "article"],
            None,
            2,
        ),
        lens(
            "coding",
            "what code must respect: references and fields; specs, architecture and decisions first",
            [false, false, true, true],
            &["spec", "architecture", "code", "decision"],
            Some(&["status", "priority", "assignee"]),
            3,
        ),
        lens(
            "planning",
            "work breakdown: children and fields; goals, milestones, tasks and projects first",
            [true, false, false, true],
            &["goal", "milestone", "task", "project"],
            Some(&["due", "status", "blocked-by"]),
            4,
        ),
        lens(
            "meeting-prep",
            "who and what: references and children; people, meetings, actions and agendas first",
            [true, false, true, false],
            &["person", "meeting", "action", "agenda"],
            Some(&["attendees", "date", "status"]),
            2,
        ),
    ]
}

/// The built-in lenses followed by the custom ones (a custom lens may replace a built-in).
pub fn all_lenses(custom: &[(String, LensConfig)]) -> Result<Vec<Lens>, LensError> {
    let mut lenses = builtin();
    for (name, config) in custom {
        let mut follow = Follow {
            child: false,
            parent: false,
            reference: false,
            field: false,
        };
        for family in &config.follow {
            match family.as_str() {
                "child" => follow.child = true,
                "parent" => follow.parent = true,
                "reference" => follow.reference = true,
                "field" => follow.field = true,
                other => {
                    return Err(LensError::Family {
                        name: name.clone(),
                        family: other.to_string(),
                    })
                }
            }
        }
        let lens = Lens {
            name: name.clone(),
            description: config
                .description
                .clone()
                .unwrap_or_else(|| "custom lens from brief.toml".to_string()),
            follow,
            boost: config.boost.iter().map(|b| b.to_lowercase()).collect(),
            fields: config
                .fields
                .as_ref()
                .map(|f| f.iter().map(|s| s.to_lowercase()).collect()),
            max_depth: config.max_depth,
        };
        lenses.retain(|l| l.name != lens.name);
        lenses.push(lens);
    }
    Ok(lenses)
}

/// Whether a lens's field filter keeps a field. Names are compared lower-cased with spaces
/// and underscores read as `-`, and a filter term also keeps the fields it begins (`due`
/// keeps "Due date", `blocked-by` keeps "Blocked by"): Tana field names are prose, and the
/// exact match supertag used almost never hit. No filter keeps everything; an empty one
/// (`--no-include-fields`) keeps nothing.
pub fn field_selected(filter: Option<&[String]>, name: &str) -> bool {
    let Some(terms) = filter else {
        return true;
    };
    let norm: String = name
        .trim()
        .chars()
        .map(|c| match c {
            ' ' | '_' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    terms.iter().any(|term| {
        let term = term.to_ascii_lowercase();
        norm == term
            || norm
                .strip_prefix(term.as_str())
                .is_some_and(|rest| rest.starts_with('-'))
    })
}

/// Finds a lens by name.
pub fn find_lens(name: &str, custom: &[(String, LensConfig)]) -> Result<Lens, LensError> {
    let lenses = all_lenses(custom)?;
    let available = lenses
        .iter()
        .map(|l| l.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    lenses
        .into_iter()
        .find(|l| l.name == name)
        .ok_or(LensError::Unknown {
            name: name.to_string(),
            available,
        })
}

impl fmt::Display for Lens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let follow: Vec<&str> = [
            (self.follow.child, "child"),
            (self.follow.parent, "parent"),
            (self.follow.reference, "reference"),
            (self.follow.field, "field"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| *name)
        .collect();
        write!(f, "{:<13} {}", self.name, self.description)?;
        write!(f, "\n              follows: {}", follow.join(", "))?;
        if !self.boost.is_empty() {
            write!(f, "; boosts: {}", self.boost.join(", "))?;
        }
        if let Some(fields) = &self.fields {
            write!(f, "; fields: {}", fields.join(", "))?;
        }
        if let Some(depth) = self.max_depth {
            write!(f, "; max depth {depth}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_match_the_reference_table() {
        let coding = find_lens("coding", &[]).unwrap();
        assert!(!coding.follow.child && !coding.follow.parent && coding.follow.reference);
        assert_eq!(coding.max_depth, Some(3));
        assert_eq!(find_lens("planning", &[]).unwrap().max_depth, Some(4));
        assert!(find_lens("meeting", &[]).is_err());
    }

    #[test]
    fn field_filters_match_prose_names() {
        let filter = vec!["due".to_string(), "blocked-by".to_string()];
        assert!(field_selected(Some(&filter), "Due date"));
        assert!(field_selected(Some(&filter), "Blocked by"));
        assert!(!field_selected(Some(&filter), "Duet"));
        assert!(!field_selected(Some(&[]), "Due"));
        assert!(field_selected(None, "anything"));
    }

    #[test]
    fn custom_lenses_replace_and_extend() {
        let custom = vec![(
            "security".to_string(),
            LensConfig {
                description: None,
                follow: vec!["reference".into()],
                boost: vec!["Policy".into()],
                fields: None,
                max_depth: Some(1),
            },
        )];
        let lens = find_lens("security", &custom).unwrap();
        assert_eq!(lens.boost, vec!["policy"]);
        let bad = vec![(
            "x".to_string(),
            LensConfig {
                description: None,
                follow: vec!["sideways".into()],
                boost: vec![],
                fields: None,
                max_depth: None,
            },
        )];
        assert!(matches!(
            find_lens("x", &bad),
            Err(LensError::Family { .. })
        ));
    }
}
