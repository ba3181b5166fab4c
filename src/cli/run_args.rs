//! The simulation options of the commands that simulate, parsed once into a
//! [`RunOptions`] over the model's defaults (the same defaults as the claims'): the
//! job-counting simulators (`simulate`, `redundancy simulate`: [`JobRunArgs`]) and the
//! one that runs for a time (`jsq simulate`: [`TimeRunArgs`]). The ranges are checked by
//! [`RunOptions::validate`] in each model's runner.

use super::bad;
use crate::sim::warmup::WarmupRule;
use crate::sim::{
    Length, LengthRule, RunOptions, Start, DEFAULT_JOBS, DEFAULT_REPLICATIONS, DEFAULT_SEED,
    DEFAULT_WARMUP_FRACTION,
};

/// The warm-up rule of a run: as given when the caller gave `--warmup`, else the
/// defaults'.
fn rule(given: bool, defaults: &RunOptions) -> WarmupRule {
    if given {
        WarmupRule::Given
    } else {
        defaults.warmup_rule
    }
}
use clap::Args;

/// `--replications` as given (an integer; the range is the runner's to check).
fn replications(r: i64) -> Result<usize, (i32, String)> {
    usize::try_from(r).map_err(|_| bad(crate::sim::bad_replications(r)))
}

/// A count such as `--jobs 1e6` (a whole number ≥ 0; the range is the runner's to check).
fn count(what: &str, s: &str) -> Result<u64, (i32, String)> {
    crate::num::parse_count(s, what, 0, u64::MAX).map_err(|_| {
        bad(format!(
            "{what} must be a whole number (e.g. 1000000 or 1e6), got '{}'",
            s.trim()
        ))
    })
}

/// A time such as `--time 100` (a number; the range is the runner's to check).
fn time(what: &str, s: &str) -> Result<f64, (i32, String)> {
    s.trim()
        .parse::<f64>()
        .map_err(|_| bad(format!("{what} must be a number, got '{s}'")))
}

/// Options of a simulation that counts jobs.
#[derive(Args, Debug)]
pub(super) struct JobRunArgs {
    /// Measured jobs per replication (an integer, e.g. 1000000 or 1e6) [default: 1000000,
    /// lengthened where the job-size law asks for it: when more than half of E[X^4] (which
    /// drives the variance of a simulated mean waiting) comes from sizes a replication
    /// meets less than once on average, each replication runs the jobs that meet them
    /// (at most 20 times the default, within the event budget); the record's length_rule
    /// and length_reason say which length ran and why]. Given, it is run as given.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    jobs: Option<String>,
    /// Jobs discarded at the start of each replication [default: jobs/10]; the record
    /// reports the MSER-5 truncation point (White 1997) and tests the measured window's
    /// stationarity.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    warmup: Option<String>,
    /// Independent replications (>= 2), run in parallel.
    #[arg(long, value_name = "R", default_value_t = DEFAULT_REPLICATIONS as i64, allow_hyphen_values = true)]
    replications: i64,
    /// Base seed: replication r uses streams seeded from (seed, point, r).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Worker threads, 1 to 1024 [default: all cores]; results do not depend on it.
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    threads: Option<i64>,
    /// Run even when the expected events exceed the budget of 1e11 (about an hour of one
    /// core); without it such a run is refused before it starts, with its cost.
    #[arg(long)]
    no_limit: bool,
}

impl JobRunArgs {
    /// The options given, over `defaults`, at sweep point `point`.
    pub(super) fn options(
        &self,
        defaults: RunOptions,
        point: u64,
    ) -> Result<RunOptions, (i32, String)> {
        let jobs = match &self.jobs {
            Some(j) => count("jobs", j)?,
            None => match defaults.length {
                Length::Jobs { measured, .. } => measured,
                Length::Time { .. } => DEFAULT_JOBS,
            },
        };
        // Jobs given are run as given; the default follows the defaults' rule (dispatch and
        // redundancy: lengthened by the fourth-moment heavy-tail rule), its warm-up
        // following it unless given.
        let length_rule = match (&self.jobs, defaults.length_rule) {
            (None, LengthRule::HeavyTail { .. }) => LengthRule::HeavyTail {
                warmup_follows: self.warmup.is_none(),
            },
            _ => LengthRule::Given,
        };
        let warmup = match &self.warmup {
            Some(w) => count("warmup", w)?,
            None => jobs / DEFAULT_WARMUP_FRACTION,
        };
        Ok(RunOptions {
            length: Length::Jobs {
                measured: jobs,
                warmup,
            },
            replications: replications(self.replications)?,
            seed: self.seed,
            point,
            threads: thread_count(self.threads)?,
            warmup_rule: rule(self.warmup.is_some(), &defaults),
            length_rule,
            limit: !self.no_limit,
            ..defaults
        })
    }
}

