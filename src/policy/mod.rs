//! Dispatching policies with given cutoffs: per-host loads, stability, mean waiting,
//! response and slowdown, with the model's conventions of ARCHITECTURE.md ("The model").
//!
//! Every objective is a sum of per-host terms that depend on two consecutive cutoffs
//! (s_{i−1}, s_i), so the optimiser can treat the cutoffs as a chain; the term is defined
//! once, in `host_term`, for every evaluator.

pub(crate) mod budget;
pub(crate) mod host_term;
pub(crate) mod lwl;
pub(crate) mod mmh;
pub(crate) mod random;
pub(crate) mod reference;
pub(crate) mod rigorous;
pub(crate) mod sita;
pub(crate) mod tags;

pub use host_term::ChainKind;
pub use lwl::lee_longton;
pub use mmh::{erlang_c, mmh_waiting};
pub use reference::{erlang_c_waiting, Routing};
pub use tags::host_load as tags_host_load;

use crate::dist::{DistError, JobSize, Point};
use crate::num::{message_number, parse_decimal, NumError};
use host_term::{weight_order, HostInputs, KillPoint};
use rug::float::Special;
use rug::Float;
use std::cell::RefCell;
use thiserror::Error;

/// Errors of the policy layer.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum PolicyError {
    /// Cutoffs of the wrong count, out of order or outside the support.
    #[error("cutoffs: {0}")]
    BadCutoffs(String),
    /// A load outside (0, h) or a non-positive λ.
    #[error("load: {0}")]
    BadLoad(String),
    /// A host count below 1.
    #[error("hosts must be at least 1, got {0}")]
    BadHosts(usize),
    /// The metric needs a moment that is infinite.
    #[error("the mean {metric} is infinite for this distribution: {source}")]
    InfiniteMetric {
        /// The metric's name.
        metric: &'static str,
        /// The infinite moment.
        source: DistError,
    },
    /// A request whose planned allocation exceeds a limit (what, the need, the limit).
    #[error("too large: {0}")]
    TooLarge(String),
    /// A distribution error.
    #[error(transparent)]
    Dist(#[from] DistError),
    /// A numeric error.
    #[error(transparent)]
    Num(#[from] NumError),
    /// A solver or search that failed where an answer exists (not the input's fault):
    /// what failed, how, and what may help.
    #[error("{what}: {detail} ({hint})")]
    Solver {
        /// What was being solved.
        what: String,
        /// How it failed.
        detail: String,
        /// An option that may get past it.
        hint: &'static str,
    },
}

/// The hint of a solver failure that a higher working precision may get past.
pub const HINT_MORE_DIGITS: &str = "more --digits may get past it";

impl crate::error::Classify for PolicyError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            PolicyError::Dist(e) => e.kind(),
            PolicyError::Num(e) => e.kind(),
            PolicyError::Solver { .. } => ErrorKind::Numerical,
            PolicyError::BadCutoffs(_)
            | PolicyError::BadLoad(_)
            | PolicyError::BadHosts(_)
            | PolicyError::TooLarge(_)
            | PolicyError::InfiniteMetric { .. } => ErrorKind::Input,
        }
    }
}

impl PolicyError {
    /// The check every evaluation and search starts with: `BadHosts` for no host.
    pub(crate) fn at_least_one_host(hosts: usize) -> Result<(), PolicyError> {
        if hosts < 1 {
            return Err(PolicyError::BadHosts(hosts));
        }
        Ok(())
    }

    /// Turns an infinite moment met while computing `metric` into [`PolicyError::InfiniteMetric`].
    pub fn for_metric(self, metric: Metric) -> Self {
        match self {
            PolicyError::Dist(e @ DistError::InfiniteMoment { .. }) => {
                PolicyError::InfiniteMetric {
                    metric: metric.name(),
                    source: e,
                }
            }
            other => other,
        }
    }
}

crate::vocab::vocabulary! {
    "policy",
    /// The routing policies with closed forms.
    pub enum PolicyKind {
        /// Size-Interval Task Assignment: host i serves sizes in (s_{i−1}, s_i].
        Sita,
        /// Task Assignment by Guessing Size: kill at s_i and restart at host i+1.
        Tags,
        /// Uniformly random host.
        Random,
    }
}

impl PolicyKind {
    /// The name used on the command line and in claim files.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The per-host term of a cutoff policy ([`host_term`]); `None` for a policy that
    /// takes no cutoffs (Random).
    pub fn chain_kind(self) -> Option<ChainKind> {
        match self {
            PolicyKind::Sita => Some(ChainKind::Sita),
            PolicyKind::Tags => Some(ChainKind::Tags),
            PolicyKind::Random => None,
        }
    }

