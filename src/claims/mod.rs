//! Claims: published statements as TOML files, computed at two precisions and judged.
//!
//! A claim file (schema in `proofs-check/README.md`, types in [`schema`]) names its source,
//! the statement, the project's reading of it, the system (`[setup]`, read by its model:
//! [`system`], [`systems`]), a grid of parameters and one or more checks: a quantity (an
//! expression of [`expr`] over the computed quantities of the [`registry`], defined in
//! [`quantities`]), a relation and a tolerance, optionally after a limit along a sequence
//! ([`crate::num::extrapolate`]). [`compile`] validates a file against the registry;
//! [`run`] evaluates it ([`scope`], [`value`]) and gives each check a verdict
//! ([`verdict`]): PASS, FAIL or INCONCLUSIVE, with the margin and the grid point that came
//! closest to violating the relation.
//!
//! The uncertainty a verdict uses is the difference between the two precisions (and, for
//! a limit, the extrapolation's error estimate; for a simulated quantity, the simulation's
//! 95 % half-width carried through the expression): a relation that holds or fails only
//! within it is INCONCLUSIVE, and so is one whose simulation raised the heavy-tail warning.

pub mod cache;
pub mod compile;
pub mod error;
pub mod expr;
pub mod figure;
pub mod grid;
pub mod proof;
pub mod quantities;
pub mod registry;
pub mod run;
pub mod schema;
pub mod scope;
pub mod signature;
pub mod system;
pub mod systems;
pub mod value;
pub mod verdict;

pub use compile::{load_paths, Claim};
pub use error::{ClaimError, QuantityError};
pub use registry::{Quantity, Registry};
pub use run::{run_claim, ClaimResult};
pub use verdict::{Relation, Verdict};

use std::sync::LazyLock;

/// The standard registry: every quantity of [`quantities`] and every model of
/// [`systems`]. It is built here, above both, so that the registry and the evaluator
/// know neither: the plug-ins depend on them, not the other way round.
pub fn registry() -> &'static Registry {
    static REGISTRY: LazyLock<Registry> = LazyLock::new(|| {
        let mut r = Registry::default();
        systems::register(&mut r);
        quantities::register(&mut r);
        r
    });
    &REGISTRY
}
