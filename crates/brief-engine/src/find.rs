//! Targets in words, over the index: the query model of `resolve::words` fed with what the
//! index knows (each word's node count, each node's relevance per word), then the start of
//! a context chosen from its verdict — several seeds close to the best, the next hits as
//! related material (`docs/ranking.md`, "Targets in words").

use std::collections::{BTreeMap, BTreeSet};

use crate::resolve::{
    judge_in, significant, standing, translations, words, Confidence, Counted, Evidence, Role,
    Scored, Script, Verdict, Weakness,
};
use brief_index::{Holders, Index, Term, TermHit, TermParts};
use brief_model::{Applies, GraphView, IxMap, Kind, NodeIx, Relation, StoreError};

/// Most nodes read per query word (best first): a word held by more is common, and its
/// weight small, so nodes past this many gain little from it.
const PER_WORD: usize = 1000;

/// Most common words left out, one at a time, of the match that finds the nodes holding them
/// together: each step is one more walk over their lists, so a query of dozens of common
/// words does not walk them dozens of times.
const RELAXED: usize = 3;

/// Most candidates weighed in full (their rows and status read), by a first score.
const POOL: usize = 120;

/// A node is a seed when its score is at least this share of the best.
pub(crate) const SEED_MARGIN: f64 = 0.6;

/// Seeds when neither `--seeds` nor `[context] seeds` says.
pub(crate) const DEFAULT_SEEDS: usize = 3;

/// A hit is related material when its score is at least this share of the best.
const RELATED_FLOOR: f64 = 0.05;

/// Most hits kept as related material.
pub(crate) const RELATED_MAX: usize = 40;

/// A decision, policy or norm after the first [`RELATED_MAX`] related hits is related
/// material still when its score is at least this share of the best: the cap keeps pages
/// from filling a context, not what governs the work. (Chosen on the evaluation of tasks in
/// words: at 0.05, the floor of every hit, a record at a twentieth of the best took the room
/// of a README a task needs at 1,000 tokens; 0.1 and 0.15 held the same.)
const GOVERNING_FLOOR: f64 = 0.1;

/// A rule that covers part of the tree (a nested agent file, a rule with globs) is a hard
/// constraint of a context in words when its score is at least this share of the best: its
/// words say it governs the task, though no file of the task is known to match its globs.
pub(crate) const RULE_MARGIN: f64 = 0.25;

/// Most rules brought in this way.
pub(crate) const RULE_MAX: usize = 2;

/// Where a context in words starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Match {
    /// Seeds, best first, each with its score as a share of the best (the first is 1).
    pub seeds: Vec<(NodeIx, f64)>,
    /// Rules covering part of the tree whose words match (within [`RULE_MARGIN`]), best
    /// first, with their share of the best: hard constraints of the context.
    pub rules: Vec<(NodeIx, f64)>,
    /// Further hits, best first, with their share of the best.
    pub related: Vec<(NodeIx, f64)>,
    pub confidence: Confidence,
}

/// Scores the query's candidates over the index, at least `wanted` of them when there are
/// (and at least [`POOL`]). `Verdict::Nothing` when nothing matches well enough to answer.
pub(crate) fn find(index: &Index, query: &str, wanted: usize) -> Result<Verdict, StoreError> {
    let asked = words(query);
    if asked.is_empty() {
        return Ok(Verdict::Nothing(Weakness::NoWordAsked));
    }
    // Function words alone: every node holds them, so they say nothing of a topic.
    if asked.iter().all(|w| w.role == Role::Stop) {
        return Ok(Verdict::Nothing(Weakness::OnlyCommonWords));
    }
    // A function word weighs nothing and is never scored: its count (a walk over nearly every
    // node) would be read for nothing.
    let texts: Vec<String> = asked
        .iter()
        .filter(|w| w.role != Role::Stop)
        .map(|w| w.text.clone())
        .collect();
    let (terms, total) = index.terms(&texts)?;
    let counted: Vec<Counted> = terms
        .iter()
        .map(|term| Counted {
            role: asked
                .iter()
                .find(|w| w.text == term.word)
                .map_or(Role::Content, |w| w.role),
            nodes: term.nodes,
        })
        .collect();
    let limit = PER_WORD.max(wanted);
    let scored: Vec<usize> = (0..terms.len())
        .filter(|&k| counted[k].role != Role::Stop && terms[k].nodes > 0)
        .collect();
    let (common, rare): (Vec<usize>, Vec<usize>) = scored
        .into_iter()
        .partition(|&k| index.reads_term_parts() && widely_held(&terms[k], limit));
    let mut relevance = Relevance {
        by_node: IxMap::default(),
        terms: terms.len(),
    };
    for &k in &rare {
        relevance.hits(k, index.term_hits(&terms[k], limit)?);
    }
    if !common.is_empty() {
        let pool = POOL.max(wanted);
        let weights: Vec<f64> = counted.iter().map(|c| c.role.weight()).collect();
        let words = Words {
            terms: &terms,
            weights: &weights,
            rare: &rare,
            common: &common,
        };
        score_common(index, words, &mut relevance, pool, limit)?;
    }
    let pool = first_pool(&counted, relevance.by_node, POOL.max(wanted));
    let evidence = weigh(index, pool)?;
    let script = Script::of(query).unwrap_or(Script::Latin);
    Ok(judge_in(&counted, total, evidence, script))
}

