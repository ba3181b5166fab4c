//! The per-host term of the cutoff policies, written once for every scalar.
//!
//! Host i of a cutoff policy serves the jobs routed to it by the cutoffs (a, b] =
//! (s_{i−1}, s_i] as an M/G/1 FCFS queue with arrival rate λ. With n_1, n_2 the first two
//! moments of the work it serves per arrival,
//!
//! - its load is ρ_i = λ n_1 and, by Pollaczek–Khinchine, its mean waiting is
//!   W_i = λ n_2 / (2 (1 − ρ_i)) (+∞ when ρ_i ≥ 1);
//! - SITA (Harchol-Balter & Vesilo 2010, §2): n_j = M_j(a, b), and the host's share of
//!   E[W] (E[W/X]) is M_{j_w}(a, b) · W_i with j_w = 0 (−1);
//! - TAGS (Harchol-Balter 2002; Bachmat, Doncel & Sarfati 2019): a job of size X > a runs
//!   for min(X, b) and is killed at b, so n_j = M_j(a, b) + b^j F̄(b) (b below the top of the
//!   support), and the host's share is G(a) · W_i + b G(b) (queueing and the wasted service
//!   of the jobs it kills), G(x) = E[X^{j_w}; X > x];
//! - TAGS-minmax reads the mean queue length λ P(X > a) · W_i (Little's law).
//!
//! These are the model's conventions of ARCHITECTURE.md ("The model"). [`host`] computes them
//! from a [`HostInputs`]: each evaluator — [`crate::policy::evaluate`] on MPFR points, the
//! optimiser's MPFR grid on cumulative sums, its f64 search on logarithms, its polish on
//! MPFR values with derivatives — answers the inputs its own way, and all of them run this
//! one definition. A new cutoff policy adds a [`ChainKind`] and its arm in [`host`].

use crate::num::real::Real;
use crate::policy::Metric;

/// Which per-host term (the objective is their sum over the hosts: a chain in the cutoffs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainKind {
    /// SITA mean waiting / response / slowdown.
    Sita,
    /// TAGS mean waiting (queueing + wasted) / response / slowdown.
    Tags,
    /// TAGS mean queue length per host (for the minmax objective).
    TagsQueueLength,
}

/// The moment order j_w of the weight: 0 (waiting, response) or −1 (slowdown).
pub fn weight_order(metric: Metric) -> i32 {
    match metric {
        Metric::Slowdown => -1,
        _ => 0,
    }
}

/// What a host term on (a, b] reads about the job sizes. Each method is called at most
/// once per term, and only when the term needs it (M_2 and the weights only for a stable
/// host in [`Parts::Term`]), so an evaluator may compute lazily or hand over a batch it
/// computed at the first call.
pub trait HostInputs {
    /// The scalar.
    type R: Real;
    /// What a failed input reports.
    type Error;
    /// M_1(a, b).
    fn m1(&mut self) -> Result<Self::R, Self::Error>;
    /// M_2(a, b).
    fn m2(&mut self) -> Result<Self::R, Self::Error>;
    /// SITA's weight M_{j_w}(a, b).
    fn interval_weight(&mut self) -> Result<Self::R, Self::Error>;
    /// TAGS: b and F̄(b) when b is below the top of the support; `None` at the top, where
    /// nothing is killed.
    fn killed_at_b(&mut self) -> Result<Option<KillPoint<Self::R>>, Self::Error>;
    /// G(a) = E[X^{j_w}; X > a].
    fn weight_above_a(&mut self) -> Result<Self::R, Self::Error>;
    /// P(X > a).
    fn mass_above_a(&mut self) -> Result<Self::R, Self::Error>;
    /// G(b) = E[X^{j_w}; X > b].
    fn weight_above_b(&mut self) -> Result<Self::R, Self::Error>;
}

/// Which parts of a host [`host`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parts {
    /// The term only: an unstable host stops at its load (its term is +∞).
    Term,
    /// Every part, also for an unstable host (for the evaluation, which reports each).
    All,
}

/// One host of a cutoff policy.
#[derive(Debug, Clone)]
pub struct Host<R> {
    /// ρ_i = λ n_1.
    pub load: R,
    /// W_i, the mean waiting in its queue (+∞ when ρ_i ≥ 1).
    pub waiting: R,
    /// The weight times W_i: the host's queueing share of the objective (+∞ when unstable
    /// and the weight is not 0).
    pub queueing: R,
    /// TAGS: b G(b), the service wasted on the jobs the host kills (`None` where nothing
    /// is killed and for SITA).
    pub wasted: Option<R>,
}

