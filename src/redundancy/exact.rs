//! The exact values of a policy with exponential i.i.d. copies, by the method that applies:
//! FCFS by its product form ([`super::product_form`], certified at two precisions), every
//! other policy by its truncated Markov chain ([`super::ctmc`]): with a proven enclosure
//! where a Foster–Lyapunov certificate is found ([`ctmc::solve_certified`]: the digits are
//! those every point of the enclosure rounds to, and `truncation_bound` is the largest
//! half-width), else certified by comparing two truncations (an estimate, and the
//! `truncation` text says so and why). What `taskassign redundancy exact` and the claims'
//! `red_exact` print.
//!
//! A system outside the FCFS region (some class set A with Σ_{c∈A} λ_c ≥ μ(∪_{c∈A} S_c))
//! is unstable under every policy (the class-A jobs leave at rate at most μ(∪ S_c)): that
//! is an error naming A, whatever the policy.

use super::classes::{ClassSystem, Nestedness};
use super::ctmc::lyapunov::{lyapunov_search, LyapunovVerdict};
use super::ctmc::{self, CertifiedResult, ChainResult, ProvenValue};
use super::policy::{Copies, Policy, Priority};
use super::product_form::{fcfs_means, fcfs_means_enclosed, EnclosedMeans, MeanValues};
use super::stability::fcfs_region;
use super::RedundancyError;
use crate::dist::DistFactory;
use crate::num::certify::{to_sci_round, AtBoth, Certified, Certify};
use crate::num::interval::{fewest_proven, prove_to_digits};
use crate::num::{message_number, Interval};
use rug::float::Round;
use rug::Float;

/// Precision at which a service law is built to ask whether it is the exponential law of
/// mean 1 (its mean 1/rate is exact at any precision).
const LAW_BITS: u32 = 64;

/// Whether the exact methods (the product form, the chains, the FCFS region) describe
/// copies of `dist`: i.i.d. copies of the exponential law of mean 1, so that a copy at
/// server s takes an Exp(μ_s) time.
///
/// ```
/// use taskassign::dist::DistSpec;
/// use taskassign::redundancy::exact_methods_apply;
/// use taskassign::redundancy::Copies;
/// let exp1 = DistSpec::parse("exp:rate=1").unwrap();
/// assert!(exact_methods_apply(&exp1, Copies::Iid).unwrap());
/// assert!(!exact_methods_apply(&exp1, Copies::Identical).unwrap());
/// let exp2 = DistSpec::parse("exp:rate=2").unwrap(); // mean 1/2: other units
/// assert!(!exact_methods_apply(&exp2, Copies::Iid).unwrap());
/// ```
pub fn exact_methods_apply(
    dist: &dyn DistFactory,
    copies: Copies,
) -> Result<bool, RedundancyError> {
    if copies != Copies::Iid {
        return Ok(false);
    }
    let d = dist.build(LAW_BITS)?;
    Ok(d.is_exponential() && d.mean()? == 1)
}

/// The method that gives a policy's exact values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// FCFS: the product form, in MPFR at two precisions.
    ProductForm,
    /// Every other policy without a Foster–Lyapunov certificate: the truncated Markov
    /// chain, in f64 at two truncations.
    Chain,
    /// Every other policy with a certificate ([`ctmc::lyapunov::lyapunov_search`]): the
    /// truncated chain with a proven enclosure of the infinite chain's values.
    CertifiedChain,
}

impl Method {
    /// What the certified digits of this method are: the values on which two what agree.
    pub fn certified_by(self) -> &'static str {
        match self {
            Method::ProductForm => "two precisions agree on them",
            Method::Chain => "two truncations agree on them; a chain is solved in f64",
            Method::CertifiedChain => {
                "every point of the enclosure rounds to them; a chain is solved in f64"
            }
        }
    }
}

/// A policy's exact values by the method that applies ([`solve`]).
#[derive(Debug, Clone)]
pub enum Solution {
    /// FCFS: the product form at the two precisions of the digits asked for.
    ProductForm(AtBoth<MeanValues>),
    /// The truncated chain (its two truncations), and why no proven bound was used.
    Chain(ChainResult, String),
    /// The truncated chain with a proven enclosure (a Foster–Lyapunov certificate).
    Certified(CertifiedResult),
}

