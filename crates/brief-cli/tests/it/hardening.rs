//! Hardening: the failures an adversarial test of the release binary found (issue 13), each
//! reproduced through the real binary — hangs on special files, reads and writes outside the
//! root, stale indexes, damaged indexes, read-only checkouts, unbounded inputs.

use crate::common;

use std::fs;
// The server tests (feature `mcp`) use the pipes and readers.
#[cfg_attr(not(feature = "mcp"), allow(unused_imports))]
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
#[cfg_attr(not(feature = "mcp"), allow(unused_imports))]
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");

/// Exit code, stdout and stderr of `brief args`, or a failure when it has not finished within
/// `limit` (a hang: the process is killed). Never a panic.
#[track_caller]
fn run_within(limit: Duration, args: &[&str]) -> (i32, String, String) {
    run_in_within(Path::new("."), limit, args)
}

/// [`run_within`] from the folder `cwd`.
#[track_caller]
fn run_in_within(cwd: &Path, limit: Duration, args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
        .current_dir(cwd)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start brief");
    // Both pipes are drained while the process runs (a large output must not block it).
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).unwrap();
            text
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let (out, err) = (out.join().unwrap(), err.join().unwrap());
            let code = status.code().unwrap_or(-1);
            assert!(
                code != 101 && !err.contains("panicked") && !err.contains("internal error"),
                "brief {args:?} panicked (exit {code}):\n{err}"
            );
            return (code, out, err);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("brief {args:?} still running after {limit:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn brief(args: &[&str]) -> (i32, String, String) {
    run_within(Duration::from_secs(60), args)
}

fn root_arg(dir: &Path) -> String {
    dir.to_str().unwrap().to_string()
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

/// Item 5: a FIFO listed as a node file, a manifest, an artifact or a Tana export is refused
/// at once with a located message; nothing waits on it (nor on the build lock behind it).
#[cfg(unix)]
#[test]
fn special_files_never_block_a_command() {
    let limit = Duration::from_secs(20);
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let node = dir.path().join("specgraph/nodes/policies/POL-CHK-02.json");
    fs::remove_file(&node).unwrap();
    mkfifo(&node);
    // Every command that reads the graph reports it the same way (`docs/cli.md`).
    for args in [
        vec!["context", "CHECKOUT-01"],
        vec!["show", "CHECKOUT-01"],
        vec!["index"],
        vec!["search", "checkout"],
    ] {
        let mut args = args;
        args.extend(["--root", &root]);
        let (code, _, err) = run_within(limit, &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("specgraph/nodes/policies/POL-CHK-02.json:1:1: ")
                && err.contains("file is a FIFO, not a regular file"),
            "{args:?}: {err}"
        );
    }
    let (code, out, _) = run_within(limit, &["check", "--root", &root]);
    assert_eq!(code, 1);
    assert!(
        out.contains("POL-CHK-02.json:1:1: error[parse-error]: file is a FIFO"),
        "{out}"
    );

    // The manifest itself, an artifact and a Tana export.
    let manifest = dir.path().join("specgraph/graph.json");
    fs::remove_file(&manifest).unwrap();
    mkfifo(&manifest);
    fs::write(dir.path().join("brief.toml"), "specgraph = \"specgraph\"\n").unwrap();
    let (code, _, err) = run_within(limit, &["context", "CHECKOUT-01", "--root", &root]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("graph.json:1:1: file is a FIFO"), "{err}");
    let (code, _, _) = run_within(limit, &["check", "--root", &root]);
    assert_eq!(code, 1);

    let notes = common::copy_fixture(common::PAYMENTS);
    let task = notes.path().join(".contextia/work/tasks/TASK-014.md");
    assert!(task.exists());
    fs::remove_file(&task).unwrap();
    mkfifo(&task);
    let root = root_arg(notes.path());
    let (code, _, err) = run_within(limit, &["context", "SPEC-PAY-001", "--root", &root]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("TASK-014.md:1:1: file is a FIFO"), "{err}");

    let tana = tempfile::tempdir().unwrap();
    fs::write(tana.path().join("brief.toml"), "tana = \"export.json\"\n").unwrap();
    mkfifo(&tana.path().join("export.json"));
    let tana_root = root_arg(tana.path());
    let (code, _, err) = run_within(limit, &["context", "anything", "--root", &tana_root]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("export.json is not a file"), "{err}");
}

/// Item 9: sources named in brief.toml must lie under the root; nothing outside is walked
/// and no outside path shows in a message.
#[test]
fn sources_outside_the_root_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    fs::create_dir_all(outside.path().join("docs")).unwrap();
    fs::write(
        outside.path().join("docs/SECRET-NOTE.md"),
        "---\nid: SECRET-1\n---\nsecret\n",
    )
    .unwrap();
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let away = outside.path().join("docs");
    let relative_away = format!(
        "{}/docs",
        pathdiff(outside.path(), dir.path()).to_str().unwrap()
    );
    for config in [
        "artifacts = [\"/\"]\n".to_string(),
        format!("artifacts = [\"{relative_away}\"]\n"),
        format!("artifacts = [\"{}\"]\n", away.display()),
        "specgraph = \"../specgraph\"\n".to_string(),
        "tana = \"/etc/hostname\"\n".to_string(),
    ] {
        fs::write(dir.path().join("brief.toml"), &config).unwrap();
        for command in [
            vec!["context", "CHECKOUT-01"],
            vec!["check"],
            vec!["search", "x"],
        ] {
            let mut args = command.clone();
            args.extend(["--root", &root]);
            let (code, out, err) = brief(&args);
            assert_eq!(code, 2, "{config} {command:?}: {out}{err}");
            assert!(
                err.contains("brief.toml") && err.contains("outside the project root"),
                "{config} {command:?}: {err}"
            );
            assert!(
                !err.contains("SECRET") && !err.contains("README") && err.lines().count() <= 2,
                "nothing outside is listed: {err}"
            );
        }
    }
    // A folder inside the root, or one linked to inside it, is fine.
    fs::write(
        dir.path().join("brief.toml"),
        "specgraph = \"specgraph\"\nartifacts = [\"./specgraph/../specgraph\"]\n",
    )
    .unwrap();
    let (code, _, err) = brief(&["context", "CHECKOUT-01", "--root", &root]);
    assert_eq!(code, 0, "{err}");
}

