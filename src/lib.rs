//! taskassign: numerical checks of dispatching theory at any precision.
//!
//! Size-based routing to h FCFS hosts (TAGS, SITA, SITA-E, Random, Least-Work-Left) and
//! many-server load balancing (JSQ(d(N))), every analytic number computed in MPFR at two
//! precisions and printed only with the digits both agree on; simulators that cross-check
//! the formulas; the published statements of the field as claim files checked by
//! [`claims`]. `ARCHITECTURE.md` describes the rooms, their dependencies and the extension
//! points; [`prelude`] has the names a library user needs and [`prelude::Farm`], the short
//! way to the common questions.
//!
//! Rooms (dependencies flow one way; `tests/architecture.rs` holds the code to
//! ARCHITECTURE.md's table): [`num`] ← [`dist`] ← [`policy`] ← [`optimize`]; [`sim`]
//! (simulators, one [`sim::RunOptions`] for every model) beside them; the models
//! [`lb`] (JSQ(d(N))) and [`redundancy`] (redundancy scheduling) on [`sim`]; [`claims`]
//! reaches every model through its registry; [`sweep`] runs grids of points past one
//! machine; [`report`] builds records from what the rooms computed and renders them; the
//! `taskassign` binary's private `cli` parses arguments, calls a model room, then
//! [`report`]. [`error`] says whose fault a failure is (exit 2 or 3), [`progress`]
//! reports long computations, [`vocab`] holds the names a user gives.
#![deny(missing_docs)]
#![warn(unnameable_types)]
// Domain checks are written `!(x > 0)` on purpose: the negation also rejects NaN, which
// `x <= 0` would let through.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod claims;
mod cli;
pub mod dist;
pub mod error;
pub mod lb;
pub mod num;
pub mod optimize;
pub mod policy;
pub mod prelude;
pub mod progress;
pub mod redundancy;
pub mod report;
pub mod sim;
pub mod sweep;
pub mod vocab;

pub use error::{Error, ErrorKind};

// The README's Rust examples run as doc-tests, so the README cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The `taskassign` binary's entry point: parses `args` (program name first), runs the
/// command, prints its output and returns the exit status. Argument parsing is not part
/// of the library (the `cli` module is private); this is the one door to it.
#[doc(hidden)]
pub fn run_command_line<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    cli::run(args)
}

/// A command line run in this process without printing (program name first): its stdout
/// and exit status, or its exit status and one-line error. What `sweep` does for each
/// point; the door for benchmarks that compare a sweep with the command it runs.
#[doc(hidden)]
pub fn run_command_line_captured<I, T>(args: I) -> Result<(String, i32), (i32, String)>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    cli::run_captured(args)
}
