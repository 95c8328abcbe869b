//! Rules on the loaded graph: dangling links, self-edges, `depends_on` cycles, the layer and
//! foundation dependency guards, ambiguous layer-propagated decisions (reference §2.4 step 6)
//! and pins (§4).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use super::load::{file_sha256, short};
use super::{join_ids, Anchor, Input, Pending, Sink};
use brief_model::{Graph, Kind, Node, NodeIx, Origin, Relation};
use brief_project::Project;
use brief_sources::Seg;

/// Where the link `relation → target` of `node` is written.
pub(super) fn link_anchor(node: &Node, relation: &Relation, target: &str) -> Anchor {
    match node.origin {
        Origin::SpecGraph => Anchor::Json(vec![
            Seg::key("links"),
            Seg::key(relation.name()),
            Seg::Str(target.to_string()),
        ]),
        Origin::Artifact | Origin::Markdown => Anchor::Front {
            key: relation.name().to_string(),
            token: Some(target.to_string()),
        },
        // The Tana loader links only to nodes it keeps; nothing finer than the file.
        Origin::Tana => Anchor::Exact,
    }
}

pub(super) fn check(project: &Project, input: &Input, sink: &mut Sink) {
    let graph = &input.graph;
    dangling(input, sink);
    self_edges(graph, sink);
    if sink.on("depends-on-cycle") {
        cycles(graph, sink);
    }
    dependency_guards(graph, sink);
    if sink.on("ambiguous-layer-decision") {
        ambiguity(graph, sink);
    }
    if sink.on("pin-mismatch") || sink.on("derived-from-without-pin") {
        pins(project, graph, sink);
    }
}

fn dangling(input: &Input, sink: &mut Sink) {
    let graph = &input.graph;
    for (manifest, root) in &input.roots {
        if graph.lookup(root).is_none() && !input.unloadable.contains(root) {
            sink.push(Pending::anchored(
                "broken-link",
                manifest,
                Anchor::Json(vec![Seg::key("root")]),
                format!("graph.json `root` names {root}, which is not in the graph: fix the id or add the node"),
            ));
        }
    }
    for d in graph.dangling() {
        if input.unloadable.contains(&d.target) {
            continue;
        }
        let node = graph.node(d.from);
        // A section repeats the links of its page, which reports them; what a spec-driven
        // file names is reported as what it names (`specs.rs`).
        if node.kind == brief_model::Kind::Section || super::specs::is_spec_node(input, node) {
            continue;
        }
        let (rule, fix) = match node.origin {
            Origin::SpecGraph => (
                "broken-link",
                "fix the id, add the node to graph.json, or remove the link",
            ),
            Origin::Artifact | Origin::Markdown | Origin::Tana => (
                "broken-ref",
                "fix the id, create the artifact, or remove the reference",
            ),
        };
        sink.push(
            Pending::anchored(
                rule,
                &node.location.path,
                link_anchor(node, &d.relation, &d.target),
                format!(
                    "{} links {} → {}, which does not exist: {fix}",
                    node.id, d.relation, d.target
                ),
            )
            .node(&node.id),
        );
    }
}

fn self_edges(graph: &Graph, sink: &mut Sink) {
    for edge in graph.edges().iter().filter(|e| e.from == e.to) {
        let node = graph.node(edge.from);
        sink.push(
            Pending::anchored(
                "self-edge",
                &node.location.path,
                link_anchor(node, &edge.relation, &node.id),
                format!(
                    "{} links to itself ({}): remove the link",
                    node.id, edge.relation
                ),
            )
            .node(&node.id),
        );
    }
}

