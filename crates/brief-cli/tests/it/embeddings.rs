//! Embeddings through the binary, against the stub server (`brief_embed::stub`): the
//! configuration from brief.toml and the environment, `brief index` embedding each node
//! once, and every way the endpoint can fail — refused, stalled, an HTTP error, a partial
//! batch, wrong dimensions, bytes that are not HTTP — answered with the context from the
//! graph and words, exit 0, one warning line and `embeddings: "unavailable: …"` in the JSON
//! audit. The time bound (the time-out plus 50 ms) is measured alone, in
//! `tests/embeddings_timing.rs`.

use serde_json::Value;

use crate::common::embed::*;
use crate::common::{copy_fixture, run};

#[test]
fn brief_index_embeds_each_node_once_then_nothing_then_only_the_edited_note() {
    let stub = stub(Answer::Vectors(16));
    let dir = copy_fixture(ADR_TOOLS);
    let root = dir.path().to_str().unwrap();
    let (code, out, err, _) = brief_with(&["index", "--root", root], &env_of(&stub));
    assert_eq!(code, 0, "{err}");
    let asked = stub.texts();
    assert!(asked.len() >= 10, "{asked:?}");
    assert!(
        out.contains(&format!(
            "embeddings (stub-model): {} texts embedded, every node has its vector",
            asked.len()
        )),
        "{out}"
    );
    // Nothing changed: nothing is sent.
    let (code, out, _, _) = brief_with(&["index", "--root", root], &env_of(&stub));
    assert_eq!(code, 0);
    assert!(out.contains("0 texts embedded"), "{out}");
    assert!(stub.texts().is_empty());
    // One note edited: that note alone.
    let adr = dir
        .path()
        .join("doc/adr/0003-store-label-pdfs-on-the-local-disk.md");
    let text = std::fs::read_to_string(&adr).unwrap();
    std::fs::write(
        &adr,
        text.replace("## Context", "## Context\n\nDisks fill up.\n"),
    )
    .unwrap();
    let (code, out, _, _) = brief_with(&["index", "--root", root], &env_of(&stub));
    assert_eq!(code, 0);
    assert!(out.contains("1 text embedded"), "{out}");
    let asked = stub.texts();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].contains("Disks fill up."), "{asked:?}");
}

#[test]
fn a_context_says_embeddings_are_on_and_stays_byte_identical() {
    let stub = stub(Answer::Vectors(16));
    let dir = copy_fixture(ADR_TOOLS);
    let root = dir.path().to_str().unwrap();
    brief_with(&["index", "--root", root], &env_of(&stub));
    let (code, first, err, _) = brief_with(&context_args(root), &env_of(&stub));
    assert_eq!(code, 0, "{err}");
    assert!(warnings(&err).is_empty(), "{err}");
    let json: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(json["embeddings"], "on");
    // The semantic component of the rank, for the nodes similar to the query.
    let similarities: Vec<f64> = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["rank"]["similarity"].as_f64())
        .collect();
    assert!(!similarities.is_empty(), "{first}");
    assert!(
        similarities.iter().all(|s| (-1.0..=1.0).contains(s)),
        "{similarities:?}"
    );
    let (_, second, _, _) = brief_with(&context_args(root), &env_of(&stub));
    assert_eq!(first, second);
    // Off: the fields are absent.
    let (_, off, _, _) = brief_with(&context_args(root), &[]);
    let json: Value = serde_json::from_str(&off).unwrap();
    assert!(json.get("embeddings").is_none(), "{off}");
    assert!(!off.contains("\"similarity\""), "{off}");
}

#[test]
fn a_failing_endpoint_never_stops_a_context() {
    let stub = stub(Answer::Vectors(8));
    let dir = copy_fixture(ADR_TOOLS);
    let root = dir.path().to_str().unwrap();
    let (code, _, err, _) = brief_with(&["index", "--root", root], &env_of(&stub));
    assert_eq!(code, 0, "{err}");
    let off = [("BRIEF_EMBEDDINGS", "off".to_string())];
    let (_, reference, _, _) = brief_with(&context_args(root), &off);
    let reference: Value = serde_json::from_str(&reference).unwrap();
    let refused = closed_port();
    for (case, answer, says) in failures() {
        let env = match answer {
            Some(answer) => {
                stub.set(answer);
                env_of(&stub)
            }
            None => env_for(&refused),
        };
        let (code, out, err, _) = brief_with(&context_args(root), &env);
        assert_eq!(code, 0, "{case}: {err}");
        let warned = warnings(&err);
        assert_eq!(warned.len(), 1, "{case}: {err}");
        assert!(warned[0].contains(says), "{case}: {err}");
        let json: Value = serde_json::from_str(&out).unwrap();
        let field = json["embeddings"].as_str().unwrap_or_default();
        assert!(field.starts_with("unavailable: "), "{case}: {field}");
        assert!(field.contains(says), "{case}: {field}");
        // The context itself is the one made from the graph and words.
        assert_eq!(json["document"], reference["document"], "{case}");
    }
}

