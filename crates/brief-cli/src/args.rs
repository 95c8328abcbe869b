//! The command line as clap reads it: one struct per subcommand, and the context settings
//! defined once ([`ScopeArgs`], [`FitArgs`]) and flattened wherever they occur, so an option
//! has the same name, short letter, values and help in every command that has it.

use std::path::PathBuf;

use brief::{ContextRequest, Depth, Detail, Encoding, Format};
use clap::{Parser, Subcommand};

use crate::session;
use crate::values::{self, ListFormat};

const ABOUT: &str = "Assemble the context an AI agent needs before it works on one thing.";

const LONG_ABOUT: &str = "\
Assemble the context an AI agent needs before it works on one thing.

brief reads a project's knowledge graph — a Spec Graph (specgraph/graph.json), Markdown
artifacts with YAML frontmatter (.contextia/ or .brief/), ADRs, docs, agent files and vaults —
and returns one document with every decision, policy and norm that applies to a target,
found by following explicit links, fitted exactly to a token budget, and explaining why each
node is in it.";

const AFTER_HELP: &str = "\
Examples (on examples/payments and examples/notes-app):
  brief context CHECKOUT-01                    Markdown context, default budget (4000 tokens)
  brief context CHECKOUT-01 -b 1500            fit a smaller window; the rest degrades or is listed
  brief context TASK-002 --format json         the audit view: why each node is in, what was left out
  brief context refund                         words, not an id: the best search hit is the target
  brief context CHECKOUT-01 -d full -f text
  brief show DEC-PLAT-01 --detail summary
  brief search idempotency -l 5

Short flags, the same letter in every command that has the option: -r --root, -b --budget,
-d --depth, -D --detail, -f --format, -e --encoding, -l --limit, -k --kind, -q --quiet.
Options go before `--`; everything after it is the target.
Shell completions: `brief completions bash|zsh|fish|powershell|elvish`; man pages:
`brief man [COMMAND]` (one page per command, `brief man --dir DIR` writes them all).

Exit codes: 0 ok, 1 nothing found, 2 bad usage or unreadable input (a malformed file is
reported as path:line:col by every command that reads the graph), also when the output
cannot be written (a full disk; a closed pipe ends quietly).";

/// The `brief` command.
#[derive(Parser)]
#[command(name = "brief", version, about = ABOUT, long_about = LONG_ABOUT, after_help = AFTER_HELP)]
pub(crate) struct Cli {
    /// Project root (default: walk up from the current directory to the first folder with
    /// brief.toml, specgraph/graph.json, graph.json, .contextia/, .brief/, an ADR folder,
    /// AGENTS.md or CLAUDE.md, or .obsidian/).
    #[arg(short = 'r', long, global = true, value_name = "DIR")]
    pub(crate) root: Option<PathBuf>,

    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Subcommand)]
pub(crate) enum Command {
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
    #[command(after_help = IMPACT_HELP)]
    Impact(ImpactArgs),
    /// Why a node is in a target's context (the rule and chain, and the detail the budget
    /// left it at), or the nearest way it could be and why it is not.
    #[command(after_help = EXPLAIN_HELP)]
    Explain(ExplainArgs),
    /// How a target's context changes between two git revisions (default --to: the working
    /// tree): per node, what entered, left or changed, field by field and bodies as text
    /// diffs, and the change in tokens.
    #[command(after_help = DIFF_HELP)]
    Diff(DiffArgs),
    /// Full-text search over ids, titles, bodies and fields (BM25; an exact id first).
    #[command(after_help = SEARCH_HELP)]
    Search(SearchArgs),
    /// Refresh the index under .brief/cache/ now (context, show and search do it as needed).
    #[command(after_help = INDEX_HELP)]
    Index(IndexArgs),
    /// List the lenses (built-in and from brief.toml) and what each one does.
    #[command(after_help = "Examples:\n  brief lenses")]
    Lenses,
    /// Print the brief.toml that discovery would use, listing the sources found (ADRs,
    /// docs, agent files, vaults, Spec Graph, Contextia); --write saves it.
    #[command(after_help = "Examples:\n  brief init\n  brief init --write")]
    Init(InitArgs),
    /// Check the graph's integrity: every broken link, schema violation, cycle and stale
    /// annotation in one run (exit 1 when there are errors).
    #[command(after_help = check_help())]
    Check(CheckArgs),
    /// The agent-session store: context packages, error patterns, pruning.
    #[command(after_help = session::SESSION_HELP)]
    Session(session::SessionArgs),
    /// Answer an agent host's hook event (JSON on stdin) with the context it should add:
    /// Claude Code's UserPromptSubmit, PreToolUse and PostToolUse.
    #[command(after_help = HOOK_HELP)]
    Hook(HookArgs),
    /// Serve the project to AI agents over MCP (stdio, or streamable HTTP with --http).
    #[cfg(feature = "mcp")]
    #[command(after_help = SERVE_HELP)]
    Serve(ServeArgs),
    /// Keep the index current while this runs, so every other brief command in the project
    /// skips its check of every file (faster on large projects). Stop with Ctrl-C.
    #[command(after_help = WATCH_HELP)]
    Watch,
    /// Print a shell completion script (bash, zsh, fish, powershell or elvish) to stdout.
    #[command(after_help = COMPLETIONS_HELP)]
    Completions(CompletionsArgs),
    /// Print a man page (roff) to stdout, or write every page to a folder.
    #[command(after_help = MAN_HELP)]
    Man(ManArgs),
}

