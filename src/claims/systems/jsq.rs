//! The `jsq` model: JSQ(d(N)) load balancing on N single-server queues or N server pools
//! ([`crate::lb`]; conventions in [`crate::lb::model`] and the README's `jsq` section).
//!
//! `[setup]` keys (`model = "jsq"`):
//!
//! | key | value |
//! |---|---|
//! | `kind` | `queues` or `pools` (a template: `"{kind}"`) |
//! | `lambda` | λ per server, an expression; or |
//! | `halfin_whitt` | β of the Halfin–Whitt regime λ(N) = N − β√N (λ = 1 − β/√N; needs `servers`) |
//! | `servers` | N, an integer or an expression (`"10^e"`); needed by the finite-N quantities |
//! | `d` | a d specification, a template: `"2"`, `"inf"`, `"log(N)"`, `"{dd}"` (default `inf`) |
//! | `buffer` | the buffer b of a queue or capacity B of a pool: an integer, `"inf"` (default) or an expression |
//! | `sampling` | `without` (default, the papers' model) or `with` |
//!
//! A call may override any of them (`jsq_sim(d='log(N)', servers=1000)`); `lambda` and
//! `halfin_whitt` replace one another. The names `lambda` (per server, at this point) and
//! `servers` have a value at every point.

use crate::claims::error::QuantityError;
use crate::claims::expr::Expr;
use crate::claims::proof::Proof;
use crate::claims::schema::FileCtx;
use crate::claims::scope::Scope;
use crate::claims::scope::SystemSpec;
use crate::claims::signature::ModelSignature;
use crate::claims::system::Model;
use crate::claims::systems::dispatch::hosts_from_text;
use crate::claims::value::Pair;
use crate::claims::ClaimError;
use crate::lb::diffusion::halfin_whitt_lambda;
use crate::lb::model::{DSpec, JsqSystem, Model as LbModel, ModelKind, Sampling};
use crate::num::certify::to_sci;
use crate::num::interval::Interval;
use crate::num::parse_decimal;
use crate::vocab::{concat, UnknownName, Vocabulary};
use rug::Float;
use serde::Deserialize;
use toml::Spanned;

/// The model's name in `[setup] model = "…"`.
pub const MODEL: &str = "jsq";
/// The keys that give the arrival rate; one at a time.
pub const RATE_KEYS: &[&str] = &["lambda", "halfin_whitt"];

/// The keys of a jsq `[setup]`, each of which a call may override.
const KEYS: &[&str] = &[
    "kind",
    "lambda",
    "halfin_whitt",
    "servers",
    "d",
    "buffer",
    "sampling",
];

/// The model's declaration: the setup keys a call may override, the names with a value at
/// every point, the bare words of its values.
pub const SIGNATURE: ModelSignature = ModelSignature {
    name: MODEL,
    keys: KEYS,
    exclusive: &[RATE_KEYS],
    variables: &["lambda", "servers"],
    words: &concat::<{ 1 + ModelKind::NAMES.len() + Sampling::NAMES.len() }>(
        &concat::<{ 1 + ModelKind::NAMES.len() }>(&["inf"], ModelKind::NAMES),
        Sampling::NAMES,
    ),
    setup_keys: KEYS,
    required: &["kind"],
};
/// Significant digits with which an integer expression's value is read.
const INTEGER_DIGITS: u32 = 30;

/// `[setup]` of a jsq claim, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsqSetup {
    /// `jsq`.
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
    /// `queues` or `pools`, a template.
    pub kind: Spanned<String>,
    /// λ per server, an expression.
    #[serde(default)]
    pub lambda: Option<Spanned<String>>,
    /// β of the Halfin–Whitt regime, an expression.
    #[serde(default)]
    pub halfin_whitt: Option<Spanned<String>>,
    /// N: an integer or an expression.
    #[serde(default)]
    pub servers: Option<Spanned<toml::Value>>,
    /// d, a template (default `inf`).
    #[serde(default)]
    pub d: Option<Spanned<String>>,
    /// b or B: an integer, `inf` or an expression.
    #[serde(default)]
    pub buffer: Option<Spanned<toml::Value>>,
    /// `without` or `with`.
    #[serde(default)]
    pub sampling: Option<Spanned<String>>,
}

/// The jsq system as written.
#[derive(Debug, Clone)]
pub struct JsqSpec {
    /// Kind template.
    pub kind: String,
    /// (key, expression): `lambda` or `halfin_whitt`.
    pub rate: Option<(String, Expr)>,
    /// N.
    pub servers: Option<Expr>,
    /// d template.
    pub d: String,
    /// Buffer (`None`: ∞).
    pub buffer: Option<Expr>,
    /// Sampling.
    pub sampling: Sampling,
}

/// The JSQ setup at one point of a claim: the `[setup]` keys with the point's values
/// substituted (the model itself is built by [`JsqPoint::system`]).
#[derive(Debug, Clone, PartialEq)]
pub struct JsqPoint {
    /// Queues or pools.
    pub kind: ModelKind,
    /// λ per server as a decimal string (in the Halfin–Whitt regime, 1 − β/√N in f64).
    pub lambda: String,
    /// β when the rate is given by the Halfin–Whitt regime.
    pub halfin_whitt: Option<String>,
    /// N, when given.
    pub servers: Option<u64>,
    /// d as written (after substitution).
    pub d: String,
    /// The capacity.
    pub buffer: Option<u32>,
    /// The sampling rule.
    pub sampling: Sampling,
}

