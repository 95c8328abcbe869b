//! The on-disk index: incremental refresh (asserted by what was parsed, not by time),
//! deletions, corruption, concurrent readers, and output identical to the in-memory graph.

use std::fs;
use std::path::Path;

use brief::{Format, Project};
use brief_engine::assemble;
use brief_engine::ContextRequest;
use brief_engine::Engine;
use brief_index::Verify;

pub(crate) const PAYMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");
const NOTES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/notes-app");

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == ".brief" {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

pub(crate) fn project_copy(src: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(Path::new(src), dir.path());
    dir
}

pub(crate) fn engine(root: &Path) -> Engine {
    Engine::open(Some(root), root).unwrap()
}

fn request(target: &str, format: Format, budget: usize) -> ContextRequest {
    ContextRequest {
        target: target.to_string(),
        budget: Some(budget),
        format,
        ..ContextRequest::default()
    }
}

/// Waits until files just written are older than the window in which their timestamps could
/// still hide a second change (`sources::Stamp::racy`): until then a refresh hashes them
/// again, so tests that count re-reads start from settled files.
pub(crate) fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(120));
}

#[test]
fn refresh_parses_only_what_changed() {
    let dir = project_copy(PAYMENTS);
    settle();
    let mut engine = engine(dir.path());
    let first = engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
    assert!(first.created);
    assert_eq!(first.parsed, first.files);
    assert_eq!(first.files, 36);

    let again = engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
    assert_eq!(
        (again.parsed, again.unchanged_content, again.removed),
        (0, 0, 0)
    );

    // Touched but identical: read and hashed, not parsed.
    let file = dir.path().join("specgraph/nodes/policies/POL-CHK-02.json");
    let text = fs::read_to_string(&file).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(&file, &text).unwrap();
    let touched = engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
    assert_eq!((touched.parsed, touched.unchanged_content), (0, 1));

    // Changed: exactly that file is parsed, and the change shows in the context.
    fs::write(
        &file,
        text.replace(
            "Authorization latency budget",
            "Authorization latency target",
        ),
    )
    .unwrap();
    let changed = engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
    assert_eq!((changed.parsed, changed.removed), (1, 0));
    let out = engine
        .context(&request("CHECKOUT-01", Format::Markdown, 100_000))
        .unwrap();
    assert!(out.text.contains("Authorization latency target"));
}

#[test]
fn deleted_files_leave_the_index() {
    let dir = project_copy(NOTES);
    let mut engine = engine(dir.path());
    let before = engine
        .context(&request("TASK-002", Format::Json, 100_000))
        .unwrap();
    assert!(before.text.contains("\"id\": \"NORM-SEC-001\""));
    fs::remove_file(dir.path().join(".contextia/system/norms/NORM-SEC-001.md")).unwrap();
    let refresh = engine.refresh(None, &mut |_| {}).unwrap();
    assert_eq!(refresh.removed, 1);
    let after = engine
        .context(&request("TASK-002", Format::Json, 100_000))
        .unwrap();
    assert!(!after.text.contains("\"id\": \"NORM-SEC-001\""));
    assert!(
        after.warnings.iter().any(|w| w.contains("NORM-SEC-001")),
        "links to the deleted norm are reported: {:?}",
        after.warnings
    );
}

#[test]
fn a_corrupt_index_is_rebuilt() {
    let dir = project_copy(PAYMENTS);
    let expected = {
        let mut engine = engine(dir.path());
        engine
            .context(&request("CHECKOUT-01", Format::Markdown, 4000))
            .unwrap()
            .text
    };
    let db = dir.path().join(".brief/cache/index.db");
    assert!(db.exists());
    for suffix in ["-wal", "-shm"] {
        let _ = fs::remove_file(format!("{}{suffix}", db.display()));
    }
    fs::write(
        &db,
        b"this is not an SQLite database, just garbage bytes...........",
    )
    .unwrap();
    let mut engine = engine(dir.path());
    let text = engine
        .context(&request("CHECKOUT-01", Format::Markdown, 4000))
        .unwrap()
        .text;
    assert_eq!(text, expected);
}