const MAN_HELP: &str = "\
Examples:
  brief man                         brief(1)
  brief man context                 brief-context(1)
  brief man session package add     brief-session-package-add(1)
  brief man --dir share/man/man1    every page, for MANPATH

Read one with `brief man context | man -l -`.";

/// `brief man`.
#[derive(clap::Args)]
pub(crate) struct ManArgs {
    /// The command whose page to print (none: brief itself).
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    pub(crate) command: Vec<String>,
    /// Write every page (brief.1, brief-context.1, …) into this folder instead.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

const COMPLETIONS_HELP: &str = "\
Examples:
  brief completions bash
  brief completions zsh

Install: bash `brief completions bash > ~/.local/share/bash-completion/completions/brief`;
zsh `brief completions zsh > ~/.zfunc/_brief` (with ~/.zfunc in fpath); fish
`brief completions fish > ~/.config/fish/completions/brief.fish`.";

/// `brief completions`.
#[derive(clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    pub(crate) shell: clap_complete::Shell,
}

const HOOK_HELP: &str = "\
Reads one hook event (JSON) on stdin and prints what the host adds to the agent's context, or
nothing. UserPromptSubmit: the context of the node the prompt names by its id. PreToolUse and
PostToolUse on Edit, Write, MultiEdit and NotebookEdit: the context of the file. The budget
is [hook] budget in brief.toml (default 800 tokens); the hook gives up after [hook]
time_limit_ms (default 200) and always exits 0, with a note on stderr when it added nothing
because something failed. Keep `brief watch` running for answers in a few milliseconds.

