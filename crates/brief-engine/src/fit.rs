//! The budget fit (`docs/ranking.md`): choose a detail level per node so that the rendered
//! document's exact token count is at most the budget, predictably.
//!
//! The fit walks one fixed *fill order* — a list of steps, each raising one node by one
//! level (omitted → meta → summary → full) — and takes steps while the document still fits;
//! the first step that does not fit ends the walk. The order depends on the ranking only,
//! never on the budget, so a larger budget takes a longer prefix of the same steps: a node
//! shown at some budget is shown at every larger one, at the same level or higher
//! (presence and detail are monotone in the budget). The order is by class (hard
//! constraints' lines, the target's text, hard constraints' text, direct links, the
//! identity's text, guidance, the rest), and within a class every node gets its meta line
//! before any gets its summary, and its summary before any gets full.
//!
//! Each state is measured with the omitted nodes listed and with them at meta, and the
//! cheaper is the state (a rule of the state, not of the budget).
//!
//! What the walk leaves (less than the next step) is filled by cutting one pending block
//! short — the step that did not fit, or else the first later step whose node is already
//! shown — and then by listing more omitted nodes. The cut rests on the state the walk
//! reached, never on a listing the budget chose (see [`fit`]), so a node it shows at some
//! budget is shown at every larger one. A document is measured exactly as
//! the sum of its units' counts (see [`Layout::units`]), each counted once and cached, so
//! every candidate is measured exactly and the result is never over.

use crate::rank::Class;
pub(crate) use crate::render::Fitted;
use crate::render::{Cut, Layout, Unit};
use crate::traverse::Reason;
use brief_count::Counter;
use brief_model::Detail;
use std::collections::HashMap;
use std::rc::Rc;

/// Omitted nodes listed by name before any step of the fill order is taken; the rest are
/// counted (and listed afterwards if room is left).
pub(crate) const LISTED: usize = 10;

/// Pending blocks tried for the cut that fills the remaining room.
const CUT_TRIES: usize = 8;

/// The budget cannot hold even the target's meta line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a budget of {budget} tokens cannot hold even the target's meta line: the smallest budget that works is {minimum}")]
pub struct TooSmall {
    /// The budget asked for.
    pub budget: usize,
    /// The exact count of the smallest document (target at meta, everything else omitted
    /// and only counted — or everything at meta, when that is smaller).
    pub minimum: usize,
}

/// One step of the fill order: raise `item` to `level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    /// The ranked item to raise (its position in the ranking).
    pub item: usize,
    /// The detail it is raised to.
    pub level: Detail,
}

/// How the fill order spends the room for text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Spread {
    /// An id or a file names the start, so what it links to is what matters: each class
    /// gets its text in turn (start nodes, hard constraints, direct links, …).
    #[default]
    Depth,
    /// Words name the start, which may be the wrong node: after the target's own text and
    /// the hard constraints', every selected node gets its summary before any other gets
    /// its full text.
    Breadth,
}

/// The tokens from which a hard constraint's full text is long: with words as the target, it
/// waits for the full-text steps, after its summary and the sections of it the words name
/// (`docs/ranking.md`, "The fill order"). Chosen on the evaluation of tasks in words: 250 held
/// as many must-see documents, 700 one point fewer at 1,000 tokens, 1,200 two fewer.
const LONG_RULE: usize = 400;

/// The fill order for ranked items of these classes (best first). `target` is the target's
/// item; `identity` tells the identity items apart from the target; `long` marks the hard
/// constraints whose full text is long (read in breadth only). Levels above `requested` are
/// left out.
pub(crate) fn fill_order(
    classes: &[Class],
    identity: &[bool],
    target: usize,
    requested: Detail,
    spread: Spread,
    long: &[bool],
) -> Vec<Step> {
    let content: Vec<Detail> = [Detail::Summary, Detail::Full]
        .into_iter()
        .filter(|d| *d <= requested)
        .collect();
    let members = |class: Class| -> Vec<usize> {
        (0..classes.len())
            .filter(|&i| i != target && classes[i] == class && !identity[i])
            .collect()
    };
    let groups = Groups {
        target,
        others: members(Class::Target),
        hard: members(Class::Hard),
        long: (0..classes.len())
            .filter(|&i| classes[i] == Class::Hard && long.get(i) == Some(&true))
            .collect(),
        direct: members(Class::Direct),
        identities: (0..classes.len())
            .filter(|&i| i != target && identity[i])
            .collect(),
        guidance: members(Class::Guidance),
        distant: members(Class::Distant),
        related: members(Class::Related),
    };
    let mut steps = Steps(Vec::with_capacity(classes.len() * (content.len() + 1)));
    match spread {
        Spread::Depth => groups.in_depth(&mut steps, &content),
        Spread::Breadth => groups.in_breadth(&mut steps, &content),
    }
    steps.0
}