/// Strongly connected components (iterative Tarjan), each a list of nodes, emitted so that a
/// component comes after every component it reaches.
fn components(n: usize, succ: &[Vec<u32>]) -> (Vec<Vec<u32>>, Vec<u32>) {
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![UNSEEN; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut out: Vec<Vec<u32>> = Vec::new();
    let mut next = 0u32;
    let mut call: Vec<(u32, usize)> = Vec::new();
    for start in 0..n as u32 {
        if index[start as usize] != UNSEEN {
            continue;
        }
        call.push((start, 0));
        index[start as usize] = next;
        low[start as usize] = next;
        next += 1;
        stack.push(start);
        on_stack[start as usize] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            let vs = v as usize;
            if *i < succ[vs].len() {
                let w = succ[vs][*i];
                *i += 1;
                let ws = w as usize;
                if index[ws] == UNSEEN {
                    index[ws] = next;
                    low[ws] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[ws] = true;
                    call.push((w, 0));
                } else if on_stack[ws] {
                    low[vs] = low[vs].min(index[ws]);
                }
            } else {
                call.pop();
                if let Some(&(parent, _)) = call.last() {
                    let ps = parent as usize;
                    low[ps] = low[ps].min(low[vs]);
                }
                if low[vs] == index[vs] {
                    let id = out.len() as u32;
                    let mut members = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
                        comp[w as usize] = id;
                        members.push(w);
                        if w == v {
                            break;
                        }
                    }
                    members.sort_unstable();
                    out.push(members);
                }
            }
        }
    }
    (out, comp)
}

fn cycles(graph: &Graph, sink: &mut Sink) {
    let n = graph.len();
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
    for edge in graph.edges() {
        if edge.relation == Relation::DependsOn && edge.from != edge.to {
            succ[edge.from as usize].push(edge.to);
        }
    }
    let (comps, comp) = components(n, &succ);
    for (c, members) in comps.iter().enumerate() {
        if members.len() < 2 {
            continue;
        }
        // The shortest cycle through the smallest id of the component.
        let start = members[0];
        let mut parent: HashMap<u32, u32> = HashMap::new();
        let mut queue = VecDeque::from([start]);
        let mut closing = None;
        'bfs: while let Some(v) = queue.pop_front() {
            for &w in &succ[v as usize] {
                if comp[w as usize] as usize != c {
                    continue;
                }
                if w == start {
                    closing = Some(v);
                    break 'bfs;
                }
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(w) {
                    e.insert(v);
                    queue.push_back(w);
                }
            }
        }
        let Some(mut v) = closing else { continue };
        let mut path = vec![v];
        while v != start {
            v = parent[&v];
            path.push(v);
        }
        path.reverse();
        let ids: Vec<&str> = path.iter().map(|&v| graph.node(v).id.as_str()).collect();
        let node = graph.node(start);
        let next = &graph.node(path.get(1).copied().unwrap_or(start)).id;
        let others = if members.len() > path.len() {
            format!(" ({} nodes take part in cycles here)", members.len())
        } else {
            String::new()
        };
        sink.push(
            Pending::anchored(
                "depends-on-cycle",
                &node.location.path,
                link_anchor(node, &Relation::DependsOn, next),
                format!(
                    "depends_on cycle: {} → {}{others}: remove one of these depends_on links",
                    ids.join(" → "),
                    node.id
                ),
            )
            .node(&node.id),
        );
    }
}

fn dependency_guards(graph: &Graph, sink: &mut Sink) {
    for edge in graph.edges() {
        if edge.relation != Relation::DependsOn {
            continue;
        }
        let (from, to) = (graph.node(edge.from), graph.node(edge.to));
        let (rule, message) = match (&from.kind, &to.kind) {
            (Kind::Layer, Kind::Feature) => (
                "layer-depends-on-feature",
                format!(
                    "layer {} depends_on feature {}: layers are shared foundations that features build on; reverse the link (the feature depends_on the layer) or make {} a layer",
                    from.id, to.id, to.id
                ),
            ),
            (Kind::Foundation, Kind::Layer | Kind::Feature | Kind::Behavior) => (
                "foundation-depends-on",
                format!(
                    "foundation {} depends_on {} {}: foundations come before layers, features and behaviors; depend only on decisions, policies or other foundations",
                    from.id, to.kind, to.id
                ),
            ),
            _ => continue,
        };
        sink.push(
            Pending::anchored(
                rule,
                &from.location.path,
                link_anchor(from, &Relation::DependsOn, &to.id),
                message,
            )
            .node(&from.id),
        );
    }
}

