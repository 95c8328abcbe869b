//! The MCP handler: tools, resources, a prompt and completions over the project that
//! [`Served`] holds.
//!
//! Every request runs on a blocking thread with an engine of its own (`Shared`'s pool), so
//! requests run side by side; a tool call gives up at its next stage when the client cancels
//! it (`notifications/cancelled`) and is answered with a tool error once it has run longer
//! than the time limit.

use std::sync::Arc;
use std::time::Duration;

use brief::Cancel;
use brief::{Detail, Format};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    CompletionInfo, ContentBlock, CustomRequest, CustomResult, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Reference, Resource, ResourceContents,
    ResourceTemplate, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};

use crate::served::Served;
use crate::tools::{self, Failure, ToolKind};
use brief_watch::Shared;

/// The identity resource.
pub(crate) const IDENTITY_URI: &str = "brief://identity";
/// The node index resource.
pub(crate) const NODES_URI: &str = "brief://nodes";
/// Nodes by id: `brief://node/{id}`.
const NODE_PREFIX: &str = "brief://node/";
/// The prompt that tells an agent to fetch context first.
pub(crate) const PROMPT_NAME: &str = "brief-before-task";
/// How long the server waits for the client to list its roots.
const ROOTS_ANSWER: Duration = Duration::from_secs(5);

/// The methods this server answers, named when a client asks for another.
const METHODS: &str = "initialize, ping, tools/list, tools/call, resources/list, \
resources/templates/list, resources/read, prompts/list, prompts/get, completion/complete";

const INSTRUCTIONS: &str = "\
brief assembles the context an agent needs before it works on one thing. Before you start a \
task, call the `context` tool with the task's id (or words describing it) and read the whole \
document: it holds every decision, policy and norm that applies, why each is included, and what \
did not fit the budget. Use `search` to find ids and `show` to read one node.";

/// The MCP server.
#[derive(Clone)]
pub(crate) struct BriefServer {
    served: Arc<Served>,
}

/// A request's engine failed, or the request ended some other way.
fn internal(lines: Vec<String>) -> ErrorData {
    ErrorData::internal_error(lines.join("\n"), None)
}

impl BriefServer {
    /// A server over the project `served` holds.
    pub(crate) fn new(served: Arc<Served>) -> BriefServer {
        BriefServer { served }
    }

    /// The project, once any lookup of the client's roots is over.
    async fn project(&self) -> Result<Arc<Shared>, Failure> {
        self.served.settled().await;
        self.served.project()
    }

    /// Runs `op` on a blocking thread with an engine of its own; a panic inside becomes an
    /// internal error.
    async fn blocking<T: Send + 'static>(
        &self,
        op: impl FnOnce(&Shared) -> Result<T, Failure> + Send + 'static,
    ) -> Result<T, Failure> {
        let shared = self.project().await?;
        match tokio::task::spawn_blocking(move || op(&shared)).await {
            Ok(result) => result,
            Err(_) => Err(panicked()),
        }
    }

    fn show_markdown(shared: &Shared, id: &str) -> Result<String, Failure> {
        shared.with_engine(|engine| {
            engine
                .show(id, Detail::Full, Format::Markdown, None)
                .map_err(|e| Failure(e.describe(&engine.project.root)))
        })
    }

    /// Asks the client for its roots and serves the project they hold, in the background.
    /// (Roots are deprecated by a protocol revision newer than the ones clients speak today.)
    #[allow(deprecated)]
    fn look_up_roots(&self, peer: Peer<RoleServer>) {
        let served = Arc::clone(&self.served);
        served.finding();
        tokio::spawn(async move {
            let listed = tokio::time::timeout(ROOTS_ANSWER, peer.list_roots()).await;
            let Ok(Ok(listed)) = listed else {
                served.not_found();
                return;
            };
            let uris: Vec<String> = listed.roots.into_iter().map(|r| r.uri).collect();
            let finder = Arc::clone(&served);
            if tokio::task::spawn_blocking(move || finder.found(uris))
                .await
                .is_err()
            {
                served.not_found();
            }
        });
    }

    /// Whether the client said it has roots.
    fn client_has_roots(peer: &Peer<RoleServer>) -> bool {
        peer.peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some())
    }

    /// One tool call on an engine of its own, cancelled when the client cancels it and
    /// answered with a tool error once the time limit passes.
    async fn run_tool(
        &self,
        tool: ToolKind,
        args: rmcp::model::JsonObject,
        context: &RequestContext<RoleServer>,
    ) -> Result<tools::Reply, Failure> {
        let shared = self.project().await?;
        let cancel = Cancel::default();
        let worker = {
            let cancel = cancel.clone();
            tokio::task::spawn_blocking(move || {
                if tools::needs_no_engine(tool) {
                    return tools::call_at(&shared.root(), tool, args);
                }
                shared.with_cancel(&cancel, |engine| {
                    if tool.reads_the_index() {
                        // Waits for a refresh under way, so a change made before this call
                        // is in its answer.
                        let _turn = shared.refresh_turn();
                        let _ = engine.refresh_pending();
                    }
                    tools::call(engine, tool, args)
                })
            })
        };
        let limit = self.served.time_limit;
        let expired = async {
            match limit {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            joined = worker => joined.unwrap_or_else(|_| Err(panicked())),
            _ = context.ct.cancelled() => {
                cancel.cancel();
                Err(Failure::line("error: cancelled by the client"))
            }
            _ = expired => {
                cancel.cancel();
                Err(Failure::line(tool.over_time(limit.unwrap_or_default())))
            }
        }
    }
}

