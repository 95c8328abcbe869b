//! The commands that read the graph through an [`Engine`]: context (with the session
//! context), show, search, impact, explain, diff, index and lenses.

use std::path::Path;

use super::{
    engine_failure, session_failure, Command, FrontEnd, Host, Outcome, Param, Progress, Said,
    SessionContext,
};
use brief_engine::ContextRequest;
use brief_engine::Format;
use brief_engine::{located, Engine, EngineError};
use brief_session::{self as session, ZoneRequest};

/// The most context warnings given one per line; the rest are counted (a node may link to a
/// hundred thousand missing ids, and `brief check` lists every one).
const MAX_WARNINGS: usize = 20;

/// Runs a graph command on the host's engine, opening one when the host is a folder.
pub(super) fn run(
    command: &Command,
    host: Host<'_>,
    progress: Progress<'_>,
    front_end: FrontEnd,
) -> Outcome {
    let mut opened;
    let engine = match host {
        Host::Engine(engine) => engine,
        Host::Folder { root, cwd } => match Engine::open(root, cwd) {
            Ok(engine) => {
                opened = engine;
                // A process of one command: a running `brief watch` may vouch for the index.
                opened.consult_watcher();
                if refreshes_first(command) {
                    opened.refresh_ahead(progress);
                }
                &mut opened
            }
            Err(e) => return engine_failure(Path::new("."), e, front_end),
        },
    };
    let root = engine.project.root.clone();
    let mut outcome = match on_engine(engine, command, progress, front_end) {
        Ok(outcome) => outcome,
        Err((notes, e)) => {
            let mut failed = engine_failure(&root, e, front_end);
            failed.notes.splice(0..0, notes);
            failed
        }
    };
    // Said once, whatever the command's outcome, before any error lines.
    let notices: Vec<String> = engine
        .notices()
        .into_iter()
        .map(|n| format!("note: {n}"))
        .collect();
    let at = if outcome.is_success() {
        outcome.notes.len()
    } else {
        outcome
            .notes
            .iter()
            .position(|l| !l.starts_with("warning: "))
            .unwrap_or(outcome.notes.len())
    };
    outcome.notes.splice(at..at, notices);
    outcome
}

/// Whether a command starts from an index brought up to date (a refresh its caller may
/// show the progress of; `index` reports its own). `impact --since` reads revisions, not
/// the working tree's index, and `impact` without ids is a usage error.
fn refreshes_first(command: &Command) -> bool {
    match command {
        Command::Context { .. } | Command::Show { .. } | Command::Search { .. } => true,
        Command::Explain { .. } => true,
        Command::Impact { ids, since, .. } => since.is_none() && !ids.is_empty(),
        _ => false,
    }
}

/// A failure with the warnings given before it.
type Failed = (Vec<String>, EngineError);