/// A relative path from `base` to `target` (both absolute).
fn pathdiff(target: &Path, base: &Path) -> PathBuf {
    let target: Vec<_> = target.components().collect();
    let base: Vec<_> = base.components().collect();
    let common = target.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..base.len() {
        out.push("..");
    }
    for part in &target[common..] {
        out.push(part);
    }
    out
}

/// A `brief serve` process spoken to over stdio with raw JSON-RPC.
#[cfg(feature = "mcp")]
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

#[cfg(feature = "mcp")]
impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start brief serve");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server {
            child,
            stdin,
            stdout,
        };
        let hello = server.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "brief-hardening", "version": "0"}}),
        );
        assert_eq!(hello["result"]["serverInfo"]["name"], "brief", "{hello}");
        writeln!(
            server.stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
        )
        .unwrap();
        server
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// (is an error, text) of a tool call.
    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> (bool, String) {
        let reply = self.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        let result = &reply["result"];
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string();
        (result["isError"] == json!(true), text)
    }
}

#[cfg(feature = "mcp")]
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Item 8: a long-running server keeps no process-wide memory of checked folders: a folder
/// replaced by a symlink to the outside after the server started is refused when a file in
/// it is opened, and the outside file is neither served nor indexed.
#[cfg(all(unix, feature = "mcp"))]
#[test]
fn a_folder_swapped_for_an_outside_symlink_is_refused_by_a_running_server() {
    let outside = tempfile::tempdir().unwrap();
    let dir = common::copy_fixture(EXAMPLE);
    let policies = dir.path().join("specgraph/nodes/policies");
    // The outside copy differs in one title.
    fs::create_dir_all(outside.path().join("policies")).unwrap();
    for entry in fs::read_dir(&policies).unwrap() {
        let entry = entry.unwrap();
        let text = fs::read_to_string(entry.path()).unwrap();
        fs::write(
            outside.path().join("policies").join(entry.file_name()),
            text.replace("Authorization latency budget", "OUTSIDE-SECRET budget"),
        )
        .unwrap();
    }
    let root = root_arg(dir.path());
    let mut server = Server::start(&["serve", "--no-watch", "--root", &root]);
    let (failed, text) = server.call(
        2,
        "context",
        json!({"target": "CHECKOUT-01", "budget": 100000}),
    );
    assert!(
        !failed && text.contains("Authorization latency budget"),
        "{text}"
    );

    fs::rename(&policies, dir.path().join("policies-moved")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("policies"), &policies).unwrap();
    let (failed, text) = server.call(
        3,
        "context",
        json!({"target": "CHECKOUT-01", "budget": 100000}),
    );
    assert!(failed, "the outside file was served: {text}");
    assert!(text.contains("outside the project root"), "{text}");
    assert!(!text.contains("OUTSIDE-SECRET"), "{text}");
    // Search refuses the graph with the same located problems, and finds nothing outside.
    let (failed, text) = server.call(4, "search", json!({"query": "OUTSIDE-SECRET"}));
    assert!(failed, "{text}");
    assert!(text.contains("outside the project root"), "{text}");
    assert!(
        !text
            .lines()
            .any(|l| l.contains("POL-CHK") && !l.contains(".json:1:1:")),
        "the outside file was indexed: {text}"
    );
}

/// Runs `brief` as another user (`nobody`) when the tests run as root, so that permission
/// bits apply; `None` when that is not possible here.
#[cfg(unix)]
fn run_as_other_user(args: &[&str]) -> Option<(i32, String, String)> {
    use std::os::unix::process::CommandExt;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some(brief(args));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_brief"))
        .args(args)
        .uid(65534)
        .gid(65534)
        .env("HOME", "/nonexistent")
        .output()
        .ok()?;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code().unwrap_or(-1);
    assert!(code != 101 && !err.contains("panicked"), "{args:?}: {err}");
    Some((code, String::from_utf8_lossy(&out.stdout).into_owned(), err))
}

/// Makes a tree read-only for everyone but its owner's writes (and readable by all).
#[cfg(unix)]
fn read_only_tree(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for entry in walk(path) {
        let meta = fs::symlink_metadata(&entry).unwrap();
        if meta.file_type().is_symlink() {
            continue;
        }
        let mode = if meta.is_dir() { 0o555 } else { 0o444 };
        fs::set_permissions(&entry, fs::Permissions::from_mode(mode)).unwrap();
    }
}

