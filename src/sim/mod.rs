//! Simulators that cross-check the analytic formulas: Poisson (or renewal) arrivals
//! dispatched to h FCFS hosts under SITA, TAGS, Random, Round-Robin, Least-Work-Left and
//! JSQ.
//!
//! * [`engine`]: the exact simulators (Lindley recursions, the TAGS chain, the
//!   Kiefer–Wolfowitz vector for LWL, FIFOs of departures for JSQ).
//! * [`stats`]: replications → means with 95 % Student-t half-widths, and the heavy-tail
//!   warning.
//! * [`rng`]: one Xoshiro256++ stream per (seed, point, replication, stream).
//! * [`setup`]: from the user's vocabulary (a distribution spec, a load, cutoffs as decimal
//!   strings) to a [`SimConfig`] plus the analytic values to compare with; the entry point
//!   of the `simulate` command and of the claims engine ([`setup::simulated_mean`]).
//! * [`tags_error`]: the error of the Poisson approximation at TAGS hosts ≥ 2.
//!
//! Replications are independent, run in parallel with rayon, and are combined in
//! replication order: the numbers depend on (seed, point), never on the thread count.

pub mod engine;
pub mod observe;
pub mod rng;
pub mod setup;
pub mod stats;
pub mod tags_error;

use crate::dist::{DistError, Sampler};
use crate::policy::PolicyError;
use observe::{names, Estimates, Key, Sample};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use stats::{heavy_tail_check, Estimate, HeavyTail};
use std::sync::atomic::{AtomicUsize, Ordering};
use thiserror::Error;

/// Fewest replications accepted (a half-width needs two).
pub const MIN_REPLICATIONS: usize = 2;
/// Most replications accepted (the t quantile is computed by an O(R) series).
pub const MAX_REPLICATIONS: usize = 100_000;
/// Replications of a simulation unless the user says otherwise (`simulate --replications`).
pub const DEFAULT_REPLICATIONS: usize = 10;
/// The warm-up is the measured jobs divided by this unless the user says otherwise
/// (`simulate --warmup`): a tenth of the run is discarded.
pub const DEFAULT_WARMUP_FRACTION: u64 = 10;

/// Checks a replication count: [`MIN_REPLICATIONS`] ≤ R ≤ [`MAX_REPLICATIONS`].
pub fn check_replications(replications: usize) -> Result<(), SimError> {
    if (MIN_REPLICATIONS..=MAX_REPLICATIONS).contains(&replications) {
        Ok(())
    } else {
        Err(SimError::BadConfig(format!(
            "replications must be between {MIN_REPLICATIONS} and {MAX_REPLICATIONS} (a confidence interval needs two), got {replications}"
        )))
    }
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
/// use taskassign::sim::observe::{names, Key, Sample};
/// use taskassign::sim::rng::{unit_f64, STREAM_SIZES};
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
}

/// One replication's input to the heavy-tail rules of [`stats::heavy_tail_check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TailEvidence {
    /// The replication's mean of its headline observable (dispatch: waiting).
    pub mean: f64,
    /// The largest share of the replication's Σ X² carried by one job.
    pub dominant_job_share: f64,
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
    /// Jobs or events simulated in all replications.
    pub events: u64,
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
        })
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

    /// Runs every replication of `sim` and combines them.
    pub fn run<S: Simulator>(
        &self,
        sim: &S,
        progress: Option<Progress>,
    ) -> Result<Replicated<S::Tally>, SimError> {
        let n = self.replications;
        let collect = || -> Vec<S::Tally> {
            let done = AtomicUsize::new(0);
            (0..n)
                .into_par_iter()
                .map(|r| {
                    let t = sim.replicate(&self.streams(r as u64));
                    let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if let Some(p) = progress {
                        p(k, n);
                    }
                    t
                })
                .collect()
        };
        let tallies = match self.threads {
            None => collect(),
            Some(t) => rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map_err(|e| SimError::ThreadPool(e.to_string()))?
                .install(collect),
        };
        combine_tallies(tallies)
    }
}

/// Combines tallies (in replication order) into named estimates and the heavy-tail
/// diagnosis.
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
    Ok(Replicated {
        tallies,
        estimates,
        heavy_tail,
        events,
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
            SimError::ThreadPool(_) | SimError::Internal(_) => ErrorKind::Internal,
        }
    }
}

/// The simulated dispatching policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimPolicy {
    /// Size-Interval Task Assignment with cutoffs.
    Sita,
    /// Task Assignment by Guessing Size with cutoffs (kill and restart).
    Tags,
    /// Uniformly random host.
    Random,
    /// Job n to host n mod h.
    RoundRobin,
    /// Least-Work-Left (the M/G/h central FCFS queue).
    Lwl,
    /// Join-the-Shortest-Queue (number in system), random tie-breaking.
    Jsq,
}

