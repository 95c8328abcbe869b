//! The tools: their parameters (with JSON schemas), and one call each into the `brief`
//! library — the same call the CLI makes, so a tool returns the bytes the CLI prints.

use std::path::Path;
use std::sync::Arc;

use brief::engine::Engine;
use brief::session::commands::Command;
use brief::session::render::Output;
use brief::session::{
    self, ConsumeRequest, ErrorRecord, ListRequest, NewPackage, PackageType, Priority,
    SessionError, ZoneRequest,
};
use brief::{ContextRequest, Depth, Detail, Encoding, Format};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// The most detail any node gets.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DetailParam {
    Full,
    Summary,
    Meta,
}

/// A tokenizer.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EncodingParam {
    Cl100k,
    O200k,
}

/// An output format.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FormatParam {
    #[default]
    Markdown,
    Json,
    Text,
}

/// The output format of `search` and `check`.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ListFormatParam {
    #[default]
    Text,
    Json,
}

/// A number of hops, or "full".
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum DepthParam {
    Hops(u32),
    Word(String),
}

/// Parameters of `context` (the CLI's `brief context`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextParams {
    /// The node id to assemble context for (e.g. "AUTH-01", "TASK-042"), or words to search
    /// for: the best hit becomes the target (see `seeds`).
    pub target: String,
    /// How many hops to follow forward links: a number or "full" (default: 2 for Spec Graph
    /// targets, full for artifacts, or the project's brief.toml).
    pub depth: Option<DepthParam>,
    /// The most detail any node gets; the budget may lower it per node (default: full).
    pub detail: Option<DetailParam>,
    /// Token budget for the whole document (default: 4000, or the project's brief.toml).
    /// The document is never over it.
    pub budget: Option<u64>,
    /// Tokenizer used for counting (default: cl100k).
    pub encoding: Option<EncodingParam>,
    /// A lens: which relations to explore and what to boost (the `lenses` tool lists them).
    pub lens: Option<String>,
    /// "markdown" (default): the document; "json": the audit view (why each node is in,
    /// what was left out); "text": compact blocks.
    #[serde(default)]
    pub format: FormatParam,
    /// When `target` is a query: how many best search hits start the context together.
    pub seeds: Option<u64>,
    /// Leave out the project identity document.
    #[serde(default)]
    pub no_identity: bool,
    /// Show field values on cards (true, the default) or leave them out (false): Tana
    /// fields and artifacts' extra frontmatter fields.
    pub include_fields: Option<bool>,
    /// An agent session: the document becomes the token-zone document — the session's
    /// packages and error patterns for `agent`, then the graph context of `task` (or
    /// `target`), sized by how full the agent's window is.
    pub session: Option<String>,
    /// With `session`: the agent type asking (developer, qa_expert, tech_lead, …).
    pub agent: Option<String>,
    /// With `session`: the agent's task group.
    pub group: Option<String>,
    /// With `session`: the node whose graph context follows the session part [default: target].
    pub task: Option<String>,
    /// With `session`: the model, for its window size (claude, gpt-4o, gpt-4.1, o3, …).
    pub model: Option<String>,
    /// With `session`: the window in tokens, instead of `model`.
    pub window: Option<u64>,
    /// With `session`: tokens of the window already used (decides the zone).
    pub used_tokens: Option<u64>,
    /// With `session`: the project whose error patterns are shown.
    pub project: Option<String>,
    /// With `session`: packages consumed in this iteration are left out [default: 1].
    pub iteration: Option<i64>,
    /// With `session`: do not redact secrets in the session part.
    #[serde(default)]
    pub no_redact: bool,
}

/// A package type.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PackageTypeParam {
    Research,
    Failures,
    Decisions,
    Handoff,
    Investigation,
}

/// A package priority.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PriorityParam {
    Low,
    Medium,
    High,
    Critical,
}

