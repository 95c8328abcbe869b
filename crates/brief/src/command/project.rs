//! The commands that work on the project without the engine: `check` (which reports load
//! problems as findings, so it never goes through the engine that refuses them), `init`, and
//! the session store's commands.

use std::path::{Path, PathBuf};

use crate::root::NamedFrom;

use super::{session_failure, Check, FrontEnd, Host, Outcome};
use crate::check::{Baseline, CheckOptions, Gate};
use crate::project::{Project, ProjectError};
use brief_engine::Format;
use brief_session::{self as session, Command as SessionCommand};

/// The host's project: the engine's, or the one found from the folder.
fn open(host: Host<'_>) -> Result<Project, Outcome> {
    match host {
        Host::Engine(engine) => Ok(engine.project.clone()),
        Host::Folder { root, cwd } => Project::open(root, cwd).map_err(project_failure),
    }
}

fn project_failure(e: ProjectError) -> Outcome {
    Outcome::failure(2, vec![format!("error: {e}")])
}

fn usage(line: String) -> Outcome {
    Outcome::failure(2, vec![line])
}

/// `brief check`: the report, exit 1 when it holds errors (with `--strict`, any finding);
/// or the rules; or a baseline written.
pub(super) fn check(args: &Check, host: Host<'_>, front_end: FrontEnd) -> Outcome {
    if args.list_rules {
        return Outcome::text(crate::check::rules_table());
    }
    let host_cwd = match &host {
        Host::Folder { cwd, .. } => Some(cwd.to_path_buf()),
        Host::Engine(_) => None,
    };
    let project = match open(host) {
        Ok(project) => project,
        Err(failed) => return failed,
    };
    if project.sources.is_empty() {
        return usage(format!(
            "error: {} has no sources to check: add specgraph/graph.json, a .contextia/ tree or a .brief/ folder of Markdown artifacts, or name the sources in brief.toml (specgraph = \"specgraph\", contextia = \".contextia\", artifacts = [\"docs/decisions\"], tana = \"export.json\", markdown = true); `brief init` proposes one",
            project.root.display()
        ));
    }
    let named_from = match (&host_cwd, front_end) {
        (Some(cwd), FrontEnd::Cli) => NamedFrom::Folder(cwd),
        _ => NamedFrom::Root,
    };
    let baseline = match &args.baseline {
        Some(path) => match named_file(&project, path, named_from).and_then(|rel| {
            Baseline::read(&project.guard, &rel, path).map_err(|e| usage(format!("error: {e}")))
        }) {
            Ok(baseline) => Some(baseline),
            Err(failed) => return failed,
        },
        None => None,
    };
    let options = CheckOptions {
        rules: args.rules.clone(),
        baseline,
        gate: if args.strict {
            Gate::Everything
        } else {
            Gate::Errors
        },
    };
    let report = match crate::check::run(&project, &options) {
        Ok(report) => report,
        Err(e) => return usage(format!("error: {e}")),
    };
    if let Some(path) = &args.write_baseline {
        let rel = match named_file(&project, path, named_from) {
            Ok(rel) => rel,
            Err(failed) => return failed,
        };
        return write_baseline(&project, &rel, path, &Baseline::from_report(&report));
    }
    let text = if args.format == Format::Json {
        report.json()
    } else {
        report.text(&project.root)
    };
    Outcome {
        text,
        notes: embeddings_warning(&project).into_iter().collect(),
        exit: u8::from(report.failed()),
        ..Outcome::default()
    }
}

/// `brief check`'s word on the embeddings endpoint: one warning when it is configured but
/// cannot give a vector (unreachable, a key's variable not set, a wrong answer).
fn embeddings_warning(project: &Project) -> Option<String> {
    let config = project.embeddings.as_ref()?;
    match brief_engine::probe(config) {
        Ok(_) => None,
        Err(why) => Some(format!(
            "warning: the embeddings endpoint {} ({}) cannot be used: {why}; contexts are made from the graph and words",
            config.url, config.model
        )),
    }
}

fn write_baseline(project: &Project, rel: &Path, shown: &str, baseline: &Baseline) -> Outcome {
    if let Err(e) = baseline.write(&project.guard, rel, shown) {
        return usage(format!("error: {e}"));
    }
    Outcome {
        notes: vec![format!(
            "wrote {} finding{} to {shown}; `brief check --baseline {shown}` reports only new ones",
            baseline.len(),
            if baseline.len() == 1 { "" } else { "s" },
        )],
        ..Outcome::default()
    }
}

/// A file the user names, as a path beneath the project root. On the command line it is
/// named from the working folder; a client of the server names it relative to the root.
/// Either way it must lie inside the root: brief reads and writes nothing outside it.
fn named_file(project: &Project, path: &str, from: NamedFrom<'_>) -> Result<PathBuf, Outcome> {
    project.guard.named(Path::new(path), from).map_err(|_| {
        usage(match from {
            NamedFrom::Root => {
                format!("error: `{path}` is outside the project: name a file relative to its root")
            }
            NamedFrom::Folder(_) => format!(
                "error: `{path}` is outside the project root {}: brief reads and writes only \
                 files inside it",
                project.root.display()
            ),
        })
    })
}

/// `brief init`: the configuration discovery would use, printed or written. A folder where
/// nothing is found is its own root (the proposal then lists no sources).
pub(super) fn init(write: bool, host: Host<'_>) -> Outcome {
    let project = match host {
        Host::Engine(engine) => Ok(engine.project.clone()),
        Host::Folder { root, cwd } => match Project::open(root, cwd) {
            Err(ProjectError::NotFound(_)) => Project::at(Path::new(".")),
            other => other,
        },
    };
    let project = match project {
        Ok(project) => project,
        Err(e) => return project_failure(e),
    };
    let plan = brief_project::init_plan(&project);
    if !write {
        return Outcome::text(plan.toml);
    }
    if let Err(e) = brief_project::init_write(&project.root, &plan.toml) {
        return usage(format!("error: {e}"));
    }
    let mut text = format!("wrote {}\n", project.root.join("brief.toml").display());
    for line in &plan.found {
        text.push_str(&format!("  {line}\n"));
    }
    Outcome::text(text)
}

/// The project a session store belongs to. A repository with no brief sources yet can
/// still keep sessions: the store goes into ./.brief/, which makes the current directory
/// the project from then on.
pub(super) fn session_project(root: Option<&Path>, cwd: &Path) -> Result<Project, Outcome> {
    match Project::open(root, cwd) {
        Err(ProjectError::NotFound(_)) if root.is_none() => Project::at(Path::new(".")),
        other => other,
    }
    .map_err(project_failure)
}

/// `brief session …`: the store's commands; "nothing found" prints its text, then fails 1.
pub(super) fn session(command: &SessionCommand, host: Host<'_>, front_end: FrontEnd) -> Outcome {
    let project = match host {
        Host::Engine(engine) => engine.project.clone(),
        Host::Folder { root, cwd } => match session_project(root, cwd) {
            Ok(project) => project,
            Err(failed) => return failed,
        },
    };
    let now = match session::now() {
        Ok(now) => now,
        Err(e) => return session_failure(None, e, front_end),
    };
    match session::run(&project.root, &project.session, command, now) {
        Ok(outcome) => {
            let mut notes = outcome.notes;
            let exit = match outcome.nothing_found {
                Some(line) => {
                    notes.push(line.to(front_end));
                    1
                }
                None => 0,
            };
            Outcome {
                text: outcome.text,
                notes,
                exit,
                ..Outcome::default()
            }
        }
        Err(e) => session_failure(Some(&project.root), e, front_end),
    }
}
