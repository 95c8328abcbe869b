//! The `brief` command: a thin adapter over the `brief` library. Parsing arguments, printing
//! what the library returns, and mapping errors to exit codes is all that happens here.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use brief::command::{run_with, FrontEnd, Host, Outcome};
use brief::{Depth, Detail, Encoding, Format};
use clap::{Parser, Subcommand};

mod progress;
mod session;

const ABOUT: &str = "Assemble the context an AI agent needs before it works on one thing.";

const LONG_ABOUT: &str = "\
Assemble the context an AI agent needs before it works on one thing.

brief reads a project's knowledge graph — a Spec Graph (specgraph/graph.json), Markdown
artifacts with YAML frontmatter (.contextia/ or .brief/) — and returns one document with
every decision, policy and norm that applies to a target, found by following explicit links,
fitted exactly to a token budget, and explaining why each node is in it.";

const AFTER_HELP: &str = "\
Examples (on examples/payments and examples/notes-app):
  brief context CHECKOUT-01                    Markdown context, default budget (4000 tokens)
  brief context CHECKOUT-01 -b 1500            fit a smaller window; the rest degrades or is listed
  brief context TASK-002 --format json         the audit view: why each node is in, what was left out
  brief context refund                         words, not an id: the best search hit is the target
  brief context CHECKOUT-01 -d full -f text
  brief show DEC-PLAT-01 --detail summary
  brief search idempotency -l 5

Short flags: -r --root, -b --budget, -d --depth, -D --detail, -f --format, -e --encoding,
-l --limit, -k --kind, -q --quiet. Options go before `--`; everything after it is the target.
Shell completions: `brief completions bash|zsh|fish|powershell|elvish`; man page: `brief man`.

Exit codes: 0 ok, 1 nothing found, 2 bad usage or unreadable input (a malformed file is
reported as path:line:col by every command that reads the graph).";

#[derive(Parser)]
#[command(name = "brief", version, about = ABOUT, long_about = LONG_ABOUT, after_help = AFTER_HELP)]
struct Cli {
    /// Project root (default: walk up from the current directory to the first folder with
    /// brief.toml, specgraph/graph.json, graph.json, .contextia/ or .brief/).
    #[arg(short = 'r', long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Assemble the context document for a node.
    #[command(after_help = format!("{CONTEXT_HELP}\n\n{}", session::ZONE_HELP))]
    Context(ContextArgs),
    /// Print one node at a detail level.
    #[command(
        after_help = "Examples:\n  brief show DEC-PLAT-01\n  brief show SPEC-SYNC-001 -D summary -f json"
    )]
    Show(ShowArgs),
    /// The targets whose context holds these nodes, grouped by kind, each with the chain of
    /// links that brings the node in.
    Impact(ImpactArgs),
    /// Why a node is in a target's context (the rule and chain, and the detail the budget
    /// left it at), or the nearest way it could be and why it is not.
    Explain(ExplainArgs),
    /// How a target's context changes between two git revisions (default --to: the working
    /// tree): nodes that enter, leave or change, and the change in tokens.
    Diff(DiffArgs),
    /// Full-text search over ids, titles, bodies and fields (BM25; an exact id first).
    #[command(after_help = SEARCH_HELP)]
    Search(SearchArgs),
    /// Refresh the index under .brief/cache/ now (context, show and search do it as needed).
    #[command(after_help = INDEX_HELP)]
    Index(IndexArgs),
    /// List the lenses (built-in and from brief.toml) and what each one does.
    Lenses,
    /// Print the brief.toml that discovery would use, listing the sources found (ADRs,
    /// docs, agent files, vaults, Spec Graph, Contextia); --write saves it.
    Init(InitArgs),
    /// Check the graph's integrity: every broken link, schema violation, cycle and stale
    /// annotation in one run (exit 1 when there are errors).
    #[command(after_help = check_help())]
    Check(CheckArgs),
    /// The agent-session store: context packages, error patterns, pruning.
    #[command(after_help = session::SESSION_HELP)]
    Session(session::SessionArgs),
    /// Serve the project to AI agents over MCP (stdio, or streamable HTTP with --http).
    #[cfg(feature = "mcp")]
    #[command(after_help = SERVE_HELP)]
    Serve(ServeArgs),
    /// Keep the index current while this runs, so every other brief command in the project
    /// skips its check of every file (faster on large projects). Stop with Ctrl-C.
    #[cfg(feature = "mcp")]
    #[command(after_help = WATCH_HELP)]
    Watch,
    /// Print a shell completion script (bash, zsh, fish, powershell or elvish) to stdout.
    #[command(after_help = COMPLETIONS_HELP)]
    Completions(CompletionsArgs),
    /// Print the man page (roff) to stdout.
    #[command(after_help = "Examples:\n  brief man\n\nRead it with `brief man | man -l -`.")]
    Man,
}

