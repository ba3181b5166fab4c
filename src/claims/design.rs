//! Designing a decentralised system with a quality-of-service target ([BD21]): the fewest
//! hosts h, and the optimal cutoffs for them, with which SITA (or TAGS) meets a target
//! mean waiting time or mean slowdown at a given total load.
//!
//! For each policy h = 1, 2, … is tried in turn (h must exceed the load ρ; TAGS must also
//! be below its stability threshold ρ*(F, h), else h is skipped as infeasible), the
//! optimal cutoffs for the target's metric are computed at two precisions, and the first h
//! whose optimum is certainly at or below the target is the answer: a value that meets the
//! target only within the two precisions' difference does not count as met.

use super::ClaimError;
use crate::dist::DistFactory;
use crate::num::certify::{certify_pair, Certified};
use crate::num::{certify_bits, parse_decimal};
use crate::optimize::{optimal_cutoffs_pair, OptPolicy};
use crate::policy::{LoadSpec, Metric, PolicyError};
use rug::Float;

/// The QoS target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Mean waiting time at most this (a decimal string).
    Waiting(String),
    /// Mean slowdown at most this.
    Slowdown(String),
}

impl Target {
    /// The metric the target constrains.
    pub fn metric(&self) -> Metric {
        match self {
            Target::Waiting(_) => Metric::Waiting,
            Target::Slowdown(_) => Metric::Slowdown,
        }
    }
    fn text(&self) -> &str {
        match self {
            Target::Waiting(s) | Target::Slowdown(s) => s,
        }
    }
}

/// One tried host count.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// Hosts.
    pub hosts: usize,
    /// The optimal value, or why this h is infeasible.
    pub value: Result<Certified, String>,
}

/// A design for one policy.
#[derive(Debug, Clone)]
pub struct Design {
    /// `sita` or `tags`.
    pub policy: &'static str,
    /// The fewest hosts meeting the target, if any up to the maximum.
    pub hosts: Option<usize>,
    /// Optimal cutoffs at that h (idle hosts: the top of the support).
    pub cutoffs: Vec<Certified>,
    /// Host loads at that h.
    pub host_loads: Vec<Certified>,
    /// The metric's optimal value at that h.
    pub value: Option<Certified>,
    /// Every h tried, in order.
    pub attempts: Vec<Attempt>,
}

/// Designs for `policy` (SITA-opt or TAGS-opt), h = 1 … `max_hosts`.
pub fn design(
    dist: &dyn DistFactory,
    load: &str,
    target: &Target,
    policy: OptPolicy,
    max_hosts: usize,
    digits: u32,
) -> Result<Design, ClaimError> {
    let bits = certify_bits(digits);
    let bad = |s: String| ClaimError::Compute(s);
    let goal = parse_decimal(target.text(), bits.1).map_err(|e| bad(format!("target: {e}")))?;
    if !(goal > 0) {
        return Err(bad(format!(
            "the target must be positive, got {}",
            target.text()
        )));
    }
    let rho = parse_decimal(load, bits.1).map_err(|e| bad(format!("load: {e}")))?;
    if !(rho > 0) {
        return Err(bad(format!("the load must be positive, got {load}")));
    }
    let name = match policy {
        OptPolicy::Sita => "sita",
        OptPolicy::Tags => "tags",
        other => {
            return Err(bad(format!(
                "design is for sita and tags, not {}",
                other.name()
            )))
        }
    };
    let mut attempts = Vec::new();
    let first = rho.to_f64().floor() as usize + 1;
    for h in first.max(1)..=max_hosts {
        let ls = LoadSpec::Total(load.to_string());
        match optimal_cutoffs_pair(dist, &ls, h, policy, target.metric(), bits) {
            Ok((a, b)) => {
                let v = certify_pair(&a.eval.value, &b.eval.value, digits);
                let spread = Float::with_val(bits.1, &a.eval.value - &b.eval.value).abs();
                let upper = Float::with_val(bits.1, &b.eval.value + &spread);
                let met = b.eval.stable && upper <= goal;
                attempts.push(Attempt {
                    hosts: h,
                    value: Ok(v.clone()),
                });
                if met {
                    let same = a.cutoffs.len() == b.cutoffs.len();
                    let cutoffs = a
                        .cutoffs
                        .iter()
                        .zip(&b.cutoffs)
                        .map(|(x, y)| certify_pair(x, y, if same { digits } else { 0 }))
                        .collect();
                    let host_loads = a
                        .eval
                        .host_loads
                        .iter()
                        .zip(&b.eval.host_loads)
                        .map(|(x, y)| certify_pair(x, y, digits))
                        .collect();
                    return Ok(Design {
                        policy: name,
                        hosts: Some(h),
                        cutoffs,
                        host_loads,
                        value: Some(v),
                        attempts,
                    });
                }
            }
            Err(e @ PolicyError::BadLoad(_)) => attempts.push(Attempt {
                hosts: h,
                value: Err(e.to_string()),
            }),
            Err(e) => return Err(bad(e.to_string())),
        }
    }
    Ok(Design {
        policy: name,
        hosts: None,
        cutoffs: vec![],
        host_loads: vec![],
        value: None,
        attempts,
    })
}
