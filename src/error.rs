//! Whose fault an error is: the one crate-level error and its classification.
//!
//! Every layer keeps its own `thiserror` enum (`NumError`, `DistError`, `PolicyError`,
//! `SimError`, `ClaimError`, …); each implements [`Classify`], which says whether the error
//! is the user's (bad input), a numerical failure the tool could not get past, or a bug.
//! [`Error`] gathers them at the crate's edge, and the binary turns [`ErrorKind`] into its
//! exit status (ARCHITECTURE.md, "Errors and exit statuses"):
//!
//! | kind | exit | meaning |
//! |---|---|---|
//! | [`ErrorKind::Input`] | 2 | the request cannot be answered as asked (a bad spec, a load no cutoffs stabilise) |
//! | [`ErrorKind::Numerical`] | 3 | a solver did not converge, a search found nothing where something exists |
//! | [`ErrorKind::Internal`] | 3 | a broken invariant: a bug to report |

use thiserror::Error;

/// Exit status of a run that found nothing wrong (and, for `check`, nothing failing).
pub const EXIT_OK: i32 = 0;
/// Exit status of `check` when a claim fails, and of `tables --check` on a difference.
pub const EXIT_FAILED: i32 = 1;
/// Exit status for bad input.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit status for a numerical failure (or an internal error) the tool could not get past.
pub const EXIT_NUMERICAL: i32 = 3;

/// Whose fault an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorKind {
    /// Bad input: the user can fix it by changing the request.
    Input,
    /// A numerical failure: non-convergence, a search that found no feasible point where
    /// one exists; more `--digits` or another start may help.
    Numerical,
    /// A broken internal invariant (a bug).
    Internal,
}

impl ErrorKind {
    /// The exit status the binary uses for this kind.
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Input => EXIT_BAD_INPUT,
            ErrorKind::Numerical | ErrorKind::Internal => EXIT_NUMERICAL,
        }
    }

    /// A short name: `input`, `numerical`, `internal` (for JSON records).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Input => "input",
            ErrorKind::Numerical => "numerical",
            ErrorKind::Internal => "internal",
        }
    }
}

/// Errors that know whose fault they are.
pub trait Classify {
    /// The kind of this error.
    fn kind(&self) -> ErrorKind;
}

/// The crate-level error: one of the layers' errors, with its classification.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// Numbers (parsing, root finding, quadrature).
    #[error(transparent)]
    Num(#[from] crate::num::NumError),
    /// Distributions.
    #[error(transparent)]
    Dist(#[from] crate::dist::DistError),
    /// Policy formulas and searches over them.
    #[error(transparent)]
    Policy(#[from] crate::policy::PolicyError),
    /// Designs: the fewest hosts that meet a target.
    #[error(transparent)]
    Design(#[from] crate::optimize::design::DesignError),
    /// Simulators.
    #[error(transparent)]
    Sim(#[from] crate::sim::SimError),
    /// Claim files and their evaluation.
    #[error(transparent)]
    Claim(#[from] crate::claims::ClaimError),
    /// Many-server load balancing (JSQ(d(N))).
    #[error(transparent)]
    Lb(#[from] crate::lb::model::LbError),
    /// Redundancy scheduling with cancel-on-complete.
    #[error(transparent)]
    Redundancy(#[from] crate::redundancy::RedundancyError),
    /// Anything else, with its kind.
    #[error("{message}")]
    Other {
        /// Whose fault.
        kind: ErrorKind,
        /// One line.
        message: String,
    },
}

impl Error {
    /// Bad input, in words.
    pub fn input(message: impl Into<String>) -> Self {
        Error::Other {
            kind: ErrorKind::Input,
            message: message.into(),
        }
    }

    /// A numerical failure, in words (say what failed and what might help).
    pub fn numerical(message: impl Into<String>) -> Self {
        Error::Other {
            kind: ErrorKind::Numerical,
            message: message.into(),
        }
    }

    /// A broken invariant, in words.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::Other {
            kind: ErrorKind::Internal,
            message: message.into(),
        }
    }

    /// The exit status for this error.
    pub fn exit_code(&self) -> i32 {
        self.kind().exit_code()
    }
}

impl Classify for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::Num(e) => e.kind(),
            Error::Dist(e) => e.kind(),
            Error::Policy(e) => e.kind(),
            Error::Design(e) => e.kind(),
            Error::Sim(e) => e.kind(),
            Error::Claim(e) => e.kind(),
            Error::Lb(e) => e.kind(),
            Error::Redundancy(e) => e.kind(),
            Error::Other { kind, .. } => *kind,
        }
    }
}

/// A result with the crate-level error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
