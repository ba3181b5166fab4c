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

mod kind;

pub use kind::{Classify, ErrorKind, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_NUMERICAL, EXIT_OK};
use thiserror::Error;

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

/// The reason of a TOML parse or schema error, as one line: the parser's message (its
/// lines joined with "; "), or, where the parser gives none (a key whose value is missing at
/// the end of the text, which `toml` reports with an empty message), a reason read from the
/// text at the error's place.
pub fn toml_reason(e: &toml::de::Error, text: &str) -> String {
    let msg = e
        .message()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    if !msg.is_empty() {
        return msg;
    }
    let at = e.span().map_or(text.len(), |s| s.start.min(text.len()));
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let before = text[..at].lines().next_back().unwrap_or("").trim_end();
    let after = text[at..].lines().next().unwrap_or("").trim();
    if before.ends_with('=') && after.is_empty() {
        "a value is missing after '=' (a quoted string, a number, true or false, an array or an inline table)".into()
    } else if text[at..].trim().is_empty() {
        "the text ends in the middle of a TOML item".into()
    } else {
        "not valid TOML here".into()
    }
}

#[cfg(test)]
mod toml_tests {
    use super::toml_reason;

    fn reason(text: &str) -> String {
        let e = toml::from_str::<toml::Table>(text).expect_err("malformed");
        toml_reason(&e, text)
    }

    #[test]
    fn every_toml_error_has_a_reason() {
        // toml reports these with an empty message: a value missing at the end of the text
        for t in ["id =", "id = \"x\"\nload =", "[[class]]\nset = "] {
            assert!(
                reason(t).starts_with("a value is missing after '='"),
                "{t:?}: {}",
                reason(t)
            );
        }
        // the parser's own message, on one line
        assert_eq!(reason("x = [1,"), "invalid array; expected `]`");
        assert_eq!(reason("a =   # note"), "invalid string; expected `\"`, `'`");
        assert_eq!(
            reason("id = 'x'\nid = 'y'\n"),
            "duplicate key `id` in document root"
        );
    }
}
