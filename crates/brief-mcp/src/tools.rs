//! The tools: their parameters (with JSON schemas), and one call each into the `brief`
//! library — the same call the CLI makes, so a tool returns the bytes the CLI prints.

use std::sync::Arc;

use brief::command::{Check, Command as Run, FrontEnd, Host, SessionContext};
use brief::session::Command;
use brief::session::Output;
use brief::session::{
    ConsumeRequest, ErrorRecord, ListRequest, NewPackage, PackageType, Priority, Secrets,
};
use brief::Engine;
use brief::{ContextRequest, Depth, Detail, Encoding, Format};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub(crate) use crate::params::*;

/// A tool the server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolKind {
    Context,
    Search,
    Show,
    Check,
    Lenses,
    Impact,
    Explain,
    Diff,
    PackageAdd,
    PackageList,
    PackageConsume,
    ErrorRecord,
    ErrorFeedback,
    ErrorMatch,
}

impl ToolKind {
    /// Every tool, in the order `tools/list` gives them.
    pub(crate) const ALL: [ToolKind; 14] = [
        ToolKind::Context,
        ToolKind::Search,
        ToolKind::Show,
        ToolKind::Check,
        ToolKind::Lenses,
        ToolKind::Impact,
        ToolKind::Explain,
        ToolKind::Diff,
        ToolKind::PackageAdd,
        ToolKind::PackageList,
        ToolKind::PackageConsume,
        ToolKind::ErrorRecord,
        ToolKind::ErrorFeedback,
        ToolKind::ErrorMatch,
    ];