/// A word more nodes hold than a word's hits are read for: scoring every holder would cost
/// the most and decide the least (its weight is small), so it is scored where it can matter.
fn widely_held(term: &Term, limit: usize) -> bool {
    usize::try_from(term.nodes).is_ok_and(|n| n > limit) && term.tokens.len() == 1 && !term.prefix
}

/// Each candidate's relevance per query word, as it is read.
struct Relevance {
    by_node: IxMap<Vec<f64>>,
    /// How many words the query has.
    terms: usize,
}

impl Relevance {
    fn hits(&mut self, k: usize, hits: Vec<TermHit>) {
        for hit in hits {
            self.of(hit.node)[k] = hit.relevance;
        }
    }

    /// Each node's relevance for the words `ks`; a node listed with none (not among the best
    /// asked for) is still a candidate.
    fn parts(&mut self, ks: &[usize], parts: Vec<TermParts>) {
        for part in parts {
            let row = self.of(part.node);
            for (&k, relevance) in ks.iter().zip(part.relevance) {
                row[k] = relevance;
            }
        }
    }

    fn of(&mut self, node: NodeIx) -> &mut Vec<f64> {
        let terms = self.terms;
        self.by_node.entry(node).or_insert_with(|| vec![0.0; terms])
    }
}

/// A query's words as the index read them, by position.
struct Words<'a> {
    terms: &'a [Term],
    /// Each word's weight in a candidate's first score.
    weights: &'a [f64],
    /// The rare words (their holders already read) and the common ones.
    rare: &'a [usize],
    common: &'a [usize],
}

/// Scores the common words where they can matter: on every node a rare word found, and on
/// the nodes holding all of them — then, while fewer than `pool` candidates are known, all but
/// the most widely held, and so on (at most [`RELAXED`] left out, and never fewer than two).
/// Still too few (many common words that no node holds together), each has its best `limit`
/// holders read, as a rare word's.
///
/// A node that holds the common words together but none of the rare words whose holders are
/// all known is scored by those words alone, so only the `pool` best of them can be in the
/// first pool: one that cannot reach the best found so far may be listed without its
/// relevance ([`Holders::Best`]). That holds only when every rare word's holders were all
/// read.
fn score_common(
    index: &Index,
    words: Words<'_>,
    relevance: &mut Relevance,
    pool: usize,
    limit: usize,
) -> Result<(), StoreError> {
    let Words {
        terms,
        weights,
        rare,
        common,
    } = words;
    let of = |ks: &[usize]| -> Vec<&Term> { ks.iter().map(|&k| &terms[k]).collect() };
    // Only words whose every holder was read: a phrase or a prefix many nodes hold was read
    // for its best `limit`, and its other holders would look as if they held only common words.
    let whole: Vec<usize> = rare
        .iter()
        .copied()
        .filter(|&k| usize::try_from(terms[k].nodes).is_ok_and(|n| n <= limit))
        .collect();
    if !whole.is_empty() {
        let (found, read) = (of(&whole), of(common));
        let parts = index.term_parts(Holders::Among {
            found: &found,
            terms: &read,
        })?;
        relevance.parts(common, parts);
    }
    let mut by_reach = common.to_vec();
    by_reach.sort_by_key(|&k| (terms[k].nodes, k));
    let fewest = by_reach.len().saturating_sub(RELAXED).max(2);
    let bounded = whole.len() == rare.len();
    for held in (fewest..=by_reach.len()).rev() {
        let ks = &by_reach[..held];
        let all = of(ks);
        let weights: Vec<f64> = ks.iter().map(|&k| weights[k]).collect();
        let holders = if bounded {
            Holders::Best {
                terms: &all,
                weights: &weights,
                best: pool,
            }
        } else {
            Holders::All(&all)
        };
        relevance.parts(ks, index.term_parts(holders)?);
        if relevance.by_node.len() >= pool {
            return Ok(());
        }
    }
    for &k in &by_reach {
        relevance.hits(k, index.term_hits(&terms[k], limit)?);
    }
    Ok(())
}

