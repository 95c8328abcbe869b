//! The tools' parameters as the client sends them, with their JSON schemas (from schemars,
//! made plain for strict validators by [`crate::schema`]). Context settings are defined once:
//! [`Scope`] (what a context selects) and [`Fit`] (how it is fitted), flattened into every
//! tool that takes them, as the CLI flattens its `ScopeArgs` and `FitArgs`.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;

/// The most detail any node gets.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum DetailParam {
    Full,
    Summary,
    Meta,
}

/// A tokenizer.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum EncodingParam {
    Cl100k,
    O200k,
}

/// An output format.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FormatParam {
    #[default]
    Markdown,
    Json,
    Text,
    Xml,
}

impl From<FormatParam> for brief::Format {
    fn from(p: FormatParam) -> brief::Format {
        match p {
            FormatParam::Markdown => brief::Format::Markdown,
            FormatParam::Json => brief::Format::Json,
            FormatParam::Text => brief::Format::Text,
            FormatParam::Xml => brief::Format::Xml,
        }
    }
}

/// The output format of `search`, `check`, `explain`, `diff` and the session tools.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ListFormatParam {
    #[default]
    Text,
    Json,
}

/// A number of hops, or "full".
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum DepthParam {
    /// A number of hops.
    Hops(u32),
    /// Text, parsed as a depth: `full` (or `all`), or a number of hops as a string.
    Word(String),
}

impl JsonSchema for DepthParam {
    fn schema_name() -> Cow<'static, str> {
        "Depth".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": u32::MAX},
                {"type": "string", "pattern": "^(full|all|[0-9]+)$"}
            ]
        })
    }
}

/// What a context selects: how far links are followed, through which lens, with or
/// without the project identity.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub(crate) struct Scope {
    /// How many hops to follow forward links: a number or "full" (default: 2 for Spec Graph
    /// and knowledge-base targets, full for Contextia artifacts, 1 from a weak match of words,
    /// or the project's brief.toml).
    pub depth: Option<DepthParam>,
    /// A lens: which relations to explore and what to boost (the `lenses` tool lists them).
    #[schemars(length(min = 1))]
    pub lens: Option<String>,
    /// Leave out the project identity document.
    #[serde(default)]
    pub no_identity: bool,
}

/// How a context is fitted: its budget, the most detail a node gets, the tokenizer.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub(crate) struct Fit {
    /// Token budget for the whole document (default: 4000, or the project's brief.toml).
    /// The document is never over it.
    #[schemars(range(min = 1))]
    pub budget: Option<u64>,
    /// The most detail any node gets; the budget may lower it per node (default: full).
    pub detail: Option<DetailParam>,
    /// Tokenizer used for counting (default: cl100k).
    pub encoding: Option<EncodingParam>,
}

/// Parameters of `context` (the CLI's `brief context`).
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ContextParams {
    /// The node id to assemble context for (e.g. "AUTH-01", "TASK-042"); a path (a page, a
    /// file or a folder: what governs it); a page and an anchor ("AGENTS.md#testing"); or
    /// words to search for: the best hits start the context (see `seeds`).
    #[schemars(length(min = 1), regex(pattern = r"\S"))]
    pub target: String,
    #[serde(flatten)]
    pub scope: Scope,
    #[serde(flatten)]
    pub fit: Fit,
    /// "markdown" (default): the document; "json": the audit view (why each node is in,
    /// what was left out); "text": compact blocks; "xml": each node a `<document>` element.
    #[serde(default)]
    pub format: FormatParam,
    /// When `target` is words: how many best search hits start the context together
    /// (ignored, with a note, when `target` is an id).
    #[schemars(range(min = 1))]
    pub seeds: Option<u64>,
    /// Show field values on cards (true, the default) or leave them out (false): Tana
    /// fields and artifacts' extra frontmatter fields.
    pub include_fields: Option<bool>,
    /// An agent session: the document becomes the token-zone document — the session's
    /// packages and error patterns for `agent`, then the graph context of `task` (or
    /// `target`), sized by how full the agent's window is.
    #[schemars(length(min = 1))]
    pub session: Option<String>,
    /// With `session`: the agent type asking (developer, qa_expert, tech_lead, …).
    #[schemars(length(min = 1))]
    pub agent: Option<String>,
    /// With `session`: the agent's task group.
    #[schemars(length(min = 1))]
    pub group: Option<String>,
    /// With `session`: the node whose graph context follows the session part [default: target].
    #[schemars(length(min = 1))]
    pub task: Option<String>,
    /// With `session`: the model, for its window size (claude, gpt-4o, gpt-4.1, o3, …).
    #[schemars(length(min = 1))]
    pub model: Option<String>,
    /// With `session`: the window in tokens, instead of `model`.
    #[schemars(range(min = 1))]
    pub window: Option<u64>,
    /// With `session`: tokens of the window already used (decides the zone).
    pub used_tokens: Option<u64>,
    /// With `session`: the project whose error patterns are shown.
    #[schemars(length(min = 1))]
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
pub(crate) enum PackageTypeParam {
    Research,
    Failures,
    Decisions,
    Handoff,
    Investigation,
}

/// A package priority.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PriorityParam {
    Low,
    Medium,
    High,
    Critical,
}