fn on_engine(
    engine: &mut Engine,
    command: &Command,
    progress: Progress<'_>,
    front_end: FrontEnd,
) -> Result<Outcome, Failed> {
    let plain = |e: EngineError| (Vec::new(), e);
    let root = engine.project.root.clone();
    Ok(match command {
        Command::Context { request, .. } => {
            let out = engine.context(request).map_err(plain)?;
            let mut outcome = Outcome::text(out.text);
            outcome.notes = warnings(&root, &out.warnings);
            outcome
                .notes
                .extend(out.notes.iter().map(|note| note.to(front_end)));
            if out.omitted > 0 {
                outcome.terminal_notes.push(format!(
                    "note: {} node{} did not fit {} tokens (used {}); raise --budget or see --format json",
                    out.omitted,
                    if out.omitted == 1 { "" } else { "s" },
                    out.budget,
                    out.used
                ));
            }
            outcome
        }
        Command::Show {
            id,
            detail,
            format,
            encoding,
        } => {
            let mut outcome = Outcome::text(
                engine
                    .show(id, *detail, *format, *encoding)
                    .map_err(plain)?,
            );
            if let Some(note) = engine.page_part_note(id).map_err(plain)? {
                outcome.notes.push(note.to(front_end));
            }
            outcome
        }
        Command::Search {
            query,
            limit,
            kind,
            format,
        } => {
            let searched = engine
                .search(query, *limit, kind.as_deref())
                .map_err(plain)?;
            let hits = searched.hits;
            if hits.is_empty() {
                let why = match (searched.miss, kind) {
                    (Some(weakness), _) => {
                        format!("no match for `{query}`: {}", weakness.describe())
                    }
                    (None, Some(kind)) => format!(
                        "no node of kind `{kind}` matches `{query}` (other kinds do: drop --kind to see them)"
                    ),
                    (None, None) => format!("no match for `{query}`"),
                };
                return Ok(Outcome::failure(1, vec![why]));
            }
            let format = if *format == Format::Json {
                Format::Json
            } else {
                Format::Text
            };
            Outcome::text(brief_engine::search_hits(&hits, format))
        }
        Command::Impact {
            ids,
            since,
            request,
        } => Outcome::text(
            match since {
                Some(rev) => engine.since(request, rev),
                None if ids.is_empty() => Err(EngineError::Usage(
                    Said::new()
                        .text("impact needs node ids, or ")
                        .param(Param::Since)
                        .text(
                            " REV: the nodes whose impact to list, or a git revision to list \
                             every target whose context changed since then",
                        ),
                )),
                None => engine.impact(ids, request),
            }
            .map_err(plain)?,
        ),
        Command::Explain { id, request } => {
            Outcome::text(engine.explain(id, request).map_err(plain)?)
        }
        Command::Diff { request, from, to } => {
            Outcome::text(engine.diff(request, from, to.as_deref()).map_err(plain)?)
        }
        Command::Lenses => match brief_model::all_lenses(&engine.project.defaults.lenses) {
            Ok(lenses) => Outcome::text(lenses.iter().map(|l| format!("{l}\n")).collect()),
            Err(e) => Outcome::failure(2, vec![format!("error: {e}")]),
        },
        Command::Index { files, quick } => index(engine, files, *quick, progress)?,
        // Run by the project commands.
        Command::Check(_)
        | Command::Init { .. }
        | Command::Session(_)
        | Command::Hook(_)
        | Command::Watch => Outcome::default(),
    })
}

/// `brief index`: refresh everything (or the named files), then report a malformed file.
fn index(
    engine: &mut Engine,
    files: &[String],
    quick: bool,
    progress: Progress<'_>,
) -> Result<Outcome, Failed> {
    let mut notes = Vec::new();
    let refresh = if files.is_empty() {
        let verify = if quick {
            crate::index::Verify::Quick
        } else {
            crate::index::Verify::Full
        };
        engine.refresh(Some(verify), progress)
    } else {
        let named = engine.named_paths(files).map_err(|e| (Vec::new(), e))?;
        for missing in &named.missing {
            notes.push(format!(
                "warning: {missing}: no such file beneath the root; dropped from the index if it was in it"
            ));
        }
        engine.refresh_paths(&named.files)
    };
    let refresh = match refresh {
        Ok(refresh) => refresh,
        Err(e) => return Err((notes, e)),
    };
    // Indexed as far as it goes; a malformed file is still reported and fails.
    if let Err(e) = engine.ensure_loadable() {
        return Err((notes, e));
    }
    let embedded = match engine.embed(progress) {
        Ok(embedded) => embedded,
        Err(e) => return Err((notes, e)),
    };
    let mut text = format!(
        "{} file{} in {} ({} parsed, {} unchanged after hashing, {} removed{}{})\n",
        refresh.files,
        if refresh.files == 1 { "" } else { "s" },
        engine.index().location(),
        refresh.parsed,
        refresh.unchanged_content,
        refresh.removed,
        if refresh.created { ", created" } else { "" },
        if refresh.tana_nodes > 0 {
            format!(", {} Tana nodes written", refresh.tana_nodes)
        } else {
            String::new()
        }
    );
    if let Some(embedded) = embedded {
        let model = engine
            .project
            .embeddings
            .as_ref()
            .map(|e| e.model.as_str())
            .unwrap_or_default();
        embedding_report(&mut text, &mut notes, model, embedded);
    }
    Ok(Outcome {
        text,
        notes,
        ..Outcome::default()
    })
}