/// The [`POOL`] candidates with the best weighted relevance, by node index on ties.
fn first_pool(
    counted: &[Counted],
    relevance: IxMap<Vec<f64>>,
    size: usize,
) -> Vec<(NodeIx, Vec<f64>)> {
    let mut scored: Vec<(f64, NodeIx, Vec<f64>)> = relevance
        .into_iter()
        .map(|(node, rel)| {
            let held: usize = rel.iter().filter(|r| **r > 0.0).count();
            let raw: f64 = counted
                .iter()
                .zip(&rel)
                .map(|(c, r)| c.role.weight() * r)
                .sum();
            // More words held first, then relevance: a node holding all the words is never
            // crowded out of the pool by strong holders of one.
            (raw * held as f64, node, rel)
        })
        .collect();
    let order = |a: &(f64, NodeIx, Vec<f64>), b: &(f64, NodeIx, Vec<f64>)| {
        b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
    };
    // The best `size` first (a total order: the same set a full sort keeps), then only those
    // sorted: a conjunction of common words gives thousands of candidates.
    if scored.len() > size && size > 0 {
        scored.select_nth_unstable_by(size - 1, order);
    }
    scored.truncate(size);
    scored.sort_by(order);
    scored
        .into_iter()
        .map(|(_, node, rel)| (node, rel))
        .collect()
}

/// The evidence for each pooled candidate: its row and its lifecycle.
fn weigh(index: &Index, pool: Vec<(NodeIx, Vec<f64>)>) -> Result<Vec<Evidence>, StoreError> {
    let nodes: Vec<NodeIx> = pool.iter().map(|(n, _)| *n).collect();
    let rows = index.candidates(&nodes)?;
    let files: Vec<&str> = rows.iter().map(|row| row.file.as_str()).collect();
    let translation = translations(&files);
    rows.into_iter()
        .zip(pool)
        .zip(translation)
        .map(|((row, (node, relevance)), translation)| {
            Ok(Evidence {
                node,
                lifecycle: row.lifecycle,
                normative: matches!(row.kind.as_str(), "decision" | "policy" | "norm"),
                id: row.id,
                title: row.title,
                file: row.file,
                relevance,
                translation,
            })
        })
        .collect()
}

/// How much meaning weighs in a fused score; the words weigh the rest. Measured on the
/// evaluation of tasks in words (BENCHMARKS.md): from 0.35 to 0.45 must recall gains most
/// at every budget; at 0.6 the words' good starts are lost to near neighbours.
const MEANING_WEIGHT: f64 = 0.4;

/// The nodes most similar to a query that take part in a fused score (best first): the
/// similarity of the last is where the scale of meaning starts.
pub(crate) const SIMILAR_POOL: usize = 50;

/// Fuses the hits of a target in words with the query's similarity to the nodes
/// (`similar`: the [`SIMILAR_POOL`] best, cosine rounded, best first): reads the standing of
/// each similar node (hub, status, normative) and [`blend`]s.
pub(crate) fn fuse(
    index: &Index,
    hits: Vec<Scored>,
    similar: &[(NodeIx, f32)],
    script: Script,
) -> Result<Vec<Scored>, StoreError> {
    let pool = similar
        .iter()
        .map(|&(node, _)| (node, Vec::new()))
        .collect();
    let meaning = weigh(index, pool)?
        .into_iter()
        .zip(similar)
        .map(|(evidence, &(_, cosine))| Meaning {
            node: evidence.node,
            standing: standing(&evidence, script),
            translation: evidence.translation,
            normative: evidence.normative,
            id: evidence.id,
            cosine,
        })
        .collect();
    Ok(blend(hits, meaning, MEANING_WEIGHT))
}

