//! The commands that work on the project without the engine: `check` (which reports load
//! problems as findings, so it never goes through the engine that refuses them), `init`, and
//! the session store's commands.

use std::path::{Component, Path, PathBuf};

use super::{session_failure, Check, FrontEnd, Host, Outcome};
use crate::check::{Baseline, CheckOptions};
use crate::project::{Project, ProjectError};
use crate::render::Format;
use crate::session::commands::{self, Command as SessionCommand};

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

/// `brief check`: the report, exit 1 when it holds errors; or the rules; or a baseline
/// written.
pub(super) fn check(args: &Check, host: Host<'_>, front_end: FrontEnd) -> Outcome {
    if args.list_rules {
        return Outcome::text(crate::check::rules_table());
    }
    let project = match open(host) {
        Ok(project) => project,
        Err(failed) => return failed,
    };
    if project.sources.is_empty() {
        return usage(format!(
            "error: {} has no sources to check: add specgraph/graph.json, a .contextia/ tree, a .brief/ folder of Markdown artifacts, or list them in brief.toml",
            project.root.display()
        ));
    }
    let baseline = match &args.baseline {
        Some(path) => match named_file(&project.root, path, front_end)
            .and_then(|path| Baseline::read(&path).map_err(|e| usage(format!("error: {e}"))))
        {
            Ok(baseline) => Some(baseline),
            Err(failed) => return failed,
        },
        None => None,
    };
    let options = CheckOptions {
        rules: args.rules.clone(),
        baseline,
    };
    let report = match crate::check::run(&project, &options) {
        Ok(report) => report,
        Err(e) => return usage(format!("error: {e}")),
    };
    if let Some(path) = &args.write_baseline {
        let path = match named_file(&project.root, path, front_end) {
            Ok(path) => path,
            Err(failed) => return failed,
        };
        return write_baseline(&path, &Baseline::from_report(&report));
    }
    let text = if args.format == Format::Json {
        report.json()
    } else {
        report.text(&project.root)
    };
    Outcome {
        text,
        notes: embeddings_warning(&project).into_iter().collect(),
        exit: u8::from(report.errors() > 0),
        ..Outcome::default()
    }
}

/// `brief check`'s word on the embeddings endpoint: one warning when it is configured but
/// cannot give a vector (unreachable, a key's variable not set, a wrong answer).
fn embeddings_warning(project: &Project) -> Option<String> {
    let config = project.embeddings.as_ref()?;
    match crate::semantic::probe(config) {
        Ok(_) => None,
        Err(why) => Some(format!(
            "warning: the embeddings endpoint {} ({}) cannot be used: {why}; contexts are made from the graph and words",
            config.url, config.model
        )),
    }
}

fn write_baseline(path: &Path, baseline: &Baseline) -> Outcome {
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if let Err(e) = std::fs::create_dir_all(folder) {
            return usage(format!("error: cannot create {}: {e}", folder.display()));
        }
    }
    if let Err(e) = std::fs::write(path, baseline.to_json()) {
        return usage(format!("error: cannot write {}: {e}", path.display()));
    }
    Outcome {
        notes: vec![format!(
            "wrote {} finding{} to {}; `brief check --baseline {}` reports only new ones",
            baseline.len(),
            if baseline.len() == 1 { "" } else { "s" },
            path.display(),
            path.display()
        )],
        ..Outcome::default()
    }
}

/// A file the user names. On the command line it is theirs to name (from the working
/// directory); a client of the server names it relative to the root and never outside it.
fn named_file(root: &Path, path: &str, front_end: FrontEnd) -> Result<PathBuf, Outcome> {
    if front_end == FrontEnd::Cli {
        return Ok(PathBuf::from(path));
    }
    let relative = Path::new(path);
    let escapes = relative.is_absolute()
        || relative
            .components()
            .any(|c| matches!(c, Component::ParentDir));
    if escapes {
        return Err(usage(format!(
            "error: `{path}` is outside the project: name a file relative to its root"
        )));
    }
    Ok(root.join(relative))
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
    let plan = crate::init::plan(&project);
    if !write {
        return Outcome::text(plan.toml);
    }
    if let Err(e) = crate::init::write(&project.root, &plan.toml) {
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
pub(super) fn session(command: &SessionCommand, host: Host<'_>) -> Outcome {
    let project = match host {
        Host::Engine(engine) => engine.project.clone(),
        Host::Folder { root, cwd } => match session_project(root, cwd) {
            Ok(project) => project,
            Err(failed) => return failed,
        },
    };
    let now = match commands::now() {
        Ok(now) => now,
        Err(e) => return session_failure(None, e),
    };
    match commands::run(&project.root, &project.session, command, now) {
        Ok(outcome) => {
            let mut notes = outcome.notes;
            let exit = match outcome.nothing_found {
                Some(line) => {
                    notes.push(line);
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
        Err(e) => session_failure(Some(&project.root), e),
    }
}
