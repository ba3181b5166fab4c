//! The options of a simulation run, one type for every model: how long each replication
//! runs and how much of it is discarded ([`Length`]: jobs for the dispatch and redundancy
//! simulators, simulated time for JSQ(d(N))'s), how many replications, their streams
//! (seed and sweep point), the worker threads and where a replication starts.
//!
//! The command line and the claims parse their own syntax into a [`RunOptions`], start
//! from their model's defaults (`sim::dispatch::setup::DEFAULT_RUN`,
//! `lb::sim::DEFAULT_RUN`, `redundancy::run::DEFAULT_RUN`: the same on both paths), and
//! hand it to that model's one runner, which calls [`RunOptions::validate`]: one range
//! check and one message per option. [`RunOptions::key`] is the canonical text of the
//! options that change the numbers (the claims cache simulations under it; the thread
//! count is left out, the numbers do not depend on it).

use super::{check_replications, Replicator, SimError, DEFAULT_REPLICATIONS};

/// The warm-up is the measured length divided by this unless the caller says otherwise: a
/// tenth of the run is discarded.
pub const DEFAULT_WARMUP_FRACTION: u64 = 10;
/// Base seed of a run unless the caller says otherwise.
pub const DEFAULT_SEED: u64 = 1;
/// Measured jobs per replication of the simulators that count jobs (dispatch, redundancy)
/// unless the caller says otherwise.
pub const DEFAULT_JOBS: u64 = 1_000_000;

/// How long each replication runs, after a warm-up that is simulated and discarded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Length {
    /// Jobs in arrival order: the first `warmup` are discarded, the next `measured`
    /// measured (the dispatch and redundancy simulators).
    Jobs {
        /// Measured jobs.
        measured: u64,
        /// Discarded jobs before them.
        warmup: u64,
    },
    /// Simulated time: `warmup` discarded, then `measured` measured (JSQ(d(N))'s
    /// occupancy simulator).
    Time {
        /// Measured time.
        measured: f64,
        /// Discarded time before it.
        warmup: f64,
    },
}

impl Length {
    /// `measured` jobs after the default warm-up (a [`DEFAULT_WARMUP_FRACTION`]th of them).
    pub const fn jobs(measured: u64) -> Self {
        Length::Jobs {
            measured,
            warmup: measured / DEFAULT_WARMUP_FRACTION,
        }
    }

    /// `measured` time after the default warm-up (a [`DEFAULT_WARMUP_FRACTION`]th of it).
    pub fn time(measured: f64) -> Self {
        Length::Time {
            measured,
            warmup: measured / DEFAULT_WARMUP_FRACTION as f64,
        }
    }
}

/// Where each replication starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The empty system.
    Empty,
    /// The model's mean-field fixed point, where it has one (JSQ(d(N)): N times the fixed
    /// point of the d used, rounded), so that less of the run is spent reaching it.
    FixedPoint,
}

impl Start {
    /// The names the command line takes (`--start`).
    pub const NAMES: &'static [&'static str] = &["empty", "fixed-point"];

    /// `empty` or `fixed-point`.
    pub fn name(self) -> &'static str {
        match self {
            Start::Empty => "empty",
            Start::FixedPoint => "fixed-point",
        }
    }
}

impl std::str::FromStr for Start {
    type Err = String;

    /// `empty` or `fixed-point` (also `fixed_point`, the claims' word).
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "empty" => Ok(Start::Empty),
            "fixed-point" | "fixed_point" => Ok(Start::FixedPoint),
            other => Err(format!(
                "unknown start '{other}' (known: {})",
                Start::NAMES.join(", ")
            )),
        }
    }
}

/// The options of one simulation run (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunOptions {
    /// Length and warm-up of each replication.
    pub length: Length,
    /// Independent replications.
    pub replications: usize,
    /// Base seed: replication r draws from the streams of (seed, point, r).
    pub seed: u64,
    /// Sweep point, a coordinate of every stream's seed (`sweep` passes the point's key).
    pub point: u64,
    /// Worker threads (`None`: rayon's pool); the numbers do not depend on it.
    pub threads: Option<usize>,
    /// Where each replication starts.
    pub start: Start,
}

impl RunOptions {
    /// A run of `length` with the default replications, seed, point 0, rayon's pool, from
    /// empty.
    pub const fn new(length: Length) -> Self {
        RunOptions {
            length,
            replications: DEFAULT_REPLICATIONS,
            seed: DEFAULT_SEED,
            point: 0,
            threads: None,
            start: Start::Empty,
        }
    }

