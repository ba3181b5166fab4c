//! The `dispatch` model: size-based routing of Poisson arrivals to h FCFS hosts.
//!
//! `[setup]` keys: `dist` (a distribution spec template, `"bp:k=1,p={p},alpha={alpha}"`),
//! `hosts` (an integer, `"inf"` for thresholds, or an expression such as `"h"`), one of
//! `load` (total ρ = λE[X]), `load_per_host` (ρ/h) and `lambda` (expressions), and
//! `metric` (`waiting`, `response`, `slowdown`). A call may override any of them
//! (`opt(tags, hosts=3, load=0.5)`); the load keys replace one another. The names `hosts`,
//! `rho` and `lambda` have a value at every point. See ARCHITECTURE.md for the model's
//! conventions.

use crate::claims::error::QuantityError;
use crate::claims::expr::Expr;
use crate::claims::proof::Proof;
use crate::claims::schema::FileCtx;
use crate::claims::scope::SystemSpec;
use crate::claims::scope::{OverVal, Scope};
use crate::claims::signature::ModelSignature;
use crate::claims::system::Model;
use crate::claims::value::Pair;
use crate::claims::ClaimError;
use crate::dist::{DistFactory, DistSpec, Enclosure};
use crate::num::certify::to_sci;
use crate::num::interval::Interval;
use crate::policy::{LoadSpec, Metric};
use crate::vocab::{concat, UnknownName, Vocabulary};
use rug::Float;
use serde::Deserialize;
use toml::Spanned;

/// The model's name in `[setup] model = "…"` (the default model).
pub const MODEL: &str = "dispatch";

/// The keys that give the load; one at a time.
pub const LOAD_KEYS: &[&str] = &["load", "lambda", "load_per_host"];

/// The model's declaration: the setup keys a call may override, the names with a value at
/// every point, the bare words of its values.
pub const SIGNATURE: ModelSignature = ModelSignature {
    name: MODEL,
    keys: &["dist", "hosts", "load", "lambda", "load_per_host", "metric"],
    exclusive: &[LOAD_KEYS],
    variables: &["hosts", "rho", "lambda"],
    words: &concat::<{ 1 + Metric::NAMES.len() }>(&["inf"], Metric::NAMES),
    setup_keys: &["dist", "hosts", "load", "load_per_host", "lambda", "metric"],
    required: &["dist"],
};
/// Significant digits with which a hosts expression's value is read as an integer.
const HOSTS_DIGITS: u32 = 30;
/// The largest host count a claim may give (the many-server models go to N = 10^6 and
/// beyond; every count up to this is exact in f64 and in `usize`).
pub const MAX_HOSTS: u64 = 1 << 53;

/// `[setup]` of a dispatch claim, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DispatchSetup {
    /// `dispatch` (the default).
    #[serde(default)]
    #[expect(
        dead_code,
        reason = "a shared key for serde; compile/setup.rs reads it"
    )]
    pub model: Option<String>,
    /// Significant digits (read by the compiler).
    #[serde(default)]
    #[expect(
        dead_code,
        reason = "a shared key for serde; compile/setup.rs reads it"
    )]
    pub digits: Option<toml::Value>,
    /// Distribution spec, e.g. `"bp:k=1,p={p},alpha={alpha}"`.
    pub dist: Spanned<String>,
    /// Hosts: an integer, `"inf"` (thresholds only) or an expression such as `"{h}"`.
    #[serde(default)]
    pub hosts: Option<Spanned<toml::Value>>,
    /// Total load ρ = λE[X] (an expression, e.g. `"0.5"` or `"{f} * threshold()"`).
    #[serde(default)]
    pub load: Option<Spanned<String>>,
    /// Load per host u (ρ = u·h), an expression.
    #[serde(default)]
    pub load_per_host: Option<Spanned<String>>,
    /// Arrival rate λ, an expression (e.g. `"0.5 / p"`).
    #[serde(default)]
    pub lambda: Option<Spanned<String>>,
    /// waiting | response | slowdown (default waiting).
    #[serde(default)]
    pub metric: Option<Spanned<String>>,
}

