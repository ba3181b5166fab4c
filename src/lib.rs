//! taskassign: numerical checks of dispatching theory at any precision.
//!
//! Layers (dependencies flow one way): [`num`] ← [`dist`] ← [`policy`] ← [`optimize`] ←
//! [`report`] ← the `taskassign` binary's `cli`.
#![warn(missing_docs)]

pub mod cli;
pub mod dist;
pub mod num;
pub mod optimize;
pub mod policy;
pub mod report;
pub mod sim;
