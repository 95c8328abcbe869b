//! Semantic similarity for a request: the query embedded by the configured endpoint (once per
//! text for the engine's life), compared with the vectors the index stores (cosine, 8-bit,
//! one contiguous scan), ties broken by id. Never a hard dependency: whatever goes wrong is
//! [`Semantic::Unavailable`] with a reason, and the context is made from the graph and words.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use brief_embed::{ApiKey, Client, EmbedError, Endpoint, Matrix, Role};
use brief_index::Index;
use brief_model::{GraphView, NodeIx, StoreError};
use brief_project::EmbeddingsConfig;

/// What semantic similarity offers one request.
#[derive(Debug, Clone)]
pub enum Semantic {
    /// Embeddings are not configured.
    Off,
    /// The query's similarity to the nodes that have a vector.
    Hits(Similar),
    /// Configured, but of no use to this request: why, in a few words (the server is down or
    /// slow, it answered wrongly, no node has a vector yet, …).
    Unavailable(String),
}

/// One query's similarities: the best nodes, and any node's on request.
#[derive(Debug, Clone)]
pub struct Similar {
    /// The best nodes, best first: cosine similarity (rounded to four places) descending,
    /// then id ascending.
    pub hits: Vec<(NodeIx, f32)>,
    /// The vectors compared, in node order (their keys are the nodes).
    matrix: Arc<Matrix>,
    /// The similarity of each vector of `matrix`, in the same order.
    scores: Vec<f32>,
}

impl Similar {
    /// The similarity of node `ix` to the query (rounded to four places); `None` when it
    /// has no vector (it was never embedded, or changed since).
    pub fn of(&self, ix: NodeIx) -> Option<f32> {
        let at = self.matrix.keys().binary_search(&ix).ok()?;
        self.scores.get(at).copied()
    }

    /// How many nodes have a vector.
    pub fn compared(&self) -> usize {
        self.scores.len()
    }
}

/// Whether semantic similarity took part in a request, as the JSON audit says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Embeddings {
    /// Embeddings are configured and were used.
    On,
    /// Embeddings are configured but could not be used: why.
    Unavailable(String),
}

impl Embeddings {
    /// The audit's value: `on`, or `unavailable: REASON`.
    pub(crate) fn audit(&self) -> String {
        match self {
            Embeddings::On => "on".into(),
            Embeddings::Unavailable(why) => format!("unavailable: {why}"),
        }
    }
}

/// The most query vectors an engine remembers (a long-lived server asks the same things).
const REMEMBERED_QUERIES: usize = 512;

/// The embeddings side of an engine: one client for its life, the query vectors it was
/// given, and how the current request went.
pub(crate) struct Embedder {
    /// `Err`: the settings cannot make a client (the key's variable is not set).
    client: Result<Client, String>,
    queries: RefCell<HashMap<String, Arc<Vec<f32>>>>,
    request: RefCell<Request>,
}

/// How the current request went with the endpoint.
#[derive(Default)]
struct Request {
    /// When the request must be done with the endpoint (its time-out from the start).
    deadline: Option<Instant>,
    /// Why similarity is of no use to this request.
    trouble: Option<String>,
    /// Why the endpoint failed during this request: it is not asked again before the next.
    down: Option<String>,
    /// Nodes still without a vector after the request's embedding pass.
    pending: usize,
}

/// The client for `config`, reading the API key from the variable it names.
fn client(config: &EmbeddingsConfig) -> Result<Client, String> {
    let mut endpoint = Endpoint::new(&config.url, &config.model);
    endpoint.dimensions = config.dimensions;
    endpoint.query_prefix = config.query_prefix.clone();
    endpoint.passage_prefix = config.passage_prefix.clone();
    endpoint.input_type = config.input_type;
    if let Some(ms) = config.timeout_ms {
        endpoint.timeout = Duration::from_millis(ms);
    }
    if let Some(batch) = config.batch {
        endpoint.batch = batch;
    }
    if let Some(variable) = &config.api_key_env {
        match std::env::var(variable) {
            Ok(key) if !key.trim().is_empty() => endpoint.api_key = Some(ApiKey::new(key.trim())),
            _ => {
                return Err(format!(
                    "{variable} (named by api_key_env) is not set, so there is no API key to send"
                ))
            }
        }
    }
    Ok(Client::new(endpoint))
}

impl Embedder {
    /// The embedder of a project's settings.
    pub(crate) fn new(config: &EmbeddingsConfig) -> Embedder {
        Embedder {
            client: client(config),
            queries: RefCell::new(HashMap::new()),
            request: RefCell::new(Request::default()),
        }
    }

    /// The client, or why there is none.
    pub(crate) fn client(&self) -> Result<&Client, String> {
        self.client.as_ref().map_err(Clone::clone)
    }

    /// Starts a request: nothing has gone wrong yet, and the endpoint has its time-out from
    /// now.
    pub(crate) fn begin(&self) {
        *self.request.borrow_mut() = Request {
            deadline: self
                .client
                .as_ref()
                .ok()
                .map(|c| Instant::now() + c.endpoint().timeout),
            ..Request::default()
        };
    }

    /// Ends a request: a call outside one (a caller of [`crate::engine::Engine::similar`]
    /// of its own) gets the whole time-out and asks the endpoint again. What went wrong stays
    /// readable until the next request begins.
    pub(crate) fn end(&self) {
        let mut request = self.request.borrow_mut();
        request.deadline = None;
        request.down = None;
    }

