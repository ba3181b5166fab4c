//! The command line's [`crate::progress::Sink`]: on a terminal, a spinner line on stderr
//! that appears after a second (quick runs never show one); otherwise one line on stderr
//! every [`LINE_INTERVAL`] (`TASKASSIGN_PROGRESS_SECS` overrides it), each starting with
//! `taskassign: progress:` so that a log reader can tell it from the result and the error.

use crate::progress::Sink;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Interval of the progress lines when stderr is not a terminal.
const LINE_INTERVAL: Duration = Duration::from_secs(30);
/// A terminal shows progress only for runs longer than this.
const BAR_DELAY: Duration = Duration::from_secs(1);
/// The bar's message is rebuilt at most this often.
const BAR_REFRESH: Duration = Duration::from_millis(100);

struct State {
    /// Each task's last report, in order of first appearance.
    tasks: Vec<(String, u64, Option<u64>, String)>,
    last: Instant,
    bar: Option<ProgressBar>,
}

/// Progress of one command.
pub(crate) struct CliProgress {
    command: &'static str,
    start: Instant,
    terminal: bool,
    interval: Duration,
    state: Mutex<State>,
}

impl CliProgress {
    /// Installs the sink for `command`; the guard removes it (and the bar) when dropped.
    pub(crate) fn install(command: &'static str) -> Guard {
        let interval = std::env::var("TASKASSIGN_PROGRESS_SECS")
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map_or(LINE_INTERVAL, Duration::from_secs_f64);
        let now = Instant::now();
        let p = Arc::new(CliProgress {
            command,
            start: now,
            terminal: std::io::stderr().is_terminal(),
            interval,
            state: Mutex::new(State {
                tasks: Vec::new(),
                last: now,
                bar: None,
            }),
        });
        crate::progress::install(p.clone());
        Guard(p)
    }

    fn line(&self, st: &State) -> String {
        st.tasks
            .iter()
            .map(|(t, d, n, note)| {
                let count = match n {
                    Some(n) => format!("{d}/{n}"),
                    None => format!("{d}"),
                };
                if note.is_empty() {
                    format!("{t} {count}")
                } else {
                    format!("{t} {count} ({note})")
                }
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

impl Sink for CliProgress {
    fn report(&self, task: &str, done: u64, total: Option<u64>, note: &str) {
        let Ok(mut st) = self.state.lock() else {
            return;
        };
        match st.tasks.iter_mut().find(|t| t.0 == task) {
            Some(t) => {
                t.1 = done;
                t.2 = total;
                t.3.clear();
                t.3.push_str(note);
            }
            None => st
                .tasks
                .push((task.to_string(), done, total, note.to_string())),
        }
        let now = Instant::now();
        if self.terminal {
            if now.duration_since(self.start) < BAR_DELAY
                || now.duration_since(st.last) < BAR_REFRESH
            {
                return;
            }
            st.last = now;
            let msg = self.line(&st);
            let bar = st.bar.get_or_insert_with(|| {
                let b = ProgressBar::new_spinner();
                if let Ok(style) =
                    ProgressStyle::with_template("{spinner} {prefix} {elapsed} {wide_msg}")
                {
                    b.set_style(style);
                }
                b.set_prefix(self.command);
                b.enable_steady_tick(BAR_REFRESH);
                b
            });
            bar.set_message(msg);
        } else if now.duration_since(st.last) >= self.interval {
            st.last = now;
            eprintln!(
                "taskassign: progress: {} after {:.0} s: {}",
                self.command,
                now.duration_since(self.start).as_secs_f64(),
                self.line(&st)
            );
        }
    }
}

/// Removes the command's progress sink when dropped.
pub(crate) struct Guard(Arc<CliProgress>);

impl Drop for Guard {
    fn drop(&mut self) {
        crate::progress::uninstall();
        if let Ok(mut st) = self.0.state.lock() {
            if let Some(b) = st.bar.take() {
                b.finish_and_clear();
            }
        }
    }
}
