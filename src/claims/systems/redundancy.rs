//! The `redundancy` model: cancel-on-complete redundancy scheduling ([ARV22]; the model's
//! conventions are those of [`crate::redundancy`]).
//!
//! `[setup]` keys: either `system` (a preset of [`ClassSystem::preset`]: `n-model`, `w-model`,
//! `nested-4`, `full:k=K`, `redundancy-d:k=K,d=D`) with `lambdas` (a list of expressions,
//! one arrival rate per class in the preset's order, or the three of `nested-4`:
//! singletons, pairs, all four), or `classes` (a template of classes `SET:RATE` separated
//! by spaces, as `--class` takes them: `"{case}"` with `case = ["1:0.3 1+2:0.6", …]`; the
//! servers are 1 … the largest index named, of rate 1); `dist` (the service law of the requirements, a spec template;
//! default `exp:rate=1`), `copies` (`iid`, the default, or `identical`; a template) and `preemptive`
//! (`false`, the default and the paper's reading, or `true`: preemptive-resume class
//! priority). A call may override `dist` and `copies`
//! (`red_sim(mrf-fcfs, copies=identical, dist='weibull:shape=0.5,mean=1')`).
//!
//! ```toml
//! [setup]
//! model = "redundancy"
//! system = "w-model"
//! lambdas = ["0.25 * u", "0.25 * u", "0.5 * u"]
//! dist = "hyperexp:mean=1,scv={scv}"
//! ```

use crate::claims::error::QuantityError;
use crate::claims::expr::Expr;
use crate::claims::schema::FileCtx;
use crate::claims::scope::Scope;
use crate::claims::scope::SystemSpec;
use crate::claims::signature::ModelSignature;
use crate::claims::system::Model;
use crate::claims::ClaimError;
use crate::redundancy::classes::ClassSystem;
use crate::redundancy::policy::Copies;
use serde::Deserialize;
use toml::Spanned;

/// The model's name in `[setup] model = "…"`.
pub const MODEL: &str = "redundancy";
/// The words `copies=` takes.
pub const COPIES_WORDS: &[&str] = &["iid", "identical"];

/// The model's declaration: the setup keys a call may override and the bare words of its
/// values; no key excludes another and no name has a value at every point.
pub const SIGNATURE: ModelSignature = ModelSignature {
    name: MODEL,
    keys: &["dist", "copies"],
    exclusive: &[],
    variables: &[],
    words: COPIES_WORDS,
    setup_keys: &[
        "system",
        "lambdas",
        "classes",
        "dist",
        "copies",
        "preemptive",
    ],
    required: &[],
};
/// The service law when the setup gives none: exponential with mean 1 (per unit of
/// server rate), the law of the exact methods.
pub const DEFAULT_DIST: &str = "exp:rate=1";

/// `[setup]` of a redundancy claim, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedundancySetup {
    /// `redundancy`.
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
    /// A preset name (`w-model`).
    #[serde(default)]
    pub system: Option<Spanned<String>>,
    /// The arrival rates, expressions.
    #[serde(default)]
    pub lambdas: Option<Spanned<Vec<Spanned<String>>>>,
    /// Classes `SET:RATE …`, a template (instead of `system` and `lambdas`).
    #[serde(default)]
    pub classes: Option<Spanned<String>>,
    /// The service law, a spec template.
    #[serde(default)]
    pub dist: Option<Spanned<String>>,
    /// `iid` or `identical`.
    #[serde(default)]
    pub copies: Option<Spanned<String>>,
    /// Preemptive-resume class priority (default false).
    #[serde(default)]
    pub preemptive: Option<bool>,
}

/// Where the classes come from.
#[derive(Debug, Clone)]
pub enum Classes {
    /// A preset with its arrival-rate expressions.
    Preset {
        /// The preset name.
        system: String,
        /// The arrival-rate expressions.
        lambdas: Vec<Expr>,
    },
    /// A template of classes `SET:RATE …`.
    List(String),
}