/// Options of a simulation that runs for a time (`jsq simulate`).
#[derive(Args, Debug)]
pub(super) struct TimeRunArgs {
    /// Measured time per replication (mean service times) [default: 100, lengthened to 200 ×
    /// √(3/N) relaxation times of the tasks per server (their integrated autocorrelation time,
    /// estimated on the run; Sokal 1997) where those are longer; the record's
    /// length_reason says which time ran and why].
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    time: Option<String>,
    /// Time discarded at the start of each replication [default: time/10]; the record
    /// reports the MSER-5 truncation point (White 1997) and tests the measured window's
    /// stationarity.
    #[arg(long, value_name = "T0", allow_hyphen_values = true)]
    warmup: Option<String>,
    /// Where each replication starts: empty, fixed-point (N times the mean-field fixed
    /// point of the d used, rounded; empty where it cannot be computed), or an occupancy
    /// q1,q2,... (the fraction of servers with at least i tasks: non-increasing, in
    /// [0, 1], zero beyond the buffer; N q_i rounded).
    #[arg(long, value_name = "empty|fixed-point|Q1,Q2,...", default_value = "fixed-point", value_parser = parse_start)]
    start: Start,
    /// Independent replications (>= 2), run in parallel.
    #[arg(long, value_name = "R", default_value_t = DEFAULT_REPLICATIONS as i64, allow_hyphen_values = true)]
    replications: i64,
    /// Base seed: replication r uses streams seeded from (seed, 0, r).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Worker threads, 1 to 1024 [default: all cores]; results do not depend on it.
    #[arg(long, value_name = "K", allow_hyphen_values = true)]
    threads: Option<i64>,
    /// Run even when the expected events exceed the budget of 1e11 (about an hour of one
    /// core); without it such a run is refused before it starts, with its cost.
    #[arg(long)]
    no_limit: bool,
}

/// `--threads`, checked: 1 to [`crate::sim::MAX_THREADS`].
fn thread_count(k: Option<i64>) -> Result<Option<usize>, (i32, String)> {
    let most = crate::sim::MAX_THREADS;
    match k.map(|k| (k, usize::try_from(k))) {
        None => Ok(None),
        Some((_, Ok(t))) if (1..=most).contains(&t) => Ok(Some(t)),
        Some((k, _)) => Err(bad(format!("threads must be 1 to {most}, got {k}"))),
    }
}

fn parse_start(s: &str) -> Result<Start, String> {
    s.parse()
}

impl TimeRunArgs {
    /// The options given, over `defaults`.
    pub(super) fn options(&self, defaults: RunOptions) -> Result<RunOptions, (i32, String)> {
        let measured = match &self.time {
            Some(t) => time("--time", t)?,
            None => match defaults.length {
                Length::Time { measured, .. } => measured,
                Length::Jobs { .. } => crate::lb::sim::DEFAULT_TIME,
            },
        };
        // A time given is run as given; the default one follows the defaults' rule (JSQ:
        // lengthened to the relaxation time), its warm-up following it unless given.
        let length_rule = match (&self.time, defaults.length_rule) {
            (Some(_), _) | (None, LengthRule::Given | LengthRule::HeavyTail { .. }) => {
                LengthRule::Given
            }
            (None, LengthRule::Relaxation { .. }) => LengthRule::Relaxation {
                warmup_follows: self.warmup.is_none(),
            },
        };
        let warmup = match &self.warmup {
            Some(w) => time("--warmup", w)?,
            None => measured / DEFAULT_WARMUP_FRACTION as f64,
        };
        let threads = thread_count(self.threads)?;
        Ok(RunOptions {
            length: Length::Time { measured, warmup },
            replications: replications(self.replications)?,
            seed: self.seed,
            threads,
            start: self.start.clone(),
            warmup_rule: rule(self.warmup.is_some(), &defaults),
            length_rule,
            limit: !self.no_limit,
            ..defaults
        })
    }
}