/// The ranked items by the part they play in the fill order (each list best first).
struct Groups {
    target: usize,
    /// The other start nodes of a query (target-class items but the target and identity).
    others: Vec<usize>,
    hard: Vec<usize>,
    /// The hard constraints whose full text is long.
    long: Vec<usize>,
    direct: Vec<usize>,
    identities: Vec<usize>,
    guidance: Vec<usize>,
    distant: Vec<usize>,
    related: Vec<usize>,
}

/// The fill order being built.
struct Steps(Vec<Step>);

impl Steps {
    /// Every item to `level`, for each level in turn.
    fn class(&mut self, items: &[usize], levels: &[Detail]) {
        for &level in levels {
            self.0
                .extend(items.iter().map(|&item| Step { item, level }));
        }
    }

    /// Each item to its meta line and then to each of `levels` before the next item
    /// starts (a related node is worth its text, not a row of names).
    fn one_by_one(&mut self, items: &[usize], levels: &[Detail]) {
        for &item in items {
            let upto = std::iter::once(Detail::Meta).chain(levels.iter().copied());
            self.0.extend(upto.map(|level| Step { item, level }));
        }
    }
}

impl Groups {
    fn starts(&self) -> Vec<usize> {
        std::iter::once(self.target)
            .chain(self.others.iter().copied())
            .collect()
    }

    /// Class by class: the order for a start named by id or file.
    fn in_depth(&self, steps: &mut Steps, content: &[Detail]) {
        let levels: Vec<Detail> = std::iter::once(Detail::Meta)
            .chain(content.iter().copied())
            .collect();
        // 1. Every hard constraint's line: whenever they fit at meta, they are all there.
        steps.class(&self.hard, &[Detail::Meta]);
        // 2. The start nodes' own text: the other start nodes' lines, then every start
        // node's summary, then every one's full text (a long first start does not crowd out
        // the next).
        steps.class(&self.others, &[Detail::Meta]);
        steps.class(&self.starts(), content);
        // 3. The identity's line: the project is always named.
        steps.class(&self.identities, &[Detail::Meta]);
        // 4. The hard constraints' text, then the direct links: all at meta, then summary,
        // then full.
        steps.class(&self.hard, content);
        steps.class(&self.direct, &levels);
        // 5. The identity's text: project context, after what the target links to.
        steps.class(&self.identities, content);
        // 6. Guidance, then the rest.
        steps.class(&self.guidance, &levels);
        steps.class(&self.distant, &levels);
        // 7. Related material, one node at a time to its summary, then each to full.
        let (summary, full) = summary_and_full(content);
        steps.one_by_one(&self.related, summary);
        steps.class(&self.related, full);
    }

    /// Summaries first: the order for a start found by words. The classes keep their turn
    /// for meta lines and summaries, and the hard constraints get their full text before
    /// any softer node gets text — but a long one only its summary (the sections of it the
    /// words name are hard constraints of their own, with their full text): a long rule is
    /// mostly about other work. Then full text in the same class order, the long rules
    /// right after the start nodes.
    fn in_breadth(&self, steps: &mut Steps, content: &[Detail]) {
        let (summary, full) = summary_and_full(content);
        let upto_summary: Vec<Detail> = std::iter::once(Detail::Meta)
            .chain(summary.iter().copied())
            .collect();
        steps.class(&self.hard, &[Detail::Meta]);
        steps.class(&self.others, &[Detail::Meta]);
        steps.class(&self.starts(), summary);
        steps.class(&self.identities, &[Detail::Meta]);
        let short: Vec<usize> = self
            .hard
            .iter()
            .copied()
            .filter(|i| !self.long.contains(i))
            .collect();
        steps.class(&self.hard, summary);
        steps.class(&short, full);
        steps.class(&self.direct, &upto_summary);
        steps.class(&self.identities, summary);
        steps.class(&self.guidance, &upto_summary);
        steps.class(&self.distant, &upto_summary);
        steps.one_by_one(&self.related, summary);
        for items in [
            &self.starts(),
            &self.long,
            &self.direct,
            &self.identities,
            &self.guidance,
            &self.distant,
            &self.related,
        ] {
            steps.class(items, full);
        }
    }
}