/// What `brief index` says of its embedding pass: a line of the report, and a warning when
/// the endpoint could not be used (the index is whole either way: never an error).
fn embedding_report(
    text: &mut String,
    notes: &mut Vec<String>,
    model: &str,
    embedded: Result<crate::index::Embedded, String>,
) {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    match embedded {
        Ok(done) => {
            text.push_str(&format!(
                "embeddings ({model}): {} embedded, {}\n",
                plural(done.embedded, "text", "texts"),
                match done.missing {
                    0 => "every node has its vector".to_string(),
                    n => format!("{} without a vector", plural(n, "node", "nodes")),
                }
            ));
            if let Some(failure) = done.failure {
                notes.push(format!(
                    "warning: embeddings unavailable: {failure}; the next `brief index` embeds the rest"
                ));
            }
        }
        Err(why) => notes.push(format!("warning: embeddings unavailable: {why}")),
    }
}

/// Context warnings as lines, bounded.
fn warnings(root: &Path, warnings: &[String]) -> Vec<String> {
    let mut lines: Vec<String> = warnings
        .iter()
        .take(MAX_WARNINGS)
        .map(|w| format!("warning: {}", located(root, w)))
        .collect();
    if warnings.len() > MAX_WARNINGS {
        lines.push(format!(
            "warning: … and {} more missing links (`brief check` lists them all)",
            warnings.len() - MAX_WARNINGS
        ));
    }
    lines
}

/// `brief context --session …`: the token-zone document. The graph is opened only when a
/// task asks for its context; its errors read as those of `brief context TASK` do.
pub(super) fn session_context(
    request: &ContextRequest,
    part: &SessionContext,
    host: Host<'_>,
    front_end: FrontEnd,
) -> Outcome {
    let now = match session::now() {
        Ok(now) => now,
        Err(e) => return session_failure(None, e, front_end),
    };
    let task = part
        .task
        .clone()
        .or_else(|| (!request.target.is_empty()).then(|| request.target.clone()));
    let mut opened = None;
    let (engine, project) = match host {
        Host::Engine(engine) => {
            let project = engine.project.clone();
            (Some(engine), project)
        }
        Host::Folder { root, cwd } => {
            if task.is_some() {
                match Engine::open(root, cwd) {
                    Ok(mut engine) => {
                        engine.consult_watcher();
                        opened = Some(engine)
                    }
                    Err(e) => return engine_failure(Path::new("."), e, front_end),
                }
            }
            match &opened {
                Some(engine) => {
                    let project = engine.project.clone();
                    (opened.as_mut(), project)
                }
                None => match super::project::session_project(root, cwd) {
                    Ok(project) => (None, project),
                    Err(failed) => return failed,
                },
            }
        }
    };
    let zone = ZoneRequest {
        part: SessionContext {
            task,
            ..part.clone()
        },
        // The zone document's graph part is about the task; the target only names it.
        context: ContextRequest {
            target: String::new(),
            ..request.clone()
        },
    };
    let root = project.root.clone();
    match session::zone_context(&project, engine, &zone, now) {
        Ok(out) => Outcome {
            text: out.text,
            notes: out
                .warnings
                .iter()
                .map(|w| format!("warning: {w}"))
                .collect(),
            ..Outcome::default()
        },
        Err(e) => session_failure(Some(&root), e, front_end),
    }
}
