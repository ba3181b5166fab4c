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
    // All three orders at once where they are finite (shared logarithms and powers).
    if let Ok(v) = dist.partial_moments(&[0, 1, 2], a, b) {
        if let Ok([prob, m1, m2]) = <[Float; 3]>::try_from(v) {
            let load = Float::with_val(bits, lambda * &m1);
            let waiting = if load >= 1 {
                inf(bits)
            } else {
                pk_waiting(lambda, &m2, &load)
            };
            return Ok(SitaHost {
                load,
                waiting,
                prob,
            });
        }
    }
    let m1 = dist.partial_moment(1, a, b)?;
    let load = Float::with_val(bits, lambda * &m1);
    let waiting = if load >= 1 {
        inf(bits)
    } else {
        let m2 = dist.partial_moment(2, a, b)?;
        pk_waiting(lambda, &m2, &load)
    };
    let prob = dist.partial_moment(0, a, b)?;
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