/// The text levels a fill order raises nodes to (`content`: summary then full, as far as the
/// requested detail goes), split into the summary step and the full step (each possibly empty).
fn summary_and_full(content: &[Detail]) -> (&[Detail], &[Detail]) {
    content.split_at(usize::from(content.first() == Some(&Detail::Summary)))
}

/// Fits the layout's ranked items (best first) into `budget`. `target` is the target's item.
pub(crate) fn fit(
    layout: &Layout<'_>,
    counter: &Counter<'_>,
    target: usize,
    requested: Detail,
    spread: Spread,
    budget: usize,
) -> Result<Fitted, TooSmall> {
    let ranked = layout.ranked();
    let items = ranked.len();
    let mut meter = Meter::new(layout, counter);

    // The most each item shows: a retired node other than the target only its line (which
    // says it is retired and names its successor), as old guidance would mislead.
    let most: Vec<Detail> = (0..items)
        .map(|i| {
            if ranked[i].retired && i != target {
                Detail::Meta
            } else {
                requested
            }
        })
        .collect();
    // When everything fits at the requested detail, that is the end of any walk (and no
    // other level needs rendering). A larger budget fits it too, so this keeps the fit
    // monotone.
    let whole = Plan {
        details: most.iter().copied().map(Some).collect(),
        listed: 0,
        cut: None,
    };
    if meter.prime_within(&whole, budget) {
        let whole_cost = meter.measure(&whole);
        if whole_cost <= budget {
            return Ok(finish(layout, &mut meter, whole, whole_cost));
        }
    }
    // Every state of the walk is also measured with the omitted nodes at meta: count every
    // meta line up front, on all cores. (Summaries are counted as the walk reaches them; a
    // tight budget on a large context never needs most of them.)
    if requested > Detail::Meta {
        meter.prime(Detail::Meta);
    }
    let classes: Vec<Class> = ranked.iter().map(|r| r.class).collect();
    let identity: Vec<bool> = ranked
        .iter()
        .map(|r| r.reasons.contains(&Reason::Identity))
        .collect();
    // A block's count depends on its text only, never on the budget: the order stays one
    // fixed sequence.
    // A section a task's words match is the part of a long rule that is shown early.
    let long: Vec<bool> = (0..items)
        .map(|i| {
            spread == Spread::Breadth
                && classes[i] == Class::Hard
                && requested == Detail::Full
                && !ranked[i].reasons.iter().any(Reason::is_rule_section)
                && meter.unit(&Unit::Block(i, Detail::Full)) > LONG_RULE
        })
        .collect();
    let mut steps = fill_order(&classes, &identity, target, requested, spread, &long);
    steps.retain(|step| step.level <= most[step.item]);
    // Related material left out is counted, not named, while the walk goes on: the names go
    // to what the links selected (the fill names more when room is left).
    let related: Vec<bool> = classes.iter().map(|c| *c == Class::Related).collect();

    let (mut plan, smallest) = smallest_state(&mut meter, target, &mut steps);
    if smallest > budget {
        return Err(TooSmall {
            budget,
            // A bare target alone can be cheaper than its meta line.
            minimum: smallest.min(meter.measure(&whole)),
        });
    }

    // The start listing: as many omitted ids as fit, up to `LISTED`. With all `LISTED` (or
    // every omitted id, if fewer), this is the walk's first state; when fewer fit, how many
    // is the budget's choice, not the state's.
    let omitted = plan.omitted();
    plan.listed = plan.names(&related);
    let named = meter.measure(&plan) <= budget;
    if !named {
        let names = plan.names(&related);
        plan.listed = most_listed(&mut meter, &mut plan, 0, names, budget);
        if meter.measure(&plan) > budget {
            // Only the whole list fits (it has no "… and N more" line).
            plan.listed = omitted;
        }
    }
    let used = meter.measure(&plan);

    // The walk: every step while the document fits, stopping at the first that does not.
    let Walked { next, walked, used } = walk(&mut meter, &mut plan, &steps, &related, used, budget);

    // Fill what is left: cut the step that did not fit short, or else a later pending block
    // of a node already shown; then list more omitted nodes. The step that did not fit
    // comes first whatever it is (a meta line too), so a node shown by a cut at some budget
    // is shown at every larger one: a larger budget either stops at the same step, on the
    // same state, with more room for the cut, or walks past it.
    //
    // That needs the cut to rest on a state of the walk. Before the first step, when the
    // first state's names do not all fit, the plan names as many as fit: a listing the budget
    // chose. A cut that shows a new node on top of it could fit at one budget and not at the
    // next, where one more name fits and leaves less room than before (the node would
    // vanish until the walk reaches it). So there the cut only lengthens a node already
    // shown, and the room goes to names.
    let settled = walked || named;
    let mut used = cut_short(&mut meter, &mut plan, &steps[next..], settled, used, budget);
    let omitted = plan.omitted();
    if plan.listed < omitted {
        let from = plan.listed;
        plan.listed = most_listed(&mut meter, &mut plan, from, omitted, budget);
        used = meter.measure(&plan);
    }

    Ok(finish(layout, &mut meter, plan, used))
}

