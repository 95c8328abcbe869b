//! A file watcher's word for the index (`brief::watched`): a process that consults it skips
//! its own check of every file only while a watcher vouches, and checks as usual otherwise.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use brief::{Detail, Format};
use brief_engine::Engine;
use brief_engine::{Answering, Vouch, COOKIE_PREFIX, SOCKET};

use crate::index::{engine, project_copy, settle, PAYMENTS};

/// CHECKOUT-01 at meta detail, as JSON (its title is what the tests edit).
fn title(engine: &mut Engine) -> String {
    engine
        .show("CHECKOUT-01", Detail::Meta, Format::Json, None)
        .unwrap()
}

/// A watcher that was told of no change: it vouches for the index as it is. Its cookies are
/// reported by hand, standing in for its file events. Dropped, it stops answering.
struct HandWatcher {
    answering: Option<Answering>,
    stop: Arc<AtomicBool>,
    reporter: Option<std::thread::JoinHandle<()>>,
}

impl HandWatcher {
    fn start(engine: &Engine) -> HandWatcher {
        let cache = engine
            .index()
            .cache_dir()
            .expect("the index lives in .brief/cache");
        let vouch = Vouch::claim(Arc::clone(&cache)).unwrap();
        let cookies = vouch.cookies();
        let stop = Arc::new(AtomicBool::new(false));
        let reporter = std::thread::spawn({
            let stop = Arc::clone(&stop);
            let folder = cache.real_path("");
            move || {
                while !stop.load(Ordering::SeqCst) {
                    for entry in std::fs::read_dir(&folder).unwrap().flatten() {
                        let name = entry.file_name();
                        if name.to_string_lossy().starts_with(COOKIE_PREFIX) {
                            cookies.observe(&entry.path());
                        }
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        });
        HandWatcher {
            answering: Some(vouch.answer(|| Ok(()))),
            stop,
            reporter: Some(reporter),
        }
    }
}

impl Drop for HandWatcher {
    fn drop(&mut self) {
        drop(self.answering.take());
        self.stop.store(true, Ordering::SeqCst);
        if let Some(reporter) = self.reporter.take() {
            let _ = reporter.join();
        }
    }
}

#[test]
fn a_vouched_index_is_not_checked_and_without_a_watcher_it_is() {
    unheard_edit_unseen_while_vouched(title);
}

/// CHECKOUT-01's context as JSON (its title is what the tests edit).
fn context_of_checkout(engine: &mut Engine) -> String {
    let request = brief_engine::ContextRequest {
        target: "CHECKOUT-01".into(),
        format: Format::Json,
        ..Default::default()
    };
    engine.context(&request).unwrap().text
}

#[test]
fn a_vouched_context_leaves_even_its_own_files_unchecked() {
    // The watcher heard of every change made before the request: checking the files the
    // context is made of would find nothing it did not.
    unheard_edit_unseen_while_vouched(context_of_checkout);
}

/// `read` (CHECKOUT-01 as some request shows it) misses an edit in place the watcher never
/// heard of while it vouches, and sees it once the watcher stops answering.
fn unheard_edit_unseen_while_vouched(read: fn(&mut Engine) -> String) {
    let dir = project_copy(PAYMENTS);
    let mut engine = engine(dir.path());
    assert!(read(&mut engine).contains("Card payment authorization"));
    let watcher = HandWatcher::start(&engine);

    retitle(dir.path(), "authorization", "authorisatio4");
    engine.consult_watcher();
    let vouched = read(&mut engine);
    assert!(
        vouched.contains("Card payment authorization"),
        "the watcher vouched, yet the files were checked: {vouched}"
    );
    assert!(engine.notices().is_empty(), "{:?}", engine.notices());

    // The watcher stops answering (its socket is removed): the next request checks the
    // files itself.
    drop(watcher);
    let socket = engine.index().cache_dir().unwrap().real_path(SOCKET);
    assert!(!socket.exists());
    let checked = read(&mut engine);
    assert!(checked.contains("authorisatio4"), "{checked}");
}

/// Rewrites CHECKOUT-01's title in place, keeping the file's size (a stamp check still sees
/// the new mtime, but only a check of this very file can).
fn retitle(root: &Path, from: &str, to: &str) {
    let file = root.join("specgraph/nodes/behaviors/CHECKOUT-01.json");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(from));
    std::fs::write(&file, text.replace(from, to)).unwrap();
}

#[test]
fn above_the_full_check_limit_the_files_a_watcher_names_are_read() {
    let dir = project_copy(PAYMENTS);
    // Indexed once the copies' stamps are settled, so no file is re-read for being racy.
    settle();
    let mut engine = engine(dir.path());
    // Every project is "large" now: a refresh stats folders and manifests only.
    engine.set_full_check_limit(1);
    let signal = brief_engine::ChangeSignal::default();
    engine.refresh_on(signal.clone());
    assert!(title(&mut engine).contains("Card payment authorization"));

    // Told only that something changed, the quick check misses an edit in place (what a
    // large project without a watcher accepts)...
    retitle(dir.path(), "authorization", "authorisatio1");
    signal.mark();
    assert!(title(&mut engine).contains("authorization"));
    // ...told which file changed, it reads that file.
    signal.mark_paths(["specgraph/nodes/behaviors/CHECKOUT-01.json".to_string()]);
    assert!(title(&mut engine).contains("authorisatio1"));
    // A watcher that lost events makes it check every file.
    retitle(dir.path(), "authorisatio1", "authorisatio2");
    signal.mark_lost();
    assert!(title(&mut engine).contains("authorisatio2"));
}

#[test]
fn a_change_signal_remembers_what_changed_until_taken() {
    use brief_engine::{ChangeSignal, Pending, MAX_NAMED_CHANGES};
    let signal = ChangeSignal::default();
    // A new signal knows nothing yet: everything may have changed.
    let first = signal.take().unwrap();
    assert!(first.paths.is_none() && !first.lost);
    assert_eq!(signal.take(), None);
    signal.mark_paths(["b.md".to_string()]);
    signal.mark_paths(["a.md".to_string(), "b.md".to_string()]);
    let named = signal.take().unwrap();
    assert_eq!(
        named.paths.unwrap().into_iter().collect::<Vec<_>>(),
        ["a.md", "b.md"]
    );
    // "Something changed" outweighs names given before or after it.
    signal.mark_paths(["a.md".to_string()]);
    signal.mark();
    signal.mark_paths(["c.md".to_string()]);
    assert_eq!(
        signal.take(),
        Some(Pending {
            lost: false,
            paths: None
        })
    );
    // Too many names are "check every file".
    signal.mark_paths((0..=MAX_NAMED_CHANGES).map(|i| format!("n{i}.md")));
    let many = signal.take().unwrap();
    assert!(many.lost && many.paths.is_none());
    // What a failed refresh took is marked again, merged with what came meanwhile.
    signal.mark_paths(["a.md".to_string()]);
    let taken = signal.take().unwrap();
    signal.mark_paths(["b.md".to_string()]);
    signal.restore(taken);
    assert_eq!(
        signal
            .take()
            .unwrap()
            .paths
            .unwrap()
            .into_iter()
            .collect::<Vec<_>>(),
        ["a.md", "b.md"]
    );
    signal.mark_lost();
    let lost = signal.take().unwrap();
    signal.restore(lost);
    assert!(signal.take().unwrap().lost);
    signal.mark_lost();
    signal.mark_paths(["a.md".to_string()]);
    let lost = signal.take().unwrap();
    assert!(lost.lost && lost.paths.is_none());
    assert!(!signal.wait(Duration::from_millis(1)));
    signal.mark();
    assert!(signal.wait(Duration::from_millis(1)));
}

#[test]
fn up_to_the_limit_a_watchers_change_checks_every_file() {
    let dir = project_copy(PAYMENTS);
    settle();
    let mut engine = engine(dir.path());
    let signal = brief_engine::ChangeSignal::default();
    engine.refresh_on(signal.clone());
    let show =
        |engine: &mut Engine, id: &str| engine.show(id, Detail::Meta, Format::Json, None).unwrap();
    assert!(show(&mut engine, "CHECKOUT-01").contains("Card payment authorization"));
    // Two files edited in place; the watcher names one (as when its events are named after
    // a symlinked alias, or arrive before it watches a new folder). Up to the limit the
    // refresh checks every file anyway, so both edits are seen.
    retitle(dir.path(), "authorization", "authorisatio1");
    let refund = dir.path().join("specgraph/nodes/behaviors/REFUNDS-01.json");
    let text = std::fs::read_to_string(&refund).unwrap();
    std::fs::write(
        &refund,
        text.replacen("Full refund", "Full refund (named)", 1),
    )
    .unwrap();
    signal.mark_paths(["specgraph/nodes/behaviors/REFUNDS-01.json".to_string()]);
    assert!(show(&mut engine, "REFUNDS-01").contains("(named)"));
    assert!(show(&mut engine, "CHECKOUT-01").contains("authorisatio1"));
}

#[test]
fn a_vouch_is_no_good_to_a_request_whose_index_file_was_replaced() {
    let dir = project_copy(PAYMENTS);
    let mut engine = engine(dir.path());
    assert!(title(&mut engine).contains("Card payment authorization"));
    // The watcher vouches for the file at .brief/cache/index.db...
    let _watcher = HandWatcher::start(&engine);
    // ...which another process has just rebuilt, after this engine opened the old one.
    let cache = engine.index().cache_dir().unwrap();
    for entry in std::fs::read_dir(cache.real_path("")).unwrap().flatten() {
        if entry.file_name().to_string_lossy().starts_with("index.db") {
            std::fs::remove_file(entry.path()).unwrap();
        }
    }
    title(&mut crate::index::engine(dir.path()));
    retitle(dir.path(), "authorization", "authorisatio3");
    // This engine's file is not the one vouched for: it checks the files itself.
    engine.consult_watcher();
    assert!(title(&mut engine).contains("authorisatio3"));
}