#[test]
fn a_foreign_index_is_reset() {
    let dir = project_copy(PAYMENTS);
    let db_dir = dir.path().join(".brief/cache");
    fs::create_dir_all(&db_dir).unwrap();
    {
        let conn = rusqlite::Connection::open(db_dir.join("index.db")).unwrap();
        conn.execute_batch("CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES ('schema', 'something-else');")
            .unwrap();
    }
    let mut engine = engine(dir.path());
    let out = engine
        .context(&request("CHECKOUT-01", Format::Markdown, 4000))
        .unwrap();
    assert!(out.text.starts_with("# Context for CHECKOUT-01"));
}

#[test]
fn index_and_memory_give_the_same_bytes() {
    for (root, target) in [(PAYMENTS, "CHECKOUT-01"), (NOTES, "TASK-002")] {
        let dir = project_copy(root);
        let project = Project::at(dir.path()).unwrap();
        let graph = project.load().graph;
        let mut engine = engine(dir.path());
        for format in [Format::Markdown, Format::Json, Format::Text] {
            for budget in [600, 2500, 100_000] {
                let req = request(target, format, budget);
                let memory = assemble(&graph, &project.defaults, &req).unwrap().text;
                let indexed = engine.context(&req).unwrap().text;
                assert_eq!(memory, indexed, "{target} {format} {budget}");
            }
        }
    }
}

