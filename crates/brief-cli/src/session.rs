//! `brief session …` and the session flags of `brief context`: their arguments and the
//! library commands they map to. No logic lives here.

use brief::command::SessionContext;
use brief::session::Command as Run;
use brief::session::Output;
use brief::session::{
    ConsumeRequest, ErrorRecord, ListRequest, NewPackage, PackageType, Priority, Secrets,
};
use clap::{ArgGroup, Args, Subcommand};

pub(crate) const SESSION_HELP: &str = "\
The session store keeps what agents hand each other within a session — context packages —
and error patterns with the solutions that fixed them. It is user data: brief never rebuilds
or deletes it, and migrates it forward in place. It is .brief/sessions.db (SQLite), or a
PostgreSQL database shared by agents on many machines: [session] url = \"postgres://user@host/db\"
in brief.toml (no password there: PGPASSWORD, ~/.pgpass or a pg_service.conf service), or
BRIEF_SESSION_URL, which wins. `brief session migrate` copies a store from one to the other.

Ranking of `package list` (best first; ties by id):
  score = 4 × priority (low 1, medium 2, high 3, critical 4) + 2 if the package is in --group
        + 1.5 if the agent is a designated consumer + 1 / (age in days + 1)
Packages superseded by a newer one, and those the agent consumed in the iteration asked for,
are left out. Retrieval limits per agent type: developer 3, senior_software_engineer 5,
qa_expert 5, tech_lead 5, investigator 5, others 3 (brief.toml [session.limits]).

Error patterns are keyed by a hash of the normalized message: paths, line numbers, quoted
values and addresses blanked, secrets redacted. Confidence starts at 0.50, +0.10 when the
solution helped (max 1.00), -0.20 when it did not (min 0.10); patterns above 0.70 are offered
in `brief context --session`. Patterns expire 90 days after they were last seen.

Secrets (provider API keys, AWS keys, private-key blocks, bearer tokens, JWTs, password and
token assignments, connection-string passwords, high-entropy strings) are redacted before
anything is stored, and again when printed (--no-redact turns the second pass off).

Examples:
  brief session package add --session s1 --group group_a --type research \\
      --file bazinga/artifacts/s1/auth.md --producer requirements_engineer \\
      --consumers developer,qa_expert --priority high --summary \"JWT refresh flow ...\"
  brief session package list --session s1 --agent developer --group group_a
  brief session package consume --session s1 --agent developer --id 1 --iteration 2
  brief session error record --project notes --lang ts \\
      --message \"Cannot find module '@/utils' from src/web/app.ts:3:1\" \\
      --solution \"Set baseUrl and paths in tsconfig.json\"
  brief session error feedback --project notes --hash be1459b552d3415f --helped
  brief session error match --project notes --message \"Cannot find module '@/lib'\"
  brief session prune --older-than 30
  brief session migrate --from .brief/sessions.db --to postgres://agents@db.example/brief

Exit codes: 0 ok, 1 nothing found (no package, pattern or match), 2 bad usage or an
unreadable store. Times: the clock, or Unix seconds from BRIEF_NOW (for reproducible tests).";

/// `brief session`.
#[derive(Args)]
pub(crate) struct SessionArgs {
    #[command(subcommand)]
    command: SessionCommand,
}

#[derive(Subcommand)]
enum SessionCommand {
    /// Context packages: add, list (ranked), consume.
    #[command(subcommand)]
    Package(PackageCommand),
    /// Error patterns: record, feedback, match.
    #[command(subcommand)]
    Error(ErrorCommand),
    /// Delete packages and error patterns older than DAYS (and expired patterns).
    Prune(PruneArgs),
    /// Copy every row of one store into a new, empty one (SQLite file ↔ PostgreSQL URL),
    /// verified by counts.
    Migrate(MigrateArgs),
}

#[derive(Subcommand)]
enum PackageCommand {
    /// Store a context package for other agents (its session is created on first use).
    Add(AddArgs),
    /// The best packages for an agent, with the total available and the overflow.
    List(ListArgs),
    /// Record that an agent consumed a package in an iteration.
    Consume(ConsumeArgs),
}

