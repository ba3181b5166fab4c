//! Stability regions.
//!
//! **Exact, FCFS with exponential i.i.d. copies** (Gardner et al. 2016; Bonald & Comte
//! 2017): stable iff Σ_{c∈A} λ_c < μ(∪_{c∈A} S_c) for every set A of classes. It suffices
//! to check the unions U of class sets reachable from ∅ with A(U) = {c: S_c ⊆ U} (every A
//! has a union U, and A(U) ⊇ A carries at least as much). Along the ray s·λ the system is
//! stable iff s < s* = min_U μ(U)/λ(U); the minimising U gives the binding classes.
//!
//! The condition is also necessary under every policy with exponential i.i.d. copies
//! (the class-A jobs leave at rate at most μ(∪_{c∈A} S_c)), so s* bounds every policy's
//! limit from above; other policies and identical copies are estimated by simulation.

use super::classes::{ClassSystem, ServerSet};
use super::exact::exact_methods_apply;
use super::policy::{Copies, Policy};
use super::product_form::reachable_unions;
use super::sim::{drift, RedundancySim, RedundancyTally};
use super::RedundancyError;
use crate::dist::{DistFactory, DistSpec};
use crate::num::certify::{AtBoth, Certified, Certify};
use crate::num::interval::Interval;
use crate::sim::stats::Estimate;
use crate::sim::{Replicator, Simulator, Streams};
use rug::Float;

/// The exact FCFS stability limit along the ray of the arrival-rate vector.
#[derive(Debug, Clone, PartialEq)]
pub struct FcfsRegion {
    /// s* = min_U μ(U)/λ(U): stable iff every λ_c is multiplied by less than this.
    pub scale_limit: Float,
    /// The binding union U (the smallest among ties).
    pub binding_union: ServerSet,
    /// The binding classes A(U) = {c: S_c ⊆ U}, 0-based.
    pub binding_classes: Vec<usize>,
}

impl FcfsRegion {
    /// True when the system as given (s = 1) is stable.
    pub fn stable(&self) -> bool {
        self.scale_limit > 1
    }
}

/// The exact FCFS region at `bits`.
///
/// ```
/// use taskassign::redundancy::{fcfs_region, ClassSystem};
/// // N-model, λ = (0.6, 0.6): {1} alone allows 1/0.6, {1} with {1+2} allows 2/1.2 = 5/3.
/// let n = ClassSystem::preset("n-model", &["0.6".into(), "0.6".into()]).unwrap();
/// let r = fcfs_region(&n, 64).unwrap();
/// assert!((r.scale_limit.to_f64() - 5.0 / 3.0).abs() < 1e-15);
/// assert_eq!(r.binding_classes, [0]); // {1}: 1/0.6 = 5/3 as well, and it is smaller
/// ```
pub fn fcfs_region(sys: &ClassSystem, bits: u32) -> Result<FcfsRegion, RedundancyError> {
    let lambda = sys.lambda(bits);
    let mut best: Option<(Float, ServerSet)> = None;
    for u in reachable_unions(sys)? {
        if u.is_empty() {
            continue;
        }
        let mut l = Float::with_val(bits, 0);
        for (c, x) in sys.classes().iter().zip(&lambda) {
            if c.set.is_subset_of(u) {
                l += x;
            }
        }
        if l.is_zero() {
            continue;
        }
        let r = Float::with_val(bits, sys.capacity(u, bits) / &l);
        // Unions come by size: a later (larger) union replaces only a strictly smaller ratio.
        if best.as_ref().is_none_or(|(b, _)| r < *b) {
            best = Some((r, u));
        }
    }
    let (scale_limit, binding_union) =
        best.ok_or_else(|| RedundancyError::Internal("a system without classes".into()))?;
    let binding_classes = (0..sys.classes().len())
        .filter(|&c| sys.classes()[c].set.is_subset_of(binding_union))
        .collect();
    Ok(FcfsRegion {
        scale_limit,
        binding_union,
        binding_classes,
    })
}