#[test]
fn readers_work_while_a_refresh_writes() {
    let dir = project_copy(PAYMENTS);
    engine(dir.path()).refresh(None, &mut |_| {}).unwrap();
    let root = dir.path().to_path_buf();
    let expected = engine(&root)
        .context(&request("CHECKOUT-01", Format::Markdown, 4000))
        .unwrap()
        .text;
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let root = root.clone();
            std::thread::spawn(move || {
                (0..10)
                    .map(|_| {
                        let mut engine = Engine::open(Some(&root), &root).unwrap();
                        engine
                            .context(&request("CHECKOUT-01", Format::Markdown, 4000))
                            .unwrap()
                            .text
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    // A writer rewrites an unrelated node file meanwhile.
    let file = root.join("specgraph/nodes/behaviors/REFUNDS-01.json");
    let text = fs::read_to_string(&file).unwrap();
    for i in 0..10 {
        // Editors that save atomically: write aside, then rename over the file.
        let aside = root.join("specgraph/nodes/behaviors/.REFUNDS-01.json.tmp");
        fs::write(
            &aside,
            text.replace("\"title\": \"", &format!("\"title\": \"v{i} ")),
        )
        .unwrap();
        fs::rename(&aside, &file).unwrap();
        engine(&root)
            .refresh(Some(Verify::Full), &mut |_| {})
            .unwrap();
    }
    for reader in readers {
        for text in reader.join().unwrap() {
            assert_eq!(text, expected);
        }
    }
}

#[test]
fn search_ranks_an_exact_id_first_then_bm25() {
    let dir = project_copy(PAYMENTS);
    let mut engine = engine(dir.path());
    let hits = engine.search("dec-plat-01", 5, None).unwrap().hits;
    assert_eq!(hits[0].id, "DEC-PLAT-01");
    let hits = engine.search("idempotency key", 10, None).unwrap().hits;
    assert!(!hits.is_empty());
    let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
    assert!(ids.contains(&"POL-CHK-01"), "{ids:?}");
    assert!(
        hits.windows(2).all(|w| w[0].score >= w[1].score),
        "sorted by score"
    );
    let decisions = engine
        .search("idempotency", 10, Some("decision"))
        .unwrap()
        .hits;
    assert!(decisions.iter().all(|h| h.kind == "decision"));
    let none = engine.search("zzzqqqxxx", 10, None).unwrap();
    assert!(none.hits.is_empty());
    assert_eq!(none.miss, Some(brief_engine::Weakness::NoWord));
    assert!(
        engine.search("\"unbalanced OR (", 10, None).is_ok(),
        "query syntax never leaks"
    );
}

/// Words more nodes hold than a word's hits are read for are scored on the nodes that hold
/// them together, or hold the query's rarer words: the page about all of them still leads.
#[test]
fn words_most_nodes_hold_still_find_the_page_about_them() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    fs::create_dir_all(&docs).unwrap();
    // 1,150 pages mention the ledger and 1,150 an export (1,100 both): more than the 1,000
    // hits read for one word.
    for n in 0..1200 {
        let ledger = if n < 1150 {
            "The ledger keeps rows. "
        } else {
            ""
        };
        let export = if n >= 50 {
            "An export runs nightly. "
        } else {
            ""
        };
        let page = format!("# Page {n}\n\n{ledger}{export}Filler about page {n}.\n");
        fs::write(docs.join(format!("page-{n:04}.md")), page).unwrap();
    }
    let about = "# Ledger export\n\nHow a ledger export is signed and retained.\n";
    fs::write(docs.join("ledger-export.md"), about).unwrap();
    fs::write(dir.path().join("brief.toml"), "markdown = true\n").unwrap();
    let mut engine = engine(dir.path());
    for query in ["ledger export", "retained ledger export", "signed export"] {
        let hits = engine.search(query, 5, None).unwrap().hits;
        assert_eq!(hits[0].id, "docs/ledger-export.md", "{query}: {hits:?}");
    }
    // Only the common words: the pages holding both come before those holding one.
    let hits = engine.search("ledger export", 40, None).unwrap().hits;
    let holds_both = |id: &str| {
        id == "docs/ledger-export.md"
            || id
                .trim_start_matches("docs/page-")
                .trim_end_matches(".md")
                .parse::<usize>()
                .is_ok_and(|n| (50..1150).contains(&n))
    };
    assert!(hits.iter().all(|h| holds_both(&h.id)), "{hits:?}");
}

#[test]
fn a_named_file_is_refreshed_alone() {
    let dir = project_copy(PAYMENTS);
    let mut engine = engine(dir.path());
    engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
    let rel = "specgraph/nodes/decisions/DEC-CHK-04.json";
    let file = dir.path().join(rel);
    let text = fs::read_to_string(&file).unwrap();
    fs::write(
        &file,
        text.replace("Adyen Checkout API", "Adyen Sessions API"),
    )
    .unwrap();
    let refresh = engine.refresh_paths(&[rel.to_string()]).unwrap();
    assert_eq!((refresh.files, refresh.parsed), (1, 1));
    let shown = engine
        .show("DEC-CHK-04", brief::Detail::Meta, Format::Markdown, None)
        .unwrap();
    assert!(shown.contains("Adyen Sessions API"), "{shown}");
    // A file the index does not know makes it a full refresh.
    let refresh = engine
        .refresh_paths(&["specgraph/nodes/decisions/NEW.json".into()])
        .unwrap();
    assert_eq!(refresh.files, 36);
}

#[test]
fn several_processes_building_one_index_at_once_agree() {
    for _ in 0..3 {
        let dir = project_copy(PAYMENTS);
        let root = dir.path().to_path_buf();
        let builders: Vec<_> = (0..4)
            .map(|_| {
                let root = root.clone();
                std::thread::spawn(move || {
                    let mut engine = Engine::open(Some(&root), &root).unwrap();
                    engine
                        .context(&request("CHECKOUT-01", Format::Markdown, 4000))
                        .map(|out| out.text)
                        .map_err(|e| e.to_string())
                })
            })
            .collect();
        let texts: Vec<Result<String, String>> =
            builders.into_iter().map(|b| b.join().unwrap()).collect();
        let first = texts[0].clone().unwrap();
        for text in texts {
            assert_eq!(text.unwrap(), first);
        }
    }
}

#[test]
fn a_new_index_appears_whole_and_a_second_process_waits_for_it() {
    let dir = project_copy(PAYMENTS);
    let root = dir.path().to_path_buf();
    let cache = root.join(".brief/cache");
    let (started, builder_started) = std::sync::mpsc::channel();
    let builder = {
        let (root, cache) = (root.clone(), cache.clone());
        std::thread::spawn(move || {
            let mut engine = Engine::open(Some(&root), &root).unwrap();
            let mut midway = None;
            let refresh = engine
                .refresh(Some(Verify::Full), &mut |step| {
                    if step.done == step.total && midway.is_none() {
                        midway = Some((
                            cache.join("index.db").exists(),
                            cache.join("index.db.build").exists(),
                        ));
                        started.send(()).unwrap();
                        // Long enough for the other engine to reach the build lock.
                        std::thread::sleep(std::time::Duration::from_millis(300));
                    }
                })
                .unwrap();
            (refresh, midway)
        })
    };
    builder_started.recv().unwrap();
    let mut second = Engine::open(Some(&root), &root).unwrap();
    let waited = second.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
    let (built, midway) = builder.join().unwrap();
    // While building, only the private file exists; the real name appears when it is whole.
    assert_eq!(midway, Some((false, true)));
    assert!(built.created);
    assert_eq!((built.parsed, built.files), (36, 36));
    // The second engine waited and opened the published index: nothing was parsed twice.
    assert_eq!(
        (waited.parsed, waited.files, waited.created),
        (0, 36, false)
    );
    assert!(cache.join("index.db").exists());
    assert!(!cache.join("index.db.build").exists());
    let text = second
        .context(&request("CHECKOUT-01", Format::Markdown, 4000))
        .unwrap()
        .text;
    assert!(text.contains("CHECKOUT-01"));
}

#[test]
fn a_build_left_by_a_killed_process_is_started_over() {
    let dir = project_copy(PAYMENTS);
    let cache = dir.path().join(".brief/cache");
    fs::create_dir_all(&cache).unwrap();
    fs::write(cache.join("index.db.build"), b"half a database").unwrap();
    fs::write(cache.join("index.db.build-journal"), b"and its journal").unwrap();
    let mut engine = engine(dir.path());
    let refresh = engine.refresh(None, &mut |_| {}).unwrap();
    assert!(refresh.created);
    assert_eq!(refresh.parsed, 36);
    for leftover in ["index.db.build", "index.db.build-journal"] {
        assert!(!cache.join(leftover).exists(), "{leftover}");
    }
    let project = Project::at(dir.path()).unwrap();
    let req = request("CHECKOUT-01", Format::Markdown, 4000);
    let expected = assemble(&project.load().graph, &project.defaults, &req)
        .unwrap()
        .text;
    assert_eq!(engine.context(&req).unwrap().text, expected);
}

#[test]
fn an_index_file_that_cannot_be_opened_is_reported_not_deleted() {
    let dir = project_copy(PAYMENTS);
    // Not damaged, just not openable as a file: a folder where the index should be.
    let db = dir.path().join(".brief/cache/index.db");
    fs::create_dir_all(&db).unwrap();
    fs::write(db.join("keep.txt"), "mine").unwrap();
    let mut engine = engine(dir.path());
    let error = engine.refresh(None, &mut |_| {}).unwrap_err().to_string();
    assert!(error.contains("index.db"), "{error}");
    assert_eq!(fs::read_to_string(db.join("keep.txt")).unwrap(), "mine");
    // Once the user moves it aside, the next run builds the index.
    fs::remove_dir_all(&db).unwrap();
    let refresh = engine.refresh(None, &mut |_| {}).unwrap();
    assert_eq!((refresh.parsed, refresh.created), (36, true));
    assert!(db.is_file());
}

/// Sets a file's modification time (as `touch -d` and some editors and checkouts do).
fn set_mtime(file: &Path, mtime: std::time::SystemTime) {
    fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
}

/// Item 1: an edit that keeps the size and restores the mtime is still seen — by a full
/// refresh, by a refresh of the named file, and by a context.
#[test]
fn a_same_size_edit_with_the_mtime_restored_is_seen() {
    let dir = project_copy(PAYMENTS);
    let mut engine = engine(dir.path());
    engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
    let rel = "specgraph/nodes/policies/POL-CHK-02.json";
    let file = dir.path().join(rel);
    let text = fs::read_to_string(&file).unwrap();
    let mtime = fs::metadata(&file).unwrap().modified().unwrap();

    let edited = text.replace(
        "Authorization latency budget",
        "Authorization latency BUDGET",
    );
    assert_eq!(edited.len(), text.len());
    fs::write(&file, &edited).unwrap();
    set_mtime(&file, mtime);
    let refresh = engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
    assert_eq!(refresh.parsed, 1, "{refresh:?}");
    let out = engine
        .context(&request("CHECKOUT-01", Format::Markdown, 100_000))
        .unwrap();
    assert!(out.text.contains("Authorization latency BUDGET"));

    // A context alone (a fresh engine, as each CLI run is) sees the next such edit too.
    fs::write(&file, &text).unwrap();
    set_mtime(&file, mtime);
    let out = Engine::open(Some(dir.path()), dir.path())
        .unwrap()
        .context(&request("CHECKOUT-01", Format::Markdown, 100_000))
        .unwrap();
    assert!(out.text.contains("Authorization latency budget"));

    // `brief index FILE` always reads the named file again, whatever its stamp says.
    fs::write(&file, &edited).unwrap();
    set_mtime(&file, mtime);
    let named = engine.refresh_paths(&[rel.to_string()]).unwrap();
    assert_eq!(named.parsed, 1, "{named:?}");
    let shown = engine
        .show("POL-CHK-02", brief::Detail::Meta, Format::Markdown, None)
        .unwrap();
    assert!(shown.contains("Authorization latency BUDGET"), "{shown}");
    let again = engine.refresh_paths(&[rel.to_string()]).unwrap();
    assert_eq!(
        (again.parsed, again.unchanged_content),
        (0, 1),
        "read again, not parsed: {again:?}"
    );
}

/// Item 2: an edit of a graph.json entry alone (its id or expectedType) is checked again
/// by a warm index, as a cold one would.
#[test]
fn an_edited_manifest_entry_is_checked_again() {
    let dir = project_copy(PAYMENTS);
    let manifest = dir.path().join("specgraph/graph.json");
    let original = fs::read_to_string(&manifest).unwrap();
    let mut engine = engine(dir.path());
    let req = request("CHECKOUT-01", Format::Markdown, 4000);
    engine.context(&req).unwrap();
    for (from, to) in [
        (
            "\"path\": \"nodes/policies/POL-CHK-02.json\",\n      \"expectedType\": \"policy\"",
            "\"path\": \"nodes/policies/POL-CHK-02.json\",\n      \"expectedType\": \"decision\"",
        ),
        ("\"id\": \"POL-CHK-02\",", "\"id\": \"POL-CHK-99\","),
    ] {
        assert!(original.contains(from), "{from}");
        fs::write(&manifest, original.replace(from, to)).unwrap();
        let warm = engine.context(&req);
        let cold = {
            let copy = project_copy(dir.path().to_str().unwrap());
            Engine::open(Some(copy.path()), copy.path())
                .unwrap()
                .context(&req)
                .map(|out| out.text)
                .map_err(|e| e.describe(Path::new(".")))
        };
        let warm = warm
            .map(|out| out.text)
            .map_err(|e| e.describe(Path::new(".")));
        assert!(cold.is_err(), "{to}: a clean build refuses");
        assert_eq!(warm.as_ref().err(), cold.as_ref().err(), "{to}");
        // Back to the original: the warm index follows.
        fs::write(&manifest, &original).unwrap();
        assert!(engine.context(&req).is_ok());
    }
}

/// Moves everything in an index file's write-ahead log into the file and removes the log
/// (brief's own connections leave the log to its writers).
pub(crate) fn checkpoint(db: &Path) {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    drop(conn);
    for suffix in ["-wal", "-shm"] {
        assert!(
            !Path::new(&format!("{}{suffix}", db.display())).exists(),
            "checkpointed on close"
        );
    }
}

/// The pages of an index file with no write-ahead log beside it.
fn index_pages(db: &Path) -> (Vec<u8>, usize) {
    checkpoint(db);
    let bytes = fs::read(db).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    let page = if page == 1 { 65536 } else { page };
    (bytes, page)
}

/// Item 4: every page of a real index.db zeroed in turn: each request still answers exactly
/// what a fresh build answers (the damage is detected and the index rebuilt), never panics,
/// and the damage does not outlive the run that found it.
#[test]
fn a_damaged_index_page_is_detected_and_rebuilt() {
    let dir = project_copy(PAYMENTS);
    let root = dir.path().to_path_buf();
    type Answer = Result<String, String>;
    let ask = |root: &Path| -> Vec<Answer> {
        let mut engine = Engine::open(Some(root), root).unwrap();
        let mut answers = Vec::new();
        for req in [
            request("CHECKOUT-01", Format::Json, 4000),
            request("POL-CHK-01", Format::Markdown, 1500),
        ] {
            answers.push(
                engine
                    .context(&req)
                    .map(|o| o.text)
                    .map_err(|e| e.to_string()),
            );
        }
        answers.push(
            engine
                .show("DEC-PLAT-01", brief::Detail::Full, Format::Json, None)
                .map_err(|e| e.to_string()),
        );
        answers.push(
            engine
                .search("idempotency key", 10, None)
                .map(|hits| format!("{hits:?}"))
                .map_err(|e| e.to_string()),
        );
        answers.push(engine.catalog().map_err(|e| e.to_string()));
        answers
    };
    let expected = ask(&root);
    assert!(expected.iter().all(Result::is_ok), "{expected:?}");
    // The token-count cache is filled too: a second run reads it.
    assert_eq!(ask(&root), expected);
    let db = root.join(".brief/cache/index.db");
    let (pristine, page) = index_pages(&db);
    let pages = pristine.len() / page;
    assert!(pages >= 10, "{pages} pages");
    for n in 0..pages {
        let mut damaged = pristine.clone();
        damaged[n * page..(n + 1) * page].fill(0);
        fs::write(&db, &damaged).unwrap();
        for run in 0..2 {
            let answers = std::panic::catch_unwind(|| ask(&root))
                .unwrap_or_else(|_| panic!("page {} zeroed: run {run} panicked", n + 1));
            assert_eq!(answers, expected, "page {} zeroed, run {run}", n + 1);
        }
    }
}

/// Item 6: a query of a million repeated words (what an MCP client may send) is refused by
/// the engine before anything is searched, and the index itself never searches more than
/// the limit.
#[test]
fn huge_queries_are_refused_and_never_run() {
    let dir = project_copy(PAYMENTS);
    let mut engine = engine(dir.path());
    let huge = "payment ".repeat(1_000_000);
    let err = engine.search(&huge, 10, None).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("8000000 bytes"), "{err}");
    let err = engine
        .context(&request(&huge, Format::Markdown, 4000))
        .unwrap_err();
    assert_eq!(err.exit_code(), 2, "{err}");
    // Below the engine, a long query is cut to the limit rather than run whole.
    let hits = engine.index().search(&huge, 5, None).unwrap();
    let once = engine.index().search("payment", 5, None).unwrap();
    assert_eq!(hits, once);
}

/// A server (which refreshes only when its change signal says so) that finds its index
/// damaged mid-request rebuilds it and answers from the rebuilt index, not from the empty
/// one the rebuild starts with. Here the damage is an index of the same schema name with a
/// column missing, as left by an earlier build of brief.
#[test]
fn a_rebuild_mid_request_refreshes_even_without_a_signalled_change() {
    let dir = project_copy(PAYMENTS);
    let mut engine = engine(dir.path());
    engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
    drop(engine);
    let db = dir.path().join(".brief/cache/index.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("ALTER TABLE node_data DROP COLUMN sum")
        .unwrap();
    drop(conn);

    let mut engine = self::engine(dir.path());
    let signal = brief_engine::ChangeSignal::default();
    engine.refresh_on(signal.clone());
    signal.mark();
    let out = engine
        .context(&request("CHECKOUT-01", Format::Markdown, 100_000))
        .unwrap();
    assert!(
        out.text.starts_with("# Context for CHECKOUT-01"),
        "{}",
        out.text
    );
    // No change since: the next request answers without a refresh, from the rebuilt file.
    let again = engine
        .context(&request("CHECKOUT-01", Format::Markdown, 100_000))
        .unwrap();
    assert_eq!(again.text, out.text);
}

#[test]
fn show_json_counts_through_the_count_cache() {
    use brief_count::{count_key, CountStore};
    let dir = project_copy(PAYMENTS);
    let mut engine = engine(dir.path());
    let show = |engine: &mut Engine, detail, format| {
        engine.show("DEC-CHK-04", detail, format, None).unwrap()
    };
    let tokens = |text: String| {
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        json["tokens"].as_u64().unwrap() as usize
    };
    let encoding = brief::Encoding::default();
    // A count made by `show` is kept.
    let markdown = show(&mut engine, brief::Detail::Full, Format::Markdown);
    let key = count_key(encoding, &markdown);
    assert_eq!(engine.index().get(&key), None, "nothing counted yet");
    let counted = tokens(show(&mut engine, brief::Detail::Full, Format::Json));
    assert_eq!(counted, encoding.count(&markdown));
    assert_eq!(
        engine.index().get(&key),
        Some(counted),
        "the count was kept"
    );
    // A cached count is what is shown: the tokenizer is not asked.
    let summary = show(&mut engine, brief::Detail::Summary, Format::Markdown);
    let key = count_key(encoding, &summary);
    let planted = encoding.count(&summary) + 1000;
    engine.index().put(&[(key.to_vec(), planted)]);
    let shown = tokens(show(&mut engine, brief::Detail::Summary, Format::Json));
    assert_eq!(shown, planted);
}

/// A Tana export is one file of up to millions of nodes: its refresh reports the nodes it has
/// written (for the CLI's bar), in order, up to all of them.
#[test]
fn a_tana_export_reports_its_nodes_as_progress() {
    use brief_index::{Step, Unit};
    let dir = project_copy(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../brief-cli/tests/fixtures/tana"
    ));
    let mut engine = engine(dir.path());
    let mut steps: Vec<Step> = Vec::new();
    let refresh = engine
        .refresh(Some(Verify::Full), &mut |step| steps.push(step))
        .unwrap();
    let nodes: Vec<&Step> = steps.iter().filter(|s| s.unit == Unit::Nodes).collect();
    let last = nodes.last().expect("the export's nodes were reported");
    assert_eq!(last.done, last.total);
    assert_eq!(
        last.total, refresh.tana_nodes,
        "every content node was written"
    );
    assert!(nodes.windows(2).all(|w| w[0].done <= w[1].done));
}

/// Sections through the index: links to a heading land on its section as the page grows past
/// the section size, and back on the page when it shrinks, exactly as the in-memory graph
/// says at each step.
#[test]
fn sections_follow_their_page_through_refreshes() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../brief-cli/tests/fixtures/kb/markdown-details/repo"
    );
    let dir = project_copy(fixture);
    let storage = dir.path().join("docs/storage.md");
    let long = fs::read_to_string(&storage).unwrap();
    let short: String = long.lines().take(40).collect::<Vec<_>>().join("\n");
    let mut engine = engine(dir.path());
    for (step, text) in [("long", &long), ("short", &short), ("long again", &long)] {
        fs::write(&storage, text).unwrap();
        settle();
        let project = Project::at(dir.path()).unwrap();
        let graph = project.load().graph;
        for target in ["docs/guides/runners.md", "docs/storage.md", "README.md"] {
            let req = request(target, Format::Json, 100_000);
            let memory = assemble(&graph, &project.defaults, &req).unwrap().text;
            let indexed = engine.context(&req).unwrap().text;
            assert_eq!(memory, indexed, "{step}: {target}");
        }
        use brief_model::GraphView;
        let index = engine.index();
        let runners = index.lookup("docs/guides/runners.md").unwrap().unwrap();
        let mut targets: Vec<String> = index
            .edges_out(runners)
            .unwrap()
            .iter()
            .map(|e| format!("{} {}", e.relation.name(), index.id_of(e.to).unwrap()))
            .collect();
        targets.sort();
        let lands = |anchor: &str| match step {
            "short" => "docs/storage.md".to_string(),
            _ => format!("docs/storage.md#{anchor}"),
        };
        let mut expected = vec![
            format!("links#Cache directory {}", lands("cache-directory")),
            format!("links#Layout {}", lands("layout")),
            format!("links#Restoring {}", lands("restoring")),
            "links#Setup 1 docs/storage.md".to_string(),
        ];
        expected.sort();
        assert_eq!(targets, expected, "{step}");
    }
}