    /// The tool's name on the wire.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ToolKind::Context => "context",
            ToolKind::Search => "search",
            ToolKind::Show => "show",
            ToolKind::Check => "check",
            ToolKind::Lenses => "lenses",
            ToolKind::Impact => "impact",
            ToolKind::Explain => "explain",
            ToolKind::Diff => "diff",
            ToolKind::PackageAdd => "session_package_add",
            ToolKind::PackageList => "session_package_list",
            ToolKind::PackageConsume => "session_package_consume",
            ToolKind::ErrorRecord => "session_error_record",
            ToolKind::ErrorFeedback => "session_error_feedback",
            ToolKind::ErrorMatch => "session_error_match",
        }
    }

    /// The tool's title, for people.
    pub(crate) fn title(self) -> &'static str {
        match self {
            ToolKind::Context => "Context for a task",
            ToolKind::Search => "Search the knowledge graph",
            ToolKind::Show => "Show one node",
            ToolKind::Check => "Check the knowledge graph",
            ToolKind::Lenses => "List the lenses",
            ToolKind::Impact => "Impact of a change",
            ToolKind::Explain => "Explain a node's place in a context",
            ToolKind::Diff => "Diff a context between revisions",
            ToolKind::PackageAdd => "Hand a package to other agents",
            ToolKind::PackageList => "Packages to read first",
            ToolKind::PackageConsume => "Mark a package read",
            ToolKind::ErrorRecord => "Record an error's solution",
            ToolKind::ErrorFeedback => "Say whether a solution helped",
            ToolKind::ErrorMatch => "Look an error up",
        }
    }

    /// Whether the tool reads the index (and so waits for a refresh under way).
    pub(crate) fn reads_the_index(self) -> bool {
        matches!(
            self,
            ToolKind::Context
                | ToolKind::Search
                | ToolKind::Show
                | ToolKind::Impact
                | ToolKind::Explain
        )
    }

    /// Whether finding nothing is an answer rather than an error: a search without hits, a
    /// session without packages, an error without a known pattern.
    fn empty_is_a_result(self) -> bool {
        matches!(
            self,
            ToolKind::Search | ToolKind::PackageList | ToolKind::ErrorMatch
        )
    }

    /// The tool error of a call that ran past the time limit: what to narrow.
    pub(crate) fn over_time(self, limit: std::time::Duration) -> String {
        let narrow = match self {
            ToolKind::Context => {
                "a smaller `depth`, a `lens`, or an id instead of words as the `target`"
            }
            ToolKind::Impact => "fewer `ids`, a smaller `depth`, or a `lens`",
            ToolKind::Explain => "a smaller `depth` or a `lens`",
            ToolKind::Diff => "a smaller `depth`, a `lens`, or revisions closer together",
            ToolKind::Check => "`rules` naming only the rules you need",
            ToolKind::Search => "more specific words, a `kind`, or a smaller `limit`",
            _ => "fewer items",
        };
        format!(
            "error: `{}` ran longer than the server's time limit of {} s and was stopped; \
             narrow it: {narrow} (or start the server with a larger --time-limit)",
            self.name(),
            limit.as_secs_f64()
        )
    }

    /// Whether the tool only reads.
    fn read_only(self) -> bool {
        !matches!(
            self,
            ToolKind::PackageAdd
                | ToolKind::PackageConsume
                | ToolKind::ErrorRecord
                | ToolKind::ErrorFeedback
        )
    }

    /// The tool with this name.
    pub(crate) fn named(name: &str) -> Option<ToolKind> {
        ToolKind::ALL.into_iter().find(|t| t.name() == name)
    }

    fn description(self) -> &'static str {
        match self {
            ToolKind::Context => {
                "Call this before you start work on a task, spec, feature or topic. Returns the one \
                 document you need: the target and every decision, policy and norm that applies to \
                 it (found by following the project's explicit links), fitted exactly to a token \
                 budget, with why each node is included and what was left out. `target` is a node \
                 id; a path (the file or folder you are about to change: what governs it); a \
                 page and an anchor, as a link names it (`docs/storage.md#cache-directory`); or \
                 words (the task as you were given it)."
            }
            ToolKind::Search => {
                "Full-text search over the project's knowledge graph (ids, titles, bodies, fields); \
                 BM25-ranked, an exact id first. Use it to find the id to pass to `context`."
            }
            ToolKind::Show => "Print one node of the knowledge graph at a detail level.",
            ToolKind::Check => {
                "Check the knowledge graph's integrity: broken links, schema violations, cycles, \
                 stale code annotations. Returns every finding with path:line:col."
            }
            ToolKind::Lenses => {
                "List the lenses `context` accepts and what each one follows and boosts."
            }
            ToolKind::Impact => {
                "Which targets' contexts hold these nodes — what must be revisited if they change: \
                 every target whose `context` includes one of them, grouped by kind, each with the \
                 chain of links that brings the node in."
            }
            ToolKind::Explain => {
                "Why a node is in a target's context (the rule and chain of links, and the detail \
                 the budget left it at) or, if it is not, the nearest way it could be and why not."
            }
            ToolKind::Diff => {
                "How a target's context changes between two git revisions (default `to`: the \
                 working tree): the nodes that enter, leave or change, and the change in tokens."
            }
            ToolKind::PackageAdd => {
                "Hand a context package (research, failures, decisions, handoff, investigation) \
                 to other agents of this session: a file plus a summary, for the agent types \
                 named as consumers."
            }
            ToolKind::PackageList => {
                "The packages an agent should read first in a session, ranked by priority, \
                 group, whether it is a designated consumer and recency; reports the total \
                 available and how many did not fit the limit."
            }
            ToolKind::PackageConsume => "Mark a package as read by an agent in an iteration.",
            ToolKind::ErrorRecord => {
                "Remember an error and the solution that fixed it (the message is normalized and \
                 secrets are redacted before it is stored)."
            }
            ToolKind::ErrorFeedback => {
                "Say whether a recorded solution helped; its confidence goes up or down."
            }
            ToolKind::ErrorMatch => {
                "Look an error message up among the recorded patterns: the same normalized \
                 signature first, then similar messages. Returns the solutions with their confidence."
            }
        }
    }

    /// The tool's input schema.
    pub(crate) fn schema(self) -> Arc<JsonObject> {
        use crate::schema::input as schema_for_type;
        match self {
            ToolKind::Context => schema_for_type::<ContextParams>(),
            ToolKind::Search => schema_for_type::<SearchParams>(),
            ToolKind::Show => schema_for_type::<ShowParams>(),
            ToolKind::Check => schema_for_type::<CheckParams>(),
            ToolKind::Lenses => schema_for_type::<NoParams>(),
            ToolKind::Impact => schema_for_type::<ImpactParams>(),
            ToolKind::Explain => schema_for_type::<ExplainParams>(),
            ToolKind::Diff => schema_for_type::<DiffParams>(),
            ToolKind::PackageAdd => schema_for_type::<PackageAddParams>(),
            ToolKind::PackageList => schema_for_type::<PackageListParams>(),
            ToolKind::PackageConsume => schema_for_type::<PackageConsumeParams>(),
            ToolKind::ErrorRecord => schema_for_type::<ErrorRecordParams>(),
            ToolKind::ErrorFeedback => schema_for_type::<ErrorFeedbackParams>(),
            ToolKind::ErrorMatch => schema_for_type::<ErrorMatchParams>(),
        }
    }

    /// The tool as `tools/list` describes it.
    pub(crate) fn tool(self) -> Tool {
        Tool::new(self.name(), self.description(), self.schema())
            .with_title(self.title())
            .with_raw_output_schema(crate::schema::output())
            .with_annotations(
                ToolAnnotations::with_title(self.title())
                    .read_only(self.read_only())
                    .destructive(false)
                    .idempotent(self.read_only())
                    .open_world(false),
            )
    }
}