/// The walk's first state and its cost: the target at meta and the rest omitted, or
/// everything at meta when that is smaller still (a few short nodes cost less than the
/// Omitted section; then the meta steps are dropped from `steps`). Which one does not depend
/// on the budget.
fn smallest_state(
    meter: &mut Meter<'_, '_>,
    target: usize,
    steps: &mut Vec<Step>,
) -> (Plan, usize) {
    let items = meter.cache.len();
    let mut start = vec![None; items];
    start[target] = Some(Detail::Meta);
    let mut plan = Plan {
        details: start,
        listed: 0,
        cut: None,
    };
    let listing_none = meter.measure(&plan);
    plan.listed = items - 1;
    let listing_all = meter.measure(&plan);
    let mut smallest = listing_none.min(listing_all);
    let all_meta = Plan {
        details: vec![Some(Detail::Meta); items],
        listed: 0,
        cut: None,
    };
    if items > 1 {
        let all_meta_cost = meter.measure(&all_meta);
        if all_meta_cost <= smallest {
            smallest = all_meta_cost;
            plan = all_meta;
            steps.retain(|s| s.level != Detail::Meta);
        }
    }
    (plan, smallest)
}

/// The fill after the walk: the first of `rest` (the step that did not fit) cut short, or else
/// a later pending block of a node already shown, left in `plan.cut`; the tokens of the plan.
fn cut_short(
    meter: &mut Meter<'_, '_>,
    plan: &mut Plan,
    rest: &[Step],
    settled: bool,
    used: usize,
    budget: usize,
) -> usize {
    let pending: Vec<Step> = rest
        .first()
        .filter(|s| settled || plan.details[s.item].is_some())
        .into_iter()
        .chain(rest.iter().skip(1).filter(|s| {
            s.level > Detail::Meta
                && plan.details[s.item].is_some_and(|d| d.higher() == Some(s.level))
        }))
        .take(CUT_TRIES)
        .copied()
        .collect();
    pending
        .into_iter()
        .find_map(|step| fill_with_cut(meter, plan, step, used, budget))
        .unwrap_or(used)
}

/// Where the walk stopped: the first step that did not fit (`steps.len()` when all did),
/// whether any step was taken, and the tokens of the plan it rests on.
struct Walked {
    next: usize,
    walked: bool,
    used: usize,
}

