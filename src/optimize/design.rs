//! Designing a decentralised system with a quality-of-service target ([BD21]): the fewest
//! hosts h, and the optimal cutoffs for them, with which SITA (or TAGS) meets a target
//! mean waiting time or mean slowdown at a given total load.
//!
//! For each policy h = 1, 2, … is tried in turn (h must exceed the load ρ; TAGS must also
//! be below its stability threshold ρ*(F, h), else h is skipped as infeasible), the
//! optimal cutoffs for the target's metric are computed at two precisions, and the first h
//! whose optimum is certainly at or below the target is the answer: a value that meets the
//! target only within the two precisions' difference does not count as met. A target no h
//! up to the maximum meets is a result (`hosts: None`), not an error.

use super::{optimal_cutoffs_certified, OptPolicy};
use crate::dist::DistFactory;
use crate::error::{Classify, ErrorKind};
use crate::num::certify::{certify_pair, Certified, Certify};
use crate::num::parse_decimal;
use crate::policy::{LoadSpec, Metric, PolicyError};
use rug::Float;
use thiserror::Error;

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

    /// The target as given.
    pub fn text(&self) -> &str {
        match self {
            Target::Waiting(s) | Target::Slowdown(s) => s,
        }
    }
}

/// Errors of a design.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum DesignError {
    /// A target or load that is not a positive number.
    #[error("{0}")]
    BadInput(String),
    /// A policy design does not cover (it designs SITA-opt and TAGS-opt).
    #[error("design is for sita and tags, not {0}")]
    BadPolicy(&'static str),
    /// The load, or an optimisation that failed (a solver failure is numerical).
    #[error(transparent)]
    Policy(#[from] PolicyError),
}

impl Classify for DesignError {
    fn kind(&self) -> ErrorKind {
        match self {
            DesignError::BadInput(_) | DesignError::BadPolicy(_) => ErrorKind::Input,
            DesignError::Policy(e) => e.kind(),
        }
    }
}

/// One tried host count.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// The host count h tried (h ≥ 1).
    pub hosts: usize,
    /// The optimal value, or why this h is infeasible (a load no cutoffs stabilise).
    pub value: Result<Certified, PolicyError>,
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

/// Designs for `policy` (SITA-opt or TAGS-opt), h = 1 … `max_hosts`, at the total load
/// `load` (a decimal string).
pub fn design(
    dist: &dyn DistFactory,
    load: &str,
    target: &Target,
    policy: OptPolicy,
    max_hosts: usize,
    digits: u32,
) -> Result<Design, DesignError> {
    let certify = Certify::digits(digits);
    let bits = certify.bits();
    let bad = DesignError::BadInput;
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
    if !policy.minimises_metric() {
        return Err(DesignError::BadPolicy(policy.name()));
    }
    let name = policy.name();
    let mut attempts = Vec::new();
    let first = rho.to_f64().floor() as usize + 1;
    for h in first.max(1)..=max_hosts {
        crate::progress::report(
            &format!("design {name}, hosts"),
            h as u64,
            Some(max_hosts as u64),
            "",
        );
        let ls = LoadSpec::Total(load.to_string());
        let both = match optimal_cutoffs_certified(dist, &ls, h, policy, target.metric(), &certify)
        {
            Ok(both) => both,
            // A load no cutoffs stabilise at this h: infeasible, try the next.
            Err(e @ PolicyError::BadLoad(_)) => {
                attempts.push(Attempt {
                    hosts: h,
                    value: Err(e),
                });
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let (a, b) = (&both.lo, &both.hi);
        let v = certify_pair(&a.eval.value, &b.eval.value, digits);
        // Met only if the value plus the two precisions' difference is at most the goal.
        let spread = Float::with_val(bits.1, &a.eval.value - &b.eval.value).abs();
        let upper = Float::with_val(bits.1, &b.eval.value + &spread);
        let met = b.eval.stable && upper <= goal;
        attempts.push(Attempt {
            hosts: h,
            value: Ok(v.clone()),
        });
        if met {
            // Cutoffs of runs that disagree on the number of hosts in use keep no digits.
            let same = a.cutoffs.len() == b.cutoffs.len();
            let cutoffs = a
                .cutoffs
                .iter()
                .zip(&b.cutoffs)
                .map(|(x, y)| certify_pair(x, y, if same { digits } else { 0 }))
                .collect();
            return Ok(Design {
                policy: name,
                hosts: Some(h),
                cutoffs,
                host_loads: both.certify_all(digits, |o| &o.eval.host_loads),
                value: Some(v),
                attempts,
            });
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