/// The dispatch system as written (templates and expressions).
#[derive(Debug, Clone)]
pub struct DispatchSpec {
    /// Distribution template.
    pub dist: String,
    /// Hosts expression, or `None` for `inf`.
    pub hosts: Option<Expr>,
    /// Load: (key, expression); the key is `load`, `load_per_host` or `lambda`.
    pub load: Option<(String, Expr)>,
    /// Metric.
    pub metric: Metric,
}

/// The dispatch system at one point.
#[derive(Debug, Clone)]
pub struct DispatchSystem {
    /// Distribution spec.
    pub dist: String,
    /// Hosts (`None`: h → ∞).
    pub hosts: Option<usize>,
    /// The load (left out where a quantity does not need it).
    pub load: Option<LoadSpec>,
    /// The metric.
    pub metric: Metric,
    /// The setup's load expression when it is computed (neither a number nor a grid
    /// variable): its decimal is rounded to the working precision, so that under
    /// `check --rigorous` a value at that load is not proven.
    pub computed_load: Option<String>,
    /// That computed expression (its enclosure is the load's under `check --rigorous`:
    /// [`DispatchSystem::enclosed_load`]).
    pub computed_expr: Option<Expr>,
}

impl DispatchSystem {
    /// The canonical text of the system, for cache keys.
    pub fn key(&self) -> String {
        format!(
            "{}|{:?}|{:?}|{}",
            self.dist,
            self.hosts,
            self.load,
            self.metric.name()
        )
    }

    /// Under `check --rigorous`: λ and ρ enclosed on the law's enclosure `enc` for
    /// `hosts` hosts. A load written as a number is enclosed from its decimal; a computed
    /// one (`load = "f * threshold()"`, `lambda = "r / moment(2)"`) from the enclosure its
    /// expression carries, evaluated with proofs, so that a value at it is proven for the
    /// exact load rather than for its rounded decimal (which the certified values use:
    /// the two differ by far less than the digits asked). A computed load without an
    /// enclosure says why.
    pub fn enclosed_load(
        &self,
        scope: &Scope,
        enc: &dyn Enclosure,
        hosts: usize,
    ) -> Result<(Interval, Interval), String> {
        let load = self.load.as_ref().ok_or("no load at this point")?;
        let value = self.load_value(scope)?;
        load.resolve_enclosed_at(value.as_ref(), enc, hosts)
            .map_err(|e| e.to_string())
    }

    /// Under `check --rigorous`: the enclosure of a computed load's number (`None` for a
    /// load written as a number: its decimal is enclosed where it is used), or why there
    /// is none.
    pub fn load_value(&self, scope: &Scope) -> Result<Option<Interval>, String> {
        let (Some(e), Some(what)) = (&self.computed_expr, &self.computed_load) else {
            return Ok(None);
        };
        let v = scope
            .resolving_rigorous()
            .eval(e)
            .map_err(|e| e.to_string())?;
        match v.proof {
            Proof::Enclosed(i) => Ok(Some(*i)),
            Proof::Unproven(why) => Err(format!(
                "the load {what} is computed and not enclosed: {why}"
            )),
            Proof::Off => Err(format!(
                "the load {what} is computed and passed as a rounded decimal"
            )),
        }
    }

    /// The distribution spec.
    pub fn spec(&self) -> Result<DistSpec, QuantityError> {
        Ok(DistSpec::parse(&self.dist)?)
    }

    /// The law enclosed at `bits` (`check --rigorous`), or why there is no enclosure.
    pub fn enclosure(&self, bits: u32) -> Result<Box<dyn Enclosure>, String> {
        self.spec()
            .map_err(|e| e.to_string())?
            .enclose(bits)
            .map_err(|e| e.to_string())
    }

    /// The host count, which `what` needs finite.
    pub fn need_hosts(&self, what: &str) -> Result<usize, QuantityError> {
        self.hosts.ok_or_else(|| {
            QuantityError::Usage(format!(
                "{what} needs a finite number of hosts (hosts = inf is only for threshold)"
            ))
        })
    }