fn panicked() -> Failure {
    Failure::line(
        "error: internal error while serving this request (this is a bug; please report it)",
    )
}

/// Ids (from the node index) that complete `value`: those that start with it first, then
/// those whose title holds it, case ignored; at most the protocol's 100.
fn completions(catalog: &str, value: &str) -> CompletionInfo {
    let wanted = value.trim().to_lowercase();
    let rows: Vec<(&str, &str)> = catalog
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, '\t');
            let id = fields.next()?;
            let _kind = fields.next();
            Some((id, fields.next().unwrap_or("")))
        })
        .collect();
    let by_id = rows
        .iter()
        .filter(|(id, _)| id.to_lowercase().starts_with(&wanted));
    let by_title = rows.iter().filter(|(id, title)| {
        !wanted.is_empty()
            && !id.to_lowercase().starts_with(&wanted)
            && title.to_lowercase().contains(&wanted)
    });
    let all: Vec<String> = by_id
        .chain(by_title)
        .map(|(id, _)| id.to_string())
        .collect();
    let total = all.len();
    let values: Vec<String> = all.into_iter().take(CompletionInfo::MAX_VALUES).collect();
    let shown = values.len();
    let mut info = CompletionInfo::default();
    info.values = values;
    info.total = Some(u32::try_from(total).unwrap_or(u32::MAX));
    info.has_more = Some(total > shown);
    info
}

/// The most text one page of the node index holds: clients read a resource as one message, and
/// the official SDKs refuse one over 1 MiB (a 100,000-node index is about 5 MB).
const NODES_PAGE: usize = 512 * 1024;

/// The page a node-index URI asks for: `Some(None)` for `brief://nodes`, `Some(Some(id))` for
/// `brief://nodes?after=ID` (the id percent-decoded), `None` for another URI.
fn nodes_page(uri: &str) -> Option<Option<&str>> {
    if uri == NODES_URI {
        return Some(None);
    }
    uri.strip_prefix(NODES_URI)?
        .strip_prefix("?after=")
        .map(Some)
}