/// Interned sorted sets of node indices.
#[derive(Default)]
struct Sets {
    ids: HashMap<Vec<u32>, u32>,
    sets: Vec<Vec<u32>>,
}

impl Sets {
    fn intern(&mut self, set: Vec<u32>) -> u32 {
        if let Some(&id) = self.ids.get(&set) {
            return id;
        }
        let id = self.sets.len() as u32;
        self.sets.push(set.clone());
        self.ids.insert(set, id);
        id
    }
}

/// Nodes that receive one ambiguous set of decisions: (affected nodes, layers bringing them),
/// keyed by (category, decisions).
type Conflict = (BTreeSet<u32>, BTreeSet<u32>);

/// Ambiguous layer guidance: for every node, the layers it reaches over `depends_on` and
/// feature/layer `contains` parents bring decisions; after supersedes pruning, two of one
/// category are an error. Nodes reaching the same layers share one computation.
fn ambiguity(graph: &Graph, sink: &mut Sink) {
    let n = graph.len();
    let layers: Vec<bool> = graph
        .nodes()
        .iter()
        .map(|n| n.kind == Kind::Layer)
        .collect();
    if !layers.iter().any(|&l| l) {
        return;
    }
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
    for edge in graph.edges() {
        match edge.relation {
            Relation::DependsOn => succ[edge.from as usize].push(edge.to),
            Relation::Contains if graph.node(edge.from).kind.is_grouping() => {
                succ[edge.to as usize].push(edge.from)
            }
            _ => {}
        }
    }
    let (comps, comp) = components(n, &succ);
    let mut sets = Sets::default();
    let empty = sets.intern(Vec::new());
    let mut down = vec![empty; comps.len()];
    let mut reach = vec![empty; comps.len()];
    for (c, members) in comps.iter().enumerate() {
        let mut parts: BTreeSet<u32> = BTreeSet::new();
        for &v in members {
            for &w in &succ[v as usize] {
                let d = comp[w as usize] as usize;
                if d != c {
                    parts.insert(reach[d]);
                }
            }
        }
        let mut union: Vec<u32> = parts
            .iter()
            .flat_map(|&s| sets.sets[s as usize].iter().copied())
            .collect();
        union.sort_unstable();
        union.dedup();
        down[c] = sets.intern(union.clone());
        union.extend(members.iter().copied().filter(|&v| layers[v as usize]));
        union.sort_unstable();
        union.dedup();
        reach[c] = sets.intern(union);
    }
    // S(v): the layers v reaches at a distance > 0.
    let mut by_set: BTreeMap<Vec<u32>, Vec<u32>> = BTreeMap::new();
    for v in 0..n as u32 {
        let c = comp[v as usize] as usize;
        let members = &comps[c];
        let cyclic = members.len() > 1 || succ[v as usize].contains(&v);
        let mut set = sets.sets[down[c] as usize].clone();
        if cyclic {
            set.extend(
                members
                    .iter()
                    .copied()
                    .filter(|&w| layers[w as usize] && w != v),
            );
            set.sort_unstable();
            set.dedup();
        }
        if !set.is_empty() {
            by_set.entry(set).or_default().push(v);
        }
    }
    let mut guidance: HashMap<u32, BTreeSet<u32>> = HashMap::new();
    let mut conflicts: BTreeMap<(String, Vec<u32>), Conflict> = BTreeMap::new();
    for (set, nodes) in &by_set {
        let mut candidates: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        for &layer in set {
            let brought = guidance
                .entry(layer)
                .or_insert_with(|| layer_guidance(graph, layer));
            for &c in brought.iter() {
                candidates.entry(c).or_default().insert(layer);
            }
        }
        let removed = superseded(graph, &candidates);
        let mut by_category: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for &c in candidates.keys() {
            let node = graph.node(c);
            if removed.contains(&c) || node.kind != Kind::Decision {
                continue;
            }
            if let Some(category) = node.spec().and_then(|s| s.category.clone()) {
                by_category.entry(category).or_default().push(c);
            }
        }
        for (category, decisions) in by_category {
            if decisions.len() < 2 {
                continue;
            }
            let layers_in: BTreeSet<u32> = decisions
                .iter()
                .flat_map(|d| candidates[d].iter().copied())
                .collect();
            let entry = conflicts.entry((category, decisions)).or_default();
            entry.0.extend(nodes.iter().copied());
            entry.1.extend(layers_in);
        }
    }
    report_conflicts(graph, sink, &succ, conflicts);
}

