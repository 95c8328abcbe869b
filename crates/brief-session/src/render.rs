//! Text and JSON for every session result. Rendering redacts secrets again by default: the
//! store already holds redacted text, but rows written by other tools or older versions may
//! not, and output is where a leak would happen.

use serde::Serialize;

use super::migrate::Copied;
use super::packages::{Added, Consumed, Listing, Package};
use super::patterns::{ErrorMatch, Feedback, Pattern, Pruned, Recorded};
use super::redact::Secrets;
use brief_model::iso_utc;

/// Output format of the session subcommands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Output {
    /// Lines for people.
    #[default]
    Text,
    /// One JSON document.
    Json,
}

impl std::str::FromStr for Output {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "text" => Ok(Output::Text),
            "json" => Ok(Output::Json),
            other => Err(format!("unknown format `{other}`: use text or json")),
        }
    }
}

fn json<T: Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn scrub_package(p: &Package, secrets: Secrets) -> Package {
    Package {
        summary: secrets.apply(&p.summary),
        file_path: secrets.apply(&p.file_path),
        ..p.clone()
    }
}

fn scrub_pattern(p: &Pattern, secrets: Secrets) -> Pattern {
    Pattern {
        signature: secrets.apply(&p.signature),
        solution: secrets.apply(&p.solution),
        ..p.clone()
    }
}

/// `brief session package add`.
pub(crate) fn added(a: &Added, format: Output) -> String {
    match format {
        Output::Json => json(a),
        Output::Text => format!(
            "added package {} to session {} for {}\n",
            a.id,
            a.session,
            a.consumers.join(", ")
        ),
    }
}

/// `brief session package list`.
pub(crate) fn listing(l: &Listing, format: Output, secrets: Secrets) -> String {
    let scrubbed = Listing {
        packages: l
            .packages
            .iter()
            .map(|p| scrub_package(p, secrets))
            .collect(),
        ..l.clone()
    };
    if format == Output::Json {
        return json(&scrubbed);
    }
    let mut out = format!(
        "{} for {} in session {}{}: {} of {}",
        plural(scrubbed.packages.len(), "package", "packages"),
        l.agent,
        l.session,
        l.group
            .as_deref()
            .map(|g| format!(", group {g}"))
            .unwrap_or_default(),
        scrubbed.packages.len(),
        l.total_available
    );
    if l.overflow > 0 {
        out.push_str(&format!(
            " ({} more beyond --limit {})",
            l.overflow, l.limit
        ));
    }
    out.push('\n');
    for p in &scrubbed.packages {
        out.push_str(&format!(
            "#{} [{}] {} {} (from {}; for {}; {}{}; score {})\n    {}\n",
            p.id,
            p.priority.to_ascii_uppercase(),
            p.kind,
            p.file_path,
            p.producer,
            p.consumers.join(", "),
            p.group.as_deref().unwrap_or("global"),
            format_args!(", {}", iso_utc(p.created)),
            p.score,
            indent(&p.summary, "    ")
        ));
    }
    out
}

/// `text` with every line after the first indented by `prefix`, so a summary of several
/// lines stays under its package.
pub(crate) fn indent(text: &str, prefix: &str) -> String {
    text.replace('\n', &format!("\n{prefix}"))
}

/// `brief session package consume`.
pub(crate) fn consumed(c: &Consumed, format: Output) -> String {
    match format {
        Output::Json => json(c),
        Output::Text => {
            let mut s = if c.newly {
                format!(
                    "package {} consumed by {} in iteration {}\n",
                    c.id, c.agent, c.iteration
                )
            } else {
                format!(
                    "package {} was already consumed by {} in iteration {}\n",
                    c.id, c.agent, c.iteration
                )
            };
            if !c.designated {
                s.push_str(&format!(
                    "note: {} is not one of package {}'s designated consumers\n",
                    c.agent, c.id
                ));
            }
            s
        }
    }
}

fn pattern_lines(p: &Pattern) -> String {
    format!(
        "{} confidence {:.2}, seen {}{}\n    signature: {}\n    solution: {}\n",
        p.hash,
        p.confidence,
        plural(p.occurrences as usize, "time", "times"),
        p.lang
            .as_deref()
            .map(|l| format!(", {l}"))
            .unwrap_or_default(),
        p.signature,
        p.solution
    )
}

/// `brief session error record`.
pub(crate) fn recorded(r: &Recorded, format: Output, secrets: Secrets) -> String {
    let r = Recorded {
        pattern: scrub_pattern(&r.pattern, secrets),
        ..r.clone()
    };
    match format {
        Output::Json => json(&r),
        Output::Text => format!(
            "{} error pattern in project {}: {}",
            r.operation,
            r.pattern.project,
            pattern_lines(&r.pattern)
        ),
    }
}

/// `brief session error feedback`.
pub(crate) fn feedback(f: &Feedback, format: Output) -> String {
    match format {
        Output::Json => json(f),
        Output::Text => format!(
            "{}: confidence {:.2} -> {:.2}{}\n",
            f.hash,
            f.previous_confidence,
            f.confidence,
            if f.injectable {
                " (offered in session contexts)"
            } else {
                ""
            }
        ),
    }
}

/// `brief session error match`.
pub(crate) fn matches(found: &[ErrorMatch], format: Output, secrets: Secrets) -> String {
    let found: Vec<ErrorMatch> = found
        .iter()
        .map(|m| ErrorMatch {
            exact: m.exact,
            pattern: scrub_pattern(&m.pattern, secrets),
        })
        .collect();
    match format {
        Output::Json => json(&found),
        Output::Text => found
            .iter()
            .map(|m| {
                format!(
                    "{} {}",
                    if m.exact { "exact" } else { "similar" },
                    pattern_lines(&m.pattern)
                )
            })
            .collect(),
    }
}

/// `brief session prune`.
pub(crate) fn pruned(p: &Pruned, format: Output) -> String {
    match format {
        Output::Json => json(p),
        Output::Text => format!(
            "pruned {}, {} and {}\n",
            plural(p.packages, "package", "packages"),
            plural(p.sessions, "empty session", "empty sessions"),
            plural(p.error_patterns, "error pattern", "error patterns")
        ),
    }
}

/// `brief session migrate`.
pub(crate) fn migrated(c: &Copied, format: Output) -> String {
    match format {
        Output::Json => json(c),
        Output::Text => {
            let n = &c.counts;
            format!(
                "copied {} to {}: {}, {}, {}, {} and {} ({}); the counts of both match\n",
                c.from,
                c.to,
                plural(n.sessions as usize, "session", "sessions"),
                plural(n.packages as usize, "package", "packages"),
                plural(
                    n.consumers as usize,
                    "designated consumer",
                    "designated consumers"
                ),
                plural(n.consumptions as usize, "consumption", "consumptions"),
                plural(n.error_patterns as usize, "error pattern", "error patterns"),
                plural(n.error_terms as usize, "word posting", "word postings"),
            )
        }
    }
}