#[test]
fn a_markdown_context_with_the_server_down_prints_the_document_and_one_warning() {
    let dir = copy_fixture(ADR_TOOLS);
    let root = dir.path().to_str().unwrap();
    let (_, reference, _, _) = brief_with(&["context", WORDS, "--root", root], &[]);
    let (code, out, err, _) = brief_with(
        &["context", WORDS, "--root", root],
        &env_for(&closed_port()),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, reference);
    assert_eq!(warnings(&err).len(), 1, "{err}");
}

#[test]
fn brief_check_warns_about_an_endpoint_it_cannot_use() {
    let dir = copy_fixture(ADR_TOOLS);
    let root = dir.path().to_str().unwrap();
    let (code_without, _, _, _) = brief_with(&["check", "--root", root], &[]);
    let (code, _, err, _) = brief_with(&["check", "--root", root], &env_for(&closed_port()));
    assert_eq!(code, code_without, "a warning, not an error: {err}");
    assert!(
        err.lines().any(
            |l| l.starts_with("warning: the embeddings endpoint") && l.contains("cannot reach")
        ),
        "{err}"
    );
    let stub = stub(Answer::Vectors(8));
    let (_, _, err, _) = brief_with(&["check", "--root", root], &env_of(&stub));
    assert!(!err.contains("embeddings"), "{err}");
}

#[test]
fn a_missing_key_variable_is_a_warning_and_a_key_in_the_file_is_refused_at_its_place() {
    let dir = copy_fixture(ADR_TOOLS);
    let root = dir.path().to_str().unwrap();
    let stub = stub(Answer::Vectors(8));
    let mut env = env_of(&stub);
    env.push((
        "BRIEF_EMBEDDINGS_API_KEY_ENV",
        "BRIEF_TEST_NO_SUCH_KEY_VARIABLE".into(),
    ));
    let (code, out, err, _) = brief_with(&context_args(root), &env);
    assert_eq!(code, 0, "{err}");
    assert!(
        warnings(&err)[0].contains("BRIEF_TEST_NO_SUCH_KEY_VARIABLE"),
        "{err}"
    );
    let json: Value = serde_json::from_str(&out).unwrap();
    assert!(json["embeddings"]
        .as_str()
        .unwrap()
        .starts_with("unavailable: BRIEF_TEST_NO_SUCH_KEY_VARIABLE"));
    std::fs::write(
        dir.path().join("brief.toml"),
        "[embeddings]\nurl = \"http://localhost:11434/v1\"\nmodel = \"m\"\napi_key = \"sk-live-1234\"\n",
    )
    .unwrap();
    let (code, _, err) = run(&["context", WORDS, "--root", root]);
    assert_eq!(code, 2);
    assert!(err.contains("brief.toml:4:11"), "{err}");
    assert!(err.contains("api_key_env"), "{err}");
    assert!(
        !err.contains("sk-live-1234"),
        "the key is never repeated: {err}"
    );
}

#[test]
fn a_brief_toml_with_only_embeddings_reads_the_same_sources() {
    let stub = stub(Answer::Vectors(8));
    let dir = copy_fixture(ADR_TOOLS);
    let root = dir.path().to_str().unwrap();
    let (_, before, _, _) = brief_with(&["context", "ADR-0003", "--root", root], &[]);
    std::fs::write(
        dir.path().join("brief.toml"),
        format!(
            "[embeddings]\nurl = \"{}\"\nmodel = \"stub-model\"\ntimeout_ms = 300\n",
            stub.url()
        ),
    )
    .unwrap();
    let (code, after, err, _) = brief_with(&["context", "ADR-0003", "--root", root], &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(before, after);
    // The file's settings are used: the nodes were embedded.
    assert!(!stub.texts().is_empty());
}