#[derive(Subcommand)]
enum ErrorCommand {
    /// Record an error message and the solution that fixed it.
    Record(RecordArgs),
    /// Report whether a pattern's solution helped.
    Feedback(FeedbackArgs),
    /// Look a message up: the exact signature, else similar ones (full-text, BM25).
    Match(MatchArgs),
}

#[derive(Args)]
struct AddArgs {
    /// The session id (e.g. bazinga_20251009_085320).
    #[arg(long, value_name = "ID")]
    session: String,
    /// Task group; without it the package is global to the session.
    #[arg(long, value_name = "G")]
    group: Option<String>,
    /// research, failures, decisions, handoff or investigation.
    #[arg(long = "type", value_name = "T", value_parser = |s: &str| s.parse::<PackageType>())]
    kind: PackageType,
    /// The package's file, relative to the project root.
    #[arg(long, value_name = "PATH")]
    file: String,
    /// The agent type that wrote it.
    #[arg(long, value_name = "AGENT")]
    producer: String,
    /// Agent types it is meant for, comma-separated.
    #[arg(long, value_name = "A,B", value_delimiter = ',', required = true)]
    consumers: Vec<String>,
    /// low, medium, high or critical.
    #[arg(long, value_name = "P", default_value = "medium", value_parser = |s: &str| s.parse::<Priority>())]
    priority: Priority,
    /// One or two sentences on what the file holds (secrets are redacted before storing).
    #[arg(long, value_name = "TEXT")]
    summary: String,
    /// The id of an earlier package of this session that this one replaces.
    #[arg(long, value_name = "ID")]
    supersedes: Option<i64>,
    /// Output format.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = crate::values::output(), hide_possible_values = true)]
    format: Output,
}

#[derive(Args)]
struct ListArgs {
    /// The session id (e.g. bazinga_20251009_085320).
    #[arg(long, value_name = "ID")]
    session: String,
    /// The agent type asking (sets the default limit and the consumer relevance).
    #[arg(long, value_name = "A")]
    agent: String,
    /// Only this group's packages and the session's global ones.
    #[arg(long, value_name = "G")]
    group: Option<String>,
    /// Most packages to show [default: the agent type's retrieval limit].
    #[arg(short = 'l', long, value_name = "N")]
    limit: Option<usize>,
    /// Leave out what the agent consumed in this iteration [default: 1].
    #[arg(long, value_name = "I")]
    iteration: Option<i64>,
    /// Output format.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = crate::values::output(), hide_possible_values = true)]
    format: Output,
    /// Print stored text as is (secrets are still redacted before storing).
    #[arg(long)]
    no_redact: bool,
}

#[derive(Args)]
struct ConsumeArgs {
    /// The session id (e.g. bazinga_20251009_085320).
    #[arg(long, value_name = "ID")]
    session: String,
    /// The agent type that read it.
    #[arg(long, value_name = "A")]
    agent: String,
    /// The package id (from `package list`).
    #[arg(long, value_name = "N")]
    id: i64,
    /// [default: 1]
    #[arg(long, value_name = "I")]
    iteration: Option<i64>,
    /// Output format.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = crate::values::output(), hide_possible_values = true)]
    format: Output,
}

#[derive(Args)]
struct RecordArgs {
    /// The project the patterns belong to (e.g. the repository name).
    #[arg(long, value_name = "P")]
    project: String,
    /// The error message as seen (paths, lines and secrets are normalized away).
    #[arg(long, value_name = "TEXT")]
    message: String,
    /// What fixed it.
    #[arg(long, value_name = "TEXT")]
    solution: String,
    /// Language or stack (ts, python, rust, …).
    #[arg(long, value_name = "L")]
    lang: Option<String>,
    /// Output format.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = crate::values::output(), hide_possible_values = true)]
    format: Output,
    /// Print stored text as is (secrets are still redacted before storing).
    #[arg(long)]
    no_redact: bool,
}

