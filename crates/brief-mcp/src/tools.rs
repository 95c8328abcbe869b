//! The tools: their parameters (with JSON schemas), and one call each into the `brief`
//! library — the same call the CLI makes, so a tool returns the bytes the CLI prints.

use std::sync::Arc;

use brief::command::{Check, Command as Run, FrontEnd, Host, SessionContext};
use brief::engine::Engine;
use brief::session::commands::Command;
use brief::session::render::Output;
use brief::session::{ConsumeRequest, ErrorRecord, ListRequest, NewPackage, PackageType, Priority};
use brief::{ContextRequest, Depth, Detail, Encoding, Format};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};

pub use crate::params::*;
use serde::de::DeserializeOwned;

/// A tool the server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
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
    pub const ALL: [ToolKind; 14] = [
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
    pub fn name(self) -> &'static str {
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
    pub fn named(name: &str) -> Option<ToolKind> {
        ToolKind::ALL.into_iter().find(|t| t.name() == name)
    }

    fn description(self) -> &'static str {
        match self {
            ToolKind::Context => {
                "Call this before you start work on a task, spec, feature or topic. Returns the one \
                 document you need: the target and every decision, policy and norm that applies to \
                 it (found by following the project's explicit links), fitted exactly to a token \
                 budget, with why each node is included and what was left out. `target` is a node \
                 id or words to search for."
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

    fn schema(self) -> Arc<JsonObject> {
        use rmcp::handler::server::common::schema_for_type;
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
    pub fn tool(self) -> Tool {
        Tool::new(self.name(), self.description(), self.schema()).with_annotations(
            ToolAnnotations::new()
                .read_only(self.read_only())
                .destructive(false)
                .idempotent(self.read_only())
                .open_world(false),
        )
    }
}

/// What a successful call returns: the CLI's stdout, then its stderr notes (warnings).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub text: String,
    pub notes: Vec<String>,
}

/// Why a call failed, in the lines the CLI would print on stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure(pub Vec<String>);

impl Failure {
    fn line(line: impl Into<String>) -> Failure {
        Failure(vec![line.into()])
    }
}

fn params<T: DeserializeOwned>(tool: ToolKind, args: JsonObject) -> Result<T, Failure> {
    serde_json::from_value(serde_json::Value::Object(args)).map_err(|e| {
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
    match p {
        FormatParam::Markdown => Format::Markdown,
        FormatParam::Json => Format::Json,
        FormatParam::Text => Format::Text,
    }
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
pub fn call(engine: &mut Engine, tool: ToolKind, args: JsonObject) -> Result<Reply, Failure> {
    let command = command(tool, args)?;
    let outcome = brief::command::run(&command, Host::Engine(engine), FrontEnd::Mcp);
    match outcome.error_lines() {
        Some(lines) => Err(Failure(lines.to_vec())),
        None => Ok(Reply {
            text: outcome.text,
            notes: outcome.notes,
        }),
    }
}

/// The library command a tool call asks for (field mapping only).
pub fn command(tool: ToolKind, args: JsonObject) -> Result<Run, Failure> {
    Ok(match tool {
        ToolKind::Context => {
            let p: ContextParams = params(tool, args)?;
            let request = ContextRequest {
                target: p.target,
                depth: p.depth.as_ref().map(depth).transpose()?,
                detail: p.detail.map(detail),
                budget: p.budget.map(|b| b as usize),
                encoding: p.encoding.map(encoding).transpose()?,
                format: format(p.format),
                no_identity: p.no_identity,
                lens: p.lens,
                seeds: p.seeds.map(|s| s as usize),
                include_fields: p.include_fields,
            };
            let session = p.session.map(|session| SessionContext {
                session,
                agent: p.agent.unwrap_or_default(),
                group: p.group,
                task: p.task,
                model: p.model,
                window: p.window.map(|w| w as usize),
                used_tokens: p.used_tokens.unwrap_or(0) as usize,
                project: p.project,
                iteration: p.iteration,
                redact: !p.no_redact,
            });
            Run::Context { request, session }
        }
        ToolKind::Search => {
            let p: SearchParams = params(tool, args)?;
            Run::Search {
                query: p.query,
                limit: p.limit.unwrap_or(10) as usize,
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
        ToolKind::Impact => {
            let p: ImpactParams = params(tool, args)?;
            Run::Impact {
                request: ContextRequest {
                    depth: p.depth.as_ref().map(depth).transpose()?,
                    lens: p.lens,
                    no_identity: p.no_identity,
                    format: match p.format {
                        SinceFormatParam::Text => Format::Text,
                        SinceFormatParam::Json => Format::Json,
                        SinceFormatParam::Markdown => Format::Markdown,
                    },
                    ..ContextRequest::default()
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
                    depth: p.depth.as_ref().map(depth).transpose()?,
                    budget: p.budget.map(|b| b as usize),
                    encoding: p.encoding.map(encoding).transpose()?,
                    lens: p.lens,
                    no_identity: p.no_identity,
                    format: list_format(p.format),
                    ..ContextRequest::default()
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
                    depth: p.depth.as_ref().map(depth).transpose()?,
                    detail: p.detail.map(detail),
                    budget: p.budget.map(|b| b as usize),
                    encoding: p.encoding.map(encoding).transpose()?,
                    lens: p.lens,
                    no_identity: p.no_identity,
                    format: list_format(p.format),
                    ..ContextRequest::default()
                },
            }
        }
        ToolKind::PackageAdd
        | ToolKind::PackageList
        | ToolKind::PackageConsume
        | ToolKind::ErrorRecord
        | ToolKind::ErrorFeedback
        | ToolKind::ErrorMatch => Run::Session(session_command(tool, args)?),
    })
}

fn output(p: ListFormatParam) -> Output {
    match p {
        ListFormatParam::Text => Output::Text,
        ListFormatParam::Json => Output::Json,
    }
}

/// The session tools: one `brief::session::commands::Command` each, as the CLI runs them.
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
                    limit: p.limit.map(|l| l as usize),
                    iteration: p.iteration,
                    min_priority: None,
                },
                format: output(p.format),
                redact: !p.no_redact,
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
                redact: !p.no_redact,
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
                limit: p.limit.map_or(5, |l| l as usize),
                format: output(p.format),
                redact: !p.no_redact,
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