    /// What the formula approximates with more than one host, for the outputs' notes;
    /// `None` where it is exact (SITA's and Random's hosts see thinned Poisson streams).
    pub fn approximation(self) -> Option<&'static str> {
        match self {
            PolicyKind::Tags => Some(
                "TAGS hosts >= 2 use the Poisson approximation of the papers (exact at host 1)",
            ),
            PolicyKind::Sita | PolicyKind::Random => None,
        }
    }
}

crate::vocab::vocabulary! {
    "metric",
    /// What is averaged.
    pub enum Metric {
        /// Mean waiting time E[W] (for TAGS including the wasted service).
        Waiting,
        /// Mean response time E[W] + E[X].
        Response,
        /// Mean slowdown E[W/X].
        Slowdown,
    }
}

impl Metric {
    /// The name used on the command line and in claim files.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// How the user gave the load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadSpec {
    /// Total offered load ρ = λ E[X] (`--load`).
    Total(String),
    /// Load per host u, ρ = u h (`--load-per-host`).
    PerHost(String),
    /// Arrival rate λ (`--lambda`).
    Lambda(String),
}

impl LoadSpec {
    /// Resolves to (λ, ρ) at the distribution's precision, checking 0 < ρ < h.
    ///
    /// ```
    /// use taskassign::dist::{DistSpec, DistFactory};
    /// use taskassign::policy::LoadSpec;
    /// let d = DistSpec::parse("exp:rate=2").unwrap().build(100).unwrap();
    /// let (lambda, rho) = LoadSpec::PerHost("0.25".into()).resolve(d.as_ref(), 2).unwrap();
    /// assert_eq!(rho, 0.5);
    /// assert_eq!(lambda, 1); // ρ / E[X] = 0.5 / 0.5
    /// assert!(LoadSpec::Total("2".into()).resolve(d.as_ref(), 2).is_err());
    /// ```
    pub fn resolve(&self, dist: &dyn JobSize, hosts: usize) -> Result<(Float, Float), PolicyError> {
        let bits = dist.prec();
        let mean = dist.mean()?;
        let num = |s: &str| parse_decimal(s, bits).map_err(|e| PolicyError::BadLoad(e.to_string()));
        let (lambda, rho) = match self {
            LoadSpec::Total(s) => {
                let rho = num(s)?;
                (Float::with_val(bits, &rho / &mean), rho)
            }
            LoadSpec::PerHost(s) => {
                let rho = num(s)? * Float::with_val(bits, hosts);
                (Float::with_val(bits, &rho / &mean), rho)
            }
            LoadSpec::Lambda(s) => {
                let lambda = num(s)?;
                let rho = Float::with_val(bits, &lambda * &mean);
                (lambda, rho)
            }
        };
        if !(rho > 0) {
            return Err(PolicyError::BadLoad(format!(
                "the load must be positive, got ρ = {}",
                message_number(&rho)
            )));
        }
        if rho >= hosts {
            return Err(PolicyError::BadLoad(format!(
                "total load ρ = λE[X] = {} must be below the number of hosts {hosts}: no policy is stable",
                message_number(&rho)
            )));
        }
        Ok((lambda, rho))
    }
}

/// The result of evaluating a policy with given cutoffs: each number a [`Float`] at the
/// working precision, or (`T` = [`crate::num::interval::Interval`], the proven
/// `EnclosedEvaluation`) an enclosure of the exact value, where +∞ stands for [+∞, +∞].
#[derive(Debug, Clone)]
pub struct Evaluation<T = Float> {
    /// Per-host loads ρ_i.
    pub host_loads: Vec<T>,
    /// Every ρ_i < 1 (for enclosures: proven; an undecided host is an error).
    pub stable: bool,
    /// The metric's value (+∞ when unstable).
    pub value: T,
    /// The part due to queueing (+∞ when unstable).
    pub queueing: T,
    /// The part due to service wasted on hosts that killed the job (TAGS; 0 otherwise).
    pub wasted: T,
    /// Mean waiting in queue at each host (+∞ when that host is unstable).
    pub host_waiting: Vec<T>,
}