/// The candidates another candidate supersedes, directly or through a chain.
fn superseded(graph: &Graph, candidates: &BTreeMap<u32, BTreeSet<u32>>) -> BTreeSet<u32> {
    let mut removed: BTreeSet<u32> = BTreeSet::new();
    for &c in candidates.keys() {
        let mut seen = BTreeSet::from([c]);
        let mut queue = VecDeque::from([c]);
        while let Some(x) = queue.pop_front() {
            for edge in graph.outgoing(x) {
                if edge.relation == Relation::Supersedes && seen.insert(edge.to) {
                    if candidates.contains_key(&edge.to) {
                        removed.insert(edge.to);
                    }
                    queue.push_back(edge.to);
                }
            }
        }
    }
    removed
}

/// One finding per conflict, placed where it starts.
fn report_conflicts(
    graph: &Graph,
    sink: &mut Sink,
    succ: &[Vec<u32>],
    conflicts: BTreeMap<(String, Vec<u32>), Conflict>,
) {
    for ((category, decisions), (affected, via)) in conflicts {
        // Report where the conflict starts: an affected node whose own depends_on targets and
        // feature/layer parents are not affected (e.g. the feature that depends on both layers).
        let roots: Vec<u32> = affected
            .iter()
            .copied()
            .filter(|&v| !succ[v as usize].iter().any(|w| affected.contains(w)))
            .collect();
        let first = roots
            .iter()
            .copied()
            .find(|&v| graph.node(v).kind.is_grouping())
            .or_else(|| roots.first().copied())
            .or_else(|| affected.iter().next().copied());
        let Some(first) = first else { continue };
        let node = graph.node(first);
        let ids = |set: &mut dyn Iterator<Item = &u32>| {
            join_ids(
                set.map(|&ix| graph.node(ix).id.as_str())
                    .collect::<Vec<_>>(),
            )
        };
        let (all, none) = if decisions.len() == 2 {
            ("both", "neither supersedes the other")
        } else {
            ("all", "none supersedes the others")
        };
        sink.push(
            Pending::anchored(
                "ambiguous-layer-decision",
                &node.location.path,
                if node.links.iter().any(|l| l.relation == Relation::DependsOn) {
                    Anchor::Json(vec![Seg::key("links"), Seg::key("depends_on")])
                } else {
                    Anchor::Json(vec![Seg::key("id")])
                },
                format!(
                    "ambiguous layer guidance: {category} decisions {} {all} propagate to {}{} through layer{} {}, and {none}: add a supersedes link between them or change the depends_on structure",
                    ids(&mut decisions.iter()),
                    node.id,
                    if affected.len() > 1 { " (and the nodes it contains or that depend on it)" } else { "" },
                    if via.len() == 1 { "" } else { "s" },
                    ids(&mut via.iter()),
                ),
            )
            .node(&node.id),
        );
    }
}

/// What a layer propagates: the decisions in its `contains` closure and every node that
/// constrains a closure node or one of its `contains` ancestors.
fn layer_guidance(graph: &Graph, layer: NodeIx) -> BTreeSet<u32> {
    let mut closure = BTreeSet::from([layer]);
    let mut queue = VecDeque::from([layer]);
    while let Some(x) = queue.pop_front() {
        for edge in graph.outgoing(x) {
            if edge.relation == Relation::Contains && closure.insert(edge.to) {
                queue.push_back(edge.to);
            }
        }
    }
    let mut out: BTreeSet<u32> = closure
        .iter()
        .copied()
        .filter(|&x| x != layer && graph.node(x).kind == Kind::Decision)
        .collect();
    let mut ancestry: BTreeSet<u32> = BTreeSet::new();
    let mut queue: VecDeque<u32> = closure.iter().copied().collect();
    ancestry.extend(closure.iter().copied());
    while let Some(x) = queue.pop_front() {
        for edge in graph.incoming(x) {
            if edge.relation == Relation::Contains && ancestry.insert(edge.from) {
                queue.push_back(edge.from);
            }
        }
    }
    for &a in &ancestry {
        for edge in graph.incoming(a) {
            if edge.relation == Relation::Constrains {
                out.insert(edge.from);
            }
        }
    }
    out
}

