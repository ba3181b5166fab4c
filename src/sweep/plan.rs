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
//!
//! The Slurm lines ask for a time limit per array task from the calibration
//! ([`slurm_time`]: the shard's estimate times [`TIME_SAFETY_FACTOR`], plus
//! [`TIME_FLOOR_SECONDS`]) and throttle the array (`--array=0-N%K`, at most K tasks at once).
//! For sites that limit array sizes, `--pack k` runs k shards per array task through GNU
//! parallel inside one allocation of k CPUs (the batch script's fourth argument).

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
/// How much longer than its calibrated estimate an array task may run before Slurm stops
/// it: the estimate is a mean over a few points, and a shard's points (a sample of the
/// grid by key) can cost more than the calibration's (a stopped shard resumes on
/// resubmission, so a short limit costs a resubmission, not work).
pub const TIME_SAFETY_FACTOR: f64 = 3.0;
/// Seconds added to every time limit: the binary's start, the resumption's read of the
/// shard file, and a node slower than the one calibrated on.
pub const TIME_FLOOR_SECONDS: f64 = 300.0;
/// Array tasks running at once unless `--throttle` says otherwise (`%K`): a fair share
/// of a shared cluster's queue.
pub const DEFAULT_THROTTLE: u64 = 100;

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

/// The Slurm time limit (`D-HH:MM:SS`, whole minutes) of an array task that runs
/// `points` points at `mean` seconds each on one CPU: [`TIME_SAFETY_FACTOR`] times the
/// estimate plus [`TIME_FLOOR_SECONDS`], rounded up to the minute. `None` when the cost
/// was not measured (or is not finite).
pub fn slurm_time(points: usize, mean: Option<f64>) -> Option<String> {
    let m = mean.filter(|m| m.is_finite() && *m >= 0.0)?;
    let secs = points as f64 * m * TIME_SAFETY_FACTOR + TIME_FLOOR_SECONDS;
    // at most a year: beyond it every site's limit is smaller anyway
    let minutes = (secs / 60.0).ceil().min(366.0 * 24.0 * 60.0) as u64;
    let (d, h, mi) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    Some(format!("{d}-{h:02}:{mi:02}:00"))
}

/// How the Slurm array runs the shards.
#[derive(Debug, Clone)]
pub struct SlurmOpts {
    /// Time limit per array task ([`slurm_time`]); `None`: the site's default.
    pub time: Option<String>,
    /// Array tasks at once (`%K`).
    pub throttle: u64,
    /// Shards per array task, run by GNU parallel on as many CPUs (1: one shard a task).
    pub pack: u64,
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
pub fn lines(grid: &Grid, out: &str, n: u64, jobs: usize, exe: &str, so: &SlurmOpts) -> Lines {
    let g = shell_word(&grid.path);
    let o = shell_word(out);
    let x = shell_word(exe);
    let merged = shell_word(&format!("{out}/merged.jsonl"));
    let logs = shell_word(&format!("{out}/logs"));
    let log = shell_word(&format!("{out}/logs/%A_%a.log"));
    let last = n.saturating_sub(1);
    let pack = so.pack.max(1);
    let tasks = n.div_ceil(pack);
    let env = if exe == DEFAULT_EXE {
        String::new()
    } else {
        format!("TASKASSIGN={x} ")
    };
    let time = so
        .time
        .as_ref()
        .map_or(String::new(), |t| format!(" --time={t}"));
    let cpus = if pack > 1 {
        format!(" --cpus-per-task={pack}")
    } else {
        String::new()
    };
    let k = so.throttle.max(1);
    let script_args = if pack > 1 {
        format!("{g} {o} {n} {pack}")
    } else {
        format!("{g} {o} {n}")
    };
    let submit = |array: &str| {
        format!(
            "{env}sbatch --array={array}%{k}{time}{cpus} --output={log} {SBATCH_SCRIPT} {script_args}"
        )
    };
    // With packing, the array tasks holding the missing shards (shard s is in task s / k).
    let ids = if pack > 1 {
        format!(
            "ids=$({x} merge {o} --grid {g} --out {merged} --format shards | tr , '\\n' | awk 'NF{{print int($1/{pack})}}' | sort -nu | paste -sd, -)"
        )
    } else {
        format!("ids=$({x} merge {o} --grid {g} --out {merged} --format shards)")
    };
    Lines {
        slurm: format!(
            "mkdir -p {logs} && {}",
            submit(&format!("0-{}", tasks.saturating_sub(1)))
        ),
        slurm_resubmit: format!("{ids}; [ -z \"$ids\" ] || {}", submit("\"$ids\"")),
        slurm_requeue: "where jobs may be preempted, add --requeue to the sbatch line: a requeued task resumes its shard (the script always passes --resume)".into(),
        parallel: format!(
            "mkdir -p {o} && parallel -j{jobs} --joblog {} --resume-failed {x} sweep {g} --shard {{}}/{n} --out {o} --resume --threads 1 ::: $(seq 0 {last})",
            shell_word(&format!("{out}/joblog"))
        ),
        merge: format!("{x} merge {o} --grid {g} --out {merged}"),
    }
}