#[cfg(unix)]
fn writable_tree(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for entry in walk(path) {
        let meta = fs::symlink_metadata(&entry).unwrap();
        if !meta.file_type().is_symlink() {
            let mode = if meta.is_dir() { 0o755 } else { 0o644 };
            fs::set_permissions(&entry, fs::Permissions::from_mode(mode)).unwrap();
        }
    }
}

fn walk(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    if fs::symlink_metadata(path).unwrap().is_dir() {
        for entry in fs::read_dir(path).unwrap() {
            out.extend(walk(&entry.unwrap().path()));
        }
    }
    out
}

/// A project of two Kiro workspaces, the root's and one in `locked/` (of mode `locked`), every
/// other folder and file open to all; with `.brief/cache` when `cache`.
#[cfg(unix)]
fn project_with_a_locked_workspace(locked: u32, cache: bool) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    common::write_file(
        root,
        ".kiro/steering/product.md",
        "# Product\n\nWhat it is for.\n",
    );
    let tech = "# Tech\n\nEvery quartzite check.\n";
    common::write_file(root, "locked/.kiro/steering/tech.md", tech);
    common::write_file(root, "open/notes.txt", "");
    if cache {
        fs::create_dir_all(root.join(".brief/cache")).unwrap();
    }
    for entry in walk(root) {
        let mode = if entry.is_dir() { 0o777 } else { 0o666 };
        fs::set_permissions(&entry, fs::Permissions::from_mode(mode)).unwrap();
    }
    fs::set_permissions(root.join("locked"), fs::Permissions::from_mode(locked)).unwrap();
    dir
}

/// A `.kiro/` inside a folder the user may read but not enter is none of theirs (no file in it
/// can be opened): discovery asks for it by name, as an open would, even where it has read
/// the folder's listing.
#[cfg(unix)]
#[test]
fn a_workspace_in_a_folder_that_cannot_be_entered_is_left_out() {
    use std::os::unix::fs::PermissionsExt;
    let dir = project_with_a_locked_workspace(0o644, false);
    let root = dir.path();
    let answer = run_as_other_user(&["search", "product", "--root", &root_arg(root)]);
    fs::set_permissions(root.join("locked"), fs::Permissions::from_mode(0o755)).unwrap();
    let Some((code, out, err)) = answer else {
        return;
    };
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(".kiro/steering/product.md"), "{out}");
}

/// A walk for Kiro workspaces made by a user who could not enter a folder is not kept: a user
/// who can finds the workspace in it.
#[cfg(unix)]
#[test]
fn a_walk_that_could_not_enter_a_folder_is_not_kept_for_one_who_can() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        // Only root can run brief as someone with less access than itself.
        eprintln!("skipped: needs root to run brief as another user");
        return;
    }
    let dir = project_with_a_locked_workspace(0o700, true);
    let root = root_arg(dir.path());
    std::thread::sleep(Duration::from_millis(120));
    for _ in 0..3 {
        run_as_other_user(&["search", "quartzite", "--root", &root]);
        std::thread::sleep(Duration::from_millis(120));
    }
    let (code, out, err) = brief(&["search", "quartzite", "--root", &root]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("locked/.kiro/steering/tech.md"), "{out}");
}

/// Item 11: a read-only checkout (another user's) and a read-only `.brief/cache` both work:
/// the index lives in memory for the run, with a one-line note, and the output is the same.
#[cfg(unix)]
#[test]
fn a_read_only_checkout_or_cache_still_answers() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let (code, expected, err) = brief(&["context", "CHECKOUT-01", "--root", &root]);
    assert_eq!(code, 0, "{err}");
    let (_, expected_search, _) = brief(&["search", "idempotency", "--root", &root]);

    // A read-only cache with an index in it.
    read_only_tree(&dir.path().join(".brief"));
    let Some((code, out, err)) = run_as_other_user(&["context", "CHECKOUT-01", "--root", &root])
    else {
        return;
    };
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, expected);
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("note: ")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("in memory"), "{err}");
    let (code, out, _) = run_as_other_user(&["search", "idempotency", "--root", &root]).unwrap();
    assert_eq!((code, out.as_str()), (0, expected_search.as_str()));

    // A whole checkout read-only, without any .brief yet.
    writable_tree(&dir.path().join(".brief"));
    fs::remove_dir_all(dir.path().join(".brief")).unwrap();
    read_only_tree(dir.path());
    let (code, out, err) = run_as_other_user(&["context", "CHECKOUT-01", "--root", &root]).unwrap();
    writable_tree(dir.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, expected);
    assert_eq!(
        err.lines().filter(|l| l.starts_with("note: ")).count(),
        1,
        "{err}"
    );
    assert!(!dir.path().join(".brief").exists(), "nothing was created");
}

