//! Fallible views: a graph read that fails anywhere in a request fails the request. Never a
//! partial context, explanation or impact reported as success.

use std::cell::Cell;
use std::fs;
use std::path::Path;

use brief::{Format, Project};
use brief_engine::Engine;
use brief_engine::{assemble, plan, ContextError, ContextRequest};
use brief_model::Graph;
use brief_model::LayerGuide;
use brief_model::{Corpus, Dangling, Edge, Fault, GraphView, Kind, NodeIx, NodeStore, StoreError};

const PAYMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");

/// The in-memory graph behind a view that fails on its `fail_at`-th read (counting every
/// call of the view), as a store whose file breaks mid-request does.
struct Failing<'g> {
    graph: &'g Graph,
    calls: Cell<usize>,
    fail_at: Option<usize>,
}

impl<'g> Failing<'g> {
    fn new(graph: &'g Graph, fail_at: Option<usize>) -> Self {
        Failing {
            graph,
            calls: Cell::new(0),
            fail_at,
        }
    }

    /// Counts one read; the `fail_at`-th is an error.
    fn read(&self) -> Result<(), StoreError> {
        let n = self.calls.get() + 1;
        self.calls.set(n);
        if self.fail_at == Some(n) {
            return Err(StoreError {
                store: "index test.db".into(),
                message: format!("read {n} failed"),
                fault: Fault::Other,
            });
        }
        Ok(())
    }
}

impl GraphView for Failing<'_> {
    fn lookup(&self, id: &str) -> Result<Option<NodeIx>, StoreError> {
        self.read()?;
        Ok(self.graph.lookup(id))
    }
    fn id_of(&self, ix: NodeIx) -> Result<String, StoreError> {
        self.read()?;
        Ok(self.graph.id_of(ix))
    }
    fn kind_of(&self, ix: NodeIx) -> Result<Kind, StoreError> {
        self.read()?;
        Ok(self.graph.kind_of(ix))
    }
    fn edges_out(&self, ix: NodeIx) -> Result<Vec<Edge>, StoreError> {
        self.read()?;
        Ok(self.graph.edges_out(ix))
    }
    fn edges_in(&self, ix: NodeIx) -> Result<Vec<Edge>, StoreError> {
        self.read()?;
        Ok(self.graph.edges_in(ix))
    }
    fn identity(&self) -> Result<Option<NodeIx>, StoreError> {
        self.read()?;
        Ok(self.graph.identity())
    }
    fn scoped(&self) -> Result<Vec<(NodeIx, brief_model::Applies)>, StoreError> {
        self.read()?;
        GraphView::scoped(self.graph)
    }
    fn files_of(&self, ix: NodeIx) -> Result<Vec<String>, StoreError> {
        self.read()?;
        GraphView::files_of(self.graph, ix)
    }
    fn lifecycle_of(&self, ix: NodeIx) -> Result<brief_model::Lifecycle, StoreError> {
        self.read()?;
        GraphView::lifecycle_of(self.graph, ix)
    }
    fn dangling_from(&self, ix: NodeIx) -> Result<Vec<Dangling>, StoreError> {
        self.read()?;
        Ok(self.graph.dangling_from(ix))
    }
    fn all_ids(&self) -> Result<Vec<String>, StoreError> {
        self.read()?;
        Ok(self.graph.all_ids())
    }
    fn layer_guides(&self, layer: NodeIx) -> Result<Option<Vec<LayerGuide>>, StoreError> {
        self.read()?;
        let _ = layer;
        Ok(None)
    }
}

impl Corpus for Failing<'_> {
    fn store(&self, _needed: &[NodeIx]) -> Result<Box<dyn NodeStore + '_>, StoreError> {
        self.read()?;
        Ok(Box::new(self.graph))
    }
}

fn request(target: &str) -> ContextRequest {
    ContextRequest {
        target: target.to_string(),
        budget: Some(4000),
        format: Format::Json,
        ..ContextRequest::default()
    }
}