const COMPLETIONS_HELP: &str = "\
Examples:
  brief completions bash
  brief completions zsh

Install: bash `brief completions bash > ~/.local/share/bash-completion/completions/brief`;
zsh `brief completions zsh > ~/.zfunc/_brief` (with ~/.zfunc in fpath); fish
`brief completions fish > ~/.config/fish/completions/brief.fish`.";

#[derive(clap::Args)]
struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    shell: clap_complete::Shell,
}

#[cfg(feature = "mcp")]
const SERVE_HELP: &str = "\
Tools: context, search, show, check, lenses, impact, explain, diff, session_package_add/list/consume,
session_error_record/feedback/match — the parameters of the CLI commands, and the same bytes
the CLI prints. Resources: brief://identity, brief://nodes, brief://node/{id}.
Prompt: brief-before-task. The index is refreshed when files change (a file watcher), not on
every call.

Set-up (stdio; the agent starts the server):
  Claude Code:  claude mcp add brief -- brief serve --root /path/to/project
  Cursor:       .cursor/mcp.json  {\"mcpServers\": {\"brief\": {\"command\": \"brief\", \"args\": [\"serve\", \"--root\", \".\"]}}}
  VS Code:      .vscode/mcp.json  {\"servers\": {\"brief\": {\"type\": \"stdio\", \"command\": \"brief\", \"args\": [\"serve\"]}}}

HTTP: `brief serve --http 127.0.0.1:8765` serves http://127.0.0.1:8765/mcp. Only loopback
addresses unless --allow-remote; requests from browser origins other than localhost are
refused unless named with --allow-origin.";

#[cfg(feature = "mcp")]
const WATCH_HELP: &str = "\
Examples:
  brief watch &                     in the project, in the background
  brief watch --root ~/src/shop     another project

Without it, every context, show, search, impact and explain stats each source file of a
project of up to 20,000 files to see whether the index is current (about 1 µs a file), and
only the folders and the files a context uses above that. While `brief watch` runs, a command
asks it instead: the watcher makes sure it has seen every change made before the question
(a cookie file in .brief/cache), refreshes the index if anything changed, and answers. If it
does not answer within 5 s, or is gone, the command checks the files itself as usual.

`brief serve` does the same for the commands run beside it. One process answers per project;
a second `brief watch` exits with an error. Changes on network file systems may not be
reported by the system: do not rely on a watcher there.";

#[cfg(feature = "mcp")]
#[derive(clap::Args)]
struct ServeArgs {
    /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8765; port 0 picks a free one,
    /// printed on stderr) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// Allow --http on a non-loopback address. Anyone who can reach it can read the project.
    #[arg(long, requires = "http")]
    allow_remote: bool,
    /// Also accept requests from this browser origin (e.g. https://app.example:443); repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    allowed_origins: Vec<String>,
    /// Do not watch files: check them on every request instead.
    #[arg(long)]
    no_watch: bool,
    /// Stop a tool call after this many seconds and answer with a tool error that says what
    /// to narrow (0: no limit).
    #[arg(long, value_name = "SECONDS", default_value_t = brief_mcp::DEFAULT_TIME_LIMIT.as_secs())]
    time_limit: u64,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Output format: `path:line:col: severity[rule]: message` lines, or JSON.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = ["text", "json"])]
    format: String,
    /// Run only this rule (repeatable, or comma-separated; see --list-rules).
    #[arg(long = "rule", value_name = "RULE", value_delimiter = ',')]
    rules: Vec<String>,
    /// Hide the findings recorded in this baseline file: report only new ones.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    baseline: Option<PathBuf>,
    /// Record the current findings in FILE (for --baseline) and exit 0.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Print every rule with its default severity and exit.
    #[arg(long)]
    list_rules: bool,
}