Claude Code (.claude/settings.json):
  {\"hooks\": {
    \"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"brief hook\"}]}],
    \"PreToolUse\": [{\"matcher\": \"Edit|Write|MultiEdit\",
                    \"hooks\": [{\"type\": \"command\", \"command\": \"brief hook\"}]}]}}

Examples:
  echo '{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"fix CHECKOUT-01\"}' | brief hook";

/// `brief hook`.
#[derive(clap::Args)]
pub(crate) struct HookArgs {
    /// Give up after this many milliseconds instead of [hook] time_limit_ms.
    #[arg(long, value_name = "MS")]
    pub(crate) time_limit_ms: Option<u64>,
}

#[cfg(feature = "mcp")]
const SERVE_HELP: &str = "\
Tools: context, search, show, check, lenses, impact, explain, diff, session_package_add/list/consume,
session_error_record/feedback/match — the parameters of the CLI commands, and the same bytes
the CLI prints. Resources: brief://identity, brief://nodes, brief://node/{id}.
Prompt: brief-before-task. Completions for the prompt's target and node ids. The index is
refreshed when files change (a file watcher), not on every call. Calls run side by side; a
call that runs past --time-limit is answered with a tool error that says what to narrow.

Without --root the project is the one the client's roots hold (MCP roots), else the one found
from the folder the server starts in; with none, the server still starts and every call says
how to point it at one.

Set-up (stdio; the agent starts the server):
  Claude Code:  claude mcp add brief -- brief serve --root /path/to/project
  Cursor:       .cursor/mcp.json  {\"mcpServers\": {\"brief\": {\"command\": \"brief\", \"args\": [\"serve\", \"--root\", \".\"]}}}
  VS Code:      .vscode/mcp.json  {\"servers\": {\"brief\": {\"type\": \"stdio\", \"command\": \"brief\", \"args\": [\"serve\", \"--root\", \"${workspaceFolder}\"]}}}

HTTP: `brief serve --http 127.0.0.1:8765` serves http://127.0.0.1:8765/mcp. Only loopback
addresses unless --allow-remote; requests from browser origins other than localhost are
refused unless named with --allow-origin (which also answers their CORS preflight).";

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

/// `brief serve`.
#[cfg(feature = "mcp")]
#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8765; port 0 picks a free one,
    /// printed on stderr) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<std::net::SocketAddr>,
    /// Allow --http on a non-loopback address. Anyone who can reach it can read the project.
    #[arg(long, requires = "http")]
    pub(crate) allow_remote: bool,
    /// Also accept requests from this browser origin (e.g. https://app.example:443); repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    pub(crate) allowed_origins: Vec<String>,
    /// Do not watch files: check them on every request instead.
    #[arg(long)]
    pub(crate) no_watch: bool,
    /// Stop a tool call after this long (seconds, or milliseconds as `500ms`) and answer with
    /// a tool error that says what to narrow (0: no limit) [default: 30].
    #[arg(long, value_name = "SECONDS", value_parser = crate::values::time_limit())]
    pub(crate) time_limit: Option<crate::values::TimeLimit>,
}

/// `brief check`.
#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    /// Output format: `path:line:col: severity[rule]: message` lines, or JSON.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = values::list_format())]
    pub(crate) format: ListFormat,
    /// Run only this rule (repeatable, or comma-separated; see --list-rules).
    #[arg(long = "rule", value_name = "RULE", value_delimiter = ',')]
    pub(crate) rules: Vec<String>,
    /// Hide the findings recorded in this baseline file: report only new ones.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub(crate) baseline: Option<PathBuf>,
    /// Record the current findings in FILE (for --baseline) and exit 0.
    #[arg(long, value_name = "FILE")]
    pub(crate) write_baseline: Option<PathBuf>,
    /// Print every rule with its default severity and exit.
    #[arg(long)]
    pub(crate) list_rules: bool,
    /// Fail (exit 1) on warnings too, not only on errors; with --baseline, any new finding
    /// fails (for CI).
    #[arg(long)]
    pub(crate) strict: bool,
}

fn check_help() -> String {
    // Two lines per rule, the description indented under its id: help wrapped to a narrow
    // terminal then still reads as a table.
    let rules: String = brief::command::RULES
        .iter()
        .map(|rule| {
            format!(
                "  {} ({})\n      {}\n",
                rule.id,
                brief::command::severity_name(rule.severity),
                rule.summary
            )
        })
        .collect();
    format!(
        "Rules (id, default severity; brief.toml `[check] rules = {{ id = \"error\"|\"warning\"|\"off\" }}`):\n{}\n\
         Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 the project cannot be read.\n\n\
         Examples:\n  brief check\n  brief check --rule broken-link --rule broken-ref -f json\n  \
         brief check --write-baseline .brief/check-baseline.json\n  \
         brief check --baseline .brief/check-baseline.json",
        rules
    )
}

/// `brief search`.
#[derive(clap::Args)]
pub(crate) struct SearchArgs {
    /// Words to look for.
    pub(crate) query: String,
    /// Most hits to print (at least 1).
    #[arg(short = 'l', long, default_value_t = 10, value_parser = values::at_least_one())]
    pub(crate) limit: usize,
    /// Only nodes of this kind (behavior, decision, spec, task, …; one the project has).
    #[arg(short = 'k', long)]
    pub(crate) kind: Option<String>,
    /// Output format.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = values::list_format())]
    pub(crate) format: ListFormat,
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

/// `brief init`.
#[derive(clap::Args)]
pub(crate) struct InitArgs {
    /// Write brief.toml at the root instead of printing it (never replaces one).
    #[arg(long)]
    pub(crate) write: bool,
}

/// `brief index`.
#[derive(clap::Args)]
pub(crate) struct IndexArgs {
    /// Refresh only these files (paths relative to the root), as a watcher or a git hook
    /// that knows what changed would; without them every file is checked.
    pub(crate) files: Vec<String>,
    /// Only look at folders and manifests for changes (what large projects do by default).
    #[arg(long)]
    pub(crate) quick: bool,
    /// No progress bar (it shows only on a terminal anyway).
    #[arg(short = 'q', long)]
    pub(crate) quiet: bool,
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
  brief context src/billing/invoice.ts         what governs a file (tasks, specs, rules, annotations)
  brief context src/web/sync                   a folder: its index page, then what governs it
  brief context DEC-SYNC-003#consequences      a part of a page, as a link names it

Options go before `--`: everything after it is the target, so a target that starts with a
dash (a Tana id) reads `brief context --budget 600 -- -S4ggiefqZE`.";

/// What a context selects: the same options, letters and help for `context`, `impact`,
/// `explain` and `diff`.
#[derive(clap::Args, Clone)]
pub(crate) struct ScopeArgs {
    /// How many hops to follow forward links: a number or `full`
    /// [default: 2 for Spec Graph and knowledge-base targets, full for Contextia artifacts, 1
    /// from a weak match of words, or brief.toml's].
    #[arg(short = 'd', long, value_name = "N|full", value_parser = values::depth(), hide_possible_values = true)]
    pub(crate) depth: Option<Depth>,
    /// A lens: which relations to explore and what to boost (`brief lenses` lists them).
    #[arg(long, value_name = "NAME", value_parser = values::lens(), hide_possible_values = true)]
    pub(crate) lens: Option<String>,
    /// Leave out the project identity document.
    #[arg(long)]
    pub(crate) no_identity: bool,
}

/// How a context is fitted: the same options for `context`, `explain` and `diff`.
#[derive(clap::Args, Clone)]
pub(crate) struct FitArgs {
    /// Token budget for the whole document [default: 4000, or brief.toml's].
    #[arg(short = 'b', long, value_name = "TOKENS")]
    pub(crate) budget: Option<usize>,
    /// The most detail any node gets; the budget may lower it per node [default: full].
    #[arg(short = 'D', long, value_name = "full|summary|meta", value_parser = values::detail(), hide_possible_values = true)]
    pub(crate) detail: Option<Detail>,
    /// Tokenizer used for counting [default: cl100k].
    #[arg(short = 'e', long, value_name = "cl100k|o200k", value_parser = values::encoding(), hide_possible_values = true)]
    pub(crate) encoding: Option<Encoding>,
}

impl ScopeArgs {
    /// A request with these settings.
    pub(crate) fn request(&self) -> ContextRequest {
        ContextRequest {
            depth: self.depth,
            lens: self.lens.clone(),
            no_identity: self.no_identity,
            ..ContextRequest::default()
        }
    }
}

impl FitArgs {
    /// `request` with these settings.
    pub(crate) fn apply(&self, request: ContextRequest) -> ContextRequest {
        ContextRequest {
            budget: self.budget,
            detail: self.detail,
            encoding: self.encoding,
            ..request
        }
    }
}

/// `brief context`.
#[derive(clap::Args)]
pub(crate) struct ContextArgs {
    /// The node id to assemble context for (e.g. AUTH-01, TASK-042); a path (a page, a file
    /// or a folder, `.` the root: what governs it); a page and an anchor (AGENTS.md#testing);
    /// or words to search for: the best hits start the context (see --seeds).
    #[arg(required_unless_present_any = ["session", "changed"])]
    pub(crate) target: Option<String>,
    /// Instead of a target: every file changed in the working tree against REV [default:
    /// HEAD], all at once — what governs the change, for a review.
    #[arg(long, value_name = "REV", num_args = 0..=1, default_missing_value = "HEAD", conflicts_with = "target")]
    pub(crate) changed: Option<String>,
    #[command(flatten)]
    pub(crate) scope: ScopeArgs,
    #[command(flatten)]
    pub(crate) fit: FitArgs,
    /// Output format: the Markdown document, the JSON audit view, compact text, or XML (each
    /// node a <document> element).
    #[arg(short = 'f', long, value_name = brief::Format::VALUE_NAME, default_value = "markdown", value_parser = values::format(), hide_possible_values = true)]
    pub(crate) format: Format,
    /// When TARGET is words, not an id: how many best search hits start the context (≥ 1).
    #[arg(long, value_name = "N", value_parser = values::at_least_one())]
    pub(crate) seeds: Option<usize>,
    /// Show field values on nodes (Tana fields, artifacts' extra frontmatter) [default].
    #[arg(long, overrides_with = "no_include_fields")]
    pub(crate) include_fields: bool,
    /// Leave field values out of the document (a lens's field filter still limits them).
    #[arg(long, overrides_with = "include_fields")]
    pub(crate) no_include_fields: bool,
    #[command(flatten)]
    pub(crate) zone: session::ZoneArgs,
}

impl ContextArgs {
    /// The library request these flags ask for.
    pub(crate) fn request(&self) -> ContextRequest {
        ContextRequest {
            target: self.target.clone().unwrap_or_default(),
            changed: self.changed.clone(),
            format: self.format,
            seeds: self.seeds,
            include_fields: (self.include_fields || self.no_include_fields)
                .then_some(!self.no_include_fields),
            ..self.fit.apply(self.scope.request())
        }
    }
}

const IMPACT_HELP: &str = "\
Examples:
  brief impact POL-CHK-01
  brief impact DEC-PLAT-01 DEC-CHK-04 -d 1 -f json
  brief impact --since HEAD~3 -f markdown      a pull-request comment";

/// `brief impact`.
#[derive(clap::Args)]
pub(crate) struct ImpactArgs {
    /// The node ids whose impact to list.
    #[arg(required_unless_present = "since", conflicts_with = "since")]
    pub(crate) ids: Vec<String>,
    /// Instead of ids: every target whose context changes between this git revision and the
    /// working tree (text, markdown for a pull-request comment, or json).
    #[arg(long, value_name = "REV")]
    pub(crate) since: Option<String>,
    #[command(flatten)]
    pub(crate) scope: ScopeArgs,
    /// Output format: text (Markdown prints the same, or a pull-request comment with
    /// --since) or JSON.
    #[arg(short = 'f', long, value_name = brief::Format::VALUE_NAME, default_value = "text", value_parser = values::format(), hide_possible_values = true)]
    pub(crate) format: Format,
}

const EXPLAIN_HELP: &str = "\
Examples:
  brief explain NORM-TEST-001 --for TASK-002
  brief explain REFUNDS-01 --for CHECKOUT-01 -b 1500 -f json";

/// `brief explain`.
#[derive(clap::Args)]
pub(crate) struct ExplainArgs {
    /// The node to explain.
    pub(crate) id: String,
    /// The target whose context is asked about: an id, a file path or words, as for `context`.
    #[arg(long = "for", value_name = "TARGET")]
    pub(crate) target: String,
    #[command(flatten)]
    pub(crate) scope: ScopeArgs,
    #[command(flatten)]
    pub(crate) fit: FitArgs,
    /// Output format: text (Markdown prints the same) or JSON.
    #[arg(short = 'f', long, value_name = brief::Format::VALUE_NAME, default_value = "text", value_parser = values::format(), hide_possible_values = true)]
    pub(crate) format: Format,
}

const DIFF_HELP: &str = "\
Each node that entered, left or changed is listed once; a changed node shows each field that
changed (old → new) and its body as a line diff. The target may be words, as for
`brief context`: the same search picks it on both sides.

Examples:
  brief diff CHECKOUT-01 --from HEAD~1
  brief diff \"refund retries\" --from v1.2 --to v1.3 -f json";

/// `brief diff`.
#[derive(clap::Args)]
pub(crate) struct DiffArgs {
    /// The target whose context to compare: an id, or words to search for.
    pub(crate) target: String,
    /// The older revision (anything git rev-parse accepts: a commit, a tag, HEAD~2, …).
    #[arg(long, value_name = "REV")]
    pub(crate) from: String,
    /// The newer revision [default: the working tree].
    #[arg(long, value_name = "REV")]
    pub(crate) to: Option<String>,
    #[command(flatten)]
    pub(crate) scope: ScopeArgs,
    #[command(flatten)]
    pub(crate) fit: FitArgs,
    /// Output format: text (Markdown prints the same) or JSON.
    #[arg(short = 'f', long, value_name = brief::Format::VALUE_NAME, default_value = "text", value_parser = values::format(), hide_possible_values = true)]
    pub(crate) format: Format,
}

/// `brief show`.
#[derive(clap::Args)]
pub(crate) struct ShowArgs {
    /// The node id to print.
    pub(crate) id: String,
    /// Detail level.
    #[arg(short = 'D', long, value_name = "full|summary|meta", default_value = "full", value_parser = values::detail(), hide_possible_values = true)]
    pub(crate) detail: Detail,
    /// Output format.
    #[arg(short = 'f', long, value_name = brief::Format::VALUE_NAME, default_value = "markdown", value_parser = values::format(), hide_possible_values = true)]
    pub(crate) format: Format,
    /// Tokenizer used for the token count in JSON [default: cl100k].
    #[arg(short = 'e', long, value_name = "cl100k|o200k", value_parser = values::encoding(), hide_possible_values = true)]
    pub(crate) encoding: Option<Encoding>,
}
