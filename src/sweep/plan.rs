//! `sweep --plan`: how big a sweep is, what a point costs, and the lines that run it.
//!
//! The cost is measured, not guessed: a few points spread over the sorted list (so a
//! random sample of the grid, [`super::grid`]) are computed in this process and timed;
//! the mean times the point count is the estimate of the total CPU time. The shard count
//! proposed makes a shard take about [`TARGET_SHARD_SECONDS`] on one core (never more
//! shards than points, nor more than [`MAX_PROPOSED_SHARDS`], Slurm's default
//! `MaxArraySize` minus one). The lines printed run the sweep on Slurm through
//! `examples/slurm/sweep.sbatch` and on GNU parallel, resubmit only the shards that
//! `merge` finds missing, and merge.

use super::grid::{Grid, Point};
use super::Outcome;
use std::time::Instant;

/// The wall time a proposed shard should take on one core.
pub const TARGET_SHARD_SECONDS: f64 = 600.0;
/// Most shards proposed (Slurm's default `MaxArraySize` is 1001: indices 0–1000).
pub const MAX_PROPOSED_SHARDS: u64 = 1000;
/// Points timed by default.
pub const DEFAULT_CALIBRATION_POINTS: usize = 5;
/// How the batch script calls the binary unless `TASKASSIGN` says otherwise.
pub const DEFAULT_EXE: &str = "taskassign";
/// The batch script, relative to the repository.
pub const SBATCH_SCRIPT: &str = "examples/slurm/sweep.sbatch";

/// What the calibration measured.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// Points timed.
    pub points: usize,
    /// Of them, failures.
    pub failed: usize,
    /// Mean seconds per point.
    pub mean: f64,
    /// Fastest and slowest.
    pub min: f64,
    /// Slowest.
    pub max: f64,
}

/// Times `k` points spread evenly over the sorted list.
pub fn calibrate(
    points: &[Point],
    k: usize,
    eval: &(dyn Fn(&Point) -> Outcome + Sync),
) -> Option<Calibration> {
    let k = k.min(points.len());
    if k == 0 {
        return None;
    }
    let mut times = Vec::with_capacity(k);
    let mut failed = 0;
    for j in 0..k {
        let p = &points[j * points.len() / k];
        let t = Instant::now();
        if matches!(eval(p), Outcome::Failed { .. }) {
            failed += 1;
        }
        times.push(t.elapsed().as_secs_f64());
    }
    let mean = times.iter().sum::<f64>() / k as f64;
    Some(Calibration {
        points: k,
        failed,
        mean,
        min: times.iter().copied().fold(f64::INFINITY, f64::min),
        max: times.iter().copied().fold(0.0, f64::max),
    })
}

/// The shard count proposed for `n` points at `mean` seconds each.
pub fn proposed_shards(n: usize, mean: Option<f64>) -> u64 {
    let by_cost = mean.map_or(1.0, |m| (m * n as f64 / TARGET_SHARD_SECONDS).ceil());
    let cap = (n as u64).clamp(1, MAX_PROPOSED_SHARDS);
    if by_cost.is_finite() && by_cost >= 1.0 {
        (by_cost as u64).min(cap)
    } else {
        1
    }
}

/// A word for a POSIX shell: as is when it is safe, else single-quoted.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./=:,+@%".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The ready-to-run lines of a plan.
#[derive(Debug, Clone)]
pub struct Lines {
    /// Submits the array.
    pub slurm: String,
    /// Resubmits only the shards `merge` finds missing.
    pub slurm_resubmit: String,
    /// What to do about preemption.
    pub slurm_requeue: String,
    /// Runs every shard with GNU parallel (and reruns the failed ones when run again).
    pub parallel: String,
    /// Merges.
    pub merge: String,
}

/// The lines for `grid` written to `out` in `n` shards, GNU parallel running `jobs` at a
/// time; `exe` is how the binary is called.
pub fn lines(grid: &Grid, out: &str, n: u64, jobs: usize, exe: &str) -> Lines {
    let g = shell_word(&grid.path);
    let o = shell_word(out);
    let x = shell_word(exe);
    let merged = shell_word(&format!("{out}/merged.jsonl"));
    let logs = shell_word(&format!("{out}/logs"));
    let log = shell_word(&format!("{out}/logs/%A_%a.log"));
    let last = n.saturating_sub(1);
    let env = if exe == DEFAULT_EXE {
        String::new()
    } else {
        format!("TASKASSIGN={x} ")
    };
    let submit = |array: &str| {
        format!("{env}sbatch --array={array} --output={log} {SBATCH_SCRIPT} {g} {o} {n}")
    };
    Lines {
        slurm: format!("mkdir -p {logs} && {}", submit(&format!("0-{last}"))),
        slurm_resubmit: format!(
            "ids=$({x} merge {o} --grid {g} --out {merged} --format shards); [ -z \"$ids\" ] || {}",
            submit("\"$ids\"")
        ),
        slurm_requeue: "where jobs may be preempted, add --requeue to the sbatch line: a requeued task resumes its shard (the script always passes --resume)".into(),
        parallel: format!(
            "mkdir -p {o} && parallel -j{jobs} --joblog {} --resume-failed {x} sweep {g} --shard {{}}/{n} --out {o} --resume --threads 1 ::: $(seq 0 {last})",
            shell_word(&format!("{out}/joblog"))
        ),
        merge: format!("{x} merge {o} --grid {g} --out {merged}"),
    }
}