/// The redundancy system as written.
#[derive(Debug, Clone)]
pub struct RedundancySpec {
    /// The classes.
    pub classes: Classes,
    /// The service-law template.
    pub dist: String,
    /// The copy model, a template (`iid`, `identical` or `{cp}`).
    pub copies: String,
    /// Preemptive-resume class priority.
    pub preemptive: bool,
}

/// The redundancy system at one point.
#[derive(Debug, Clone)]
pub struct RedundancyPoint {
    /// The system (classes, rates, arrival rates).
    pub sys: ClassSystem,
    /// The system as command-line options (`--system w-model --lambdas …` or
    /// `--class 1:0.3 --class …`); also its canonical text.
    pub system: String,
    /// The service-law spec.
    pub dist: String,
    /// The copy model.
    pub copies: Copies,
    /// Preemptive-resume class priority.
    pub preemptive: bool,
}

impl RedundancyPoint {
    /// The canonical text of the system, for cache keys.
    pub fn key(&self) -> String {
        format!(
            "{}|{}|{}|{}",
            self.system,
            self.dist,
            self.copies.name(),
            self.preemptive
        )
    }

    /// The system as command-line options (for messages naming the equivalent command).
    pub fn flags(&self) -> String {
        format!(
            "{} --dist {} --copies {}{}",
            self.system,
            self.dist,
            self.copies.name(),
            if self.preemptive { " --preemptive" } else { "" }
        )
    }
}

impl RedundancySpec {
    /// The spec of the scope's claim (an internal error if the claim is of another model,
    /// which the compiler rules out).
    pub fn of<'s>(scope: &Scope<'s>) -> Result<&'s RedundancySpec, QuantityError> {
        scope.system_as(MODEL)
    }

    /// The system at the point of `scope`, with the call's overrides.
    pub fn resolve(scope: &Scope) -> Result<RedundancyPoint, QuantityError> {
        let spec = RedundancySpec::of(scope)?;
        let dist = match scope.over.get("dist") {
            Some(v) => scope.substitute(v.text())?,
            None => scope.substitute(&spec.dist)?,
        };
        let copies = match scope.over.get("copies") {
            Some(v) => Copies::parse(v.text()).map_err(|e| QuantityError::Usage(e.to_string()))?,
            None => Copies::parse(&scope.substitute(&spec.copies)?)
                .map_err(|e| QuantityError::Usage(e.to_string()))?,
        };
        let usage = |e: crate::redundancy::RedundancyError| QuantityError::Usage(e.to_string());
        let (sys, system) = match &spec.classes {
            Classes::Preset { system, lambdas } => {
                let lambdas = lambdas
                    .iter()
                    .map(|e| scope.setup_text(e))
                    .collect::<Result<Vec<String>, QuantityError>>()?;
                let sys = ClassSystem::preset(system, &lambdas).map_err(usage)?;
                (
                    sys,
                    format!("--system {system} --lambdas {}", lambdas.join(",")),
                )
            }
            Classes::List(t) => {
                let text = scope.substitute(t)?;
                let sys = system_of_classes(&text).map_err(usage)?;
                let flags = text
                    .split_whitespace()
                    .map(|c| format!("--class {c}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                (sys, flags)
            }
        };
        Ok(RedundancyPoint {
            sys,
            system,
            dist,
            copies,
            preemptive: spec.preemptive,
        })
    }
}

impl SystemSpec for RedundancySpec {
    fn signature(&self) -> &'static ModelSignature {
        &SIGNATURE
    }
    fn key_words(&self, key: &str) -> &'static [&'static str] {
        match key {
            "copies" => COPIES_WORDS,
            _ => &[],
        }
    }
}

/// The redundancy model.
pub struct Redundancy;