/// The exact FCFS stability limit s* = min_U μ(U)/λ(U) proven: the unions of
/// [`fcfs_region`], each ratio on [`Interval`]s from the decimal rates written (outward
/// rounding), and their least (the interval min holds the least of values taken one in
/// each). Nothing is truncated: the width is rounding only.
pub fn fcfs_scale_limit_enclosed(
    sys: &ClassSystem,
    bits: u32,
) -> Result<Interval, RedundancyError> {
    let enclose = |t: &str| {
        Interval::from_decimal(t, bits).map_err(|e| RedundancyError::Numerical(e.to_string()))
    };
    let lambda: Vec<Interval> = sys
        .classes()
        .iter()
        .map(|c| enclose(c.rate_text()))
        .collect::<Result<_, _>>()?;
    let mu: Vec<Interval> = sys
        .rate_texts()
        .iter()
        .map(|t| enclose(t))
        .collect::<Result<_, _>>()?;
    let mut best: Option<Interval> = None;
    for u in reachable_unions(sys)? {
        let mut load = Interval::zero_at(bits);
        for (c, l) in sys.classes().iter().zip(&lambda) {
            if c.set.is_subset_of(u) {
                load = load.add(l);
            }
        }
        // A union that carries no class bounds nothing (its ratio is +∞).
        if u.is_empty() || load.hi().is_zero() {
            continue;
        }
        let mut cap = Interval::zero_at(bits);
        for m in u.iter().filter_map(|s| mu.get(s)) {
            cap = cap.add(m);
        }
        let r = cap.div(&load);
        best = Some(match best {
            Some(b) => b.min(&r),
            None => r,
        });
    }
    best.ok_or_else(|| RedundancyError::Internal("a system without classes".into()))
}

/// The exact FCFS region at the two precisions of `digits` ([`Certify`]).
pub fn region_at_both(
    sys: &ClassSystem,
    digits: u32,
) -> Result<AtBoth<FcfsRegion>, RedundancyError> {
    Certify::digits(digits).run(|bits| fcfs_region(sys, bits))
}

/// The exact FCFS region with its scale limit s* certified to `digits` digits (the
/// digits on which two precisions agree); the region is the one at the higher precision.
#[derive(Debug, Clone, PartialEq)]
pub struct CertifiedRegion {
    /// s*, certified.
    pub scale_limit: Certified,
    /// The region at the certifying precision.
    pub region: FcfsRegion,
}

/// The exact FCFS region of `sys`, its scale limit certified to `digits` digits.
pub fn certified_region(
    sys: &ClassSystem,
    digits: u32,
) -> Result<CertifiedRegion, RedundancyError> {
    let both = region_at_both(sys, digits)?;
    let scale_limit = both.certify(digits, |r| &r.scale_limit);
    Ok(CertifiedRegion {
        scale_limit,
        region: both.hi,
    })
}

/// Drift per arrival of the number in system above which a run counts as unstable (and
/// below which, with its whole 95 % interval, as stable): an overload of 0.1 % of the
/// arrival rate.
pub const DRIFT_PER_ARRIVAL: f64 = 1e-3;

/// What the drift of the number in system says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriftVerdict {
    /// The 95 % interval of the drift per arrival lies below [`DRIFT_PER_ARRIVAL`].
    Stable,
    /// It lies above.
    Unstable,
    /// It straddles the threshold.
    Inconclusive,
}

impl DriftVerdict {
    /// The verdict of a drift estimate.
    pub fn of(e: &Estimate) -> Self {
        let (lo, hi) = e.interval();
        if hi < DRIFT_PER_ARRIVAL {
            DriftVerdict::Stable
        } else if lo > DRIFT_PER_ARRIVAL {
            DriftVerdict::Unstable
        } else {
            DriftVerdict::Inconclusive
        }
    }

    /// `stable`, `unstable`, `inconclusive`.
    pub fn name(self) -> &'static str {
        match self {
            DriftVerdict::Stable => "stable",
            DriftVerdict::Unstable => "unstable",
            DriftVerdict::Inconclusive => "inconclusive",
        }
    }
}

/// Options of the simulated estimate of the stability limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EstimateOptions {
    /// Arrivals per replication; the drift is measured over the second half.
    pub horizon: u64,
    /// Replications per scale.
    pub replications: usize,
    /// Base seed (every scale uses the same streams: common random numbers along the ray).
    pub seed: u64,
    /// Bisection steps after the bracket is found.
    pub bisections: usize,
    /// Worker threads.
    pub threads: Option<usize>,
}

