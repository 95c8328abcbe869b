//! The tools: their parameters (with JSON schemas), and one call each into the `brief`
//! library — the same call the CLI makes, so a tool returns the bytes the CLI prints.

use std::path::Path;
use std::sync::Arc;

use brief::engine::Engine;
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
}

impl ToolKind {
    /// Every tool, in the order `tools/list` gives them.
    pub const ALL: [ToolKind; 5] = [
        ToolKind::Context,
        ToolKind::Search,
        ToolKind::Show,
        ToolKind::Check,
        ToolKind::Lenses,
    ];

    /// The tool's name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::Context => "context",
            ToolKind::Search => "search",
            ToolKind::Show => "show",
            ToolKind::Check => "check",
            ToolKind::Lenses => "lenses",
        }
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
        }
    }

    /// The tool as `tools/list` describes it.
    pub fn tool(self) -> Tool {
        Tool::new(self.name(), self.description(), self.schema()).with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
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

fn encoding(p: EncodingParam) -> Encoding {
    match p {
        EncodingParam::Cl100k => Encoding::Cl100k,
        EncodingParam::O200k => Encoding::O200k,
    }
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
                target: p.target,
                depth: p.depth.as_ref().map(depth).transpose()?,
                detail: p.detail.map(detail),
                budget: p.budget.map(|b| b as usize),
                encoding: p.encoding.map(encoding),
                format: format(p.format),
                no_identity: p.no_identity,
                lens: p.lens,
                seeds: p.seeds.map(|s| s as usize),
                include_fields: p.include_fields,
            };
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
            engine
                .show(
                    &p.id,
                    p.detail.map(detail).unwrap_or(Detail::Full),
                    format(p.format),
                    p.encoding.map(encoding),
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
