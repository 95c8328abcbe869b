//! `brief watch`: the commands run beside it see every change at once without checking each
//! file, a second watcher is refused, and a dead or stopped one is worked around.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use crate::common;

const ADR_TOOLS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/kb/adr-tools/repo"
);

/// A running `brief watch`, its stderr lines arriving on a channel; killed when dropped.
struct Watcher {
    child: Child,
    lines: Receiver<String>,
}

impl Watcher {
    /// Starts one on `root` and waits until it answers other commands.
    fn start(root: &Path) -> Watcher {
        let mut watcher = Watcher::spawn(root);
        let said = watcher.until("now skip");
        assert!(said.contains("watching "), "{said}");
        watcher
    }

    fn spawn(root: &Path) -> Watcher {
        let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
            .args(["watch", "--root"])
            .arg(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start brief watch");
        let stderr = child.stderr.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Watcher { child, lines }
    }

    /// Everything it said up to the first line containing `text` (an upper bound on the
    /// wait, not a timing assertion).
    fn until(&mut self, text: &str) -> String {
        let mut said = String::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(60)) {
                Ok(line) => {
                    assert!(!line.contains("panicked"), "{said}{line}");
                    said.push_str(&line);
                    said.push('\n');
                    if line.contains(text) {
                        return said;
                    }
                }
                Err(_) => panic!("brief watch never said {text:?}; it said:\n{said}"),
            }
        }
    }

    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn root_arg(dir: &Path) -> String {
    dir.to_str().unwrap().to_string()
}

/// `brief search WORD` on `root`: the ids found (exit 1, no hit, is an empty list).
fn found(root: &str, word: &str) -> Vec<String> {
    let (code, out, err) = common::run(&["search", word, "--root", root, "-f", "json"]);
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    assert!(!err.contains("did not vouch"), "{err}");
    if code == 1 {
        return Vec::new();
    }
    common::hit_ids(&out)
}

#[test]
fn commands_beside_a_watcher_see_every_change_at_once() {
    let dir = common::copy_fixture(ADR_TOOLS);
    let root = root_arg(dir.path());
    let _watcher = Watcher::start(dir.path());
    let adr = dir.path().join("doc/adr");
    let runbook = dir.path().join("doc/runbooks/carrier-outage.md");
    let original = std::fs::read_to_string(&runbook).unwrap();

    // No polling: each command runs right after the change and must see it.
    for round in 0..5 {
        let word = format!("flamingo{round}");
        std::fs::write(&runbook, format!("{original}\nAsk {word} on call.\n")).unwrap();
        assert_eq!(found(&root, &word), vec!["doc/runbooks/carrier-outage.md"]);
    }
    // A new ADR, then the same ADR moved and removed.
    let new = adr.join("0011-sign-label-urls.md");
    std::fs::write(
        &new,
        "# 11. Sign label URLs\n\nDate: 2019-06-03\n\n## Status\n\nAccepted\n\n## Context\n\nLabels leak through pelican links.\n\n## Decision\n\nSign them.\n\n## Consequences\n\nNone.\n",
    )
    .unwrap();
    assert_eq!(found(&root, "pelican"), vec!["ADR-0011"]);
    std::fs::rename(&new, adr.join("0012-sign-label-urls.md")).unwrap();
    assert_eq!(found(&root, "pelican"), vec!["ADR-0012"]);
    std::fs::remove_file(adr.join("0012-sign-label-urls.md")).unwrap();
    assert_eq!(found(&root, "pelican"), Vec::<String>::new());
    // A file in a folder created after the watcher started.
    std::fs::create_dir_all(dir.path().join("doc/runbooks/new")).unwrap();
    std::fs::write(
        dir.path().join("doc/runbooks/new/ports.md"),
        "# Port runbook\n\nThe albatross queue.\n",
    )
    .unwrap();
    assert_eq!(found(&root, "albatross"), vec!["doc/runbooks/new/ports.md"]);

    // What a command prints beside the watcher is what it prints after its own check.
    let (code, vouched, err) = common::run(&["context", "ADR-0007", "--root", &root]);
    assert_eq!(code, 0, "{err}");
    drop(_watcher);
    let (_, checked, _) = common::run(&["context", "ADR-0007", "--root", &root]);
    assert_eq!(vouched, checked);
}

#[test]
fn one_watcher_per_project_and_a_dead_one_is_replaced() {
    let dir = common::copy_fixture(ADR_TOOLS);
    let root = root_arg(dir.path());
    let first = Watcher::start(dir.path());
    let second = Command::new(env!("CARGO_BIN_EXE_brief"))
        .args(["watch", "--root", &root])
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(2));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("already keeps"), "{err}");

    // kill -9 leaves the socket behind: commands check the files themselves.
    first.signal("-KILL");
    drop(first);
    assert!(dir.path().join(".brief/cache/watch.sock").exists());
    let runbook = dir.path().join("doc/runbooks/carrier-outage.md");
    let text = std::fs::read_to_string(&runbook).unwrap();
    std::fs::write(&runbook, format!("{text}\nheron\n")).unwrap();
    assert_eq!(
        found(&root, "heron"),
        vec!["doc/runbooks/carrier-outage.md"]
    );
    // And a new watcher takes its place.
    let _third = Watcher::start(dir.path());
    std::fs::write(&runbook, format!("{text}\nkestrel\n")).unwrap();
    assert_eq!(
        found(&root, "kestrel"),
        vec!["doc/runbooks/carrier-outage.md"]
    );
}

