//! Progress of long work on the command line: a bar with what is running and the time left when
//! standard error is a terminal (`indicatif`), plain lines when it is not (CI, logs, pipes), so
//! logs stay readable. Ctrl-C sets a cancel flag the long work polls, so it ends cleanly with
//! what it measured so far.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// One bar (terminal) or a line per new step (elsewhere).
pub struct Progress {
    bar: Option<ProgressBar>,
    last: String,
    what: &'static str,
}

/// Steps of the bar: fractions are shown to 0.1 %.
const STEPS: u64 = 1000;

impl Progress {
    /// Progress of `what` (`probe`, `validate`): a bar when stderr is a terminal, else lines.
    pub fn new(what: &'static str) -> Self {
        Self::with_bar(what, std::io::stderr().is_terminal())
    }

    /// As [`Self::new`], with the choice made by the caller (tests draw no bar).
    pub fn with_bar(what: &'static str, bar: bool) -> Self {
        let bar = bar.then(|| {
            let b = ProgressBar::new(STEPS);
            let style = ProgressStyle::with_template("{prefix} [{bar:30}] {percent:>3}% {elapsed}/{eta} left  {msg}")
                .map_or_else(|_| ProgressStyle::default_bar(), |s| s.progress_chars("=> "));
            b.set_style(style);
            b.set_prefix(what);
            b
        });
        Progress { bar, last: String::new(), what }
    }

    /// Whether a bar is drawn (else plain lines).
    pub fn is_bar(&self) -> bool {
        self.bar.is_some()
    }

    /// Moves to `fraction` (0 to 1) of the work, with a line of what runs now. Without a bar, a
    /// line is printed only when the message changes.
    pub fn update(&mut self, fraction: f64, message: &str) {
        match &self.bar {
            Some(b) => {
                let f = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
                b.set_position((f * STEPS as f64).round() as u64);
                b.set_message(message.to_owned());
            }
            None if message != self.last => {
                eprintln!("kraftwerk {}: {message}", self.what);
                message.clone_into(&mut self.last);
            }
            None => {}
        }
    }

    /// A step of work whose share of the whole is not known (the links' copy sizes): the bar
    /// shows it with the time elapsed; without a bar a line is printed per new step.
    pub fn step(&mut self, message: &str) {
        match &self.bar {
            Some(b) => {
                b.set_message(message.to_owned());
                b.tick();
            }
            None if message != self.last => {
                eprintln!("kraftwerk {}: {message}", self.what);
                message.clone_into(&mut self.last);
            }
            None => {}
        }
    }

    /// Ends the bar (it disappears, leaving the report clean).
    pub fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}

/// Sets `cancel` on Ctrl-C (SIGINT, SIGTERM), so long work stops at its next check and reports
/// what it has. The `ctrlc` crate installs the handler (signal handling needs `unsafe`, which
/// this crate denies); a second install in one process is refused and harmless.
pub fn cancel_on_ctrl_c(cancel: &Arc<AtomicBool>) {
    let flag = Arc::clone(cancel);
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::Relaxed) {
            // A second Ctrl-C: the user wants out now.
            std::process::exit(130);
        }
        eprintln!("\nkraftwerk: stopping (Ctrl-C again to quit at once)…");
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_terminal_lines_are_printed_once_per_step_and_no_bar_is_drawn() {
        let mut p = Progress::with_bar("probe", false);
        assert!(!p.is_bar());
        p.update(0.1, "fp16");
        assert_eq!(p.last, "fp16");
        p.update(0.2, "fp16");
        assert_eq!(p.last, "fp16", "same step: no new line");
        p.update(0.5, "bf16");
        assert_eq!(p.last, "bf16");
        p.finish();
    }

    #[test]
    fn a_bar_clamps_fractions_and_survives_nonsense() {
        let mut p = Progress::with_bar("probe", true);
        assert!(p.is_bar());
        for f in [-1.0, 0.5, 2.0, f64::NAN] {
            p.update(f, "x");
        }
        let pos = p.bar.as_ref().map(ProgressBar::position);
        assert_eq!(pos, Some(0), "NaN maps to the start");
        p.update(2.0, "x");
        assert_eq!(p.bar.as_ref().map(ProgressBar::position), Some(STEPS));
        p.finish();
    }
}
