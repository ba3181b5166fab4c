//! System models: what a claim's `[setup]` describes.
//!
//! A claim file's `[setup]` table names its model (`model = "dispatch"`, the default) and
//! the model's own keys; the model ([`Model`]) reads them, with errors that name the file,
//! the line and the key, into a [`SystemSpec`] (the interface the evaluator reads, defined
//! beside it in [`super::scope`]): the system as written (templates and
//! expressions over grid variables). Quantities of that model resolve it at each grid point
//! (see [`super::systems`]). Every `[setup]` may also give `digits` (read by the compiler).

use super::error::ClaimError;
use super::schema::FileCtx;
use super::scope::SystemSpec;
use super::signature::ModelSignature;

/// The model of a `[setup]` that names none: size-based dispatch, the project's first
/// model (claim files written before there were others say nothing).
pub const DEFAULT_MODEL: &str = "dispatch";

/// A system model a `[setup]` may name: its declaration, and the compiler of its
/// `[setup]`.
pub trait Model: Send + Sync {
    /// The model's declaration (the same its compiled systems give).
    fn signature(&self) -> &'static ModelSignature;
    /// The name `model = "…"` gives.
    fn name(&self) -> &'static str {
        self.signature().name
    }
    /// Bare words the model's values take (metric names, `inf`): the compiler accepts them
    /// in expressions.
    fn words(&self) -> &'static [&'static str] {
        self.signature().words
    }
    /// The names with a value at every point of the model's claims (reserved: no grid
    /// variable may take them).
    fn variables(&self) -> &'static [&'static str] {
        self.signature().variables
    }
    /// Reads the `[setup]` of the claim file in `file` ([`FileCtx::setup`]). `vars` are the
    /// names a template may use (the grid and limit variables of the claim and its checks).
    /// The setup's serde type must accept (and ignore) the common keys `model` and
    /// `digits`.
    fn compile(&self, file: &FileCtx, vars: &[String]) -> Result<Box<dyn SystemSpec>, ClaimError>;
}
