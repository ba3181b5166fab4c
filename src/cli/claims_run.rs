//! Running the claim catalogue for `check` and `tables`: the default folders, a progress
//! bar, and Ctrl-C (the claims in progress finish and the report of what ran is written).

use crate::claims::run::run_until;
use crate::claims::ClaimResult;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Default folder of claim files.
pub(crate) const DEFAULT_CLAIMS_DIR: &str = "proofs-check";

/// Default folder of figure definitions.
pub(crate) const DEFAULT_FIGURES_DIR: &str = "data/figures";

/// Exit status of a run stopped by Ctrl-C (128 + SIGINT, the shell's convention).
pub(crate) const EXIT_INTERRUPTED: i32 = 130;

/// Set by the first Ctrl-C: no new claim starts.
static STOP: AtomicBool = AtomicBool::new(false);
/// Ctrl-C presses seen.
static PRESSES: AtomicUsize = AtomicUsize::new(0);

/// The first Ctrl-C lets the claims in progress finish and the report of what is done be
/// written (marked incomplete, exit 130); a second stops at once.
pub(crate) fn install_interrupt_handler() {
    // If a handler cannot be installed, Ctrl-C keeps its default (stop at once).
    let _ = ctrlc::set_handler(|| {
        if PRESSES.fetch_add(1, Ordering::SeqCst) == 0 {
            STOP.store(true, Ordering::SeqCst);
            eprintln!("\ntaskassign: interrupted: finishing the claims in progress, then writing what is done (Ctrl-C again to stop at once)");
        } else {
            std::process::exit(EXIT_INTERRUPTED);
        }
    });
}

/// Whether Ctrl-C stopped new claims from starting.
pub(crate) fn interrupted() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Runs claims with a progress bar on stderr when it is a terminal.
pub(crate) fn run_claims_with_progress(claims: &[crate::claims::Claim]) -> Vec<ClaimResult> {
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(claims.len() as u64);
        if let Ok(st) = ProgressStyle::with_template("{bar:30} {pos}/{len} claims  {msg}") {
            b.set_style(st);
        }
        Some(b)
    } else {
        None
    };
    let tick = |r: &ClaimResult| {
        if let Some(b) = &bar {
            b.set_message(r.claim.id.clone());
            b.inc(1);
        }
    };
    let rs = run_until(claims, &tick, &STOP);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    rs
}
