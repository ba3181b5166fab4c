//! Progress of long computations, reported by the library and shown by whoever installed a
//! [`Sink`] (the command line: a bar on a terminal, a periodic line otherwise).
//!
//! The library stays free of terminal code: a computation that may run for more than a few
//! seconds calls [`report`] at its natural steps (a host of the greedy construction, an
//! iteration of the threshold's outer root, a host count of a design). With no sink
//! installed — a library user, a test — a report is one relaxed atomic load.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

/// Where progress goes.
pub trait Sink: Send + Sync {
    /// `task` is at step `done` of `total` (when known); `note` says more (a bracket width,
    /// the last value). Called often: a sink rate-limits itself.
    fn report(&self, task: &str, done: u64, total: Option<u64>, note: &str);
}

static ENABLED: AtomicBool = AtomicBool::new(false);
static SINK: RwLock<Option<Arc<dyn Sink>>> = RwLock::new(None);

/// Installs `sink` for the rest of the process (replacing any other).
pub fn install(sink: Arc<dyn Sink>) {
    if let Ok(mut s) = SINK.write() {
        *s = Some(sink);
        ENABLED.store(true, Ordering::Release);
    }
}

/// Removes the sink (reports are dropped again).
pub fn uninstall() {
    ENABLED.store(false, Ordering::Release);
    if let Ok(mut s) = SINK.write() {
        *s = None;
    }
}

/// Whether a sink is installed (to skip building a note nobody reads).
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Reports progress to the installed sink, if any.
pub fn report(task: &str, done: u64, total: Option<u64>, note: &str) {
    if !enabled() {
        return;
    }
    if let Ok(s) = SINK.read() {
        if let Some(s) = s.as_ref() {
            s.report(task, done, total, note);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Collect(Mutex<Vec<(String, u64, Option<u64>)>>);
    impl Sink for Collect {
        fn report(&self, task: &str, done: u64, total: Option<u64>, _note: &str) {
            if let Ok(mut v) = self.0.lock() {
                v.push((task.to_string(), done, total));
            }
        }
    }

    #[test]
    fn reports_reach_the_sink_only_while_installed() {
        let c = Arc::new(Collect(Mutex::new(Vec::new())));
        report("before", 1, None, "");
        install(c.clone());
        report("during", 2, Some(5), "");
        uninstall();
        report("after", 3, None, "");
        let seen = c.0.lock().unwrap().clone();
        // Other tests of this binary run in parallel but none installs a sink: what this
        // sink saw is this test's one report.
        assert_eq!(seen, vec![("during".to_string(), 2, Some(5))]);
    }
}