/// What a successful call returns: the CLI's stdout, then its stderr notes (warnings), and
/// both as structured content (with the output parsed when it is JSON).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    /// What the CLI prints on stdout.
    pub text: String,
    /// What the CLI prints on stderr (warnings, notes).
    pub notes: Vec<String>,
    /// The structured content, as the tool's output schema describes it.
    pub structured: Value,
}

impl Reply {
    fn new(text: String, notes: Vec<String>) -> Reply {
        let mut structured = serde_json::json!({"text": text, "notes": notes});
        // Only a JSON format prints an object or a list; Markdown and text never parse as one.
        if let Ok(json @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str(&text) {
            structured["json"] = json;
        }
        Reply {
            text,
            notes,
            structured,
        }
    }
}

pub(crate) use brief_watch::Failure;

/// The tool's parameters from the call's arguments; a parameter the tool does not have is
/// named (serde cannot refuse unknown fields next to flattened ones).
fn params<T: DeserializeOwned + JsonSchema>(
    tool: ToolKind,
    args: JsonObject,
) -> Result<T, Failure> {
    let schema = tool.schema();
    let known = crate::schema::properties(&schema);
    if let Some(unknown) = args.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(Failure::line(format!(
            "error: invalid arguments for `{}`: unknown parameter `{unknown}`; it takes {}",
            tool.name(),
            known.join(", ")
        )));
    }
    serde_json::from_value(Value::Object(args)).map_err(|e| {
        Failure::line(format!(
            "error: invalid arguments for `{}`: {e}",
            tool.name()
        ))
    })
}

fn detail(p: DetailParam) -> Detail {
    match p {
        DetailParam::Full => Detail::Full,
        DetailParam::Summary => Detail::Summary,
        DetailParam::Meta => Detail::Meta,
    }
}

/// The encoding, or the error a build without it gives (each encoding is a cargo feature;
/// the schema names both so that clients see the same tool everywhere).
fn encoding(p: EncodingParam) -> Result<Encoding, Failure> {
    let name = match p {
        EncodingParam::Cl100k => "cl100k",
        EncodingParam::O200k => "o200k",
    };
    name.parse()
        .map_err(|e: String| Failure::line(format!("error: {e}")))
}

fn format(p: FormatParam) -> Format {
    p.into()
}

fn list_format(p: ListFormatParam) -> Format {
    match p {
        ListFormatParam::Text => Format::Text,
        ListFormatParam::Json => Format::Json,
    }
}

fn depth(p: &DepthParam) -> Result<Depth, Failure> {
    match p {
        DepthParam::Hops(n) => Ok(Depth::Hops(*n)),
        DepthParam::Word(w) => w
            .parse()
            .map_err(|e: String| Failure::line(format!("error: {e}"))),
    }
}

/// Runs one tool call on the engine: the JSON parameters become the library's command, run
/// as the CLI runs it.
pub(crate) fn call(
    engine: &mut Engine,
    tool: ToolKind,
    args: JsonObject,
) -> Result<Reply, Failure> {
    let command = command(tool, args)?;
    let outcome = brief::command::run(&command, Host::Engine(engine), FrontEnd::Mcp);
    answer(tool, outcome)
}

/// A command's outcome as the tool's answer. Messages are written with their control
/// characters spelled out, as the CLI prints them on stderr.
fn answer(tool: ToolKind, outcome: brief::command::Outcome) -> Result<Reply, Failure> {
    let shown = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .map(|l| brief::command::printable(l).into_owned())
            .collect()
    };
    if outcome.exit == 1 && tool.empty_is_a_result() {
        return Ok(Reply::new(outcome.text, shown(&outcome.notes)));
    }
    match outcome.error_lines() {
        Some(lines) => Err(Failure(shown(lines))),
        None => Ok(Reply::new(outcome.text, shown(&outcome.notes))),
    }
}

