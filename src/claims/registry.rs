//! The claims vocabulary as a registry: every quantity a claim file may call (`opt(tags)`,
//! `threshold()`, `lwl_sim(jobs=…)`, `jsq_fixed_point()`, …) is a type implementing
//! [`Quantity`], and every system model a `[setup]` may describe (`dispatch`, `jsq`,
//! `redundancy`) a type implementing [`Model`]. The compiler validates claim files against
//! the registry (names, positional words, named arguments, fields), and the evaluator
//! ([`super::scope`]) dispatches calls through it (as the [`Quantities`] it was given);
//! nothing else lists the vocabulary. The standard registry is built once, from the
//! plug-ins, by [`super::registry()`].
//!
//! Adding a quantity: write the type (its [`Signature`] and `eval`) in the domain's file of
//! [`super::quantities`] and add one line to [`super::quantities::register`].

use super::error::QuantityError;
use super::scope::{Call, Quantities};
use super::signature::{Positional, Signature};
use super::system::Model;
use super::value::Value;

/// A quantity a claim may call.
pub trait Quantity: Send + Sync {
    /// Its declaration.
    fn signature(&self) -> &'static Signature;
    /// Its value at the point of `call.scope`, at the two precisions.
    fn eval(&self, call: &Call<'_>) -> Result<Value, QuantityError>;
    /// Under `check --rigorous`, why the fields it does not enclose are not proven (a
    /// quantity that encloses some fields sets their proofs in [`Quantity::eval`]).
    fn unproven(&self) -> &'static str {
        "computes no enclosure (its digits are certified by two precisions only)"
    }
}

/// Why a simulated quantity's fields are not proven ([`Quantity::unproven`]).
pub(crate) const SIMULATED: &str = "is simulated: a 95 % confidence interval is not an enclosure";

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

impl Quantities for Registry {
    fn signature(&self, name: &str) -> Option<&'static Signature> {
        self.get(name).map(|q| q.signature())
    }

    fn names(&self) -> Vec<&'static str> {
        Registry::names(self)
    }

    fn eval(&self, call: &Call<'_>) -> Result<Value, QuantityError> {
        let name = call.sig.name;
        let q = self
            .get(name)
            .ok_or_else(|| QuantityError::Internal(format!("no quantity '{name}' to call")))?;
        let v = q.eval(call)?;
        Ok(if call.scope.rigorous {
            v.unproven_rest(&format!("{name}() {}", q.unproven()))
        } else {
            v
        })
    }
}
