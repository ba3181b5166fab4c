//! Shard files: one JSON line per finished point, appended so that a killed process loses
//! at most the point it was writing, and resumed by key.
//!
//! A shard's file is `DIR/shard-IIIIII-of-NNNNNN.jsonl`. Each line is built whole in
//! memory and appended with one `write` to a file opened `O_APPEND`, with no user-space
//! buffer: once the call returns the line is the kernel's, and a SIGKILL cannot lose it.
//! A process killed inside that call (or a machine that fails before the page cache
//! reaches the disk) can leave one incomplete last line, without its newline; `--resume`
//! cuts it off and reruns that point. The data are flushed to the disk (`fdatasync`) at
//! most [`SYNC_INTERVAL`] apart and at the end. An exclusive `flock` on the file keeps two
//! processes (a requeued Slurm task and its old self, two parallel jobs given one shard)
//! from writing one shard at once.

use super::grid::{key_text, parse_key, Grid, Point, Shard};
use super::{Outcome, SweepError};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Longest time between two flushes of a shard file to the disk.
pub const SYNC_INTERVAL: Duration = Duration::from_secs(1);
/// Digits of the shard index and count in file names (enough for [`super::grid::MAX_SHARDS`]).
const SHARD_NAME_DIGITS: usize = 6;

/// The file name of a shard's lines.
pub fn file_name(shard: Shard) -> String {
    format!(
        "shard-{:0w$}-of-{:0w$}.jsonl",
        shard.index,
        shard.count,
        w = SHARD_NAME_DIGITS
    )
}

/// The shard a file name belongs to (`shard-000003-of-000008.jsonl`).
pub fn parse_file_name(name: &str) -> Option<Shard> {
    let rest = name.strip_prefix("shard-")?.strip_suffix(".jsonl")?;
    let (i, n) = rest.split_once("-of-")?;
    let index = i.parse().ok()?;
    let count = n.parse().ok()?;
    (count >= 1 && index < count).then_some(Shard { index, count })
}

/// One line of a shard file (with its newline): the key, the point's variables and the
/// command's record, or the failure with its class and exit status.
pub fn line(grid: &Grid, p: &Point, outcome: &Outcome) -> String {
    let mut m = serde_json::Map::new();
    m.insert("key".into(), key_text(p.key).into());
    m.insert("point".into(), grid.point_json(p));
    match outcome {
        Outcome::Record(r) => {
            m.insert("result".into(), r.clone());
        }
        Outcome::Failed { kind, message } => {
            let mut e = serde_json::Map::new();
            e.insert("class".into(), kind.name().into());
            e.insert("exit".into(), kind.exit_code().into());
            e.insert("message".into(), message.clone().into());
            m.insert("error".into(), serde_json::Value::Object(e));
        }
    }
    let mut s = serde_json::Value::Object(m).to_string();
    s.push('\n');
    s
}

/// What a shard file held when a run started.
#[derive(Debug, Default)]
pub struct Existing {
    /// Keys of its complete lines.
    pub done: HashSet<u64>,
    /// Of them, failures.
    pub failed: usize,
    /// Bytes of an incomplete last line that were cut off.
    pub torn_bytes: u64,
}

/// Reads the complete lines of `file` (keys that must belong to `mine`) and cuts off an
/// incomplete last line.
fn scan(file: &mut File, path: &Path, mine: &HashSet<u64>) -> Result<Existing, SweepError> {
    let show = path.display().to_string();
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|e| SweepError::Read {
        path: show.clone(),
        why: e.to_string(),
    })?;
    let mut ex = Existing::default();
    let mut good = 0usize;
    for (n, chunk) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        if chunk.last() != Some(&b'\n') {
            // The incomplete last line of a killed writer.
            ex.torn_bytes = chunk.len() as u64;
            break;
        }
        let data = |why: String| SweepError::Data {
            path: show.clone(),
            line: n + 1,
            why,
        };
        let v: serde_json::Value = serde_json::from_slice(chunk)
            .map_err(|e| data(format!("not a sweep line ({e}); the file is damaged")))?;
        let key = v
            .get("key")
            .and_then(|k| k.as_str())
            .and_then(parse_key)
            .ok_or_else(|| data("a line without a key".into()))?;
        if !mine.contains(&key) {
            return Err(data(format!(
                "point {} is not a point of this shard of the grid (was the grid changed? use a fresh --out)",
                key_text(key)
            )));
        }
        if v.get("error").is_some() {
            ex.failed += 1;
        }
        ex.done.insert(key);
        good += chunk.len();
    }
    if ex.torn_bytes > 0 {
        file.set_len(good as u64).map_err(|e| SweepError::Write {
            path: show,
            why: format!("cutting off an incomplete last line: {e}"),
        })?;
    }
    Ok(ex)
}

/// What one run of a shard did.
#[derive(Debug, Clone)]
pub struct ShardSummary {
    /// Its file.
    pub file: PathBuf,
    /// Points of the shard.
    pub points: usize,
    /// Points already in the file when the run started (a resume).
    pub already: usize,
    /// Points computed by this run.
    pub ran: usize,
    /// Failures among all the shard's lines.
    pub failed: usize,
    /// Bytes of an incomplete last line cut off by the resume.
    pub torn_bytes: u64,
    /// Wall time of this run.
    pub seconds: f64,
}