/// One node similar to the query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Meaning {
    /// The node.
    pub node: NodeIx,
    /// Its id (ties go to the smaller).
    pub id: String,
    /// Its cosine similarity to the query (rounded to four places).
    pub cosine: f32,
    /// What its score is multiplied by ([`standing`]).
    pub standing: f64,
    /// Whether it is a translation ([`translations`]).
    pub translation: bool,
    /// Whether it is normative: a decision, a policy or a norm.
    pub normative: bool,
}

/// A node's fused score is `(1 − weight) × words + weight × meaning`: `words` its score as a
/// share of the best hit's, `meaning` where its cosine lies between the least (0) and the
/// most (1) similar of `similar`, times its standing. A similar node no word matched joins
/// with its meaning alone. Best first, ties by id; scores rounded before they are compared.
pub(crate) fn blend(hits: Vec<Scored>, similar: Vec<Meaning>, weight: f64) -> Vec<Scored> {
    let top = similar
        .iter()
        .map(|m| f64::from(m.cosine))
        .fold(f64::MIN, f64::max);
    let floor = similar
        .iter()
        .map(|m| f64::from(m.cosine))
        .fold(f64::MAX, f64::min);
    let closeness = |cosine: f32| {
        if top > floor {
            ((f64::from(cosine) - floor) / (top - floor)).clamp(0.0, 1.0)
        } else {
            1.0
        }
    };
    let mut meaning: BTreeMap<NodeIx, (f64, Meaning)> = similar
        .into_iter()
        .map(|m| (m.node, (closeness(m.cosine) * m.standing, m)))
        .collect();
    let best = hits.first().map_or(0.0, |h| h.score);
    let mut fused: Vec<Scored> = hits
        .into_iter()
        .map(|mut hit| {
            let words = if best > 0.0 { hit.score / best } else { 0.0 };
            let sense = meaning.remove(&hit.node).map_or(0.0, |(value, ..)| value);
            hit.score = significant((1.0 - weight) * words + weight * sense);
            hit
        })
        .collect();
    fused.extend(meaning.into_iter().map(|(node, (value, m))| Scored {
        node,
        id: m.id,
        score: significant(weight * value),
        coverage: 0.0,
        content_words: 0,
        only_common: false,
        translation: m.translation,
        normative: m.normative,
    }));
    fused.retain(|hit| hit.score > 0.0);
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    fused
}