impl SimPolicy {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SimPolicy::Sita => "sita",
            SimPolicy::Tags => "tags",
            SimPolicy::Random => "random",
            SimPolicy::RoundRobin => "rr",
            SimPolicy::Lwl => "lwl",
            SimPolicy::Jsq => "jsq",
        }
    }

    /// True for the policies that take h − 1 cutoffs.
    pub fn uses_cutoffs(self) -> bool {
        matches!(self, SimPolicy::Sita | SimPolicy::Tags)
    }
}

/// The arrival process.
pub enum Arrivals {
    /// Poisson arrivals at rate λ.
    Poisson,
    /// Renewal arrivals: gaps drawn from `gaps` and multiplied by `scale` (chosen by the
    /// caller so that the mean gap is 1/λ).
    Renewal {
        /// The gap distribution's sampler.
        gaps: Box<dyn Sampler>,
        /// Multiplier of every gap.
        scale: f64,
    },
}

impl std::fmt::Debug for Arrivals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Arrivals::Poisson => write!(f, "Poisson"),
            Arrivals::Renewal { scale, .. } => write!(f, "Renewal {{ scale: {scale} }}"),
        }
    }
}

/// Everything one simulation needs, in f64.
pub struct SimConfig {
    /// The policy.
    pub policy: SimPolicy,
    /// Number of hosts h ≥ 1.
    pub hosts: usize,
    /// Arrival rate λ.
    pub lambda: f64,
    /// The h − 1 interior cutoffs s_1 < … < s_{h−1} (SITA, TAGS; empty otherwise).
    pub cutoffs: Vec<f64>,
    /// Job sizes.
    pub sizes: Box<dyn Sampler>,
    /// Arrival process.
    pub arrivals: Arrivals,
    /// Measured jobs per replication.
    pub jobs: u64,
    /// Jobs simulated and discarded at the start of each replication.
    pub warmup: u64,
    /// Independent replications.
    pub replications: usize,
    /// Base seed.
    pub seed: u64,
    /// Sweep point (a coordinate of every stream's seed).
    pub point: u64,
}

impl std::fmt::Debug for SimConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimConfig")
            .field("policy", &self.policy)
            .field("hosts", &self.hosts)
            .field("lambda", &self.lambda)
            .field("cutoffs", &self.cutoffs)
            .field("arrivals", &self.arrivals)
            .field("jobs", &self.jobs)
            .field("warmup", &self.warmup)
            .field("replications", &self.replications)
            .field("seed", &self.seed)
            .field("point", &self.point)
            .finish()
    }
}

impl SimConfig {
    /// Checks the configuration: h ≥ 1, λ finite and positive, the cutoff count and order,
    /// jobs ≥ 1, [`MIN_REPLICATIONS`] ≤ R ≤ [`MAX_REPLICATIONS`].
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |s: String| Err(SimError::BadConfig(s));
        if self.hosts < 1 {
            return bad(format!("hosts must be at least 1, got {}", self.hosts));
        }
        if !(self.lambda.is_finite() && self.lambda > 0.0) {
            return bad(format!(
                "the arrival rate must be finite and positive in f64, got {}",
                self.lambda
            ));
        }
        let want = if self.policy.uses_cutoffs() {
            self.hosts - 1
        } else {
            0
        };
        if self.cutoffs.len() != want {
            return bad(format!(
                "{} with {} hosts takes {want} cutoffs, got {}",
                self.policy.name(),
                self.hosts,
                self.cutoffs.len()
            ));
        }
        if self.cutoffs.iter().any(|c| !c.is_finite()) {
            return bad("cutoffs must be finite in f64".into());
        }
        if self.cutoffs.windows(2).any(|w| w[0] >= w[1]) {
            return bad("cutoffs must increase strictly (in f64)".into());
        }
        if self.jobs == 0 {
            return bad("jobs must be at least 1".into());
        }
        if self.jobs.checked_add(self.warmup).is_none() {
            return bad("jobs + warmup overflows".into());
        }
        check_replications(self.replications)?;
        if let Arrivals::Renewal { scale, .. } = self.arrivals {
            if !(scale.is_finite() && scale > 0.0) {
                return bad(format!(
                    "the inter-arrival scale must be finite and positive, got {scale}"
                ));
            }
        }
        Ok(())
    }
}