/// Item 7: `.brief` linked to a folder outside the root is never written through, and an
/// `index.db` linked to an outside SQLite file leaves that file untouched (no WAL switch).
#[cfg(unix)]
#[test]
fn nothing_is_written_outside_the_root() {
    let outside = tempfile::tempdir().unwrap();
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let (_, expected, _) = brief(&["context", "CHECKOUT-01", "--root", &root]);
    fs::remove_dir_all(dir.path().join(".brief")).unwrap();

    std::os::unix::fs::symlink(outside.path(), dir.path().join(".brief")).unwrap();
    let (code, out, err) = brief(&["context", "CHECKOUT-01", "--root", &root]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, expected);
    assert!(
        fs::read_dir(outside.path()).unwrap().next().is_none(),
        "written through the .brief link: {:?}",
        walk(outside.path())
    );
    assert_eq!(
        err.lines().filter(|l| l.starts_with("note: ")).count(),
        1,
        "{err}"
    );
    fs::remove_file(dir.path().join(".brief")).unwrap();

    // index.db as a link to someone else's database.
    let theirs = outside.path().join("theirs.db");
    {
        let conn = rusqlite::Connection::open(&theirs).unwrap();
        conn.execute_batch("CREATE TABLE notes(x); INSERT INTO notes VALUES ('mine');")
            .unwrap();
    }
    let before = fs::read(&theirs).unwrap();
    fs::create_dir_all(dir.path().join(".brief/cache")).unwrap();
    std::os::unix::fs::symlink(&theirs, dir.path().join(".brief/cache/index.db")).unwrap();
    for _ in 0..2 {
        let (code, out, err) = brief(&["context", "CHECKOUT-01", "--root", &root]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, expected);
    }
    assert_eq!(
        fs::read(&theirs).unwrap(),
        before,
        "the outside database changed"
    );
    let beside: Vec<_> = fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, ["theirs.db"], "side files appeared next to it");
}

/// The context of `target` assembled in memory from the files as they are (no index): what
/// a fresh index must answer.
fn fresh_context(root: &Path, target: &str) -> String {
    let project = brief::Project::at(root).unwrap();
    let loaded = project.load();
    assert_eq!(loaded.errors().count(), 0, "{:?}", loaded.problems);
    let request = brief::ContextRequest {
        target: target.to_string(),
        budget: Some(100_000),
        ..brief::ContextRequest::default()
    };
    brief_engine::assemble(&loaded.graph, &project.defaults, &request)
        .unwrap()
        .text
}

/// Item 3 and the acceptance's concurrency test: reader processes run `brief context` while
/// graph.json and a node file are replaced atomically, round after round. No reader panics
/// or fails, every answer is the context of one of the states the files were in (never a
/// context silently missing the node being rewritten), and the index is fresh at the end.
#[test]
fn readers_stay_right_while_the_manifest_is_replaced() {
    let rounds = 6;
    for round in 0..rounds {
        let dir = common::copy_fixture(EXAMPLE);
        let root = root_arg(dir.path());
        let graph = dir.path().join("specgraph/graph.json");
        let node = dir.path().join("specgraph/nodes/policies/POL-CHK-02.json");
        let moved = dir
            .path()
            .join("specgraph/nodes/policies/POL-CHK-02-moved.json");
        let manifest_a = fs::read_to_string(&graph).unwrap();
        let manifest_b = manifest_a.replace(
            "nodes/policies/POL-CHK-02.json",
            "nodes/policies/POL-CHK-02-moved.json",
        );
        let node_a = fs::read_to_string(&node).unwrap();
        let node_b = node_a.replace("Authorization latency budget", "Authorization latency goal");
        // Every state the writer passes through: (manifest, node file, moved file).
        let states = [
            (&manifest_a, &node_a, &node_a),
            (&manifest_a, &node_b, &node_a),
            (&manifest_b, &node_b, &node_a),
            (&manifest_b, &node_b, &node_b),
            (&manifest_a, &node_b, &node_b),
            (&manifest_a, &node_a, &node_b),
            (&manifest_b, &node_a, &node_b),
            (&manifest_b, &node_a, &node_a),
        ];
        let write = |(m, n, v): (&String, &String, &String)| {
            fs::write(&graph, m).unwrap();
            fs::write(&node, n).unwrap();
            fs::write(&moved, v).unwrap();
        };
        let mut expected = std::collections::BTreeSet::new();
        for state in states {
            write(state);
            expected.insert(fresh_context(dir.path(), "CHECKOUT-01"));
        }
        assert_eq!(expected.len(), 2, "two titles, in either file");
        write(states[0]);
        let args = [
            "context",
            "CHECKOUT-01",
            "--budget",
            "100000",
            "--root",
            &root,
        ];
        assert_eq!(brief(&args).0, 0);

        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let readers: Vec<_> = (0..3)
            .map(|_| {
                let stop = stop.clone();
                let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                std::thread::spawn(move || {
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    let mut seen = Vec::new();
                    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                        seen.push(brief(&args));
                    }
                    seen
                })
            })
            .collect();
        // Editors and `git checkout` replace files atomically: written aside, renamed over.
        let replace = |path: &Path, text: &str| {
            let aside = path.with_extension("tmp");
            fs::write(&aside, text).unwrap();
            fs::rename(&aside, path).unwrap();
        };
        for step in 0..24 {
            let (m, n, v) = states[(step * 3 + round) % states.len()];
            replace(&node, n);
            replace(&moved, v);
            replace(&graph, m);
            std::thread::sleep(Duration::from_millis(15));
        }
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let mut answers = 0;
        for reader in readers {
            for (code, out, err) in reader.join().unwrap() {
                answers += 1;
                assert_eq!(code, 0, "round {round}: a reader failed: {err}");
                assert!(
                    expected.contains(&out),
                    "round {round}: a context that matches no state of the files"
                );
            }
        }
        assert!(answers > 0);
        // The index is fresh at the end: a warm run answers what the final files say.
        let (code, warm, err) = brief(&args);
        assert_eq!(code, 0, "{err}");
        assert!(
            warm == fresh_context(dir.path(), "CHECKOUT-01"),
            "round {round}: the index is stale at the end"
        );
    }
}