/// Full cutoff vector s_0 < s_1 < … < s_h from the h − 1 interior cutoffs, checking count,
/// order and that each lies strictly inside the support (or at the least size, where the
/// law has an atom there).
pub fn full_cutoffs(
    dist: &dyn JobSize,
    hosts: usize,
    interior: &[Float],
) -> Result<Vec<Float>, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    if interior.len() != hosts - 1 {
        return Err(PolicyError::BadCutoffs(format!(
            "{hosts} hosts need {} cutoffs, got {}",
            hosts - 1,
            interior.len()
        )));
    }
    let bits = dist.prec();
    let lo = dist.lower();
    let hi = dist.upper();
    // A law with an atom at its least size: a cutoff there gives host 1 exactly that atom
    // (host 1 takes the sizes from below the support up to its cutoff).
    let atom_at_lo = dist.atom_at_or_below(&lo).is_some();
    let mut s = Vec::with_capacity(hosts + 1);
    s.push(lo.clone());
    for (i, c) in interior.iter().enumerate() {
        if !((*c > lo || (atom_at_lo && *c == lo)) && *c < hi) {
            return Err(PolicyError::BadCutoffs(format!(
                "cutoff {} = {} is outside the support ({}, {})",
                i + 1,
                message_number(c),
                message_number(&lo),
                message_number(&hi)
            )));
        }
        if i > 0 && *c <= interior[i - 1] {
            return Err(PolicyError::BadCutoffs(format!(
                "cutoffs must increase: s{} = {} ≤ s{} = {}",
                i + 1,
                message_number(c),
                i,
                message_number(&interior[i - 1])
            )));
        }
        s.push(Float::with_val(bits, c));
    }
    s.push(hi);
    Ok(s)
}

/// Evaluates `policy` for `dist` with arrival rate `lambda`, `hosts` hosts and the h − 1
/// interior cutoffs (ignored by Random, which needs none).
pub fn evaluate(
    policy: PolicyKind,
    dist: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    cutoffs: &[Float],
    metric: Metric,
) -> Result<Evaluation, PolicyError> {
    budget::check_eval_hosts(hosts, dist.prec())?;
    match policy.chain_kind() {
        Some(kind) => {
            let s = full_cutoffs(dist, hosts, cutoffs)?;
            evaluate_chain(kind, dist, lambda, &s, metric)
        }
        None => random::evaluate(dist, lambda, hosts, metric),
    }
}

/// A cutoff policy of `kind` with the full cutoff vector s_0 < … < s_h: each host's term
/// ([`host_term::host`]) on MPFR points, summed into queueing and wasted service; the
/// metric's value is their sum (+∞ when a host is unstable), plus E[X] for the response.
pub(crate) fn evaluate_chain(
    kind: ChainKind,
    dist: &dyn JobSize,
    lambda: &Float,
    s: &[Float],
    metric: Metric,
) -> Result<Evaluation, PolicyError> {
    let bits = dist.prec();
    let hosts = s.len() - 1;
    let mut host_loads = Vec::with_capacity(hosts);
    let mut host_waiting = Vec::with_capacity(hosts);
    let mut queueing = Float::with_val(bits, 0);
    let mut wasted = Float::with_val(bits, 0);
    // Each cutoff's shared values once (two hosts read each); the first host's interval
    // opens just below s_0, to take an atom there.
    let lo_open = dist.lower_open();
    let points: Vec<Point> = (0..=hosts)
        .map(|i| dist.point(if i == 0 { &lo_open } else { &s[i] }))
        .collect();
    let top = dist.point(&dist.upper());
    for i in 1..=hosts {
        let v = PointInputs::new(dist, kind, metric, &points[i - 1], &points[i], &top);
        let h = host_term::host(kind, lambda, &v, host_term::Parts::All)?;
        if !h.queueing.is_zero() {
            queueing += &h.queueing;
        }
        if let Some(w) = &h.wasted {
            wasted += w;
        }
        host_loads.push(h.load);
        host_waiting.push(h.waiting);
    }
    let stable = host_loads.iter().all(|r| *r < 1);
    if !stable {
        queueing = inf(bits);
    }
    // Exact where nothing is wasted (x + 0 = x at the same precision).
    let waiting = Float::with_val(bits, &queueing + &wasted);
    let value = match metric {
        Metric::Response => Float::with_val(bits, &waiting + &dist.mean()?),
        Metric::Waiting | Metric::Slowdown => waiting,
    };
    Ok(Evaluation {
        host_loads,
        stable,
        value,
        queueing,
        wasted,
        host_waiting,
    })
}

