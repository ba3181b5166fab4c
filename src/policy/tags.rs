//! TAGS: every job starts at host 1; host i runs it for at most s_i and a job not done is
//! killed and restarted from scratch at the tail of host i+1's queue (Harchol-Balter 2002;
//! Bachmat, Doncel & Sarfati 2019, 2020).
//!
//! Host i sees the jobs with X > s_{i−1} and serves min(X, s_i):
//! ρ_i = λ (M_1(s_{i−1}, s_i) + s_i F̄(s_i)),
//! Q_i = λ (M_2(s_{i−1}, s_i) + s_i² F̄(s_i)) / (2 (1 − ρ_i)),
//! E[W] = Σ_i F̄(s_{i−1}) Q_i + Σ_{i<h} s_i F̄(s_i)  (queueing + wasted service).
//!
//! Hosts ≥ 2 do not see a Poisson stream: Q_i for i ≥ 2 is the standard Poisson
//! approximation used by the papers; it is exact at host 1.

use super::{inf, metric_moment, pk_waiting, Evaluation, Metric, PolicyError};
use crate::dist::{JobSize, Point};
use rug::Float;

/// One TAGS host with cutoffs (a, b]: it sees the jobs with X > a and serves min(X, b).
#[derive(Debug, Clone)]
pub struct TagsHost {
    /// ρ_i = λ (M_1(a, b) + b F̄(b)).
    pub load: Float,
    /// Mean waiting in queue at the host, Q_i (Poisson approximation for i ≥ 2).
    pub waiting: Float,
}

/// b F̄(b) and b² F̄(b), zero when b is the (possibly infinite) top of the support.
fn killed_terms(dist: &dyn JobSize, b: &Point) -> (Float, Float) {
    let bits = dist.prec();
    if b.x.is_infinite() || b.x >= dist.upper() {
        return (Float::with_val(bits, 0), Float::with_val(bits, 0));
    }
    let t = b.tail(dist);
    let bt = Float::with_val(bits, &b.x * &t);
    let b2t = Float::with_val(bits, &b.x * &bt);
    (bt, b2t)
}

/// Load of the TAGS host (a, b]: λ E[min(X, b); X > a].
pub fn host_load(
    dist: &dyn JobSize,
    lambda: &Float,
    a: &Float,
    b: &Float,
) -> Result<Float, PolicyError> {
    let bits = dist.prec();
    let (pa, pb) = (dist.point(a), dist.point(b));
    let m1 = dist.moment_between(1, &pa, &pb)?;
    let (bt, _) = killed_terms(dist, &pb);
    Ok(Float::with_val(
        bits,
        lambda * Float::with_val(bits, &m1 + &bt),
    ))
}

/// The TAGS host (a, b].
pub fn host(
    dist: &dyn JobSize,
    lambda: &Float,
    a: &Float,
    b: &Float,
) -> Result<TagsHost, PolicyError> {
    host_at(dist, lambda, &dist.point(a), &dist.point(b))
}

/// [`host`] between points made by [`JobSize::point`].
pub fn host_at(
    dist: &dyn JobSize,
    lambda: &Float,
    a: &Point,
    b: &Point,
) -> Result<TagsHost, PolicyError> {
    let bits = dist.prec();
    let (bt, b2t) = killed_terms(dist, b);
    // Both orders at once (shared logarithms and powers) where they are finite; else one at
    // a time, M_2 only for a stable host (it may be infinite when the host is not).
    let one = |j: i32| dist.moment_between(j, a, b);
    let batch: Option<[Float; 2]> = dist
        .moments_between(&[1, 2], a, b)
        .ok()
        .and_then(|v| v.try_into().ok());
    let (m1, m2) = match batch {
        Some([m1, m2]) => (m1, Some(m2)),
        None => (one(1)?, None),
    };
    let load = Float::with_val(bits, lambda * Float::with_val(bits, &m1 + &bt));
    let waiting = if load >= 1 {
        inf(bits)
    } else {
        let m2 = match m2 {
            Some(m2) => m2,
            None => one(2)?,
        };
        pk_waiting(lambda, &Float::with_val(bits, &m2 + &b2t), &load)
    };
    Ok(TagsHost { load, waiting })
}

/// TAGS with the full cutoff vector s_0 < … < s_h.
pub fn evaluate(
    dist: &dyn JobSize,
    lambda: &Float,
    s: &[Float],
    metric: Metric,
) -> Result<Evaluation, PolicyError> {
    let bits = dist.prec();
    let top = dist.upper();
    let lo_open = dist.lower_open();
    let hosts = s.len() - 1;
    let mut host_loads = Vec::with_capacity(hosts);
    let mut host_waiting = Vec::with_capacity(hosts);
    let mut queueing = Float::with_val(bits, 0);
    let mut wasted = Float::with_val(bits, 0);
    // Weight of a per-host quantity over the jobs with X > a: P(X > a) for waiting,
    // E[1/X; X > a] for slowdown.
    // Each cutoff's shared values once (two hosts read each).
    let points: Vec<Point> = (0..=hosts)
        .map(|i| dist.point(if i == 0 { &lo_open } else { &s[i] }))
        .collect();
    let top_point = dist.point(&top);
    let weight_above = |a: &Point| -> Result<Float, PolicyError> {
        let j = match metric {
            Metric::Slowdown => -1,
            _ => 0,
        };
        metric_moment(metric, dist.moment_between(j, a, &top_point))
    };
    for i in 1..=hosts {
        let a = &points[i - 1];
        let h = host_at(dist, lambda, a, &points[i]).map_err(|e| e.for_metric(metric))?;
        let w = weight_above(a)?;
        if !w.is_zero() {
            queueing += Float::with_val(bits, &w * &h.waiting);
        }
        if i < hosts {
            let wi = weight_above(&points[i])?;
            wasted += Float::with_val(bits, &s[i] * &wi);
        }
        host_loads.push(h.load);
        host_waiting.push(h.waiting);
    }
    let stable = host_loads.iter().all(|r| *r < 1);
    if !stable {
        queueing = inf(bits);
    }
    let waiting = Float::with_val(bits, &queueing + &wasted);
    let value = match metric {
        Metric::Response => Float::with_val(bits, &waiting + &dist.mean()?),
        _ => waiting,
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
