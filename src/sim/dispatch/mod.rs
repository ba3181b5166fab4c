//! The dispatch simulators: Poisson (or renewal) arrivals of jobs with i.i.d. sizes,
//! dispatched to h FCFS hosts under SITA, TAGS, Random, Round-Robin, Least-Work-Left and
//! JSQ.
//!
//! * `engine`: the replication driver (`engine::Dispatch`, a
//!   [`Simulator`](crate::sim::Simulator)) and the `engine::Kernel` trait a policy
//!   implements;
//! * `kernels`: the policies' exact kernels (Lindley recursions, the TAGS chain, the
//!   Kiefer–Wolfowitz vector for LWL, FIFOs of departures for JSQ) and the one map from a
//!   policy name to its kernel type;
//! * `setup`: from the user's vocabulary (a distribution spec, a load, cutoffs as decimal
//!   strings) to a [`SimConfig`], and the one runner of the `simulate` command and of the
//!   claims engine (`setup::run`, `setup::simulated_mean`).
//!
//! The simulators compute no formula: the value a run is compared with comes from
//! [`crate::policy::reference`], named by [`SimPolicy::routing`].
//!
//! Every estimate is read by name from [`SimResult::estimates`]
//! ([`crate::sim::observe::names`]).

pub(crate) mod engine;
pub(crate) mod kernels;
pub(crate) mod setup;

pub use engine::{Dispatch, JobProbe, Kernel, NoProbe, RepStats};
pub use kernels::{replicate, trace};
pub use setup::{
    jobs_to_see_fourth_moment, prepare, run, simulated_mean, unseen_fourth_moment_share,
    unseen_second_moment_share, DispatchSimRequest, Prepared, TailLength, ANALYTIC_BITS,
    DEFAULT_RUN,
};

use super::observe::{names, Estimates};
use super::stats::{Estimate, HeavyTail};
use super::warmup::Diagnostics;
use super::{Length, Progress, Replicated, RunOptions, SimError};
use crate::dist::Sampler;
use crate::policy::reference::Routing;
use crate::policy::PolicyKind;

crate::vocab::vocabulary! {
    "policy",
    /// The simulated dispatching policies.
    pub enum SimPolicy {
        /// Size-Interval Task Assignment with cutoffs.
        Sita,
        /// Task Assignment by Guessing Size with cutoffs (kill and restart).
        Tags,
        /// Uniformly random host.
        Random,
        /// Job n to host n mod h.
        #[strum(serialize = "rr")]
        RoundRobin,
        /// Least-Work-Left (the M/G/h central FCFS queue).
        Lwl,
        /// Join-the-Shortest-Queue (number in system), random tie-breaking.
        Jsq,
    }
}

impl SimPolicy {
    /// The name used on the command line and in claim files.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// True for the policies that take h − 1 cutoffs.
    pub fn uses_cutoffs(self) -> bool {
        match self {
            SimPolicy::Sita | SimPolicy::Tags => true,
            SimPolicy::Random | SimPolicy::RoundRobin | SimPolicy::Lwl | SimPolicy::Jsq => false,
        }
    }

    /// The routing as the reference formulas see it ([`crate::policy::reference`]).
    pub fn routing(self) -> Routing {
        match self {
            SimPolicy::Sita => Routing::Formula(PolicyKind::Sita),
            SimPolicy::Tags => Routing::Formula(PolicyKind::Tags),
            SimPolicy::Random => Routing::Formula(PolicyKind::Random),
            SimPolicy::Lwl => Routing::CentralQueue,
            SimPolicy::RoundRobin | SimPolicy::Jsq => Routing::NoFormula,
        }
    }

