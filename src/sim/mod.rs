//! Simulators that cross-check the analytic formulas, and the machinery they share.
//!
//! A model is a [`Simulator`]: it runs one replication from its random [`Streams`] and
//! returns a [`Tally`], its sums under named keys (`observe`). The [`Replicator`] runs
//! R independent replications in parallel with rayon, combines them in replication order
//! (the numbers depend on (seed, point), never on the thread count) and turns the tallies
//! into `observe::Estimates`: every observable by name with its 95 % Student-t
//! half-width (`stats`), plus the heavy-tail diagnosis. Claims and reports read the
//! estimates by name, whatever the model.
//!
//! The rooms:
//! * [`dispatch`]: Poisson (or renewal) arrivals dispatched to h FCFS hosts under SITA,
//!   TAGS, Random, Round-Robin, Least-Work-Left and JSQ — a waiting time fixed at arrival,
//!   so one pass over the jobs per replication (Lindley, Kiefer–Wolfowitz);
//! * [`event`]: a calendar of events for the models whose waiting is not fixed at arrival
//!   (random order of service, cancelled copies), with the M/G/c queue (FCFS and ROS) on it;
//! * `run`: the options of a run ([`RunOptions`]: length and warm-up, replications,
//!   seed, point, threads, start), one type and one validation for every model;
//! * `observe`: keys, samples and the estimates map;
//! * `stats`: ratio estimators with Student-t half-widths, the heavy-tail rules;
//! * `warmup`: the series of a replication's headline observable, the MSER-5 truncation
//!   point that extends a warm-up found too short, and the stationarity test of the
//!   measured window;
//! * `rng`: one Xoshiro256++ stream per (seed, point, replication, stream).
//!
//! A new model (JSQ(d) on occupancy counts, redundancy with cancel-on-complete) is a new
//! module with a [`Simulator`] and its [`Tally`], and one runner that takes a
//! [`RunOptions`] (its command and its claims call that runner, with one set of
//! defaults); the replication runner, the streams, the statistics and the report helpers
//! (`crate::report::simulate`) are shared.

pub mod dispatch;
pub mod event;
pub(crate) mod observe;
pub(crate) mod rng;
pub(crate) mod run;
pub(crate) mod stats;
pub(crate) mod warmup;

pub use observe::{names, Estimates, Key, Sample};
pub use rng::{splitmix64, unit_f64, STREAM_SIZES};
pub use stats::{
    paired_difference, ratio_estimate, ratio_estimate_weighted, t_abs_cdf, t_quantile, Estimate,
    HeavyTail,
};
pub use warmup::{
    halves_test, mser5, relaxation, Diagnostics, Knobs, Relaxation, Series, Stationarity,
    WarmupReport, WarmupRule,
};

pub use dispatch::{SimPolicy, SimResult};
pub use run::{
    Length, LengthRule, RunOptions, Start, DEFAULT_JOBS, DEFAULT_SEED, DEFAULT_WARMUP_FRACTION,
};

use crate::dist::DistError;
use crate::policy::PolicyError;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use stats::heavy_tail_check;
use std::sync::Mutex;
use thiserror::Error;

/// Fewest replications accepted (a half-width needs two).
pub const MIN_REPLICATIONS: usize = 2;
/// Most replications accepted (the t quantile is computed by an O(R) series).
pub const MAX_REPLICATIONS: usize = 100_000;
/// Replications of a simulation unless the user says otherwise (every model, on the
/// command line and in the claims).
pub const DEFAULT_REPLICATIONS: usize = 10;
/// Most worker threads a run may ask for (`--threads`, the Python package's `threads`):
/// more than the replications gain nothing, and an OS thread each for tens of thousands
/// stalls a small run (10 000 hung a 1 000-job run).
pub const MAX_THREADS: usize = 1024;

/// Checks a replication count: [`MIN_REPLICATIONS`] ≤ R ≤ [`MAX_REPLICATIONS`].
pub fn check_replications(replications: usize) -> Result<(), SimError> {
    if (MIN_REPLICATIONS..=MAX_REPLICATIONS).contains(&replications) {
        Ok(())
    } else {
        Err(bad_replications(replications))
    }
}

