//! The one command API: every `brief` subcommand and every MCP tool is a [`Command`], run by
//! [`run`] into an [`Outcome`] — the text for stdout, the notes for stderr and the exit code.
//! The CLI and the MCP server only turn their input into a `Command` and print the `Outcome`,
//! so the two cannot diverge; the exit codes are those of `docs/cli.md`.

mod graph;
mod hook;
mod project;

use std::path::Path;

use crate::model::Detail;
use crate::tokens::Encoding;
use brief_engine::ContextRequest;
use brief_engine::Format;
use brief_engine::{Engine, EngineError};
use brief_session::Command as SessionCommand;
use brief_session::SessionError;

pub use brief_check::{severity_name, RULES};
pub use brief_engine::{FrontEnd, Param, Said};
pub use hook::{Hook, DEFAULT_BUDGET as HOOK_BUDGET, DEFAULT_TIME_LIMIT as HOOK_TIME_LIMIT};

/// One command with its arguments, already parsed.
#[derive(Debug, Clone)]
pub enum Command {
    /// `brief context` / the `context` tool; with `session`, the token-zone document.
    Context {
        /// The target and the context settings.
        request: ContextRequest,
        /// The session part (`--session`), which makes it a zone document.
        session: Option<SessionContext>,
    },
    /// `brief show` / `show`.
    Show {
        /// The node's id.
        id: String,
        /// How much of it to show.
        detail: Detail,
        /// How the answer is written.
        format: Format,
        /// The tokenizer its count is given in; `None`: the project's.
        encoding: Option<Encoding>,
    },
    /// `brief search` / `search`: `format` is text or JSON.
    Search {
        /// The words searched for.
        query: String,
        /// Most hits.
        limit: usize,
        /// Only nodes of this kind.
        kind: Option<String>,
        /// Text or JSON.
        format: Format,
    },
    /// `brief check` / `check`.
    Check(Check),
    /// `brief impact` (ids, or every changed target `since` a revision) / `impact`.
    Impact {
        /// The nodes whose readers are asked for.
        ids: Vec<String>,
        /// Instead of `ids`: the nodes changed since this revision.
        since: Option<String>,
        /// The context settings the targets' contexts are made with.
        request: ContextRequest,
    },
    /// `brief explain ID --for TARGET` / `explain`: the target is in `request`.
    Explain {
        /// The node asked about.
        id: String,
        /// The target and the context settings.
        request: ContextRequest,
    },
    /// `brief diff TARGET --from REV [--to REV]` / `diff`.
    Diff {
        /// The target and the context settings.
        request: ContextRequest,
        /// The old revision.
        from: String,
        /// The new revision; `None`: the working tree.
        to: Option<String>,
    },
    /// `brief index [FILE…]` (no MCP twin: the server's watcher refreshes).
    Index {
        /// Only these files, read again whatever their stamps (empty: every file).
        files: Vec<String>,
        /// Check the folders and manifests only (`--quick`).
        quick: bool,
    },
    /// `brief lenses` / `lenses`.
    Lenses,
    /// `brief init [--write]` (no MCP twin: a server serves a project that exists).
    Init {
        /// Write the proposed `brief.toml` (otherwise it is printed).
        write: bool,
    },
    /// `brief session …` / the `session_*` tools.
    Session(SessionCommand),
    /// `brief hook` (no MCP twin: an agent host runs it on its events): the context to add
    /// for a hook event.
    Hook(Hook),
    /// `brief watch` (no MCP twin: a server watches its own project): keeps the index
    /// current and vouches for it until stopped, saying what it does to [`run_live`]'s `say`.
    Watch,
}

/// `brief check`'s arguments.
#[derive(Debug, Clone, Default)]
pub struct Check {
    /// Text or JSON.
    pub format: Format,
    /// Only these rules (empty: all).
    pub rules: Vec<String>,
    /// A baseline whose findings are hidden. The CLI names it from its working directory;
    /// the MCP server from the project root, and never outside it.
    pub baseline: Option<String>,
    /// Write the findings to this baseline file instead of reporting them.
    pub write_baseline: Option<String>,
    /// Print the rules and stop.
    pub list_rules: bool,
    /// Fail (exit 1) on warnings too, not only on errors.
    pub strict: bool,
}

/// The session part of a context command (`--session` and its companions); its `task`
/// defaults to the request's target.
pub use brief_session::SessionPart as SessionContext;

/// What a command produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    /// For stdout (the MCP tool's text).
    pub text: String,
    /// For stderr, in order: warnings, notes, and on failure the error lines (the MCP
    /// server returns these lines as the tool error).
    pub notes: Vec<String>,
    /// Only worth saying to a person at a terminal (the CLI prints them when stderr is one).
    pub terminal_notes: Vec<String>,
    /// The exit code: 0 ok, 1 nothing found, 2 bad usage or unreadable input.
    pub exit: u8,
}

impl Outcome {
    fn text(text: String) -> Outcome {
        Outcome {
            text,
            ..Outcome::default()
        }
    }

    /// A failure: its exit code and the lines that say why.
    pub fn failure(exit: u8, lines: Vec<String>) -> Outcome {
        Outcome {
            notes: lines,
            exit,
            ..Outcome::default()
        }
    }

    /// The lines a caller that answers with either a result or an error (the MCP server)
    /// returns as the error: `None` on success, and for a report that found problems
    /// (`check` exits 1 with its findings on stdout and nothing to add).
    pub fn error_lines(&self) -> Option<&[String]> {
        (self.exit != 0 && !self.notes.is_empty()).then_some(self.notes.as_slice())
    }

