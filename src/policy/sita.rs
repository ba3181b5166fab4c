//! SITA: host i serves the jobs with size in (s_{i−1}, s_i].
//!
//! ρ_i = λ M_1(s_{i−1}, s_i), W_i = λ M_2(s_{i−1}, s_i) / (2 (1 − ρ_i)) (Pollaczek–Khinchine
//! at each host, whose arrivals are a thinned Poisson stream, so the formula is exact), and
//! E[W] = Σ_i M_0(s_{i−1}, s_i) W_i, E[W/X] = Σ_i M_{−1}(s_{i−1}, s_i) W_i
//! (Harchol-Balter & Vesilo 2010, §2).

use super::host_term::{host as host_term, ChainKind, Host, Parts};
use super::{inf, Evaluation, Metric, PointInputs, PolicyError};
use crate::dist::{JobSize, Point};
use rug::Float;

/// The host serving (a, b]: its load ρ_i = λ M_1(a, b), mean waiting W_i and (the
/// queueing share) M_0(a, b) W_i.
pub fn host(
    dist: &dyn JobSize,
    lambda: &Float,
    a: &Float,
    b: &Float,
) -> Result<Host<Float>, PolicyError> {
    let (pa, pb, top) = (dist.point(a), dist.point(b), dist.point(&dist.upper()));
    let v = PointInputs::new(dist, ChainKind::Sita, Metric::Waiting, &pa, &pb, &top);
    host_term(ChainKind::Sita, lambda, &v, Parts::All)
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
    let top = dist.point(&dist.upper());
    for i in 1..s.len() {
        let (a, b) = (&points[i - 1], &points[i]);
        let v = PointInputs::new(dist, ChainKind::Sita, metric, a, b, &top);
        let h = host_term(ChainKind::Sita, lambda, &v, Parts::All)?;
        if !h.queueing.is_zero() {
            total += &h.queueing;
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
