//! The MCP handler: tools, resources and a prompt over one shared [`Engine`].
//!
//! Every request runs on a blocking thread with the engine locked; the engine keeps its
//! index, caches and counted tokens between requests and refreshes only after the file
//! watcher signals a change.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use brief::engine::{ChangeSignal, Engine};
use brief::{Detail, EngineError, Format};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::tools::{self, Failure, ToolKind};

/// The identity resource.
pub const IDENTITY_URI: &str = "brief://identity";
/// The node index resource.
pub const NODES_URI: &str = "brief://nodes";
/// Nodes by id: `brief://node/{id}`.
const NODE_PREFIX: &str = "brief://node/";
/// The prompt that tells an agent to fetch context first.
pub const PROMPT_NAME: &str = "brief-before-task";

const INSTRUCTIONS: &str = "\
brief assembles the context an agent needs before it works on one thing. Before you start a \
task, call the `context` tool with the task's id (or words describing it) and read the whole \
document: it holds every decision, policy and norm that applies, why each is included, and what \
did not fit the budget. Use `search` to find ids and `show` to read one node.";

/// Where the engine comes from and what tells it files changed.
pub struct Shared {
    root: Option<PathBuf>,
    cwd: PathBuf,
    engine: Mutex<Option<Engine>>,
    /// Marked by the watcher on any change under the root.
    pub changes: ChangeSignal,
    /// Marked when `brief.toml` changed: the project is opened again.
    pub config_changed: AtomicBool,
    /// Whether a file watcher marks `changes`; without one every request checks the files.
    pub watching: AtomicBool,
    /// Why the watcher stopped seeing every change (it could not watch a new folder), if it
    /// did: from then on every request checks the files and no other process is vouched for.
    pub lost_track: Mutex<Option<String>>,
    /// An index file another brief put in place that this one cannot use: not adopted, and
    /// not rebuilt either. Held open, so that its inode cannot be reused by a new index file
    /// that would then look like it.
    foreign_index: Mutex<Option<(std::fs::File, (u64, u64))>>,
    /// Folders created in the last few seconds, which the watcher may not watch yet.
    pub recent_folders: Mutex<Vec<(std::time::Instant, String)>>,
}

impl Shared {
    /// Opens the project once, so a server started in the wrong place fails at once.
    pub fn open(root: Option<PathBuf>, cwd: PathBuf) -> Result<Shared, EngineError> {
        let changes = ChangeSignal::default();
        let mut engine = Engine::open(root.as_deref(), &cwd)?;
        engine.refresh_on(changes.clone());
        Ok(Shared {
            root,
            cwd,
            engine: Mutex::new(Some(engine)),
            changes,
            config_changed: AtomicBool::new(false),
            watching: AtomicBool::new(false),
            lost_track: Mutex::new(None),
            foreign_index: Mutex::new(None),
            recent_folders: Mutex::new(Vec::new()),
        })
    }

    /// The project root.
    pub fn root(&self) -> PathBuf {
        self.with_engine(|e| Ok(e.project.root.clone()))
            .unwrap_or_else(|_| self.cwd.clone())
    }