/// The share (1/this) of the state limit a certified truncation of plain ROS gets (its
/// certificate comes from the summed check, [`ctmc::lyapunov::LyapunovCertificate::summed`];
/// under a class priority with ROS within a rank the summed certificates hold from fewer
/// jobs than the per-term ones and get the whole limit).
pub const SUMMED_LIMIT_SHARE: usize = 4;

/// The exact values of `policy` on `sys` with exponential i.i.d. copies, by the method
/// that applies: FCFS ([`Policy::has_product_form`]) by its product form at the two
/// precisions of `digits`; every other policy by its truncated chain to `chain_digits`,
/// with a proven enclosure ([`ctmc::solve_certified`]) when the search finds a
/// Foster–Lyapunov certificate ([`lyapunov_search`]), else certified by two truncations
/// ([`ctmc::solve`]), with the reason none was used. The system must be stable (the
/// caller checks it: [`exact`] does, with the classes that overload it in the error).
pub fn solve(
    sys: &ClassSystem,
    policy: Policy,
    digits: u32,
    chain_digits: u32,
) -> Result<Solution, RedundancyError> {
    solve_limited(sys, policy, digits, chain_digits, ctmc::MAX_CHAIN_STATES)
}

/// [`solve`] with at most `max_states` states in any truncation of a chain
/// (`--max-states`; [`ctmc::MAX_CHAIN_STATES`] by default).
pub fn solve_limited(
    sys: &ClassSystem,
    policy: Policy,
    digits: u32,
    chain_digits: u32,
    max_states: usize,
) -> Result<Solution, RedundancyError> {
    if policy.has_product_form() {
        let both = Certify::digits(digits).run(|bits| fcfs_means(sys, bits))?;
        Ok(Solution::ProductForm(both))
    } else {
        let why = match lyapunov_search(sys, policy) {
            LyapunovVerdict::Found(cert) => {
                // A plain-ROS certificate (the summed check) holds from many jobs on
                // (N₁ = 45 on the W-model at (0.5, 0.5, 0.6)) and its truncations follow
                // the weighted simplex, which the ROS chains' marginals do not: the proof
                // then costs several times the estimate's states (that W-model to 6
                // proven digits: 1.36 million states, 55 s, where two truncations of the
                // estimate's box certify 12 in 12 s). It gets a share of the state limit;
                // past it the estimate runs as before and the note says how far the proof
                // got.
                let cert_limit = if cert.summed() && policy.priority == Priority::None {
                    max_states / SUMMED_LIMIT_SHARE
                } else {
                    max_states
                };
                match ctmc::solve_certified_limited(sys, policy, chain_digits, &cert, cert_limit) {
                    Ok(r) if r.digits >= chain_digits.min(ctmc::CHAIN_MAX_DIGITS) => {
                        return Ok(Solution::Certified(r))
                    }
                    Ok(r) if r.at_limit && cert_limit == max_states => {
                        // The proof solved the largest truncation the state limit holds.
                        // The estimate needs two truncations of about its size (the
                        // W-model at (0.6, 0.6, 0.6) under MRF-FCFS, 12 digits, 2026-12-07:
                        // a 1.7 M-state truncation in 50 s whose comparison then did not
                        // fit), so it is not tried: the proven digits stand.
                        return Ok(Solution::Certified(r));
                    }
                    Ok(r) => {
                        // The proof stopped short of the digits asked (a limit: the
                        // ball of states below the certificate's level can hold most of
                        // the state budget). The estimate is printed instead when it
                        // certifies more digits by two truncations, saying how far the
                        // proof got; else the proven digits stand.
                        // The estimate is checked against the proof: a printed figure whose
                        // rounding interval misses the proven enclosure is wrong, and the
                        // proven digits stand.
                        match ctmc::solve_limited(sys, policy, chain_digits, max_states) {
                            Ok(est) if est.digits > r.digits && within_proof(&est, &r) => {
                                let why = format!(
                                    "a certificate was found, but the certified truncation proves only {} ({}; {}{})",
                                    digits_text(r.digits),
                                    proof_enclosures_text(&r),
                                    r.stopped.as_deref().unwrap_or("its growth stopped"),
                                    if cert.summed() && policy.priority == Priority::None {
                                        "; a proof by the summed check gets a quarter of --max-states"
                                    } else {
                                        ""
                                    }
                                );
                                return Ok(Solution::Chain(est, why));
                            }
                            Ok(est) if est.digits > r.digits => {
                                let mut r = r;
                                let said = r.stopped.take().unwrap_or_default();
                                r.stopped = Some(format!(
                                    "{said}{}the estimate by two truncations ({}) lies outside this proof's enclosures and is not printed",
                                    if said.is_empty() { "" } else { "; " },
                                    digits_text(est.digits)
                                ));
                                return Ok(Solution::Certified(r));
                            }
                            _ => return Ok(Solution::Certified(r)),
                        }
                    }
                    Err(RedundancyError::Numerical(e)) => format!(
                        "a certificate was found, but the certified truncation did not fit ({e})"
                    ),
                    Err(e) => return Err(e),
                }
            }
            v => no_certificate(&v),
        };
        Ok(Solution::Chain(
            ctmc::solve_limited(sys, policy, chain_digits, max_states)?,
            why,
        ))
    }
}