/// Every read of a context's assembly is made to fail in turn: each run is an error naming
/// that read, and the runs with no failure give the in-memory graph's own bytes.
#[test]
fn a_read_failing_anywhere_fails_the_context() {
    let project = Project::at(Path::new(PAYMENTS)).unwrap();
    let graph = project.load().graph;
    let req = request("CHECKOUT-01");
    let expected = assemble(&graph, &project.defaults, &req).unwrap().text;
    let clean = Failing::new(&graph, None);
    assert_eq!(
        assemble(&clean, &project.defaults, &req).unwrap().text,
        expected
    );
    let reads = clean.calls.get();
    assert!(reads > 20, "a real context makes many reads ({reads})");
    for n in 1..=reads {
        let view = Failing::new(&graph, Some(n));
        match assemble(&view, &project.defaults, &req) {
            Err(ContextError::Store(e)) => assert_eq!(e.message, format!("read {n} failed")),
            Err(other) => panic!("read {n} failed: another error {other}"),
            Ok(_) => panic!("read {n} failed, yet a context was reported as success"),
        }
    }
}

/// The same for `explain` and `impact`, which walk the graph their own ways.
#[test]
fn a_read_failing_anywhere_fails_explain_and_impact() {
    let project = Project::at(Path::new(PAYMENTS)).unwrap();
    let graph = project.load().graph;
    let req = request("CHECKOUT-01");
    let target = graph.lookup("CHECKOUT-01").unwrap();
    let node = graph.lookup("POL-CHK-01").unwrap();
    let plans = brief_engine::Plans::new(&project.defaults, &req).unwrap();
    let run = |view: &Failing| -> Result<(String, String), StoreError> {
        let plan = plan(view, &project.defaults, &req, target).map_err(|e| match e {
            ContextError::Store(e) => e,
            other => panic!("{other}"),
        })?;
        let start = brief_engine::Start {
            seeds: vec![target],
            ..brief_engine::Start::default()
        };
        let explanation = brief_engine::explain(view, &plan, &start, node)?;
        let impact = brief_engine::impact(view, &plans, &[node]).map_err(|e| match e {
            ContextError::Store(e) => e,
            other => panic!("{other}"),
        })?;
        Ok((
            brief_engine::explanation_text(&explanation),
            brief_engine::impact_text(&impact),
        ))
    };
    let clean = Failing::new(&graph, None);
    let expected = run(&clean).unwrap();
    assert!(expected.1.contains("CHECKOUT-01"), "{}", expected.1);
    let reads = clean.calls.get();
    for n in 1..=reads {
        let view = Failing::new(&graph, Some(n));
        let error = run(&view).expect_err("a failed read is an error");
        assert_eq!(error.message, format!("read {n} failed"));
    }
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == ".brief" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The index file's edges table dropped by another process between two requests of one
/// engine (its connection and its cached statements stay open): the next context is the
/// same bytes as before (the damage is found and the index rebuilt) or an error — never a
/// context assembled without the edges.
#[test]
fn a_table_dropped_under_an_open_engine_is_never_a_smaller_context() {
    for table in ["edges", "nodes", "node_data", "dangling", "guides"] {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(Path::new(PAYMENTS), dir.path());
        let mut engine = Engine::open(Some(dir.path()), dir.path()).unwrap();
        let req = request("CHECKOUT-01");
        let expected = engine.context(&req).unwrap().text;
        let db = dir.path().join(".brief/cache/index.db");
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(&format!("DROP TABLE {table}")).unwrap();
        drop(conn);
        match engine.context(&req) {
            Ok(out) => {
                assert_eq!(out.text, expected, "{table} dropped");
                // The answer came from a rebuilt file: the damage was seen, not read around.
                let conn = rusqlite::Connection::open(&db).unwrap();
                let tables: i64 = conn
                    .query_row(
                        "SELECT count(*) FROM sqlite_master WHERE name = ?1",
                        [table],
                        |r| r.get(0),
                    )
                    .unwrap();
                assert_eq!(tables, 1, "{table} dropped: the index was rebuilt");
            }
            Err(e) => assert!(e.to_string().contains("index"), "{table} dropped: {e}"),
        }
    }
}
