//! The claims layer's errors: a claim file that cannot be read or compiled
//! ([`ClaimError`]), and a quantity that cannot be evaluated at a point
//! ([`QuantityError`]), each with whose fault it is.

use crate::error::{Classify, ErrorKind};
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
    /// Several mistakes found in one reading (every unknown or missing key of a file, or
    /// of several files), each as its own error, on one line.
    #[error("{}", several_text(.0))]
    Several(Vec<ClaimError>),
    /// A computation that cannot be done (bad `design` request, …).
    #[error("{0}")]
    Compute(String),
    /// A quantity that could not be evaluated.
    #[error(transparent)]
    Quantity(#[from] QuantityError),
}

/// `N mistakes: E1; E2; …` (each error as it reads alone: file, line, key, why).
fn several_text(es: &[ClaimError]) -> String {
    format!(
        "{} mistakes: {}",
        es.len(),
        es.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    )
}

impl ClaimError {
    /// One error for `es`: itself when there is one, else [`ClaimError::Several`] (nested
    /// lists flattened).
    pub fn all(es: Vec<ClaimError>) -> ClaimError {
        let mut flat = Vec::new();
        for e in es {
            match e {
                ClaimError::Several(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        if flat.len() == 1 {
            flat.remove(0)
        } else {
            ClaimError::Several(flat)
        }
    }
}

impl Classify for ClaimError {
    fn kind(&self) -> ErrorKind {
        match self {
            ClaimError::Schema { .. }
            | ClaimError::Io { .. }
            | ClaimError::DuplicateId { .. }
            | ClaimError::Several(_)
            | ClaimError::Compute(_) => ErrorKind::Input,
            ClaimError::Quantity(e) => e.kind(),
        }
    }
}

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
    crate::lb::model::LbError,
    crate::redundancy::RedundancyError
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