/// "1 digit", "5 digits".
fn digits_text(d: u32) -> String {
    format!("{d} digit{}", if d == 1 { "" } else { "s" })
}

/// Whether every value the estimate `est` prints agrees with the proof `r`: the numbers
/// that round to its printed figures (within half a unit of their last digit) meet the
/// proven enclosure. A figure that misses it is wrong whatever the estimate's comparison
/// of two truncations said (both block arrivals and lean the same way).
fn within_proof(est: &ChainResult, r: &CertifiedResult) -> bool {
    let pairs = est
        .number
        .iter()
        .zip(&r.number)
        .chain(est.response.iter().zip(&r.response))
        .chain([
            (&est.total_number, &r.total_number),
            (&est.total_response, &r.total_response),
        ]);
    pairs.into_iter().all(|(e, p)| meets(&e.text, &p.enclosure))
}

/// Whether the numbers within half a unit of the last digit of the decimal `text` meet
/// `enclosure` (true where the text cannot be read: only a proven miss refuses).
fn meets(text: &str, enclosure: &Interval) -> bool {
    const BITS: u32 = 256;
    let Ok(v) = crate::num::parse_decimal(text, BITS) else {
        return true;
    };
    let (mant, exp) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let Ok(exp) = exp.parse::<i32>() else {
        return true;
    };
    let places = mant.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
    // Half a unit of the last digit, rounded up: the figures' interval widened outward.
    let unit = if exp - places >= 0 {
        Float::with_val_round(BITS, Float::u_pow_u(10, (exp - places) as u32), Round::Up).0
    } else {
        let down =
            Float::with_val_round(BITS, Float::u_pow_u(10, (places - exp) as u32), Round::Down).0;
        Float::with_val_round(BITS, 1u32 / &down, Round::Up).0
    };
    let h = Float::with_val_round(BITS, &unit / 2u32, Round::Up).0;
    let lo = Float::with_val_round(BITS, &v - &h, Round::Down).0;
    let hi = Float::with_val_round(BITS, &v + &h, Round::Up).0;
    !(hi < *enclosure.lo() || lo > *enclosure.hi())
}

/// The proof's enclosures of the total mean number and response, in words.
fn proof_enclosures_text(r: &CertifiedResult) -> String {
    let show = |v: &ProvenValue| {
        let d = (v.digits + 2).max(3);
        format!("[{}, {}]", v.enclosure.lo_text(d), v.enclosure.hi_text(d))
    };
    format!(
        "E[N] in {} and E[T] in {}, and the estimate's figures within every enclosure it proves",
        show(&r.total_number),
        show(&r.total_response)
    )
}

/// Why the search gave no certificate, in words.
fn no_certificate(v: &LyapunovVerdict) -> String {
    match v {
        LyapunovVerdict::Found(_) => "a certificate was found".into(),
        LyapunovVerdict::Infeasible { cells, .. } => format!(
            "the LP for V = n'Pn + g(sigma).n has no solution on its {cells} cells"
        ),
        LyapunovVerdict::RoundingLost { worst } => format!(
            "the LP's solution, rounded, failed the exact check (largest drift coefficient {worst:.1e})"
        ),
        LyapunovVerdict::Unsupported(why) => format!("the search does not apply: {why}"),
    }
}