/// Chooses the seeds and the related hits of a match: every hit within [`SEED_MARGIN`] of
/// the best, up to `cap`, a part in its whole's place (a section for its page, a behavior for
/// its feature) when both qualify, no rule that applies to every target while another hit
/// qualifies, no retired record beside a current one; up to [`RULE_MAX`] rules covering part
/// of the tree within [`RULE_MARGIN`], as hard constraints; then the next hits above
/// [`RELATED_FLOOR`], at most [`RELATED_MAX`] of them but for the decisions, policies and
/// norms above [`GOVERNING_FLOOR`]. A translation is a seed only when the first hit that can
/// start is one, and a related hit only when the start is one.
pub(crate) fn choose(
    graph: &dyn GraphView,
    hits: &[Scored],
    confidence: Confidence,
    cap: usize,
) -> Result<Match, StoreError> {
    let best = hits.first().map_or(1.0, |h| h.score);
    let share = |h: &Scored| round4(if best > 0.0 { h.score / best } else { 1.0 });
    let qualifying: Vec<&Scored> = hits.iter().filter(|h| share(h) >= SEED_MARGIN).collect();
    let parents = parents_among(graph, &qualifying)?;
    let mut seeds: Vec<(NodeIx, f64)> = Vec::new();
    let mut taken: BTreeSet<NodeIx> = BTreeSet::new();
    let mut pages: Vec<Option<NodeIx>> = Vec::new();
    let scoped = graph.scoped()?;
    let everywhere = in_every_context(graph, &scoped)?;
    // A copy of a page in another language says again what the page says: a translation is
    // a seed only when the first hit that can start the context is one.
    let mut first_is_copy: Option<bool> = None;
    for whole in &qualifying {
        if seeds.len() >= cap.max(1) {
            break;
        }
        // A rule that applies to every target is in every context already, as a hard
        // constraint with the sections of it the words match: as a start it would take the
        // place of what the task is about. It starts a context only when nothing else does.
        if !everywhere.is_empty()
            && everywhere.contains(&page_of(graph, whole.node)?.unwrap_or(whole.node))
        {
            continue;
        }
        // A whole whose part also qualifies gives way to the part, in the whole's place
        // (however far down the part scored): the part brings it along as its namespace.
        let hit = best_part(whole, &qualifying, &parents);
        let first_copy = *first_is_copy.get_or_insert(hit.translation);
        if hit.translation && !first_copy {
            continue;
        }
        let overlaps = parents
            .get(&hit.node)
            .is_some_and(|p| p.iter().any(|a| taken.contains(a)));
        if taken.contains(&hit.node) || overlaps {
            continue;
        }
        // A retired record (superseded, rejected, …) may start a context its words name,
        // but beside a start it would mislead (a superseded record next to its successor).
        // A proposal is still under discussion and may be what the task is about.
        if !seeds.is_empty() && is_retired(graph, hit.node)? {
            continue;
        }
        // One seed per page: a second section of a page already started from adds its
        // siblings' namespace again rather than another topic.
        let page = page_of(graph, hit.node)?;
        if page.is_some() && pages.contains(&page) {
            continue;
        }
        pages.push(page);
        taken.insert(hit.node);
        seeds.push((hit.node, share(hit)));
    }
    if seeds.is_empty() {
        if let Some(first) = qualifying.first() {
            let hit = best_part(first, &qualifying, &parents);
            seeds.push((hit.node, share(hit)));
            taken.insert(hit.node);
        }
    }
    // A retired record never starts a context when a current one matches nearly as well:
    // a retired first seed gives way to the others (all current, by the rule above; a link of
    // the new start may still bring it, with its banner).
    if seeds.len() > 1 && is_retired(graph, seeds[0].0)? {
        seeds.remove(0);
    }
    let rules = rules_among(&scoped, hits, &taken, share);
    taken.extend(rules.iter().map(|(node, _)| *node));
    let start_is_copy = seeds
        .first()
        .and_then(|(node, _)| hits.iter().find(|h| h.node == *node))
        .is_some_and(|h| h.translation);
    let related = hits
        .iter()
        .filter(|h| !taken.contains(&h.node) && share(h) >= RELATED_FLOOR)
        .filter(|h| !h.translation || start_is_copy)
        .enumerate()
        .filter(|(k, h)| *k < RELATED_MAX || (h.normative && share(h) >= GOVERNING_FLOOR))
        .map(|(_, h)| (h.node, share(h)))
        .collect();
    Ok(Match {
        seeds,
        rules,
        related,
        confidence,
    })
}

/// The current rules that apply to every target (a root agent file, `alwaysApply`): the hard
/// constraints of every context.
fn in_every_context(
    graph: &dyn GraphView,
    scoped: &[(NodeIx, Applies)],
) -> Result<BTreeSet<NodeIx>, StoreError> {
    let mut rules = BTreeSet::new();
    for (node, applies) in scoped {
        if *applies == Applies::Always && graph.lifecycle_of(*node)?.is_current() {
            rules.insert(*node);
        }
    }
    Ok(rules)
}

/// The hit that stands for `whole` among the seeds: its best-scoring qualifying part, that
/// part's best part, and so on down; `whole` itself when no part of it qualifies.
fn best_part<'h>(
    whole: &'h Scored,
    qualifying: &[&'h Scored],
    parents: &BTreeMap<NodeIx, Vec<NodeIx>>,
) -> &'h Scored {
    let mut current = whole;
    let mut seen = BTreeSet::from([whole.node]);
    while let Some(part) = qualifying.iter().find(|h| {
        !seen.contains(&h.node)
            && parents
                .get(&h.node)
                .is_some_and(|p| p.contains(&current.node))
    }) {
        seen.insert(part.node);
        current = part;
    }
    current
}

/// Superseded, deprecated, rejected, withdrawn or obsolete (a proposal is not retired: it is
/// still open).
fn is_retired(graph: &dyn GraphView, node: NodeIx) -> Result<bool, StoreError> {
    Ok(graph.lifecycle_of(node)?.retired().is_some())
}

/// The rules covering part of the tree among the hits not yet taken, within [`RULE_MARGIN`]
/// of the best, best first, at most [`RULE_MAX`]. Rules that apply everywhere are in every
/// context already; linked ones are ordinary documents.
fn rules_among(
    scoped: &[(NodeIx, Applies)],
    hits: &[Scored],
    taken: &BTreeSet<NodeIx>,
    share: impl Fn(&Scored) -> f64,
) -> Vec<(NodeIx, f64)> {
    let covering: BTreeSet<NodeIx> = scoped
        .iter()
        .filter(|(_, applies)| matches!(applies, Applies::Files(_)))
        .map(|(node, _)| *node)
        .collect();
    if covering.is_empty() {
        return Vec::new();
    }
    hits.iter()
        .filter(|h| covering.contains(&h.node) && !taken.contains(&h.node))
        .filter(|h| share(h) >= RULE_MARGIN)
        .take(RULE_MAX)
        .map(|h| (h.node, share(h)))
        .collect()
}

