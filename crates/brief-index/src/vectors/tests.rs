//! The embedding pass and the stored vectors, against the stub embeddings server
//! (`brief_embed::stub`), which counts what it is asked and can be told to fail.

use std::time::{Duration, Instant};

use brief_embed::stub::{Answer, Stub};
use brief_embed::{Client, EmbedError, Endpoint};

use super::super::kit;
use super::*;

/// A stub answering vectors of `dims` dimensions.
fn stub(dims: usize) -> Stub {
    Stub::start(Answer::Vectors(dims)).unwrap()
}

/// A client of `stub` for `model`, `batch` texts a request.
fn client_of(stub: &Stub, model: &str, batch: usize) -> Client {
    let mut endpoint = Endpoint::new(stub.url(), model);
    endpoint.batch = batch;
    Client::new(endpoint)
}

fn embed(index: &mut Index, client: &Client) -> Embedded {
    index.embed(client, Until::Done, &mut |_| {}).unwrap()
}

fn count(index: &Index, sql: &str) -> i64 {
    index.conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A project of `n` notes, each its own artifact.
fn notes(n: usize) -> tempfile::TempDir {
    let files: Vec<(String, String)> = (0..n)
        .map(|i| {
            (
                format!("norms/NORM-{i:03}.md"),
                kit::norm(
                    &format!("NORM-{i:03}"),
                    &format!("Rule number {i}"),
                    &format!("Every request {i} is checked twice before it is stored."),
                ),
            )
        })
        .collect();
    let refs: Vec<(&str, String)> = files.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
    kit::project(&refs)
}

#[test]
fn a_passage_is_the_title_then_the_head_of_the_body_on_one_line_per_part() {
    let dir = kit::payments();
    let (_, index) = kit::built(dir.path());
    let ix = index.lookup("NORM-SEC-001").unwrap().unwrap();
    let node = index.load_node(ix).unwrap();
    let text = passage(&node);
    assert!(text.starts_with("Secrets stay server-side\n"), "{text}");
    assert!(
        text.contains("Card numbers and tokens never reach the browser"),
        "{text}"
    );
    assert!(
        !text.contains("  ") && text.lines().count() == 2,
        "{text:?}"
    );
    // A long body is cut at a word boundary within the limit.
    let mut long = node.clone();
    if let Content::Artifact(fields) = &mut long.content {
        fields.body = "word ".repeat(1000);
    }
    let text = passage(&long);
    let body = text.split_once('\n').unwrap().1;
    assert!(body.chars().count() <= PASSAGE_CHARS, "{}", body.len());
    assert!(body.ends_with("word"));
    // One word longer than the limit is cut, not dropped.
    if let Content::Artifact(fields) = &mut long.content {
        fields.body = "x".repeat(5000);
    }
    assert_eq!(
        passage(&long).split_once('\n').unwrap().1.len(),
        PASSAGE_CHARS
    );
}

#[test]
fn every_node_is_embedded_once_and_a_pass_with_nothing_to_do_asks_nothing() {
    let stub = stub(16);
    let dir = notes(10);
    let (_, mut index) = kit::built(dir.path());
    assert_eq!(count(&index, "SELECT count(*) FROM passages"), 10);
    let client = client_of(&stub, "m", 4);
    let mut steps = Vec::new();
    let done = index
        .embed(&client, Until::Done, &mut |s| steps.push(s))
        .unwrap();
    assert_eq!(done.embedded, 10);
    assert_eq!(done.missing, 0);
    assert_eq!(done.failure, None);
    let requests = stub.take();
    assert_eq!(requests.len(), 3, "batches of 4");
    assert_eq!(requests.iter().map(|r| r.texts().len()).sum::<usize>(), 10);
    assert_eq!(steps.last().map(|s| (s.done, s.total)), Some((10, 10)));
    assert!(steps.iter().all(|s| s.unit == Unit::Vectors));
    let matrix = index
        .vectors(&client.endpoint().vector_key())
        .unwrap()
        .unwrap();
    assert_eq!(matrix.len(), 10);
    assert_eq!(matrix.dims(), 16);
    // Nothing changed: nothing is asked.
    assert_eq!(embed(&mut index, &client), Embedded::default());
    assert!(stub.texts().is_empty());
}

#[test]
fn one_edited_note_embeds_one_passage_and_a_new_model_embeds_them_all() {
    let stub = stub(16);
    let dir = notes(6);
    let (project, mut index) = kit::built(dir.path());
    let client = client_of(&stub, "m", 32);
    embed(&mut index, &client);
    stub.texts();
    kit::settle();
    kit::write(
        dir.path(),
        "norms/NORM-002.md",
        &kit::norm("NORM-002", "Rule number 2", "Now the request is signed."),
    );
    index.refresh(&project, Verify::Full, &mut |_| {}).unwrap();
    let done = embed(&mut index, &client);
    assert_eq!(done.embedded, 1);
    let asked = stub.texts();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].contains("Now the request is signed"), "{asked:?}");
    let matrix = index
        .vectors(&client.endpoint().vector_key())
        .unwrap()
        .unwrap();
    assert_eq!(matrix.len(), 6, "the block was built again with every node");
    // A file whose text changed but whose passage did not (here: only its date) asks nothing.
    kit::settle();
    kit::write(
        dir.path(),
        "norms/NORM-003.md",
        &kit::norm(
            "NORM-003",
            "Rule number 3",
            "Every request 3 is checked twice before it is stored.",
        )
        .replace("status: active", "status: active\ncreated: 2026-01-02"),
    );
    let refresh = index.refresh(&project, Verify::Full, &mut |_| {}).unwrap();
    assert_eq!(refresh.parsed, 1);
    assert_eq!(embed(&mut index, &client).embedded, 0);
    assert!(stub.texts().is_empty());
    // Another model (or other dimensions, or another passage prefix): everything again.
    let other = client_of(&stub, "other-model", 32);
    assert_eq!(embed(&mut index, &other).embedded, 6);
    assert_eq!(stub.texts().len(), 6);
    // The first model's vectors are still there: switching back asks nothing.
    assert_eq!(embed(&mut index, &client).embedded, 0);
}