/// Item 4 through the binary: zeroed pages of a real index.db never make brief exit 101,
/// and every answer equals a fresh build's.
#[test]
fn damaged_index_pages_never_panic_the_binary() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let commands: [&[&str]; 2] = [&["context", "CHECKOUT-01"], &["show", "DEC-PLAT-01"]];
    let run = |command: &[&str]| {
        let mut args = command.to_vec();
        args.extend(["--root", &root]);
        brief(&args)
    };
    let expected: Vec<_> = commands.iter().map(|c| run(c)).collect();
    let db = dir.path().join(".brief/cache/index.db");
    // Everything in the file (brief's readers leave the log to its writers).
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    drop(conn);
    let pristine = fs::read(&db).unwrap();
    let page = u16::from_be_bytes([pristine[16], pristine[17]]) as usize;
    let pages = pristine.len() / page;
    // Every third page keeps the test quick; the library test zeroes every page.
    for n in (0..pages).step_by(3) {
        let mut damaged = pristine.clone();
        damaged[n * page..(n + 1) * page].fill(0);
        fs::write(&db, &damaged).unwrap();
        for (command, expected) in commands.iter().zip(&expected) {
            let got = run(command);
            assert_eq!(got.0, expected.0, "page {} {command:?}: {}", n + 1, got.2);
            assert!(
                got.1 == expected.1,
                "page {} {command:?}: another answer",
                n + 1
            );
        }
    }
}

/// Item 6: input sizes are bounded. A query over the limit (as a search, or as a context
/// target that is not an id) is refused at once with a clear message (exit 2) that does not
/// repeat it; repeated words are searched once.
#[test]
fn oversized_queries_are_refused_and_repeated_words_count_once() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let long = "idempotency ".repeat(9000);
    for command in ["search", "context"] {
        let (code, out, err) = brief(&[command, &long, "--root", &root]);
        assert_eq!(code, 2, "{command}: {err}");
        assert!(out.is_empty());
        assert!(
            err.contains("108000 bytes") && err.contains("at most 8192"),
            "{command}: {}",
            &err[..err.len().min(300)]
        );
        assert!(err.len() < 400, "the query is not repeated back");
    }
    let many: String = (0..300).map(|i| format!("w{i} ")).collect();
    let (code, _, err) = brief(&["search", &many, "--root", &root]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("300 distinct words") && err.contains("at most 256"),
        "{err}"
    );
    // The same word many times is the word once.
    let once = brief(&["search", "idempotency", "--root", &root]);
    let repeated = brief(&["search", &"idempotency ".repeat(600), "--root", &root]);
    assert_eq!(once.0, 0);
    assert_eq!(repeated, once);
}

/// `brief session package add` with a small research package, as an orchestrator runs it
/// (after writing the package's file).
fn add_package(root: &str) -> (i32, String, String) {
    let file = Path::new(root).join("bazinga/artifacts/bazinga_20251009_085320/retry-policy.md");
    if fs::create_dir_all(file.parent().unwrap()).is_ok() {
        let _ = fs::write(&file, "# Retry policy\n");
    }
    brief(&[
        "session",
        "package",
        "add",
        "--root",
        root,
        "--session",
        "bazinga_20251009_085320",
        "--type",
        "research",
        "--file",
        "bazinga/artifacts/bazinga_20251009_085320/retry-policy.md",
        "--producer",
        "requirements_engineer",
        "--consumers",
        "developer",
        "--summary",
        "Capture retries reuse the intent's idempotency key.",
    ])
}

const LIST: [&str; 7] = [
    "session",
    "package",
    "list",
    "--session",
    "bazinga_20251009_085320",
    "--agent",
    "developer",
];

/// Item 7: a `sessions.db` of another program is refused by readers and writers alike and
/// left byte for byte as it was: no WAL switch, no side files, no migration.
#[test]
fn a_foreign_session_store_is_refused_untouched() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let store = dir.path().join(".brief/sessions.db");
    fs::create_dir_all(dir.path().join(".brief")).unwrap();
    {
        let conn = rusqlite::Connection::open(&store).unwrap();
        conn.execute_batch(
            "CREATE TABLE bookmarks(url TEXT, title TEXT);
             INSERT INTO bookmarks VALUES ('https://example.org', 'mine');",
        )
        .unwrap();
    }
    let before = fs::read(&store).unwrap();
    let mut list = LIST.to_vec();
    list.extend(["--root", &root]);
    for args in [
        list,
        vec![
            "session",
            "error",
            "match",
            "--root",
            &root,
            "--project",
            "payments",
            "--message",
            "TimeoutError: PSP did not answer in 3000 ms",
        ],
    ] {
        let (code, _, err) = brief(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("not a brief session store"), "{err}");
    }
    let (code, _, err) = add_package(&root);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a brief session store"), "{err}");
    assert!(
        fs::read(&store).unwrap() == before,
        "the foreign store changed"
    );
    let mut beside: Vec<_> = fs::read_dir(dir.path().join(".brief"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("sessions"))
        .collect();
    beside.sort();
    assert_eq!(beside, ["sessions.db"], "side files appeared next to it");
}