    /// True for the policies that kill and restart jobs (TAGS): their waiting splits into
    /// queueing and wasted service, both worth reporting.
    pub fn kills_jobs(self) -> bool {
        match self {
            SimPolicy::Tags => true,
            SimPolicy::Sita
            | SimPolicy::Random
            | SimPolicy::RoundRobin
            | SimPolicy::Lwl
            | SimPolicy::Jsq => false,
        }
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
    /// Jobs (measured and warm-up), replications, seed, point, threads; the run starts
    /// empty.
    pub run: RunOptions,
}

impl std::fmt::Debug for SimConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimConfig")
            .field("policy", &self.policy)
            .field("hosts", &self.hosts)
            .field("lambda", &self.lambda)
            .field("cutoffs", &self.cutoffs)
            .field("arrivals", &self.arrivals)
            .field("run", &self.run)
            .finish()
    }
}

impl SimConfig {
    /// Measured jobs per replication.
    pub fn jobs(&self) -> u64 {
        match self.run.length {
            Length::Jobs { measured, .. } => measured,
            Length::Time { .. } => 0,
        }
    }

    /// Jobs simulated and discarded at the start of each replication.
    pub fn warmup(&self) -> u64 {
        match self.run.length {
            Length::Jobs { warmup, .. } => warmup,
            Length::Time { .. } => 0,
        }
    }

    /// Checks the configuration: h ≥ 1, λ finite and positive, the cutoff count and order,
    /// the run's options ([`RunOptions::validate`]) with a length in jobs and an empty
    /// start.
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
        self.run.validate()?;
        self.run.jobs("dispatch")?;
        self.run.require_empty_start("dispatch")?;
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
    /// Every estimate by name ([`crate::sim::observe::names`]): `waiting`, `response`, `slowdown`,
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
    /// The warm-up rule's work, the stationarity test of the waiting, the fewest jobs a
    /// replication measured.
    pub diagnostics: Diagnostics,
    /// Jobs simulated in all (warm-up included, and the first runs of replications whose
    /// warm-up MSER-5 extended).
    pub jobs_simulated: u64,
}

/// Runs every replication of `cfg` in parallel (rayon's current pool, or a pool of
/// `cfg.run.threads` threads) and combines them.
///
/// ```
/// use taskassign::dist::{DistFactory, DistSpec, JobSize};
/// use taskassign::sim::dispatch::{simulate, Arrivals, SimConfig};
/// use taskassign::sim::SimPolicy;
/// use taskassign::sim::{Length, RunOptions};
/// // M/M/1 with λ = 0.5, E[X] = 1: E[W] = ρ/(1 − ρ) = 1.
/// let d = DistSpec::parse("exp:rate=1").unwrap().build(64).unwrap();
/// let cfg = SimConfig {
///     policy: SimPolicy::Random, hosts: 1, lambda: 0.5, cutoffs: vec![],
///     sizes: d.sampler().unwrap(), arrivals: Arrivals::Poisson,
///     run: RunOptions {
///         length: Length::Jobs { measured: 50_000, warmup: 1_000 },
///         replications: 8,
///         ..RunOptions::new(Length::jobs(1))
///     },
/// };
/// let r = simulate(&cfg, None).unwrap();
/// assert!((r.waiting.mean - 1.0).abs() < 4.0 * r.waiting.half_width);
/// assert_eq!(r.estimates.scalar("waiting"), Some(&r.waiting));
/// ```
pub fn simulate(cfg: &SimConfig, progress: Option<Progress>) -> Result<SimResult, SimError> {
    cfg.validate()?;
    let rep = cfg.run.replicator()?;
    result_of(cfg, kernels::run(cfg, &rep, progress)?)
}

/// Runs `simulate` in a dedicated pool of `threads` threads (tests use it to show that the
/// numbers do not depend on the thread count).
pub fn simulate_with_threads(
    cfg: &SimConfig,
    threads: usize,
    progress: Option<Progress>,
) -> Result<SimResult, SimError> {
    cfg.validate()?;
    let rep = cfg.run.replicator()?.threads(threads);
    result_of(cfg, kernels::run(cfg, &rep, progress)?)
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
        heavy_tail: run.heavy_tail.clone(),
        diagnostics: Diagnostics::of(&run, names::WAITING),
        jobs_simulated: run.events,
        estimates: run.estimates,
    })
}