/// `id` as a URI query value: bytes other than letters, digits, `-._~/` percent-encoded.
fn query_value(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A query value percent-decoded (`None` when it is not valid UTF-8 or a `%` is malformed).
fn decoded(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The lines of `catalog` (one `ID<TAB>kind<TAB>title` per node) after the node `after` (from
/// the first without one), whole lines up to `cap` bytes; when nodes remain, a last line
/// `next<TAB>brief://nodes?after=ID` names the next page. `None` when `after` is no node of it.
fn page_of(catalog: &str, after: Option<&str>, cap: usize) -> Option<String> {
    let mut lines = catalog.lines();
    if let Some(after) = after {
        let after = decoded(after)?;
        lines
            .by_ref()
            .find(|line| line.split('\t').next() == Some(after.as_str()))?;
    }
    let mut page = String::new();
    let mut last = None;
    for line in lines.by_ref() {
        if !page.is_empty() && page.len() + line.len() + 1 > cap {
            // The line that did not fit starts the next page.
            let id = query_value(last.unwrap_or_default());
            page.push_str(&format!("next\t{NODES_URI}?after={id}\n"));
            return Some(page);
        }
        page.push_str(line);
        page.push('\n');
        last = line.split('\t').next();
    }
    Some(page)
}

fn text_resource(uri: &str, text: String, mime: &str) -> ReadResourceResponse {
    ReadResourceResult::new(vec![ResourceContents::text(text, uri).with_mime_type(mime)]).into()
}

impl ServerHandler for BriefServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_completions()
                .enable_prompts()
                .enable_resources()
                .enable_tools()
                .build(),
        )
        .with_server_info(Implementation::new("brief", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        // Calls that come before the roots are known wait for them (`Served::settled`).
        if request.capabilities.roots.is_some() && self.served.roots_decide() {
            self.served.finding();
        }
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if Self::client_has_roots(&context.peer) && self.served.roots_decide() {
            self.look_up_roots(context.peer);
        } else {
            self.served.not_found();
        }
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        if Self::client_has_roots(&context.peer) && self.served.roots_decide() {
            self.look_up_roots(context.peer);
        }
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            format!(
                "method not found: `{}` is not a method this server answers ({METHODS})",
                request.method
            ),
            Some(serde_json::json!({"method": request.method})),
        ))
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
        context: RequestContext<RoleServer>,
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
        let result = self.run_tool(tool, args, &context).await;
        Ok(match result {
            Ok(reply) => {
                let mut content = vec![ContentBlock::text(reply.text)];
                if !reply.notes.is_empty() {
                    content.push(ContentBlock::text(reply.notes.join("\n") + "\n"));
                }
                let mut result = CallToolResult::success(content);
                result.structured_content = Some(reply.structured);
                result
            }
            Err(Failure(lines)) => {
                CallToolResult::error(vec![ContentBlock::text(lines.join("\n") + "\n")])
            }
        }
        .into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let wanted = match &request.r#ref {
            Reference::Prompt(prompt) => {
                prompt.name == PROMPT_NAME && request.argument.name == "target"
            }
            Reference::Resource(template) => {
                template.uri == format!("{NODE_PREFIX}{{id}}") && request.argument.name == "id"
            }
            _ => false,
        };
        if !wanted {
            return Ok(CompleteResult::new(CompletionInfo::default()));
        }
        // A client completes while the user types: without a project there is nothing to offer.
        let catalog = self
            .blocking(|shared| {
                shared.with_engine(|e| e.catalog().map_err(|e| Failure(vec![e.to_string()])))
            })
            .await
            .unwrap_or_default();
        Ok(CompleteResult::new(completions(
            &catalog,
            &request.argument.value,
        )))
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
                     sorted by id; over 512 KiB, in pages whose last line is \
                     `next<TAB>brief://nodes?after=ID`.",
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
        if let Some(after) = nodes_page(&uri) {
            let text = self
                .blocking(|shared| {
                    shared.with_engine(|e| e.catalog().map_err(|e| Failure(vec![e.to_string()])))
                })
                .await
                .map_err(|f| internal(f.0))?;
            let page = page_of(&text, after, NODES_PAGE).ok_or_else(|| {
                not_found(format!(
                    "no node `{}` in the node index (it changed since?); read {NODES_URI} \
                     from the start",
                    after.unwrap_or_default()
                ))
            })?;
            return Ok(text_resource(&uri, page, "text/plain"));
        }
        let id = if uri == IDENTITY_URI {
            self.blocking(|shared| {
                shared.with_engine(|e| e.identity_id().map_err(|e| Failure(vec![e.to_string()])))
            })
            .await
            .map_err(|f| internal(f.0))?
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_node_index_comes_in_pages_that_name_the_next() {
        let catalog = "A-1\tspec\tOne\nB 2\tnote\tTwo\nC-3\tspec\tThree\n";
        // Everything fits: the index as it is.
        assert_eq!(page_of(catalog, None, 1000).as_deref(), Some(catalog));
        // 30 bytes hold two lines; the third starts the next page, named by the last id
        // shown (percent-encoded: ids may hold spaces).
        let first = page_of(catalog, None, 30).unwrap();
        assert_eq!(
            first,
            "A-1\tspec\tOne\nB 2\tnote\tTwo\nnext\tbrief://nodes?after=B%202\n"
        );
        let next = first.lines().last().unwrap().split('\t').nth(1).unwrap();
        let after = nodes_page(next).unwrap();
        assert_eq!(after, Some("B%202"));
        assert_eq!(
            page_of(catalog, after, 30).as_deref(),
            Some("C-3\tspec\tThree\n")
        );
        // A line longer than a page is a page of its own, never cut or skipped.
        let one = page_of(catalog, None, 5).unwrap();
        assert!(one.starts_with("A-1\tspec\tOne\nnext\t"), "{one}");
        // An id that is not in the index (or not decodable) is no page.
        assert_eq!(page_of(catalog, Some("Z-9"), 30), None);
        assert_eq!(page_of(catalog, Some("%zz"), 30), None);
        assert_eq!(nodes_page("brief://identity"), None);
        assert_eq!(nodes_page("brief://nodes"), Some(None));
    }

    #[test]
    fn query_values_round_trip() {
        for id in ["en/Obsidian Publish/Custom domains.md", "ADR-0001", "ü?&#%"] {
            assert_eq!(decoded(&query_value(id)).as_deref(), Some(id));
        }
    }
}