/// Parameters of `session_package_add`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackageAddParams {
    /// The session id.
    pub session: String,
    /// The task group; without it the package is global to the session.
    pub group: Option<String>,
    /// What the package holds.
    #[serde(rename = "type")]
    pub kind: PackageTypeParam,
    /// The package's file, relative to the project root.
    pub file: String,
    /// The agent type that wrote it.
    pub producer: String,
    /// Agent types it is meant for (at least one).
    pub consumers: Vec<String>,
    pub priority: PriorityParam,
    /// What a reader learns from it, in a sentence or two.
    pub summary: String,
    /// The id of an earlier package of this session that this one replaces.
    pub supersedes: Option<i64>,
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `session_package_list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackageListParams {
    pub session: String,
    /// The agent type asking (sets the default limit and the consumer relevance).
    pub agent: String,
    /// The agent's group: its packages and global ones rank first.
    pub group: Option<String>,
    /// Most packages to return [default: the agent type's retrieval limit].
    pub limit: Option<u64>,
    /// Packages this agent consumed in this iteration are left out [default: 1].
    pub iteration: Option<i64>,
    #[serde(default)]
    pub format: ListFormatParam,
    /// Do not redact secrets in the output.
    #[serde(default)]
    pub no_redact: bool,
}

/// Parameters of `session_package_consume`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackageConsumeParams {
    pub session: String,
    pub agent: String,
    /// The package id.
    pub id: i64,
    /// [default: 1]
    pub iteration: Option<i64>,
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `session_error_record`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorRecordParams {
    pub project: String,
    /// The error message as seen (paths, line numbers, quoted values and secrets are
    /// blanked before it is hashed and stored).
    pub message: String,
    /// What fixed it.
    pub solution: String,
    /// The language (rust, ts, python, …).
    pub lang: Option<String>,
    #[serde(default)]
    pub format: ListFormatParam,
    #[serde(default)]
    pub no_redact: bool,
}

/// Parameters of `session_error_feedback`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorFeedbackParams {
    pub project: String,
    /// The pattern's signature hash (or a unique prefix of it).
    pub hash: String,
    /// Whether the recorded solution helped this time.
    pub helped: bool,
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `session_error_match`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorMatchParams {
    pub project: String,
    /// The error message to look up.
    pub message: String,
    /// Most patterns to return [default: 5].
    pub limit: Option<u64>,
    #[serde(default)]
    pub format: ListFormatParam,
    #[serde(default)]
    pub no_redact: bool,
}

/// Parameters of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// Words to look for in ids, titles, bodies and fields (BM25; an exact id first).
    pub query: String,
    /// Most hits to return (default 10).
    pub limit: Option<u64>,
    /// Only nodes of this kind (behavior, decision, spec, task, …).
    pub kind: Option<String>,
    /// "text" (default): one line per hit; "json": a list of {id, kind, title, score}.
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `show`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowParams {
    /// The node id to print.
    pub id: String,
    /// Detail level (default: full).
    pub detail: Option<DetailParam>,
    /// "markdown" (default), "json" or "text".
    #[serde(default)]
    pub format: FormatParam,
    /// Tokenizer for the token count in JSON (default: cl100k).
    pub encoding: Option<EncodingParam>,
}

/// Parameters of `check`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckParams {
    /// "text" (default): `path:line:col: severity[rule]: message` lines; "json".
    #[serde(default)]
    pub format: ListFormatParam,
    /// Run only these rules (ids as listed by `brief check --list-rules`).
    #[serde(default)]
    pub rules: Vec<String>,
    /// A baseline file (relative to the project root) whose findings are hidden.
    pub baseline: Option<String>,
}

/// Parameters of `impact`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpactParams {
    /// The node ids whose impact to list (e.g. ["DEC-CORE-03"]).
    #[serde(default)]
    pub ids: Vec<String>,
    /// Instead of ids: every target whose context changes between this git revision and the
    /// working tree (format "markdown" gives a pull-request comment).
    pub since: Option<String>,
    /// Contexts' depth: a number or "full" (default: as `context` per target).
    pub depth: Option<DepthParam>,
    /// A lens, as for `context`.
    pub lens: Option<String>,
    /// Contexts without the project identity.
    #[serde(default)]
    pub no_identity: bool,
    /// "text" (default): targets grouped by kind with their chains; "json":
    /// {"nodes": [...], "targets": [{"id", "kind", "chain"}]}; "markdown" (with `since`).
    #[serde(default)]
    pub format: SinceFormatParam,
}

/// The output format of `impact`.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SinceFormatParam {
    #[default]
    Text,
    Json,
    Markdown,
}

/// Parameters of `diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffParams {
    /// The target whose context to compare.
    pub target: String,
    /// The older git revision (a commit, tag, HEAD~2, …).
    pub from: String,
    /// The newer revision (default: the working tree).
    pub to: Option<String>,
    /// As for `context`.
    pub depth: Option<DepthParam>,
    /// As for `context`.
    pub budget: Option<u64>,
    /// As for `context`.
    pub encoding: Option<EncodingParam>,
    /// As for `context`.
    pub lens: Option<String>,
    /// As for `context`.
    #[serde(default)]
    pub no_identity: bool,
    /// "text" (default) or "json".
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `explain`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExplainParams {
    /// The node to explain.
    pub id: String,
    /// The target whose context is asked about.
    #[serde(rename = "for")]
    pub target: String,
    /// As for `context`.
    pub depth: Option<DepthParam>,
    /// As for `context`: the budget whose fit gives the node's detail.
    pub budget: Option<u64>,
    /// As for `context`.
    pub detail: Option<DetailParam>,
    /// As for `context`.
    pub encoding: Option<EncodingParam>,
    /// As for `context`.
    pub lens: Option<String>,
    /// As for `context`.
    #[serde(default)]
    pub no_identity: bool,
    /// "text" (default) or "json".
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `lenses` (none).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

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

impl Reply {
    fn text(text: String) -> Reply {
        Reply {
            text,
            notes: Vec::new(),
        }
    }
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

fn engine_failure(engine: &Engine, error: brief::EngineError) -> Failure {
    Failure(error.describe(&engine.project.root))
}

/// Runs one tool call on the engine.
pub fn call(engine: &mut Engine, tool: ToolKind, args: JsonObject) -> Result<Reply, Failure> {
    match tool {
        ToolKind::Context => {
            let p: ContextParams = params(tool, args)?;
            let request = ContextRequest {
                target: p.target.clone(),
                depth: p.depth.as_ref().map(depth).transpose()?,
                detail: p.detail.map(detail),
                budget: p.budget.map(|b| b as usize),
                encoding: p.encoding.map(encoding).transpose()?,
                format: format(p.format),
                no_identity: p.no_identity,
                lens: p.lens.clone(),
                seeds: p.seeds.map(|s| s as usize),
                include_fields: p.include_fields,
            };
            if p.session.is_some() {
                return zone_context(engine, p, request);
            }
            let out = engine
                .context(&request)
                .map_err(|e| engine_failure(engine, e))?;
            let root = engine.project.root.clone();
            Ok(Reply {
                text: out.text,
                notes: out
                    .warnings
                    .iter()
                    .map(|w| format!("warning: {}", brief::engine::located(&root, w)))
                    .collect(),
            })
        }
        ToolKind::Search => {
            let p: SearchParams = params(tool, args)?;
            let limit = p.limit.unwrap_or(10) as usize;
            let hits = engine
                .search(&p.query, limit, p.kind.as_deref())
                .map_err(|e| engine_failure(engine, e))?;
            if hits.is_empty() {
                return Err(Failure::line(format!("no match for `{}`", p.query)));
            }
            Ok(Reply::text(brief::render::search::hits(
                &hits,
                list_format(p.format),
            )))
        }
        ToolKind::Show => {
            let p: ShowParams = params(tool, args)?;
            let encoding = p.encoding.map(encoding).transpose()?;
            engine
                .show(
                    &p.id,
                    p.detail.map(detail).unwrap_or(Detail::Full),
                    format(p.format),
                    encoding,
                )
                .map(Reply::text)
                .map_err(|e| engine_failure(engine, e))
        }
        ToolKind::Check => {
            let p: CheckParams = params(tool, args)?;
            check(&engine.project, p).map(Reply::text)
        }
        ToolKind::Lenses => {
            let _: NoParams = params(tool, args)?;
            let lenses = brief::lens::all(&engine.project.defaults.lenses)
                .map_err(|e| Failure::line(format!("error: {e}")))?;
            Ok(Reply::text(
                lenses.iter().map(|l| format!("{l}\n")).collect::<String>(),
            ))
        }
        ToolKind::Impact => {
            let p: ImpactParams = params(tool, args)?;
            let request = ContextRequest {
                depth: p.depth.as_ref().map(depth).transpose()?,
                lens: p.lens.clone(),
                no_identity: p.no_identity,
                format: match p.format {
                    SinceFormatParam::Text => Format::Text,
                    SinceFormatParam::Json => Format::Json,
                    SinceFormatParam::Markdown => Format::Markdown,
                },
                ..ContextRequest::default()
            };
            match &p.since {
                Some(rev) => engine.since(&request, rev),
                None => engine.impact(&p.ids, &request),
            }
            .map(Reply::text)
            .map_err(|e| engine_failure(engine, e))
        }
        ToolKind::Diff => {
            let p: DiffParams = params(tool, args)?;
            let request = ContextRequest {
                target: p.target.clone(),
                depth: p.depth.as_ref().map(depth).transpose()?,
                budget: p.budget.map(|b| b as usize),
                encoding: p.encoding.map(encoding).transpose()?,
                lens: p.lens.clone(),
                no_identity: p.no_identity,
                format: list_format(p.format),
                ..ContextRequest::default()
            };
            engine
                .diff(&request, &p.from, p.to.as_deref())
                .map(Reply::text)
                .map_err(|e| engine_failure(engine, e))
        }
        ToolKind::Explain => {
            let p: ExplainParams = params(tool, args)?;
            let request = ContextRequest {
                target: p.target.clone(),
                depth: p.depth.as_ref().map(depth).transpose()?,
                detail: p.detail.map(detail),
                budget: p.budget.map(|b| b as usize),
                encoding: p.encoding.map(encoding).transpose()?,
                lens: p.lens.clone(),
                no_identity: p.no_identity,
                format: list_format(p.format),
                ..ContextRequest::default()
            };
            engine
                .explain(&p.id, &request)
                .map(Reply::text)
                .map_err(|e| engine_failure(engine, e))
        }
        ToolKind::PackageAdd
        | ToolKind::PackageList
        | ToolKind::PackageConsume
        | ToolKind::ErrorRecord
        | ToolKind::ErrorFeedback
        | ToolKind::ErrorMatch => run_session(engine, tool, args),
    }
}

fn session_failure(e: SessionError) -> Failure {
    Failure::line(format!("error: {e}"))
}

/// `context` with `session`: the token-zone document, as `brief context --session` prints it.
fn zone_context(
    engine: &mut Engine,
    p: ContextParams,
    context: ContextRequest,
) -> Result<Reply, Failure> {
    let now = session::commands::now().map_err(session_failure)?;
    let task = p.task.clone().or(Some(p.target.clone()));
    let request = ZoneRequest {
        session: p.session.unwrap_or_default(),
        agent: p.agent.unwrap_or_default(),
        group: p.group,
        task,
        model: p.model,
        window: p.window.map(|w| w as usize),
        used_tokens: p.used_tokens.unwrap_or(0) as usize,
        project: p.project,
        iteration: p.iteration,
        redact: !p.no_redact,
        context: ContextRequest {
            target: String::new(),
            ..context
        },
    };
    let project = engine.project.clone();
    let out =
        session::zone_context(&project, Some(engine), &request, now).map_err(session_failure)?;
    Ok(Reply {
        text: out.text,
        notes: out
            .warnings
            .iter()
            .map(|w| format!("warning: {w}"))
            .collect(),
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

fn run_session(engine: &Engine, tool: ToolKind, args: JsonObject) -> Result<Reply, Failure> {
    let command = session_command(tool, args)?;
    let now = session::commands::now().map_err(session_failure)?;
    let outcome =
        session::commands::run(&engine.project.root, &engine.project.session, &command, now)
            .map_err(session_failure)?;
    match outcome.nothing_found {
        Some(line) => Err(Failure::line(line)),
        None => Ok(Reply {
            text: outcome.text,
            notes: outcome.notes,
        }),
    }
}

fn check(project: &brief::Project, p: CheckParams) -> Result<String, Failure> {
    use brief::check::{Baseline, CheckOptions};
    let baseline = match &p.baseline {
        Some(path) => Some(
            Baseline::read(&resolve_inside(&project.root, path)?)
                .map_err(|e| Failure::line(format!("error: {e}")))?,
        ),
        None => None,
    };
    let options = CheckOptions {
        rules: p.rules,
        baseline,
    };
    let report =
        brief::check::run(project, &options).map_err(|e| Failure::line(format!("error: {e}")))?;
    Ok(match p.format {
        ListFormatParam::Json => report.json(),
        ListFormatParam::Text => report.text(&project.root),
    })
}

/// A path the client names, kept inside the project root: a server never reads outside it.
fn resolve_inside(root: &Path, path: &str) -> Result<std::path::PathBuf, Failure> {
    let relative = Path::new(path);
    let escapes = relative.is_absolute()
        || relative
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
    if escapes {
        return Err(Failure::line(format!(
            "error: `{path}` is outside the project: name a file relative to its root"
        )));
    }
    Ok(root.join(relative))
}
