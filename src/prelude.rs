//! The names a library user needs, and [`Farm`]: size-based dispatch in a few lines.
//!
//! `use taskassign::prelude::*;` brings the request vocabulary (distribution specs, loads,
//! metrics, policies), the certified reports the commands print, the systems of the other
//! two models ([`JsqSystem`], [`ClassSystem`]) and the options of a simulation
//! ([`RunOptions`]), the crate-level [`Error`] with its [`ErrorKind`], and the extension
//! traits of the model rooms ([`JobSize`], [`Simulator`], [`Quantity`]).
//!
//! [`Farm`] is the door for the common questions — evaluate given cutoffs, find the
//! optimal ones, find the TAGS stability threshold — answered with certified digits exactly
//! as `taskassign eval|optimize|threshold` answer them (it calls the same functions of
//! [`crate::optimize::certified`]; the binary adds only argument parsing and rendering):
//!
//! ```
//! use taskassign::prelude::*;
//!
//! let farm = Farm::new("bp:k=1,p=1e10,alpha=1.1", 2)?.load("0.5");
//! let best = farm.optimize(OptPolicy::Sita, 12)?;
//! let tags = farm.optimize(OptPolicy::Tags, 12)?;
//! // The certified mean waiting times, as `taskassign optimize` prints them:
//! println!("SITA {}  TAGS {}", best.value.text, tags.value.text);
//! let threshold = farm.threshold(12)?; // ρ*(F, 2): TAGS is stable below it
//! assert!(threshold.load.digits > 0);
//! # Ok::<(), taskassign::Error>(())
//! ```

pub use crate::claims::registry::Quantity;
pub use crate::dist::{DistError, DistFactory, DistSpec, JobSize, Sampler};
pub use crate::error::{Classify, Error, ErrorKind};
pub use crate::lb::JsqSystem;
pub use crate::num::certify::{Certified, Certify};
pub use crate::optimize::certified::{
    eval_certified, optimize_certified, threshold_certified, EvalReport, EvalRequest,
    OptimizeReport, OptimizeRequest, ThresholdReport,
};
pub use crate::optimize::OptPolicy;
pub use crate::policy::{LoadSpec, Metric, PolicyError, PolicyKind};
pub use crate::redundancy::ClassSystem;
pub use crate::sim::{Replicator, RunOptions, SimPolicy, Simulator};

/// A server farm of size-based dispatch: job sizes, a number of identical FCFS hosts, an
/// offered load and a metric (ARCHITECTURE.md, "The model"). Numbers are decimal strings,
/// parsed at the working precision of each computation, never through `f64`.
#[derive(Debug, Clone)]
pub struct Farm {
    dist: DistSpec,
    hosts: usize,
    load: Option<LoadSpec>,
    metric: Metric,
}

impl Farm {
    /// Job sizes from a spec (`bp:k=1,p=1e10,alpha=1.1`, `exp:rate=1`, …) on `hosts`
    /// hosts, with the mean waiting time as the metric. A bad spec or `hosts = 0` is an
    /// [`ErrorKind::Input`] error.
    pub fn new(dist: &str, hosts: usize) -> Result<Self, Error> {
        let dist = DistSpec::parse(dist)?;
        if hosts == 0 {
            return Err(PolicyError::BadHosts(hosts).into());
        }
        Ok(Farm {
            dist,
            hosts,
            load: None,
            metric: Metric::Waiting,
        })
    }

    /// The total offered load ρ = λE[X] (0 < ρ < h), as `--load`.
    pub fn load(self, rho: &str) -> Self {
        self.with_load(LoadSpec::Total(rho.to_string()))
    }

    /// The load per host u (ρ = u·h), as `--load-per-host`.
    pub fn load_per_host(self, u: &str) -> Self {
        self.with_load(LoadSpec::PerHost(u.to_string()))
    }

    /// The arrival rate λ, as `--lambda`.
    pub fn lambda(self, lambda: &str) -> Self {
        self.with_load(LoadSpec::Lambda(lambda.to_string()))
    }

    /// The metric evaluated and minimised (default: mean waiting).
    pub fn metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self
    }

    fn with_load(mut self, load: LoadSpec) -> Self {
        self.load = Some(load);
        self
    }

    fn load_spec(&self) -> Result<LoadSpec, Error> {
        self.load.clone().ok_or_else(|| {
            Error::input("no load given: call Farm::load, load_per_host or lambda first")
        })
    }

    /// `policy` with the h − 1 interior cutoffs given (none for Random), certified to
    /// `digits` significant digits, as `taskassign eval`.
    pub fn evaluate(
        &self,
        policy: PolicyKind,
        cutoffs: &[&str],
        digits: u32,
    ) -> Result<EvalReport, Error> {
        let req = EvalRequest {
            policy,
            dist: &self.dist,
            hosts: self.hosts,
            load: self.load_spec()?,
            cutoffs: cutoffs.iter().map(|c| c.to_string()).collect(),
            metric: self.metric,
            digits,
        };
        Ok(eval_certified(&req)?)
    }

    /// The globally optimal cutoffs of `policy` and the metric there, certified to
    /// `digits` significant digits, as `taskassign optimize`.
    pub fn optimize(&self, policy: OptPolicy, digits: u32) -> Result<OptimizeReport, Error> {
        let req = OptimizeRequest {
            policy,
            dist: &self.dist,
            hosts: self.hosts,
            load: self.load_spec()?,
            metric: self.metric,
            digits,
        };
        Ok(optimize_certified(&req)?)
    }

    /// The TAGS stability threshold ρ*(F, h) of this farm's sizes and hosts (the load is
    /// not used), certified, as `taskassign threshold`.
    pub fn threshold(&self, digits: u32) -> Result<ThresholdReport, Error> {
        Ok(threshold_certified(&self.dist, Some(self.hosts), digits)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_farm_without_a_load_is_bad_input() {
        let farm = Farm::new("exp:rate=1", 2).unwrap();
        let e = farm.optimize(OptPolicy::Sita, 10).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Input);
        assert_eq!(
            Farm::new("exp:rate=1", 0).unwrap_err().kind(),
            ErrorKind::Input
        );
        assert_eq!(
            Farm::new("exp:rate=0", 2).unwrap_err().kind(),
            ErrorKind::Input
        );
    }

    #[test]
    fn random_routing_matches_its_closed_form() {
        // Source: ARCHITECTURE.md, "The model": Random has E[W] = (λ/h)E[X²]/(2(1 − ρ/h));
        // exp(rate 1): E[X] = 1, E[X²] = 2, so at ρ = λ = 1 on h = 2 hosts
        // E[W] = (1/2)·2 / (2·(1/2)) = 1 exactly; 20 digits must read 1.000…e0.
        let farm = Farm::new("exp:rate=1", 2).unwrap().load("1");
        let r = farm.evaluate(PolicyKind::Random, &[], 20).unwrap();
        assert_eq!(r.value.digits, 20);
        assert!(
            r.value.text.starts_with("1.0000000000000000000"),
            "{}",
            r.value.text
        );
    }
}