/// The inputs of a host term on (a, b] from a distribution's points, as
/// [`evaluate`] reads them: the interval's moments in one batch where they are all finite
/// (shared logarithms and powers), else one order at a time (M_2 only for a stable host:
/// it may be infinite when the host is not); the weights as partial moments up to the top.
pub(crate) struct PointInputs<'a> {
    dist: &'a dyn JobSize,
    metric: Metric,
    a: &'a Point,
    b: &'a Point,
    top: &'a Point,
    /// Whether the batch holds M_0 (a weight on the interval, SITA's, for waiting and
    /// response).
    with_m0: bool,
    /// The batch [M_0 (SITA), M_1, M_2], once computed; an entry is taken when read.
    batch: RefCell<Option<[Option<Float>; 3]>>,
}

impl<'a> PointInputs<'a> {
    /// The inputs of host (a, b] of `kind`; `top` is the point of the support's top.
    pub(crate) fn new(
        dist: &'a dyn JobSize,
        kind: ChainKind,
        metric: Metric,
        a: &'a Point,
        b: &'a Point,
        top: &'a Point,
    ) -> Self {
        PointInputs {
            dist,
            metric,
            a,
            b,
            top,
            with_m0: kind.weight_on_interval(),
            batch: RefCell::new(None),
        }
    }

    fn moment(&self, j: i32, a: &Point, b: &Point) -> Result<Float, PolicyError> {
        metric_moment(self.metric, self.dist.moment_between(j, a, b))
    }

    /// Entry `i` of the batch (0: M_0, 1: M_1, 2: M_2), `None` where the batch failed (the
    /// caller then computes that order alone). M_1 alone is computed with the batch.
    fn batched(&self, i: usize) -> Result<Option<Float>, PolicyError> {
        let mut cell = self.batch.borrow_mut();
        if cell.is_none() {
            let js: &[i32] = if self.with_m0 { &[0, 1, 2] } else { &[1, 2] };
            let all = self.dist.moments_between(js, self.a, self.b).ok();
            *cell = Some(match all {
                Some(v) if v.len() == js.len() => {
                    let mut it = v.into_iter();
                    let m0 = if self.with_m0 { it.next() } else { None };
                    [m0, it.next(), it.next()]
                }
                _ => [None, Some(self.moment(1, self.a, self.b)?), None],
            });
        }
        Ok(cell.as_mut().and_then(|b| b[i].take()))
    }

    fn batched_or_alone(&self, i: usize, j: i32) -> Result<Float, PolicyError> {
        match self.batched(i)? {
            Some(m) => Ok(m),
            None => self.moment(j, self.a, self.b),
        }
    }
}

impl HostInputs for PointInputs<'_> {
    type R = Float;
    type Error = PolicyError;
    fn m1(&self) -> Result<Float, PolicyError> {
        self.batched_or_alone(1, 1)
    }
    fn m2(&self) -> Result<Float, PolicyError> {
        self.batched_or_alone(2, 2)
    }
    fn interval_weight(&self) -> Result<Float, PolicyError> {
        match weight_order(self.metric) {
            // M_{−1} alone: the batch holds M_0.
            -1 => self.moment(-1, self.a, self.b),
            _ => self.batched_or_alone(0, 0),
        }
    }
    fn killed_at_b(&self) -> Result<Option<KillPoint<'_, Float>>, PolicyError> {
        let b = self.b;
        if b.x.is_infinite() || b.x >= self.dist.upper() {
            return Ok(None);
        }
        Ok(Some(KillPoint {
            b: &b.x,
            tail: b.tail(self.dist),
        }))
    }
    fn weight_above_a(&self) -> Result<Float, PolicyError> {
        self.moment(weight_order(self.metric), self.a, self.top)
    }
    fn mass_above_a(&self) -> Result<Float, PolicyError> {
        self.moment(0, self.a, self.top)
    }
    fn weight_above_b(&self) -> Result<Float, PolicyError> {
        self.moment(weight_order(self.metric), self.b, self.top)
    }
}

/// +∞ at `bits`.
pub(crate) fn inf(bits: u32) -> Float {
    Float::with_val(bits, Special::Infinity)
}

/// Maps an infinite moment to an infinite-metric error.
pub(crate) fn metric_moment(
    metric: Metric,
    r: Result<Float, DistError>,
) -> Result<Float, PolicyError> {
    r.map_err(|e| match e {
        e @ DistError::InfiniteMoment { .. } => PolicyError::InfiniteMetric {
            metric: metric.name(),
            source: e,
        },
        other => PolicyError::Dist(other),
    })
}

pub use host_term::pk_waiting;
