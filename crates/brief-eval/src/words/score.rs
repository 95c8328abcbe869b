//! The metrics of one document against one task's labels.

use super::methods::Shown;
use super::project::Presence;

/// A task's labels as files of the project: `None` for a labelled file brief does not read
/// (no method can show it; it still counts against recall).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// The start documents.
    pub start: Vec<Option<usize>>,
    /// The must documents.
    pub must: Vec<Option<usize>>,
    /// The never documents.
    pub never: Vec<Option<usize>>,
}

/// How good one document is for one task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TaskScore {
    /// Whether the document starts from a labelled start document (`None` for a method
    /// without a start).
    pub start_hit: Option<bool>,
    /// The share of must documents shown with text.
    pub must_text: f64,
    /// The share of must documents shown at all (for brief, a meta line counts).
    pub must_named: f64,
    /// The share of never documents shown with text (`None` when none are labelled).
    pub never_text: Option<f64>,
    /// The share of the document's tokens spent on must documents.
    pub must_share: f64,
    /// The document's exact token count.
    pub used: usize,
}

/// Scores `shown` against `labels`; `has_start` says whether the method has a start.
pub fn score(shown: &Shown, labels: &Resolved, has_start: bool) -> TaskScore {
    let at_least = |files: &[Option<usize>], presence: Presence| {
        let hits = files
            .iter()
            .filter(|file| {
                file.and_then(|f| shown.files.get(&f))
                    .is_some_and(|s| s.presence >= presence)
            })
            .count();
        share(hits, files.len())
    };
    let must_tokens: usize = labels
        .must
        .iter()
        .flatten()
        .filter_map(|f| shown.files.get(f))
        .map(|s| s.tokens)
        .sum();
    TaskScore {
        start_hit: has_start.then(|| {
            shown
                .start
                .is_some_and(|start| labels.start.contains(&Some(start)))
        }),
        must_text: at_least(&labels.must, Presence::Text),
        must_named: at_least(&labels.must, Presence::Named),
        never_text: (!labels.never.is_empty()).then(|| at_least(&labels.never, Presence::Text)),
        must_share: share(must_tokens, shown.used).min(1.0),
        used: shown.used,
    }
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::methods::FileShown;

    fn shown(files: &[(usize, usize, Presence)], used: usize, start: Option<usize>) -> Shown {
        let mut shown = Shown {
            used,
            start,
            ..Shown::default()
        };
        for &(file, tokens, presence) in files {
            shown.files.insert(file, FileShown { tokens, presence });
        }
        shown
    }

    #[test]
    fn text_named_never_and_share_are_counted_per_file() {
        let labels = Resolved {
            start: vec![Some(0)],
            must: vec![Some(0), Some(1), Some(2), None],
            never: vec![Some(3), Some(4)],
        };
        let doc = shown(
            &[
                (0, 100, Presence::Text),
                (1, 10, Presence::Named),
                (3, 50, Presence::Text),
                (4, 5, Presence::Named),
            ],
            200,
            Some(0),
        );
        let s = score(&doc, &labels, true);
        assert_eq!(s.start_hit, Some(true));
        assert_eq!(s.must_text, 0.25);
        assert_eq!(s.must_named, 0.5);
        assert_eq!(s.never_text, Some(0.5));
        assert_eq!(s.must_share, 110.0 / 200.0);
        assert_eq!(score(&doc, &labels, false).start_hit, None);
        let elsewhere = shown(&[], 0, Some(7));
        let s = score(&elsewhere, &labels, true);
        assert_eq!(
            (s.start_hit, s.must_text, s.must_share),
            (Some(false), 0.0, 0.0)
        );
        let no_never = Resolved {
            never: vec![],
            ..labels
        };
        assert_eq!(score(&doc, &no_never, true).never_text, None);
    }
}
