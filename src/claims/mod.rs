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

pub mod compile;
pub mod expr;
pub mod figure;
pub mod grid;
pub mod quantities;
pub mod registry;
pub mod run;
pub mod schema;
pub mod scope;
pub mod system;
pub mod systems;
pub mod value;
pub mod verdict;

pub use compile::{load_paths, Claim};
pub use registry::{registry, Quantity, QuantityError};
pub use run::{run_claim, ClaimResult};
pub use verdict::{Relation, Verdict};

use thiserror::Error;

/// Errors of the claims layer.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum ClaimError {
    /// A malformed claim file: the file, the line, the key.
    #[error("{path}:{line}: {key}: {why}")]
    Schema {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// The key (or table) at fault.
        key: String,
        /// What is wrong.
        why: String,
    },
    /// A file or folder that cannot be read.
    #[error("{path}: {why}")]
    Io {
        /// The path.
        path: String,
        /// What went wrong.
        why: String,
    },
    /// Two claim files with one id.
    #[error("{path}: id '{id}' is also used by {other}")]
    DuplicateId {
        /// The second file.
        path: String,
        /// The id.
        id: String,
        /// The first file.
        other: String,
    },
    /// A computation that cannot be done (bad `design` request, …).
    #[error("{0}")]
    Compute(String),
    /// A quantity that could not be evaluated.
    #[error(transparent)]
    Quantity(#[from] QuantityError),
}

impl crate::error::Classify for ClaimError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            ClaimError::Schema { .. }
            | ClaimError::Io { .. }
            | ClaimError::DuplicateId { .. }
            | ClaimError::Compute(_) => ErrorKind::Input,
            ClaimError::Quantity(e) => crate::error::Classify::kind(e),
        }
    }
}