    /// The load, which `what` needs.
    pub fn need_load(&self, what: &str) -> Result<LoadSpec, QuantityError> {
        self.load
            .clone()
            .ok_or_else(|| QuantityError::Usage(format!("{what} needs a load")))
    }
}

/// The command-line flag of a load (for messages that name the equivalent command).
pub fn load_flag(l: &LoadSpec) -> String {
    match l {
        LoadSpec::Total(s) => format!("--load {s}"),
        LoadSpec::PerHost(s) => format!("--load-per-host {s}"),
        LoadSpec::Lambda(s) => format!("--lambda {s}"),
    }
}

/// Parses a metric name.
pub fn parse_metric(s: &str) -> Result<Metric, String> {
    s.parse().map_err(|e: UnknownName| e.to_string())
}

/// A host count written as an integer or a decimal (`1000000`, `1e6`), from 1 to
/// [`MAX_HOSTS`].
pub fn hosts_from_text(s: &str) -> Result<usize, QuantityError> {
    let n = crate::num::parse_count(s, "hosts", 1, MAX_HOSTS)
        .map_err(|e| QuantityError::Usage(e.to_string()))?;
    usize::try_from(n).map_err(|_| QuantityError::Usage(format!("hosts {n} does not fit")))
}

impl DispatchSpec {
    /// The spec of the scope's claim (an internal error if the claim is of another model,
    /// which the compiler rules out).
    pub fn of<'s>(scope: &Scope<'s>) -> Result<&'s DispatchSpec, QuantityError> {
        scope.system_as(MODEL)
    }

    /// The system at the point of `scope`, with the call's overrides (the load is left
    /// out when `with_load` is false, or while a setup expression is being resolved).
    pub fn resolve(scope: &Scope, with_load: bool) -> Result<DispatchSystem, QuantityError> {
        let spec = DispatchSpec::of(scope)?;
        let dist = match scope.over.get("dist") {
            Some(v) => scope.substitute(v.text())?,
            None => scope.substitute(&spec.dist)?,
        };
        let metric = match scope.over.get("metric") {
            Some(v) => parse_metric(v.text()).map_err(QuantityError::Usage)?,
            None => spec.metric,
        };
        let hosts = match scope.over.get("hosts") {
            Some(OverVal::Text(s)) if s == "inf" => None,
            Some(v) => Some(hosts_from_text(v.text())?),
            None => match &spec.hosts {
                None => None,
                Some(Expr::Var(v)) if scope.vars.get(v).is_some_and(|x| x == "inf") => None,
                Some(e) => {
                    let v = scope.resolving().eval(e)?;
                    Some(hosts_from_text(&to_sci(&v.hi, HOSTS_DIGITS))?)
                }
            },
        };
        let mut computed_load = None;
        let mut computed_expr = None;
        let load = if !with_load || scope.resolving {
            None
        } else {
            let given = LOAD_KEYS
                .iter()
                .find_map(|k| scope.over.get(*k).map(|v| (k.to_string(), v.clone())));
            let (kind, text) = match given {
                Some((k, v)) => (k, v.text().to_string()),
                None => match &spec.load {
                    Some((k, e))
                        if !(matches!(e, Expr::Num(_))
                            || matches!(e, Expr::Var(v) if scope.vars.contains_key(v))) =>
                    {
                        computed_load = Some(format!("{k} = {e}"));
                        computed_expr = Some(e.clone());
                        (k.clone(), scope.setup_text(e)?)
                    }
                    None => {
                        return Err(QuantityError::Usage(
                            "the setup gives no load (load, lambda or load_per_host)".into(),
                        ))
                    }
                    Some((k, e)) => (k.clone(), scope.setup_text(e)?),
                },
            };
            Some(match kind.as_str() {
                "lambda" => LoadSpec::Lambda(text),
                "load_per_host" => LoadSpec::PerHost(text),
                _ => LoadSpec::Total(text),
            })
        };
        Ok(DispatchSystem {
            dist,
            hosts,
            load,
            metric,
            computed_load,
            computed_expr,
        })
    }
}