/// A file problem read back from the index is of the kind its loader said, as read straight
/// from the files.
#[test]
fn recorded_problems_keep_the_kind_their_loader_gave() {
    let dir = tempfile::tempdir().unwrap();
    let specs = dir.path().join(".contextia/system/specs");
    fs::create_dir_all(&specs).unwrap();
    fs::write(specs.join("A.md"), "---\ntitle: No id\n---\nBody\n").unwrap();
    fs::write(specs.join("B.md"), "---\nid: B\n  bad: [\n---\nBody\n").unwrap();
    fs::write(specs.join("C.md"), "---\nid: C\ntitle: Fine\n---\nBody\n").unwrap();
    let project = Project::at(dir.path()).unwrap();
    let kinds = |problems: &[brief_sources::Problem]| {
        let mut kinds: Vec<(String, brief_sources::ProblemKind)> = problems
            .iter()
            .map(|p| (p.location.path.clone(), p.kind))
            .collect();
        kinds.sort();
        kinds
    };
    let loaded = project.load();
    let from_files = kinds(&loaded.problems);
    assert_eq!(
        from_files.iter().map(|(_, k)| *k).collect::<Vec<_>>(),
        [
            brief_sources::ProblemKind::MissingField,
            brief_sources::ProblemKind::Syntax
        ]
    );
    let mut engine = engine(dir.path());
    let Err(brief::EngineError::Load(recorded)) = engine.context(&request("C", Format::Json, 500))
    else {
        panic!("the broken files must refuse the context");
    };
    assert_eq!(kinds(&recorded), from_files);
}
