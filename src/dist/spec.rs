//! Distribution specs: `family:key=value,...` strings, validated once and built at any
//! precision (numbers are kept as the decimal strings the user typed).

use super::enclose::{
    DeterministicEnclosure, EmpiricalEnclosure, Enclosure, ErlangEnclosure, ExponentialEnclosure,
    HyperExpEnclosure, LogNormalEnclosure, PowerLawEnclosure, UniformEnclosure, WeibullEnclosure,
};
use super::{
    bounded_pareto::BoundedPareto, deterministic::Deterministic, empirical, erlang::Erlang,
    exponential::Exponential, hyperexp::HyperExp, lognormal::LogNormal, pareto::Pareto,
    uniform::Uniform, weibull::Weibull, DistError, JobSize,
};
use crate::num::interval::Interval;
use crate::num::parse_decimal;
use std::sync::Arc;

/// Anything that can build a distribution at a given precision: a [`DistSpec`] or a
/// user-supplied density ([`super::custom::CustomFactory`]).
pub trait DistFactory: Send + Sync {
    /// Builds the distribution with values at `bits` of precision.
    fn build(&self, bits: u32) -> Result<Box<dyn JobSize>, DistError>;
    /// A short text naming the distribution (the spec string for parsed specs).
    fn describe(&self) -> String;
    /// A rigorous enclosure of the law at `bits` ([`super::enclose`]): its parameters as
    /// intervals that contain the decimals written, its moments with proven bounds. A law
    /// without one (a user density, whose moments come from quadrature with an estimated,
    /// not a bounded, error) says so.
    fn enclose(&self, _bits: u32) -> Result<Box<dyn Enclosure>, DistError> {
        Err(DistError::NoEnclosure {
            dist: self.describe(),
            why: "its moments come from quadrature, whose error is estimated, not bounded".into(),
        })
    }
}

/// The families and their keys, in the order the documentation lists them. A family may
/// appear more than once with another set of keys (a parametrisation by mean and squared
/// coefficient of variation, as the redundancy literature writes its laws); a spec is
/// matched to the entry whose keys it gives.
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
    ("erlang", &["k", "rate"]),
    // Balanced means (each branch carries half the mean): p = (1 + √((c²−1)/(c²+1)))/2,
    // rate1 = 2p/m, rate2 = 2(1−p)/m; needs c² ≥ 1.
    ("hyperexp", &["mean", "scv"]),
    // σ² = ln(1 + c²), μ = ln m − σ²/2.
    ("lognormal", &["mean", "scv"]),
    // scale = m/Γ(1 + 1/k).
    ("weibull", &["shape", "mean"]),
];

/// Guard bits of the conversions from a mean and an SCV to a family's own parameters.
const FORM_GUARD_BITS: u32 = 16;

/// A parsed and validated `family:key=value,...` string.
#[derive(Debug, Clone)]
pub struct DistSpec {
    text: String,
    family: &'static str,
    /// The entry of [`FAMILIES`] the spec matched (its keys, in order).
    keys: &'static [&'static str],
    /// Values in the order of the entry's keys.
    values: Vec<String>,
    /// Empirical samples (decimal strings), read once.
    samples: Option<Arc<Vec<String>>>,
}