/// Takes every step of the fill order while the document fits, leaving `plan` on the last
/// state that did.
fn walk(
    meter: &mut Meter<'_, '_>,
    plan: &mut Plan,
    steps: &[Step],
    related: &[bool],
    mut used: usize,
    budget: usize,
) -> Walked {
    let mut next = steps.len();
    let mut walked = false;
    for (k, step) in steps.iter().enumerate() {
        let old = plan.details[step.item];
        if old >= Some(step.level) {
            continue;
        }
        let before = plan.clone();
        plan.details[step.item] = Some(step.level);
        plan.listed = plan.names(related);
        let mut cost = meter.measure(plan);
        // The Omitted section can cost more than the meta lines of what it lists: then the
        // state is the same one with everything left at meta. Which of the two is cheaper
        // depends on the state only, never on the budget, so the walk stays one fixed
        // sequence; and once nothing is omitted, it stays so.
        if plan.omitted() > 0 {
            let rest_at_meta = plan.rest_at_meta();
            let rest_cost = meter.measure(&rest_at_meta);
            if rest_cost < cost {
                *plan = rest_at_meta;
                cost = rest_cost;
            }
        }
        if cost > budget {
            *plan = before;
            next = k;
            break;
        }
        used = cost;
        walked = true;
    }
    Walked { next, walked, used }
}

/// The document of a chosen plan, with each item's tokens.
fn finish(layout: &Layout<'_>, meter: &mut Meter<'_, '_>, plan: Plan, used: usize) -> Fitted {
    let units = layout.units(&plan.details, plan.listed, plan.cut.as_ref());
    let document = layout.document(&units);
    debug_assert_eq!(
        used,
        meter.counter.encoding().count(&document),
        "the sum of unit counts is the document's count"
    );
    let details: Vec<Option<Detail>> = (0..plan.details.len())
        .map(|i| layout.shown_at(&plan.details, plan.cut.as_ref(), i))
        .collect();
    let tokens = (0..details.len())
        .map(|i| match (details[i], &plan.cut) {
            (Some(_), Some(cut)) if cut.item == i => meter.unit(&Unit::Cut(cut.text.clone())),
            (Some(d), _) => meter.unit(&Unit::Block(i, d)),
            (None, _) => 0,
        })
        .collect();
    let omitted = plan.omitted();
    Fitted {
        listed: plan.listed.min(omitted),
        details,
        tokens,
        document,
        used,
        cut: plan.cut.map(|cut| cut.item),
    }
}

/// A candidate assignment: a detail per item and how many omitted ids are listed.
#[derive(Debug, Clone, PartialEq)]
struct Plan {
    details: Vec<Option<Detail>>,
    /// The first `listed` omitted items (in rank order) are listed; the rest are counted.
    listed: usize,
    /// The block cut short to fill the budget, if any (its item's detail is the level it
    /// was cut from).
    cut: Option<Cut>,
}

impl Plan {
    /// How many omitted items a state of the walk names: the omitted items that are not
    /// related material (they come first in rank order), at most [`LISTED`].
    fn names(&self, related: &[bool]) -> usize {
        self.details
            .iter()
            .zip(related)
            .filter(|(d, r)| d.is_none() && !**r)
            .count()
            .min(LISTED)
    }

    fn omitted(&self) -> usize {
        self.details.iter().filter(|d| d.is_none()).count()
    }

    /// This plan with every omitted item raised to meta.
    fn rest_at_meta(&self) -> Plan {
        Plan {
            details: self
                .details
                .iter()
                .map(|d| d.or(Some(Detail::Meta)))
                .collect(),
            listed: 0,
            cut: None,
        }
    }
}

/// The most omitted items, between `from` and `to`, that can be listed within the budget
/// (`from` if none more fit). Listing all of them drops the "… and N more" line, so that
/// is tried on its own.
fn most_listed(
    meter: &mut Meter<'_, '_>,
    plan: &mut Plan,
    from: usize,
    to: usize,
    budget: usize,
) -> usize {
    let omitted = plan.omitted();
    if to >= omitted {
        plan.listed = omitted;
        if meter.measure(plan) <= budget {
            return omitted;
        }
    }
    let (mut lo, mut hi) = (from, to.min(omitted.saturating_sub(1)).max(from));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        plan.listed = mid;
        if meter.measure(plan) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    plan.listed = lo;
    lo
}

