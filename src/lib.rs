//! taskassign: numerical checks of dispatching theory at any precision.
//!
//! Layers (dependencies flow one way): [`num`] ← [`dist`] ← [`policy`] ← [`optimize`] ←
//! [`report`] ← the `taskassign` binary's `cli`.
#![warn(missing_docs)]
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
pub mod report;
pub mod sim;
pub mod sweep;

pub use error::{Error, ErrorKind};

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