impl JsqPoint {
    /// The canonical text of the system, for cache keys.
    pub fn key(&self) -> String {
        format!(
            "{}|{}|{:?}|{:?}|{}|{:?}|{}",
            self.kind.name(),
            self.lambda,
            self.halfin_whitt,
            self.servers,
            self.d,
            self.buffer,
            self.sampling.name()
        )
    }

    /// The model (kind, λ, capacity).
    pub fn model(&self) -> Result<LbModel, QuantityError> {
        Ok(LbModel::new(self.kind, &self.lambda, self.buffer)?)
    }

    /// The d specification.
    pub fn d_spec(&self) -> Result<DSpec, QuantityError> {
        Ok(DSpec::parse(&self.d)?)
    }

    /// N, which `what` needs.
    pub fn need_servers(&self, what: &str) -> Result<u64, QuantityError> {
        self.servers.ok_or_else(|| {
            QuantityError::Usage(format!("{what} needs servers (N) in the setup or the call"))
        })
    }

    /// The finite system (N servers, d resolved at N).
    pub fn system(&self, what: &str) -> Result<JsqSystem, QuantityError> {
        let n = self.need_servers(what)?;
        Ok(JsqSystem::new(
            self.model()?,
            n,
            &self.d_spec()?,
            self.sampling,
        )?)
    }

    /// The equivalent command line's options, for messages.
    pub fn flags(&self) -> String {
        let rate = match &self.halfin_whitt {
            Some(b) => format!("--halfin-whitt {b}"),
            None => format!("--lambda {}", self.lambda),
        };
        let mut s = format!("--model {} {rate} --d '{}'", self.kind.name(), self.d);
        if let Some(n) = self.servers {
            s.push_str(&format!(" --servers {n}"));
        }
        if let Some(b) = self.buffer {
            s.push_str(&format!(" --buffer {b}"));
        }
        if self.sampling == Sampling::With {
            s.push_str(" --sampling with");
        }
        s
    }
}

fn integer(scope: &Scope, e: &Expr, what: &str) -> Result<u64, QuantityError> {
    let v = scope.resolving().eval(e)?;
    let n = hosts_from_text(&to_sci(&v.hi, INTEGER_DIGITS))
        .map_err(|_| QuantityError::Usage(format!("{what} must be a positive integer")))?;
    Ok(n as u64)
}

fn kind_of(s: &str) -> Result<ModelKind, QuantityError> {
    s.parse()
        .map_err(|e: UnknownName| QuantityError::Usage(e.to_string()))
}

fn sampling_of(s: &str) -> Result<Sampling, QuantityError> {
    s.parse()
        .map_err(|e: UnknownName| QuantityError::Usage(e.to_string()))
}

impl JsqSpec {
    /// The spec of the scope's claim (an internal error if the claim is of another model).
    pub fn of<'s>(scope: &Scope<'s>) -> Result<&'s JsqSpec, QuantityError> {
        scope.system_as(MODEL)
    }

    /// The system at the point of `scope`, with the call's overrides.
    pub fn resolve(scope: &Scope) -> Result<JsqPoint, QuantityError> {
        let spec = JsqSpec::of(scope)?;
        let kind = match scope.over.get("kind") {
            Some(v) => kind_of(&scope.substitute(v.text())?)?,
            None => kind_of(&scope.substitute(&spec.kind)?)?,
        };
        let sampling = match scope.over.get("sampling") {
            Some(v) => sampling_of(v.text())?,
            None => spec.sampling,
        };
        let servers = match scope.over.get("servers") {
            Some(v) => Some(hosts_from_text(v.text())? as u64),
            None => match &spec.servers {
                None => None,
                Some(e) => Some(integer(scope, e, "servers")?),
            },
        };
        let d = match scope.over.get("d") {
            Some(v) => scope.substitute(v.text())?,
            None => scope.substitute(&spec.d)?,
        };
        let buffer = match scope.over.get("buffer") {
            Some(v) if v.text() == "inf" => None,
            Some(v) => Some(buffer_from_text(v.text())?),
            None => match &spec.buffer {
                None => None,
                Some(Expr::Var(v)) if scope.vars.get(v).is_some_and(|x| x == "inf") => None,
                Some(e) => Some(
                    u32::try_from(integer(scope, e, "buffer")?)
                        .map_err(|_| QuantityError::Usage("buffer too large".into()))?,
                ),
            },
        };
        let given = RATE_KEYS.iter().find_map(|k| {
            scope
                .over
                .get(*k)
                .map(|v| (k.to_string(), v.text().to_string()))
        });
        let (key, text) = match given {
            Some(kv) => kv,
            None => match &spec.rate {
                None => {
                    return Err(QuantityError::Usage(
                        "the setup gives no arrival rate (lambda or halfin_whitt)".into(),
                    ))
                }
                Some((k, e)) => (k.clone(), scope.setup_text(e)?),
            },
        };
        let (lambda, halfin_whitt) = if key == "halfin_whitt" {
            let n = servers
                .ok_or_else(|| QuantityError::Usage("halfin_whitt needs servers (N)".into()))?;
            let beta: f64 = parse_decimal(&text, 64)
                .map_err(|_| {
                    QuantityError::Usage(format!("halfin_whitt '{text}' is not a number"))
                })?
                .to_f64();
            let l = halfin_whitt_lambda(n, beta);
            if !(beta > 0.0 && l > 0.0) {
                return Err(QuantityError::Usage(format!(
                    "halfin_whitt = {text} must be in (0, sqrt(N)) at N = {n}"
                )));
            }
            (format!("{l:e}"), Some(text))
        } else {
            (text, None)
        };
        Ok(JsqPoint {
            kind,
            lambda,
            halfin_whitt,
            servers,
            d,
            buffer,
            sampling,
        })
    }
}