#[derive(Args)]
#[command(group(ArgGroup::new("verdict").required(true).args(["helped", "did_not_help"])))]
struct FeedbackArgs {
    /// The project the patterns belong to (e.g. the repository name).
    #[arg(long, value_name = "P")]
    project: String,
    /// The pattern's hash (or its first 4+ hex digits).
    #[arg(long, value_name = "H")]
    hash: String,
    /// The solution worked: confidence +0.10.
    #[arg(long)]
    helped: bool,
    /// It did not: confidence -0.20.
    #[arg(long)]
    did_not_help: bool,
    /// Output format.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = crate::values::output(), hide_possible_values = true)]
    format: Output,
}

#[derive(Args)]
struct MatchArgs {
    /// The project the patterns belong to (e.g. the repository name).
    #[arg(long, value_name = "P")]
    project: String,
    /// The error message to look up.
    #[arg(long, value_name = "TEXT")]
    message: String,
    /// Most similar patterns when there is no exact one.
    #[arg(short = 'l', long, value_name = "N", default_value_t = 3)]
    limit: usize,
    /// Output format.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = crate::values::output(), hide_possible_values = true)]
    format: Output,
    /// Print stored text as is (secrets are still redacted before storing).
    #[arg(long)]
    no_redact: bool,
}

#[derive(Args)]
struct PruneArgs {
    /// Age in days.
    #[arg(long, value_name = "DAYS")]
    older_than: i64,
    /// Output format.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = crate::values::output(), hide_possible_values = true)]
    format: Output,
}

#[derive(Args)]
struct MigrateArgs {
    /// The store to copy: a SQLite file (e.g. .brief/sessions.db) or a postgres:// URL.
    #[arg(long, value_name = "FILE|URL")]
    from: String,
    /// The new store: a SQLite file that does not exist yet, or a postgres:// URL of a
    /// database without brief's tables.
    #[arg(long, value_name = "FILE|URL")]
    to: String,
    /// Output format.
    #[arg(short = 'f', long, value_name = "text|json", default_value = "text", value_parser = crate::values::output(), hide_possible_values = true)]
    format: Output,
}

pub(crate) const ZONE_HELP: &str = "\
Session context (--session): the zone comes from the share of the model's window already
used (--used-tokens), after a 15 % safety margin ([session] safety_margin):
  zone          used          the document holds
  Normal        below 60 %    ranked packages with summaries, error patterns (confidence
                              > 0.70), then the graph context of --task
  Soft Warning  60 to 75 %    package summaries (cut to 200 characters), then the graph
                              context of --task at summary detail
  Conservative  75 to 85 %    critical packages only (summaries cut to 100 characters)
  Wrap-up       85 to 95 %    a minimal notice
  Emergency     95 % and up   a checkpoint notice
The budget is --budget (or brief.toml's, default 4000) capped at what is left of the window
(never below 128); the count is exact. With --task the session part takes at most half of
it, and the graph part is what `brief context TASK --budget <rest>` prints for the rest. Windows: claude*, sonnet, opus, haiku
200000; gpt-4o 128000; gpt-4.1 1047576; gpt-4 8192; gpt-4-turbo 128000; gpt-5 400000;
o1, o3, o4-mini 200000; more in [session.windows], or --window N. Default model: claude.
A missing or unreadable store still yields the zone line and the graph context, with a
one-line warning.

Exit codes: 0 ok (also when the store is unavailable), 1 unknown --task, 2 bad usage or
unreadable project.

  brief context --session s1 --agent developer --group group_a --task TASK-002 \\
      --model claude-sonnet-4-5 --used-tokens 42000
  brief context --session s1 --agent qa_expert --window 128000 --used-tokens 99000 --format json";

/// The session flags of `brief context`.
#[derive(Args)]
pub(crate) struct ZoneArgs {
    /// Assemble the session context of this session (see below).
    #[arg(
        long,
        value_name = "ID",
        requires = "agent",
        help_heading = "Session context"
    )]
    session: Option<String>,
    /// The agent type the context is for (developer, qa_expert, tech_lead, …).
    #[arg(
        long,
        value_name = "A",
        requires = "session",
        help_heading = "Session context"
    )]
    agent: Option<String>,
    /// The agent's task group.
    #[arg(
        long,
        value_name = "G",
        requires = "session",
        help_heading = "Session context"
    )]
    group: Option<String>,
    /// The node whose graph context follows the session part (or give it as TARGET).
    #[arg(
        long,
        value_name = "ID",
        requires = "session",
        conflicts_with = "target",
        help_heading = "Session context"
    )]
    task: Option<String>,
    /// The agent's model, for its context window [default: claude].
    #[arg(
        long,
        value_name = "M",
        requires = "session",
        conflicts_with = "window",
        help_heading = "Session context"
    )]
    model: Option<String>,
    /// The context window in tokens, instead of --model.
    #[arg(
        long,
        value_name = "TOKENS",
        requires = "session",
        help_heading = "Session context"
    )]
    window: Option<usize>,
    /// Tokens of the window already used [default: 0].
    #[arg(
        long,
        value_name = "N",
        requires = "session",
        help_heading = "Session context"
    )]
    used_tokens: Option<usize>,
    /// Whose error patterns to show [default: [session] project, else all].
    #[arg(
        long,
        value_name = "P",
        requires = "session",
        help_heading = "Session context"
    )]
    project: Option<String>,
    /// Leave out packages consumed in this iteration [default: 1].
    #[arg(
        long,
        value_name = "I",
        requires = "session",
        help_heading = "Session context"
    )]
    iteration: Option<i64>,
    /// Do not redact secrets in the session part of the output.
    #[arg(long, requires = "session", help_heading = "Session context")]
    no_redact: bool,
}

