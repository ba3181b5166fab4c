//! The exact values of a policy with exponential i.i.d. copies, by the method that applies:
//! FCFS by its product form ([`super::product_form`], certified at two precisions), every
//! other policy by its truncated Markov chain ([`super::ctmc`], certified by doubling the
//! truncation). What `taskassign redundancy exact` and the claims' `red_exact` print.
//!
//! A system outside the FCFS region (some class set A with Σ_{c∈A} λ_c ≥ μ(∪_{c∈A} S_c))
//! is unstable under every policy (the class-A jobs leave at rate at most μ(∪ S_c)): that
//! is an error naming A, whatever the policy.

use super::classes::{Nestedness, System};
use super::ctmc;
use super::policy::Policy;
use super::product_form::fcfs_means;
use super::stability::fcfs_region;
use super::RedundancyError;
use crate::num::certify::{Certified, Certify};
use crate::num::show;
use rug::Float;

/// The exact values of one policy.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactReport {
    /// The policy.
    pub policy: Policy,
    /// E[N_c], certified.
    pub number: Vec<Certified>,
    /// E[T_c].
    pub response: Vec<Certified>,
    /// E[N].
    pub total_number: Certified,
    /// E[T].
    pub total_response: Certified,
    /// The method, in words.
    pub method: String,
    /// The truncation, in words.
    pub truncation: String,
    /// The fewest certified digits of any value.
    pub digits: u32,
    /// Whether the system is nested.
    pub nested: Nestedness,
    /// The values as f64 (for claims and comparisons).
    pub response_f64: Vec<f64>,
    /// E[T] as f64.
    pub total_response_f64: f64,
    /// E[N_c] as f64.
    pub number_f64: Vec<f64>,
}

fn value_of(c: &ctmc::CertifiedValue) -> Certified {
    Certified {
        text: c.text.clone(),
        digits: c.digits,
    }
}

/// The exact values of `policy` on `sys` with exponential i.i.d. copies, to `digits`
/// digits (a chain prints at most [`ctmc::CHAIN_MAX_DIGITS`]).
///
/// ```
/// use taskassign::redundancy::{classes::System, exact::exact, policy::Policy};
/// let w = System::preset("w-model", &["0.3".into(), "0.3".into(), "0.6".into()]).unwrap();
/// let r = exact(&w, Policy::parse("fcfs", false).unwrap(), 20).unwrap();
/// assert_eq!(r.response[2].text, "1.2500000000000000000e0"); // 1/(2 − 1.2)
/// ```
pub fn exact(sys: &System, policy: Policy, digits: u32) -> Result<ExactReport, RedundancyError> {
    let check_bits = crate::num::working_bits(digits.max(20));
    let region = fcfs_region(sys, check_bits)?;
    if !region.stable() {
        let lambda = sys.lambda(check_bits);
        let mut load = Float::with_val(check_bits, 0);
        for &c in &region.binding_classes {
            load += &lambda[c];
        }
        return Err(RedundancyError::Unstable {
            classes: sys.describe(&region.binding_classes),
            servers: region.binding_union.to_string(),
            load: show(&load),
            capacity: show(&sys.capacity(region.binding_union, check_bits)),
        });
    }
    let nested = sys.nestedness();
    if policy.has_product_form() {
        let c = Certify::digits(digits);
        let both = c.run(|bits| fcfs_means(sys, bits))?;
        let number = both.certify_all(digits, |m| &m.number);
        let response = both.certify_all(digits, |m| &m.response);
        let total_number = both.certify(digits, |m| &m.total_number);
        let total_response = both.certify(digits, |m| &m.total_response);
        let fewest = number
            .iter()
            .chain(&response)
            .chain([&total_number, &total_response])
            .map(|v| v.digits)
            .min()
            .unwrap_or(0);
        return Ok(ExactReport {
            policy,
            response_f64: both.hi.response.iter().map(Float::to_f64).collect(),
            number_f64: both.hi.number.iter().map(Float::to_f64).collect(),
            total_response_f64: both.hi.total_response.to_f64(),
            number,
            response,
            total_number,
            total_response,
            method: "product form (Gardner et al. 2016; Bonald & Comte 2017), its normalising sum summed in closed form over the phases of the busy union, in MPFR at two precisions".into(),
            truncation: "none: each phase's stays are a geometric series, summed exactly".into(),
            digits: fewest,
            nested,
        });
    }
    let r = ctmc::solve(sys, policy, digits, None)?;
    Ok(ExactReport {
        policy,
        number: r.number.iter().map(value_of).collect(),
        response: r.response.iter().map(value_of).collect(),
        total_number: value_of(&r.total_number),
        total_response: value_of(&r.total_response),
        response_f64: r.response.iter().map(|v| v.value).collect(),
        number_f64: r.number.iter().map(|v| v.value).collect(),
        total_response_f64: r.total_response.value,
        method: format!(
            "Markov chain of class counts and server groups ({} states), two-level solve over the total-job levels (GMRES, Gauss-Seidel and an exact level-chain correction; relative residual {:.1e} with double-double refinement)",
            r.fine.states, r.fine.residual
        ),
        truncation: format!(
            "at most {:?} jobs of each class (arrivals blocked beyond; largest mass on a cap {:.1e}); digits are those on which the caps {:?} and {:?} agree (an estimate of the truncation error, not a proven bound)",
            r.caps, r.fine.p_full, r.compared_caps, r.caps
        ),
        digits: r.digits,
        nested,
    })
}