impl<R: Real> Host<R> {
    /// Whether the host is stable (ρ_i < 1; see [`Real::at_least_one`] for a NaN load).
    pub fn stable(&self) -> bool {
        !self.load.at_least_one()
    }

    /// The host's term of the objective: queueing + wasted, +∞ when unstable.
    pub fn term(&self) -> R {
        if !self.stable() {
            return self.load.infinity();
        }
        match &self.wasted {
            Some(w) => self.queueing.add(w),
            None => self.queueing.clone(),
        }
    }
}

/// A TAGS cutoff b below the top of the support, with the tail F̄(b) of the jobs killed
/// there.
#[derive(Debug, Clone)]
pub struct KillPoint<R> {
    /// The cutoff b.
    pub b: R,
    /// F̄(b).
    pub tail: R,
}

/// b F̄(b), the work per arrival a TAGS host spends on the jobs it kills at b, and b.
#[derive(Debug, Clone)]
pub struct Killed<R> {
    /// The cutoff b.
    pub b: R,
    /// b F̄(b).
    pub b_tail: R,
}

impl<R: Real> Killed<R> {
    /// From b and F̄(b).
    pub fn new(at: KillPoint<R>) -> Self {
        let b_tail = at.b.mul(&at.tail);
        Killed { b: at.b, b_tail }
    }
}

/// n_1 = M_1(a, b) + b F̄(b): the first moment of the work per arrival (nothing killed:
/// M_1(a, b)).
pub fn served_first<R: Real>(m1: R, killed: Option<&Killed<R>>) -> R {
    match killed {
        Some(k) => m1.add(&k.b_tail),
        None => m1,
    }
}

/// n_2 = M_2(a, b) + b² F̄(b) (nothing killed: M_2(a, b)).
pub fn served_second<R: Real>(m2: R, killed: Option<&Killed<R>>) -> R {
    match killed {
        Some(k) => m2.add(&k.b.mul(&k.b_tail)),
        None => m2,
    }
}

/// Mean waiting in an M/G/1 FCFS queue with arrival rate λ, service second moment m2 and
/// load ρ (Pollaczek–Khinchine): λ m2 / (2 (1 − ρ)); +∞ when ρ ≥ 1.
///
/// ```
/// use rug::Float;
/// use taskassign::policy::pk_waiting;
/// // M/M/1 with λ = 1/2, μ = 1: W = ρ/(μ(1−ρ)) = 1.
/// let b = 64;
/// let w = pk_waiting(&Float::with_val(b, 0.5), &Float::with_val(b, 2), &Float::with_val(b, 0.5));
/// assert_eq!(w, 1);
/// ```
pub fn pk_waiting<R: Real>(lambda: &R, m2: &R, rho: &R) -> R {
    if rho.at_least_one() {
        return rho.infinity();
    }
    lambda.mul(m2).half().div(&rho.one_minus())
}

/// The host (a, b] of `kind` at arrival rate `lambda`, from its inputs (see the module docs
/// for the formulas).
pub fn host<V: HostInputs>(
    kind: ChainKind,
    lambda: &V::R,
    v: &mut V,
    parts: Parts,
) -> Result<Host<V::R>, V::Error> {
    let killed = match kind {
        ChainKind::Sita => None,
        ChainKind::Tags | ChainKind::TagsQueueLength => v.killed_at_b()?.map(Killed::new),
    };
    let load = lambda.mul(&served_first(v.m1()?, killed.as_ref()));
    if parts == Parts::Term && load.at_least_one() {
        let inf = load.infinity();
        return Ok(Host {
            load,
            waiting: inf.clone(),
            queueing: inf,
            wasted: None,
        });
    }
    let waiting = if !load.at_least_one() {
        pk_waiting(lambda, &served_second(v.m2()?, killed.as_ref()), &load)
    } else {
        load.infinity()
    };
    let weight = match kind {
        ChainKind::Sita => v.interval_weight()?,
        ChainKind::Tags => v.weight_above_a()?,
        ChainKind::TagsQueueLength => lambda.mul(&v.mass_above_a()?),
    };
    let queueing = if weight.is_zero() {
        weight
    } else {
        weight.mul(&waiting)
    };
    let wasted = match (&killed, kind) {
        (Some(k), ChainKind::Tags) => Some(k.b.mul(&v.weight_above_b()?)),
        _ => None,
    };
    Ok(Host {
        load,
        waiting,
        queueing,
        wasted,
    })
}
