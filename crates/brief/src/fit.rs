//! The budget fit (DESIGN §4): choose a detail level per node so that the rendered
//! document's exact token count is at most the budget.
//!
//! Every node starts at the requested detail. While the document is over budget, the
//! lowest-ranked node steps down full → summary → meta → omitted (the target stops at meta),
//! so hard constraints degrade last. Then spare room is given back to the highest-ranked
//! degraded nodes. A document is measured exactly as the sum of its units' counts (see
//! [`Layout::units`]), each counted once and cached, so every candidate is measured exactly
//! and the result is never over.

use crate::model::Detail;
use crate::render::{Layout, Unit};
use crate::tokens::Counter;

/// The chosen levels and the document they give.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// Per ranked item: its detail, or `None` when omitted.
    pub details: Vec<Option<Detail>>,
    /// Per ranked item: the tokens of its block at the chosen detail (0 when omitted).
    pub tokens: Vec<usize>,
    pub document: String,
    /// The exact token count of `document`.
    pub used: usize,
    /// The item whose block was cut short to fill the budget, if any.
    pub cut: Option<usize>,
}

/// The budget cannot hold even the target's meta line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a budget of {budget} tokens cannot hold even the target's meta line: the smallest budget that works is {minimum}")]
pub struct TooSmall {
    pub budget: usize,
    /// The exact count of the smallest document (target at meta, everything else omitted
    /// and only counted).
    pub minimum: usize,
}

/// Fits `items` ranked items (best first) into `budget`. `target` is the target's item.
pub fn fit(
    layout: &Layout<'_>,
    counter: &Counter<'_>,
    items: usize,
    target: usize,
    requested: Detail,
    budget: usize,
) -> Result<Fitted, TooSmall> {
    let mut meter = Meter {
        layout,
        counter,
        cache: vec![[UNCOUNTED; 4]; items],
    };
    // Count every block at the requested level up front, on all cores.
    let blocks: Vec<_> = (0..items).map(|i| layout.block(i, requested)).collect();
    counter.prime(&blocks.iter().map(|b| &**b).collect::<Vec<&str>>());
    let mut plan = Plan {
        details: vec![Some(requested); items],
        listed: None,
    };
    let mut used = meter.measure(&plan);

    // Step down from the bottom of the ranking, each node all the way before the next; the
    // target stops at meta.
    let floor = |i: usize| {
        if i == target {
            Some(Detail::Meta)
        } else {
            None
        }
    };
    let mut cursor = items;
    while used > budget {
        while cursor > 0 && plan.details[cursor - 1] == floor(cursor - 1) {
            cursor -= 1;
        }
        if cursor == 0 {
            break;
        }
        let i = cursor - 1;
        plan.details[i] = plan.details[i].and_then(Detail::lower);
        used = meter.measure(&plan);
    }
    if used > budget {
        (plan, used) = smallest(&mut meter, items, target, requested, budget)?;
    }

    // Give spare room back, best-ranked first; a node takes each level that still fits.
    for i in 0..items {
        while plan.details[i] < Some(requested) {
            let old = plan.details[i];
            plan.details[i] = match old {
                None => Some(Detail::Meta),
                Some(d) => d.higher(),
            };
            let grown = meter.measure(&plan);
            if grown <= budget {
                used = grown;
            } else {
                plan.details[i] = old;
                break;
            }
        }
    }

    // What is left is smaller than any whole next level: fill it with the best-ranked
    // degraded node's next level, cut short and marked as cut.
    let mut cut = None;
    for i in 0..items {
        let current = plan.details[i];
        if current >= Some(requested) {
            continue;
        }
        let Some(next) = current.map_or(Some(Detail::Meta), Detail::higher) else {
            continue;
        };
        if let Some(filled) = fill_with_cut(&mut meter, &mut plan, i, next, used, budget) {
            used = filled;
            cut = Some(i);
            break;
        }
    }

    let units = layout.units(&plan.details, plan.listed);
    let document = layout.document(&units);
    debug_assert_eq!(
        used,
        counter.encoding().count(&document),
        "the sum of unit counts is the document's count"
    );
    let tokens = (0..items)
        .map(|i| match plan.details[i] {
            Some(d) => meter.unit(&Unit::Block(i, d)),
            None => 0,
        })
        .collect();
    Ok(Fitted {
        details: plan.details,
        tokens,
        document,
        used,
        cut,
    })
}

/// A candidate assignment: a detail per item and how many omitted ids are listed.
#[derive(Debug, Clone, PartialEq)]
struct Plan {
    details: Vec<Option<Detail>>,
    /// `None` lists every omitted id; `Some(k)` lists the first k and counts the rest.
    listed: Option<usize>,
}

