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
use rug::Float;

crate::vocab::vocabulary! {
    "host term",
    /// Which per-host term (the objective is their sum over the hosts: a chain in the cutoffs).
    pub enum ChainKind {
        /// SITA mean waiting / response / slowdown.
        Sita,
        /// TAGS mean waiting (queueing + wasted) / response / slowdown.
        Tags,
        /// TAGS mean queue length per host (for the minmax objective).
        TagsQueueLength,
    }
}

impl ChainKind {
    /// The moment order j of the weight of a host's waiting W_i: SITA weighs it by
    /// M_j(a, b) and TAGS by G(a) = E[X^j; X > a], both with j = j_w of the metric
    /// ([`weight_order`]); the TAGS queue length by λ P(X > a), order 0.
    pub fn weight_order(self, metric: Metric) -> i32 {
        match self {
            ChainKind::Sita | ChainKind::Tags => weight_order(metric),
            ChainKind::TagsQueueLength => 0,
        }
    }

    /// Whether the weight is a moment over the host's own interval (a, b]
    /// ([`HostInputs::interval_weight`]: SITA), rather than above a (TAGS: every job
    /// longer than a visits the host).
    pub fn weight_on_interval(self) -> bool {
        match self {
            ChainKind::Sita => true,
            ChainKind::Tags | ChainKind::TagsQueueLength => false,
        }
    }

    /// Whether the host kills the jobs still running at b and passes them on (TAGS): its
    /// work per arrival gains b^j F̄(b) ([`HostInputs::killed_at_b`]).
    pub fn kills_at_b(self) -> bool {
        match self {
            ChainKind::Sita => false,
            ChainKind::Tags | ChainKind::TagsQueueLength => true,
        }
    }

    /// Whether the term counts the service wasted on the jobs killed at b, b G(b)
    /// ([`HostInputs::weight_above_b`]: TAGS's waiting; the queue length counts none).
    pub fn counts_waste(self) -> bool {
        match self {
            ChainKind::Tags => true,
            ChainKind::Sita | ChainKind::TagsQueueLength => false,
        }
    }

    /// Whether the term reads anything above its interval: the tail F̄ and the weight G at
    /// a cutoff (every kind that kills, or weighs by the jobs above a). The evaluators
    /// prepare those per cutoff only when this holds.
    pub fn needs_tail(self) -> bool {
        self.kills_at_b() || !self.weight_on_interval()
    }
}

/// The moment order j_w of the weight: 0 (waiting, response) or −1 (slowdown).
pub fn weight_order(metric: Metric) -> i32 {
    match metric {
        Metric::Slowdown => -1,
        Metric::Waiting | Metric::Response => 0,
    }
}

/// What a host term on (a, b] reads about the job sizes. Each method is called at most
/// once per term, and only when the term needs it (M_2 and the weights only for a stable
/// host in [`Parts::Term`]), so an evaluator may compute lazily or hand over a batch it
/// computed at the first call (behind a `Cell`: the methods take `&self`, so that the
/// cutoff b can be lent to the term without a copy).
pub trait HostInputs {
    /// The scalar.
    type R: Real;
    /// What a failed input reports.
    type Error;
    /// M_1(a, b).
    fn m1(&self) -> Result<Self::R, Self::Error>;
    /// M_2(a, b).
    fn m2(&self) -> Result<Self::R, Self::Error>;
    /// SITA's weight M_{j_w}(a, b).
    fn interval_weight(&self) -> Result<Self::R, Self::Error>;
    /// TAGS: b and F̄(b) when b is below the top of the support; `None` at the top, where
    /// nothing is killed.
    fn killed_at_b(&self) -> Result<Option<KillPoint<'_, Self::R>>, Self::Error>;
    /// G(a) = E[X^{j_w}; X > a].
    fn weight_above_a(&self) -> Result<Self::R, Self::Error>;
    /// P(X > a).
    fn mass_above_a(&self) -> Result<Self::R, Self::Error>;
    /// G(b) = E[X^{j_w}; X > b].
    fn weight_above_b(&self) -> Result<Self::R, Self::Error>;
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
    #[inline]
    pub fn stable(&self) -> bool {
        !self.load.at_least_one()
    }

    /// The host's term of the objective: queueing + wasted, +∞ when unstable.
    #[inline]
    pub fn term(self) -> R {
        if !self.stable() {
            return self.load.infinity();
        }
        match &self.wasted {
            Some(w) => self.queueing.add(w),
            None => self.queueing,
        }
    }
}

/// A TAGS cutoff b below the top of the support, with the tail F̄(b) of the jobs killed
/// there.
#[derive(Debug, Clone)]
pub struct KillPoint<'b, R> {
    /// The cutoff b.
    pub b: &'b R,
    /// F̄(b).
    pub tail: R,
}

/// A TAGS cutoff b below the top with b F̄(b), the work per arrival the host spends on the
/// jobs it kills there.
#[derive(Debug, Clone)]
pub struct Killed<'b, R> {
    /// The cutoff b.
    pub b: &'b R,
    /// F̄(b).
    pub tail: R,
    /// b F̄(b).
    pub b_tail: R,
}

