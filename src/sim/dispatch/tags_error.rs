//! The error of the Poisson approximation at TAGS hosts ≥ 2.
//!
//! Host i ≥ 2 of TAGS receives the jobs killed at host i − 1, at their kill times: not a
//! Poisson stream. The TAGS formula (ARCHITECTURE.md, "The model") nevertheless treats it as Poisson with rate
//! λ F̄(s_{i−1}) (Pollaczek–Khinchine), which is the approximation used by the TAGS papers.
//! [`tags_poisson_error`] simulates the chain exactly and reports, per host, the simulated
//! mean queueing delay per visit, the formula's value, and the relative error
//! (approx − sim)/sim with its 95 % half-width approx·hw/sim² (delta method; the formula's
//! value is exact arithmetic, so all the uncertainty is the simulation's).
//!
//! [`balanced_cutoffs`] gives the TAGS cutoffs that equalise the host loads ρ_i (the TAGS
//! analogue of SITA-E), used by the table in `data/tags_poisson_error.*`.

use super::setup::{prepare, SimRequest};
use super::SimPolicy;
use crate::dist::JobSize;
use crate::num::show;
use crate::policy::{tags, PolicyError};
use crate::sim::observe::names;
use crate::sim::stats::{Estimate, HeavyTail};
use crate::sim::SimError;
use rug::Float;

/// Bisection steps of the cutoff and load searches in [`balanced_cutoffs`] (2^-100 of the
/// bracket is below f64 resolution, which is all the table needs).
const BALANCE_STEPS: usize = 100;
/// The common load of [`balanced_cutoffs`] is bracketed to this width.
const BALANCE_LOAD_TOL: f64 = 1e-13;

/// One host of a TAGS approximation-error row.
#[derive(Debug, Clone, PartialEq)]
pub struct TagsHostError {
    /// Host index, 1-based.
    pub host: usize,
    /// ρ_i (exact).
    pub load: f64,
    /// Simulated mean queueing delay per visit.
    pub simulated: Estimate,
    /// The formula's Q_i (exact at host 1, Poisson approximation beyond).
    pub formula: f64,
    /// (formula − simulated) / simulated.
    pub rel_error: f64,
    /// 95 % half-width of `rel_error`: formula · hw / simulated².
    pub rel_error_half_width: f64,
}

/// Simulates the TAGS request `req` (policy must be TAGS, Poisson arrivals) and compares
/// each host's queueing delay (`host_waiting[i]`) with the formula's
/// ([`super::analytic::reference_waiting`]).
pub fn tags_poisson_error(req: &SimRequest) -> Result<(Vec<TagsHostError>, HeavyTail), SimError> {
    if req.policy != SimPolicy::Tags || req.interarrival.is_some() {
        return Err(SimError::BadConfig(
            "the Poisson-approximation error is defined for TAGS with Poisson arrivals".into(),
        ));
    }
    let p = prepare(req)?;
    let formula = p
        .analytic
        .as_ref()
        .and_then(|a| a.host_waiting.clone())
        .ok_or_else(|| SimError::BadConfig("no analytic per-host waiting".into()))?;
    let loads = p.host_loads.clone().unwrap_or_default();
    let r = p.run(None, None)?;
    let rows = r
        .estimates
        .vector(names::HOST_WAITING)
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let f = formula.get(i).copied().unwrap_or(f64::NAN);
            let rel_error = (f - e.mean) / e.mean;
            TagsHostError {
                host: i + 1,
                load: loads.get(i).copied().unwrap_or(f64::NAN),
                simulated: *e,
                formula: f,
                rel_error,
                rel_error_half_width: (f * e.half_width / (e.mean * e.mean)).abs(),
            }
        })
        .collect();
    Ok((rows, r.heavy_tail))
}

/// The TAGS cutoffs s_1 < … < s_{h−1} that give every host the same load L (L found by
/// bisection: a larger common load pushes every cutoff up and leaves less for the last
/// host). Errors when the common load would be ≥ 1 (no balanced stable cutoffs).
pub fn balanced_cutoffs(
    d: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
) -> Result<(Vec<Float>, f64), SimError> {
    let bits = d.prec();
    let lo_open = d.lower_open();
    let top = d.upper();
    if !top.is_finite() {
        return Err(SimError::BadConfig(
            "balanced TAGS cutoffs are only searched for bounded supports".into(),
        ));
    }
    // Greedy chain for the common load `l`: each cutoff makes its host's load exactly l;
    // returns the cutoffs and the last host's load (None if an earlier host could take
    // every remaining job, i.e. l is too large).
    let chain = |l: f64| -> Result<Option<(Vec<Float>, f64)>, PolicyError> {
        let target = Float::with_val(bits, l);
        let mut cut = Vec::with_capacity(hosts - 1);
        let mut a = lo_open.clone();
        for _ in 1..hosts {
            if tags::host_load(d, lambda, &a, &top)? <= target {
                return Ok(None);
            }
            let mut lo = if a < d.lower() { d.lower() } else { a.clone() };
            let mut hi = top.clone();
            for _ in 0..BALANCE_STEPS {
                let mid = if lo > 0 {
                    Float::with_val(bits, &lo * &hi).sqrt()
                } else {
                    Float::with_val(bits, &lo + &hi) / 2u32
                };
                if tags::host_load(d, lambda, &a, &mid)? < target {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            cut.push(hi.clone());
            a = hi;
        }
        let last = tags::host_load(d, lambda, &a, &top)?.to_f64();
        Ok(Some((cut, last)))
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut best: Option<(Vec<Float>, f64)> = None;
    for _ in 0..BALANCE_STEPS {
        let mid = 0.5 * (lo + hi);
        match chain(mid)? {
            Some((c, last)) if last > mid => {
                lo = mid;
                best = Some((c, mid));
            }
            _ => hi = mid,
        }
        if hi - lo < BALANCE_LOAD_TOL {
            break;
        }
    }
    match best {
        Some((c, l)) if hi < 1.0 && c.windows(2).all(|w| w[0] < w[1]) => Ok((c, l)),
        _ => Err(SimError::Unstable(format!(
            "no TAGS cutoffs balance {hosts} hosts below load 1 (λ = {})",
            show(lambda)
        ))),
    }
}