/// How a shard is run.
pub struct RunOptions<'a> {
    /// Which shard.
    pub shard: Shard,
    /// The output folder (created if missing).
    pub out: &'a Path,
    /// Continue an existing shard file.
    pub resume: bool,
    /// Worker threads for points (each point's own parallelism is its command's).
    pub threads: usize,
}

/// Runs the points of `opts.shard` not yet in its file, computing each with `eval`, and
/// appends a line for each; `progress(done, total)` is called after every point.
pub fn run(
    grid: &Grid,
    points: &[Point],
    opts: &RunOptions,
    eval: &(dyn Fn(&Point) -> Outcome + Sync),
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<ShardSummary, SweepError> {
    let start = Instant::now();
    let shard = opts.shard;
    let mine: Vec<&Point> = points
        .iter()
        .enumerate()
        .filter(|(i, _)| shard.takes(*i))
        .map(|(_, p)| p)
        .collect();
    let keys: HashSet<u64> = mine.iter().map(|p| p.key).collect();
    if opts.out.exists() && !opts.out.is_dir() {
        return Err(SweepError::Write {
            path: opts.out.display().to_string(),
            why: "it is a file, and --out names the folder the shard files go in".into(),
        });
    }
    std::fs::create_dir_all(opts.out).map_err(|e| SweepError::Write {
        path: opts.out.display().to_string(),
        why: e.to_string(),
    })?;
    let path = opts.out.join(file_name(shard));
    let show = path.display().to_string();
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(&path)
        .map_err(|e| SweepError::Write {
            path: show.clone(),
            why: e.to_string(),
        })?;
    let mut lock = fd_lock::RwLock::new(file);
    let mut guard = lock.try_write().map_err(|_| {
        SweepError::Usage(format!(
            "{show}: another process is running shard {shard} (its lock is held)"
        ))
    })?;
    let has_lines = guard.metadata().map(|m| m.len() > 0).unwrap_or(false);
    if has_lines && !opts.resume {
        return Err(SweepError::Usage(format!(
            "{show} already has results: --resume continues it (skipping the points done), or remove it"
        )));
    }
    let ex = scan(&mut guard, &path, &keys)?;
    let todo: Vec<&Point> = mine
        .iter()
        .copied()
        .filter(|p| !ex.done.contains(&p.key))
        .collect();
    let total = mine.len();
    let file: &File = &guard;
    struct State {
        done: usize,
        failed: usize,
        ran: usize,
        last_sync: Instant,
        error: Option<SweepError>,
    }
    let state = Mutex::new(State {
        done: ex.done.len(),
        failed: ex.failed,
        ran: 0,
        last_sync: Instant::now(),
        error: None,
    });
    let stop = AtomicBool::new(false);
    let work = |p: &&Point| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let outcome = eval(p);
        let text = line(grid, p, &outcome);
        let Ok(mut st) = state.lock() else {
            stop.store(true, Ordering::Relaxed);
            return;
        };
        let mut w = file;
        let mut res = w.write_all(text.as_bytes());
        if res.is_ok() && st.last_sync.elapsed() >= SYNC_INTERVAL {
            res = file.sync_data();
            st.last_sync = Instant::now();
        }
        match res {
            Ok(()) => {
                st.done += 1;
                st.ran += 1;
                if matches!(outcome, Outcome::Failed { .. }) {
                    st.failed += 1;
                }
                progress(st.done, total);
            }
            Err(e) => {
                st.error.get_or_insert(SweepError::Write {
                    path: show.clone(),
                    why: e.to_string(),
                });
                stop.store(true, Ordering::Relaxed);
            }
        }
    };
    if opts.threads <= 1 {
        todo.iter().for_each(work);
    } else {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(opts.threads)
            .build()
            .map_err(|e| SweepError::Internal(format!("thread pool: {e}")))?;
        pool.install(|| todo.par_iter().with_max_len(1).for_each(work));
    }
    let st = state
        .into_inner()
        .map_err(|_| SweepError::Internal("a point's worker panicked".into()))?;
    if let Some(e) = st.error {
        return Err(e);
    }
    file.sync_all().map_err(|e| SweepError::Write {
        path: show.clone(),
        why: e.to_string(),
    })?;
    Ok(ShardSummary {
        file: path,
        points: total,
        already: ex.done.len(),
        ran: st.ran,
        failed: st.failed,
        torn_bytes: ex.torn_bytes,
        seconds: start.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_round_trip() {
        let s = Shard { index: 3, count: 8 };
        assert_eq!(file_name(s), "shard-000003-of-000008.jsonl");
        assert_eq!(parse_file_name(&file_name(s)), Some(s));
        assert_eq!(parse_file_name("shard-000008-of-000008.jsonl"), None);
        assert_eq!(parse_file_name("merged.jsonl"), None);
    }
}