impl EstimateOptions {
    /// Checks the options: at least [`MIN_DRIFT_HORIZON`] arrivals per replication,
    /// [`crate::sim::MIN_REPLICATIONS`] ≤ R ≤ [`crate::sim::MAX_REPLICATIONS`], at least one
    /// thread.
    pub fn validate(&self) -> Result<(), RedundancyError> {
        if self.horizon < MIN_DRIFT_HORIZON {
            return Err(RedundancyError::BadPolicy(format!(
                "horizon must be at least {MIN_DRIFT_HORIZON} arrivals, got {}",
                self.horizon
            )));
        }
        crate::sim::check_replications(self.replications)?;
        if self.threads == Some(0) {
            return Err(RedundancyError::BadPolicy(
                "threads must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// The fewest arrivals per replication of the drift test (its second half is measured).
pub const MIN_DRIFT_HORIZON: u64 = 100;
/// Default arrivals per replication of the drift test.
pub const DEFAULT_HORIZON: u64 = 400_000;
/// Default replications per scale.
pub const DEFAULT_DRIFT_REPLICATIONS: usize = 8;
/// Default bisection steps (the bracket shrinks to 2^-7 of its first width).
pub const DEFAULT_BISECTIONS: usize = 7;
/// The bracket search doubles or halves the scale at most this many times.
const MAX_EXPANSIONS: usize = 12;
/// An inconclusive midpoint is retried once with this many times the horizon.
const RETRY_FACTOR: u64 = 4;

impl Default for EstimateOptions {
    fn default() -> Self {
        EstimateOptions {
            horizon: DEFAULT_HORIZON,
            replications: DEFAULT_DRIFT_REPLICATIONS,
            seed: crate::sim::DEFAULT_SEED,
            bisections: DEFAULT_BISECTIONS,
            threads: None,
        }
    }
}

/// One scale tried.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalePoint {
    /// The factor s on every λ_c.
    pub scale: f64,
    /// Arrivals per replication.
    pub horizon: u64,
    /// The drift of the number in system per arrival (95 % half-width).
    pub drift: crate::sim::stats::Estimate,
    /// What it says.
    pub verdict: DriftVerdict,
}

/// The simulated estimate of the stability limit along the ray s·λ.
#[derive(Debug, Clone, PartialEq)]
pub struct StabilityEstimate {
    /// The largest scale judged stable.
    pub stable_up_to: Option<f64>,
    /// The smallest scale judged unstable.
    pub unstable_from: Option<f64>,
    /// Every scale tried, in order.
    pub points: Vec<ScalePoint>,
    /// The classes whose count drifts up (95 % interval above 0) at `unstable_from`.
    pub binding_classes: Vec<usize>,
    /// True when the bisection stopped at a midpoint it could not decide.
    pub stopped_inconclusive: bool,
}

/// Replications of a long run from empty (the drift test's input).
struct TraceRun<'a> {
    sim: &'a RedundancySim,
    horizon: u64,
}

impl Simulator for TraceRun<'_> {
    type Tally = RedundancyTally;
    fn replicate(&self, streams: &Streams) -> RedundancyTally {
        self.sim.trace(streams, self.horizon)
    }
}

/// The scale s* beyond which `policy` is unstable on `sys` with `copies` and law `dist`,
/// estimated by simulation: at each scale, `replications` runs of `horizon` arrivals from
/// empty, and the drift of the number in system per arrival over their second halves
/// ([`DriftVerdict`]: stable when its 95 % interval lies below
/// [`DRIFT_PER_ARRIVAL`], unstable when above, inconclusive otherwise). From
/// s = 1 the scale doubles (or halves) until both verdicts are seen, then bisects; an
/// undecided midpoint is retried with [`RETRY_FACTOR`] times the horizon, and if still
/// undecided the search stops there: the limit lies in [stable_up_to, unstable_from] and
/// the interval says how sharp the estimate is. The threshold makes the estimate lean
/// slightly high (a drift below it is called stable).
pub fn estimate_scale_limit(
    sys: &ClassSystem,
    policy: Policy,
    copies: Copies,
    dist: &DistSpec,
    opts: &EstimateOptions,
) -> Result<StabilityEstimate, RedundancyError> {
    opts.validate()?;
    let d = dist.build(crate::num::working_bits(crate::num::DEFAULT_DIGITS))?;
    let mut points = Vec::new();
    let mut eval =
        |s: f64, horizon: u64| -> Result<(ScalePoint, Vec<RedundancyTally>), RedundancyError> {
            let scaled = sys.scaled(&Float::with_val(64, s))?;
            let sim = RedundancySim::new(&scaled, policy, copies, d.as_ref(), 1, 0)?;
            let mut rep = Replicator::new(opts.seed, 0, opts.replications)?;
            if let Some(t) = opts.threads {
                rep = rep.threads(t);
            }
            let run = rep.run(&TraceRun { sim: &sim, horizon }, None)?;
            let e = drift(&run.tallies, None);
            let p = ScalePoint {
                scale: s,
                horizon,
                drift: e,
                verdict: DriftVerdict::of(&e),
            };
            points.push(p);
            Ok((p, run.tallies))
        };
    let mut lo: Option<f64> = None;
    let mut hi: Option<(f64, Vec<RedundancyTally>)> = None;
    let (p, t) = eval(1.0, opts.horizon)?;
    match p.verdict {
        DriftVerdict::Stable => lo = Some(1.0),
        DriftVerdict::Unstable => hi = Some((1.0, t)),
        DriftVerdict::Inconclusive => {}
    }
    let mut up = 1.0;
    let mut down = 1.0;
    for _ in 0..MAX_EXPANSIONS {
        if lo.is_some() && hi.is_some() {
            break;
        }
        if hi.is_none() {
            up *= 2.0;
            let (p, t) = eval(up, opts.horizon)?;
            match p.verdict {
                DriftVerdict::Unstable => hi = Some((up, t)),
                DriftVerdict::Stable => lo = Some(up),
                DriftVerdict::Inconclusive => {}
            }
        } else {
            down /= 2.0;
            let (p, _) = eval(down, opts.horizon)?;
            if p.verdict == DriftVerdict::Stable {
                lo = Some(down);
            }
        }
    }
    let mut stopped_inconclusive = false;
    if let (Some(mut l), Some((mut h, mut ht))) = (lo, hi.clone()) {
        for _ in 0..opts.bisections {
            let m = 0.5 * (l + h);
            let (mut p, mut t) = eval(m, opts.horizon)?;
            if p.verdict == DriftVerdict::Inconclusive {
                (p, t) = eval(m, opts.horizon.saturating_mul(RETRY_FACTOR))?;
            }
            match p.verdict {
                DriftVerdict::Stable => l = m,
                DriftVerdict::Unstable => {
                    h = m;
                    ht = t;
                }
                DriftVerdict::Inconclusive => {
                    stopped_inconclusive = true;
                    break;
                }
            }
        }
        lo = Some(l);
        hi = Some((h, ht));
    }
    let binding_classes = match &hi {
        Some((_, t)) => (0..sys.classes().len())
            .filter(|&c| drift(t, Some(c)).interval().0 > 0.0)
            .collect(),
        None => Vec::new(),
    };
    Ok(StabilityEstimate {
        stable_up_to: lo,
        unstable_from: hi.map(|(h, _)| h),
        points,
        binding_classes,
        stopped_inconclusive,
    })
}

/// What decides whether a simulated system is stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimulatedStability {
    /// Outside the exact FCFS region (exponential i.i.d. copies): the classes inside this
    /// union exceed its capacity, which makes the system unstable under every policy.
    OutsideRegion(ServerSet),
    /// FCFS inside its exact region (exponential i.i.d. copies): stable.
    InsideFcfsRegion,
    /// Neither applies: the run's drift of the number in system decides.
    Drift(DriftVerdict),
}

impl SimulatedStability {
    /// Stable (`Some(true)`), unstable (`Some(false)`) or undecided (`None`).
    pub fn stable(self) -> Option<bool> {
        match self {
            SimulatedStability::OutsideRegion(_) => Some(false),
            SimulatedStability::InsideFcfsRegion => Some(true),
            SimulatedStability::Drift(DriftVerdict::Stable) => Some(true),
            SimulatedStability::Drift(DriftVerdict::Unstable) => Some(false),
            SimulatedStability::Drift(DriftVerdict::Inconclusive) => None,
        }
    }
}

/// Whether a simulation of `policy` ran a stable system: the exact FCFS region where the
/// exact methods apply (exponential i.i.d. copies: outside it every policy is unstable,
/// inside it FCFS is stable), else the drift of the run.
pub fn simulated_stability(
    region: Option<&FcfsRegion>,
    policy: Policy,
    exact_methods_apply: bool,
    drift: &Estimate,
) -> SimulatedStability {
    if let (Some(r), true) = (region, exact_methods_apply) {
        if !r.stable() {
            return SimulatedStability::OutsideRegion(r.binding_union);
        }
        if policy.has_product_form() {
            return SimulatedStability::InsideFcfsRegion;
        }
    }
    SimulatedStability::Drift(DriftVerdict::of(drift))
}

/// What `redundancy stability` finds: the exact FCFS region where the exact methods
/// apply, and the simulated estimate where the region is not the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Stability {
    /// The exact FCFS region (exponential i.i.d. copies), its limit certified.
    pub region: Option<CertifiedRegion>,
    /// True when the region is the answer: FCFS with exponential i.i.d. copies, and no
    /// simulation asked for.
    pub exact_applies: bool,
    /// The simulated estimate, when one was run.
    pub estimate: Option<StabilityEstimate>,
}