/// The exact values of one policy.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactReport {
    /// The scheduling policy Π1-Π2 whose values these are.
    pub policy: Policy,
    /// E[N_c], the mean number of class-c jobs in the system, per class c, certified.
    pub number: Vec<Certified>,
    /// E[T_c] = E[N_c]/λ_c (Little's law), the mean response time of class c, per class.
    pub response: Vec<Certified>,
    /// E[N] = Σ_c E[N_c], the mean number of jobs in the system.
    pub total_number: Certified,
    /// E[T] = E[N]/λ, the mean response time over all jobs (λ = Σ_c λ_c).
    pub total_response: Certified,
    /// The method that ran.
    pub solved_by: Method,
    /// The method, in words.
    pub method: String,
    /// The truncation, in words.
    pub truncation: String,
    /// The fewest certified digits of any value.
    pub digits: u32,
    /// Whether the system is nested.
    pub nested: Nestedness,
    /// The largest half-width of the printed values' enclosures (rounded up), when a
    /// proven bound backs them ([`Method::CertifiedChain`]); `None` otherwise.
    pub truncation_bound: Option<f64>,
    /// The enclosures of the printed values, when a proven bound backs them.
    pub enclosures: Option<Enclosures>,
    /// Why the certified growth stopped before every value had the digits asked (the
    /// limit it met and what to do); `None` otherwise.
    pub stopped: Option<String>,
    /// The values as f64 (for claims and comparisons).
    pub response_f64: Vec<f64>,
    /// E[T] as f64.
    pub total_response_f64: f64,
    /// E[N_c] as f64.
    pub number_f64: Vec<f64>,
}

/// The enclosures of a report's values (each contains the infinite chain's value).
#[derive(Debug, Clone, PartialEq)]
pub struct Enclosures {
    /// E[N_c], per class.
    pub number: Vec<Interval>,
    /// E[T_c], per class.
    pub response: Vec<Interval>,
    /// E[N].
    pub total_number: Interval,
    /// E[T].
    pub total_response: Interval,
}

fn proven(v: &ProvenValue) -> Certified {
    Certified {
        text: v.text.clone(),
        digits: v.digits,
    }
}

/// A chain's caps in words: the classes' caps, then the total's.
fn caps_text(caps: &[usize]) -> String {
    match caps.split_last() {
        Some((total, classes)) => format!("{classes:?} jobs of each class and {total} in all"),
        None => "no cap".into(),
    }
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
/// use taskassign::redundancy::{exact, ClassSystem, Policy};
/// let w = ClassSystem::preset("w-model", &["0.3".into(), "0.3".into(), "0.6".into()]).unwrap();
/// let r = exact(&w, Policy::parse("fcfs", false).unwrap(), 20).unwrap();
/// assert_eq!(r.response[2].text, "1.2500000000000000000e0"); // 1/(2 − 1.2)
/// ```
pub fn exact(
    sys: &ClassSystem,
    policy: Policy,
    digits: u32,
) -> Result<ExactReport, RedundancyError> {
    exact_limited(sys, policy, digits, ctmc::MAX_CHAIN_STATES)
}

/// The FCFS product form proven (`redundancy exact --rigorous`): the mean numbers and
/// response times enclosed by [`fcfs_means_enclosed`] (the phase sum on intervals with
/// outward rounding; nothing truncated), at the precisions of a proven answer
/// ([`prove_to_digits`]: the digits' bits and a guard, then the missing digits' bits).
/// The system must be stable (the same check and error as [`exact`]); a policy without a
/// product form is an input error (its chain is solved in f64: never proven).
pub fn exact_rigorous(
    sys: &ClassSystem,
    policy: Policy,
    digits: u32,
) -> Result<EnclosedMeans, RedundancyError> {
    if !policy.has_product_form() {
        return Err(RedundancyError::Unsupported(format!(
            "--rigorous: only the FCFS product form is enclosed with outward rounding; {} is a truncated Markov chain solved in f64 (its mean_number_lo/_hi, printed without --rigorous, enclose it by a proven truncation bound, never PROVEN)",
            policy.name()
        )));
    }
    stable_or_error(sys, digits)?;
    prove_to_digits(
        digits,
        |bits| fcfs_means_enclosed(sys, bits),
        |m| {
            fewest_proven(
                m.number
                    .iter()
                    .chain(&m.response)
                    .chain([&m.total_number, &m.total_response]),
                digits,
            )
        },
    )
}

/// [`RedundancyError::Unstable`] naming the classes that overload their servers, where the
/// FCFS region (every policy's, for exponential i.i.d. copies) does not hold `sys`.
fn stable_or_error(sys: &ClassSystem, digits: u32) -> Result<(), RedundancyError> {
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
            load: message_number(&load),
            capacity: message_number(&sys.capacity(region.binding_union, check_bits)),
        });
    }
    Ok(())
}

