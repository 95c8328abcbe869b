//! Fuzzing by proptest over mutated real files, one target per parser: Spec Graph
//! (`graph.json` and a node file), artifact frontmatter Markdown, a Tana export and
//! `brief.toml`. The toolchain is stable, so cargo-fuzz is out; each target runs a bounded
//! number of cases so `cargo test` stays quick (`PROPTEST_CASES` raises it for a longer run).
//!
//! Every target asserts more than "no panic": the one-verdict rule of issue 13 — whenever the
//! loader `context` uses reports an error (so `context` refuses, exit 2), `check` reports an
//! error too — and that `context` through the on-disk index answers like the loader: it
//! refuses exactly when the loader has an error.

use std::fs;
use std::path::{Path, PathBuf};

use brief::{Format, Project};
use brief_check::{self as check, CheckOptions};
use brief_engine::ContextRequest;
use brief_engine::{Engine, EngineError};
use brief_sources::Severity;
use proptest::prelude::*;

const PAYMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");
const NOTES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/notes-app");
const TANA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../brief-cli/tests/fixtures/tana"
);
const KB_DETAILS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../brief-cli/tests/fixtures/kb/markdown-details/repo"
);
const KB_STATUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../brief-cli/tests/fixtures/kb/status-forms/repo"
);

/// Cases per target unless `PROPTEST_CASES` says otherwise (each case copies a project and
/// builds an index, so a few dozen keep the suite quick).
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
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

/// One edit to a file's bytes; positions are fractions (per mille) of its length, so the
/// same edit lands at the same relative place whatever the file.
#[derive(Debug, Clone)]
enum Edit {
    /// Overwrite one byte.
    Byte(u16, u8),
    /// Insert a token from the format's dictionary.
    Insert(u16, usize),
    /// Delete up to this many bytes.
    Delete(u16, u8),
    /// Copy a slice of the file elsewhere (duplicated keys, entries, brackets).
    Splice(u16, u16, u8),
    /// Cut the file here.
    Truncate(u16),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0u16..1000, any::<u8>()).prop_map(|(at, b)| Edit::Byte(at, b)),
        (0u16..1000, any::<usize>()).prop_map(|(at, t)| Edit::Insert(at, t)),
        (0u16..1000, 1u8..40).prop_map(|(at, n)| Edit::Delete(at, n)),
        (0u16..1000, 0u16..1000, 1u8..80).prop_map(|(from, to, n)| Edit::Splice(from, to, n)),
        (0u16..1000).prop_map(Edit::Truncate),
    ]
}

fn at(len: usize, per_mille: u16) -> usize {
    len * per_mille as usize / 1000
}

