//! The budget fit (DESIGN §4): choose a detail level per node so that the rendered
//! document's exact token count is at most the budget.
//!
//! Every node starts at the requested detail. While the document is over budget, the
//! lowest-ranked node steps down full → summary → meta → omitted (the target stops at meta),
//! so hard constraints degrade last. Then spare room is given back to the highest-ranked
//! degraded nodes. Per-block counts only steer the search; every decision about the final
//! document is taken on the exact count of the whole document, so the result is never over.

use std::collections::HashMap;

use crate::model::Detail;
use crate::render::Layout;
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
}

/// The budget cannot hold even the target's meta line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a budget of {budget} tokens cannot hold even the target's meta line: the smallest budget that works is {minimum}")]
pub struct TooSmall {
    pub budget: usize,
    /// The exact count of the smallest document (target at meta, everything else omitted).
    pub minimum: usize,
}

/// Fits `items` ranked items (best first) into `budget`. `target` is the target's item.
pub fn fit(
    layout: &Layout<'_>,
    counter: &Counter,
    items: usize,
    target: usize,
    requested: Detail,
    budget: usize,
) -> Result<Fitted, TooSmall> {
    let mut costs = Costs {
        layout,
        counter,
        cache: HashMap::new(),
    };
    let floor = |i: usize| {
        if i == target {
            Some(Detail::Meta)
        } else {
            None
        }
    };
    let mut details: Vec<Option<Detail>> = vec![Some(requested); items];
    let mut document = layout.document(&details);
    let mut used = counter.count(&document);

    // Step down from the bottom of the ranking until the exact count fits.
    let mut cursor = items;
    while used > budget {
        let need = used - budget;
        let mut saved: isize = 0;
        let mut stepped = false;
        while saved < need as isize {
            while cursor > 0 && details[cursor - 1] == floor(cursor - 1) {
                cursor -= 1;
            }
            if cursor == 0 {
                break;
            }
            let i = cursor - 1;
            let old = details[i];
            let new = old.and_then(Detail::lower);
            saved += costs.of(i, old) as isize - costs.of(i, new) as isize;
            details[i] = new;
            stepped = true;
        }
        if !stepped {
            let mut minimal = vec![None; items];
            minimal[target] = Some(Detail::Meta);
            let minimum = counter.count(&layout.document(&minimal));
            return Err(TooSmall { budget, minimum });
        }
        document = layout.document(&details);
        used = counter.count(&document);
    }

    // Give spare room back, best-ranked first, checking the exact count after each pass.
    for _pass in 0..4 {
        let mut accepted: Vec<(usize, Option<Detail>)> = Vec::new();
        let mut estimate = used;
        for (i, slot) in details.iter_mut().enumerate() {
            while *slot < Some(requested) {
                let old = *slot;
                let new = match old {
                    None => Some(Detail::Meta),
                    Some(d) => d.higher(),
                };
                let grown = costs.of(i, new) as isize - costs.of(i, old) as isize;
                if estimate as isize + grown > budget as isize {
                    break;
                }
                estimate = (estimate as isize + grown) as usize;
                *slot = new;
                accepted.push((i, old));
            }
        }
        if accepted.is_empty() {
            break;
        }
        document = layout.document(&details);
        used = counter.count(&document);
        // Estimates are per block; undo the last upgrades until the exact count fits.
        while used > budget {
            let Some((i, old)) = accepted.pop() else {
                break;
            };
            details[i] = old;
            document = layout.document(&details);
            used = counter.count(&document);
        }
        if accepted.is_empty() {
            break;
        }
    }
    debug_assert!(used <= budget);
    let tokens = (0..items)
        .map(|i| match details[i] {
            Some(d) => counter.count(&layout.block(i, d)),
            None => 0,
        })
        .collect();
    Ok(Fitted {
        details,
        tokens,
        document,
        used,
    })
}

/// Estimated cost of an item at a level, as it appears in the document.
struct Costs<'a, 'g> {
    layout: &'a Layout<'g>,
    counter: &'a Counter,
    cache: HashMap<(usize, Option<Detail>), usize>,
}

impl Costs<'_, '_> {
    fn of(&mut self, item: usize, detail: Option<Detail>) -> usize {
        if let Some(&cost) = self.cache.get(&(item, detail)) {
            return cost;
        }
        let cost = match detail {
            Some(d) => {
                let block = self.layout.block(item, d);
                // The newline that separates blocks belongs to the cost of showing one.
                1 + self.counter.count(&block)
            }
            // An omitted node still costs its id in the omitted list.
            None => 1,
        };
        self.cache.insert((item, detail), cost);
        cost
    }
}
