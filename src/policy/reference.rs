//! The analytic values a dispatch simulation is compared with: the formulas of this room
//! as the reference of a run with Poisson arrivals (renewal arrivals have none; the
//! simulators themselves compute no formula, ARCHITECTURE.md, "Direction of
//! dependencies").
//!
//! [`reference_waiting`] gives the mean waiting to compare with:
//! * SITA and Random: their formulas (Pollaczek–Khinchine per host on a thinned Poisson
//!   stream, exact);
//! * TAGS: its formula, exact at host 1 and the Poisson approximation of the papers at
//!   hosts ≥ 2 (their arrivals are not Poisson; the claim quantity `tags_host_error`
//!   measures that error);
//! * any routing with one host: the M/G/1 queue (Pollaczek–Khinchine, exact);
//! * Least-Work-Left with exponential sizes ([`crate::dist::JobSize::is_exponential`]): the M/M/h
//!   queue, Erlang C (exact).
//!
//! The report layer (`crate::report::simulate`) prints the values and the simulated
//! estimates' distance to them (z in half-widths).

use super::{evaluate, Metric, PolicyError, PolicyKind};
use crate::dist::DistFactory;
use rug::Float;

/// A simulated routing as the formulas see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routing {
    /// A routing with a formula of this room (SITA, TAGS, Random).
    Formula(PolicyKind),
    /// Least-Work-Left: the M/G/h central FCFS queue (a formula for exponential sizes).
    CentralQueue,
    /// A routing without a formula (Round-Robin, Join-the-Shortest-Queue): a reference
    /// only with one host, where every routing is the M/G/1 queue.
    NoFormula,
}

/// The analytic values a simulation is compared with.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    /// Mean waiting (TAGS: queueing plus wasted service); +∞ when infinite.
    pub waiting: f64,
    /// Mean waiting per visit at each host, when the formula gives it.
    pub host_waiting: Option<Vec<f64>>,
    /// Whether each host's value is exact (TAGS hosts ≥ 2: the Poisson approximation).
    pub host_exact: Vec<bool>,
    /// Which formula, in words.
    pub source: &'static str,
    /// Sentences for the output's notes (the approximation used, an infinite mean).
    pub notes: Vec<String>,
}

/// The note attached to TAGS with two or more hosts.
pub const TAGS_NOTE: &str = "TAGS analytic waiting: exact at host 1; hosts >= 2 use the Poisson approximation of the papers (their arrivals are not Poisson), so z measures the approximation error too";

/// Mean waiting of the M/M/h queue (Erlang C) in f64, for comparisons with the simulator:
/// [`crate::policy::mmh::mmh_waiting`] at 64 bits.
///
/// ```
/// use taskassign::policy::erlang_c_waiting;
/// // M/M/1: W = ρ/(μ − λ) = 0.5/(1 − 0.5) with m = 1.
/// assert!((erlang_c_waiting(0.5, 1.0, 1) - 1.0).abs() < 1e-15);
/// // M/M/2 with a = 1: C = 1/3, W = C m/(h − a) = 1/3.
/// assert!((erlang_c_waiting(1.0, 1.0, 2) - 1.0 / 3.0).abs() < 1e-15);
/// ```
pub fn erlang_c_waiting(lambda: f64, mean: f64, hosts: usize) -> f64 {
    /// f64's 53 bits plus guard bits: the value is compared with f64 simulations.
    const BITS: u32 = 64;
    crate::policy::mmh::mmh_waiting(
        &Float::with_val(BITS, lambda),
        &Float::with_val(BITS, mean),
        hosts,
    )
    .to_f64()
}

