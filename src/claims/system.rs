//! System models: what a claim's `[setup]` describes.
//!
//! A claim file's `[setup]` table names its model (`model = "dispatch"`, the default) and
//! the model's own keys; the model ([`Model`]) reads them, with errors that name the file,
//! the line and the key, into a [`SystemSpec`]: the system as written (templates and
//! expressions over grid variables). Quantities of that model resolve it at each grid point
//! (see [`super::systems`]). Every `[setup]` may also give `digits` (read by the compiler).

use super::registry::QuantityError;
use super::schema::FileCtx;
use super::scope::Scope;
use super::value::Pair;
use super::ClaimError;
use std::any::Any;

/// The model of a `[setup]` that names none: size-based dispatch, the project's first
/// model (claim files written before there were others say nothing).
pub const DEFAULT_MODEL: &str = "dispatch";

/// A model's `[setup]`, compiled.
pub trait SystemSpec: Send + Sync + std::fmt::Debug {
    /// The model's name (`dispatch`).
    fn model(&self) -> &'static str;
    /// The setup keys a call may override (`opt(tags, hosts=3)`).
    fn keys(&self) -> &'static [&'static str];
    /// Groups of keys of which one value holds at a time: overriding one clears the others
    /// (`load`, `lambda`, `load_per_host`).
    fn exclusive(&self) -> &'static [&'static [&'static str]];
    /// Bare words an override of `key` takes as text (`metric=slowdown`).
    fn key_words(&self, key: &str) -> &'static [&'static str];
    /// Names with a value at every grid point besides the grid variables (`hosts`, `rho`).
    fn variables(&self) -> &'static [&'static str];
    /// The value of one of [`SystemSpec::variables`] at the point of `scope`.
    fn variable(&self, name: &str, scope: &Scope) -> Result<Pair, QuantityError>;
    /// For the model's quantities, which downcast to their own type.
    fn as_any(&self) -> &dyn Any;
}

/// A system model a `[setup]` may name.
pub trait Model: Send + Sync {
    /// The name `model = "…"` gives.
    fn name(&self) -> &'static str;
    /// Bare words the model's values take (metric names, `inf`): the compiler accepts them
    /// in expressions.
    fn words(&self) -> &'static [&'static str];
    /// The names with a value at every point of the model's claims (reserved: no grid
    /// variable may take them).
    fn variables(&self) -> &'static [&'static str];
    /// Reads the `[setup]` of the claim file in `file`. `vars` are the names a template
    /// may use (the grid and limit variables of the claim and its checks). The setup's
    /// serde type must accept (and ignore) the common keys `model` and `digits`.
    fn compile(&self, file: &FileCtx, vars: &[String]) -> Result<Box<dyn SystemSpec>, ClaimError>;
}
