//! The options of a simulation run, one type for every model: how long each replication
//! runs and how much of it is discarded ([`Length`]: jobs for the dispatch and redundancy
//! simulators, simulated time for JSQ(d(N))'s) and how the warm-up is chosen
//! ([`WarmupRule`]: a tenth of the run extended by MSER-5 where that finds it too short,
//! or as given), how many replications, their streams (seed and sweep point), the worker
//! threads, where a replication starts, and the budget of simulated events.
//!
//! The command line and the claims parse their own syntax into a [`RunOptions`], start
//! from their model's defaults (`sim::dispatch::setup::DEFAULT_RUN`,
//! `lb::sim::DEFAULT_RUN`, `redundancy::run::DEFAULT_RUN`: the same on both paths), and
//! hand it to that model's one runner, which calls [`RunOptions::validate`]: one range
//! check and one message per option. [`RunOptions::key`] is the canonical text of the
//! options that change the numbers (the claims cache simulations under it; the thread
//! count is left out, the numbers do not depend on it).

use super::warmup::WarmupRule;
use super::{check_replications, Replicator, SimError, DEFAULT_REPLICATIONS};

/// The warm-up is the measured length divided by this unless the caller says otherwise: a
/// tenth of the run is discarded.
pub const DEFAULT_WARMUP_FRACTION: u64 = 10;
/// Base seed of a run unless the caller says otherwise.
pub const DEFAULT_SEED: u64 = 1;
/// Measured jobs per replication of the simulators that count jobs (dispatch, redundancy)
/// unless the caller says otherwise.
pub const DEFAULT_JOBS: u64 = 1_000_000;
/// The most events (jobs, arrivals and departures) a run may simulate over all its
/// replications unless the caller lifts the limit (`--no-limit`): about an hour of one
/// core at the simulators' 10⁷–10⁸ events per second. A request beyond it is refused
/// before anything runs, with what it would cost.
pub const EVENT_BUDGET: f64 = 1e11;
/// A replication must measure at least this many jobs (or events, for a time-based run):
/// fewer are no sample of a mean (a run that measured nothing prints 0 ± 0).
pub const MIN_MEASURED: u64 = 100;

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

/// How the measured length of each replication is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthRule {
    /// As configured.
    Given,
    /// At least a number of relaxation times of the model, estimated from the run itself
    /// and the run repeated longer where it was shorter (the JSQ(d(N)) runner's default,
    /// `lb::sim::RELAXATION_MULTIPLE`; the other runners run as configured).
    /// `warmup_follows`: the warm-up stays a tenth of the measured length (false when the
    /// warm-up was given).
    Relaxation {
        /// The warm-up follows the measured length.
        warmup_follows: bool,
    },
    /// At least the measured jobs per replication that meet, on average once, the job
    /// sizes carrying half of E\[X⁴\] (the fourth-moment heavy-tail rule of
    /// `sim::stats::HeavyTail`), lengthened before the run where the law asks for more
    /// (within `sim::dispatch::setup::HEAVY_TAIL_MAX_FACTOR` times the length given and
    /// the event budget): the default of the job-counting runners (dispatch and
    /// redundancy). `warmup_follows` as for [`LengthRule::Relaxation`].
    HeavyTail {
        /// The warm-up follows the measured length.
        warmup_follows: bool,
    },
}

impl LengthRule {
    /// `given` or `relaxation`.
    pub fn name(self) -> &'static str {
        match self {
            LengthRule::Given => "given",
            LengthRule::Relaxation { .. } => "relaxation",
            LengthRule::HeavyTail { .. } => "heavy-tail",
        }
    }
}

/// Where each replication starts.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// The empty system.
    Empty,
    /// The model's mean-field fixed point, where it has one (JSQ(d(N)): N times the fixed
    /// point of the d used, rounded), so that less of the run is spent reaching it.
    FixedPoint,
    /// A state the caller gives: JSQ(d(N))'s occupancy q_1 ≥ q_2 ≥ … in [0, 1] (the
    /// fraction of servers with at least i tasks; N q_i rounded), checked against the
    /// model by its runner.
    Occupancy(Vec<f64>),
}

impl Start {
    /// The words the command line takes (`--start`), besides an occupancy.
    pub const NAMES: &'static [&'static str] = &["empty", "fixed-point"];

    /// `empty`, `fixed-point`, or the occupancy as `q1,q2,…`.
    pub fn name(&self) -> String {
        match self {
            Start::Empty => "empty".into(),
            Start::FixedPoint => "fixed-point".into(),
            Start::Occupancy(q) => q
                .iter()
                .map(|x| format!("{x}"))
                .collect::<Vec<_>>()
                .join(","),
        }
    }
}

impl std::str::FromStr for Start {
    type Err = String;