/// Parameters of `session_package_add`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PackageAddParams {
    /// The session id.
    #[schemars(length(min = 1))]
    pub session: String,
    /// The task group; without it the package is global to the session.
    #[schemars(length(min = 1))]
    pub group: Option<String>,
    /// What the package holds.
    #[serde(rename = "type")]
    pub kind: PackageTypeParam,
    /// The package's file, relative to the project root.
    #[schemars(length(min = 1))]
    pub file: String,
    /// The agent type that wrote it.
    #[schemars(length(min = 1))]
    pub producer: String,
    /// Agent types it is meant for (at least one).
    #[schemars(length(min = 1))]
    pub consumers: Vec<String>,
    /// How urgent it is for its consumers.
    pub priority: PriorityParam,
    /// What a reader learns from it, in a sentence or two.
    #[schemars(length(min = 1))]
    pub summary: String,
    /// The id of an earlier package of this session that this one replaces.
    pub supersedes: Option<i64>,
    /// "text" (default) or "json".
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `session_package_list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PackageListParams {
    /// The session id.
    #[schemars(length(min = 1))]
    pub session: String,
    /// The agent type asking (sets the default limit and the consumer relevance).
    #[schemars(length(min = 1))]
    pub agent: String,
    /// The agent's group: its packages and global ones rank first.
    #[schemars(length(min = 1))]
    pub group: Option<String>,
    /// Most packages to return [default: the agent type's retrieval limit].
    #[schemars(range(min = 1))]
    pub limit: Option<u64>,
    /// Packages this agent consumed in this iteration are left out [default: 1].
    pub iteration: Option<i64>,
    /// "text" (default) or "json".
    #[serde(default)]
    pub format: ListFormatParam,
    /// Do not redact secrets in the output.
    #[serde(default)]
    pub no_redact: bool,
}

/// Parameters of `session_package_consume`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PackageConsumeParams {
    /// The session id.
    #[schemars(length(min = 1))]
    pub session: String,
    /// The agent type that read the package.
    #[schemars(length(min = 1))]
    pub agent: String,
    /// The package id.
    pub id: i64,
    /// [default: 1]
    pub iteration: Option<i64>,
    /// "text" (default) or "json".
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `session_error_record`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ErrorRecordParams {
    /// The project the error belongs to.
    #[schemars(length(min = 1))]
    pub project: String,
    /// The error message as seen (paths, line numbers, quoted values and secrets are
    /// blanked before it is hashed and stored).
    #[schemars(length(min = 1))]
    pub message: String,
    /// What fixed it.
    #[schemars(length(min = 1))]
    pub solution: String,
    /// The language (rust, ts, python, …).
    #[schemars(length(min = 1))]
    pub lang: Option<String>,
    /// "text" (default) or "json".
    #[serde(default)]
    pub format: ListFormatParam,
    /// Do not redact secrets in the output.
    #[serde(default)]
    pub no_redact: bool,
}

/// Parameters of `session_error_feedback`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ErrorFeedbackParams {
    /// The project the pattern belongs to.
    #[schemars(length(min = 1))]
    pub project: String,
    /// The pattern's signature hash (or a unique prefix of it).
    #[schemars(length(min = 1))]
    pub hash: String,
    /// Whether the recorded solution helped this time.
    pub helped: bool,
    /// "text" (default) or "json".
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `session_error_match`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ErrorMatchParams {
    /// The project whose patterns to look in.
    #[schemars(length(min = 1))]
    pub project: String,
    /// The error message to look up.
    #[schemars(length(min = 1))]
    pub message: String,
    /// Most patterns to return [default: 5].
    #[schemars(range(min = 1))]
    pub limit: Option<u64>,
    /// "text" (default) or "json".
    #[serde(default)]
    pub format: ListFormatParam,
    /// Do not redact secrets in the output.
    #[serde(default)]
    pub no_redact: bool,
}

/// Parameters of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SearchParams {
    /// Words to look for in ids, titles, bodies and fields (BM25; an exact id first).
    #[schemars(length(min = 1), regex(pattern = r"\S"))]
    pub query: String,
    /// Most hits to return (default 10).
    #[schemars(range(min = 1))]
    pub limit: Option<u64>,
    /// Only nodes of this kind (behavior, decision, spec, task, …).
    #[schemars(length(min = 1))]
    pub kind: Option<String>,
    /// "text" (default): one line per hit; "json": a list of {id, kind, title, score}.
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `show`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ShowParams {
    /// The node id to print.
    #[schemars(length(min = 1))]
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
pub(crate) struct CheckParams {
    /// "text" (default): `path:line:col: severity[rule]: message` lines; "json".
    #[serde(default)]
    pub format: ListFormatParam,
    /// Run only these rules (ids as listed by `brief check --list-rules`).
    #[serde(default)]
    pub rules: Vec<String>,
    /// A baseline file (relative to the project root) whose findings are hidden.
    #[schemars(length(min = 1))]
    pub baseline: Option<String>,
    /// Fail on warnings too, not only on errors (with a baseline: on any new finding).
    #[serde(default)]
    pub strict: bool,
}

/// Parameters of `impact`: `ids`, or `since`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ImpactParams {
    /// The node ids whose impact to list (e.g. ["DEC-CORE-03"]).
    #[serde(default)]
    pub ids: Vec<String>,
    /// Instead of ids: every target whose context changes between this git revision and the
    /// working tree (format "markdown" gives a pull-request comment).
    #[schemars(length(min = 1))]
    pub since: Option<String>,
    #[serde(flatten)]
    pub scope: Scope,
    /// "text" (default): targets grouped by kind with their chains; "json":
    /// {"nodes": [...], "targets": [{"id", "kind", "chain"}]}; "markdown" (with `since`).
    #[serde(default)]
    pub format: SinceFormatParam,
}

/// The output format of `impact`.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SinceFormatParam {
    #[default]
    Text,
    Json,
    Markdown,
}

/// Parameters of `diff`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DiffParams {
    /// The target whose context to compare: an id, or words as for `context`.
    #[schemars(length(min = 1), regex(pattern = r"\S"))]
    pub target: String,
    /// The older git revision (a commit, tag, HEAD~2, …).
    #[schemars(length(min = 1))]
    pub from: String,
    /// The newer revision (default: the working tree).
    #[schemars(length(min = 1))]
    pub to: Option<String>,
    #[serde(flatten)]
    pub scope: Scope,
    #[serde(flatten)]
    pub fit: Fit,
    /// "text" (default) or "json".
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `explain`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ExplainParams {
    /// The node to explain.
    #[schemars(length(min = 1))]
    pub id: String,
    /// The target whose context is asked about, read as `context` reads it: an id, a file
    /// path, or words.
    #[serde(rename = "for")]
    #[schemars(length(min = 1))]
    pub target: String,
    #[serde(flatten)]
    pub scope: Scope,
    #[serde(flatten)]
    pub fit: Fit,
    /// "text" (default) or "json".
    #[serde(default)]
    pub format: ListFormatParam,
}

/// Parameters of `lenses` (none).
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct NoParams {}