fn buffer_from_text(s: &str) -> Result<u32, QuantityError> {
    let n = hosts_from_text(s).map_err(|_| {
        QuantityError::Usage(format!("buffer must be an integer >= 1 or inf, got {s}"))
    })?;
    u32::try_from(n).map_err(|_| QuantityError::Usage(format!("buffer {s} is too large")))
}

impl SystemSpec for JsqSpec {
    fn signature(&self) -> &'static ModelSignature {
        &SIGNATURE
    }
    fn key_words(&self, key: &str) -> &'static [&'static str] {
        match key {
            "kind" => ModelKind::NAMES,
            "sampling" => Sampling::NAMES,
            "d" | "buffer" => &["inf"],
            _ => &[],
        }
    }
    /// `servers` (an integer, enclosed as itself) and `lambda` (the decimal the model runs
    /// at, enclosed from it by outward rounding, as `jsq_fixed_point()` encloses it; under
    /// `halfin_whitt` the λ = 1 − β/√N the point computed and runs at).
    fn variable(&self, name: &str, scope: &Scope) -> Result<Pair, QuantityError> {
        let s = JsqSpec::resolve(scope)?;
        match name {
            "servers" => {
                let n = s.need_servers("servers")? as i64;
                let p = Pair::exact(scope.bits, n);
                Ok(if scope.rigorous {
                    p.with_proof(Proof::enclosed(Interval::int(scope.enclosure_bits(), n)))
                } else {
                    p
                })
            }
            _ => {
                let one = |bits: u32| -> Result<Float, QuantityError> {
                    Ok(parse_decimal(&s.lambda, bits)?)
                };
                let p = Pair::new(one(scope.bits.0)?, one(scope.bits.1)?);
                if !scope.rigorous {
                    return Ok(p);
                }
                Ok(
                    match Interval::from_decimal(&s.lambda, scope.enclosure_bits()) {
                        Ok(l) => p.with_proof(Proof::enclosed(l)),
                        Err(e) => p.with_proof(Proof::unproven(format!("lambda: {e}"))),
                    },
                )
            }
        }
    }
}

/// The jsq model.
pub struct Jsq;

/// The error of a `servers` or `buffer` value of another type.
const COUNT_WANTED: &str = "an integer >= 1 or an expression string such as \"n\"";

impl Model for Jsq {
    fn signature(&self) -> &'static ModelSignature {
        &SIGNATURE
    }

    fn compile(&self, c: &FileCtx, vars: &[String]) -> Result<Box<dyn SystemSpec>, ClaimError> {
        let s: JsqSetup = c.setup()?;
        c.check_template(&s.kind, "setup.kind", vars)?;
        if !s.kind.get_ref().contains('{') {
            kind_of(s.kind.get_ref())
                .or_else(|e| c.err(s.kind.span(), "setup.kind", e.to_string()))?;
        }
        let d = match &s.d {
            Some(d) => {
                c.check_template(d, "setup.d", vars)?;
                if !d.get_ref().contains('{') {
                    DSpec::parse(d.get_ref())
                        .or_else(|e| c.err(d.span(), "setup.d", e.to_string()))?;
                }
                d.get_ref().clone()
            }
            None => "inf".to_string(),
        };
        let rate = c.setup_one_of(&[("lambda", &s.lambda), ("halfin_whitt", &s.halfin_whitt)])?;
        let servers = match &s.servers {
            None => None,
            Some(v) => c.setup_count(v, "setup.servers", false, COUNT_WANTED)?,
        };
        let buffer = match &s.buffer {
            None => None,
            Some(v) => c.setup_count(v, "setup.buffer", true, COUNT_WANTED)?,
        };
        let sampling = match &s.sampling {
            None => Sampling::Without,
            Some(m) => sampling_of(m.get_ref())
                .or_else(|e| c.err(m.span(), "setup.sampling", e.to_string()))?,
        };
        Ok(Box::new(JsqSpec {
            kind: s.kind.get_ref().clone(),
            rate,
            servers,
            d,
            buffer,
            sampling,
        }))
    }
}
