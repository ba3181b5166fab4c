//! The claims vocabulary as a registry: every quantity a claim file may call (`opt(tags)`,
//! `threshold()`, `lwl_sim(jobs=…)`, later `jsq_fixed_point()`, …) is a type implementing
//! [`Quantity`], and every system model a `[setup]` may describe (`dispatch`, later `jsq`,
//! `redundancy`) a type implementing [`Model`]. The compiler validates claim files against
//! the registry (names, positional words, named arguments, fields), and the evaluator
//! ([`super::scope`]) dispatches calls through it; nothing else lists the vocabulary.
//!
//! Adding a quantity: write the type (its [`Signature`] and `eval`) in the domain's file of
//! [`super::quantities`] and add one line to [`super::quantities::register`].

use super::expr::Arg;
use super::scope::Scope;
use super::system::Model;
use super::value::{Pair, Value};
use crate::error::{Classify, ErrorKind};
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use thiserror::Error;

/// Why a quantity could not be evaluated at a point.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum QuantityError {
    /// A call written in a way the quantity does not take (bad input in the claim file).
    #[error("{0}")]
    Usage(String),
    /// The expression has no value at this point (a field that does not exist here, the
    /// logarithm of a negative number, a division by zero): bad input at this point.
    #[error("{0}")]
    Undefined(String),
    /// The computation behind the quantity failed; `what` names it (as the equivalent
    /// command line where there is one).
    #[error("{}{source}", what.as_ref().map(|w| format!("{w}: ")).unwrap_or_default())]
    Compute {
        /// What was being computed.
        what: Option<String>,
        /// The layer's error, with its classification.
        source: Box<crate::Error>,
    },
    /// A broken invariant of the engine.
    #[error("internal: {0}")]
    Internal(String),
}

impl QuantityError {
    /// A failed computation, described by `what`.
    pub fn compute(what: impl Into<String>, e: impl Into<crate::Error>) -> Self {
        QuantityError::Compute {
            what: Some(what.into()),
            source: Box::new(e.into()),
        }
    }
}

/// A layer's error becomes a failed computation that keeps its classification.
macro_rules! from_layer {
    ($($t:ty),*) => {$(
        impl From<$t> for QuantityError {
            fn from(e: $t) -> Self {
                QuantityError::Compute {
                    what: None,
                    source: Box::new(e.into()),
                }
            }
        }
    )*};
}
from_layer!(
    crate::Error,
    crate::num::NumError,
    crate::dist::DistError,
    crate::policy::PolicyError,
    crate::sim::SimError,
    crate::lb::model::LbError
);

impl Classify for QuantityError {
    fn kind(&self) -> ErrorKind {
        match self {
            QuantityError::Usage(_) | QuantityError::Undefined(_) => ErrorKind::Input,
            QuantityError::Compute { source, .. } => source.kind(),
            QuantityError::Internal(_) => ErrorKind::Internal,
        }
    }
}

/// What a quantity takes positionally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Positional {
    /// Nothing (only named arguments).
    None,
    /// One word out of `choices` (`opt(tags)`); `what` names it in messages.
    Word {
        /// What the word is (`policy`).
        what: &'static str,
        /// The words accepted.
        choices: &'static [&'static str],
    },
    /// One number, an expression (`moment(2)`); `what` names it in messages.
    Number {
        /// The number's name (`j`).
        what: &'static str,
    },
}

/// A named argument a quantity reads itself (not a setup override).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedArg {
    /// The name (`cutoffs`, `jobs`).
    pub name: &'static str,
    /// Bare words it accepts besides expressions and strings (`balanced`, policy names).
    pub words: &'static [&'static str],
}

/// A field of a quantity's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    /// The name after the dot.
    pub name: &'static str,
    /// Whether it is a vector (read as `name[i]`).
    pub indexed: bool,
}

impl FieldSpec {
    /// A scalar field.
    pub const fn scalar(name: &'static str) -> Self {
        FieldSpec {
            name,
            indexed: false,
        }
    }
    /// A vector field.
    pub const fn vector(name: &'static str) -> Self {
        FieldSpec {
            name,
            indexed: true,
        }
    }
    /// As a claim file writes it (`cutoff[i]`).
    pub fn shown(&self) -> String {
        if self.indexed {
            format!("{}[i]", self.name)
        } else {
            self.name.to_string()
        }
    }
}