/// Cuts the block of `step.item` at `step.level` to the longest prefix that keeps the
/// document within the budget, if that adds something worth reading. Returns the new count.
fn fill_with_cut(
    meter: &mut Meter<'_, '_>,
    plan: &mut Plan,
    step: Step,
    used: usize,
    budget: usize,
) -> Option<usize> {
    let layout = meter.layout;
    let Step { item: i, level } = step;
    let full = layout.cut_source(i, level);
    // The longest cut: one byte short of the block, or all of a source that already leaves
    // part of it out (a decision record's context).
    let most = match full.len() < layout.block(i, level).len() {
        true => full.len(),
        false => full.len().saturating_sub(1),
    };
    let old = plan.details[i];
    // A cut must say more than the level it replaces: past the heading and facts (a cut
    // meta line keeps the node's title), and through the summary it replaces.
    let least = match (old, level) {
        (Some(Detail::Summary), Detail::Full) => through_summary(layout, i, &full)?,
        _ => layout.head(&full, level) + 1,
    };
    plan.details[i] = Some(level);
    let measure_cut = |meter: &mut Meter<'_, '_>, plan: &mut Plan, keep: usize| {
        plan.cut = Some(layout.cut_block(i, level, keep));
        meter.measure(plan)
    };
    let give_up = |plan: &mut Plan| {
        plan.cut = None;
        plan.details[i] = old;
        None
    };
    // Nothing can fit when even the least is over.
    if least > most || measure_cut(meter, plan, least) > budget {
        return give_up(plan);
    }
    let (mut lo, mut hi) = (least, most);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if measure_cut(meter, plan, mid) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let filled = measure_cut(meter, plan, lo);
    if filled <= budget && filled > used {
        Some(filled)
    } else {
        give_up(plan)
    }
}

/// How much of `item`'s full text (`full`, as a cut shortens it: [`Layout::cut_source`]) a
/// cut must keep to hold what its summary says: through the summary's last line, its lines
/// found in order. `None` when the full text does not hold them in order.
fn through_summary(layout: &Layout<'_>, item: usize, full: &str) -> Option<usize> {
    let summary = layout.block(item, Detail::Summary);
    let text = summary
        .get(layout.body_span(&summary))
        .unwrap_or_default()
        .trim()
        .trim_end_matches('…')
        .trim_end();
    let mut at = layout.body_span(full).start;
    for line in text.lines() {
        // Heading marks may differ in depth; the words may not.
        let words = line.trim().trim_start_matches('#').trim();
        if words.is_empty() {
            continue;
        }
        at += full.get(at..)?.find(words)? + words.len();
    }
    Some(at + 1)
}

/// Measures documents exactly by adding the cached counts of their units.
struct Meter<'a, 'g> {
    layout: &'a Layout<'g>,
    counter: &'a Counter<'a>,
    /// Per item, the count of its block at each level (meta, summary, full) and of its
    /// line in the omitted list; a plain table, since a fit looks these up for every unit of
    /// every candidate document.
    cache: Vec<[usize; 4]>,
    /// The same, for the unit written last (trimmed of its blank line).
    last: Vec<[usize; 4]>,
    /// The counts of fixed texts (headings, lists) and cut blocks, whole and as the last
    /// unit: the same few recur in every candidate document.
    texts: HashMap<(Rc<str>, bool), usize>,
}

const UNCOUNTED: usize = usize::MAX;

/// How many blocks [`Meter::prime_within`] counts at once.
const PRIME_BATCH: usize = 16;

impl<'a, 'g> Meter<'a, 'g> {
    fn new(layout: &'a Layout<'g>, counter: &'a Counter<'a>) -> Meter<'a, 'g> {
        let items = layout.ranked().len();
        Meter {
            layout,
            counter,
            cache: vec![[UNCOUNTED; 4]; items],
            last: vec![[UNCOUNTED; 4]; items],
            texts: HashMap::new(),
        }
    }

    /// Counts every item's block at `level` up front, on all cores.
    fn prime(&mut self, level: Detail) {
        let blocks: Vec<(usize, Detail)> = (0..self.cache.len()).map(|i| (i, level)).collect();
        self.prime_blocks(&blocks);
    }

