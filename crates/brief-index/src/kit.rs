//! Test projects for the index's unit tests: a `.contextia/` tree written to a temporary
//! folder, in the layout and frontmatter contextia uses.

use std::path::Path;

use super::*;

/// A spec artifact: its id, title, the norms it names, and a body.
pub(super) fn spec(id: &str, title: &str, norms: &[&str], body: &str) -> String {
    format!(
        "---\nid: {id}\ntitle: {title}\nstatus: implemented\nnorms: [{}]\ncreated: 2026-04-02\n---\n# {title}\n\n{body}\n",
        norms.join(", ")
    )
}

/// A norm artifact.
pub(super) fn norm(id: &str, title: &str, body: &str) -> String {
    format!("---\nid: {id}\ntitle: {title}\nstatus: active\n---\n# {title}\n\n{body}\n")
}

/// Writes `files` (paths relative to `.contextia/system/`) into a new project folder.
pub(super) fn project(files: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".contextia/system")).unwrap();
    std::fs::write(
        dir.path().join(".contextia/config.yaml"),
        "version: \"1.0\"\nproject:\n  name: kit\n",
    )
    .unwrap();
    for (rel, text) in files {
        write(dir.path(), rel, text);
    }
    dir
}

/// Writes one artifact (relative to `.contextia/system/`).
pub(super) fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(".contextia/system").join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Waits out the window in which a file's timestamps could hide a second change, so a
/// refresh trusts the stamps it takes (`sources::Stamp::racy`).
pub(super) fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(120));
}

/// The project at `root` and its index, built.
pub(super) fn built(root: &Path) -> (Project, Index) {
    let project = Project::at(root).unwrap();
    let mut index = Index::open(&project).unwrap();
    index.refresh(&project, Verify::Full, &mut |_| {}).unwrap();
    (project, index)
}

/// The usual small project: two specs under one norm, the first linking the second.
pub(super) fn payments() -> tempfile::TempDir {
    project(&[
        (
            "specs/SPEC-PAY-001.md",
            spec(
                "SPEC-PAY-001",
                "Card payments",
                &["NORM-SEC-001"],
                "Charges a card once per idempotency key; see SPEC-PAY-002 for refunds.",
            ),
        ),
        (
            "specs/SPEC-PAY-002.md",
            spec(
                "SPEC-PAY-002",
                "Refunds",
                &["NORM-SEC-001"],
                "Refunds return the captured amount to the card.",
            ),
        ),
        (
            "norms/NORM-SEC-001.md",
            norm(
                "NORM-SEC-001",
                "Secrets stay server-side",
                "Card numbers and tokens never reach the browser; payments go through the server.",
            ),
        ),
    ])
}
