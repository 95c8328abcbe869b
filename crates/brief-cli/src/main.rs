//! The `brief` command: a thin adapter over the `brief` library. Parsing arguments, printing
//! what the library returns, and mapping errors to exit codes is all that happens here.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use brief::command::{run_live, FrontEnd, Host};
use clap::{CommandFactory, Parser};

mod args;
mod man;
mod out;
mod progress;
mod session;
mod values;

use args::{Cli, Command};

fn main() -> ExitCode {
    // A bug must never show a user a Rust backtrace: one line and a plea to report it.
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".to_string());
        out::note(&format!("brief: internal error: {message} (this is a bug; please report it with the command you ran)"));
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return refused(&e),
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let root = cli.root.clone();
    // A refresh of a thousand files or more shows a progress bar, whichever command needs it
    // (a first `brief context` in a large repository indexes it), unless `brief index -q`; it
    // shows only on a terminal anyway.
    let quiet = match &cli.command {
        Command::Index(args) => args.quiet,
        _ => false,
    };
    let command = match cli.command {
        // Generated from the clap definition itself, so they never drift from the flags.
        Command::Completions(args) => {
            let mut command = Cli::command();
            let mut bytes = Vec::new();
            clap_complete::generate(args.shell, &mut command, "brief", &mut bytes);
            return out::finish(&bytes, 0);
        }
        Command::Man(args) => return man_pages(&args),
        #[cfg(feature = "mcp")]
        Command::Serve(args) => return serve(root, cwd, args),
        Command::Hook(args) => match hook(args) {
            Ok(command) => command,
            Err(why) => {
                // A hook never fails its host: a note, and nothing added.
                out::note(&why);
                return ExitCode::SUCCESS;
            }
        },
        other => other.into_command(),
    };
    let Some(command) = command else {
        return ExitCode::SUCCESS;
    };
    let mut bar = progress::Bar::new(quiet);
    // `brief watch` says what it does as it happens.
    let say: brief::command::Say =
        std::sync::Arc::new(|line: String| out::note(&format!("brief watch: {line}")));
    let outcome = run_live(
        &command,
        Host::Folder {
            root: root.as_deref(),
            cwd: &cwd,
        },
        FrontEnd::Cli,
        &mut |step| bar.update(step),
        say,
    );
    bar.finish();
    out::emit(&outcome)
}

/// What clap says for arguments it does not take, or for `--help` and `--version`: printed
/// with its own exit code, or exit 2 when the help cannot be written.
fn refused(error: &clap::Error) -> ExitCode {
    use std::io::IsTerminal;
    // Colours only for a person at a terminal (and not with NO_COLOR), as clap does itself.
    let colour = |terminal: bool| terminal && std::env::var_os("NO_COLOR").is_none();
    let styled = error.render();
    if error.use_stderr() {
        let text = if colour(std::io::stderr().is_terminal()) {
            styled.ansi().to_string()
        } else {
            styled.to_string()
        };
        out::note(text.trim_end());
        return ExitCode::from(2);
    }
    let text = if colour(std::io::stdout().is_terminal()) {
        styled.ansi().to_string()
    } else {
        styled.to_string()
    };
    out::finish(text.as_bytes(), 0)
}

/// `brief man`: one page to stdout, or every page into a folder.
fn man_pages(args: &args::ManArgs) -> ExitCode {
    let result = match &args.dir {
        Some(dir) => man::all(Cli::command(), dir)
            .map(|n| format!("wrote {n} man pages to {}\n", dir.display()).into_bytes()),
        None => man::one(Cli::command(), &args.command),
    };
    match (result, &args.dir) {
        (Ok(note), Some(_)) => {
            out::note(String::from_utf8_lossy(&note).trim_end());
            ExitCode::SUCCESS
        }
        (Ok(page), None) => out::finish(&page, 0),
        (Err(message), _) => {
            out::note(&message);
            ExitCode::from(2)
        }
    }
}

/// `brief hook`: the event on stdin, as the library's command.
fn hook(args: args::HookArgs) -> Result<Option<brief::command::Command>, String> {
    let mut event = String::new();
    std::io::stdin()
        .read_to_string(&mut event)
        .map_err(|e| format!("brief hook: cannot read the event on stdin: {e}"))?;
    Ok(Some(brief::command::Command::Hook(brief::command::Hook {
        event,
        time_limit: args.time_limit_ms.map(std::time::Duration::from_millis),
    })))
}

/// `brief serve`: hands over to the MCP server.
#[cfg(feature = "mcp")]
fn serve(root: Option<PathBuf>, cwd: PathBuf, args: args::ServeArgs) -> ExitCode {
    let options = brief_mcp::ServeOptions {
        root: root.clone(),
        cwd,
        http: args.http,
        allow_remote: args.allow_remote,
        allowed_origins: args.allowed_origins,
        watch: !args.no_watch,
        time_limit: args
            .time_limit
            .map_or(Some(brief_mcp::DEFAULT_TIME_LIMIT), |limit| limit.get()),
    };
    exited(brief_mcp::serve(options), root.as_deref())
}

