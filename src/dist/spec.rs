//! Distribution specs: `family:key=value,...` strings, validated once and built at any
//! precision (numbers are kept as the decimal strings the user typed).

use super::{
    bounded_pareto::BoundedPareto, deterministic::Deterministic, empirical,
    exponential::Exponential, hyperexp::HyperExp, lognormal::LogNormal, pareto::Pareto,
    uniform::Uniform, weibull::Weibull, DistError, JobSize,
};
use crate::num::parse_decimal;
use std::sync::Arc;

/// Anything that can build a distribution at a given precision: a [`DistSpec`] or a
/// user-supplied density ([`super::custom::CustomFactory`]).
pub trait DistFactory: Send + Sync {
    /// Builds the distribution with values at `bits` of precision.
    fn build(&self, bits: u32) -> Result<Box<dyn JobSize>, DistError>;
    /// A short text naming the distribution (the spec string for parsed specs).
    fn describe(&self) -> String;
}

/// The families and their keys, in the order the documentation lists them.
pub const FAMILIES: &[(&str, &[&str])] = &[
    ("bp", &["k", "p", "alpha"]),
    ("pareto", &["k", "alpha"]),
    ("exp", &["rate"]),
    ("uniform", &["a", "b"]),
    ("det", &["x"]),
    ("hyperexp", &["p", "rate1", "rate2"]),
    ("weibull", &["shape", "scale"]),
    ("lognormal", &["mu", "sigma"]),
    ("empirical", &["file"]),
];

/// A parsed and validated `family:key=value,...` string.
#[derive(Debug, Clone)]
pub struct DistSpec {
    text: String,
    family: &'static str,
    /// Values in the order of the family's keys in [`FAMILIES`].
    values: Vec<String>,
    /// Empirical samples (decimal strings), read once.
    samples: Option<Arc<Vec<String>>>,
}

impl DistSpec {
    /// Parses and validates a spec (building it once at a moderate precision, so that
    /// α ≤ 0, p ≤ k, a malformed file, … are reported here).
    ///
    /// ```
    /// use taskassign::dist::{DistSpec, DistFactory};
    /// let d = DistSpec::parse("bp:k=1,p=1e10,alpha=1").unwrap();
    /// assert_eq!(d.describe(), "bp:k=1,p=1e10,alpha=1");
    /// assert!(DistSpec::parse("bp:k=1,p=0.5,alpha=1").is_err());
    /// assert!(DistSpec::parse("gamma:shape=2").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, DistError> {
        let bad = |why: String| DistError::BadSpec {
            spec: text.to_string(),
            why,
        };
        let (fam, rest) = text.split_once(':').ok_or_else(|| {
            bad("expected family:key=value,... (e.g. bp:k=1,p=1e10,alpha=1)".into())
        })?;
        let fam = fam.trim();
        let (family, keys) = FAMILIES
            .iter()
            .find(|(f, _)| *f == fam)
            .copied()
            .ok_or_else(|| {
                let names: Vec<&str> = FAMILIES.iter().map(|(f, _)| *f).collect();
                bad(format!(
                    "unknown family '{fam}' (known: {})",
                    names.join(", ")
                ))
            })?;
        let mut values: Vec<Option<String>> = vec![None; keys.len()];
        for part in rest.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("'{part}' is not key=value")))?;
            let k = k.trim();
            let i = keys.iter().position(|x| *x == k).ok_or_else(|| {
                bad(format!(
                    "unknown key '{k}' for {family} (keys: {})",
                    keys.join(", ")
                ))
            })?;
            if values[i].is_some() {
                return Err(bad(format!("key '{k}' given twice")));
            }
            values[i] = Some(v.trim().to_string());
        }
        let mut out = Vec::with_capacity(keys.len());
        for (i, v) in values.into_iter().enumerate() {
            out.push(v.ok_or_else(|| bad(format!("missing key '{}' for {family}", keys[i])))?);
        }
        let samples = if family == "empirical" {
            Some(Arc::new(empirical::read_file(&out[0])?))
        } else {
            None
        };
        let spec = DistSpec {
            text: text.trim().to_string(),
            family,
            values: out,
            samples,
        };
        spec.build(crate::num::working_bits(crate::num::DEFAULT_DIGITS))?;
        Ok(spec)
    }

    /// The family name.
    pub fn family(&self) -> &'static str {
        self.family
    }

    fn num(&self, i: usize, bits: u32) -> Result<rug::Float, DistError> {
        let key = FAMILIES
            .iter()
            .find(|(f, _)| *f == self.family)
            .map(|(_, k)| k[i])
            .unwrap_or("?");
        parse_decimal(&self.values[i], bits).map_err(|e| DistError::BadSpec {
            spec: self.text.clone(),
            why: format!("{key}: {e}"),
        })
    }
}

impl DistFactory for DistSpec {
    fn build(&self, bits: u32) -> Result<Box<dyn JobSize>, DistError> {
        let n = |i| self.num(i, bits);
        Ok(match self.family {
            "bp" => Box::new(BoundedPareto::new(n(0)?, n(1)?, n(2)?)?),
            "pareto" => Box::new(Pareto::new(n(0)?, n(1)?)?),
            "exp" => Box::new(Exponential::new(n(0)?)?),
            "uniform" => Box::new(Uniform::new(n(0)?, n(1)?)?),
            "det" => Box::new(Deterministic::new(n(0)?)?),
            "hyperexp" => Box::new(HyperExp::new(n(0)?, n(1)?, n(2)?)?),
            "weibull" => Box::new(Weibull::new(n(0)?, n(1)?)?),
            "lognormal" => Box::new(LogNormal::new(n(0)?, n(1)?)?),
            "empirical" => {
                let samples = self.samples.as_ref().ok_or_else(|| DistError::BadSpec {
                    spec: self.text.clone(),
                    why: "no samples".into(),
                })?;
                Box::new(empirical::Empirical::new(bits, &self.values[0], samples)?)
            }
            other => {
                return Err(DistError::BadSpec {
                    spec: self.text.clone(),
                    why: format!("family '{other}' has no builder"),
                })
            }
        })
    }

    fn describe(&self) -> String {
        self.text.clone()
    }
}