    /// Checks every option: a length of at least one job or a positive finite time, a
    /// warm-up of finite non-negative time and no overflow of jobs + warm-up,
    /// [`super::MIN_REPLICATIONS`] ≤ R ≤ [`super::MAX_REPLICATIONS`], at least one thread.
    ///
    /// ```
    /// use taskassign::sim::{Length, RunOptions};
    /// assert!(RunOptions::new(Length::jobs(1000)).validate().is_ok());
    /// let one = RunOptions { replications: 1, ..RunOptions::new(Length::jobs(1000)) };
    /// assert_eq!(
    ///     one.validate().unwrap_err().to_string(),
    ///     "replications must be between 2 and 100000 (a confidence interval needs two), got 1"
    /// );
    /// assert!(RunOptions::new(Length::time(-1.0)).validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |s: String| Err(SimError::BadConfig(s));
        match self.length {
            Length::Jobs { measured, warmup } => {
                if measured == 0 {
                    return bad("jobs must be at least 1".into());
                }
                if measured.checked_add(warmup).is_none() {
                    return bad("jobs + warmup overflows".into());
                }
            }
            Length::Time { measured, warmup } => {
                if !(measured.is_finite() && measured > 0.0) {
                    return bad(format!(
                        "the measured time must be finite and > 0, got {measured}"
                    ));
                }
                if !(warmup.is_finite() && warmup >= 0.0) {
                    return bad(format!("the warm-up must be finite and >= 0, got {warmup}"));
                }
            }
        }
        check_replications(self.replications)?;
        if self.threads == Some(0) {
            return bad("threads must be at least 1".into());
        }
        Ok(())
    }

    /// The canonical text of the options that change the numbers (every one but the
    /// thread count), in a fixed order: the key under which a simulation is cached.
    ///
    /// ```
    /// use taskassign::sim::{Length, RunOptions};
    /// let a = RunOptions::new(Length::jobs(1000));
    /// assert_eq!(a.key(), "jobs=1000|warmup=100|replications=10|seed=1|point=0|start=empty");
    /// assert_eq!(RunOptions { threads: Some(3), ..a }.key(), a.key());
    /// ```
    pub fn key(&self) -> String {
        let length = match self.length {
            Length::Jobs { measured, warmup } => format!("jobs={measured}|warmup={warmup}"),
            Length::Time { measured, warmup } => format!("time={measured:e}|warmup={warmup:e}"),
        };
        format!(
            "{length}|replications={}|seed={}|point={}|start={}",
            self.replications,
            self.seed,
            self.point,
            self.start.name()
        )
    }

    /// The replication runner of these options (seed, point, replications, threads).
    pub fn replicator(&self) -> Result<Replicator, SimError> {
        let r = Replicator::new(self.seed, self.point, self.replications)?;
        Ok(match self.threads {
            Some(t) => r.threads(t),
            None => r,
        })
    }

    /// (measured, warm-up) jobs; an error for a run measured in time (`model` names the
    /// simulator that counts jobs).
    pub fn jobs(&self, model: &str) -> Result<(u64, u64), SimError> {
        match self.length {
            Length::Jobs { measured, warmup } => Ok((measured, warmup)),
            Length::Time { .. } => Err(SimError::BadConfig(format!(
                "the {model} simulator runs a number of jobs, not a time"
            ))),
        }
    }

    /// (measured, warm-up) time; an error for a run measured in jobs (`model` names the
    /// simulator that runs for a time).
    pub fn time(&self, model: &str) -> Result<(f64, f64), SimError> {
        match self.length {
            Length::Time { measured, warmup } => Ok((measured, warmup)),
            Length::Jobs { .. } => Err(SimError::BadConfig(format!(
                "the {model} simulator runs for a time, not a number of jobs"
            ))),
        }
    }

    /// An error unless the run starts empty (`model` names a simulator that has no other
    /// start).
    pub fn require_empty_start(&self, model: &str) -> Result<(), SimError> {
        match self.start {
            Start::Empty => Ok(()),
            Start::FixedPoint => Err(SimError::BadConfig(format!(
                "the {model} simulator starts empty (no fixed-point start)"
            ))),
        }
    }
}