/// The scalar field `value` alone (most quantities).
pub const VALUE_ONLY: &[FieldSpec] = &[FieldSpec::scalar("value")];

/// What a quantity declares: its name, the model it needs, its arguments and fields.
#[derive(Debug, Clone, Copy)]
pub struct Signature {
    /// The name a claim calls.
    pub name: &'static str,
    /// The system model whose `[setup]` it reads (`None`: any).
    pub model: Option<&'static str>,
    /// What it takes positionally.
    pub positional: Positional,
    /// The named arguments it reads itself.
    pub named: &'static [NamedArg],
    /// Its fields.
    pub fields: &'static [FieldSpec],
    /// The field read when the expression names none.
    pub default_field: &'static str,
    /// One line: what it computes.
    pub summary: &'static str,
}

impl Signature {
    /// Whether `name` is one of the quantity's own named arguments.
    pub fn takes(&self, name: &str) -> bool {
        self.named.iter().any(|a| a.name == name)
    }
    /// Whether the quantity declares field `name`.
    pub fn field(&self, name: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|f| f.name == name)
    }
    /// The call as a claim writes it: `opt(sita|sita-e|tags|tags-minmax)`,
    /// `lwl_sim(jobs=, replications=, seed=, warmup=)`.
    pub fn usage(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        match self.positional {
            Positional::None => {}
            Positional::Word { choices, .. } => parts.push(choices.join("|")),
            Positional::Number { what } => parts.push(what.to_string()),
        }
        parts.extend(self.named.iter().map(|a| format!("{}=", a.name)));
        format!("{}({})", self.name, parts.join(", "))
    }

    /// The fields as a claim writes them, for messages.
    pub fn fields_shown(&self) -> String {
        self.fields
            .iter()
            .map(FieldSpec::shown)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A quantity a claim may call.
pub trait Quantity: Send + Sync {
    /// Its declaration.
    fn signature(&self) -> &'static Signature;
    /// Its value at the point of `call.scope`, at the two precisions.
    fn eval(&self, call: &Call<'_>) -> Result<Value, QuantityError>;
}

/// One call being evaluated: the arguments as written and the scopes.
pub struct Call<'a> {
    /// The quantity's declaration.
    pub sig: &'static Signature,
    /// The arguments as written.
    pub args: &'a [Arg],
    /// The positional ones.
    pub pos: Vec<&'a Arg>,
    /// The scope the quantity is evaluated in: the caller's, with the call's overrides
    /// (setup keys and grid variables) applied.
    pub scope: Scope<'a>,
    /// The caller's scope, in which the quantity's own arguments are evaluated.
    pub outer: &'a Scope<'a>,
}

impl<'a> Call<'a> {
    /// The i-th positional argument as a word (a bare name or a string).
    pub fn word(&self, i: usize) -> Result<String, QuantityError> {
        let name = self.sig.name;
        match self.pos.get(i) {
            Some(Arg::Pos(super::expr::Expr::Var(w))) => Ok(w.clone()),
            Some(Arg::Str(s)) => Ok(s.clone()),
            Some(other) => Err(QuantityError::Usage(format!(
                "{name}(): expected a name, got '{other}'"
            ))),
            None => Err(QuantityError::Usage(format!(
                "{name}(): missing argument {}",
                i + 1
            ))),
        }
    }

    /// The named argument `key=` as written.
    pub fn named(&self, key: &str) -> Option<&'a Arg> {
        self.args.iter().find_map(|a| match a {
            Arg::Named(n, v) if n == key => Some(v.as_ref()),
            _ => None,
        })
    }

    /// The named argument `key=` as an integer, evaluated in the caller's scope.
    pub fn named_number(&self, key: &str) -> Result<Option<i64>, QuantityError> {
        self.outer.named_number(self.args, key)
    }

    /// The positional expression `i`, evaluated in the caller's scope.
    pub fn number(&self, i: usize) -> Result<Option<Pair>, QuantityError> {
        match self.pos.get(i) {
            Some(Arg::Pos(e)) => Ok(Some(self.outer.eval(e)?)),
            _ => Ok(None),
        }
    }
}

/// The key of a cached result: the quantity (or intermediate object) and its canonical
/// arguments (the resolved system and the quantity's own arguments).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CacheKey {
    /// What is cached.
    pub what: &'static str,
    /// Its canonical arguments.
    pub args: String,
}