impl Model for Redundancy {
    fn signature(&self) -> &'static ModelSignature {
        &SIGNATURE
    }

    fn compile(&self, c: &FileCtx, vars: &[String]) -> Result<Box<dyn SystemSpec>, ClaimError> {
        let s: RedundancySetup = c.setup()?;
        let classes = match (&s.system, &s.lambdas, &s.classes) {
            (Some(system), Some(lambdas), None) => {
                // The preset must exist: try it with placeholder rates of the count given.
                let count = lambdas.get_ref().len();
                if count == 0 {
                    return c.err(
                        lambdas.span(),
                        "setup.lambdas",
                        "give one arrival rate per class",
                    );
                }
                let probe = vec!["0.001".to_string(); count];
                if let Err(e) = ClassSystem::preset(system.get_ref(), &probe) {
                    return c.err(system.span(), "setup.system", e.to_string());
                }
                let lambdas = lambdas
                    .get_ref()
                    .iter()
                    .map(|l| c.setup_expr(l, "setup.lambdas"))
                    .collect::<Result<Vec<Expr>, ClaimError>>()?;
                Classes::Preset {
                    system: system.get_ref().clone(),
                    lambdas,
                }
            }
            (None, None, Some(list)) => {
                c.check_template(list, "setup.classes", vars)?;
                Classes::List(list.get_ref().clone())
            }
            (_, _, Some(list)) => {
                return c.err(
                    list.span(),
                    "setup.classes",
                    "give either classes or system with lambdas, not both",
                )
            }
            (Some(system), None, None) => {
                return c.err(system.span(), "setup.lambdas", "system needs lambdas")
            }
            (None, Some(l), None) => {
                return c.err(l.span(), "setup.system", "lambdas needs system")
            }
            (None, None, None) => {
                return c.err(
                    0..0,
                    "setup.system",
                    "give system (a preset) with lambdas, or classes",
                )
            }
        };
        let dist = match &s.dist {
            None => DEFAULT_DIST.to_string(),
            Some(d) => {
                c.check_template(d, "setup.dist", vars)?;
                d.get_ref().clone()
            }
        };
        let copies = match &s.copies {
            None => Copies::Iid.name().to_string(),
            Some(v) if v.get_ref().contains('{') => {
                c.check_template(v, "setup.copies", vars)?;
                v.get_ref().clone()
            }
            Some(v) => Copies::parse(v.get_ref())
                .or_else(|e| c.err(v.span(), "setup.copies", e.to_string()))?
                .name()
                .to_string(),
        };
        Ok(Box::new(RedundancySpec {
            classes,
            dist,
            copies,
            preemptive: s.preemptive.unwrap_or(false),
        }))
    }
}

/// The system of classes `SET:RATE …` (spaces between) on servers 1 … the largest index
/// named, of rate 1.
pub fn system_of_classes(text: &str) -> Result<ClassSystem, crate::redundancy::RedundancyError> {
    let items: Vec<&str> = text.split_whitespace().collect();
    let servers = items
        .iter()
        .filter_map(|c| c.split_once(':'))
        .flat_map(|(set, _)| set.split('+'))
        .filter_map(|s| s.trim().parse::<usize>().ok())
        .max()
        .unwrap_or(0)
        .clamp(1, crate::redundancy::classes::MAX_SERVERS);
    let classes = items
        .iter()
        .map(|c| ClassSystem::parse_class(c, servers))
        .collect::<Result<Vec<_>, _>>()?;
    ClassSystem::new(ClassSystem::unit_rates(servers), classes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_list_builds_the_system_it_names() {
        // The W-model written out: servers 1 and 2, classes {1}, {2}, {1,2}.
        let s = system_of_classes("1:0.3 2:0.3 1+2:0.6").expect("builds");
        assert_eq!(s.servers(), 2);
        assert_eq!(s.classes().len(), 3);
        assert!(s.nestedness().is_nested());
        for bad in ["", "1:0.3 0:0.2", "1:-1", "1+:0.3"] {
            assert!(system_of_classes(bad).is_err(), "{bad}");
        }
    }
}
