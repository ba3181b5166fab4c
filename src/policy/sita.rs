//! SITA: host i serves the jobs with size in (s_{i−1}, s_i].
//!
//! ρ_i = λ M_1(s_{i−1}, s_i), W_i = λ M_2(s_{i−1}, s_i) / (2 (1 − ρ_i)) (Pollaczek–Khinchine
//! at each host, whose arrivals are a thinned Poisson stream, so the formula is exact), and
//! E[W] = Σ_i M_0(s_{i−1}, s_i) W_i, E[W/X] = Σ_i M_{−1}(s_{i−1}, s_i) W_i
//! (Harchol-Balter & Vesilo 2010, §2).

use super::{inf, metric_moment, pk_waiting, Evaluation, Metric, PolicyError};
use crate::dist::JobSize;
use rug::Float;

/// One SITA host serving the sizes in (a, b].
#[derive(Debug, Clone)]
pub struct SitaHost {
    /// ρ_i = λ M_1(a, b).
    pub load: Float,
    /// Mean waiting at the host, W_i.
    pub waiting: Float,
    /// Probability that a job is sent here, M_0(a, b).
    pub prob: Float,
}

/// The host serving (a, b].
pub fn host(
    dist: &dyn JobSize,
    lambda: &Float,
    a: &Float,
    b: &Float,
) -> Result<SitaHost, PolicyError> {
    let bits = dist.prec();
    // All three orders at once (shared logarithms and powers) where they are finite; else
    // one at a time, M_2 only for a stable host (it may be infinite when the host is not).
    let batch: Option<[Float; 3]> = dist
        .partial_moments(&[0, 1, 2], a, b)
        .ok()
        .and_then(|v| v.try_into().ok());
    let (prob, m1, m2) = match batch {
        Some([p, m1, m2]) => (p, m1, Some(m2)),
        None => (
            dist.partial_moment(0, a, b)?,
            dist.partial_moment(1, a, b)?,
            None,
        ),
    };
    let load = Float::with_val(bits, lambda * &m1);
    let waiting = if load >= 1 {
        inf(bits)
    } else {
        let m2 = match m2 {
            Some(m2) => m2,
            None => dist.partial_moment(2, a, b)?,
        };
        pk_waiting(lambda, &m2, &load)
    };
    Ok(SitaHost {
        load,
        waiting,
        prob,
    })
}

/// SITA with the full cutoff vector s_0 < … < s_h.
pub fn evaluate(
    dist: &dyn JobSize,
    lambda: &Float,
    s: &[Float],
    metric: Metric,
) -> Result<Evaluation, PolicyError> {
    let bits = dist.prec();
    let lo_open = dist.lower_open();
    let mut host_loads = Vec::with_capacity(s.len() - 1);
    let mut host_waiting = Vec::with_capacity(s.len() - 1);
    let mut total = Float::with_val(bits, 0);
    for i in 1..s.len() {
        // The first host also takes an atom at the low end of the support.
        let a = if i == 1 { &lo_open } else { &s[i - 1] };
        let h = host(dist, lambda, a, &s[i]).map_err(|e| e.for_metric(metric))?;
        let weight = match metric {
            Metric::Slowdown => metric_moment(metric, dist.partial_moment(-1, a, &s[i]))?,
            _ => h.prob.clone(),
        };
        if !weight.is_zero() {
            total += Float::with_val(bits, &weight * &h.waiting);
        }
        host_loads.push(h.load);
        host_waiting.push(h.waiting);
    }
    let stable = host_loads.iter().all(|r| *r < 1);
    let queueing = if stable { total } else { inf(bits) };
    let value = match metric {
        Metric::Response => Float::with_val(bits, &queueing + &dist.mean()?),
        _ => queueing.clone(),
    };
    Ok(Evaluation {
        host_loads,
        stable,
        value,
        queueing,
        wasted: Float::with_val(bits, 0),
        host_waiting,
    })
}