impl<'b, R: Real> Killed<'b, R> {
    /// From b and F̄(b).
    #[inline]
    pub fn new(at: KillPoint<'b, R>) -> Self {
        let b_tail = at.b.mul(&at.tail);
        Killed {
            b: at.b,
            tail: at.tail,
            b_tail,
        }
    }
}

/// n_1 = M_1(a, b) + b F̄(b): the first moment of the work per arrival (nothing killed:
/// M_1(a, b)).
#[inline]
pub fn served_first<R: Real>(m1: R, killed: Option<&Killed<'_, R>>) -> R {
    match killed {
        Some(k) => m1.add(&k.b_tail),
        None => m1,
    }
}

/// n_2 = M_2(a, b) + b² F̄(b) (nothing killed: M_2(a, b)).
#[inline]
pub fn served_second<R: Real>(m2: R, killed: Option<&Killed<'_, R>>) -> R {
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
#[inline]
pub fn pk_waiting<R: Real>(lambda: &R, m2: &R, rho: &R) -> R {
    if rho.at_least_one() {
        return rho.infinity();
    }
    pk_given(lambda, m2, &rho.one_minus())
}

/// λ m2 / (2 (1 − ρ)) from 1 − ρ (a stable load).
#[inline]
fn pk_given<R: Real>(lambda: &R, m2: &R, one_minus_rho: &R) -> R {
    lambda.mul(m2).half().div(one_minus_rho)
}

/// The host (a, b] of `kind` at arrival rate `lambda`, from its inputs (see the module docs
/// for the formulas).
#[inline]
pub fn host<V: HostInputs>(
    kind: ChainKind,
    lambda: &V::R,
    v: &V,
    parts: Parts,
) -> Result<Host<V::R>, V::Error> {
    Ok(host_pieces(kind, lambda, v, parts)?.host)
}

/// A [`host`] with the pieces of it that its derivatives need again.
struct Pieces<'b, R> {
    host: Host<R>,
    killed: Option<Killed<'b, R>>,
    /// 1 − ρ_i (stable hosts).
    one_minus_load: Option<R>,
    /// The weight of W_i (stable hosts).
    weight: Option<R>,
    /// G(b) (TAGS, b below the top).
    g_b: Option<R>,
}

/// [`host`] and its pieces.
#[inline]
fn host_pieces<'v, V: HostInputs>(
    kind: ChainKind,
    lambda: &V::R,
    v: &'v V,
    parts: Parts,
) -> Result<Pieces<'v, V::R>, V::Error> {
    let killed = match kind {
        ChainKind::Sita => None,
        ChainKind::Tags | ChainKind::TagsQueueLength => v.killed_at_b()?.map(Killed::new),
    };
    let load = lambda.mul(&served_first(v.m1()?, killed.as_ref()));
    let stable = !load.at_least_one();
    if parts == Parts::Term && !stable {
        let inf = load.infinity();
        let host = Host {
            load,
            waiting: inf.clone(),
            queueing: inf,
            wasted: None,
        };
        return Ok(Pieces {
            host,
            killed,
            one_minus_load: None,
            weight: None,
            g_b: None,
        });
    }
    let (waiting, one_minus_load) = if stable {
        let one_m = load.one_minus();
        let n2 = served_second(v.m2()?, killed.as_ref());
        (pk_given(lambda, &n2, &one_m), Some(one_m))
    } else {
        (load.infinity(), None)
    };
    let weight = match kind {
        ChainKind::Sita => v.interval_weight()?,
        ChainKind::Tags => v.weight_above_a()?,
        ChainKind::TagsQueueLength => lambda.mul(&v.mass_above_a()?),
    };
    let queueing = if weight.is_zero() {
        weight.clone()
    } else {
        weight.mul(&waiting)
    };
    let (wasted, g_b) = match (&killed, kind.counts_waste()) {
        (Some(k), true) => {
            let g_b = v.weight_above_b()?;
            (Some(k.b.mul(&g_b)), Some(g_b))
        }
        (None, _) | (_, false) => (None, None),
    };
    let host = Host {
        load,
        waiting,
        queueing,
        wasted,
    };
    Ok(Pieces {
        host,
        killed,
        one_minus_load,
        weight: Some(weight),
        g_b,
    })
}

/// A host term and its partial derivatives in its two cutoffs.
#[derive(Debug, Clone)]
pub struct TermGrad {
    /// T(a, b) (+∞ if the host is unstable).
    pub value: Float,
    /// ∂T/∂a (0 where a is fixed: the first host).
    pub da: Float,
    /// ∂T/∂b (0 where b is fixed: the last host).
    pub db: Float,
}

/// The inputs of [`host_grad`]: those of the term, and the density at each free end.
pub trait HostSlopes: HostInputs<R = Float> {
    /// The moment order j_w of the weight (see [`weight_order`]).
    fn weight_order(&self) -> i32;
    /// (x, f(x)) at x = a (`at_b` false) or x = b; `None` where that end is fixed (a = s_0,
    /// b = the top of the support), whose derivative is 0.
    fn end(&self, at_b: bool) -> Result<Option<(&Float, Float)>, Self::Error>;
}

