//! The `brief` command: a thin adapter over the `brief` library. Parsing arguments, printing
//! what the library returns, and mapping errors to exit codes is all that happens here.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use brief::{Depth, Detail, Encoding, Format, Project};
use clap::{Parser, Subcommand};

const ABOUT: &str = "Assemble the context an AI agent needs before it works on one thing.";

const LONG_ABOUT: &str = "\
Assemble the context an AI agent needs before it works on one thing.

brief reads a project's knowledge graph — a Spec Graph (specgraph/graph.json), Markdown
artifacts with YAML frontmatter (.contextia/ or .brief/) — and returns one document with
every decision, policy and norm that applies to a target, found by following explicit links,
fitted exactly to a token budget, and explaining why each node is in it.";

const AFTER_HELP: &str = "\
Examples:
  brief context CHECKOUT-01                    Markdown context, default budget (4000 tokens)
  brief context CHECKOUT-01 --budget 1500      fit a smaller window; the rest degrades or is listed
  brief context TASK-002 --format json         the audit view: why each node is in, what was left out
  brief context CHECKOUT-01 --depth full --format text
  brief show DEC-PAY-01 --detail summary

Exit codes: 0 ok, 1 nothing found, 2 bad usage or unreadable input.";

#[derive(Parser)]
#[command(name = "brief", version, about = ABOUT, long_about = LONG_ABOUT, after_help = AFTER_HELP)]
struct Cli {
    /// Project root (default: walk up from the current directory to the first folder with
    /// brief.toml, specgraph/graph.json, graph.json, .contextia/ or .brief/).
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Assemble the context document for a node.
    #[command(after_help = CONTEXT_HELP)]
    Context(ContextArgs),
    /// Print one node at a detail level.
    Show(ShowArgs),
}

const CONTEXT_HELP: &str = "\
What goes in (Spec Graph): the target; its namespace (contains ancestors); everything that
constrains it or an ancestor; guidance propagated from layers it depends on (superseded
decisions dropped); then depends_on, implements, derived_from and verified_by links up to
--depth. Artifacts: frontmatter links (specs, decisions, norms, links) up to --depth, plus the
project identity.

How it fits: every node starts at --detail; while the document is over --budget the
lowest-ranked node steps down full → summary → meta → omitted (hard constraints last), then
spare room is given back. The count is exact (a real tokenizer), never over the budget.
Omitted nodes are listed at the end of the document.

Examples:
  brief context CHECKOUT-01 --depth 1
  brief context TASK-002 --budget 2000 --encoding o200k
  brief context CHECKOUT-01 --format json | jq '.nodes[] | {id, detail, reasons}'";

#[derive(clap::Args)]
struct ContextArgs {
    /// The node id to assemble context for (e.g. AUTH-01, TASK-042).
    target: String,
    /// How many hops to follow forward links: a number or `full`
    /// [default: 2 for Spec Graph targets, full for artifacts, or brief.toml's].
    #[arg(long, value_name = "N|full", value_parser = parse_depth)]
    depth: Option<Depth>,
    /// The most detail any node gets; the budget may lower it per node [default: full].
    #[arg(long, value_name = "full|summary|meta", value_parser = parse_detail)]
    detail: Option<Detail>,
    /// Token budget for the whole document [default: 4000, or brief.toml's].
    #[arg(long, value_name = "TOKENS")]
    budget: Option<usize>,
    /// Tokenizer used for counting [default: cl100k].
    #[arg(long, value_name = "cl100k|o200k", value_parser = parse_encoding)]
    encoding: Option<Encoding>,
    /// Output format: the Markdown document, the JSON audit view, or compact text.
    #[arg(long, value_name = "markdown|json|text", default_value = "markdown", value_parser = parse_format)]
    format: Format,
    /// Leave out the project identity document.
    #[arg(long)]
    no_identity: bool,
}

