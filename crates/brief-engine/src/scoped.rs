//! Ids scoped by a feature folder (Spec Kit's `003-payments/T014`, Kiro's `user-auth/2.1`):
//! a bare local id (`T014`) names the node of that local id in the current feature — the one
//! `SPECIFY_FEATURE` names (Spec Kit's own variable), else the one the checked-out git branch
//! is named after (Spec Kit names a feature's branch like its folder) — or the only feature
//! that has it. Several candidates and no current feature among them: the target is
//! ambiguous, and the error lists the choices.

use brief_model::{GraphView, NodeIx, StoreError};
use brief_root::Root;

/// How a bare local id resolves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scoped {
    /// No node has that local id (or the target is no local id).
    None,
    /// One node: the only one, or the current feature's.
    One(NodeIx),
    /// Several features have it and none is current: their full ids, sorted.
    Ambiguous(Vec<String>),
}

/// Resolves `target` as a local id: `ids` are the project's ids (sorted), `current` the
/// current feature's folder name, if one is known.
pub(crate) fn resolve_local(
    graph: &dyn GraphView,
    ids: &[String],
    target: &str,
    current: Option<&str>,
) -> Result<Scoped, StoreError> {
    if target.is_empty() || target.contains(['/', ' ']) {
        return Ok(Scoped::None);
    }
    let suffix = format!("/{target}");
    let candidates: Vec<&String> = ids.iter().filter(|id| id.ends_with(&suffix)).collect();
    let pick = match candidates.as_slice() {
        [] => return Ok(Scoped::None),
        [one] => Some(*one),
        several => current.and_then(|feature| {
            several.iter().copied().find(|id| {
                let scope = &id[..id.len() - suffix.len()];
                scope == feature || scope.ends_with(&format!("/{feature}"))
            })
        }),
    };
    match pick {
        Some(id) => Ok(graph.lookup(id)?.map_or(Scoped::None, Scoped::One)),
        None => Ok(Scoped::Ambiguous(candidates.into_iter().cloned().collect())),
    }
}

/// The current feature: `SPECIFY_FEATURE` when set (passed in as `specify_feature`), else the
/// branch `.git/HEAD` names (`ref: refs/heads/003-payments`; the last part of a branch such
/// as `feature/003-payments`). A detached head, or a `.git` that is not a folder beneath the
/// root (a worktree's link), names none.
pub(crate) fn current_feature(root: &Root, specify_feature: Option<&str>) -> Option<String> {
    if let Some(feature) = specify_feature.map(str::trim).filter(|f| !f.is_empty()) {
        return Some(feature.to_string());
    }
    let (bytes, _) = root.read(&root.path().join(".git/HEAD")).ok()?;
    let head = String::from_utf8(bytes).ok()?;
    let branch = head.trim().strip_prefix("ref: refs/heads/")?;
    let name = branch.rsplit('/').next().unwrap_or(branch);
    (!name.is_empty()).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use brief_model::{ArtifactFields, Content, Graph, Kind, Location, Node, Origin};

    fn node(id: &str) -> Node {
        Node {
            id: id.into(),
            kind: Kind::Task,
            title: id.into(),
            status: None,
            origin: Origin::Markdown,
            content: Content::Artifact(ArtifactFields::default()),
            links: Vec::new(),
            date: None,
            location: Location::file(id),
        }
    }

    #[test]
    fn a_bare_id_resolves_in_the_current_feature() {
        let ids = [
            "002-notifications/T056",
            "003-payments/T014",
            "003-payments/T056",
            "_archived/000-prototype/T056",
        ];
        let (graph, _) = Graph::build(ids.iter().map(|id| node(id)).collect());
        let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        let at = |id: &str| Scoped::One(graph.lookup(id).unwrap());
        assert_eq!(
            resolve_local(&graph, &ids, "T014", None).unwrap(),
            at("003-payments/T014")
        );
        assert_eq!(
            resolve_local(&graph, &ids, "T056", Some("003-payments")).unwrap(),
            at("003-payments/T056")
        );
        assert_eq!(
            resolve_local(&graph, &ids, "T056", Some("000-prototype")).unwrap(),
            at("_archived/000-prototype/T056")
        );
        assert_eq!(
            resolve_local(&graph, &ids, "T056", Some("001-accounts")).unwrap(),
            Scoped::Ambiguous(vec![
                "002-notifications/T056".into(),
                "003-payments/T056".into(),
                "_archived/000-prototype/T056".into()
            ])
        );
        assert_eq!(
            resolve_local(&graph, &ids, "T999", None).unwrap(),
            Scoped::None
        );
        assert_eq!(
            resolve_local(&graph, &ids, "retry budget", None).unwrap(),
            Scoped::None
        );
    }

    #[test]
    fn the_current_feature_from_the_variable_or_the_branch() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        assert_eq!(current_feature(&root, None), None);
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(
            dir.path().join(".git/HEAD"),
            "ref: refs/heads/feature/003-payments\n",
        )
        .unwrap();
        assert_eq!(
            current_feature(&root, None).as_deref(),
            Some("003-payments")
        );
        assert_eq!(
            current_feature(&root, Some("002-x")).as_deref(),
            Some("002-x")
        );
        std::fs::write(dir.path().join(".git/HEAD"), "0123456789abcdef\n").unwrap();
        assert_eq!(current_feature(&root, None), None, "a detached head");
    }
}