    /// The current request's deadline; outside a request, the time-out from now.
    pub(crate) fn deadline(&self) -> Instant {
        let timeout = self
            .client
            .as_ref()
            .map(|c| c.endpoint().timeout)
            .unwrap_or_default();
        self.request
            .borrow()
            .deadline
            .unwrap_or_else(|| Instant::now() + timeout)
    }

    /// Similarity is of no use to the current request (the first reason is kept).
    pub(crate) fn fail(&self, why: String) {
        self.request.borrow_mut().trouble.get_or_insert(why);
    }

    /// The endpoint failed during the current request's embedding pass; `pending` nodes
    /// still have no vector.
    pub(crate) fn passed(&self, pending: usize, failure: Option<String>) {
        let mut request = self.request.borrow_mut();
        request.pending = pending;
        if let Some(why) = failure {
            request.down.get_or_insert(why);
        }
    }

    /// Why similarity is of no use to the current request, if it is not.
    pub(crate) fn trouble(&self) -> Option<String> {
        self.request
            .borrow()
            .trouble
            .clone()
            .or_else(|| self.client.as_ref().err().cloned())
    }

    /// Nodes the current request's pass left without a vector, and why the endpoint
    /// stopped, if it failed.
    pub(crate) fn pending(&self) -> (usize, Option<String>) {
        let request = self.request.borrow();
        (request.pending, request.down.clone())
    }

    /// The vector of `query`, from memory or from the endpoint within the request's
    /// deadline; `Err` with the reason when there is none (remembered: the request does not
    /// wait twice, and says why once).
    pub(crate) fn query(&self, query: &str) -> Result<Arc<Vec<f32>>, String> {
        if let Some(vector) = self.queries.borrow().get(query) {
            return Ok(Arc::clone(vector));
        }
        let vector = self.ask(query);
        if let Err(why) = &vector {
            self.fail(why.clone());
        }
        vector
    }

    /// Asks the endpoint for the vector of `query`, unless it already failed in this request.
    fn ask(&self, query: &str) -> Result<Arc<Vec<f32>>, String> {
        let client = self.client()?;
        if let Some(why) = self.request.borrow().down.clone() {
            return Err(why);
        }
        let left = self
            .deadline()
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| format!("no time left of the {} ms time-out", millis(client)))?;
        match client.embed(&[query], Role::Query, left) {
            Ok(mut vectors) => {
                let vector = Arc::new(vectors.pop().unwrap_or_default());
                let mut queries = self.queries.borrow_mut();
                if queries.len() >= REMEMBERED_QUERIES {
                    queries.clear();
                }
                queries.insert(query.to_string(), Arc::clone(&vector));
                Ok(vector)
            }
            Err(e) => {
                // A time-out is said as configured, not as what was left of it.
                let e = match e {
                    EmbedError::Timeout { url, .. } => EmbedError::Timeout {
                        url,
                        ms: millis(client),
                    },
                    other => other,
                };
                let why = e.to_string();
                self.request.borrow_mut().down.get_or_insert(why.clone());
                Err(why)
            }
        }
    }
}

fn millis(client: &Client) -> u128 {
    client.endpoint().timeout.as_millis()
}

/// Why a query cannot be compared with the stored vectors.
pub(crate) fn other_lengths(query: usize, stored: usize) -> String {
    format!(
        "the server answered a query with {query} dimensions where the stored vectors have {stored}; `brief index` embeds the nodes again"
    )
}

/// The similarities of `query` (a unit vector) to the vectors of `matrix`, the best `k` as
/// hits (ties by id, read from `index`).
pub(crate) fn rank(
    index: &Index,
    matrix: Arc<Matrix>,
    query: &[f32],
    k: usize,
) -> Result<Result<Similar, String>, StoreError> {
    if matrix.dims() != query.len() {
        return Ok(Err(other_lengths(query.len(), matrix.dims())));
    }
    let scores = matrix.scores(query);
    let hits = best(index, matrix.keys(), &scores, k)?;
    Ok(Ok(Similar {
        hits,
        matrix,
        scores,
    }))
}

/// The `k` best of `scores` (by `keys`): score descending, id ascending. Every key that ties
/// with the k-th is looked at, so the cut never depends on the order of the scan.
fn best(
    index: &Index,
    keys: &[u32],
    scores: &[f32],
    k: usize,
) -> Result<Vec<(NodeIx, f32)>, StoreError> {
    if k == 0 || scores.is_empty() {
        return Ok(Vec::new());
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    let by_score = |a: &usize, b: &usize| scores[*b].total_cmp(&scores[*a]);
    if order.len() > k {
        order.select_nth_unstable_by(k - 1, by_score);
        let kth = scores[order[k - 1]];
        order.retain(|&i| scores[i] >= kth);
    }
    let mut ranked: Vec<(f32, String, NodeIx)> = Vec::with_capacity(order.len());
    for i in order {
        ranked.push((scores[i], index.id_of(keys[i])?, keys[i]));
    }
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    ranked.truncate(k);
    Ok(ranked.into_iter().map(|(s, _, ix)| (ix, s)).collect())
}

/// Asks the endpoint of `config` for one vector, as `brief check` does: its length, or why
/// there is none (the key's variable is not set, the server is down, it answered wrongly).
pub fn probe(config: &EmbeddingsConfig) -> Result<usize, String> {
    let client = client(config)?;
    let timeout = client.endpoint().timeout;
    client
        .embed(&["brief check"], Role::Query, timeout)
        .map(|v| v.first().map(Vec::len).unwrap_or(0))
        .map_err(|e| e.to_string())
}