impl SessionArgs {
    /// The library's session command (field mapping only).
    pub(crate) fn command(self) -> Run {
        match self.command {
            SessionCommand::Package(PackageCommand::Add(a)) => Run::PackageAdd {
                package: NewPackage {
                    session: a.session,
                    group: a.group,
                    kind: a.kind,
                    file: a.file,
                    producer: a.producer,
                    consumers: a.consumers,
                    priority: a.priority,
                    summary: a.summary,
                    supersedes: a.supersedes,
                },
                format: a.format,
            },
            SessionCommand::Package(PackageCommand::List(a)) => Run::PackageList {
                request: ListRequest {
                    session: a.session,
                    agent: a.agent,
                    group: a.group,
                    limit: a.limit,
                    iteration: a.iteration,
                    min_priority: None,
                },
                format: a.format,
                secrets: Secrets::from_no_redact(a.no_redact),
            },
            SessionCommand::Package(PackageCommand::Consume(a)) => Run::PackageConsume {
                request: ConsumeRequest {
                    session: a.session,
                    agent: a.agent,
                    id: a.id,
                    iteration: a.iteration,
                },
                format: a.format,
            },
            SessionCommand::Error(ErrorCommand::Record(a)) => Run::ErrorRecord {
                record: ErrorRecord {
                    project: a.project,
                    message: a.message,
                    solution: a.solution,
                    lang: a.lang,
                },
                format: a.format,
                secrets: Secrets::from_no_redact(a.no_redact),
            },
            SessionCommand::Error(ErrorCommand::Feedback(a)) => Run::ErrorFeedback {
                project: a.project,
                hash: a.hash,
                helped: a.helped,
                format: a.format,
            },
            SessionCommand::Error(ErrorCommand::Match(a)) => Run::ErrorMatch {
                project: a.project,
                message: a.message,
                limit: a.limit,
                format: a.format,
                secrets: Secrets::from_no_redact(a.no_redact),
            },
            SessionCommand::Prune(a) => Run::Prune {
                older_than_days: a.older_than,
                format: a.format,
            },
            SessionCommand::Migrate(a) => Run::Migrate {
                from: a.from,
                to: a.to,
                format: a.format,
            },
        }
    }
}

impl ZoneArgs {
    /// The session part of `brief context`, when `--session` asks for one.
    pub(crate) fn session(self) -> Option<SessionContext> {
        Some(SessionContext {
            session: self.session?,
            agent: self.agent.unwrap_or_default(),
            group: self.group,
            task: self.task,
            model: self.model,
            window: self.window,
            used_tokens: self.used_tokens.unwrap_or(0),
            project: self.project,
            iteration: self.iteration,
            secrets: Secrets::from_no_redact(self.no_redact),
        })
    }
}