/// The error of a replication count out of range, as written (`-1` included): the one
/// message every caller gives.
pub fn bad_replications(got: impl std::fmt::Display) -> SimError {
    SimError::BadConfig(format!(
        "replications must be between {MIN_REPLICATIONS} and {MAX_REPLICATIONS} (a confidence interval needs two), got {got}"
    ))
}

/// The random streams of one replication: stream `s` of replication `r` at sweep point `p`
/// of a run with base seed `seed` is Xoshiro256++ seeded from (seed, p, r, s)
/// ([`rng::stream_rng`]), so a replication's numbers depend on nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Streams {
    /// Base seed of the run.
    pub seed: u64,
    /// Sweep point.
    pub point: u64,
    /// Replication index, 0-based.
    pub replication: u64,
}

impl Streams {
    /// The generator of stream `stream` (see the `STREAM_*` constants of [`rng`]).
    pub fn rng(&self, stream: u64) -> Xoshiro256PlusPlus {
        rng::stream_rng(self.seed, self.point, self.replication, stream)
    }
}

/// A stochastic model that runs one independent replication from its [`Streams`]: the
/// extension point of the simulators (ARCHITECTURE.md, "Simulators"). The
/// [`Replicator`] runs the replications in parallel and turns their [`Tally`]s into named
/// estimates; a new model implements this trait and its tally, nothing else.
///
/// ```
/// use taskassign::sim::{names, Key, Sample};
/// use taskassign::sim::{unit_f64, STREAM_SIZES};
/// use taskassign::sim::{Replicator, Simulator, Streams, Tally};
/// // The mean of n uniform variates: a "simulator" of E[U] = 1/2.
/// struct Uniforms(u64);
/// struct Sum(f64, u64);
/// impl Tally for Sum {
///     fn samples(&self, out: &mut Vec<(Key, Sample)>) {
///         out.push((Key::scalar(names::WAITING), Sample::per_job(self.0, self.1)));
///     }
/// }
/// impl Simulator for Uniforms {
///     type Tally = Sum;
///     fn replicate(&self, streams: &Streams) -> Sum {
///         let mut r = streams.rng(STREAM_SIZES);
///         Sum((0..self.0).map(|_| unit_f64(&mut r)).sum(), self.0)
///     }
/// }
/// let run = Replicator::new(1, 0, 8).unwrap().run(&Uniforms(10_000), None).unwrap();
/// let e = run.estimates.scalar(names::WAITING).unwrap();
/// assert!((e.mean - 0.5).abs() < 4.0 * e.half_width);
/// // Another thread count, the same numbers.
/// let again = Replicator::new(1, 0, 8).unwrap().threads(1).run(&Uniforms(10_000), None);
/// assert_eq!(again.unwrap().estimates, run.estimates);
/// ```
pub trait Simulator: Sync {
    /// What one replication measures.
    type Tally: Tally;
    /// Runs replication `streams.replication`, drawing every random number from `streams`.
    fn replicate(&self, streams: &Streams) -> Self::Tally;

    /// Runs replication `streams.replication` again discarding `warmup` (in the unit of its
    /// [`Series`]: jobs or simulated time) instead of its configured warm-up, with the same
    /// measured length: how [`WarmupRule::Mser`] extends a warm-up that MSER-5 found too
    /// short. `None` (the default) when the simulator cannot.
    fn replicate_from(&self, _streams: &Streams, _warmup: f64) -> Option<Self::Tally> {
        None
    }
}

/// The sums one replication accumulated, read by name.
pub trait Tally: Send {
    /// Appends one `(key, sample)` per observable. Every replication of a simulator
    /// reports the same keys in the same order (a replication that measured nothing under a
    /// key reports it with weight 0; a time average, its integral 0 over its whole window).
    fn samples(&self, out: &mut Vec<(Key, Sample)>);
    /// The replication's input to the heavy-tail diagnosis, when the model has job sizes.
    fn tail_evidence(&self) -> Option<TailEvidence> {
        None
    }
    /// Jobs or events simulated, warm-up included (the work behind a throughput figure).
    fn events(&self) -> u64 {
        0
    }
    /// The series of the replication's headline observable over its whole run
    /// ([`warmup`]), when the simulator keeps one.
    fn series(&self) -> Option<&Series> {
        None
    }
    /// Jobs (or events) in the measured window, when the simulator counts them: a
    /// replication that measured too few is not a sample ([`Replicated::fewest_measured`]).
    fn measured(&self) -> Option<u64> {
        None
    }
}