/// The simulated means with their 95 % half-widths.
#[derive(Debug, Clone, PartialEq)]
pub struct SimResult {
    /// Every estimate by name ([`observe::names`]): `waiting`, `response`, `slowdown`,
    /// `queueing`, `wasted`, `host_waiting[i]`. The fields below are the same numbers, for
    /// Rust callers that know this model.
    pub estimates: Estimates,
    /// Mean waiting time (TAGS: queueing plus wasted service).
    pub waiting: Estimate,
    /// Mean response time W + X.
    pub response: Estimate,
    /// Mean slowdown W/X.
    pub slowdown: Estimate,
    /// Mean queueing delay (waiting minus wasted service).
    pub queueing: Estimate,
    /// Mean wasted service (TAGS; 0 otherwise).
    pub wasted: Estimate,
    /// Mean queueing delay per visit, per host.
    pub host_waiting: Vec<Estimate>,
    /// Fraction of the visits that each host received.
    pub host_visit_share: Vec<f64>,
    /// Replication means of waiting, in replication order.
    pub replication_waiting: Vec<f64>,
    /// The heavy-tail diagnosis.
    pub heavy_tail: HeavyTail,
    /// Jobs simulated in all (warm-up included).
    pub jobs_simulated: u64,
}

/// Runs every replication of `cfg` in parallel (rayon's current pool) and combines them.
///
/// ```
/// use taskassign::dist::{DistFactory, DistSpec, JobSize};
/// use taskassign::sim::{simulate, Arrivals, SimConfig, SimPolicy};
/// // M/M/1 with λ = 0.5, E[X] = 1: E[W] = ρ/(1 − ρ) = 1.
/// let d = DistSpec::parse("exp:rate=1").unwrap().build(64).unwrap();
/// let cfg = SimConfig {
///     policy: SimPolicy::Random, hosts: 1, lambda: 0.5, cutoffs: vec![],
///     sizes: d.sampler().unwrap(), arrivals: Arrivals::Poisson,
///     jobs: 50_000, warmup: 1_000, replications: 8, seed: 1, point: 0,
/// };
/// let r = simulate(&cfg, None).unwrap();
/// assert!((r.waiting.mean - 1.0).abs() < 4.0 * r.waiting.half_width);
/// assert_eq!(r.estimates.scalar("waiting"), Some(&r.waiting));
/// ```
pub fn simulate(cfg: &SimConfig, progress: Option<Progress>) -> Result<SimResult, SimError> {
    cfg.validate()?;
    let rep = Replicator::new(cfg.seed, cfg.point, cfg.replications)?;
    result_of(cfg, engine::run(cfg, &rep, progress)?)
}

/// Runs `simulate` in a dedicated pool of `threads` threads (tests use it to show that the
/// numbers do not depend on the thread count).
pub fn simulate_with_threads(
    cfg: &SimConfig,
    threads: usize,
    progress: Option<Progress>,
) -> Result<SimResult, SimError> {
    cfg.validate()?;
    let rep = Replicator::new(cfg.seed, cfg.point, cfg.replications)?.threads(threads);
    result_of(cfg, engine::run(cfg, &rep, progress)?)
}

/// The dispatch result from the replications' estimates (read by name) and tallies.
fn result_of(cfg: &SimConfig, run: Replicated<engine::RepStats>) -> Result<SimResult, SimError> {
    let e = &run.estimates;
    let need = |name: &str| -> Result<Estimate, SimError> {
        e.scalar(name)
            .copied()
            .ok_or_else(|| SimError::Internal(format!("no estimate of {name}")))
    };
    let host_waiting = e.vector(names::HOST_WAITING);
    if host_waiting.len() != cfg.hosts {
        return Err(SimError::Internal(format!(
            "{} host estimates for {} hosts",
            host_waiting.len(),
            cfg.hosts
        )));
    }
    let visits: Vec<u64> = (0..cfg.hosts)
        .map(|j| run.tallies.iter().map(|r| r.host_n[j]).sum())
        .collect();
    let total_visits: u64 = visits.iter().sum();
    let host_visit_share = visits
        .iter()
        .map(|&v| {
            if total_visits == 0 {
                0.0
            } else {
                v as f64 / total_visits as f64
            }
        })
        .collect();
    let replication_waiting = run.tallies.iter().map(|r| r.sum_w / r.n as f64).collect();
    Ok(SimResult {
        waiting: need(names::WAITING)?,
        response: need(names::RESPONSE)?,
        slowdown: need(names::SLOWDOWN)?,
        queueing: need(names::QUEUEING)?,
        wasted: need(names::WASTED)?,
        host_waiting,
        host_visit_share,
        replication_waiting,
        heavy_tail: run.heavy_tail,
        jobs_simulated: run.events,
        estimates: run.estimates,
    })
}
