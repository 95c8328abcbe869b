//! Semantic similarity for a request: the query embedded by the configured endpoint (once per
//! text for the engine's life), compared with the vectors the index stores (cosine, 8-bit,
//! one contiguous scan), ties broken by id. Never a hard dependency: whatever goes wrong is
//! [`Semantic::Unavailable`] with a reason, and the context is made from the graph and words.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use brief_embed::{ApiKey, Client, Endpoint, Matrix, Role};
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
    pub fn audit(&self) -> String {
        match self {
            Embeddings::On => "on".into(),
            Embeddings::Unavailable(why) => format!("unavailable: {why}"),
        }
    }
}

/// The most query vectors an engine remembers (a long-lived server asks the same things).
const REMEMBERED_QUERIES: usize = 512;

/// The embeddings side of an engine: one client for its life, the query vectors it was
/// given, and what went wrong during the current request.
pub(crate) struct Embedder {
    /// `Err`: the settings cannot make a client (the key's variable is not set).
    client: Result<Client, String>,
    queries: RefCell<HashMap<String, Arc<Vec<f32>>>>,
    /// The first failure of the current request: later steps of it do not wait again.
    trouble: RefCell<Option<String>>,
    /// Nodes still without a vector after the current request's embedding pass.
    pending: RefCell<usize>,
    /// When the current request must be done with the endpoint.
    deadline: RefCell<Option<Instant>>,
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
            trouble: RefCell::new(None),
            pending: RefCell::new(0),
            deadline: RefCell::new(None),
        }
    }

    /// The client, or why there is none.
    pub(crate) fn client(&self) -> Result<&Client, String> {
        self.client.as_ref().map_err(Clone::clone)
    }

    /// Starts a request: nothing has gone wrong yet, and the endpoint has its time-out from
    /// now.
    pub(crate) fn begin(&self) {
        self.trouble.borrow_mut().take();
        *self.pending.borrow_mut() = 0;
        *self.deadline.borrow_mut() = self
            .client
            .as_ref()
            .ok()
            .map(|c| Instant::now() + c.endpoint().timeout);
    }

    /// The current request's deadline (the time-out from its start).
    pub(crate) fn deadline(&self) -> Instant {
        self.deadline.borrow().unwrap_or_else(Instant::now)
    }

    /// Records the request's first failure.
    pub(crate) fn fail(&self, why: String) {
        let mut trouble = self.trouble.borrow_mut();
        if trouble.is_none() {
            *trouble = Some(why);
        }
    }

    /// Why embeddings failed in the current request, if they did.
    pub(crate) fn trouble(&self) -> Option<String> {
        self.trouble
            .borrow()
            .clone()
            .or_else(|| self.client.as_ref().err().cloned())
    }

    /// Records how many nodes the request's pass left without a vector.
    pub(crate) fn set_pending(&self, nodes: usize) {
        *self.pending.borrow_mut() = nodes;
    }

    /// Nodes the current request's pass left without a vector.
    pub(crate) fn pending(&self) -> usize {
        *self.pending.borrow()
    }

    /// The vector of `query`, from memory or from the endpoint within the request's
    /// deadline; `Err` with the reason when there is none (the failure is remembered, so the
    /// request does not wait twice).
    pub(crate) fn query(&self, query: &str) -> Result<Arc<Vec<f32>>, String> {
        if let Some(vector) = self.queries.borrow().get(query) {
            return Ok(Arc::clone(vector));
        }
        if let Some(why) = self.trouble() {
            return Err(why);
        }
        let client = self.client()?;
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
                let why = e.to_string();
                self.fail(why.clone());
                Err(why)
            }
        }
    }
}

fn millis(client: &Client) -> u128 {
    client.endpoint().timeout.as_millis()
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
        return Ok(Err(format!(
            "the query has {} dimensions and the stored vectors {}; run `brief index` to embed them again",
            query.len(),
            matrix.dims()
        )));
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