/// Applies the edits; the result is text (lossy), as every reader decodes it.
fn mutate(text: &str, edits: &[Edit], dictionary: &[&str]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for e in edits {
        let len = bytes.len();
        match *e {
            Edit::Byte(p, b) => {
                if len > 0 {
                    let i = at(len, p).min(len - 1);
                    bytes[i] = b;
                }
            }
            Edit::Insert(p, t) => {
                let token = dictionary[t % dictionary.len()].as_bytes();
                let i = at(len, p);
                bytes.splice(i..i, token.iter().copied());
            }
            Edit::Delete(p, n) => {
                let i = at(len, p);
                let end = (i + n as usize).min(len);
                bytes.drain(i..end);
            }
            Edit::Splice(from, to, n) => {
                let i = at(len, from);
                let piece: Vec<u8> = bytes[i..(i + n as usize).min(len)].to_vec();
                let j = at(len, to);
                bytes.splice(j..j, piece);
            }
            Edit::Truncate(p) => bytes.truncate(at(len, p)),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

const JSON_TOKENS: &[&str] = &[
    "\"",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "null",
    "true",
    "-1",
    "1e999",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "[[[[[[[[",
    "{\"id\": \"CHECKOUT-01\"}",
    "\"links\": {\"depends_on\": 7}, ",
    "\"depends_on\": [\"CHECKOUT-01\"], ",
    "\"type\": \"policy\", ",
    "\"expectedType\": 5, ",
    "\"path\": \"../outside.json\", ",
    "\"path\": \"/etc/passwd\", ",
    "\"id\": [\"X\"], ",
    "\"constraints\": [1, 2], ",
    "é",
    "\u{feff}",
];

const YAML_TOKENS: &[&str] = &[
    "\n---\n",
    "---",
    ": ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "&a ",
    "*a",
    "!!binary ",
    "id: ",
    "id: [TASK-002]\n",
    "specs: true\n",
    "specs: [[SPEC-SYNC-001]]\n",
    "links: {depends_on: 5}\n",
    "\t",
    "|\n  ",
    ">",
    "#",
    "'",
    "\"",
    "\nid: TASK-009\n",
    "title:\n",
    "kind: spec\n",
    "\u{0}",
    "é",
];

const MARKDOWN_TOKENS: &[&str] = &[
    "[[",
    "]]",
    "[",
    "](",
    ")",
    "![[",
    "\\|",
    "|",
    "#",
    "\n## Status\n\n",
    "\nStatus: ",
    "\n- **Status:** ",
    "| Status | Rejected |\n",
    "Superseded by ADR-0002",
    "Superseded by [x](0001-build-images-with-buildkit.md)",
    "Supersedes ADR-9999\n",
    "[[storage#Restoring]]",
    "(../storage.md#cache-directory)",
    "https://github.com/acme/shipyard/blob/main/docs/",
    "<!--",
    "-->",
    "<details>",
    "```\n",
    "\n---\n",
    "\n===\n",
    "\n# ",
    "\n### ",
    "../",
    "\\[[",
    "é",
    "\u{0}",
    "`",
];

const TOML_TOKENS: &[&str] = &[
    "[",
    "]",
    "=",
    "\"",
    "'",
    "specgraph = \"specgraph\"\n",
    "artifacts = [\"/\"]\n",
    "artifacts = [\"../x\"]\n",
    "contextia = \".contextia\"\n",
    "tana = \"export.json\"\n",
    "[context]\n",
    "budget = -1\n",
    "budget = 99999999999999999999\n",
    "depth = \"full\"\n",
    "[lenses.x]\n",
    "follow = [\"parent\"]\n",
    "[check]\n",
    "rules = { x = \"error\" }\n",
    "\n",
    "#",
    "é",
];

/// The loader's verdict, `check`'s, and the engine's, on a project: never a panic, and the
/// verdicts agree.
fn verdicts_agree(root: &Path, target: &str) -> Result<(), TestCaseError> {
    let project = match Project::at(root) {
        Ok(project) => project,
        // A project that does not open is refused by every command alike.
        Err(_) => return Ok(()),
    };
    let loaded = project.load();
    let load_errors: Vec<String> = loaded
        .problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .map(|p| format!("{}: {}", p.location, p.message))
        .collect();
    if let Ok(report) = check::run(&project, &CheckOptions::default()) {
        prop_assert!(
            load_errors.is_empty() || report.errors() > 0,
            "the loader refuses ({load_errors:?}) but check reports no error"
        );
        // Issue 30, item 11: and at the same place — every error the loader reports is an
        // error of check's at the same `path:line:col`.
        let checked: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.location.to_string())
            .collect();
        for problem in loaded
            .problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
        {
            let at = problem.location.to_string();
            prop_assert!(
                checked.contains(&at),
                "the loader places `{}` at {at}; check's errors are at {checked:?}",
                problem.message
            );
        }
    }
    let mut engine = match Engine::open(Some(root), root) {
        Ok(engine) => engine,
        Err(_) => return Ok(()),
    };
    let request = ContextRequest {
        target: target.to_string(),
        budget: Some(4000),
        format: Format::Markdown,
        ..ContextRequest::default()
    };
    match engine.context(&request) {
        Err(EngineError::Load(_)) => prop_assert!(
            !load_errors.is_empty(),
            "the index refused a project the loader accepts"
        ),
        Ok(_) => prop_assert!(
            load_errors.is_empty(),
            "context assembled a project the loader refuses: {load_errors:?}"
        ),
        // Unknown targets (the mutation renamed it) and the like.
        Err(_) => {}
    }
    Ok(())
}

/// The knowledge base's verdicts: [`verdicts_agree`], `check` runs whole with `--strict`
/// (its knowledge-base rules never an error), and the index gives the bytes the loader does.
fn knowledge_base_agrees(root: &Path, targets: &[&str]) -> Result<(), TestCaseError> {
    verdicts_agree(root, targets[0])?;
    let Ok(project) = Project::at(root) else {
        return Ok(());
    };
    let options = CheckOptions {
        gate: check::Gate::Everything,
        ..CheckOptions::default()
    };
    if let Ok(report) = check::run(&project, &options) {
        for finding in &report.findings {
            let markdown = [
                "md-broken-link",
                "adr-superseded-by-missing",
                "md-frontmatter",
                "unknown-status",
                "md-long-title",
            ];
            prop_assert!(
                !markdown.contains(&finding.rule) || finding.severity == Severity::Warning,
                "{finding:?}"
            );
        }
    }
    let loaded = project.load();
    if loaded.errors().next().is_some() {
        return Ok(());
    }
    let Ok(mut engine) = Engine::open(Some(root), root) else {
        return Ok(());
    };
    for target in targets {
        let request = ContextRequest {
            target: target.to_string(),
            budget: Some(3000),
            format: Format::Json,
            ..ContextRequest::default()
        };
        let memory = brief_engine::assemble(&loaded.graph, &project.defaults, &request);
        let indexed = engine.context(&request);
        if let (Ok(memory), Ok(indexed)) = (memory, indexed) {
            prop_assert_eq!(memory.text, indexed.text, "{}", target);
        }
    }
    Ok(())
}

fn project_copy(src: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    copy_dir(Path::new(src), &root);
    (dir, root)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(24)))]

    /// Spec Graph: `graph.json` and a node file, mutated together.
    #[test]
    fn specgraph_files(
        manifest in proptest::collection::vec(edit(), 0..4),
        node in proptest::collection::vec(edit(), 0..4),
    ) {
        let (_dir, root) = project_copy(PAYMENTS);
        for (rel, edits) in [
            ("specgraph/graph.json", &manifest),
            ("specgraph/nodes/behaviors/CHECKOUT-01.json", &node),
        ] {
            let path = root.join(rel);
            let text = fs::read_to_string(&path).unwrap();
            fs::write(&path, mutate(&text, edits, JSON_TOKENS)).unwrap();
        }
        verdicts_agree(&root, "CHECKOUT-01")?;
    }

    /// Artifacts: a task's frontmatter Markdown.
    #[test]
    fn artifact_frontmatter(edits in proptest::collection::vec(edit(), 1..5)) {
        let (_dir, root) = project_copy(NOTES);
        let path = root.join(".contextia/work/tasks/TASK-002.md");
        let text = fs::read_to_string(&path).unwrap();
        // Most edits land in the frontmatter, where the parser is.
        let front = text.find("\n---\n").map(|i| i + 5).unwrap_or(text.len());
        let (head, body) = text.split_at(front);
        fs::write(&path, mutate(head, &edits, YAML_TOKENS) + body).unwrap();
        verdicts_agree(&root, "TASK-001")?;
    }

    /// Tana: a workspace export.
    #[test]
    fn tana_export(edits in proptest::collection::vec(edit(), 1..5)) {
        let (_dir, root) = project_copy(TANA);
        let path = root.join("export.json");
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, mutate(&text, &edits, JSON_TOKENS)).unwrap();
        verdicts_agree(&root, "tkDesign01")?;
    }

    /// The Markdown knowledge base: a long page with sections and links of every kind.
    #[test]
    fn knowledge_base_page(edits in proptest::collection::vec(edit(), 1..6)) {
        let (_dir, root) = project_copy(KB_DETAILS);
        for rel in ["docs/storage.md", "docs/guides/runners.md"] {
            let path = root.join(rel);
            let text = fs::read_to_string(&path).unwrap();
            fs::write(&path, mutate(&text, &edits, MARKDOWN_TOKENS)).unwrap();
        }
        knowledge_base_agrees(&root, &["docs/guides/runners.md", "docs/storage.md", "README.md"])?;
    }

    /// ADR status lines in every form, mutated.
    #[test]
    fn knowledge_base_status_lines(edits in proptest::collection::vec(edit(), 1..6)) {
        let (_dir, root) = project_copy(KB_STATUS);
        for rel in ["docs/adr/0002-keep-postings-in-postgresql.md", "docs/adr/0006-shard-accounts-by-region.md"] {
            let path = root.join(rel);
            let text = fs::read_to_string(&path).unwrap();
            fs::write(&path, mutate(&text, &edits, MARKDOWN_TOKENS)).unwrap();
        }
        knowledge_base_agrees(&root, &["ADR-0004", "ADR-0002"])?;
    }

    /// `brief.toml`: the config every command reads first.
    #[test]
    fn brief_toml(edits in proptest::collection::vec(edit(), 1..5)) {
        let (_dir, root) = project_copy(NOTES);
        let config = "contextia = \".contextia\"\n\n[context]\nbudget = 6000\ndepth = 2\n\
                      detail = \"full\"\nencoding = \"o200k\"\nfanout = 200\n\n\
                      [lenses.compliance]\ndescription = \"what auditors ask about\"\n\
                      follow = [\"parent\", \"reference\"]\nboost = [\"policy\", \"security\"]\n\
                      fields = [\"status\", \"owner\"]\nmax_depth = 2\n\n[check]\n\
                      identity_max_tokens = 800\nrequired_fields = { task = [\"kind\"] }\n\
                      rules = { orphan-spec = \"error\", broken-path = \"off\" }\n";
        fs::write(root.join("brief.toml"), mutate(config, &edits, TOML_TOKENS)).unwrap();
        // A config that opens must never let a source leave the root.
        if let Ok(project) = Project::at(&root) {
            let real = fs::canonicalize(&root).unwrap();
            for source in &project.sources {
                let path = match source {
                    brief_project::Source::SpecGraph { manifest } => manifest,
                    brief_project::Source::Contextia { dir }
                    | brief_project::Source::Folder { dir }
                    | brief_project::Source::Markdown { dir }
                    | brief_project::Source::SpecKit { dir }
                    | brief_project::Source::Kiro { dir }
                    | brief_project::Source::Pages { dir, .. } => dir,
                    brief_project::Source::Tana { export } => export,
                };
                let full = fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                prop_assert!(
                    full.starts_with(&real) || !full.exists(),
                    "a source outside the root: {}", full.display()
                );
            }
        }
        verdicts_agree(&root, "TASK-002")?;
    }
}