/// One replication's input to the heavy-tail rules of [`stats::heavy_tail_check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TailEvidence {
    /// The replication's mean of its headline observable (dispatch: waiting).
    pub mean: f64,
    /// The largest share of the replication's Σ X² carried by one job.
    pub dominant_job_share: f64,
}

impl TailEvidence {
    /// The evidence of a replication's sums: the headline observable's `sum` over `count`
    /// jobs, and the largest and the total X² of the sizes drawn (a share of 0 when the
    /// total is 0).
    ///
    /// ```
    /// use taskassign::sim::TailEvidence;
    /// let e = TailEvidence::from_sums(6.0, 3, 4.0, 16.0);
    /// assert_eq!((e.mean, e.dominant_job_share), (2.0, 0.25));
    /// assert_eq!(TailEvidence::from_sums(0.0, 1, 0.0, 0.0).dominant_job_share, 0.0);
    /// ```
    pub fn from_sums(sum: f64, count: u64, max_x2: f64, sum_x2: f64) -> Self {
        TailEvidence {
            mean: sum / count as f64,
            dominant_job_share: if sum_x2 > 0.0 { max_x2 / sum_x2 } else { 0.0 },
        }
    }
}

/// W/X, the slowdown of a job of size `x` that waited `w`: 0 for a job of size 0 that did
/// not wait, +∞ for one that did.
#[inline]
pub(crate) fn slowdown(w: f64, x: f64) -> f64 {
    if x > 0.0 {
        w / x
    } else if w == 0.0 {
        0.0
    } else {
        f64::INFINITY
    }
}

/// Adds a measured job's size `x` to the sums of its replication's heavy-tail evidence
/// ([`TailEvidence::from_sums`]): Σ X² and max X².
#[inline]
pub(crate) fn add_square(sum_x2: &mut f64, max_x2: &mut f64, x: f64) {
    let x2 = x * x;
    *sum_x2 += x2;
    if x2 > *max_x2 {
        *max_x2 = x2;
    }
}

/// A progress callback: (replications done, replications in all); called from worker
/// threads, in completion order.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// The replication runner: R independent replications of a [`Simulator`], in parallel with
/// rayon, combined in replication order, so that the numbers depend on (seed, point) and
/// never on the thread count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replicator {
    seed: u64,
    point: u64,
    replications: usize,
    threads: Option<usize>,
    rule: WarmupRule,
}

/// The replications of one run and what they estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Replicated<T> {
    /// Every replication's tally, in replication order.
    pub tallies: Vec<T>,
    /// The estimates by name (95 % Student-t half-widths over the replications).
    pub estimates: Estimates,
    /// The heavy-tail diagnosis (empty when the tallies give no evidence).
    pub heavy_tail: HeavyTail,
    /// Jobs or events simulated in all replications (the first runs of extended
    /// replications included).
    pub events: u64,
    /// What the warm-up rule did, when the simulator keeps a [`Series`].
    pub warmup: Option<WarmupReport>,
    /// The stationarity test of the measured windows ([`warmup::halves_test`]), when the
    /// simulator keeps a [`Series`] and the windows have two batches.
    pub stationarity: Option<Stationarity>,
    /// The fewest jobs (or events) any replication measured, when the simulator counts
    /// them.
    pub fewest_measured: Option<u64>,
}

impl<T: Tally> Replicated<T> {
    /// The samples of `key` in replication order (`None` when the simulator has no such
    /// observable): the input of paired comparisons ([`stats::paired_difference`]).
    pub fn samples(&self, key: Key) -> Option<Vec<Sample>> {
        let mut buf = Vec::new();
        self.tallies
            .iter()
            .map(|t| {
                buf.clear();
                t.samples(&mut buf);
                buf.iter().find(|(k, _)| *k == key).map(|(_, s)| *s)
            })
            .collect()
    }

