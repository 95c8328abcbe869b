//! Progress of long work on stderr: an indicatif bar, only on a terminal, never with
//! `--quiet` or in a pipe, plain (no colour) when `NO_COLOR` is set.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Work smaller than this many files finishes before a bar would be worth drawing.
const MIN_FILES: usize = 1000;

/// A bar that appears once the work is known to be long.
pub struct Bar {
    enabled: bool,
    bar: Option<ProgressBar>,
}

/// Whether a bar may be drawn: stderr is a terminal and the user did not ask for quiet.
pub fn enabled(stderr_is_terminal: bool, quiet: bool) -> bool {
    stderr_is_terminal && !quiet
}

/// The bar's template: colour unless `NO_COLOR` is set to anything non-empty
/// (<https://no-color.org>).
pub fn template(no_color: bool) -> &'static str {
    if no_color {
        "{msg} [{bar:40}] {pos}/{len} files ({eta} left)"
    } else {
        "{msg} [{bar:40.cyan/blue}] {pos}/{len} files ({eta} left)"
    }
}

impl Bar {
    /// A bar for this process's stderr.
    pub fn new(quiet: bool) -> Bar {
        Bar {
            enabled: enabled(std::io::stderr().is_terminal(), quiet),
            bar: None,
        }
    }

    /// `done` of `total` files are finished.
    pub fn update(&mut self, done: usize, total: usize) {
        if !self.enabled || total < MIN_FILES {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(template(no_color)) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message("indexing");
            bar
        });
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    }

    /// Clears the bar, if one was drawn.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
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
        assert!(!template(true).contains("cyan"));
        assert!(template(false).contains("cyan"));
    }

    #[test]
    fn a_bar_off_the_terminal_draws_nothing() {
        let mut bar = Bar {
            enabled: false,
            bar: None,
        };
        bar.update(10, 100_000);
        assert!(bar.bar.is_none());
        bar.finish();
    }
}