impl DistSpec {
    /// The samples of an `empirical` spec (an error for a spec read without them).
    fn samples(&self) -> Result<&Arc<Vec<String>>, DistError> {
        self.samples.as_ref().ok_or_else(|| DistError::BadSpec {
            spec: self.text.clone(),
            why: "no samples".into(),
        })
    }

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
        let forms: Vec<(&'static str, &'static [&'static str])> = FAMILIES
            .iter()
            .filter(|(f, _)| *f == fam)
            .copied()
            .collect();
        if forms.is_empty() {
            let mut names: Vec<&str> = FAMILIES.iter().map(|(f, _)| *f).collect();
            names.dedup();
            let mut seen = std::collections::HashSet::new();
            names.retain(|n| seen.insert(*n));
            return Err(bad(format!(
                "unknown family '{fam}' (known: {})",
                names.join(", ")
            )));
        }
        let mut given: Vec<(String, String)> = Vec::new();
        for part in rest.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("'{part}' is not key=value")))?;
            let k = k.trim();
            if given.iter().any(|(g, _)| g == k) {
                return Err(bad(format!("key '{k}' given twice")));
            }
            given.push((k.to_string(), v.trim().to_string()));
        }
        let describe = |keys: &[&str]| keys.join(", ");
        // The form whose keys are exactly those given; failing that, the first form that
        // has every given key (to report what is missing), else the first form.
        let exact = forms.iter().find(|(_, ks)| {
            ks.len() == given.len() && given.iter().all(|(g, _)| ks.contains(&g.as_str()))
        });
        let (family, keys) = match exact {
            Some(f) => *f,
            None => {
                let partial = forms
                    .iter()
                    .find(|(_, ks)| given.iter().all(|(g, _)| ks.contains(&g.as_str())));
                match partial {
                    Some((f, ks)) => {
                        let missing = ks
                            .iter()
                            .find(|k| !given.iter().any(|(g, _)| g == *k))
                            .copied()
                            .unwrap_or("?");
                        return Err(bad(format!("missing key '{missing}' for {f}")));
                    }
                    None => {
                        let unknown = given
                            .iter()
                            .find(|(g, _)| !forms.iter().any(|(_, ks)| ks.contains(&g.as_str())))
                            .map(|(g, _)| g.clone());
                        let alts: Vec<String> = forms.iter().map(|(_, ks)| describe(ks)).collect();
                        return Err(bad(match unknown {
                            Some(k) => format!(
                                "unknown key '{k}' for {fam} (keys: {})",
                                alts.join("; or ")
                            ),
                            None => format!(
                                "keys of different forms mixed for {fam} (keys: {})",
                                alts.join("; or ")
                            ),
                        }));
                    }
                }
            }
        };
        let mut values: Vec<Option<String>> = vec![None; keys.len()];
        for (k, v) in given {
            if let Some(i) = keys.iter().position(|x| *x == k) {
                values[i] = Some(v);
            }
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
            keys,
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

    /// The value of `key` as written (`None` if the spec's form has no such key).
    pub fn value(&self, key: &str) -> Option<&str> {
        self.keys
            .iter()
            .position(|k| *k == key)
            .and_then(|i| self.values.get(i))
            .map(String::as_str)
    }

    /// The keys of the form the spec was written in (`["mean", "scv"]`, …).
    pub fn keys(&self) -> &'static [&'static str] {
        self.keys
    }

    /// Value `i` enclosed at `bits` ([`Interval::from_decimal`]).
    fn interval(&self, i: usize, bits: u32) -> Result<Interval, DistError> {
        let key = self.keys.get(i).copied().unwrap_or("?");
        Interval::from_decimal(&self.values[i], bits).map_err(|e| DistError::BadSpec {
            spec: self.text.clone(),
            why: format!("{key}: {e}"),
        })
    }

    fn num(&self, i: usize, bits: u32) -> Result<rug::Float, DistError> {
        let key = self.keys.get(i).copied().unwrap_or("?");
        parse_decimal(&self.values[i], bits).map_err(|e| DistError::BadSpec {
            spec: self.text.clone(),
            why: format!("{key}: {e}"),
        })
    }
}

impl DistFactory for DistSpec {
    fn build(&self, bits: u32) -> Result<Box<dyn JobSize>, DistError> {
        let n = |i| self.num(i, bits);
        let w = bits + FORM_GUARD_BITS;
        let nw = |i| self.num(i, w);
        let positive = |name: &str, x: &rug::Float| -> Result<(), DistError> {
            if *x > 0 && x.is_finite() {
                Ok(())
            } else {
                Err(DistError::BadParameter {
                    family: self.family,
                    why: format!(
                        "{name} must be finite and > 0, got {}",
                        crate::num::message_number(x)
                    ),
                })
            }
        };
        let at = |x: rug::Float| rug::Float::with_val(bits, x);
        Ok(match (self.family, self.keys) {
            ("hyperexp", ["mean", "scv"]) => {
                let (m, c2) = (nw(0)?, nw(1)?);
                positive("mean", &m)?;
                if !(c2 >= 1) || c2.is_infinite() {
                    return Err(DistError::BadParameter {
                        family: "hyperexp",
                        why: format!(
                            "a balanced-means hyperexponential needs a finite scv >= 1, got {}",
                            crate::num::message_number(&c2)
                        ),
                    });
                }
                let q = (rug::Float::with_val(w, &c2 - 1u32) / rug::Float::with_val(w, &c2 + 1u32))
                    .sqrt();
                let p = (q + 1u32) / 2u32;
                if at(p.clone()) >= 1 {
                    // 1 − p ≈ 1/(2 scv) is below the working precision: the law cannot be
                    // held as (p, rate1, rate2) at these bits.
                    return Err(DistError::BadParameter {
                        family: "hyperexp",
                        why: format!(
                            "scv = {} makes the light phase's weight 1 - p (about 1/(2 scv)) vanish at {bits} bits: use a smaller scv, or give p, rate1, rate2",
                            crate::num::message_number(&c2)
                        ),
                    });
                }
                let r1 = rug::Float::with_val(w, &p * 2u32) / &m;
                let r2 = rug::Float::with_val(w, 1u32 - &p) * 2u32 / &m;
                Box::new(HyperExp::new(at(p), at(r1), at(r2))?)
            }
            ("lognormal", ["mean", "scv"]) => {
                let (m, c2) = (nw(0)?, nw(1)?);
                positive("mean", &m)?;
                positive("scv", &c2)?;
                let s2 = rug::Float::with_val(w, c2.ln_1p_ref());
                let mu = rug::Float::with_val(w, m.ln_ref()) - rug::Float::with_val(w, &s2 / 2u32);
                Box::new(LogNormal::new(at(mu), at(s2.sqrt()))?)
            }
            ("weibull", ["shape", "mean"]) => {
                let (k, m) = (nw(0)?, nw(1)?);
                positive("shape", &k)?;
                positive("mean", &m)?;
                let g = (rug::Float::with_val(w, k.recip_ref()) + 1u32).gamma();
                if !g.is_finite() {
                    return Err(DistError::BadParameter {
                        family: "weibull",
                        why: format!(
                            "shape = {} makes Gamma(1 + 1/shape) overflow MPFR's range, so no scale gives the mean asked: use a larger shape",
                            crate::num::message_number(&k)
                        ),
                    });
                }
                Box::new(Weibull::new(at(k), at(m / g))?)
            }
            ("erlang", _) => {
                let k = n(0)?;
                Box::new(Erlang::new(&k, n(1)?)?)
            }
            _ => match self.family {
                "bp" => Box::new(BoundedPareto::new(n(0)?, n(1)?, n(2)?)?),
                "pareto" => Box::new(Pareto::new(n(0)?, n(1)?)?),
                "exp" => Box::new(Exponential::new(n(0)?)?),
                "uniform" => Box::new(Uniform::new(n(0)?, n(1)?)?),
                "det" => Box::new(Deterministic::new(n(0)?)?),
                "hyperexp" => Box::new(HyperExp::new(n(0)?, n(1)?, n(2)?)?),
                "weibull" => Box::new(Weibull::new(n(0)?, n(1)?)?),
                "lognormal" => Box::new(LogNormal::new(n(0)?, n(1)?)?),
                "empirical" => {
                    let samples = self.samples()?;
                    Box::new(empirical::Empirical::new(bits, &self.values[0], samples)?)
                }
                other => {
                    return Err(DistError::BadSpec {
                        spec: self.text.clone(),
                        why: format!("family '{other}' has no builder"),
                    })
                }
            },
        })
    }