    /// The estimate of `key` here minus `key` in `other`, paired replication by
    /// replication: with common random numbers (two models run by Replicators of the same
    /// seed and point, drawing the same streams alike) the pairs are positively correlated
    /// and the half-width of the difference is far smaller than that of independent runs.
    pub fn difference<U: Tally>(&self, other: &Replicated<U>, key: Key) -> Option<Estimate> {
        Some(stats::paired_difference(
            &self.samples(key)?,
            &other.samples(key)?,
        ))
    }
}

/// Counts one finished replication of `n` and reports it (`crate::progress`) under one
/// lock, so that the reports of parallel workers arrive in the order of their counts (a
/// progress bar never steps back); the count.
fn count_done(done: &Mutex<usize>, task: &str, n: usize) -> usize {
    let mut d = done
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    *d += 1;
    crate::progress::report(task, *d as u64, Some(n as u64), "");
    *d
}

impl Replicator {
    /// `replications` replications at sweep point `point` of base seed `seed`, in rayon's
    /// current pool; errors unless [`MIN_REPLICATIONS`] ≤ R ≤ [`MAX_REPLICATIONS`].
    pub fn new(seed: u64, point: u64, replications: usize) -> Result<Self, SimError> {
        check_replications(replications)?;
        Ok(Replicator {
            seed,
            point,
            replications,
            threads: None,
            rule: WarmupRule::Given,
        })
    }

    /// Chooses the warm-up by `rule` (the default of [`Replicator::new`] is
    /// [`WarmupRule::Given`]: the simulators' configured warm-up, MSER-5 reported only).
    pub fn warmup_rule(mut self, rule: WarmupRule) -> Self {
        self.rule = rule;
        self
    }

    /// Runs in a dedicated pool of `threads` threads instead (the numbers do not change).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// The replication count.
    pub fn replications(&self) -> usize {
        self.replications
    }

    /// The streams of replication `replication`.
    pub fn streams(&self, replication: u64) -> Streams {
        Streams {
            seed: self.seed,
            point: self.point,
            replication,
        }
    }

    /// Runs every replication of `sim` and combines them. Under [`WarmupRule::Mser`], a
    /// replication whose MSER-5 truncation point lies beyond the warm-up it discarded is
    /// run again from its streams discarding that point instead
    /// ([`Simulator::replicate_from`]); the result depends on (seed, point) alone, as
    /// before.
    pub fn run<S: Simulator>(
        &self,
        sim: &S,
        progress: Option<Progress>,
    ) -> Result<Replicated<S::Tally>, SimError> {
        let n = self.replications;
        let collect = || -> Vec<S::Tally> {
            let done = Mutex::new(0usize);
            (0..n)
                .into_par_iter()
                .map(|r| {
                    let t = sim.replicate(&self.streams(r as u64));
                    let k = count_done(&done, "replications", n);
                    if let Some(p) = progress {
                        p(k, n);
                    }
                    t
                })
                .collect()
        };
        let pool = match self.threads {
            None => None,
            Some(t) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .map_err(|e| SimError::ThreadPool(e.to_string()))?,
            ),
        };
        let in_pool = |f: &(dyn Fn() -> Vec<S::Tally> + Sync)| match &pool {
            None => f(),
            Some(p) => p.install(f),
        };
        let mut tallies = in_pool(&collect);
        // MSER-5 on every replication's series; the replications it finds too short are
        // run again (in parallel) discarding its truncation point.
        let truncation: Option<Vec<f64>> = tallies.iter().map(|t| t.series().map(mser5)).collect();
        let mut extended = 0;
        let mut discarded_events = 0u64;
        if let (Some(cut), WarmupRule::Mser) = (&truncation, self.rule) {
            let redo: Vec<usize> = (0..n)
                .filter(|&r| tallies[r].series().is_some_and(|s| cut[r] > s.warmup))
                .collect();
            if !redo.is_empty() {
                let again = || -> Vec<S::Tally> {
                    let done = Mutex::new(0usize);
                    redo.par_iter()
                        .filter_map(|&r| {
                            let t = sim.replicate_from(&self.streams(r as u64), cut[r]);
                            count_done(&done, "warm-up extensions (MSER-5)", redo.len());
                            t
                        })
                        .collect()
                };
                let redone = in_pool(&again);
                if redone.len() == redo.len() {
                    for (r, t) in redo.iter().zip(redone) {
                        discarded_events = discarded_events.saturating_add(tallies[*r].events());
                        tallies[*r] = t;
                        extended += 1;
                    }
                }
            }
        }
        let warmup = truncation.and_then(|cut| {
            let applied: Option<Vec<f64>> = tallies
                .iter()
                .map(|t| t.series().map(|s| s.warmup))
                .collect();
            Some(WarmupReport {
                rule: self.rule,
                truncation: cut,
                applied: applied?,
                extended,
            })
        });
        let mut out = combine_tallies(tallies)?;
        out.events = out.events.saturating_add(discarded_events);
        out.warmup = warmup;
        Ok(out)
    }
}

