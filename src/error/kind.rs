//! Whose fault an error is ([`ErrorKind`], read through [`Classify`]) and the exit
//! statuses the binary gives each: a leaf every layer's error enum depends on, apart from
//! the crate-level [`super::Error`] that gathers them all.

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