/// Runs a tool that needs no engine (`check` reads the files itself) on the project at
/// `root`, so a long check holds no engine another call could use.
pub(crate) fn call_at(
    root: &std::path::Path,
    tool: ToolKind,
    args: JsonObject,
) -> Result<Reply, Failure> {
    let command = command(tool, args)?;
    let host = Host::Folder {
        root: Some(root),
        cwd: root,
    };
    answer(tool, brief::command::run(&command, host, FrontEnd::Mcp))
}

/// Whether the tool runs without an engine ([`call_at`]).
pub(crate) fn needs_no_engine(tool: ToolKind) -> bool {
    tool == ToolKind::Check
}

fn scope(p: &Scope) -> Result<ContextRequest, Failure> {
    Ok(ContextRequest {
        depth: p.depth.as_ref().map(depth).transpose()?,
        lens: p.lens.clone(),
        no_identity: p.no_identity,
        ..ContextRequest::default()
    })
}

/// `request` with the fit settings of `p`.
fn fit(p: &Fit, request: ContextRequest) -> Result<ContextRequest, Failure> {
    Ok(ContextRequest {
        budget: p.budget.map(clamp),
        detail: p.detail.map(detail),
        encoding: p.encoding.map(encoding).transpose()?,
        ..request
    })
}