#[derive(clap::Args)]
struct ShowArgs {
    /// The node id to print.
    id: String,
    /// Detail level.
    #[arg(long, value_name = "full|summary|meta", default_value = "full", value_parser = parse_detail)]
    detail: Detail,
    /// Output format.
    #[arg(long, value_name = "markdown|json|text", default_value = "markdown", value_parser = parse_format)]
    format: Format,
    /// Tokenizer used for the token count in JSON [default: cl100k].
    #[arg(long, value_name = "cl100k|o200k", value_parser = parse_encoding)]
    encoding: Option<Encoding>,
}

fn parse_depth(s: &str) -> Result<Depth, String> {
    s.parse()
}
fn parse_detail(s: &str) -> Result<Detail, String> {
    s.parse()
}
fn parse_encoding(s: &str) -> Result<Encoding, String> {
    s.parse()
}
fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

/// A failure with the exit code it maps to.
struct Failure {
    code: u8,
    lines: Vec<String>,
}

impl Failure {
    fn new(code: u8, line: impl Into<String>) -> Failure {
        Failure {
            code,
            lines: vec![line.into()],
        }
    }
}

fn main() -> ExitCode {
    // A bug must never show a user a Rust backtrace: one line and a plea to report it.
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".to_string());
        eprintln!("brief: internal error: {message} (this is a bug; please report it with the command you ran)");
    }));
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            for line in failure.lines {
                eprintln!("{line}");
            }
            ExitCode::from(failure.code)
        }
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let project = Project::open(cli.root.as_deref(), &cwd)
        .map_err(|err| Failure::new(2, format!("error: {err}")))?;
    if project.sources.is_empty() {
        return Err(Failure::new(
            2,
            format!(
                "error: {} has no sources: add specgraph/graph.json, a .contextia/ tree, a .brief/ folder of Markdown artifacts, or list them in brief.toml",
                project.root.display()
            ),
        ));
    }
    let loaded = brief::load(&project);
    let errors: Vec<String> = loaded
        .errors()
        .map(|problem| {
            format!(
                "{}: {}",
                located(&project.root, &problem.location.to_string()),
                problem.message
            )
        })
        .collect();
    if !errors.is_empty() {
        let count = errors.len();
        let mut lines = errors;
        lines.push(format!(
            "error: {count} file problem{} in {}; fix {} first (nothing was assembled)",
            if count == 1 { "" } else { "s" },
            project.root.display(),
            if count == 1 { "it" } else { "them" }
        ));
        return Err(Failure { code: 2, lines });
    }
    let output = match cli.command {
        Command::Context(args) => {
            let request = brief::ContextRequest {
                target: args.target,
                depth: args.depth,
                detail: args.detail,
                budget: args.budget,
                encoding: args.encoding,
                format: args.format,
                no_identity: args.no_identity,
            };
            let out = brief::assemble(&loaded.graph, &project.defaults, &request).map_err(
                |err| match err {
                    brief::ContextError::UnknownTarget(e) => Failure::new(1, format!("error: {e}")),
                    brief::ContextError::TooSmall(e) => {
                        Failure::new(2, format!("error: {e} (use --budget {})", e.minimum))
                    }
                },
            )?;
            for warning in &out.warnings {
                eprintln!("warning: {}", located(&project.root, warning));
            }
            if out.omitted > 0 && std::io::stderr().is_terminal() {
                eprintln!(
                    "note: {} node{} did not fit {} tokens (used {}); raise --budget or see --format json",
                    out.omitted,
                    if out.omitted == 1 { "" } else { "s" },
                    out.budget,
                    out.used
                );
            }
            out.text
        }
        Command::Show(args) => {
            let encoding = args
                .encoding
                .or(project.defaults.encoding)
                .unwrap_or_default();
            brief::show(&loaded.graph, &args.id, args.detail, args.format, encoding)
                .map_err(|e| Failure::new(1, format!("error: {e}")))?
        }
    };
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`brief … | head`) is not an error worth a message.
    let _ = stdout
        .write_all(output.as_bytes())
        .and_then(|_| stdout.flush());
    Ok(())
}

/// A root-relative `path:line:col` as the user can open it from where they ran brief.
fn located(root: &Path, location: &str) -> String {
    if root == Path::new(".") {
        location.to_string()
    } else {
        format!(
            "{}/{location}",
            root.display().to_string().trim_end_matches('/')
        )
    }
}