fn check_help() -> String {
    // Two lines per rule, the description indented under its id: help wrapped to a narrow
    // terminal then still reads as a table.
    let rules: String = brief::check::RULES
        .iter()
        .map(|rule| {
            format!(
                "  {} ({})\n      {}\n",
                rule.id,
                brief::check::severity_name(rule.severity),
                rule.summary
            )
        })
        .collect();
    format!(
        "Rules (id, default severity; brief.toml `[check] rules = {{ id = \"error\"|\"warning\"|\"off\" }}`):\n{}\n\
         Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 the project cannot be read.\n\n\
         Examples:\n  brief check\n  brief check --rule broken-link --rule broken-ref --format json\n  \
         brief check --write-baseline .brief/check-baseline.json\n  \
         brief check --baseline .brief/check-baseline.json",
        rules
    )
}

#[derive(clap::Args)]
struct SearchArgs {
    /// Words to look for.
    query: String,
    /// Most hits to print (at least 1).
    #[arg(short = 'l', long, default_value_t = 10, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    limit: usize,
    /// Only nodes of this kind (behavior, decision, spec, task, …; one the project has).
    #[arg(short = 'k', long)]
    kind: Option<String>,
    /// Output format.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = ["text", "json"])]
    format: String,
}

const SEARCH_HELP: &str = "\
Words are stemmed (`refund` finds \"Refunds\"), diacritics ignored, and words of three or more
letters match as prefixes (`idempot` finds \"idempotency\"). Any word may match; BM25 ranks
the hits (titles weigh most), an exact id comes first. Scores are shares of the best hit
(1), to two significant digits: they compare the hits of one query.

Examples:
  brief search refund
  brief search \"idempotency key\" -l 3 -f json
  brief search outbox -k decision";

#[derive(clap::Args)]
struct InitArgs {
    /// Write brief.toml at the root instead of printing it (never replaces one).
    #[arg(long)]
    write: bool,
}

#[derive(clap::Args)]
struct IndexArgs {
    /// Refresh only these files (paths relative to the root), as a watcher or a git hook
    /// that knows what changed would; without them every file is checked.
    files: Vec<String>,
    /// Only look at folders and manifests for changes (what large projects do by default).
    #[arg(long)]
    quick: bool,
    /// No progress bar (it shows only on a terminal anyway).
    #[arg(short = 'q', long)]
    quiet: bool,
}

const INDEX_HELP: &str = "\
Files must lie beneath the root (another path is refused, exit 2); a named file that does not
exist is warned about and dropped from the index. A malformed file is reported as
path:line:col (exit 2) after everything else was indexed.

Examples:
  brief index
  brief index --quick";

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
  brief context CHECKOUT-01 --format json | jq '.nodes[] | {id, detail, reasons}'
  brief context \"refund retries\" --seeds 2

Options go before `--`: everything after it is the target, so a target that starts with a
dash (a Tana id) reads `brief context --budget 600 -- -S4ggiefqZE`.";

#[derive(clap::Args)]
struct ContextArgs {
    /// The node id to assemble context for (e.g. AUTH-01, TASK-042), or words to search
    /// for: the best hit becomes the target (see --seeds).
    #[arg(required_unless_present = "session")]
    target: Option<String>,
    /// How many hops to follow forward links: a number or `full`
    /// [default: 2 for Spec Graph and knowledge-base targets, full for Contextia artifacts, or
    /// brief.toml's].
    #[arg(short = 'd', long, value_name = "N|full", value_parser = parse_depth)]
    depth: Option<Depth>,
    /// The most detail any node gets; the budget may lower it per node [default: full].
    #[arg(short = 'D', long, value_name = "full|summary|meta", value_parser = parse_detail)]
    detail: Option<Detail>,
    /// Token budget for the whole document [default: 4000, or brief.toml's].
    #[arg(short = 'b', long, value_name = "TOKENS")]
    budget: Option<usize>,
    /// Tokenizer used for counting [default: cl100k].
    #[arg(short = 'e', long, value_name = "cl100k|o200k", value_parser = parse_encoding)]
    encoding: Option<Encoding>,
    /// Output format: the Markdown document, the JSON audit view, or compact text.
    #[arg(short = 'f', long, value_name = "markdown|json|text", default_value = "markdown", value_parser = parse_format)]
    format: Format,
    /// Leave out the project identity document.
    #[arg(long)]
    no_identity: bool,
    /// A lens: which relations to explore and what to boost (`brief lenses` lists them).
    #[arg(long, value_name = "NAME")]
    lens: Option<String>,
    /// When TARGET is words, not an id: how many best search hits start the context (≥ 1).
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    seeds: Option<usize>,
    /// Show field values on nodes (Tana fields, artifacts' extra frontmatter) [default].
    #[arg(long, overrides_with = "no_include_fields")]
    include_fields: bool,
    /// Leave field values out of the document (a lens's field filter still limits them).
    #[arg(long, overrides_with = "include_fields")]
    no_include_fields: bool,
    #[command(flatten)]
    zone: session::ZoneArgs,
}

#[derive(clap::Args)]
struct ImpactArgs {
    /// The node ids whose impact to list.
    #[arg(required_unless_present = "since", conflicts_with = "since")]
    ids: Vec<String>,
    /// Instead of ids: every target whose context changes between this git revision and the
    /// working tree (text, markdown for a pull-request comment, or json).
    #[arg(long, value_name = "REV")]
    since: Option<String>,
    /// How many hops contexts follow forward links: a number or `full` [default: as
    /// `brief context` per target].
    #[arg(long, value_name = "N|full", value_parser = parse_depth)]
    depth: Option<Depth>,
    /// Output format: text (Markdown prints the same) or JSON.
    #[arg(long, value_name = "markdown|json|text", default_value = "text", value_parser = parse_format)]
    format: Format,
    /// Contexts without the project identity.
    #[arg(long)]
    no_identity: bool,
    /// A lens, as for `brief context`.
    #[arg(long, value_name = "NAME")]
    lens: Option<String>,
}

impl ImpactArgs {
    fn request(&self) -> brief::ContextRequest {
        brief::ContextRequest {
            depth: self.depth,
            format: self.format,
            no_identity: self.no_identity,
            lens: self.lens.clone(),
            ..brief::ContextRequest::default()
        }
    }
}

#[derive(clap::Args)]
struct DiffArgs {
    /// The target whose context to compare.
    target: String,
    /// The older revision (anything git rev-parse accepts: a commit, a tag, HEAD~2, …).
    #[arg(long, value_name = "REV")]
    from: String,
    /// The newer revision [default: the working tree].
    #[arg(long, value_name = "REV")]
    to: Option<String>,
    /// As for `brief context`.
    #[arg(long, value_name = "N|full", value_parser = parse_depth)]
    depth: Option<Depth>,
    /// As for `brief context` (the token counts are of the documents at this budget).
    #[arg(long, value_name = "TOKENS")]
    budget: Option<usize>,
    /// As for `brief context`.
    #[arg(long, value_name = "cl100k|o200k", value_parser = parse_encoding)]
    encoding: Option<Encoding>,
    /// As for `brief context`.
    #[arg(long)]
    no_identity: bool,
    /// As for `brief context`.
    #[arg(long, value_name = "NAME")]
    lens: Option<String>,
    /// Output format: text (Markdown prints the same) or JSON.
    #[arg(long, value_name = "markdown|json|text", default_value = "text", value_parser = parse_format)]
    format: Format,
}

#[derive(clap::Args)]
struct ExplainArgs {
    /// The node to explain.
    id: String,
    /// The target whose context is asked about.
    #[arg(long = "for", value_name = "TARGET")]
    target: String,
    /// As for `brief context`.
    #[arg(long, value_name = "N|full", value_parser = parse_depth)]
    depth: Option<Depth>,
    /// As for `brief context`: the budget whose fit gives the detail.
    #[arg(long, value_name = "TOKENS")]
    budget: Option<usize>,
    /// As for `brief context`.
    #[arg(long, value_name = "full|summary|meta", value_parser = parse_detail)]
    detail: Option<Detail>,
    /// As for `brief context`.
    #[arg(long, value_name = "cl100k|o200k", value_parser = parse_encoding)]
    encoding: Option<Encoding>,
    /// Output format: text (Markdown prints the same) or JSON.
    #[arg(long, value_name = "markdown|json|text", default_value = "text", value_parser = parse_format)]
    format: Format,
    /// As for `brief context`.
    #[arg(long)]
    no_identity: bool,
    /// As for `brief context`.
    #[arg(long, value_name = "NAME")]
    lens: Option<String>,
}

impl ExplainArgs {
    fn request(&self) -> brief::ContextRequest {
        brief::ContextRequest {
            target: self.target.clone(),
            depth: self.depth,
            detail: self.detail,
            budget: self.budget,
            encoding: self.encoding,
            format: self.format,
            no_identity: self.no_identity,
            lens: self.lens.clone(),
            ..brief::ContextRequest::default()
        }
    }
}

#[derive(clap::Args)]
struct ShowArgs {
    /// The node id to print.
    id: String,
    /// Detail level.
    #[arg(short = 'D', long, value_name = "full|summary|meta", default_value = "full", value_parser = parse_detail)]
    detail: Detail,
    /// Output format.
    #[arg(short = 'f', long, value_name = "markdown|json|text", default_value = "markdown", value_parser = parse_format)]
    format: Format,
    /// Tokenizer used for the token count in JSON [default: cl100k].
    #[arg(short = 'e', long, value_name = "cl100k|o200k", value_parser = parse_encoding)]
    encoding: Option<Encoding>,
}

impl ContextArgs {
    /// The library request these flags ask for.
    fn request(&self) -> brief::ContextRequest {
        brief::ContextRequest {
            target: self.target.clone().unwrap_or_default(),
            depth: self.depth,
            detail: self.detail,
            budget: self.budget,
            encoding: self.encoding,
            format: self.format,
            no_identity: self.no_identity,
            lens: self.lens.clone(),
            seeds: self.seeds,
            include_fields: (self.include_fields || self.no_include_fields)
                .then_some(!self.no_include_fields),
        }
    }
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
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let root = cli.root.as_deref();
    // `brief index` shows a progress bar unless -q (it shows only on a terminal anyway).
    let quiet = match &cli.command {
        Command::Index(args) => Some(args.quiet),
        _ => None,
    };
    let command = match cli.command {
        // Generated from the clap definition itself, so they never drift from the flags.
        Command::Completions(args) => {
            let mut command = <Cli as clap::CommandFactory>::command();
            let mut out = Vec::new();
            clap_complete::generate(args.shell, &mut command, "brief", &mut out);
            print(&out);
            return ExitCode::SUCCESS;
        }
        Command::Man => {
            let command = <Cli as clap::CommandFactory>::command();
            let mut out = Vec::new();
            if let Err(e) = clap_mangen::Man::new(command).render(&mut out) {
                eprintln!("error: cannot render the man page: {e}");
                return ExitCode::from(2);
            }
            print(&out);
            return ExitCode::SUCCESS;
        }
        #[cfg(feature = "mcp")]
        Command::Serve(args) => return serve(cli.root.clone(), cwd, args),
        #[cfg(feature = "mcp")]
        Command::Watch => return watch(cli.root.clone(), cwd),
        other => other.into_command(),
    };
    let Some(command) = command else {
        return ExitCode::SUCCESS;
    };
    let mut bar = quiet.map(progress::Bar::new);
    let outcome = run_with(
        &command,
        Host::Folder { root, cwd: &cwd },
        FrontEnd::Cli,
        &mut |step| {
            if let Some(bar) = bar.as_mut() {
                bar.update(step)
            }
        },
    );
    if let Some(mut bar) = bar {
        bar.finish();
    }
    emit(&outcome)
}

/// Prints an outcome: notes to stderr, text to stdout; returns its exit code.
fn emit(outcome: &Outcome) -> ExitCode {
    for note in &outcome.notes {
        eprintln!("{note}");
    }
    if outcome.is_success() && std::io::stderr().is_terminal() {
        for note in &outcome.terminal_notes {
            eprintln!("{note}");
        }
    }
    print(outcome.text.as_bytes());
    ExitCode::from(outcome.exit)
}

/// Writes `bytes` to stdout. A closed pipe (`brief … | head`) is not an error worth a message.
fn print(bytes: &[u8]) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(bytes).and_then(|_| stdout.flush());
}