/// Items 7 and 11: session writes never go through a `.brief` linked outside the root, and
/// session reads (`package list`, `error match`) work in a read-only checkout.
#[cfg(unix)]
#[test]
fn session_reads_need_no_write_access_and_writes_stay_inside() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let (code, _, err) = add_package(&root);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = brief(&[
        "session",
        "error",
        "record",
        "--root",
        &root,
        "--project",
        "payments",
        "--lang",
        "rust",
        "--message",
        "TimeoutError: PSP did not answer in 3000 ms",
        "--solution",
        "Raise the PSP client timeout to 5 s and retry once with the same idempotency key.",
    ]);
    assert_eq!(code, 0, "{err}");
    let mut list = LIST.to_vec();
    list.extend(["--root", &root]);
    let matching = [
        "session",
        "error",
        "match",
        "--root",
        &root,
        "--project",
        "payments",
        "--message",
        "TimeoutError: PSP did not answer in 3000 ms",
    ];
    let (code, listed, err) = brief(&list);
    assert_eq!(code, 0, "{err}");
    assert!(listed.contains("retry-policy.md"), "{listed}");
    let (code, matched, err) = brief(&matching);
    assert_eq!(code, 0, "{err}");
    assert!(
        matched.contains("Raise the PSP client timeout"),
        "{matched}"
    );

    read_only_tree(dir.path());
    let result = run_as_other_user(&list);
    let other = run_as_other_user(&matching);
    writable_tree(dir.path());
    if let (Some((code, out, err)), Some((code2, out2, err2))) = (result, other) {
        assert_eq!(code, 0, "package list read-only: {err}");
        assert_eq!(out, listed);
        assert_eq!(code2, 0, "error match read-only: {err2}");
        assert_eq!(out2, matched);
    }

    // `.brief` linked to a folder outside: a write is refused, nothing lands outside.
    let outside = tempfile::tempdir().unwrap();
    fs::remove_dir_all(dir.path().join(".brief")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join(".brief")).unwrap();
    let (code, _, err) = add_package(&root);
    assert_eq!(code, 2, "{err}");
    assert!(
        fs::read_dir(outside.path()).unwrap().next().is_none(),
        "written through the .brief link: {:?}",
        walk(outside.path())
    );
}

const NOTES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/notes-app");