#[test]
fn a_failure_keeps_what_was_stored_and_the_next_pass_fills_the_gaps() {
    let stub = stub(8);
    let dir = notes(9);
    let (_, mut index) = kit::built(dir.path());
    let client = client_of(&stub, "m", 3);
    // Down from the start: nothing stored, every node missing, the index still whole.
    stub.set(Answer::Status(503, r#"{"error":"loading model"}"#.into()));
    let done = embed(&mut index, &client);
    assert_eq!(done.embedded, 0);
    assert_eq!(done.missing, 9);
    assert!(
        matches!(done.failure, Some(EmbedError::Status { status: 503, .. })),
        "{done:?}"
    );
    assert_eq!(count(&index, "SELECT count(*) FROM vectors"), 0);
    // Back up: the next pass embeds all of them.
    stub.set(Answer::Vectors(8));
    stub.texts();
    let done = embed(&mut index, &client);
    assert_eq!((done.embedded, done.missing), (9, 0));
    assert_eq!(stub.texts().len(), 9);
}

#[test]
fn a_pass_past_its_deadline_asks_nothing_and_says_what_is_missing() {
    let stub = stub(8);
    let dir = notes(4);
    let (_, mut index) = kit::built(dir.path());
    let client = client_of(&stub, "m", 2);
    let past = Instant::now() - Duration::from_millis(1);
    let done = index
        .embed(&client, Until::Deadline(past), &mut |_| {})
        .unwrap();
    assert_eq!((done.embedded, done.missing), (0, 4));
    assert!(stub.texts().is_empty());
    let later = Instant::now() + Duration::from_secs(5);
    let done = index
        .embed(&client, Until::Deadline(later), &mut |_| {})
        .unwrap();
    assert_eq!((done.embedded, done.missing), (4, 0));
}

#[test]
fn other_dimensions_under_the_same_model_start_over_only_when_indexing() {
    let stub = stub(8);
    let dir = notes(3);
    let (_, mut index) = kit::built(dir.path());
    let client = client_of(&stub, "m", 8);
    embed(&mut index, &client);
    // The model behind the name changed; a refresh marks one node to embed again.
    stub.set(Answer::Vectors(12));
    index
        .conn
        .execute_batch(
            "DELETE FROM vectors WHERE hash = (SELECT hash FROM passages ORDER BY ix LIMIT 1);
             UPDATE embed_models SET complete = 0;",
        )
        .unwrap();
    let soon = Instant::now() + Duration::from_secs(5);
    let done = index
        .embed(&client, Until::Deadline(soon), &mut |_| {})
        .unwrap();
    assert_eq!(
        done.failure,
        Some(EmbedError::Dimensions {
            expected: 8,
            got: 12
        })
    );
    let done = embed(&mut index, &client);
    assert_eq!(done.failure, None);
    assert_eq!(done.missing, 0);
    let matrix = index
        .vectors(&client.endpoint().vector_key())
        .unwrap()
        .unwrap();
    assert_eq!((matrix.len(), matrix.dims()), (3, 12));
}

#[test]
fn removed_nodes_leave_the_blocks_and_their_vectors_go() {
    let stub = stub(8);
    let dir = notes(5);
    let (project, mut index) = kit::built(dir.path());
    let client = client_of(&stub, "m", 8);
    embed(&mut index, &client);
    std::fs::remove_file(dir.path().join(".contextia/system/norms/NORM-001.md")).unwrap();
    index.refresh(&project, Verify::Full, &mut |_| {}).unwrap();
    assert_eq!(count(&index, "SELECT count(*) FROM passages"), 4);
    assert_eq!(embed(&mut index, &client).embedded, 0);
    let key = client.endpoint().vector_key();
    assert_eq!(index.vectors(&key).unwrap().unwrap().len(), 4);
    assert_eq!(count(&index, "SELECT count(*) FROM vectors"), 4);
}

#[test]
fn nodes_with_the_same_text_are_embedded_once() {
    let stub = stub(8);
    let dir = kit::project(&[
        ("norms/NORM-A.md", kit::norm("NORM-A", "Same", "Same body.")),
        ("norms/NORM-B.md", kit::norm("NORM-B", "Same", "Same body.")),
    ]);
    let (_, mut index) = kit::built(dir.path());
    let client = client_of(&stub, "m", 8);
    let done = embed(&mut index, &client);
    assert_eq!((done.embedded, done.missing), (1, 0));
    let matrix = index
        .vectors(&client.endpoint().vector_key())
        .unwrap()
        .unwrap();
    assert_eq!(matrix.len(), 2);
}

#[test]
fn a_damaged_block_is_damage_not_a_wrong_answer() {
    let stub = stub(8);
    let dir = notes(3);
    let (_, mut index) = kit::built(dir.path());
    let client = client_of(&stub, "m", 8);
    embed(&mut index, &client);
    index
        .conn
        .execute("UPDATE vector_blocks SET data = zeroblob(length(data))", [])
        .unwrap();
    index.forget();
    let err = index.vectors(&client.endpoint().vector_key()).unwrap_err();
    assert!(err.is_damage(), "{err}");
}

#[test]
fn nothing_embedded_under_a_key_is_no_vectors() {
    let dir = notes(2);
    let (_, index) = kit::built(dir.path());
    assert!(index.vectors("model=nobody").unwrap().is_none());
}

#[test]
fn one_edited_section_of_a_long_note_embeds_that_section_alone() {
    let stub = stub(16);
    let part = |name: &str, fill: &str| format!("## {name}\n\n{}\n\n", fill.repeat(60));
    let body = |third: &str| {
        format!(
            "{}{}{}",
            part("Intake", "Requests are read in the order they arrive. "),
            part("Checks", "Each request is checked against the schema. "),
            part("Storage", third)
        )
    };
    let note = |third: &str| format!("# Handling requests\n\n{}", body(third));
    // A vault of Markdown pages: a knowledge base, whose long pages have sections.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".obsidian")).unwrap();
    let page = dir.path().join("docs/handling.md");
    std::fs::create_dir_all(page.parent().unwrap()).unwrap();
    std::fs::write(&page, note("Stored requests are kept for a year. ")).unwrap();
    std::fs::write(
        dir.path().join("docs/other.md"),
        "# Other\n\nA short page.\n",
    )
    .unwrap();
    let (project, mut index) = kit::built(dir.path());
    let client = client_of(&stub, "m", 32);
    let first = embed(&mut index, &client);
    assert_eq!(first.embedded, 5, "two pages and three sections");
    stub.texts();
    kit::settle();
    std::fs::write(
        &page,
        note("Stored requests are deleted after ninety days. "),
    )
    .unwrap();
    index.refresh(&project, Verify::Full, &mut |_| {}).unwrap();
    let done = embed(&mut index, &client);
    let asked = stub.texts();
    // The note's own text (its title and the head of its body) did not change: only the
    // edited section is embedded again.
    assert_eq!(done.embedded, 1, "{asked:?}");
    assert!(asked[0].contains("ninety days"), "{asked:?}");
    assert_eq!(embed(&mut index, &client), Embedded::default());
}

/// An embedding pass is a write like a refresh: it leaves the log empty (every later process
/// would read it) and the file sealed (or the next process verifies all of it).
#[test]
fn a_pass_leaves_an_empty_log_and_a_sealed_file() {
    let stub = stub(16);
    let dir = notes(40);
    let (_, mut index) = kit::built(dir.path());
    assert!(index.is_sealed());
    let client = client_of(&stub, "m", 8);
    assert_eq!(embed(&mut index, &client).embedded, 40);
    let log =
        std::fs::metadata(dir.path().join(".brief/cache/index.db-wal")).map_or(0, |m| m.len());
    assert_eq!(log, 0);
    assert!(index.is_sealed(), "the pass sealed what it wrote");
}
