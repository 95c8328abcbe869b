//! The session commands as one call each — what `brief session …` and the MCP server's
//! session tools both run, so they print the same bytes and fail the same way.

use brief_engine::{Param, Said};
use std::path::Path;

use super::packages::{check_file, Prepared};
use super::redact::Secrets;
use super::render::{self, Output};
use super::{
    ConsumeRequest, ErrorRecord, ListRequest, Location, Mode, NewPackage, SessionConfig,
    SessionError, Store,
};

/// One session command with its arguments.
#[derive(Debug, Clone)]
pub enum Command {
    /// `brief session package add`: store a package.
    PackageAdd {
        /// The package.
        package: NewPackage,
        /// Text or JSON.
        format: Output,
    },
    /// `brief session package list`: the packages an agent should read, ranked.
    PackageList {
        /// Whose packages, and how many.
        request: ListRequest,
        /// Text or JSON.
        format: Output,
        /// What is printed of secrets.
        secrets: Secrets,
    },
    /// `brief session package consume`: record that an agent read a package.
    PackageConsume {
        /// Which package, by whom, in which iteration.
        request: ConsumeRequest,
        /// Text or JSON.
        format: Output,
    },
    /// `brief session error record`: store an error and its solution.
    ErrorRecord {
        /// The error, its solution and project.
        record: ErrorRecord,
        /// Text or JSON.
        format: Output,
        /// What the printed pattern shows of secrets (the stored one is always redacted).
        secrets: Secrets,
    },
    /// `brief session error feedback`: whether a stored solution helped.
    ErrorFeedback {
        /// The pattern's project.
        project: String,
        /// The pattern's signature hash.
        hash: String,
        /// Whether it helped (raises its confidence) or not (lowers it).
        helped: bool,
        /// Text or JSON.
        format: Output,
    },
    /// `brief session error match`: stored solutions for an error message.
    ErrorMatch {
        /// The project whose patterns are searched.
        project: String,
        /// The error message as the agent met it.
        message: String,
        /// Most answers.
        limit: usize,
        /// Text or JSON.
        format: Output,
        /// What is printed of secrets.
        secrets: Secrets,
    },
    /// `brief session prune`: delete old packages, empty sessions and stale error patterns.
    Prune {
        /// The age in days past which they go.
        older_than_days: i64,
        /// Text or JSON.
        format: Output,
    },
    /// Copies every row of one store into another, empty one (`--from`, `--to`: a SQLite
    /// file or a PostgreSQL URL), verified by counts.
    Migrate {
        /// The store copied from.
        from: String,
        /// The empty store copied into.
        to: String,
        /// Text or JSON.
        format: Output,
    },
}

/// What a command produced: the text for stdout, notes for stderr, and — when it found
/// nothing — the exit code and message the CLI ends with (the text is printed first).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// What to print on stdout.
    pub text: String,
    /// Lines for stderr (`note: …`).
    pub notes: Vec<String>,
    /// When the command found nothing: what the CLI ends with (exit 2).
    pub nothing_found: Option<Said>,
}

impl Outcome {
    fn text(text: String) -> Outcome {
        Outcome {
            text,
            notes: Vec::new(),
            nothing_found: None,
        }
    }
}

fn redaction_note(kinds: &[&str]) -> Vec<String> {
    if kinds.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "note: redacted before storing: {}",
            kinds.join(", ")
        )]
    }
}