/// Item 10: one loader, one verdict. A file `context` refuses (an `id` that is a list, a link
/// key of the wrong type) is an error in `check`, at the same place; a Tana ownership cycle is
/// reported by `check` while `context` keeps both nodes.
#[test]
fn check_reports_what_context_refuses() {
    let dir = common::copy_fixture(NOTES);
    let root = root_arg(dir.path());
    let task = dir.path().join(".contextia/work/tasks/TASK-002.md");
    let original = fs::read_to_string(&task).unwrap();
    let (code, _, err) = brief(&["check", "--root", &root]);
    assert_eq!(code, 0, "the example is clean: {err}");
    for (from, to, at) in [
        ("id: TASK-002\n", "id: [TASK-002]\n", "TASK-002.md:2:1"),
        (
            "specs: [SPEC-SYNC-001, SPEC-SYNC-002]\n",
            "specs: true\n",
            "TASK-002.md:6:1",
        ),
        (
            "specs: [SPEC-SYNC-001, SPEC-SYNC-002]\n",
            "specs: [SPEC-SYNC-001, [SPEC-SYNC-002]]\n",
            "TASK-002.md:6:1",
        ),
    ] {
        assert!(original.contains(from));
        fs::write(&task, original.replacen(from, to, 1)).unwrap();
        let (code, _, refused) = brief(&["context", "TASK-001", "--root", &root]);
        assert_eq!(code, 2, "context refuses `{to}`: {refused}");
        assert!(refused.contains(at), "{refused}");
        let (code, out, err) = brief(&["check", "--root", &root]);
        assert_ne!(
            code, 0,
            "check passed what context refuses (`{to}`): {out}{err}"
        );
        let line = out
            .lines()
            .find(|l| l.contains(at))
            .unwrap_or_else(|| panic!("check says nothing at {at}: {out}"));
        assert!(line.contains("error"), "{line}");
    }

    // A Tana export with an ownership cycle.
    let tana = tempfile::tempdir().unwrap();
    fs::write(tana.path().join("brief.toml"), "tana = \"export.json\"\n").unwrap();
    fs::write(
        tana.path().join("export.json"),
        serde_json::json!({"formatVersion": 1, "docs": [
            {"id": "ws01", "props": {"name": "Payments", "created": 1_700_000_000_000_i64}, "children": ["c1"]},
            {"id": "a1", "props": {"name": "Payment retries", "_ownerId": "b1", "created": 1_700_000_000_000_i64}, "children": ["b1"]},
            {"id": "b1", "props": {"name": "Retry budget", "_ownerId": "a1", "created": 1_700_000_000_000_i64}, "children": ["a1"]},
            {"id": "c1", "props": {"name": "Ledger posting", "_ownerId": "ws01", "created": 1_700_000_000_000_i64}},
        ]})
        .to_string(),
    )
    .unwrap();
    let troot = root_arg(tana.path());
    let (code, out, err) = brief(&["check", "--root", &troot]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(out.contains("ownership cycle: "), "{out}{err}");
    let (code, out, err) = brief(&["context", "a1", "--root", &troot]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Payment retries") && out.contains("Retry budget"),
        "{out}"
    );
}

/// Item 6: a node with 100,000 links to ids that do not exist is checked and assembled (each
/// missing link is a `check` error), and `context` says so in a bounded number of lines
/// instead of one warning per link.
#[test]
fn a_hundred_thousand_missing_links_stay_bounded() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let file = dir
        .path()
        .join("specgraph/nodes/behaviors/CHECKOUT-01.json");
    let mut node: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    let targets = node["links"]["depends_on"].as_array_mut().unwrap();
    targets.extend((0..100_000).map(|i| json!(format!("MISSING-{i}"))));
    fs::write(&file, serde_json::to_string_pretty(&node).unwrap()).unwrap();

    let (code, out, _) = brief(&["check", "--root", &root, "--format", "json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&out).unwrap();
    let broken = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "broken-link")
        .count();
    assert_eq!(broken, 100_000);

    let (code, out, err) = brief(&["context", "CHECKOUT-01", "--root", &root]);
    assert_eq!(code, 0, "{}", &err[..err.len().min(400)]);
    assert!(out.starts_with("# Context for CHECKOUT-01"));
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert!(warnings.len() <= 21, "{} warning lines", warnings.len());
    assert!(
        warnings[0].contains("MISSING-0, which does not exist"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings.last().unwrap().contains("99980 more"),
        "{}",
        warnings.last().unwrap()
    );
}

/// A folder of sources that cannot be listed is an error naming it, like a file that cannot be
/// read: `context`, `search` and `check` say so at its path instead of leaving its files out
/// without a word; once it can be listed again the error goes, though the index keeps the
/// listing's problems between runs.
#[cfg(unix)]
#[test]
fn a_folder_that_cannot_be_listed_is_reported_not_skipped() {
    use std::os::unix::fs::PermissionsExt;
    let dir = common::copy_fixture(NOTES);
    let root = root_arg(dir.path());
    // Owned by `nobody`, so that `nobody` keeps its index and only the folder's mode stops it.
    for entry in walk(dir.path()) {
        std::os::unix::fs::lchown(&entry, Some(65534), Some(65534)).unwrap();
    }
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let Some((code, _, err)) = run_as_other_user(&["index", "--root", &root]) else {
        return;
    };
    assert_eq!(code, 0, "{err}");
    let norms = dir.path().join(".contextia/system/norms");
    let listed = |mode: u32| fs::set_permissions(&norms, fs::Permissions::from_mode(mode)).unwrap();
    listed(0o000);
    let context = run_as_other_user(&["context", "TASK-002", "--root", &root]).unwrap();
    let search = run_as_other_user(&["search", "norm", "--root", &root]).unwrap();
    let check = run_as_other_user(&["check", "--root", &root]).unwrap();
    listed(0o755);
    if context.0 == 0 && context.1.contains("NORM-TEST-001") {
        return; // permission bits do not apply here (not root, or a file system without them)
    }
    let names_it =
        |l: &str| l.contains(".contextia/system/norms") && l.contains("cannot list this folder");
    for (what, (code, _, err)) in [("context", &context), ("search", &search)] {
        assert_eq!(*code, 2, "{what}: {err}");
        assert!(err.lines().any(names_it), "{what}: {err}");
    }
    assert_eq!(check.0, 1, "{}{}", check.1, check.2);
    assert!(check.1.lines().any(names_it), "{}", check.1);

    // Listed again: the folder's stamp changed, the error is gone and the norms are back.
    let (code, out, err) = run_as_other_user(&["context", "TASK-002", "--root", &root]).unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("cannot list"), "{err}");
    assert!(out.contains("NORM-TEST-001"), "{out}");
}

// ---- Issue 30 ------------------------------------------------------------------------------

/// Issue 30, item 4: `check --baseline /dev/zero` read forever (3.8 GB after 5 s). A baseline
/// is read only when it is a regular file inside the root, and only up to a size limit: a
/// device, a FIFO, a folder and an oversized file are refused at once, each saying why.
#[cfg(unix)]
#[test]
fn a_baseline_is_a_bounded_regular_file_inside_the_root() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let check = |baseline: &str| {
        run_within(
            Duration::from_secs(30),
            &["check", "--root", &root, "--baseline", baseline],
        )
    };
    let (code, _, err) = check("/dev/zero");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("outside the project"), "{err}");
    mkfifo(&dir.path().join("baseline.fifo"));
    let (code, _, err) = check(dir.path().join("baseline.fifo").to_str().unwrap());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("FIFO"), "{err}");
    let (code, _, err) = check(dir.path().join("specgraph").to_str().unwrap());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("folder"), "{err}");
    let big = dir.path().join("big.json");
    fs::File::create(&big)
        .unwrap()
        .set_len(64 * 1024 * 1024 + 1)
        .unwrap();
    let (code, _, err) = check(big.to_str().unwrap());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("64 MiB"), "{err}");
}