    /// Counts the blocks `whole` shows, best first and a batch at a time on all cores, until
    /// these blocks alone exceed `budget`: the whole cannot fit then, and the walk counts the
    /// blocks it reaches as it reaches them (a large context shows a few of its hundred
    /// candidates in full). Each block at the level the document shows it, which is not always
    /// the plan's: a rule's section is its line once its page is shown in full. Whether every
    /// block was counted.
    fn prime_within(&mut self, whole: &Plan, budget: usize) -> bool {
        let shown: Vec<(usize, Detail)> = (0..whole.details.len())
            .filter_map(|i| {
                let level = self
                    .layout
                    .shown_at(&whole.details, whole.cut.as_ref(), i)?;
                Some((i, level))
            })
            .collect();
        let mut sum = 0usize;
        for batch in shown.chunks(PRIME_BATCH) {
            sum = sum.saturating_add(self.prime_blocks(batch));
            if sum > budget {
                return false;
            }
        }
        true
    }

    /// Counts these blocks, on all cores; their sum.
    fn prime_blocks(&mut self, blocks: &[(usize, Detail)]) -> usize {
        let texts: Vec<Rc<str>> = blocks
            .iter()
            .map(|&(i, level)| self.layout.block(i, level))
            .collect();
        let texts: Vec<&str> = texts.iter().map(|b| &**b).collect();
        let counts = self.counter.count_all(&texts);
        for (&(i, level), &n) in blocks.iter().zip(&counts) {
            self.cache[i][Self::slot_of(level)] = n;
        }
        counts.iter().sum()
    }

    fn slot_of(level: Detail) -> usize {
        match level {
            Detail::Meta => 0,
            Detail::Summary => 1,
            Detail::Full => 2,
        }
    }

    /// The count of `unit`, or (`last`) of the unit as the document's last: with one newline
    /// at its end instead of its blank line.
    fn count(&mut self, unit: &Unit, last: bool) -> usize {
        let (i, slot) = match unit {
            Unit::Block(i, level) => (*i, Self::slot_of(*level)),
            Unit::Omitted(i) => (*i, 3),
            Unit::Text(text) | Unit::Cut(text) => {
                let key = (text.clone(), last);
                if let Some(&n) = self.texts.get(&key) {
                    return n;
                }
                let n = self.counter.count(&Self::as_written(text, last));
                self.texts.insert(key, n);
                return n;
            }
        };
        if let Some(n) = self.table(last).get(i).map(|c| c[slot]) {
            if n != UNCOUNTED {
                return n;
            }
        }
        let text = self.layout.text(unit);
        let n = self.counter.count(&Self::as_written(&text, last));
        if let Some(c) = self.table(last).get_mut(i) {
            c[slot] = n;
        }
        n
    }

    /// The counts of items' units written within the document, or (`last`) as its last.
    fn table(&mut self, last: bool) -> &mut Vec<[usize; 4]> {
        if last {
            &mut self.last
        } else {
            &mut self.cache
        }
    }

