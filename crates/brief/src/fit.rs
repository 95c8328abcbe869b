//! The budget fit (DESIGN §4): choose a detail level per node so that the rendered
//! document's exact token count is at most the budget.
//!
//! Every node starts at the requested detail. While the document is over budget, the
//! lowest-ranked node steps down full → summary → meta → omitted (the target stops at meta),
//! so hard constraints degrade last. Then spare room is given back to the highest-ranked
//! degraded nodes. A document is measured exactly as the sum of its units' counts (see
//! [`Layout::units`]), each counted once and cached, so every candidate is measured exactly
//! and the result is never over.

use std::collections::HashMap;

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
    counter: &Counter,
    items: usize,
    target: usize,
    requested: Detail,
    budget: usize,
) -> Result<Fitted, TooSmall> {
    let mut meter = Meter {
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
    let mut listed: Option<usize> = None;
    let mut used = meter.measure(&details, listed);

    // Step down from the bottom of the ranking, each node all the way before the next.
    let mut cursor = items;
    while used > budget {
        while cursor > 0 && details[cursor - 1] == floor(cursor - 1) {
            cursor -= 1;
        }
        if cursor == 0 {
            break;
        }
        let i = cursor - 1;
        details[i] = details[i].and_then(Detail::lower);
        used = meter.measure(&details, listed);
    }
    if used > budget {
        // Everything is at its floor: list fewer omitted ids (the rest are counted).
        let omitted = details.iter().filter(|d| d.is_none()).count();
        let fits =
            |meter: &mut Meter<'_, '_>, cap: usize| meter.measure(&details, Some(cap)) <= budget;
        if !fits(&mut meter, 0) {
            let minimum = meter.measure(&details, Some(0));
            return Err(TooSmall { budget, minimum });
        }
        let (mut lo, mut hi) = (0, omitted);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if fits(&mut meter, mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        listed = Some(lo);
        used = meter.measure(&details, listed);
    }

    // Give spare room back, best-ranked first; a node takes each level that still fits.
    if listed.is_none() {
        for i in 0..items {
            while details[i] < Some(requested) {
                let old = details[i];
                details[i] = match old {
                    None => Some(Detail::Meta),
                    Some(d) => d.higher(),
                };
                let grown = meter.measure(&details, listed);
                if grown <= budget {
                    used = grown;
                } else {
                    details[i] = old;
                    break;
                }
            }
        }
    }

    let units = layout.units(&details, listed);
    let document = layout.document(&units);
    debug_assert_eq!(
        used,
        counter.encoding().count(&document),
        "the sum of unit counts is the document's count"
    );
    let tokens = (0..items)
        .map(|i| match details[i] {
            Some(d) => meter.unit(&Unit::Block(i, d)),
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

/// Measures documents exactly by adding the cached counts of their units.
struct Meter<'a, 'g> {
    layout: &'a Layout<'g>,
    counter: &'a Counter,
    cache: HashMap<(usize, Option<Detail>), usize>,
}

impl Meter<'_, '_> {
    fn unit(&mut self, unit: &Unit) -> usize {
        let key = match unit {
            Unit::Block(i, d) => (*i, Some(*d)),
            Unit::Omitted(i) => (*i, None),
            Unit::Text(text) => return self.counter.count(text),
        };
        if let Some(&n) = self.cache.get(&key) {
            return n;
        }
        let n = self.counter.count(&self.layout.text(unit));
        self.cache.insert(key, n);
        n
    }

    /// The exact count of the document for these levels. The document ends with one
    /// newline rather than the blank line its last unit ends with, so the last unit is
    /// counted as trimmed.
    fn measure(&mut self, details: &[Option<Detail>], listed: Option<usize>) -> usize {
        let units = self.layout.units(details, listed);
        let Some((last, rest)) = units.split_last() else {
            return 0;
        };
        let body: usize = rest.iter().map(|u| self.unit(u)).sum();
        let text = self.layout.text(last);
        let trimmed = format!("{}\n", text.trim_end_matches('\n'));
        body + self.counter.count(&trimmed)
    }
}
