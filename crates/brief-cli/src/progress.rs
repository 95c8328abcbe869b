//! Progress of long work on stderr: an indicatif bar, only on a terminal, never with
//! `--quiet` or in a pipe, plain (no colour) when `NO_COLOR` is set.

use std::io::IsTerminal;

use brief::{Step, Unit};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Work smaller than this many files finishes before a bar would be worth drawing.
const MIN_FILES: usize = 1000;
/// Likewise for the nodes of one Tana export (about a second's work on two cores).
const MIN_NODES: usize = 100_000;
/// Likewise for texts sent to an embeddings server (a few seconds' work on a local one).
const MIN_TEXTS: usize = 64;

/// A bar that appears once the work is known to be long: one for the files of a refresh and,
/// inside it, one for the nodes of a large Tana export.
pub(crate) struct Bar {
    enabled: bool,
    bar: Option<(Unit, ProgressBar)>,
}

/// Whether a bar may be drawn: stderr is a terminal and the user did not ask for quiet.
pub(crate) fn enabled(stderr_is_terminal: bool, quiet: bool) -> bool {
    stderr_is_terminal && !quiet
}

/// The bar's template for what it counts: colour unless `NO_COLOR` is set to anything
/// non-empty (<https://no-color.org>).
pub(crate) fn template(no_color: bool, unit: Unit) -> &'static str {
    match (no_color, unit) {
        (true, Unit::Files) => "{msg} [{bar:40}] {pos}/{len} files ({eta} left)",
        (false, Unit::Files) => "{msg} [{bar:40.cyan/blue}] {pos}/{len} files ({eta} left)",
        (true, Unit::Nodes) => "{msg} [{bar:40}] {pos}/{len} nodes ({eta} left)",
        (false, Unit::Nodes) => "{msg} [{bar:40.cyan/blue}] {pos}/{len} nodes ({eta} left)",
        (true, Unit::Vectors) => "{msg} [{bar:40}] {pos}/{len} texts ({eta} left)",
        (false, Unit::Vectors) => "{msg} [{bar:40.cyan/blue}] {pos}/{len} texts ({eta} left)",
    }
}

/// Whether work of this size gets a bar.
pub(crate) fn long(step: Step) -> bool {
    match step.unit {
        Unit::Files => step.total >= MIN_FILES,
        Unit::Nodes => step.total >= MIN_NODES,
        Unit::Vectors => step.total >= MIN_TEXTS,
    }
}

impl Bar {
    /// A bar for this process's stderr.
    pub(crate) fn new(quiet: bool) -> Bar {
        Bar {
            enabled: enabled(std::io::stderr().is_terminal(), quiet),
            bar: None,
        }
    }

    /// `step.done` of `step.total` files (or export nodes) are finished.
    pub(crate) fn update(&mut self, step: Step) {
        if !self.enabled || !long(step) {
            return;
        }
        // A new unit (an export's nodes after files, or files again after it) gets its own bar.
        if self
            .bar
            .as_ref()
            .is_some_and(|(unit, _)| *unit != step.unit)
        {
            self.finish();
        }
        let (_, bar) = self.bar.get_or_insert_with(|| {
            let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            let bar = ProgressBar::with_draw_target(
                Some(step.total as u64),
                ProgressDrawTarget::stderr(),
            );
            if let Ok(style) = ProgressStyle::with_template(template(no_color, step.unit)) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message(match step.unit {
                Unit::Files => "indexing",
                Unit::Nodes => "indexing the Tana export",
                Unit::Vectors => "embedding",
            });
            (step.unit, bar)
        });
        bar.set_length(step.total as u64);
        bar.set_position(step.done as u64);
        // Done: cleared now, not left on the terminal while the command goes on.
        if step.done >= step.total {
            self.finish();
        }
    }

    /// Clears the bar, if one was drawn.
    pub(crate) fn finish(&mut self) {
        if let Some((_, bar)) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_on_a_terminal_and_never_when_quiet() {
        assert!(enabled(true, false));
        assert!(!enabled(true, true));
        assert!(!enabled(false, false), "a pipe gets no bar");
        assert!(!enabled(false, true));
    }

    #[test]
    fn no_color_drops_the_colours() {
        for unit in [Unit::Files, Unit::Nodes, Unit::Vectors] {
            assert!(!template(true, unit).contains("cyan"));
            assert!(template(false, unit).contains("cyan"));
        }
        assert!(template(true, Unit::Nodes).contains("nodes"));
    }

    #[test]
    fn files_and_export_nodes_have_their_own_thresholds() {
        let step = |total, unit| Step {
            done: 0,
            total,
            unit,
        };
        assert!(long(step(1000, Unit::Files)));
        assert!(!long(step(999, Unit::Files)));
        assert!(!long(step(50_000, Unit::Nodes)), "a small export is quick");
        assert!(long(step(303_814, Unit::Nodes)));
        assert!(long(step(64, Unit::Vectors)), "embedding is slow");
        assert!(!long(step(63, Unit::Vectors)));
    }

    #[test]
    fn a_bar_off_the_terminal_draws_nothing() {
        let mut bar = Bar {
            enabled: false,
            bar: None,
        };
        bar.update(Step {
            done: 10,
            total: 100_000,
            unit: Unit::Files,
        });
        assert!(bar.bar.is_none());
        bar.finish();
    }
}