    /// A unit's text as the document holds it: the last ends with one newline.
    fn as_written(text: &str, last: bool) -> std::borrow::Cow<'_, str> {
        if last {
            format!("{}\n", text.trim_end_matches('\n')).into()
        } else {
            text.into()
        }
    }

    fn unit(&mut self, unit: &Unit) -> usize {
        self.count(unit, false)
    }

    /// The exact count of the document for these levels. The document ends with one
    /// newline rather than the blank line its last unit ends with, so the last unit is
    /// counted as trimmed.
    fn measure(&mut self, plan: &Plan) -> usize {
        let units = self
            .layout
            .units(&plan.details, plan.listed, plan.cut.as_ref());
        let Some((last, rest)) = units.split_last() else {
            return 0;
        };
        let body: usize = rest.iter().map(|u| self.count(u, false)).sum();
        body + self.count(last, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(
        classes: &[Class],
        identity: &[bool],
        requested: Detail,
    ) -> Vec<(usize, &'static str)> {
        order_in(classes, identity, requested, Spread::Depth, &[])
    }

    /// The fill order as (item, level) pairs, the target being item 0.
    fn order_in(
        classes: &[Class],
        identity: &[bool],
        requested: Detail,
        spread: Spread,
        long: &[bool],
    ) -> Vec<(usize, &'static str)> {
        fill_order(classes, identity, 0, requested, spread, long)
            .into_iter()
            .map(|s| (s.item, s.level.name()))
            .collect()
    }

    #[test]
    fn fill_order_takes_classes_in_turn_and_levels_across_each_class() {
        use Class::*;
        // target, identity, two hard constraints, one direct link, one distant node
        let classes = [Target, Target, Hard, Hard, Direct, Distant];
        let identity = [false, true, false, false, false, false];
        assert_eq!(
            order(&classes, &identity, Detail::Full),
            vec![
                (2, "meta"),
                (3, "meta"),
                (0, "summary"),
                (0, "full"),
                (1, "meta"),
                (2, "summary"),
                (3, "summary"),
                (2, "full"),
                (3, "full"),
                (4, "meta"),
                (4, "summary"),
                (4, "full"),
                (1, "summary"),
                (1, "full"),
                (5, "meta"),
                (5, "summary"),
                (5, "full"),
            ]
        );
    }

    #[test]
    fn in_breadth_every_node_gets_a_summary_before_a_softer_one_gets_full_text() {
        use Class::*;
        // target, another start, a hard constraint, a direct link, two related nodes
        let classes = [Target, Target, Hard, Direct, Related, Related];
        let identity = [false; 6];
        let order = order_in(&classes, &identity, Detail::Full, Spread::Breadth, &[]);
        assert_eq!(
            order,
            vec![
                (2, "meta"),
                (1, "meta"),
                (0, "summary"),
                (1, "summary"),
                (2, "summary"),
                (2, "full"),
                (3, "meta"),
                (3, "summary"),
                (4, "meta"),
                (4, "summary"),
                (5, "meta"),
                (5, "summary"),
                (0, "full"),
                (1, "full"),
                (3, "full"),
                (4, "full"),
                (5, "full"),
            ]
        );
    }

    #[test]
    fn in_breadth_a_long_rule_shows_its_summary_early_and_its_full_text_after_the_starts() {
        use Class::*;
        // target, a long hard constraint, a short one (a section of the long one), a related
        // node
        let classes = [Target, Hard, Hard, Related];
        let identity = [false; 4];
        let long = [false, true, false, false];
        let order = order_in(&classes, &identity, Detail::Full, Spread::Breadth, &long);
        assert_eq!(
            order,
            vec![
                (1, "meta"),
                (2, "meta"),
                (0, "summary"),
                (1, "summary"),
                (2, "summary"),
                (2, "full"),
                (3, "meta"),
                (3, "summary"),
                (0, "full"),
                (1, "full"),
                (3, "full"),
            ]
        );
        // By id or file the long rule keeps its place.
        let depth = order_in(&classes, &identity, Detail::Full, Spread::Depth, &long);
        let at = |step: (usize, &str)| depth.iter().position(|s| *s == step);
        assert!(at((1, "full")) < at((3, "meta")), "{depth:?}");
    }

    #[test]
    fn fill_order_stops_at_the_requested_detail() {
        use Class::*;
        let classes = [Target, Guidance, Distant];
        let identity = [false; 3];
        assert_eq!(
            order(&classes, &identity, Detail::Meta),
            vec![(1, "meta"), (2, "meta")]
        );
        assert_eq!(
            order(&classes, &identity, Detail::Summary),
            vec![
                (0, "summary"),
                (1, "meta"),
                (1, "summary"),
                (2, "meta"),
                (2, "summary")
            ]
        );
    }

    #[test]
    fn every_item_is_raised_one_level_at_a_time() {
        use Class::*;
        let classes = [
            Hard, Target, Distant, Direct, Guidance, Target, Hard, Related,
        ];
        let identity = [false, false, false, false, false, true, false, false];
        let spreads = [Spread::Depth, Spread::Breadth];
        for (requested, spread) in [Detail::Meta, Detail::Summary, Detail::Full]
            .into_iter()
            .flat_map(|r| spreads.map(|s| (r, s)))
        {
            let long = [true, false, false, false, false, false, false, false];
            let steps = fill_order(&classes, &identity, 1, requested, spread, &long);
            let mut level: Vec<Option<Detail>> = vec![None; classes.len()];
            level[1] = Some(Detail::Meta);
            for step in &steps {
                let expected = level[step.item].map_or(Some(Detail::Meta), Detail::higher);
                assert_eq!(Some(step.level), expected, "{step:?}");
                level[step.item] = Some(step.level);
            }
            assert!(level.iter().all(|l| *l == Some(requested)), "{level:?}");
        }
    }
}
