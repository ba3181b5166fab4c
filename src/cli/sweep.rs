//! `sweep` and `merge`: argument parsing, the check of a grid's options against the
//! command it names, and the in-process runner of a point; the method is
//! [`crate::sweep`]'s.
//!
//! A point of a command grid runs through [`super::run_captured`]: the same clap parser
//! and the same handler as `taskassign COMMAND …` on the command line, in this process
//! (no process start-up per point), with `--format json` appended; its stdout is the
//! point's record. A command that takes `--point` (the point coordinate of its random
//! streams, as `simulate` does) is given the point's key, so its numbers depend on the
//! point alone.

use super::{bad, render, Format, Ran};
use crate::error::{ErrorKind, EXIT_FAILED, EXIT_OK};
use crate::report::Record;
use crate::sweep::grid::{self, Grid, Point, Shard, Target};
use crate::sweep::{merge, plan, shard, Outcome, SweepError};
use clap::{Args, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Commands a sweep does not run: they write files or run many things themselves.
const NOT_SWEPT: &[&str] = &["sweep", "merge", "check", "tables"];
/// The option of a command that takes the point coordinate of its random streams.
const POINT_OPTION: &str = "point";
/// The option of a command that takes its base seed.
const SEED_OPTION: &str = "seed";
/// How often progress is logged when stderr is not a terminal.
const LOG_INTERVAL: Duration = Duration::from_secs(60);
/// Where `--plan` says the shards go when no `--out` is given.
const DEFAULT_PLAN_OUT: &str = "sweep-out";

/// Options of `sweep`.
#[derive(Args, Debug)]
pub(super) struct SweepArgs {
    /// The grid file (TOML): a command and its options, or a claim quantity and its
    /// setup, and the axes.
    #[arg(value_name = "GRID.toml")]
    grid: PathBuf,
    /// Which shard to run: i/n runs the points at positions i, i+n, … of the list sorted
    /// by key. Pass n explicitly (on Slurm, SLURM_ARRAY_TASK_COUNT is the size of a
    /// resubmitted subset, not the shard count).
    #[arg(long, value_name = "i/n", default_value = "0/1")]
    shard: String,
    /// The output folder: the shard writes DIR/shard-IIIIII-of-NNNNNN.jsonl.
    #[arg(long, value_name = "DIR", required_unless_present = "plan")]
    out: Option<PathBuf>,
    /// Continue the shard's file: skip the points done, cut off an incomplete last line.
    #[arg(long)]
    resume: bool,
    /// Print the point count, a measured cost per point and the Slurm and GNU parallel
    /// lines that run the sweep; compute nothing else.
    #[arg(long)]
    plan: bool,
    /// Points timed by --plan (0: none).
    #[arg(long, value_name = "K", default_value_t = plan::DEFAULT_CALIBRATION_POINTS)]
    calibrate: usize,
    /// Shard count of the lines --plan prints (default: from the measured cost).
    #[arg(long, value_name = "N")]
    shards: Option<u64>,
    /// GNU parallel's jobs at a time in the line --plan prints (default: the cores).
    #[arg(long, value_name = "J")]
    jobs: Option<usize>,
    /// Array tasks Slurm runs at once in the lines --plan prints (--array=…%K).
    #[arg(long, value_name = "K", default_value_t = plan::DEFAULT_THROTTLE)]
    throttle: u64,
    /// Shards per Slurm array task in the lines --plan prints, run by GNU parallel inside
    /// one allocation of K CPUs (for sites that limit array sizes).
    #[arg(long, value_name = "K", default_value_t = 1)]
    pack: u64,
    /// Points computed at once (default: the cores); the results do not depend on it.
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// Output formats of `merge`.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub(super) enum MergeFormat {
    Text,
    Json,
    /// Only the ids of the shards to rerun, comma-separated (an empty line if none): for
    /// `sbatch --array=…`.
    Shards,
}

/// Options of `merge`.
#[derive(Args, Debug)]
pub(super) struct MergeArgs {
    /// Output folders of sweeps (their shard-*.jsonl files), or line files.
    #[arg(value_name = "DIR", required = true)]
    inputs: Vec<PathBuf>,
    /// The merged JSONL, sorted by key.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// The CSV (default: FILE with the extension .csv).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// The grid file: the missing points are counted, the shards holding them named, and
    /// merge exits 1 while any is missing.
    #[arg(long, value_name = "GRID.toml")]
    grid: Option<PathBuf>,
    /// The shard count, when the file names do not give one.
    #[arg(long, value_name = "N")]
    shards: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: MergeFormat,
}

/// A sweep error with its exit status (an internal one says it is a bug).
fn failed(e: SweepError) -> (i32, String) {
    super::fail(e)
}

/// The cores of this machine.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The class of a failure from its exit status and message (see [`super::fail`]).
fn class_of(code: i32, message: &str) -> ErrorKind {
    if code == crate::error::EXIT_BAD_INPUT {
        ErrorKind::Input
    } else if message.starts_with("internal error") {
        ErrorKind::Internal
    } else {
        ErrorKind::Numerical
    }
}

/// Checks a command grid against the command's clap definition and sets how its points
/// are called (`--format=json`, `--point`). Returns notes for the plan.
fn prepare(grid: &mut Grid) -> Result<Vec<String>, SweepError> {
    let Target::Command {
        words,
        line,
        options,
    } = &grid.target
    else {
        return Ok(Vec::new());
    };
    let line = *line;
    let root = super::command_definition();
    let mut cmd = &root;
    for (i, w) in words.iter().enumerate() {
        let names: Vec<&str> = cmd
            .get_subcommands()
            .map(|c| c.get_name())
            .filter(|n| i > 0 || !NOT_SWEPT.contains(n))
            .collect();
        if i == 0 && NOT_SWEPT.contains(&w.as_str()) {
            return Err(grid.error_at(
                line,
                "command",
                format!("'{w}' cannot be swept (commands: {})", names.join(", ")),
            ));
        }
        cmd = cmd.find_subcommand(w).ok_or_else(|| {
            grid.error_at(
                line,
                "command",
                format!(
                    "unknown command '{}' (commands: {})",
                    words[..=i].join(" "),
                    names.join(", ")
                ),
            )
        })?;
    }
    let shown = words.join(" ");
    if cmd.has_subcommands() {
        let subs: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
        return Err(grid.error_at(
            line,
            "command",
            format!("'{shown}' needs one of its commands: {}", subs.join(", ")),
        ));
    }
    let longs: Vec<(&str, bool)> = cmd
        .get_arguments()
        .filter_map(|a| Some((a.get_long()?, a.get_action().takes_values())))
        .collect();
    for o in options {
        let key = format!("options.{}", o.name);
        if o.name == "format" {
            return Err(grid.error_at(
                o.line,
                &key,
                "the sweep sets --format json itself (its lines hold the JSON record)",
            ));
        }
        if o.name == POINT_OPTION {
            return Err(grid.error_at(
                o.line,
                &key,
                "the sweep sets --point to the point's key itself",
            ));
        }
        match longs.iter().find(|(l, _)| *l == o.name) {
            None => {
                let all: Vec<&str> = longs
                    .iter()
                    .map(|(l, _)| *l)
                    .filter(|l| *l != "format" && *l != POINT_OPTION)
                    .collect();
                return Err(grid.error_at(
                    o.line,
                    &key,
                    format!(
                        "'{shown}' has no option --{} (options: {})",
                        o.name,
                        all.join(", ")
                    ),
                ));
            }
            Some((_, true)) if o.is_flag => {
                return Err(grid.error_at(
                    o.line,
                    &key,
                    format!("--{} takes a value, not true/false", o.name),
                ))
            }
            Some((_, false)) if !o.is_flag => {
                return Err(grid.error_at(
                    o.line,
                    &key,
                    format!("--{} is a flag: write {} = true", o.name, o.name),
                ))
            }
            Some(_) => {}
        }
    }
    let json = cmd.get_arguments().any(|a| {
        a.get_long() == Some("format")
            && a.get_possible_values()
                .iter()
                .any(|v| v.get_name() == "json")
    });
    if !json {
        return Err(grid.error_at(
            line,
            "command",
            format!("'{shown}' has no --format json, so a sweep cannot read its record"),
        ));
    }
    let mut notes = Vec::new();
    let has = |n: &str| longs.iter().any(|(l, _)| *l == n);
    if has(POINT_OPTION) {
        grid.point_option = Some(POINT_OPTION.to_string());
        notes.push(format!(
            "each point's random streams are seeded from (--{SEED_OPTION}, the point's key, replication): --{POINT_OPTION} is set to the key"
        ));
    } else if has(SEED_OPTION) {
        notes.push(format!(
            "'{shown}' has --{SEED_OPTION} but no --{POINT_OPTION}: every point draws the same streams (common random numbers); still independent of shards, threads and order"
        ));
    }
    grid.extra_args = vec!["--format=json".to_string()];
    Ok(notes)
}

/// Computes one point in this process.
fn evaluate(grid: &Grid, p: &Point) -> Outcome {
    match &grid.target {
        Target::Quantity(q) => q.evaluate(grid.var_map(p)),
        Target::Command { .. } => {
            let argv = grid.argv(p);
            // A panic is a bug of the command: it is recorded as an internal failure of
            // this point rather than ending the shard.
            let ran: std::thread::Result<Ran> =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    super::run_captured(&argv)
                }));
            match ran {
                Ok(Ok((out, EXIT_OK))) => match serde_json::from_str::<serde_json::Value>(&out) {
                    Ok(serde_json::Value::Object(mut m)) => {
                        // Wall-clock timing differs run to run: a point's record is its
                        // result only, so shards merge to the same bytes however cut.
                        for k in crate::report::WALL_CLOCK_KEYS {
                            m.shift_remove(*k);
                        }
                        Outcome::Record(serde_json::Value::Object(m))
                    }
                    _ => Outcome::Failed {
                        kind: ErrorKind::Internal,
                        message: "the command did not print one JSON object".into(),
                    },
                },
                Ok(Ok((_, code))) => Outcome::Failed {
                    kind: ErrorKind::Internal,
                    message: format!("the command exited {code} without an error message"),
                },
                Ok(Err((code, message))) => Outcome::Failed {
                    kind: class_of(code, &message),
                    message,
                },
                Err(_) => Outcome::Failed {
                    kind: ErrorKind::Internal,
                    message: "the command panicked (a bug: please report it)".into(),
                },
            }
        }
    }
}