/// [`exact`] with at most `max_states` states in any truncation of a chain
/// (`--max-states`): a larger limit lets more digits through at about 1 GB per 2·10⁶
/// states; a smaller one fails sooner.
pub fn exact_limited(
    sys: &ClassSystem,
    policy: Policy,
    digits: u32,
    max_states: usize,
) -> Result<ExactReport, RedundancyError> {
    stable_or_error(sys, digits)?;
    let nested = sys.nestedness();
    let r = match solve_limited(sys, policy, digits, digits, max_states)? {
        Solution::ProductForm(both) => {
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
                solved_by: Method::ProductForm,
                stopped: None,
                method: "product form (Gardner et al. 2016; Bonald & Comte 2017), its normalising sum summed in closed form over the phases of the busy union, in MPFR at two precisions".into(),
                truncation: "none: each phase's stays are a geometric series, summed exactly".into(),
                digits: fewest,
                nested,
                truncation_bound: None,
                enclosures: None,
            });
        }
        Solution::Certified(r) => return Ok(certified_report(sys, policy, r, nested)),
        Solution::Chain(r, why) => (r, why),
    };
    let (r, why) = r;
    // "no certificate" only where the search found none; beside a proof that stopped short
    // the estimate prints what lies beyond it.
    let kind = if why.starts_with("a certificate was found") {
        "estimate beyond the proof"
    } else {
        "estimate, no certificate"
    };
    Ok(ExactReport {
        policy,
        number: r.number.iter().map(value_of).collect(),
        response: r.response.iter().map(value_of).collect(),
        total_number: value_of(&r.total_number),
        total_response: value_of(&r.total_response),
        response_f64: r.response.iter().map(|v| v.value).collect(),
        number_f64: r.number.iter().map(|v| v.value).collect(),
        total_response_f64: r.total_response.value,
        solved_by: Method::Chain,
        stopped: r.stopped.clone(),
        method: format!(
            "Markov chain of class counts and server groups{} ({} states{}), two-level solve over the total-job levels (GMRES, an ILU(0) smoother around an exact level-chain correction; relative residual {:.1e} with double-double refinement)",
            match &r.exchanged {
                Some(e) => format!(", {}", ctmc::exchanged_text(sys, e)),
                None => String::new(),
            },
            r.fine.states,
            if r.exchanged.is_some() {
                ": one per orbit of the exchange, rates into an orbit summed"
            } else {
                ""
            },
            r.fine.residual
        ),
        truncation: match &r.simplex {
            Some(t) => format!(
                "{kind}: {why}; class counts n with sum_c w_c n_c <= {:.2}, w = [{}] nats per job (each class's measured decay rate; at most {} jobs in all); arrivals blocked beyond; largest mass on the boundary {:.1e}; digits are those on which this and the budget {:.2} agree (an estimate of the truncation error, not a proven bound)",
                t.budget,
                t.weights.iter().map(|w| format!("{w:.3}")).collect::<Vec<_>>().join(", "),
                r.caps.last().copied().unwrap_or(0),
                r.fine.p_full,
                t.compared_budget
            ),
            None => format!(
                "{kind}: {why}; at most {} (arrivals blocked beyond; largest mass on a cap {:.1e}); digits are those on which these caps and {} agree (an estimate of the truncation error, not a proven bound)",
                caps_text(&r.caps),
                r.fine.p_full,
                caps_text(&r.compared_caps)
            ),
        },
        digits: r.digits,
        nested,
        truncation_bound: None,
        enclosures: None,
    })
}

/// A truncation bound as printed: two significant digits, rounded up (so that it is still
/// a bound).
pub fn bound_text(b: f64) -> String {
    to_sci_round(&Float::with_val(64, b), 2, Round::Up)
}

