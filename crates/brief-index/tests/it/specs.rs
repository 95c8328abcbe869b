//! The spec-driven sources (`brief-cli/tests/fixtures/{speckit,kiro,rules}`) indexed: the index
//! holds the same nodes and edges as the loader reads.

use std::path::PathBuf;

use brief_project::Project;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../brief-cli/tests/fixtures")
        .join(name)
        .join("repo")
}

#[test]
fn the_index_holds_what_the_loader_reads() {
    use brief_model::GraphView;
    fn edges(view: &dyn GraphView, id: &str) -> Vec<(String, String)> {
        let ix = view
            .lookup(id)
            .unwrap()
            .unwrap_or_else(|| panic!("{id} missing"));
        let mut out: Vec<(String, String)> = view
            .edges_out(ix)
            .unwrap()
            .into_iter()
            .map(|e| (e.relation.name().to_string(), view.id_of(e.to).unwrap()))
            .collect();
        out.sort();
        out
    }
    for name in ["speckit", "kiro", "rules"] {
        let dir = tempfile::tempdir().unwrap();
        copy(&fixture(name), dir.path());
        let project = Project::at(dir.path()).unwrap();
        let loaded = project.load();
        let mut index = brief_index::Index::open(&project).unwrap();
        index
            .refresh(&project, brief_index::Verify::Full, &mut |_| {})
            .unwrap();
        for node in loaded.graph.nodes() {
            assert_eq!(
                edges(&index, &node.id),
                edges(&loaded.graph, &node.id),
                "{name}: {}",
                node.id
            );
        }
    }
}

fn copy(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_name() == ".brief" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