    /// `empty`, `fixed-point` (also `fixed_point`, the claims' word), or an occupancy
    /// `q1,q2,…`: finite numbers in [0, 1], non-increasing (the model's buffer is its
    /// runner's to check).
    ///
    /// ```
    /// use taskassign::sim::Start;
    /// assert_eq!("0.9, 0.5".parse::<Start>(), Ok(Start::Occupancy(vec![0.9, 0.5])));
    /// assert!("0.5,0.9".parse::<Start>().unwrap_err().contains("non-increasing"));
    /// assert!("1.5".parse::<Start>().unwrap_err().contains("[0, 1]"));
    /// assert!("sometimes".parse::<Start>().unwrap_err().contains("unknown start"));
    /// ```
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "empty" => Ok(Start::Empty),
            "fixed-point" | "fixed_point" => Ok(Start::FixedPoint),
            other => {
                let looks_numeric = other
                    .chars()
                    .all(|c| c.is_ascii_digit() || ".,eE+- ".contains(c))
                    && !other.is_empty();
                if !looks_numeric {
                    return Err(format!(
                        "unknown start '{other}' (known: {}, or an occupancy q1,q2,... of fractions in [0, 1])",
                        Start::NAMES.join(", ")
                    ));
                }
                let q = other
                    .split(',')
                    .map(|x| {
                        x.trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|v| v.is_finite() && (0.0..=1.0).contains(v))
                            .ok_or_else(|| {
                                format!(
                                    "start occupancy: '{}' is not a fraction in [0, 1]",
                                    x.trim()
                                )
                            })
                    })
                    .collect::<Result<Vec<f64>, String>>()?;
                if q.windows(2).any(|w| w[1] > w[0]) {
                    return Err(format!(
                        "start occupancy {other}: q1 >= q2 >= ... (non-increasing: q_i is the fraction of servers with at least i tasks)"
                    ));
                }
                Ok(Start::Occupancy(q))
            }
        }
    }
}

/// The options of one simulation run (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    /// Length and warm-up of each replication.
    pub length: Length,
    /// How the warm-up of each replication is chosen from the length's.
    pub warmup_rule: WarmupRule,
    /// How the measured length is chosen (as given, or from the model's relaxation time).
    pub length_rule: LengthRule,
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
    /// Refuse a run whose expected events exceed [`EVENT_BUDGET`] (false: `--no-limit`).
    pub limit: bool,
}

impl RunOptions {
    /// A run of `length` with the default replications, seed, point 0, rayon's pool, from
    /// empty, its warm-up as given ([`WarmupRule::Given`]: MSER-5's truncation point is
    /// reported and the stationarity test judges the run; extending the warm-up by MSER-5
    /// is opt-in, see [`WarmupRule`]), within [`EVENT_BUDGET`].
    pub const fn new(length: Length) -> Self {
        RunOptions {
            length,
            warmup_rule: WarmupRule::Given,
            length_rule: LengthRule::Given,
            replications: DEFAULT_REPLICATIONS,
            seed: DEFAULT_SEED,
            point: 0,
            threads: None,
            start: Start::Empty,
            limit: true,
        }
    }

    /// These options under the length rule `rule` (for the models' `DEFAULT_RUN`
    /// constants).
    pub const fn with_length_rule(mut self, rule: LengthRule) -> Self {
        self.length_rule = rule;
        self
    }

    /// Refuses a run expected to simulate more than [`EVENT_BUDGET`] events over its
    /// replications (`events_per_replication`, the caller's estimate from the model),
    /// unless the limit is lifted. `hint` says how to shorten the run.
    ///
    /// ```
    /// use taskassign::sim::{Length, RunOptions};
    /// let o = RunOptions::new(Length::jobs(1_000_000));
    /// assert!(o.check_budget(1.1e6, "--jobs").is_ok());
    /// let e = o.check_budget(1e300, "--jobs").unwrap_err().to_string();
    /// assert!(e.contains("--no-limit") && e.contains("--jobs"), "{e}");
    /// assert!(RunOptions { limit: false, ..o }.check_budget(1e300, "--jobs").is_ok());
    /// ```
    pub fn check_budget(&self, events_per_replication: f64, hint: &str) -> Result<(), SimError> {
        let total = events_per_replication * self.replications as f64;
        if !self.limit || total <= EVENT_BUDGET {
            return Ok(());
        }
        let shown = if total.is_finite() {
            format!("about {total:.1e}")
        } else {
            "more than 1e308".into()
        };
        Err(SimError::BadConfig(format!(
            "the run would simulate {shown} events over its {} replications, beyond the budget of {EVENT_BUDGET:.0e} (about an hour of one core): shorten it ({hint}) or pass --no-limit",
            self.replications
        )))
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
    /// assert_eq!(
    ///     a.key(),
    ///     "jobs=1000|warmup=100|rule=given|replications=10|seed=1|point=0|start=empty"
    /// );
    /// assert_eq!(RunOptions { threads: Some(3), ..a.clone() }.key(), a.key());
    /// ```
    pub fn key(&self) -> String {
        let length = match self.length {
            Length::Jobs { measured, warmup } => format!("jobs={measured}|warmup={warmup}"),
            Length::Time { measured, warmup } => format!("time={measured:e}|warmup={warmup:e}"),
        };
        let length = match self.length_rule {
            LengthRule::Given => length,
            LengthRule::Relaxation { warmup_follows } => {
                format!("{length}|length=relaxation|warmup_follows={warmup_follows}")
            }
            LengthRule::HeavyTail { warmup_follows } => {
                format!("{length}|length=heavy-tail|warmup_follows={warmup_follows}")
            }
        };
        format!(
            "{length}|rule={}|replications={}|seed={}|point={}|start={}",
            self.warmup_rule.name(),
            self.replications,
            self.seed,
            self.point,
            self.start.name()
        )
    }

    /// The replication runner of these options (seed, point, replications, threads, the
    /// warm-up rule).
    pub fn replicator(&self) -> Result<Replicator, SimError> {
        let r = Replicator::new(self.seed, self.point, self.replications)?
            .warmup_rule(self.warmup_rule);
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
            Start::FixedPoint | Start::Occupancy(_) => Err(SimError::BadConfig(format!(
                "the {model} simulator starts empty (no other start)"
            ))),
        }
    }
}