fn pins(project: &Project, graph: &Graph, sink: &mut Sink) {
    let mut hashes: HashMap<NodeIx, Option<String>> = HashMap::new();
    for node in graph.nodes() {
        let Some(spec) = node.spec() else { continue };
        for (i, pin) in spec.pins.iter().enumerate() {
            let at = Anchor::Json(vec![Seg::key("pins"), Seg::Index(i)]);
            let Some(target_ix) = graph.lookup(&pin.id) else {
                sink.push(
                    Pending::anchored(
                        "pin-mismatch",
                        &node.location.path,
                        at,
                        format!(
                            "{} pins {}, which is not in the graph: fix the pin's id or remove the pin",
                            node.id, pin.id
                        ),
                    )
                    .node(&node.id),
                );
                continue;
            };
            let target = graph.node(target_ix);
            let declared = target.spec().and_then(|s| {
                (target.kind == Kind::Artifact)
                    .then(|| {
                        s.artifact
                            .iter()
                            .find(|(k, _)| k == "sha256")
                            .and_then(|(_, v)| v.as_str())
                            .map(|h| h.to_ascii_lowercase())
                    })
                    .flatten()
            });
            let (source, actual) = match declared {
                Some(hash) => ("artifact.sha256", Some(hash)),
                None => (
                    "file's SHA-256",
                    hashes
                        .entry(target_ix)
                        .or_insert_with(|| {
                            file_sha256(&project.guard, &project.root.join(&target.location.path))
                        })
                        .clone(),
                ),
            };
            if actual.as_deref() != Some(pin.sha256.to_ascii_lowercase().as_str()) {
                sink.push(
                    Pending::anchored(
                        "pin-mismatch",
                        &node.location.path,
                        Anchor::Json(vec![Seg::key("pins"), Seg::Index(i), Seg::key("sha256")]),
                        format!(
                            "{} pins {} at sha256 {} but its {source} is {}: {} changed since it was pinned; review {}, then update the pin",
                            node.id,
                            pin.id,
                            short(&pin.sha256),
                            actual.as_deref().map(short).unwrap_or("unreadable"),
                            pin.id,
                            node.id
                        ),
                    )
                    .node(&node.id),
                );
            }
        }
        for link in &node.links {
            if link.relation == Relation::DerivedFrom
                && !spec.pins.iter().any(|pin| pin.id == link.target)
            {
                sink.push(
                    Pending::anchored(
                        "derived-from-without-pin",
                        &node.location.path,
                        link_anchor(node, &link.relation, &link.target),
                        format!(
                            "{} is derived_from {} without a pin: add {{\"id\": \"{}\", \"sha256\": …}} to `pins` so changes to the source are noticed",
                            node.id, link.target, link.target
                        ),
                    )
                    .node(&node.id),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_find_cycles_in_reverse_topological_order() {
        // 0 → 1 → 2 → 0, 2 → 3
        let succ = vec![vec![1], vec![2], vec![0, 3], vec![]];
        let (comps, comp) = components(4, &succ);
        assert_eq!(comps.len(), 2);
        assert_eq!(comps[0], vec![3], "the sink comes first");
        assert_eq!(comps[1], vec![0, 1, 2]);
        assert_eq!(comp[0], comp[2]);
    }

    #[test]
    fn components_handle_long_chains() {
        let n = 200_000;
        let succ: Vec<Vec<u32>> = (0..n)
            .map(|i| {
                if i + 1 < n {
                    vec![i as u32 + 1]
                } else {
                    vec![]
                }
            })
            .collect();
        let (comps, _) = components(n, &succ);
        assert_eq!(comps.len(), n);
    }
}
