//! Parameter sweeps past one machine: a grid of points over any command or claim
//! quantity, cut into shards that Slurm job arrays or GNU parallel run, each shard
//! resumable, and merged into one sorted result.
//!
//! The method, in the order a sweep runs (ARCHITECTURE.md, "Sweeps"):
//!
//! * **The grid** (`grid`): a TOML file names a command (`optimize`, `jsq sim`, …) and
//!   its options with `{var}` templates, or a claim quantity and its `[setup]`, and the
//!   axes: lists, exact decimal ranges, log ranges, zipped groups, all crossed. Expanding
//!   it gives every point's variables and its *canonical arguments*: the command line
//!   (options sorted by name, templates filled) or the quantity, its setup and its
//!   variables, as one string.
//! * **The key** (`grid::point_key`): the first 8 bytes of SHA-256 of the canonical
//!   string, big-endian, written as 16 hex digits. It depends on what the point computes
//!   and nothing else: not on the order the grid was written in, the shard count or the
//!   machine. The points form one list sorted by key; shard i of n takes the points at
//!   positions i, i + n, i + 2n, … of that list (exact balance, and the costly and cheap
//!   corners of a grid are spread over every shard). A simulation's streams are seeded
//!   from (base seed, key, replication, stream): the key is the point coordinate of
//!   [`crate::sim::Streams`], so a point's numbers do not depend on the shard count, the
//!   thread count or the order.
//! * **The shard file** (`shard`): one JSON line per finished point,
//!   `{"key", "point": {…}, "result": {…}}` (the command's own JSON record) or
//!   `{"key", "point": {…}, "error": {"class", "exit", "message"}}`, appended with one
//!   `write` per line and no user-space buffer, so a killed process leaves at most one
//!   incomplete last line; `--resume` discards it and skips the keys already there. A
//!   failure is a line too: it is recorded once, never retried forever. An exclusive lock
//!   keeps two processes off one shard.
//! * **The merge** (`merge`): every shard line read, identical duplicates merged
//!   silently, conflicting ones an error naming the point, the missing points (given the
//!   grid) reported with the shard ids to rerun, and one JSONL sorted by key plus one CSV
//!   written. A sharded run and an unsharded run of one grid merge to the same bytes.
//! * **The plan** (`plan`): the point count, a measured cost per point, and the lines
//!   that run the sweep on Slurm (`examples/slurm/sweep.sbatch`) and GNU parallel.
//!
//! How a point is computed is the caller's: the binary's `cli` runs a command line in its
//! own process (no new process per point) and returns its JSON record; this module runs
//! claim quantities itself (`quantity`).

pub(crate) mod axis;
mod csv;
pub(crate) mod grid;
pub(crate) mod merge;
pub(crate) mod plan;
pub(crate) mod quantity;
pub(crate) mod shard;

pub use quantity::QuantityDef;

use crate::error::{Classify, ErrorKind};
use thiserror::Error;

/// Errors of the sweep layer.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum SweepError {
    /// A malformed grid file: the file, the line, the key.
    #[error("{path}:{line}: {key}: {why}")]
    Grid {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// The key at fault (`grid.alpha`, `options.hosts`).
        key: String,
        /// What is wrong.
        why: String,
    },
    /// A request that cannot be run as asked (a bad `--shard`, an output folder in use).
    #[error("{0}")]
    Usage(String),
    /// A file or folder that cannot be read.
    #[error("{path}: {why}")]
    Read {
        /// The path.
        path: String,
        /// What went wrong.
        why: String,
    },
    /// An output that cannot be written: a folder that cannot be made, a file where a
    /// folder is wanted (or the reverse), no permission, a full disk. The user's to fix, so
    /// an input error (exit 2) naming the path and the system's reason.
    #[error("{path}: cannot write: {why}")]
    Write {
        /// The path.
        path: String,
        /// What went wrong.
        why: String,
    },
    /// A shard line that is not what a sweep writes, or two lines of one point that
    /// disagree: the inputs of a merge are inconsistent.
    #[error("{path}:{line}: {why}")]
    Data {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// A claim quantity's `[setup]` or expression that does not compile.
    #[error(transparent)]
    Claim(#[from] crate::claims::ClaimError),
    /// A broken invariant (a bug).
    #[error("internal: {0}")]
    Internal(String),
}

impl Classify for SweepError {
    fn kind(&self) -> ErrorKind {
        match self {
            SweepError::Grid { .. }
            | SweepError::Usage(_)
            | SweepError::Read { .. }
            | SweepError::Data { .. }
            | SweepError::Write { .. } => ErrorKind::Input,
            SweepError::Claim(e) => e.kind(),
            SweepError::Internal(_) => ErrorKind::Internal,
        }
    }
}

/// What computing one point gave: the command's JSON record, or a failure with its class.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The record (one JSON object).
    Record(serde_json::Value),
    /// The failure: whose fault (bad input, numerical, internal) and the one-line message.
    Failed {
        /// The class.
        kind: ErrorKind,
        /// The message.
        message: String,
    },
}
