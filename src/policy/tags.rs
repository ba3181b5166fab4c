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

use super::host_term::{served_first, KillPoint, Killed};
use super::PolicyError;
use crate::dist::JobSize;
use rug::Float;

/// Load of the TAGS host (a, b]: λ E[min(X, b); X > a] = λ (M_1(a, b) + b F̄(b)).
pub fn host_load(
    dist: &dyn JobSize,
    lambda: &Float,
    a: &Float,
    b: &Float,
) -> Result<Float, PolicyError> {
    let (pa, pb) = (dist.point(a), dist.point(b));
    let m1 = dist.moment_between(1, &pa, &pb)?;
    let killed = if pb.x.is_infinite() || pb.x >= dist.upper() {
        None
    } else {
        Some(Killed::new(KillPoint {
            b: &pb.x,
            tail: pb.tail(dist),
        }))
    };
    Ok(crate::num::real::Real::mul(
        lambda,
        &served_first(m1, killed.as_ref()),
    ))
}