impl SystemSpec for DispatchSpec {
    fn signature(&self) -> &'static ModelSignature {
        &SIGNATURE
    }
    fn setup_value(&self, key: &str) -> Option<&Expr> {
        match key {
            "hosts" => self.hosts.as_ref(),
            _ => None,
        }
    }
    fn key_words(&self, key: &str) -> &'static [&'static str] {
        match key {
            "metric" => Metric::NAMES,
            _ => &[],
        }
    }
    fn variable(&self, name: &str, scope: &Scope) -> Result<Pair, QuantityError> {
        match name {
            "hosts" => {
                let s = DispatchSpec::resolve(scope, false)?;
                let h = s
                    .hosts
                    .ok_or_else(|| QuantityError::Undefined("hosts is inf, not a number".into()))?;
                let p = Pair::exact(scope.bits, h as i64);
                Ok(if scope.rigorous {
                    let h = i64::try_from(h).unwrap_or(i64::MAX);
                    p.with_proof(Proof::enclosed(Interval::int(scope.enclosure_bits(), h)))
                } else {
                    p
                })
            }
            _ => {
                let s = DispatchSpec::resolve(scope, true)?;
                let load = s
                    .load
                    .clone()
                    .ok_or_else(|| QuantityError::Usage("no load at this point".into()))?;
                let hosts = s.hosts.unwrap_or(1);
                let spec = s.spec()?;
                let one = |bits: u32| -> Result<Float, QuantityError> {
                    let d = spec.build(bits)?;
                    let (l, r) = load.resolve(d.as_ref(), hosts)?;
                    Ok(if name == "rho" { r } else { l })
                };
                let p = Pair::new(one(scope.bits.0)?, one(scope.bits.1)?);
                if !scope.rigorous {
                    return Ok(p);
                }
                let proof =
                    crate::num::range::isolated(|| match spec.enclose(scope.enclosure_bits()) {
                        Ok(enc) => match s.enclosed_load(scope, enc.as_ref(), hosts) {
                            Ok((l, r)) => Proof::enclosed(if name == "rho" { r } else { l }),
                            Err(why) => Proof::unproven(why),
                        },
                        Err(e) => Proof::unproven(e.to_string()),
                    });
                Ok(p.with_proof(proof))
            }
        }
    }
}

/// The dispatch model.
pub struct Dispatch;

impl Model for Dispatch {
    fn signature(&self) -> &'static ModelSignature {
        &SIGNATURE
    }

    fn compile(&self, c: &FileCtx, vars: &[String]) -> Result<Box<dyn SystemSpec>, ClaimError> {
        let s: DispatchSetup = c.setup()?;
        c.check_template(&s.dist, "setup.dist", vars)?;
        let hosts = match &s.hosts {
            None => None,
            Some(h) => c.setup_count(
                h,
                "setup.hosts",
                true,
                "hosts must be an integer ≥ 1, \"inf\", or an expression string such as \"h\"",
            )?,
        };
        let load = c.setup_one_of(&[
            ("load", &s.load),
            ("load_per_host", &s.load_per_host),
            ("lambda", &s.lambda),
        ])?;
        let metric = match &s.metric {
            None => Metric::Waiting,
            Some(m) => parse_metric(m.get_ref()).or_else(|e| c.err(m.span(), "setup.metric", e))?,
        };
        Ok(Box::new(DispatchSpec {
            dist: s.dist.get_ref().clone(),
            hosts,
            load,
            metric,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_counts_read_the_same_written_either_way() {
        // The JSQ-ready limit: 1e6 and 1000000 are the same count (both exact).
        assert_eq!(hosts_from_text("1e6").ok(), Some(1_000_000));
        assert_eq!(hosts_from_text("1000000").ok(), Some(1_000_000));
        assert_eq!(hosts_from_text("2.00000e0").ok(), Some(2));
        assert_eq!(hosts_from_text("9007199254740992").ok(), Some(1 << 53));
        for bad in ["0", "-3", "2.5", "1e300", "9007199254740993", "abc", "inf"] {
            assert!(hosts_from_text(bad).is_err(), "{bad}");
        }
    }
}