/// When stepping down did not reach the budget: the smallest documents there are (the target
/// at each level with the rest at meta, or omitted and listed or only counted). Returns the
/// one that keeps the most and fits, or the smallest budget that would work.
fn smallest(
    meter: &mut Meter<'_, '_>,
    items: usize,
    target: usize,
    requested: Detail,
    budget: usize,
) -> Result<(Plan, usize), TooSmall> {
    let mut target_levels = vec![Detail::Meta];
    target_levels.extend(
        [Detail::Summary, Detail::Full]
            .into_iter()
            .filter(|d| *d <= requested),
    );
    let mut minimum = usize::MAX;
    let mut best: Option<(Plan, usize)> = None;
    // Most kept first: the rest at meta, then omitted but listed, then omitted and counted.
    for rest in [Some(Detail::Meta), None] {
        for listed in [None, Some(0)] {
            if rest.is_some() && listed.is_some() {
                continue;
            }
            for &level in target_levels.iter().rev() {
                let mut details = vec![rest; items];
                details[target] = Some(level);
                let mut plan = Plan { details, listed };
                let used = meter.measure(&plan);
                minimum = minimum.min(used);
                if used <= budget && best.is_none() {
                    if listed == Some(0) {
                        // List as many omitted ids as still fit.
                        let omitted = plan.details.iter().filter(|d| d.is_none()).count();
                        let (mut lo, mut hi) = (0, omitted);
                        while lo < hi {
                            let mid = (lo + hi).div_ceil(2);
                            plan.listed = Some(mid);
                            if meter.measure(&plan) <= budget {
                                lo = mid;
                            } else {
                                hi = mid - 1;
                            }
                        }
                        plan.listed = Some(lo);
                    }
                    let used = meter.measure(&plan);
                    best = Some((plan, used));
                }
            }
        }
    }
    best.ok_or(TooSmall { budget, minimum })
}

/// Cuts item `i`'s block at level `next` to the longest prefix that keeps the document within
/// the budget, if that adds anything. Returns the new count.
fn fill_with_cut(
    meter: &mut Meter<'_, '_>,
    plan: &mut Plan,
    i: usize,
    next: Detail,
    used: usize,
    budget: usize,
) -> Option<usize> {
    let layout = meter.layout;
    let full = layout.full_block(i, next);
    // A cut must keep some content past the heading and facts, or it says less than the
    // level it replaces.
    let head = match next {
        Detail::Meta => full.len().min(40),
        _ => full.find("\n\n").map_or(full.len(), |at| at + 2),
    };
    let full_len = full.len();
    let old = plan.details[i];
    plan.details[i] = Some(next);
    let measure_cut = |meter: &mut Meter<'_, '_>, keep: usize| {
        layout.set_cut(i, layout.cut_block(i, next, keep));
        meter.measure(plan)
    };
    let (mut lo, mut hi) = (0, full_len);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if measure_cut(meter, mid) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let filled = measure_cut(meter, lo);
    if lo > head + 20 && filled <= budget && filled > used {
        Some(filled)
    } else {
        layout.clear_cut();
        plan.details[i] = old;
        None
    }
}

/// Measures documents exactly by adding the cached counts of their units.
struct Meter<'a, 'g> {
    layout: &'a Layout<'g>,
    counter: &'a Counter<'a>,
    /// Per item, the count of its block at each level (meta, summary, full) and of its
    /// line in the omitted list; a plain table, since a fit looks these up for every unit of
    /// every candidate document.
    cache: Vec<[usize; 4]>,
}

const UNCOUNTED: usize = usize::MAX;

impl Meter<'_, '_> {
    fn unit(&mut self, unit: &Unit) -> usize {
        if let Unit::Block(i, _) = unit {
            if self.layout.cut_item() == Some(*i) {
                return self.counter.count(&self.layout.text(unit));
            }
        }
        let (i, slot) = match unit {
            Unit::Block(i, Detail::Meta) => (*i, 0),
            Unit::Block(i, Detail::Summary) => (*i, 1),
            Unit::Block(i, Detail::Full) => (*i, 2),
            Unit::Omitted(i) => (*i, 3),
            Unit::Text(text) => return self.counter.count(text),
        };
        if let Some(&n) = self.cache.get(i).map(|c| &c[slot]) {
            if n != UNCOUNTED {
                return n;
            }
        }
        let n = self.counter.count(&self.layout.text(unit));
        if let Some(c) = self.cache.get_mut(i) {
            c[slot] = n;
        }
        n
    }

    /// The exact count of the document for these levels. The document ends with one
    /// newline rather than the blank line its last unit ends with, so the last unit is
    /// counted as trimmed.
    fn measure(&mut self, plan: &Plan) -> usize {
        let units = self.layout.units(&plan.details, plan.listed);
        let Some((last, rest)) = units.split_last() else {
            return 0;
        };
        let body: usize = rest.iter().map(|u| self.unit(u)).sum();
        let text = self.layout.text(last);
        let trimmed = format!("{}\n", text.trim_end_matches('\n'));
        body + self.counter.count(&trimmed)
    }
}