/// Runs `command` on the project's store (`.brief/sessions.db` under `root`, or the
/// PostgreSQL database `BRIEF_SESSION_URL` or `[session] url` names) at time `now` (Unix
/// seconds).
pub fn run(
    root: &Path,
    config: &SessionConfig,
    command: &Command,
    now: i64,
) -> Result<Outcome, SessionError> {
    let open = |mode| Store::connect(&Location::for_project(root, config)?, mode);
    Ok(match command {
        Command::PackageAdd { package, format } => {
            let prepared = Prepared::new(package)?;
            check_file(root, prepared.file())?;
            let added = prepared.store(&mut open(Mode::Create)?, now)?;
            Outcome {
                text: render::added(&added, *format),
                notes: redaction_note(&added.redacted),
                nothing_found: None,
            }
        }
        Command::PackageList {
            request,
            format,
            secrets,
        } => {
            let listing = super::package_list(&mut open(Mode::Read)?, request, config, now)?;
            Outcome {
                text: render::listing(&listing, *format, *secrets),
                notes: Vec::new(),
                nothing_found: (listing.total_available == 0).then(|| nothing_left(&listing)),
            }
        }
        Command::PackageConsume { request, format } => {
            let consumed = super::package_consume(&mut open(Mode::Existing)?, request, now)?;
            Outcome::text(render::consumed(&consumed, *format))
        }
        Command::ErrorRecord {
            record,
            format,
            secrets,
        } => {
            let recorded = super::error_record(&mut open(Mode::Create)?, record, now)?;
            Outcome {
                text: render::recorded(&recorded, *format, *secrets),
                notes: redaction_note(&recorded.redacted),
                nothing_found: None,
            }
        }
        Command::ErrorFeedback {
            project,
            hash,
            helped,
            format,
        } => {
            let f = super::error_feedback(&mut open(Mode::Existing)?, project, hash, *helped, now)?;
            Outcome::text(render::feedback(&f, *format))
        }
        Command::ErrorMatch {
            project,
            message,
            limit,
            format,
            secrets,
        } => {
            let found = super::error_match(&mut open(Mode::Read)?, project, message, *limit, now)?;
            matched(project, &found, *format, *secrets)
        }
        Command::Migrate { from, to, format } => {
            let copied = super::copy_store(&Location::named(from)?, &Location::named(to)?)?;
            Outcome::text(render::migrated(&copied, *format))
        }
        Command::Prune {
            older_than_days,
            format,
        } => {
            let pruned = match open(Mode::Existing) {
                Ok(mut store) => super::prune(&mut store, *older_than_days, now)?,
                // Nothing stored yet, so nothing to prune.
                Err(SessionError::Missing(_)) => super::Pruned {
                    packages: 0,
                    sessions: 0,
                    error_patterns: 0,
                },
                Err(e) => return Err(e),
            };
            Outcome::text(render::pruned(&pruned, *format))
        }
    })
}

/// What `error match` prints, or "nothing found".
fn matched(
    project: &str,
    found: &[super::ErrorMatch],
    format: Output,
    secrets: Secrets,
) -> Outcome {
    if !found.is_empty() {
        return Outcome::text(render::matches(found, format, secrets));
    }
    Outcome {
        text: if format == Output::Json {
            "[]\n".into()
        } else {
            String::new()
        },
        notes: Vec::new(),
        nothing_found: Some(format!("no known error pattern in project {project} matches").into()),
    }
}

/// Why a listing is empty: nothing for the agent yet, or everything already read.
fn nothing_left(listing: &super::Listing) -> Said {
    if listing.consumed > 0 {
        Said::new()
            .text(format!(
                "no packages left for {} in session {}: {} consumed in iteration {} (`",
                listing.agent,
                listing.session,
                if listing.consumed == 1 {
                    "the one package was".to_string()
                } else {
                    format!("all {} packages were", listing.consumed)
                },
                listing.iteration,
            ))
            .param(Param::Iteration)
            .text(format!(
                " {}` lists {} again)",
                listing.iteration + 1,
                if listing.consumed == 1 { "it" } else { "them" }
            ))
    } else {
        format!(
            "no packages for {} in session {}",
            listing.agent, listing.session
        )
        .into()
    }
}

/// Now in Unix seconds: `BRIEF_NOW` when set (tests pin time with it), else the clock.
pub fn now() -> Result<i64, SessionError> {
    match std::env::var("BRIEF_NOW") {
        Ok(v) => v.trim().parse().map_err(|_| {
            SessionError::Usage(format!("BRIEF_NOW=`{v}` must be Unix seconds").into())
        }),
        Err(_) => Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0)),
    }
}