    /// Runs `op` on the engine, opening the project again first when its config changed.
    pub fn with_engine<T>(
        &self,
        op: impl FnOnce(&mut Engine) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        // A panic in an earlier request poisons the lock; the engine itself is still whole
        // (every write to it is a SQLite transaction), so keep serving.
        let mut slot = self.engine.lock().unwrap_or_else(|p| p.into_inner());
        if !self.watching.load(Ordering::SeqCst) {
            self.changes.mark();
        }
        // Another process rebuilt the index file (a reset, new sources, another version):
        // this engine's connection still reads the old one.
        let replaced = slot.as_ref().and_then(|e| {
            let now = e.index().file_now();
            let foreign = self
                .foreign_index
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .as_ref()
                .map(|(_, id)| *id);
            (e.index().was_replaced() && (now.is_none() || now != foreign)).then_some(now)
        });
        if let Some(now) = replaced {
            if let Ok(candidate) = Engine::open(self.root.as_deref(), &self.cwd) {
                // A file this version cannot use (another brief's schema) is left alone:
                // rebuilding it would make the other brief rebuild ours, back and forth.
                // The old connection keeps serving this process; it vouches for no one.
                let held = candidate.index().cache_dir().and_then(|cache| {
                    let file = std::fs::File::open(cache.real_path("index.db")).ok()?;
                    // The file opened must be the one identified (it may have moved on).
                    (identity_of(&file) == now).then_some(file)
                });
                if let (Some(now), Some(file), true) = (now, held, candidate.index().is_unbuilt()) {
                    *self.foreign_index.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some((file, now));
                } else {
                    self.changes.mark_lost();
                    let mut engine = candidate;
                    engine.refresh_on(self.changes.clone());
                    *slot = Some(engine);
                }
            }
        }
        if self.config_changed.swap(false, Ordering::SeqCst) || slot.is_none() {
            *slot = None;
            let mut engine = Engine::open(self.root.as_deref(), &self.cwd).map_err(|e| {
                self.config_changed.store(true, Ordering::SeqCst);
                Failure(e.describe(self.root.as_deref().unwrap_or(&self.cwd)))
            })?;
            // A new engine knows nothing of the changes the old one saw: check every file.
            self.changes.mark_lost();
            engine.refresh_on(self.changes.clone());
            *slot = Some(engine);
        }
        match slot.as_mut() {
            Some(engine) => op(engine),
            None => Err(Failure(vec!["error: the project is not open".into()])),
        }
    }
}

/// Device and inode of an open file, as `PrivateDir::identity` gives them.
fn identity_of(file: &std::fs::File) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        file.metadata().ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        file.metadata().ok().map(|_| (0, 0))
    }
}

/// The MCP server.
#[derive(Clone)]
pub struct BriefServer {
    shared: Arc<Shared>,
}

impl BriefServer {
    /// A server over a shared engine.
    pub fn new(shared: Arc<Shared>) -> BriefServer {
        BriefServer { shared }
    }

    /// Runs `op` on a blocking thread; a panic inside becomes an internal error.
    async fn blocking<T: Send + 'static>(
        &self,
        op: impl FnOnce(&Shared) -> Result<T, Failure> + Send + 'static,
    ) -> Result<T, Failure> {
        let shared = Arc::clone(&self.shared);
        match tokio::task::spawn_blocking(move || op(&shared)).await {
            Ok(result) => result,
            Err(_) => Err(Failure(vec![
                "error: internal error while serving this request (this is a bug; please report it)"
                    .into(),
            ])),
        }
    }

    fn show_markdown(shared: &Shared, id: &str) -> Result<String, Failure> {
        shared.with_engine(|engine| {
            engine
                .show(id, Detail::Full, Format::Markdown, None)
                .map_err(|e| Failure(e.describe(&engine.project.root)))
        })
    }
}

fn text_resource(uri: &str, text: String, mime: &str) -> ReadResourceResponse {
    ReadResourceResult::new(vec![ResourceContents::text(text, uri).with_mime_type(mime)]).into()
}