/// A count as the library takes it (any count past what a `usize` holds means "all").
fn clamp(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The library command a tool call asks for (field mapping only).
pub(crate) fn command(tool: ToolKind, args: JsonObject) -> Result<Run, Failure> {
    Ok(match tool {
        ToolKind::Context | ToolKind::Impact | ToolKind::Diff | ToolKind::Explain => {
            context_command(tool, args)?
        }
        ToolKind::Search => {
            let p: SearchParams = params(tool, args)?;
            Run::Search {
                query: p.query,
                limit: p.limit.map_or(10, clamp),
                kind: p.kind,
                format: list_format(p.format),
            }
        }
        ToolKind::Show => {
            let p: ShowParams = params(tool, args)?;
            Run::Show {
                id: p.id,
                detail: p.detail.map(detail).unwrap_or(Detail::Full),
                format: format(p.format),
                encoding: p.encoding.map(encoding).transpose()?,
            }
        }
        ToolKind::Check => {
            let p: CheckParams = params(tool, args)?;
            Run::Check(Check {
                format: list_format(p.format),
                rules: p.rules,
                baseline: p.baseline,
                strict: p.strict,
                ..Check::default()
            })
        }
        ToolKind::Lenses => {
            let _: NoParams = params(tool, args)?;
            Run::Lenses
        }
        ToolKind::PackageAdd
        | ToolKind::PackageList
        | ToolKind::PackageConsume
        | ToolKind::ErrorRecord
        | ToolKind::ErrorFeedback
        | ToolKind::ErrorMatch => Run::Session(session_command(tool, args)?),
    })
}

/// The tools that take the context settings: `context`, `impact`, `diff` and `explain`.
fn context_command(tool: ToolKind, args: JsonObject) -> Result<Run, Failure> {
    Ok(match tool {
        ToolKind::Context => {
            let p: ContextParams = params(tool, args)?;
            let request = ContextRequest {
                target: p.target,
                format: format(p.format),
                seeds: p.seeds.map(clamp),
                include_fields: p.include_fields,
                ..fit(&p.fit, scope(&p.scope)?)?
            };
            let session = p.session.map(|session| SessionContext {
                session,
                agent: p.agent.unwrap_or_default(),
                group: p.group,
                task: p.task,
                model: p.model,
                window: p.window.map(clamp),
                used_tokens: p.used_tokens.map_or(0, clamp),
                project: p.project,
                iteration: p.iteration,
                secrets: Secrets::from_no_redact(p.no_redact),
            });
            Run::Context { request, session }
        }
        ToolKind::Impact => {
            let p: ImpactParams = params(tool, args)?;
            Run::Impact {
                request: ContextRequest {
                    format: match p.format {
                        SinceFormatParam::Text => Format::Text,
                        SinceFormatParam::Json => Format::Json,
                        SinceFormatParam::Markdown => Format::Markdown,
                    },
                    ..scope(&p.scope)?
                },
                ids: p.ids,
                since: p.since,
            }
        }
        ToolKind::Diff => {
            let p: DiffParams = params(tool, args)?;
            Run::Diff {
                request: ContextRequest {
                    target: p.target,
                    format: list_format(p.format),
                    ..fit(&p.fit, scope(&p.scope)?)?
                },
                from: p.from,
                to: p.to,
            }
        }
        ToolKind::Explain => {
            let p: ExplainParams = params(tool, args)?;
            Run::Explain {
                id: p.id,
                request: ContextRequest {
                    target: p.target,
                    format: list_format(p.format),
                    ..fit(&p.fit, scope(&p.scope)?)?
                },
            }
        }
        other => {
            return Err(Failure::line(format!(
                "error: `{}` takes no context settings",
                other.name()
            )))
        }
    })
}

fn output(p: ListFormatParam) -> Output {
    match p {
        ListFormatParam::Text => Output::Text,
        ListFormatParam::Json => Output::Json,
    }
}

/// The session tools: one `brief::session::Command` each, as the CLI runs them.
fn session_command(tool: ToolKind, args: JsonObject) -> Result<Command, Failure> {
    Ok(match tool {
        ToolKind::PackageAdd => {
            let p: PackageAddParams = params(tool, args)?;
            Command::PackageAdd {
                package: NewPackage {
                    session: p.session,
                    group: p.group,
                    kind: match p.kind {
                        PackageTypeParam::Research => PackageType::Research,
                        PackageTypeParam::Failures => PackageType::Failures,
                        PackageTypeParam::Decisions => PackageType::Decisions,
                        PackageTypeParam::Handoff => PackageType::Handoff,
                        PackageTypeParam::Investigation => PackageType::Investigation,
                    },
                    file: p.file,
                    producer: p.producer,
                    consumers: p.consumers,
                    priority: match p.priority {
                        PriorityParam::Low => Priority::Low,
                        PriorityParam::Medium => Priority::Medium,
                        PriorityParam::High => Priority::High,
                        PriorityParam::Critical => Priority::Critical,
                    },
                    summary: p.summary,
                    supersedes: p.supersedes,
                },
                format: output(p.format),
            }
        }
        ToolKind::PackageList => {
            let p: PackageListParams = params(tool, args)?;
            Command::PackageList {
                request: ListRequest {
                    session: p.session,
                    agent: p.agent,
                    group: p.group,
                    limit: p.limit.map(clamp),
                    iteration: p.iteration,
                    min_priority: None,
                },
                format: output(p.format),
                secrets: Secrets::from_no_redact(p.no_redact),
            }
        }
        ToolKind::PackageConsume => {
            let p: PackageConsumeParams = params(tool, args)?;
            Command::PackageConsume {
                request: ConsumeRequest {
                    session: p.session,
                    agent: p.agent,
                    id: p.id,
                    iteration: p.iteration,
                },
                format: output(p.format),
            }
        }
        ToolKind::ErrorRecord => {
            let p: ErrorRecordParams = params(tool, args)?;
            Command::ErrorRecord {
                record: ErrorRecord {
                    project: p.project,
                    message: p.message,
                    solution: p.solution,
                    lang: p.lang,
                },
                format: output(p.format),
                secrets: Secrets::from_no_redact(p.no_redact),
            }
        }
        ToolKind::ErrorFeedback => {
            let p: ErrorFeedbackParams = params(tool, args)?;
            Command::ErrorFeedback {
                project: p.project,
                hash: p.hash,
                helped: p.helped,
                format: output(p.format),
            }
        }
        ToolKind::ErrorMatch => {
            let p: ErrorMatchParams = params(tool, args)?;
            Command::ErrorMatch {
                project: p.project,
                message: p.message,
                limit: p.limit.map_or(5, clamp),
                format: output(p.format),
                secrets: Secrets::from_no_redact(p.no_redact),
            }
        }
        other => {
            return Err(Failure::line(format!(
                "error: `{}` is not a session tool",
                other.name()
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message names a parameter by its tool name only where a tool takes that parameter.
    #[test]
    fn every_parameter_a_message_names_is_a_tool_parameter() {
        let named: Vec<String> = ToolKind::ALL
            .into_iter()
            .flat_map(|tool| {
                crate::schema::properties(&tool.schema())
                    .into_iter()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        for param in brief::command::Param::ALL {
            if let Some(name) = param.mcp() {
                assert!(named.iter().any(|n| n == name), "no tool takes `{name}`");
            }
        }
    }
}