/// The report of a chain solved with a proven enclosure ([`ctmc::solve_certified`]).
fn certified_report(
    sys: &ClassSystem,
    policy: Policy,
    r: CertifiedResult,
    nested: Nestedness,
) -> ExactReport {
    let encl = |v: &[ProvenValue]| v.iter().map(|x| x.enclosure.clone()).collect::<Vec<_>>();
    let mid = |v: &[ProvenValue]| v.iter().map(ProvenValue::mid).collect::<Vec<_>>();
    ExactReport {
        policy,
        number: r.number.iter().map(proven).collect(),
        response: r.response.iter().map(proven).collect(),
        total_number: proven(&r.total_number),
        total_response: proven(&r.total_response),
        response_f64: mid(&r.response),
        number_f64: mid(&r.number),
        total_response_f64: r.total_response.mid(),
        solved_by: Method::CertifiedChain,
        stopped: r.stopped.clone(),
        method: format!(
            "Markov chain of class counts and server groups{} ({} states{}), two-level solve over the total-job levels (GMRES, an ILU(0) smoother around an exact level-chain correction, double-double refinement); truncation bounded by the regenerative enclosure (Infanger & Glynn 2022) with a Foster-Lyapunov certificate V = n'Pn + g(sigma).n (Meyn & Tweedie 2009, ch. 14)",
            match &r.exchanged {
                Some(e) => format!(", {}", ctmc::exchanged_text(sys, e)),
                None => String::new(),
            },
            r.states,
            if r.exchanged.is_some() {
                ": one per orbit of the exchange, rates into an orbit summed"
            } else {
                ""
            },
        ),
        truncation: format!(
            "proven: Foster-Lyapunov certificate (V = n'Pn + g(sigma).n checked in exact rational arithmetic on every cell: QV <= {:.3} - {:.3} x (the counts of at least {} jobs), so the drift conditions hold from {} jobs in all); class counts n with sum_c w_c n_c <= {:.2}, w = [{}] nats per job (each class's measured decay rate), every state with fewer than {} jobs inside; exits restart from the empty state; every value lies in [_lo, _hi] (largest half-width {}), and its digits are those every point of that enclosure rounds to",
            r.constant,
            r.margin,
            ctmc::lyapunov::FCFS_THRESHOLD,
            r.n1,
            r.budget,
            r.weights
                .iter()
                .map(|w| format!("{w:.3}"))
                .collect::<Vec<_>>()
                .join(", "),
            r.n1,
            bound_text(r.truncation_bound)
        ),
        digits: r.digits,
        nested,
        truncation_bound: Some(r.truncation_bound),
        enclosures: Some(Enclosures {
            number: encl(&r.number),
            response: encl(&r.response),
            total_number: r.total_number.enclosure.clone(),
            total_response: r.total_response.enclosure.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(lo: &str, hi: &str) -> Interval {
        let f = |x: &str| crate::num::parse_decimal(x, 256).unwrap();
        Interval::new(f(lo), f(hi))
    }

    /// [`meets`]: the figures "9.070277e0" stand for [9.0702765, 9.0702775] (half a unit
    /// of the 7th digit either side); they meet an enclosure that reaches into that
    /// interval, and miss one that ends 10⁻⁹ short of it, on either side. The same at a
    /// unit of 10² ("1.2e3": [1150, 1250]) and at a last digit left of the point.
    #[test]
    fn figures_meet_an_enclosure_within_half_a_unit() {
        assert!(meets("9.070277e0", &iv("9.04", "9.09")));
        assert!(meets("9.070277e0", &iv("9.0702775", "9.08")));
        assert!(meets("9.070277e0", &iv("9.0", "9.0702765")));
        assert!(!meets("9.070277e0", &iv("9.070277501", "9.08")));
        assert!(!meets("9.070277e0", &iv("9.0", "9.070276499")));
        assert!(meets("1.2e3", &iv("1250", "1300")));
        assert!(!meets("1.2e3", &iv("1250.000001", "1300")));
        assert!(!meets("1.2e3", &iv("1000", "1149.99999")));
        assert!(meets("3e-5", &iv("3.4e-5", "4e-5")));
        assert!(!meets("3e-5", &iv("3.5000001e-5", "4e-5")));
        // What cannot be read is never a proven miss.
        assert!(meets("not a number", &iv("1", "2")));
    }

    #[test]
    fn digits_in_words() {
        assert_eq!(digits_text(1), "1 digit");
        assert_eq!(digits_text(5), "5 digits");
    }
}