impl ServerHandler for BriefServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("brief", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            ToolKind::ALL.into_iter().map(ToolKind::tool).collect(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        ToolKind::named(name).map(ToolKind::tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = ToolKind::named(&request.name) else {
            let known: Vec<&str> = ToolKind::ALL.iter().map(|t| t.name()).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`: this server has {}",
                    request.name,
                    known.join(", ")
                ),
                None,
            ));
        };
        let args = request.arguments.unwrap_or_default();
        let result = self
            .blocking(move |shared| shared.with_engine(|engine| tools::call(engine, tool, args)))
            .await;
        Ok(match result {
            Ok(reply) => {
                let mut content = vec![ContentBlock::text(reply.text)];
                if !reply.notes.is_empty() {
                    content.push(ContentBlock::text(reply.notes.join("\n") + "\n"));
                }
                CallToolResult::success(content)
            }
            Err(Failure(lines)) => {
                CallToolResult::error(vec![ContentBlock::text(lines.join("\n") + "\n")])
            }
        }
        .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let identity = self
            .blocking(|shared| {
                shared.with_engine(|e| e.identity_id().map_err(|e| Failure(vec![e.to_string()])))
            })
            .await
            .unwrap_or(None);
        let mut resources = Vec::new();
        if let Some(id) = identity {
            resources.push(
                Resource::new(IDENTITY_URI, "identity")
                    .with_title(format!("Project identity ({id})"))
                    .with_description(
                        "What the project is, its conventions and constraints: the document \
                         every context starts with.",
                    )
                    .with_mime_type("text/markdown"),
            );
        }
        resources.push(
            Resource::new(NODES_URI, "nodes")
                .with_title("Node index")
                .with_description(
                    "Every node of the knowledge graph, one `ID<TAB>kind<TAB>title` line each, \
                     sorted by id.",
                )
                .with_mime_type("text/plain"),
        );
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(format!("{NODE_PREFIX}{{id}}"), "node")
                .with_title("One node")
                .with_description("One node of the knowledge graph in full, as `show` prints it.")
                .with_mime_type("text/markdown"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let not_found = |message: String| ErrorData::resource_not_found(message, None);
        if uri == NODES_URI {
            let text = self
                .blocking(|shared| {
                    shared.with_engine(|e| e.catalog().map_err(|e| Failure(vec![e.to_string()])))
                })
                .await
                .map_err(|f| ErrorData::internal_error(f.0.join("\n"), None))?;
            return Ok(text_resource(&uri, text, "text/plain"));
        }
        let id = if uri == IDENTITY_URI {
            self.blocking(|shared| {
                shared.with_engine(|e| e.identity_id().map_err(|e| Failure(vec![e.to_string()])))
            })
            .await
            .map_err(|f| ErrorData::internal_error(f.0.join("\n"), None))?
            .ok_or_else(|| not_found("this project has no identity document".into()))?
        } else if let Some(id) = uri.strip_prefix(NODE_PREFIX) {
            id.to_string()
        } else {
            return Err(not_found(format!(
                "no resource `{uri}`: this server has {IDENTITY_URI}, {NODES_URI} and {NODE_PREFIX}{{id}}"
            )));
        };
        let text = self
            .blocking(move |shared| BriefServer::show_markdown(shared, &id))
            .await
            .map_err(|f| not_found(f.0.join("\n")))?;
        Ok(text_resource(&uri, text, "text/markdown"))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            PROMPT_NAME,
            Some("Start a task the right way: fetch its context from brief first."),
            Some(vec![PromptArgument::new("target")
                .with_description("The task, spec or feature id (or a few words about it).")
                .with_required(true)]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != PROMPT_NAME {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt `{}`: this server has `{PROMPT_NAME}`",
                    request.name
                ),
                None,
            ));
        }
        let target = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("target"))
            .and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("`{PROMPT_NAME}` needs a `target`: the id or topic you will work on"),
                    None,
                )
            })?;
        let text = format!(
            "Before you start on {target}, call the brief `context` tool with \
             {{\"target\": {quoted}}} and read the whole document it returns. It lists every \
             decision, policy and norm that applies to {target}, found by following the \
             project's links, and says why each one is included. Treat hard constraints and \
             norms as binding, follow the accepted decisions, and do not reopen rejected \
             alternatives. If the document says nodes were left out for the budget, call \
             `context` again with a larger `budget` or use `show` on the ones you need. Only \
             then plan and make your change.",
            quoted = serde_json::Value::String(target.to_string()),
        );
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description(format!(
                    "Fetch the context of {target} before working on it"
                ))
                .into(),
        )
    }
}
