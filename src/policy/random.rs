//! Random routing: each of h hosts is an M/G/1 queue with arrival rate λ/h, so
//! E[W] = (λ/h) E[X²] / (2 (1 − ρ/h)) and E[W/X] = E[W] E[1/X].

use super::{metric_moment, pk_waiting, Evaluation, Metric, PolicyError};
use crate::dist::JobSize;
use rug::Float;

/// Random routing to `hosts` hosts.
pub fn evaluate(
    dist: &dyn JobSize,
    lambda: &Float,
    hosts: usize,
    metric: Metric,
) -> Result<Evaluation, PolicyError> {
    PolicyError::at_least_one_host(hosts)?;
    let bits = dist.prec();
    let lh = Float::with_val(bits, lambda / Float::with_val(bits, hosts));
    let mean = dist.mean()?;
    let rho = Float::with_val(bits, &lh * &mean);
    let m2 = metric_moment(metric, dist.moment(2))?;
    let w = pk_waiting(&lh, &m2, &rho);
    let stable = rho < 1;
    let queueing = match metric {
        Metric::Slowdown => {
            let inv = metric_moment(metric, dist.moment(-1))?;
            Float::with_val(bits, &w * &inv)
        }
        Metric::Waiting | Metric::Response => w.clone(),
    };
    let value = match metric {
        Metric::Response => Float::with_val(bits, &queueing + &mean),
        Metric::Waiting | Metric::Slowdown => queueing.clone(),
    };
    Ok(Evaluation {
        host_loads: vec![rho; hosts],
        stable,
        value,
        queueing,
        wasted: Float::with_val(bits, 0),
        host_waiting: vec![w; hosts],
    })
}