/// `brief serve`: hands over to the MCP server.
#[cfg(feature = "mcp")]
fn serve(root: Option<PathBuf>, cwd: PathBuf, args: ServeArgs) -> ExitCode {
    let options = brief_mcp::ServeOptions {
        root: root.clone(),
        cwd,
        http: args.http,
        allow_remote: args.allow_remote,
        allowed_origins: args.allowed_origins,
        watch: !args.no_watch,
        time_limit: (args.time_limit > 0).then(|| std::time::Duration::from_secs(args.time_limit)),
    };
    exited(brief_mcp::serve(options), root.as_deref())
}

/// `brief watch`: hands over to the watcher, which says what it does on stderr.
#[cfg(feature = "mcp")]
fn watch(root: Option<PathBuf>, cwd: PathBuf) -> ExitCode {
    let options = brief_mcp::WatchOptions {
        root: root.clone(),
        cwd,
    };
    let say: brief_mcp::Say = std::sync::Arc::new(|line: String| eprintln!("brief watch: {line}"));
    exited(brief_mcp::watch(options, say), root.as_deref())
}

/// How a long-running process ended, on stderr and as the exit code.
#[cfg(feature = "mcp")]
fn exited(result: Result<(), brief_mcp::ServeError>, root: Option<&Path>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(brief_mcp::ServeError::Engine(e)) => {
            for line in e.describe(root.unwrap_or(Path::new("."))) {
                eprintln!("{line}");
            }
            ExitCode::from(e.exit_code())
        }
        Err(other) => {
            eprintln!("error: {other}");
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
                format: list_format(&args.format),
            },
            Command::Impact(args) => Run::Impact {
                request: args.request(),
                ids: args.ids,
                since: args.since,
            },
            Command::Explain(args) => Run::Explain {
                request: args.request(),
                id: args.id,
            },
            Command::Diff(args) => Run::Diff {
                request: brief::ContextRequest {
                    target: args.target,
                    depth: args.depth,
                    budget: args.budget,
                    encoding: args.encoding,
                    no_identity: args.no_identity,
                    lens: args.lens,
                    format: args.format,
                    ..brief::ContextRequest::default()
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
                format: list_format(&args.format),
                rules: args.rules,
                baseline: args.baseline.map(path_text),
                write_baseline: args.write_baseline.map(path_text),
                list_rules: args.list_rules,
            }),
            Command::Session(args) => Run::Session(args.command()),
            Command::Completions(_) | Command::Man => return None,
            #[cfg(feature = "mcp")]
            Command::Serve(_) | Command::Watch => return None,
        })
    }
}

fn list_format(format: &str) -> Format {
    if format == "json" {
        Format::Json
    } else {
        Format::Text
    }
}

fn path_text(path: PathBuf) -> String {
    path.to_string_lossy().into_owned()
}
