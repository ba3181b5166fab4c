//! SITA: host i serves the jobs with size in (s_{i−1}, s_i].
//!
//! ρ_i = λ M_1(s_{i−1}, s_i), W_i = λ M_2(s_{i−1}, s_i) / (2 (1 − ρ_i)) (Pollaczek–Khinchine
//! at each host, whose arrivals are a thinned Poisson stream, so the formula is exact), and
//! E[W] = Σ_i M_0(s_{i−1}, s_i) W_i, E[W/X] = Σ_i M_{−1}(s_{i−1}, s_i) W_i
//! (Harchol-Balter & Vesilo 2010, §2).

use super::{inf, metric_moment, pk_waiting, Evaluation, Metric, PolicyError};
use crate::dist::{JobSize, Point};
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
    host_at(dist, lambda, &dist.point(a), &dist.point(b))
}

/// [`host`] between points made by [`JobSize::point`].
pub fn host_at(
    dist: &dyn JobSize,
    lambda: &Float,
    a: &Point,
    b: &Point,
) -> Result<SitaHost, PolicyError> {
    let bits = dist.prec();
    let one = |j: i32| dist.moment_between(j, a, b);
    // All three orders at once (shared logarithms and powers) where they are finite; else
    // one at a time, M_2 only for a stable host (it may be infinite when the host is not).
    let batch: Option<[Float; 3]> = dist
        .moments_between(&[0, 1, 2], a, b)
        .ok()
        .and_then(|v| v.try_into().ok());
    let (prob, m1, m2) = match batch {
        Some([p, m1, m2]) => (p, m1, Some(m2)),
        None => (one(0)?, one(1)?, None),
    };
    let load = Float::with_val(bits, lambda * &m1);
    let waiting = if load >= 1 {
        inf(bits)
    } else {
        let m2 = match m2 {
            Some(m2) => m2,
            None => one(2)?,
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
    // Each cutoff's shared values once (two hosts read each); the first host's interval
    // opens just below s_0, to take an atom there.
    let points: Vec<Point> = (0..s.len())
        .map(|i| dist.point(if i == 0 { &lo_open } else { &s[i] }))
        .collect();
    for i in 1..s.len() {
        let (a, b) = (&points[i - 1], &points[i]);
        let h = host_at(dist, lambda, a, b).map_err(|e| e.for_metric(metric))?;
        let weight = match metric {
            Metric::Slowdown => metric_moment(
                metric,
                dist.moments_between(&[-1], a, b)
                    .map(|mut v| v.swap_remove(0)),
            )?,
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
