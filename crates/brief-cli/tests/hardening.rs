//! Hardening: the failures an adversarial test of the release binary found (issue 13), each
//! reproduced through the real binary — hangs on special files, reads and writes outside the
//! root, stale indexes, damaged indexes, read-only checkouts, unbounded inputs.

mod common;

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");

/// Exit code, stdout and stderr of `brief args`, or a failure when it has not finished within
/// `limit` (a hang: the process is killed). Never a panic.
#[track_caller]
fn run_within(limit: Duration, args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start brief");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let (mut out, mut err) = (String::new(), String::new());
            child
                .stdout
                .take()
                .unwrap()
                .read_to_string(&mut out)
                .unwrap();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
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
    for args in [vec!["context", "CHECKOUT-01"], vec!["show", "CHECKOUT-01"]] {
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
    // Commands that do not refuse a graph with problems finish too.
    for args in [vec!["index"], vec!["search", "checkout"]] {
        let mut args = args;
        args.extend(["--root", &root]);
        let (code, _, err) = run_within(limit, &args);
        assert!(code == 0 || code == 1, "{args:?}: {err}");
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
    let (_, text) = server.call(4, "search", json!({"query": "OUTSIDE-SECRET"}));
    assert!(
        !text.contains("POL-CHK"),
        "the outside file was indexed: {text}"
    );
}