#[test]
fn a_stopped_watcher_is_not_waited_for() {
    let dir = common::copy_fixture(ADR_TOOLS);
    let root = root_arg(dir.path());
    let watcher = Watcher::start(dir.path());
    watcher.signal("-STOP");
    let runbook = dir.path().join("doc/runbooks/carrier-outage.md");
    let text = std::fs::read_to_string(&runbook).unwrap();
    std::fs::write(&runbook, format!("{text}\nosprey\n")).unwrap();
    let (code, out, err) = common::run(&["search", "osprey", "--root", &root]);
    watcher.signal("-CONT");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("carrier-outage.md"), "{out}");
    assert!(err.contains("did not vouch for the index"), "{err}");
    assert!(err.contains("kill -CONT"), "{err}");
}

/// Appends `word` to the runbook and waits until the watcher has refreshed on its own, so
/// the command that follows asks a watcher with nothing left to do.
fn edit_and_let_the_watcher_refresh(dir: &Path, watcher: &mut Watcher, file: &str, word: &str) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}\n{word}\n")).unwrap();
    watcher.until("index updated");
}

#[test]
fn an_index_rebuilt_by_another_process_is_what_the_watcher_vouches_for() {
    let dir = common::copy_fixture(ADR_TOOLS);
    let root = root_arg(dir.path());
    common::run(&["index", "--root", &root]);
    let mut watcher = Watcher::start(dir.path());
    // A reset: the index files are deleted, and the next command builds a new one. The
    // watcher's connection still reads and writes the deleted file.
    for entry in std::fs::read_dir(dir.path().join(".brief/cache")).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("index.db")
        {
            std::fs::remove_file(path).unwrap();
        }
    }
    assert_eq!(found(&root, "zebrafinch"), Vec::<String>::new());
    let runbook = "doc/runbooks/carrier-outage.md";
    edit_and_let_the_watcher_refresh(dir.path(), &mut watcher, runbook, "zebrafinch");
    assert_eq!(found(&root, "zebrafinch"), vec![runbook]);
}

#[test]
fn a_folder_reached_through_a_symlink_does_not_hide_its_changes() {
    let dir = common::copy_fixture(ADR_TOOLS);
    let root = root_arg(dir.path());
    std::os::unix::fs::symlink("adr", dir.path().join("doc/zz-latest")).unwrap();
    common::run(&["index", "--root", &root]);
    let mut watcher = Watcher::start(dir.path());
    let adr = "doc/adr/0002-write-the-service-in-go.md";
    edit_and_let_the_watcher_refresh(dir.path(), &mut watcher, adr, "pangolin");
    assert_eq!(found(&root, "pangolin"), vec!["ADR-0002"]);
}

/// A socket at `.brief/cache/watch.sock` that answers like a watcher: `heard`, then `answer`.
/// Every connection gets the same answer until the test ends.
fn impostor(cache: &Path, answer: &'static [u8]) -> std::path::PathBuf {
    use std::io::{Read, Write};
    std::fs::create_dir_all(cache).unwrap();
    let socket = cache.join("watch.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().map_while(Result::ok) {
            let mut asked = [0u8; 64];
            let _ = stream.read(&mut asked);
            let _ = stream.write_all(b"heard\n");
            let _ = stream.write_all(answer);
        }
    });
    socket
}

#[test]
fn another_users_socket_answering_fresh_is_not_believed() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        // Only root can give a socket file to another user.
        return;
    }
    let dir = common::copy_fixture(ADR_TOOLS);
    let root = root_arg(dir.path());
    common::run(&["index", "--root", &root]);
    let socket = impostor(&dir.path().join(".brief/cache"), b"fresh\n");
    std::os::unix::fs::chown(&socket, Some(65534), Some(65534)).unwrap();
    let runbook = dir.path().join("doc/runbooks/carrier-outage.md");
    let text = std::fs::read_to_string(&runbook).unwrap();
    std::fs::write(&runbook, format!("{text}\nquokka\n")).unwrap();
    let (code, out, err) = common::run(&["context", "quokka", "--root", &root]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("quokka"), "a stale context:\n{out}");
    assert!(
        err.contains("not a socket of the cache folder's owner"),
        "{err}"
    );
}

#[test]
fn a_watchers_answer_is_never_echoed_with_its_escapes() {
    let dir = common::copy_fixture(ADR_TOOLS);
    let root = root_arg(dir.path());
    common::run(&["index", "--root", &root]);
    impostor(
        &dir.path().join(".brief/cache"),
        b"\x1b]0;owned\x07\x1b[2Jbusy\n",
    );
    let runbook = dir.path().join("doc/runbooks/carrier-outage.md");
    let text = std::fs::read_to_string(&runbook).unwrap();
    std::fs::write(&runbook, format!("{text}\nwombat\n")).unwrap();
    let (code, out, err) = common::run(&["search", "wombat", "--root", &root]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("carrier-outage.md"), "{out}");
    assert!(err.contains("did not vouch"), "{err}");
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
    assert!(err.contains("\\x1b]0;owned"), "{err:?}");
}