    fn describe(&self) -> String {
        self.text.clone()
    }

    fn enclose(&self, bits: u32) -> Result<Box<dyn Enclosure>, DistError> {
        let n = |i| self.interval(i, bits);
        let one = Interval::int(bits, 1);
        Ok(match (self.family, self.keys) {
            ("hyperexp", ["mean", "scv"]) => {
                // q = √((c²−1)/(c²+1)), p = (1 + q)/2, 1 − p = (1 − q)/2 with
                // 1 − q = (2/(c²+1))/(1 + q) (no cancellation for large c²).
                let (m, c2) = (n(0)?, n(1)?);
                let den = c2.add(&one);
                let q = c2.sub(&one).div(&den).sqrt();
                let p = one.add(&q).mul_2exp(-1);
                let one_m_q = Interval::int(bits, 2).div(&den).div(&one.add(&q));
                let pc = one_m_q.mul_2exp(-1);
                let r1 = p.mul_u(2).div(&m);
                let r2 = pc.mul_u(2).div(&m);
                Box::new(HyperExpEnclosure::new(p, pc, r1, r2)?)
            }
            ("lognormal", ["mean", "scv"]) => {
                // σ² = ln(1 + c²), μ = ln m − σ²/2.
                let (m, c2) = (n(0)?, n(1)?);
                let s2 = c2.ln_1p();
                let mu = m.ln().sub(&s2.mul_2exp(-1));
                Box::new(LogNormalEnclosure::new(mu, s2.sqrt())?)
            }
            ("weibull", ["shape", "mean"]) => {
                // λ = m / Γ(1 + 1/k).
                let (k, m) = (n(0)?, n(1)?);
                let g = k.recip().add(&one).gamma();
                Box::new(WeibullEnclosure::new(k, m.div(&g))?)
            }
            ("erlang", _) => {
                let k = parse_decimal(&self.values[0], 64)
                    .ok()
                    .and_then(|k| k.to_u32_saturating())
                    .unwrap_or(1);
                Box::new(ErlangEnclosure::new(k, n(1)?)?)
            }
            _ => match self.family {
                "bp" => Box::new(PowerLawEnclosure::new(n(0)?, Some(n(1)?), n(2)?)?),
                "pareto" => Box::new(PowerLawEnclosure::new(n(0)?, None, n(1)?)?),
                "exp" => Box::new(ExponentialEnclosure::new(n(0)?)?),
                "uniform" => Box::new(UniformEnclosure::new(n(0)?, n(1)?)?),
                "det" => Box::new(DeterministicEnclosure::new(n(0)?)?),
                "hyperexp" => {
                    let p = n(0)?;
                    let q = one.sub(&p);
                    Box::new(HyperExpEnclosure::new(p, q, n(1)?, n(2)?)?)
                }
                "weibull" => Box::new(WeibullEnclosure::new(n(0)?, n(1)?)?),
                "lognormal" => Box::new(LogNormalEnclosure::new(n(0)?, n(1)?)?),
                "empirical" => {
                    let samples = self.samples()?;
                    Box::new(EmpiricalEnclosure::new(bits, &self.values[0], samples)?)
                }
                other => {
                    return Err(DistError::NoEnclosure {
                        dist: self.text.clone(),
                        why: format!("family '{other}' has no enclosure"),
                    })
                }
            },
        })
    }
}