/// The stability limit of `policy` on `sys` along the ray of its arrival rates: exact
/// (the FCFS region, certified to `digits` digits) for FCFS with exponential i.i.d.
/// copies, estimated by simulation ([`estimate_scale_limit`] with `opts`) otherwise or
/// when `simulate` asks for the cross-check.
pub fn stability(
    sys: &ClassSystem,
    policy: Policy,
    copies: Copies,
    dist: &DistSpec,
    simulate: bool,
    opts: &EstimateOptions,
    digits: u32,
) -> Result<Stability, RedundancyError> {
    let exp_iid = exact_methods_apply(dist, copies)?;
    let exact_applies = exp_iid && policy.has_product_form() && !simulate;
    let region = if exp_iid {
        Some(certified_region(sys, digits)?)
    } else {
        None
    };
    let estimate = if exact_applies {
        None
    } else {
        Some(estimate_scale_limit(sys, policy, copies, dist, opts)?)
    };
    Ok(Stability {
        region,
        exact_applies,
        estimate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The proven limit against the region's closed forms by hand: the N-model {1}, {1,2}
    /// at λ = (a, b) has s* = min(1/a, 2/(a + b)) (the region λ_1 < 1, λ_1 + λ_12 < 2;
    /// `proofs-check/arv22/redundancy-stability.toml`), so (0.9, 0.5) gives 1/0.9 and
    /// (0.2, 1.5) gives 2/1.7; disjoint classes 1:0.3, 2:0.2 give min(1/0.3, 1/0.2,
    /// 2/0.5) = 10/3. Each enclosure contains the value (computed at 600 bits) and is at
    /// most 2^−190 wide relative; [`fcfs_region`] at 200 bits lies within 2^−198 of it.
    #[test]
    fn the_enclosed_limit_contains_the_closed_forms() {
        let hp = 600;
        let d = |x: &str| crate::num::parse_decimal(x, hp).unwrap();
        for (sys, want) in [
            (
                ClassSystem::preset("n-model", &["0.9".into(), "0.5".into()]).unwrap(),
                Float::with_val(hp, 1) / d("0.9"),
            ),
            (
                ClassSystem::preset("n-model", &["0.2".into(), "1.5".into()]).unwrap(),
                Float::with_val(hp, 2) / d("1.7"),
            ),
            (
                ClassSystem::new(
                    vec!["1".into(), "1".into()],
                    vec![
                        (ServerSet::parse("1", 2).unwrap(), "0.3".into()),
                        (ServerSet::parse("2", 2).unwrap(), "0.2".into()),
                    ],
                )
                .unwrap(),
                Float::with_val(hp, 10) / 3u32,
            ),
        ] {
            let e = fcfs_scale_limit_enclosed(&sys, 200).unwrap();
            assert!(e.contains(&want), "{e:?} against {want}");
            // The certified limit (rounded to nearest at 200 bits) lies within an ulp of it.
            let c = fcfs_region(&sys, 200).unwrap().scale_limit;
            let ulp = Float::with_val(hp, &want) >> 198u32;
            assert!(
                Float::with_val(hp, &c - &want).abs() <= ulp,
                "{c} against {want}"
            );
            assert!(e.rel_width() < 2f64.powi(-190), "{e:?}");
        }
    }
}