    /// Whether the command succeeded.
    pub fn is_success(&self) -> bool {
        self.exit == 0
    }
}

/// Where a command runs: a project not opened yet (the CLI: each command opens what it
/// needs), or an engine already open (the MCP server keeps one).
pub enum Host<'a> {
    /// `root` as given by `--root`, else discovery from `cwd`.
    Folder {
        /// `--root`, when given.
        root: Option<&'a Path>,
        /// The folder discovery starts from.
        cwd: &'a Path,
    },
    /// An open engine.
    Engine(&'a mut Engine),
}

/// Reports progress of a long refresh: files parsed, or a Tana export's nodes written.
pub(crate) type Progress<'a> = &'a mut dyn FnMut(brief_index::Step);

/// Where a long-running command (`brief watch`) says what it does, one line at a time, from
/// any thread, while it runs.
pub use brief_watch::Say;

/// Runs `command` for `front_end`.
pub fn run(command: &Command, host: Host<'_>, front_end: FrontEnd) -> Outcome {
    run_with(command, host, front_end, &mut |_| {})
}

/// [`run`], reporting the progress of `index` to `progress` (what `watch` says while it
/// runs is dropped: [`run_live`] hears it).
pub(crate) fn run_with(
    command: &Command,
    host: Host<'_>,
    front_end: FrontEnd,
    progress: Progress<'_>,
) -> Outcome {
    run_live(
        command,
        host,
        front_end,
        progress,
        std::sync::Arc::new(|_: String| {}),
    )
}

/// [`run_with`], with what a long-running command says while it runs going to `say`.
pub fn run_live(
    command: &Command,
    host: Host<'_>,
    front_end: FrontEnd,
    progress: Progress<'_>,
    say: Say,
) -> Outcome {
    let outcome = match command {
        Command::Watch => match host {
            Host::Folder { root, cwd } => watch(root, cwd, say, front_end),
            // A server keeps its own project current.
            Host::Engine(_) => Outcome::default(),
        },
        Command::Check(check) => project::check(check, host, front_end),
        Command::Init { write } => project::init(*write, host),
        Command::Session(session) => project::session(session, host, front_end),
        Command::Hook(event) => match host {
            Host::Folder { root, cwd } => hook::run(event, root, cwd),
            // A server has no hook events to answer.
            Host::Engine(_) => Outcome::default(),
        },
        Command::Context {
            request,
            session: Some(session),
        } => graph::session_context(request, session, host, front_end),
        _ => graph::run(command, host, progress, front_end),
    };
    for_front_end(outcome, front_end)
}

/// What a front end is told: an MCP client is no terminal, so it gets no terminal notes.
fn for_front_end(mut outcome: Outcome, front_end: FrontEnd) -> Outcome {
    if front_end == FrontEnd::Mcp {
        outcome.terminal_notes.clear();
    }
    outcome
}

/// `text` safe to show on a terminal: control characters other than newline and tab
/// (the escape that starts a terminal sequence among them) are written out as `\xHH` or
/// `\u{HH}`, so a title or a message that holds one cannot retitle or repaint the terminal.
/// The front ends print notes through it always, and documents when they go to a terminal.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !unsafe_char(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    std::borrow::Cow::Owned(out)
}

/// An engine error as an outcome: its exit code and lines (`path:line:col` for file problems,
/// paths as `root` gives them; parameters as `front_end` names them).
fn engine_failure(root: &Path, error: EngineError, front_end: FrontEnd) -> Outcome {
    Outcome::failure(error.exit_code(), error.describe_to(root, front_end))
}

/// `brief watch`: runs until stopped; how it ended, as an outcome (an engine that would
/// not open reads as any command's).
fn watch(root: Option<&Path>, cwd: &Path, say: Say, front_end: FrontEnd) -> Outcome {
    let options = brief_watch::WatchOptions {
        root: root.map(Path::to_path_buf),
        cwd: cwd.to_path_buf(),
    };
    match brief_watch::watch(options, say) {
        Ok(()) => Outcome::default(),
        Err(brief_watch::WatchError::Engine(e)) => {
            engine_failure(root.unwrap_or(Path::new(".")), e, front_end)
        }
        Err(other) => Outcome::failure(2, vec![format!("error: {other}")]),
    }
}

/// A session error as an outcome; a graph error inside it reads as the engine's own
/// (`path:line:col` lines for file problems), never as a count of problems.
fn session_failure(root: Option<&Path>, error: SessionError, front_end: FrontEnd) -> Outcome {
    match error {
        SessionError::Engine(e) => engine_failure(root.unwrap_or(Path::new(".")), e, front_end),
        SessionError::Usage(ref said) | SessionError::NotFound(ref said) => Outcome::failure(
            error.exit_code(),
            vec![format!("error: {}", said.to(front_end))],
        ),
        other => Outcome::failure(other.exit_code(), vec![format!("error: {other}")]),
    }
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn terminal_sequences_are_written_out() {
        assert_eq!(printable("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            printable("\u{1b}]0;owned\u{7}title\u{1b}[2J"),
            "\\x1b]0;owned\\x07title\\x1b[2J"
        );
        assert_eq!(printable("a\u{9b}31mb\rc"), "a\\u{9b}31mb\\x0dc");
    }
}