/// Issue 30, item 5: `check --write-baseline` wrote outside the root and created folders
/// there (absolute paths, `..`), and `--baseline` read outside it; the MCP tool refused both
/// and now the CLI does too. Inside the root a path is still named from the working folder,
/// and a missing folder there is created.
#[test]
fn baselines_are_read_and_written_only_inside_the_root() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let outside = tempfile::tempdir().unwrap();
    let escape = outside.path().join("new/folder/baseline.json");
    let (code, _, err) = brief(&[
        "check",
        "--root",
        &root,
        "--write-baseline",
        escape.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("outside the project"), "{err}");
    assert!(!outside.path().join("new").exists(), "a folder was created");
    // `..` from inside the root climbs out of it.
    let (code, _, err) = run_in_within(
        dir.path(),
        Duration::from_secs(60),
        &["check", "--write-baseline", "../escaped/baseline.json"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        !dir.path().join("../escaped").exists(),
        "a folder was created"
    );
    // Written inside, from a subfolder, into a folder that does not exist yet.
    fs::create_dir(dir.path().join("tools")).unwrap();
    let (code, _, err) = run_in_within(
        &dir.path().join("tools"),
        Duration::from_secs(60),
        &["check", "--write-baseline", "../ci/baselines/check.json"],
    );
    assert_eq!(code, 0, "{err}");
    let written = dir.path().join("ci/baselines/check.json");
    assert!(written.is_file());
    let (code, _, err) = run_in_within(
        dir.path(),
        Duration::from_secs(60),
        &["check", "--baseline", "ci/baselines/check.json"],
    );
    assert_eq!(code, 0, "{err}");
    // The same baseline outside the root is not read.
    let copy = outside.path().join("check.json");
    fs::copy(&written, &copy).unwrap();
    let (code, _, err) = brief(&[
        "check",
        "--root",
        &root,
        "--baseline",
        copy.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("outside the project"), "{err}");
}

/// Issue 30, item 6: `brief search` panicked (exit 101, "Formatting argument out of range")
/// once a node id reached 65,536 characters: its column was padded with a format width.
#[test]
fn a_node_id_of_any_length_is_searched_and_listed() {
    let dir = common::copy_fixture(NOTES);
    let root = root_arg(dir.path());
    let long = format!("TASK-{}", "9".repeat(70_000));
    fs::write(
        dir.path().join(".contextia/work/tasks/TASK-LONG.md"),
        format!("---\nid: {long}\ntitle: Offline replay of a long task\nstatus: active\n---\n# Long\n\nReplay.\n"),
    )
    .unwrap();
    let (code, out, err) = brief(&["search", "offline replay", "--root", &root]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&long), "the long id is listed");
    assert!(
        out.lines().all(|l| l.len() < long.len() + 200),
        "other lines are not padded to the long id"
    );
    // As a context target the id is over the query limit: refused with that reason.
    let (code, _, err) = brief(&["context", &long, "--root", &root]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at most 8192 bytes"), "{err}");
}

/// Issue 30, item 9: graph.json entries whose ids do not match the file they name (here many
/// entries naming one node file). `check` reported each as an `id-mismatch` error while
/// `context` answered with exit 0 and the entries' nodes silently missing (the file was read
/// once, for the first entry only), and `check` read and parsed the file once per entry.
/// Now the file is read once and checked against every entry that names it: both refuse, at
/// the same `path:line:col`.
#[test]
fn entries_that_name_one_file_under_other_ids_are_refused_by_both() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let manifest = dir.path().join("specgraph/graph.json");
    let mut graph: Value = serde_json::from_str(&fs::read_to_string(&manifest).unwrap()).unwrap();
    let nodes = graph["nodes"].as_array_mut().unwrap();
    for n in 0..2000 {
        nodes.push(json!({
            "id": format!("DUP-{n}"),
            "path": "nodes/decisions/DEC-CHK-01.json",
            "expectedType": "decision"
        }));
    }
    fs::write(&manifest, serde_json::to_string_pretty(&graph).unwrap()).unwrap();
    let (code, out, err) = brief(&["check", "--root", &root, "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let mismatches: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "id-mismatch")
        .collect();
    assert_eq!(mismatches.len(), 2000);
    let (code, _, err) = brief(&["context", "DEC-CHK-01", "--root", &root]);
    assert_eq!(code, 2, "context must refuse as check does: {err}");
    let first = &mismatches[0];
    let at = format!(
        "{}:{}:{}",
        first["path"].as_str().unwrap(),
        first["line"],
        first["col"]
    );
    assert!(
        err.contains(&at),
        "context places it at check's {at}: {err}"
    );
    assert!(err.contains("DUP-"), "{err}");
}

/// Item 14: a message names the real cause. A discovered `specgraph/graph.json` that is a
/// FIFO is refused at its path (not "no sources"); `--root` naming a file says it is not a
/// folder (not "no such directory").
#[cfg(unix)]
#[test]
fn messages_name_the_real_cause() {
    let limit = Duration::from_secs(20);
    let dir = common::copy_fixture(EXAMPLE);
    let root = root_arg(dir.path());
    let manifest = dir.path().join("specgraph/graph.json");
    fs::remove_file(&manifest).unwrap();
    mkfifo(&manifest);
    assert!(!dir.path().join("brief.toml").exists());
    let (code, _, err) = run_within(limit, &["context", "CHECKOUT-01", "--root", &root]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("graph.json:1:1: file is a FIFO"), "{err}");
    assert!(!err.contains("no sources"), "{err}");
    let (code, out, err) = run_within(limit, &["check", "--root", &root]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("graph.json:1:1: error[parse-error]: file is a FIFO"),
        "{out}"
    );

    let file = dir.path().join("README.md");
    fs::write(&file, "# A file\n").unwrap();
    let named = root_arg(&file);
    for args in [
        vec!["context", "CHECKOUT-01", "--root", &named],
        vec!["check", "--root", &named],
    ] {
        let (code, _, err) = run_within(limit, &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("README.md is not a folder"), "{args:?}: {err}");
        assert!(!err.contains("no such directory"), "{args:?}: {err}");
    }
    let (code, _, err) = run_within(
        limit,
        &["check", "--root", &root_arg(&dir.path().join("gone"))],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("gone: no such directory"), "{err}");
}