/// Combines tallies (in replication order) into named estimates, the heavy-tail
/// diagnosis, the stationarity test and the fewest measured jobs.
fn combine_tallies<T: Tally>(tallies: Vec<T>) -> Result<Replicated<T>, SimError> {
    let mut keys: Vec<Key> = Vec::new();
    let mut columns: Vec<Vec<Sample>> = Vec::new();
    let mut buf = Vec::new();
    for (r, t) in tallies.iter().enumerate() {
        buf.clear();
        t.samples(&mut buf);
        if r == 0 {
            keys = buf.iter().map(|(k, _)| *k).collect();
            columns = vec![Vec::with_capacity(tallies.len()); keys.len()];
        } else if buf.len() != keys.len() || buf.iter().zip(&keys).any(|((k, _), k0)| k != k0) {
            return Err(SimError::Internal(format!(
                "replication {r} reports other observables than replication 0"
            )));
        }
        for (c, (_, s)) in columns.iter_mut().zip(&buf) {
            c.push(*s);
        }
    }
    let estimates = Estimates::from_columns(keys.into_iter().zip(columns).collect());
    let evidence: Option<Vec<TailEvidence>> = tallies.iter().map(Tally::tail_evidence).collect();
    let heavy_tail = match evidence {
        Some(ev) if !ev.is_empty() => {
            let means: Vec<f64> = ev.iter().map(|e| e.mean).collect();
            let shares: Vec<f64> = ev.iter().map(|e| e.dominant_job_share).collect();
            heavy_tail_check(&means, &shares)
        }
        _ => HeavyTail::default(),
    };
    let events = tallies
        .iter()
        .fold(0u64, |a, t| a.saturating_add(t.events()));
    let halves: Option<Vec<(f64, f64)>> = tallies
        .iter()
        .map(|t| t.series().and_then(Series::halves))
        .collect();
    let stationarity = halves.as_deref().and_then(halves_test);
    let fewest_measured = tallies
        .iter()
        .map(Tally::measured)
        .collect::<Option<Vec<u64>>>()
        .and_then(|v| v.into_iter().min());
    Ok(Replicated {
        tallies,
        estimates,
        heavy_tail,
        events,
        warmup: None,
        stationarity,
        fewest_measured,
    })
}

/// Errors of the simulators.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum SimError {
    /// A configuration that cannot be simulated (jobs = 0, one replication, …).
    #[error("{0}")]
    BadConfig(String),
    /// Some host has load ≥ 1: the means are infinite and a simulation would only drift.
    #[error("unstable: {0}")]
    Unstable(String),
    /// A distribution error (e.g. parameters out of f64 range).
    #[error(transparent)]
    Dist(#[from] DistError),
    /// A policy error (cutoffs, load).
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// A simulated mean or its half-width left f64 (an overflow of the replications' sums:
    /// sizes near 0 make slowdowns beyond 1.8e308).
    #[error("{0}")]
    Overflow(String),
    /// The thread pool could not be built.
    #[error("thread pool: {0}")]
    ThreadPool(String),
    /// A broken invariant of a simulator (e.g. replications that report different
    /// observables): a bug.
    #[error("internal simulator error: {0}")]
    Internal(String),
}

impl crate::error::Classify for SimError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            SimError::Dist(e) => e.kind(),
            SimError::Policy(e) => e.kind(),
            SimError::BadConfig(_) | SimError::Unstable(_) => ErrorKind::Input,
            SimError::Overflow(_) => ErrorKind::Numerical,
            SimError::ThreadPool(_) | SimError::Internal(_) => ErrorKind::Internal,
        }
    }
}