impl CacheKey {
    /// A key.
    pub fn new(what: &'static str, args: impl Into<String>) -> Self {
        CacheKey {
            what,
            args: args.into(),
        }
    }
}

type Slot = Arc<dyn Any + Send + Sync>;

/// Results shared by the points and checks of one claim (same key, same numbers).
/// Errors are cached too. Two threads asking for one key at once may both compute it
/// (the computations are deterministic, so either result is the result); the cache never
/// blocks one computation on another.
#[derive(Default)]
pub struct Cache {
    map: Mutex<HashMap<CacheKey, Slot>>,
}

impl Cache {
    /// The result under `key`, computed by `f` if it is not there yet.
    pub fn get_or<T: Any + Send + Sync>(
        &self,
        key: CacheKey,
        f: impl FnOnce() -> Result<T, QuantityError>,
    ) -> Result<Arc<T>, QuantityError> {
        let slot = self.map.lock().ok().and_then(|m| m.get(&key).cloned());
        let slot = match slot {
            Some(s) => s,
            None => {
                let s: Slot = Arc::new(f().map(Arc::new));
                if let Ok(mut m) = self.map.lock() {
                    m.insert(key.clone(), s.clone());
                }
                s
            }
        };
        match slot.downcast_ref::<Result<Arc<T>, QuantityError>>() {
            Some(Ok(v)) => Ok(v.clone()),
            Some(Err(e)) => Err(e.clone()),
            None => Err(QuantityError::Internal(format!(
                "cache entry {}|{} of the wrong kind",
                key.what, key.args
            ))),
        }
    }
}

/// The quantities and models a claim may use.
#[derive(Default)]
pub struct Registry {
    quantities: Vec<Box<dyn Quantity>>,
    models: Vec<Box<dyn Model>>,
}

impl Registry {
    /// Registers a quantity.
    pub fn quantity(&mut self, q: impl Quantity + 'static) -> &mut Self {
        self.quantities.push(Box::new(q));
        self
    }

    /// Registers a system model.
    pub fn model(&mut self, m: impl Model + 'static) -> &mut Self {
        self.models.push(Box::new(m));
        self
    }

    /// The quantity called `name`.
    pub fn get(&self, name: &str) -> Option<&dyn Quantity> {
        self.quantities
            .iter()
            .find(|q| q.signature().name == name)
            .map(|q| q.as_ref())
    }

    /// The model called `name`.
    pub fn get_model(&self, name: &str) -> Option<&dyn Model> {
        self.models
            .iter()
            .find(|m| m.name() == name)
            .map(|m| m.as_ref())
    }

    /// Every quantity's name, in registration order.
    pub fn names(&self) -> Vec<&'static str> {
        self.quantities.iter().map(|q| q.signature().name).collect()
    }

    /// Every model's name, in registration order.
    pub fn model_names(&self) -> Vec<&'static str> {
        self.models.iter().map(|m| m.name()).collect()
    }

    /// The names some model gives a value at every point (`hosts`, `rho`, `lambda`).
    pub fn model_variables(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for m in &self.models {
            for v in m.variables() {
                if !out.contains(v) {
                    out.push(v);
                }
            }
        }
        out
    }

    /// Every quantity's declaration, in registration order.
    pub fn signatures(&self) -> impl Iterator<Item = &'static Signature> + '_ {
        self.quantities.iter().map(|q| q.signature())
    }

    /// The bare words the language knows besides variables: the quantities' positional
    /// and argument words and the models' words (metric names, `inf`).
    pub fn words(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        let mut add = |w: &'static str| {
            if !out.contains(&w) {
                out.push(w);
            }
        };
        for s in self.signatures() {
            if let Positional::Word { choices, .. } = s.positional {
                choices.iter().for_each(|w| add(w));
            }
            for a in s.named {
                a.words.iter().for_each(|w| add(w));
            }
        }
        for m in &self.models {
            m.words().iter().for_each(|w| add(w));
        }
        out
    }
}

/// The standard registry: every quantity of [`super::quantities`] and every model of
/// [`super::systems`].
pub fn registry() -> &'static Registry {
    static REGISTRY: LazyLock<Registry> = LazyLock::new(|| {
        let mut r = Registry::default();
        super::systems::register(&mut r);
        super::quantities::register(&mut r);
        r
    });
    &REGISTRY
}