/// Reads and prepares a grid.
fn load(path: &std::path::Path) -> Result<(Grid, Vec<String>), SweepError> {
    let mut g = grid::load(&path.display().to_string())?;
    let notes = prepare(&mut g)?;
    Ok((g, notes))
}

/// Progress on stderr: a bar on a terminal, else a line a minute.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    start: Instant,
    last: Mutex<Instant>,
    shard: Shard,
    first_done: Mutex<Option<usize>>,
}

impl Progress {
    fn new(shard: Shard) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = indicatif::ProgressBar::new(0);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{prefix} {bar:30} {pos}/{len} points  {per_sec}  ETA {eta}",
            ) {
                b.set_style(style);
            }
            b.set_prefix(format!("sweep {shard}"));
            b
        });
        Progress {
            bar,
            start: Instant::now(),
            last: Mutex::new(Instant::now()),
            shard,
            first_done: Mutex::new(None),
        }
    }

    fn update(&self, done: usize, total: usize) {
        let base = match self.first_done.lock() {
            Ok(mut f) => *f.get_or_insert(done.saturating_sub(1)),
            Err(_) => 0,
        };
        if let Some(b) = &self.bar {
            b.set_length(total as u64);
            b.set_position(done as u64);
            return;
        }
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last.elapsed() < LOG_INTERVAL && done < total {
            return;
        }
        *last = Instant::now();
        let secs = self.start.elapsed().as_secs_f64();
        let rate = (done - base) as f64 / secs.max(f64::MIN_POSITIVE);
        let eta = if rate > 0.0 {
            format!("{:.0} s", (total - done) as f64 / rate)
        } else {
            "unknown".into()
        };
        eprintln!(
            "taskassign sweep {}: {done}/{total} points, {rate:.3} points/s, ETA {eta}",
            self.shard
        );
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Runs `sweep`.
pub(super) fn run_sweep(a: SweepArgs) -> Ran {
    let t0 = Instant::now();
    let (grid, notes) = load(&a.grid).map_err(failed)?;
    let points = grid.points().map_err(failed)?;
    let threads = match a.threads {
        Some(0) => return Err(bad("--threads must be at least 1")),
        Some(t) => t,
        None => cores(),
    };
    let eval = |p: &Point| evaluate(&grid, p);
    if a.plan {
        let planned = t0.elapsed().as_secs_f64();
        let cal = plan::calibrate(&points, a.calibrate, &eval);
        let n = match a.shards {
            Some(0) => return Err(bad("--shards must be at least 1")),
            Some(n) => n,
            None => plan::proposed_shards(points.len(), cal.as_ref().map(|c| c.mean)),
        };
        if a.throttle == 0 {
            return Err(bad("--throttle must be at least 1"));
        }
        if a.pack == 0 {
            return Err(bad("--pack must be at least 1"));
        }
        let out = a
            .out
            .as_ref()
            .map_or(DEFAULT_PLAN_OUT.to_string(), |o| o.display().to_string());
        let per_shard = points.len().div_ceil(n as usize);
        // packed shards run side by side, one CPU each: a task takes one shard's time
        let so = plan::SlurmOpts {
            time: plan::slurm_time(per_shard, cal.as_ref().map(|c| c.mean)),
            throttle: a.throttle,
            pack: a.pack,
        };
        let l = plan::lines(
            &grid,
            &out,
            n,
            a.jobs.unwrap_or_else(cores).max(1),
            plan::DEFAULT_EXE,
            &so,
        );
        let mut r = Record::default();
        r.text("grid", grid.path.clone())
            .text(
                "target",
                match &grid.target {
                    Target::Command { words, .. } => words.join(" "),
                    Target::Quantity(q) => q.text.clone(),
                },
            )
            .texts("variables", &grid.vars)
            .int("points", points.len() as u64)
            .text("seconds_to_plan", format!("{planned:.3e}"));
        if let Some(c) = &cal {
            r.int("calibration_points", c.points as u64)
                .int("calibration_failures", c.failed as u64)
                .text("seconds_per_point", format!("{:.3e}", c.mean))
                .text("seconds_per_point_min", format!("{:.3e}", c.min))
                .text("seconds_per_point_max", format!("{:.3e}", c.max))
                .text(
                    "estimated_cpu_seconds",
                    format!("{:.3e}", c.mean * points.len() as f64),
                );
        }
        r.int("shards", n)
            .int("points_per_shard", per_shard as u64)
            .text(
                "slurm_time",
                so.time.clone().unwrap_or_else(|| {
                    "not set: no point was timed (--calibrate 0); the site's default applies".into()
                }),
            )
            .int("slurm_throttle", a.throttle)
            .int("slurm_pack", a.pack)
            .int("slurm_tasks", n.div_ceil(a.pack))
            .text("slurm", l.slurm)
            .text("slurm_resubmit", l.slurm_resubmit)
            .text("slurm_requeue", l.slurm_requeue)
            .text("parallel", l.parallel)
            .text("merge", l.merge)
            .texts("notes", &notes);
        return Ok((render(&r, a.format), EXIT_OK));
    }
    let shard = Shard::parse(&a.shard).map_err(failed)?;
    let out = a
        .out
        .as_ref()
        .ok_or_else(|| bad("give --out DIR (or --plan)"))?;
    let progress = Progress::new(shard);
    let on = |done: usize, total: usize| progress.update(done, total);
    let opts = shard::RunOptions {
        shard,
        out,
        resume: a.resume,
        threads,
    };
    let s = shard::run(&grid, &points, &opts, &eval, &on);
    progress.finish();
    let s = s.map_err(failed)?;
    let mut r = Record::default();
    r.text("grid", grid.path.clone())
        .text("shard", shard.to_string())
        .text("file", s.file.display().to_string())
        .int("points", s.points as u64)
        .int("already_done", s.already as u64)
        .int("computed", s.ran as u64)
        .int("failed", s.failed as u64)
        .int("discarded_bytes", s.torn_bytes)
        .text("seconds", format!("{:.3e}", s.seconds))
        .int("threads", threads as u64);
    Ok((render(&r, a.format), EXIT_OK))
}

/// Runs `merge`.
pub(super) fn run_merge(a: MergeArgs) -> Ran {
    let t0 = Instant::now();
    let grid = match &a.grid {
        Some(p) => Some(load(p).map_err(failed)?.0),
        None => None,
    };
    if a.shards == Some(0) {
        return Err(bad("--shards must be at least 1"));
    }
    let req = merge::Request {
        inputs: &a.inputs,
        out: &a.out,
        csv: a.csv.as_deref(),
        grid: grid.as_ref(),
        shards: a.shards,
    };
    let m = merge::merge(&req).map_err(failed)?;
    let ids: Vec<String> = m.missing_shards.iter().map(u64::to_string).collect();
    let code = if m.missing.is_some_and(|n| n > 0) {
        EXIT_FAILED
    } else {
        EXIT_OK
    };
    if a.format == MergeFormat::Shards {
        return Ok((format!("{}\n", ids.join(",")), code));
    }
    let mut r = Record::default();
    r.int("files", m.files as u64)
        .int("lines", m.lines as u64)
        .int("points", m.points as u64)
        .int("identical_duplicates", m.identical_duplicates as u64)
        .int("failed", m.failed as u64)
        .int("incomplete_lines", m.incomplete_lines as u64);
    if let Some(g) = m.grid_points {
        r.int("grid_points", g as u64);
    }
    if let Some(x) = m.missing {
        r.int("missing", x as u64);
    }
    if let Some(n) = m.shard_count {
        r.int("shard_count", n);
    }
    r.text("missing_shards", ids.join(","))
        .text("out", m.out.display().to_string())
        .text("csv", m.csv.display().to_string())
        .text("seconds", format!("{:.3e}", t0.elapsed().as_secs_f64()));
    let fmt = if a.format == MergeFormat::Json {
        Format::Json
    } else {
        Format::Text
    };
    Ok((render(&r, fmt), code))
}