/// An engine that would not open: what to do on stderr, and its exit code.
#[cfg(feature = "mcp")]
fn engine_failed(e: &brief::EngineError, root: Option<&std::path::Path>) -> ExitCode {
    for line in e.describe(root.unwrap_or(std::path::Path::new("."))) {
        out::note(&line);
    }
    ExitCode::from(e.exit_code())
}

/// How a long-running process ended, on stderr and as the exit code.
#[cfg(feature = "mcp")]
fn exited(result: Result<(), brief_mcp::ServeError>, root: Option<&std::path::Path>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(brief_mcp::ServeError::Engine(e)) => engine_failed(&e, root),
        Err(other) => {
            out::note(&format!("error: {other}"));
            ExitCode::from(2)
        }
    }
}

impl Command {
    /// The library command these arguments ask for (field mapping only); `None` for the
    /// commands the CLI answers itself from its clap definition.
    fn into_command(self) -> Option<brief::command::Command> {
        use brief::command::{Check, Command as Run};
        Some(match self {
            Command::Context(args) => Run::Context {
                request: args.request(),
                session: args.zone.session(),
            },
            Command::Show(args) => Run::Show {
                id: args.id,
                detail: args.detail,
                format: args.format,
                encoding: args.encoding,
            },
            Command::Search(args) => Run::Search {
                query: args.query,
                limit: args.limit,
                kind: args.kind,
                format: args.format.into(),
            },
            Command::Impact(args) => Run::Impact {
                request: brief::ContextRequest {
                    format: args.format,
                    ..args.scope.request()
                },
                ids: args.ids,
                since: args.since,
            },
            Command::Explain(args) => Run::Explain {
                request: brief::ContextRequest {
                    target: args.target,
                    format: args.format,
                    ..args.fit.apply(args.scope.request())
                },
                id: args.id,
            },
            Command::Diff(args) => Run::Diff {
                request: brief::ContextRequest {
                    target: args.target,
                    format: args.format,
                    ..args.fit.apply(args.scope.request())
                },
                from: args.from,
                to: args.to,
            },
            Command::Index(args) => Run::Index {
                files: args.files,
                quick: args.quick,
            },
            Command::Lenses => Run::Lenses,
            Command::Init(args) => Run::Init { write: args.write },
            Command::Check(args) => Run::Check(Check {
                format: args.format.into(),
                rules: args.rules,
                baseline: args.baseline.map(path_text),
                write_baseline: args.write_baseline.map(path_text),
                list_rules: args.list_rules,
                strict: args.strict,
            }),
            Command::Session(args) => Run::Session(args.command()),
            Command::Completions(_) | Command::Man(_) | Command::Hook(_) => return None,
            Command::Watch => Run::Watch,
            #[cfg(feature = "mcp")]
            Command::Serve(_) => return None,
        })
    }
}

fn path_text(path: PathBuf) -> String {
    path.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The everyday options and the one letter each has wherever it occurs.
    const SHORT: [(&str, char); 9] = [
        ("root", 'r'),
        ("budget", 'b'),
        ("depth", 'd'),
        ("detail", 'D'),
        ("format", 'f'),
        ("encoding", 'e'),
        ("limit", 'l'),
        ("kind", 'k'),
        ("quiet", 'q'),
    ];

    /// Every command with its path (`session package add`).
    fn commands(command: &clap::Command, path: String, into: &mut Vec<(String, clap::Command)>) {
        for sub in command.get_subcommands() {
            let path = format!("{path} {}", sub.get_name()).trim().to_string();
            into.push((path.clone(), sub.clone()));
            commands(sub, path, into);
        }
    }

    #[test]
    fn every_command_gives_an_option_the_same_short_flag() {
        let mut all = Vec::new();
        let mut root = Cli::command();
        root.build();
        commands(&root, String::new(), &mut all);
        let mut checked = 0;
        for (path, command) in &all {
            for arg in command.get_arguments() {
                let Some(long) = arg.get_long() else { continue };
                if let Some((_, letter)) = SHORT.iter().find(|(name, _)| *name == long) {
                    assert_eq!(
                        arg.get_short(),
                        Some(*letter),
                        "`brief {path} --{long}` should also be -{letter}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 30, "only {checked} options checked");
    }

    #[test]
    fn value_options_complete_their_values() {
        let mut root = Cli::command();
        root.build();
        let mut all = Vec::new();
        commands(&root, String::new(), &mut all);
        for (path, command) in &all {
            for arg in command.get_arguments() {
                let long = arg.get_long().unwrap_or("");
                if ["detail", "format", "encoding", "lens", "depth"].contains(&long) {
                    assert!(
                        !arg.get_possible_values().is_empty(),
                        "`brief {path} --{long}` completes no values"
                    );
                }
            }
        }
    }
}
