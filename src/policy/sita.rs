//! SITA: host i serves the jobs with size in (s_{i−1}, s_i].
//!
//! ρ_i = λ M_1(s_{i−1}, s_i), W_i = λ M_2(s_{i−1}, s_i) / (2 (1 − ρ_i)) (Pollaczek–Khinchine
//! at each host, whose arrivals are a thinned Poisson stream, so the formula is exact), and
//! E[W] = Σ_i M_0(s_{i−1}, s_i) W_i, E[W/X] = Σ_i M_{−1}(s_{i−1}, s_i) W_i
//! (Harchol-Balter & Vesilo 2010, §2).

use super::host_term::{ChainKind, Host};
use super::{evaluate_chain, host_at, Evaluation, Metric, PolicyError};
use crate::dist::JobSize;
use rug::Float;

/// The host serving (a, b]: its load ρ_i = λ M_1(a, b), mean waiting W_i and (the
/// queueing share) M_0(a, b) W_i.
pub fn host(
    dist: &dyn JobSize,
    lambda: &Float,
    a: &Float,
    b: &Float,
) -> Result<Host<Float>, PolicyError> {
    host_at(ChainKind::Sita, dist, lambda, a, b)
}

/// SITA with the full cutoff vector s_0 < … < s_h.
pub fn evaluate(
    dist: &dyn JobSize,
    lambda: &Float,
    s: &[Float],
    metric: Metric,
) -> Result<Evaluation, PolicyError> {
    evaluate_chain(ChainKind::Sita, dist, lambda, s, metric)
}