/// The exact (or labelled approximate) mean waiting that a simulation of `routing` with
/// Poisson arrivals at rate `lambda` is compared with, when a formula exists: the sizes
/// `dist` are built at the precision of `lambda`, the cutoffs are those the simulation
/// ran (none for Random).
pub fn reference_waiting(
    routing: Routing,
    dist: &dyn DistFactory,
    lambda: &Float,
    hosts: usize,
    cutoffs: &[Float],
) -> Result<Option<Reference>, PolicyError> {
    let d = dist.build(lambda.prec())?;
    let kind = match routing {
        Routing::Formula(k) => Some(k),
        // With one host every routing is the same M/G/1 queue.
        Routing::CentralQueue | Routing::NoFormula if hosts == 1 => Some(PolicyKind::Random),
        Routing::CentralQueue | Routing::NoFormula => None,
    };
    let mut notes = Vec::new();
    if let Some(kind) = kind {
        let source = match routing {
            Routing::Formula(PolicyKind::Sita) => {
                "SITA formula (Pollaczek-Khinchine per host, exact)"
            }
            Routing::Formula(PolicyKind::Tags) if hosts > 1 => {
                notes.push(TAGS_NOTE.to_string());
                "TAGS formula (exact at host 1, Poisson approximation at hosts >= 2)"
            }
            Routing::Formula(PolicyKind::Tags) => "TAGS formula with one host (M/G/1, exact)",
            Routing::Formula(PolicyKind::Random) => "Random formula (M/G/1 per host, exact)",
            Routing::CentralQueue | Routing::NoFormula => {
                "one host: M/G/1 Pollaczek-Khinchine (exact)"
            }
        };
        let args: &[Float] = match kind.chain_kind() {
            None => &[],
            Some(_) => cutoffs,
        };
        return match evaluate(kind, d.as_ref(), lambda, hosts, args, Metric::Waiting) {
            Ok(e) => {
                let mut host_exact = vec![true; hosts];
                if kind.approximation().is_some() {
                    host_exact.iter_mut().skip(1).for_each(|x| *x = false);
                }
                Ok(Some(Reference {
                    waiting: e.value.to_f64(),
                    host_waiting: Some(e.host_waiting.iter().map(Float::to_f64).collect()),
                    host_exact,
                    source,
                    notes,
                }))
            }
            Err(PolicyError::InfiniteMetric { .. }) => {
                notes.push("the analytic mean waiting is infinite (E[X^2] is infinite on some host): the simulated mean does not converge".into());
                Ok(Some(Reference {
                    waiting: f64::INFINITY,
                    host_waiting: None,
                    host_exact: vec![true; hosts],
                    source,
                    notes,
                }))
            }
            Err(e) => Err(e),
        };
    }
    if routing == Routing::CentralQueue && d.is_exponential() {
        let mean = d.mean()?.to_f64();
        return Ok(Some(Reference {
            waiting: erlang_c_waiting(lambda.to_f64(), mean, hosts),
            host_waiting: None,
            host_exact: vec![true; hosts],
            source: "M/M/h Erlang C (exact for exponential sizes)",
            notes,
        }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::DistSpec;

    fn reference_of(routing: Routing, spec: &str, hosts: usize) -> Option<Reference> {
        let d = DistSpec::parse(spec).unwrap();
        let lambda = Float::with_val(128, 0.5);
        reference_waiting(routing, &d, &lambda, hosts, &[]).unwrap()
    }

    #[test]
    fn erlang_c_only_for_exponential_sizes() {
        // LWL on 2 hosts is M/G/2: a formula only when the sizes are exponential (M/M/2,
        // Erlang C); Weibull with shape 1 is exponential too, but only the exp family says so
        // (a conservative capability: no reference rather than a wrong one).
        let exp = reference_of(Routing::CentralQueue, "exp:rate=1", 2).unwrap();
        assert_eq!(exp.source, "M/M/h Erlang C (exact for exponential sizes)");
        // Erlang C at λ = 0.5, E[X] = 1, h = 2, a = 0.5 (Kleinrock 1975, eq. 3.40):
        // C = (a²/2)(h/(h − a)) / (1 + a + (a²/2)(h/(h − a))) = (1/6)/(5/3) = 1/10 and
        // W = C/(h − a) = 1/15; tolerance: f64 rounding of the 64-bit value.
        assert!((exp.waiting - 1.0 / 15.0).abs() < 1e-15, "{}", exp.waiting);
        assert!(reference_of(
            Routing::CentralQueue,
            "hyperexp:p=0.1,rate1=0.1,rate2=10",
            2
        )
        .is_none());
        assert!(reference_of(Routing::CentralQueue, "weibull:shape=1,scale=1", 2).is_none());
        assert!(reference_of(Routing::NoFormula, "exp:rate=1", 2).is_none());
        // One host: M/G/1 for every routing.
        let one = reference_of(Routing::NoFormula, "uniform:a=0,b=2", 1).unwrap();
        assert_eq!(one.source, "one host: M/G/1 Pollaczek-Khinchine (exact)");
    }
}