/// x^j as a float at `bits` (x finite; j ∈ {−1, 0, 1, 2}).
fn powj(bits: u32, x: &Float, j: i32) -> Float {
    match j {
        0 => Float::with_val(bits, 1),
        1 => Float::with_val(bits, x),
        2 => Float::with_val(bits, x * x),
        -1 => Float::with_val(bits, 1u32) / x,
        _ => Float::with_val(bits, x * x) * x,
    }
}

/// The host term of [`host`] (MPFR) with its partial derivatives, by the chain rule
/// through the same pieces: with the inputs' derivatives ∂M_j(a, b)/∂b = b^j f(b),
/// ∂M_j(a, b)/∂a = −a^j f(a), ∂F̄(b)/∂b = −f(b) and ∂G(x)/∂x = −x^{j_w} f(x),
///
/// - ∂W/∂x = λ n₂'/(2 (1 − ρ)) + W λ n₁'/(1 − ρ) (Pollaczek–Khinchine, ρ = λ n₁), where
///   for TAGS ∂n₁/∂b = F̄(b) and ∂n₂/∂b = 2b F̄(b) (the kill at b cancels the density
///   terms exactly);
/// - SITA: T = w W, ∂T/∂x = w' W + w ∂W/∂x;
/// - TAGS: T = G(a) W + b G(b), ∂T/∂a = G'(a) W + G(a) ∂W/∂a,
///   ∂T/∂b = G(a) ∂W/∂b + G(b) + b G'(b) (queue length: λ P(X > a) for G(a), no waste).
///
/// The analytic ∂n/∂b keeps the digits that forward-mode differentiation of n₁ = M_1 + b F̄(b)
/// would spend on b f(b) − b f(b); `tests` check the two against each other.
pub fn host_grad<V: HostSlopes>(
    kind: ChainKind,
    lambda: &Float,
    v: &V,
) -> Result<TermGrad, V::Error> {
    let p = host_pieces(kind, lambda, v, Parts::Term)?;
    let bits = p.host.load.prec();
    let zero = || Float::with_val(bits, 0);
    let (Some(one_m), Some(w)) = (p.one_minus_load, p.weight) else {
        // Unstable: T = +∞, no derivatives.
        return Ok(TermGrad {
            value: p.host.term(),
            da: zero(),
            db: zero(),
        });
    };
    let q = &p.host.waiting;
    let jw = v.weight_order();
    // ∂W/∂x from ∂n₁/∂x and ∂n₂/∂x.
    let qx = |n1x: &Float, n2x: &Float| -> Float {
        Float::with_val(bits, lambda * n2x) / Float::with_val(bits, &one_m * 2u32)
            + Float::with_val(bits, q * lambda) * n1x / &one_m
    };
    // f(x) x^j.
    let slope = |x: &Float, f: &Float, j: i32| Float::with_val(bits, f * &powj(bits, x, j));
    match kind {
        ChainKind::Sita => {
            let d = |at_b: bool| -> Result<Float, V::Error> {
                let Some((x, f)) = v.end(at_b)? else {
                    return Ok(zero());
                };
                let sign = if at_b { 1 } else { -1 };
                let wx = slope(x, &f, jw) * sign;
                let m1x = slope(x, &f, 1) * sign;
                let m2x = slope(x, &f, 2) * sign;
                let rx = qx(&m1x, &m2x);
                Ok(Float::with_val(bits, &wx * q) + Float::with_val(bits, &w * &rx))
            };
            let da = d(false)?;
            let db = d(true)?;
            let value = p.host.term();
            Ok(TermGrad { value, da, db })
        }
        ChainKind::Tags | ChainKind::TagsQueueLength => {
            let queue_length = match kind {
                ChainKind::TagsQueueLength => true,
                ChainKind::Tags | ChainKind::Sita => false,
            };
            let da = match v.end(false)? {
                Some((a, f)) => {
                    let n1a = -slope(a, &f, 1);
                    let n2a = -slope(a, &f, 2);
                    let mut gaa = -slope(a, &f, if queue_length { 0 } else { jw });
                    if queue_length {
                        gaa *= lambda;
                    }
                    Float::with_val(bits, &gaa * q) + Float::with_val(bits, &w * &qx(&n1a, &n2a))
                }
                None => zero(),
            };
            let db = match &p.killed {
                Some(k) => {
                    let n2b = Float::with_val(bits, &k.b_tail * 2u32);
                    let mut d = Float::with_val(bits, &w * &qx(&k.tail, &n2b));
                    if let Some(g_b) = &p.g_b {
                        if let Some((b, f)) = v.end(true)? {
                            let gbb = -slope(b, &f, jw);
                            d += g_b;
                            d += Float::with_val(bits, b * &gbb);
                        }
                    }
                    d
                }
                None => zero(),
            };
            let value = p.host.term();
            Ok(TermGrad { value, da, db })
        }
    }
}
