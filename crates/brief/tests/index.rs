//! The on-disk index: incremental refresh (asserted by what was parsed, not by time),
//! deletions, corruption, concurrent readers, and output identical to the in-memory graph.

use std::fs;
use std::path::Path;

use brief::context::ContextRequest;
use brief::engine::Engine;
use brief::index::Verify;
use brief::{assemble, load, Format, Project};

const PAYMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");
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

fn project_copy(src: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(Path::new(src), dir.path());
    dir
}

fn engine(root: &Path) -> Engine {
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

#[test]
fn refresh_parses_only_what_changed() {
    let dir = project_copy(PAYMENTS);
    let mut engine = engine(dir.path());
    let first = engine.refresh(Some(Verify::Full), &mut |_, _| {}).unwrap();
    assert!(first.created);
    assert_eq!(first.parsed, first.files);
    assert_eq!(first.files, 36);

    let again = engine.refresh(Some(Verify::Full), &mut |_, _| {}).unwrap();
    assert_eq!(
        (again.parsed, again.unchanged_content, again.removed),
        (0, 0, 0)
    );

    // Touched but identical: read and hashed, not parsed.
    let file = dir.path().join("specgraph/nodes/policies/POL-CHK-02.json");
    let text = fs::read_to_string(&file).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(&file, &text).unwrap();
    let touched = engine.refresh(Some(Verify::Full), &mut |_, _| {}).unwrap();
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
    let changed = engine.refresh(Some(Verify::Full), &mut |_, _| {}).unwrap();
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
    let refresh = engine.refresh(None, &mut |_, _| {}).unwrap();
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
        let graph = load(&project).graph;
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
    engine(dir.path()).refresh(None, &mut |_, _| {}).unwrap();
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
            .refresh(Some(Verify::Full), &mut |_, _| {})
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
    let hits = engine.search("dec-plat-01", 5, None).unwrap();
    assert_eq!(hits[0].id, "DEC-PLAT-01");
    let hits = engine.search("idempotency key", 10, None).unwrap();
    assert!(!hits.is_empty());
    let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
    assert!(ids.contains(&"POL-CHK-01"), "{ids:?}");
    assert!(
        hits.windows(2).all(|w| w[0].score >= w[1].score),
        "sorted by score"
    );
    let decisions = engine.search("idempotency", 10, Some("decision")).unwrap();
    assert!(decisions.iter().all(|h| h.kind == "decision"));
    assert!(engine.search("zzzqqqxxx", 10, None).unwrap().is_empty());
    assert!(
        engine.search("\"unbalanced OR (", 10, None).is_ok(),
        "query syntax never leaks"
    );
}

#[test]
fn a_named_file_is_refreshed_alone() {
    let dir = project_copy(PAYMENTS);
    let mut engine = engine(dir.path());
    engine.refresh(Some(Verify::Full), &mut |_, _| {}).unwrap();
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
                .refresh(Some(Verify::Full), &mut |done, total| {
                    if done == total && midway.is_none() {
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
    let waited = second.refresh(Some(Verify::Full), &mut |_, _| {}).unwrap();
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
    let refresh = engine.refresh(None, &mut |_, _| {}).unwrap();
    assert!(refresh.created);
    assert_eq!(refresh.parsed, 36);
    for leftover in ["index.db.build", "index.db.build-journal"] {
        assert!(!cache.join(leftover).exists(), "{leftover}");
    }
    let project = Project::at(dir.path()).unwrap();
    let req = request("CHECKOUT-01", Format::Markdown, 4000);
    let expected = assemble(&load(&project).graph, &project.defaults, &req)
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
    let error = engine
        .refresh(None, &mut |_, _| {})
        .unwrap_err()
        .to_string();
    assert!(error.contains("index.db"), "{error}");
    assert_eq!(fs::read_to_string(db.join("keep.txt")).unwrap(), "mine");
    // Once the user moves it aside, the next run builds the index.
    fs::remove_dir_all(&db).unwrap();
    let refresh = engine.refresh(None, &mut |_, _| {}).unwrap();
    assert_eq!((refresh.parsed, refresh.created), (36, true));
    assert!(db.is_file());
}