/// The outermost `contains` ancestor of a section (its page), `None` for a node that is no
/// section.
pub(crate) fn page_of(graph: &dyn GraphView, node: NodeIx) -> Result<Option<NodeIx>, StoreError> {
    if graph.kind_of(node)? != Kind::Section {
        return Ok(None);
    }
    let mut current = node;
    let mut seen = BTreeSet::from([node]);
    while let Some(edge) = graph.edges_in_of(current, &Relation::Contains)?.first() {
        if !seen.insert(edge.from) {
            break;
        }
        current = edge.from;
    }
    Ok((current != node).then_some(current))
}

/// For each qualifying hit, its `contains` ancestors among the qualifying hits.
fn parents_among(
    graph: &dyn GraphView,
    hits: &[&Scored],
) -> Result<BTreeMap<NodeIx, Vec<NodeIx>>, StoreError> {
    let set: BTreeSet<NodeIx> = hits.iter().map(|h| h.node).collect();
    let mut out = BTreeMap::new();
    for hit in hits {
        let mut up = Vec::new();
        let mut frontier = vec![hit.node];
        let mut seen = BTreeSet::new();
        while let Some(node) = frontier.pop() {
            for edge in graph.edges_in_of(node, &Relation::Contains)? {
                if seen.insert(edge.from) {
                    if set.contains(&edge.from) {
                        up.push(edge.from);
                    }
                    frontier.push(edge.from);
                }
            }
        }
        if !up.is_empty() {
            out.insert(hit.node, up);
        }
    }
    Ok(out)
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(node: NodeIx, id: &str, score: f64) -> Scored {
        Scored {
            node,
            id: id.into(),
            score,
            coverage: 1.0,
            content_words: 1,
            only_common: false,
            translation: false,
            normative: false,
        }
    }

    fn similar(node: NodeIx, id: &str, cosine: f32, standing: f64) -> Meaning {
        Meaning {
            node,
            id: id.into(),
            cosine,
            standing,
            translation: false,
            normative: false,
        }
    }

    /// Hits on the nodes of `graph` named by id, with their scores.
    fn hits_on(graph: &brief_model::Graph, scored: &[(&str, f64)]) -> Vec<Scored> {
        scored
            .iter()
            .map(|&(id, score)| hit(graph.lookup(id).unwrap(), id, score))
            .collect()
    }

    /// The ids of the seeds `choose` takes from `hits`, at most `cap`.
    fn seed_ids(graph: &brief_model::Graph, hits: &[Scored], cap: usize) -> Vec<String> {
        let found = choose(graph, hits, Confidence::Strong, cap).unwrap();
        found
            .seeds
            .iter()
            .map(|(n, _)| graph.node(*n).id.clone())
            .collect()
    }

    fn order(fused: &[Scored]) -> Vec<(&str, f64)> {
        fused.iter().map(|h| (h.id.as_str(), h.score)).collect()
    }

    #[test]
    fn a_node_near_in_meaning_joins_and_one_strong_in_both_leads() {
        // Words: A best, B half as good. Meaning: C (no word matched) closest, then B, then D.
        let fused = blend(
            vec![hit(0, "A", 8.0), hit(1, "B", 4.0)],
            vec![
                similar(2, "C", 0.90, 1.0),
                similar(1, "B", 0.88, 1.0),
                similar(3, "D", 0.80, 1.0),
            ],
            0.5,
        );
        assert_eq!(
            order(&fused),
            [("B", 0.65), ("A", 0.5), ("C", 0.5), ("D", 0.0)][..3],
            "the least similar of the pool adds nothing and is left out"
        );
    }

    #[test]
    fn standing_weighs_meaning_and_ties_go_to_the_smaller_id() {
        // The same similarity: a superseded record (standing 0.5) and a changelog count less.
        let fused = blend(
            Vec::new(),
            vec![
                similar(4, "ADR-0009", 0.9, 1.0),
                similar(3, "ADR-0003", 0.9, 0.5),
                similar(2, "ADR-0001", 0.9, 1.0),
                similar(1, "LAST", 0.7, 1.0),
            ],
            0.5,
        );
        assert_eq!(
            order(&fused),
            [("ADR-0001", 0.5), ("ADR-0009", 0.5), ("ADR-0003", 0.25)]
        );
    }

    #[test]
    fn a_retired_record_is_a_seed_only_as_the_start() {
        use brief_model::testing::node;
        use brief_model::{Graph, Kind};
        let with_status = |id: &str, status: &str| {
            let mut n = node(id, Kind::Decision, &[]);
            n.status = Some(status.into());
            n
        };
        let (graph, _) = Graph::build(vec![
            with_status("ADR-1", "Superseded"),
            with_status("ADR-2", "Accepted"),
            with_status("ADR-3", "Proposed"),
            with_status("ADR-4", "Rejected"),
        ]);
        let seeds = |hits: &[(&str, f64)]| seed_ids(&graph, &hits_on(&graph, hits), 4);
        // Beside a current start, the superseded and the rejected record are left out; the
        // proposal, still open, is a seed.
        let after_current = [
            ("ADR-2", 1.0),
            ("ADR-1", 0.9),
            ("ADR-3", 0.8),
            ("ADR-4", 0.7),
        ];
        assert_eq!(seeds(&after_current), ["ADR-2", "ADR-3"]);
        // Words that name the superseded record best start from it only when no current
        // record matches nearly as well (is a seed too).
        let first = [("ADR-1", 1.0), ("ADR-2", 0.9)];
        assert_eq!(seeds(&first), ["ADR-2"]);
        let alone = [("ADR-1", 1.0), ("ADR-2", 0.5)];
        assert_eq!(seeds(&alone), ["ADR-1"]);
    }

    #[test]
    fn what_governs_is_related_material_beyond_the_cap_of_pages() {
        use brief_model::testing::node;
        use brief_model::{Graph, Kind};
        let pages = RELATED_MAX + 2;
        let mut nodes: Vec<_> = (0..pages)
            .map(|k| node(&format!("page-{k:02}.md"), Kind::Other("note".into()), &[]))
            .collect();
        nodes.push(node("ADR-0003", Kind::Decision, &[]));
        nodes.push(node("ADR-0009", Kind::Decision, &[]));
        let (graph, _) = Graph::build(nodes);
        let mut scored: Vec<(String, f64)> = vec![("page-00.md".into(), 1.0)];
        scored.extend((1..pages).map(|k| (format!("page-{k:02}.md"), 0.5)));
        scored.push(("ADR-0003".into(), 0.16));
        scored.push(("ADR-0009".into(), 0.06));
        let hits: Vec<Scored> = scored
            .iter()
            .map(|(id, score)| {
                let mut h = hit(graph.lookup(id).unwrap(), id, *score);
                h.normative = id.starts_with("ADR-");
                h
            })
            .collect();
        let found = choose(&graph, &hits, Confidence::Strong, 1).unwrap();
        let related: Vec<&str> = found
            .related
            .iter()
            .map(|(n, _)| graph.node(*n).id.as_str())
            .collect();
        // The first page starts; the next RELATED_MAX pages are related, the last one is
        // not; the record a sixth of the best joins after them, the one a twentieth does not.
        assert_eq!(related.len(), RELATED_MAX + 1, "{related:?}");
        assert_eq!(related.last(), Some(&"ADR-0003"));
        assert!(!related.contains(&"ADR-0009"));
        assert!(!related.contains(&format!("page-{:02}.md", pages - 1).as_str()));
    }

    #[test]
    fn a_translation_joins_only_a_start_that_is_a_translation() {
        use brief_model::testing::node;
        use brief_model::{ArtifactFields, Content, Graph, Kind};
        let note = |id: &str| node(id, Kind::Other("note".into()), &[]);
        let mut agents = node("AGENTS.md", Kind::Norm, &[]);
        agents.content = Content::Artifact(ArtifactFields {
            applies: Applies::Always,
            ..ArtifactFields::default()
        });
        let (graph, _) = Graph::build(vec![
            agents,
            note("en/a.md"),
            note("en/b.md"),
            note("de/a.md"),
            note("de/b.md"),
        ]);
        let found = |scored: &[(&str, f64)]| {
            let hits: Vec<Scored> = hits_on(&graph, scored)
                .into_iter()
                .map(|mut h| {
                    h.translation = h.id.starts_with("de/");
                    h
                })
                .collect();
            let found = choose(&graph, &hits, Confidence::Strong, 3).unwrap();
            let ids = |list: &[(NodeIx, f64)]| -> Vec<String> {
                list.iter()
                    .map(|(n, _)| graph.node(*n).id.clone())
                    .collect()
            };
            (ids(&found.seeds), ids(&found.related))
        };
        assert_eq!(
            found(&[
                ("en/a.md", 1.0),
                ("de/a.md", 0.9),
                ("en/b.md", 0.5),
                ("de/b.md", 0.3)
            ]),
            (vec!["en/a.md".into()], vec!["en/b.md".into()])
        );
        // A rule that applies everywhere starts nothing, so the language is the next hit's.
        assert_eq!(
            found(&[
                ("AGENTS.md", 1.0),
                ("de/a.md", 0.9),
                ("en/a.md", 0.8),
                ("de/b.md", 0.3)
            ]),
            (
                vec!["de/a.md".into(), "en/a.md".into()],
                vec!["AGENTS.md".into(), "de/b.md".into()]
            )
        );
    }

    #[test]
    fn a_whole_gives_way_to_its_part_in_its_own_place() {
        use brief_model::testing::node;
        use brief_model::{Graph, Kind};
        let (graph, _) = Graph::build(vec![
            node(
                "page.md",
                Kind::Other("note".into()),
                &[("contains", "page.md#part")],
            ),
            node("page.md#part", Kind::Section, &[]),
            node("a.md", Kind::Other("note".into()), &[]),
            node("b.md", Kind::Other("note".into()), &[]),
            node("c.md", Kind::Other("note".into()), &[]),
        ]);
        let hits = hits_on(
            &graph,
            &[
                ("page.md", 1.0),
                ("a.md", 0.9),
                ("b.md", 0.85),
                ("c.md", 0.8),
                ("page.md#part", 0.67),
            ],
        );
        let found = choose(&graph, &hits, Confidence::Strong, 3).unwrap();
        let seeds: Vec<(&str, f64)> = found
            .seeds
            .iter()
            .map(|(n, s)| (graph.node(*n).id.as_str(), *s))
            .collect();
        // The best hit's page starts the context through its part, however far down the
        // list the part scored; the part keeps its own share.
        assert_eq!(
            seeds,
            [("page.md#part", 0.67), ("a.md", 0.9), ("b.md", 0.85)]
        );
    }

    #[test]
    fn a_rule_that_applies_everywhere_starts_only_when_nothing_else_does() {
        use brief_model::testing::node;
        use brief_model::{ArtifactFields, Content, Graph, Kind};
        let mut agents = node(
            "AGENTS.md",
            Kind::Norm,
            &[("contains", "AGENTS.md#workflow")],
        );
        agents.content = Content::Artifact(ArtifactFields {
            applies: Applies::Always,
            ..ArtifactFields::default()
        });
        let (graph, _) = Graph::build(vec![
            agents,
            node("AGENTS.md#workflow", Kind::Section, &[]),
            node("docs/versions.md", Kind::Other("note".into()), &[]),
        ]);
        let seeds = |hits: &[(&str, f64)]| seed_ids(&graph, &hits_on(&graph, hits), 3);
        // The rule and a section of it match best; the page the task is about starts.
        let hits = [
            ("AGENTS.md#workflow", 1.0),
            ("AGENTS.md", 0.9),
            ("docs/versions.md", 0.7),
        ];
        assert_eq!(seeds(&hits), ["docs/versions.md"]);
        // Only the rule matches: it starts.
        assert_eq!(seeds(&hits[..2]), ["AGENTS.md#workflow"]);
    }

    #[test]
    fn without_meaning_the_order_of_the_words_stays() {
        let hits = vec![hit(0, "A", 3.0), hit(1, "B", 2.0), hit(2, "C", 1.0)];
        let fused = blend(hits, Vec::new(), 0.5);
        assert_eq!(
            fused.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
            ["A", "B", "C"]
        );
        // Float noise never decides: shares are rounded to six significant digits.
        let fused = blend(
            vec![hit(0, "X", 3.0), hit(1, "Y", 3.000_000_1)],
            Vec::new(),
            0.5,
        );
        assert_eq!(order(&fused), [("X", 0.5), ("Y", 0.5)]);
    }
}
