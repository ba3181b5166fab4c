//! Merging shard files: every complete line read and checked, duplicates resolved, the
//! missing points found, and one JSONL sorted by key plus one CSV written.
//!
//! * A line is what [`super::shard::line`] writes: one JSON object with a 16-hex-digit
//!   `key`. Lines of one key with the same bytes are one point (a shard run twice, or
//!   two output folders that overlap) and merge silently; lines of one key that differ
//!   are an error naming the key, the point and both places, and nothing is written.
//! * An incomplete last line (a shard still running, or killed mid-write) is skipped and
//!   counted; its point is missing until the shard is resumed.
//! * Given the grid, every point of it must be there: the missing ones are counted and the
//!   shards that hold them named (shard i of n holds the points at positions ≡ i mod n of
//!   the sorted key list, [`super::grid::Shard::takes`]); a line whose key is not a point
//!   of the grid is an error (another grid's output in the folder).
//! * The JSONL is the unique lines in key order, byte for byte as the shards wrote them,
//!   so a sharded and an unsharded run merge to the same file. The CSV has one row per
//!   point, in the grid file's order (its axes crossed in the order written, the last
//!   fastest; without `--grid`, key order): `key`, the grid variables in the file's order,
//!   `status` (`ok` or `error`), then every field of the records flattened under `result.`
//!   (`result.cutoffs[0]`, `result.designs[0].hosts`) in the order they first appear, a
//!   vector's elements side by side, then `error.class`, `error.exit`, `error.message`.
//!   Beside a record column that holds a number beyond f64's range (`1e100000`, `2e-400`)
//!   stands its `log10_` column (`result.log10_value`: log10 |x| of every number in it, to 6
//!   decimals), so a notebook can plot it without a decimal library.
//! * Both files are written to a temporary name and renamed: a reader never sees half.
//!
//! Parquet is not written: the Rust implementation (`parquet` with `arrow`) would add
//! a hundred-odd crates and minutes of compile time to every build for a file the CSV
//! already carries; any dataframe tool converts the CSV in one call.

use super::grid::{key_text, parse_key, Grid};
use super::shard::parse_file_name;
use super::SweepError;
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Lines per chunk of the parallel CSV rendering.
const CSV_CHUNK: usize = 4096;
/// Chunks rendered before they are written (bounds the CSV text held in memory).
const CSV_BATCH_CHUNKS: usize = 16;

/// What to merge and where.
pub struct Request<'a> {
    /// Folders of shard files (every `shard-*.jsonl` in them) or line files.
    pub inputs: &'a [PathBuf],
    /// The merged JSONL.
    pub out: &'a Path,
    /// The CSV (default: `out` with the extension `.csv`).
    pub csv: Option<&'a Path>,
    /// The grid the lines come from: missing points are then known.
    pub grid: Option<&'a Grid>,
    /// The shard count, when the file names do not give one.
    pub shards: Option<u64>,
}

/// What a merge found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Files read.
    pub files: usize,
    /// Complete lines read.
    pub lines: usize,
    /// Points written (unique keys).
    pub points: usize,
    /// Lines dropped as identical duplicates.
    pub identical_duplicates: usize,
    /// Points recorded as failures.
    pub failed: usize,
    /// Incomplete last lines skipped.
    pub incomplete_lines: usize,
    /// Points of the grid (with a grid).
    pub grid_points: Option<usize>,
    /// Points of the grid with no line (with a grid).
    pub missing: Option<usize>,
    /// The shard count the files were written for (when one).
    pub shard_count: Option<u64>,
    /// Shards to rerun: those holding missing points (with a grid), else those whose
    /// files are absent.
    pub missing_shards: Vec<u64>,
    /// The JSONL written.
    pub out: PathBuf,
    /// The CSV written.
    pub csv: PathBuf,
}

/// What the first pass reads of a line: its key and whether it is a failure; the rest is
/// skipped without being built.
#[derive(serde::Deserialize)]
struct Skim {
    key: String,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
}

/// One line found.
struct Found<'a> {
    key: u64,
    failed: bool,
    text: &'a str,
    file: usize,
    line: usize,
}

/// The error of line `line` of input file `file` (an index into `files`).
fn data_err(files: &[PathBuf], file: usize, line: usize, why: String) -> SweepError {
    SweepError::Data {
        path: files[file].display().to_string(),
        line,
        why,
    }
}

fn read_err(p: &Path, e: std::io::Error) -> SweepError {
    SweepError::Read {
        path: p.display().to_string(),
        why: e.to_string(),
    }
}

/// The files of the inputs: each folder's `shard-*.jsonl` (sorted), each file itself.
fn files_of(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, SweepError> {
    let mut out = Vec::new();
    for i in inputs {
        if i.is_dir() {
            let mut fs: Vec<PathBuf> = std::fs::read_dir(i)
                .map_err(|e| read_err(i, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| parse_file_name(n).is_some())
                })
                .collect();
            fs.sort();
            out.extend(fs);
        } else if i.is_file() {
            out.push(i.clone());
        } else {
            return Err(SweepError::Read {
                path: i.display().to_string(),
                why: "no such file or folder".into(),
            });
        }
    }
    Ok(out)
}

/// Writes `bytes` to `path` through a temporary file in its folder and a rename (a regular
/// file), or directly (a device or a pipe).
fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), SweepError> {
    let werr = |e: std::io::Error| SweepError::Write {
        path: path.display().to_string(),
        why: e.to_string(),
    };
    if path.is_dir() {
        return Err(SweepError::Write {
            path: path.display().to_string(),
            why: "it is a folder; name the file to write".into(),
        });
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Something that is not a regular file (`--csv /dev/null`, a pipe) is written as it
    // is: a rename would replace the device or the pipe with a file.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(werr)?;
        let mut w = std::io::BufWriter::new(&file);
        fill(&mut w).map_err(werr)?;
        return w.flush().map_err(werr);
    }
    std::fs::create_dir_all(&dir).map_err(werr)?;
    // A temporary name of this process in the same folder (so the rename is atomic),
    // created as any file is (the umask's permissions, not a temporary file's 0600: the
    // merged result is for others to read).
    let name = path.file_name().map_or_else(
        || "merged".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let written = (|| {
        let file = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::new(&file);
        fill(&mut w)?;
        w.flush()?;
        drop(w);
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        // The temporary file is removed on failure; a failure to remove it is second.
        let _ = std::fs::remove_file(&tmp);
        return Err(werr(e));
    }
    Ok(())
}

/// A flattened column's name without its indices (`host_loads[1]` → `host_loads`).
fn base_name(c: &str) -> String {
    let mut out = String::with_capacity(c.len());
    let mut depth = 0;
    for ch in c.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
    }
    out
}

/// A flattened column's indices (`designs[1].cutoffs[0]` → [1, 0]).
fn indices(c: &str) -> Vec<usize> {
    c.split('[')
        .skip(1)
        .filter_map(|p| p.split(']').next()?.parse().ok())
        .collect()
}

/// A CSV cell: quoted when it holds a comma, a quote or a line break.
fn cell(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    push_cell(&mut o, s);
    o
}

/// Appends `s` to `o` as a CSV cell ([`cell`]).
fn push_cell(o: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        o.push('"');
        o.push_str(&s.replace('"', "\"\""));
        o.push('"');
    } else {
        o.push_str(s);
    }
}

/// Merges the shard files of `req.inputs`.
pub fn merge(req: &Request) -> Result<Report, SweepError> {
    let files = files_of(req.inputs)?;
    let texts: Vec<String> = files
        .par_iter()
        .map(|f| std::fs::read_to_string(f).map_err(|e| read_err(f, e)))
        .collect::<Result<_, _>>()?;
    let mut report = Report {
        files: files.len(),
        ..Report::default()
    };
    // Every complete line, with its place.
    let mut raw: Vec<(usize, usize, &str)> = Vec::new();
    for (fi, t) in texts.iter().enumerate() {
        for (li, l) in t.split_inclusive('\n').enumerate() {
            match l.strip_suffix('\n') {
                Some(body) => raw.push((fi, li + 1, body)),
                None => report.incomplete_lines += 1,
            }
        }
    }
    report.lines = raw.len();
    let place = |fi: usize, li: usize| format!("{}:{li}", files[fi].display());
    let mut found: Vec<Found> = raw
        .par_iter()
        .map(|&(fi, li, body)| {
            let data = |why: String| data_err(&files, fi, li, why);
            let h: Skim =
                serde_json::from_str(body).map_err(|e| data(format!("not a sweep line: {e}")))?;
            let key =
                parse_key(&h.key).ok_or_else(|| data(format!("'{}' is not a point key", h.key)))?;
            Ok(Found {
                key,
                failed: h.error.is_some(),
                text: body,
                file: fi,
                line: li,
            })
        })
        .collect::<Result<_, SweepError>>()?;
    found.par_sort_by_key(|f| f.key);
    let mut unique: Vec<&Found> = Vec::with_capacity(found.len());
    for f in &found {
        match unique.last() {
            Some(u) if u.key == f.key => {
                if u.text != f.text {
                    let point = serde_json::from_str::<serde_json::Value>(u.text)
                        .ok()
                        .and_then(|v| v.get("point").map(|p| p.to_string()))
                        .unwrap_or_default();
                    return Err(data_err(
                        &files,
                        f.file,
                        f.line,
                        format!(
                            "point {} {point} has two different results ({} and here): the runs disagree; remove the wrong one",
                            key_text(f.key),
                            place(u.file, u.line)
                        ),
                    ));
                }
                report.identical_duplicates += 1;
            }
            _ => unique.push(f),
        }
    }
    report.points = unique.len();
    report.failed = unique.iter().filter(|f| f.failed).count();

    // The shard count of the files; --shards may only say what their names say (else the
    // shards named to resubmit would be the wrong ones).
    let shard_of = |f: &Path| f.file_name()?.to_str().and_then(parse_file_name);
    let counts: BTreeSet<u64> = files
        .iter()
        .filter_map(|f| shard_of(f))
        .map(|s| s.count)
        .collect();
    if let Some(n) = req.shards {
        if let Some(f) = files
            .iter()
            .find(|f| shard_of(f).is_some_and(|s| s.count != n))
        {
            return Err(SweepError::Usage(format!(
                "--shards {n} contradicts the shard files, written for {} shards ({}): drop --shards, or merge the output of a {n}-shard run",
                counts.iter().map(u64::to_string).collect::<Vec<_>>().join(" and "),
                f.display()
            )));
        }
    }
    report.shard_count = req.shards.or_else(|| {
        if counts.len() == 1 {
            counts.first().copied()
        } else {
            None
        }
    });

    // The points' places in the grid file's order (with a grid), for the CSV's rows.
    let mut file_order: HashMap<u64, usize> = HashMap::new();
    if let Some(grid) = req.grid {
        let points = grid.points()?;
        file_order = points
            .iter()
            .map(|p| (p.key, grid.file_position(p)))
            .collect();
        let pos: HashMap<u64, usize> = points.iter().enumerate().map(|(i, p)| (p.key, i)).collect();
        if let Some(f) = unique.iter().find(|f| !pos.contains_key(&f.key)) {
            return Err(data_err(
                &files,
                f.file,
                f.line,
                format!(
                    "point {} is not a point of {} (another grid's output, or the grid was changed)",
                    key_text(f.key),
                    grid.path
                ),
            ));
        }
        // Every line of shard i of n is a point at a grid position ≡ i (mod n): a file whose
        // name and contents disagree (renamed, or another run's) would name wrong shards.
        for f in &found {
            let (Some(sh), Some(&at)) = (shard_of(&files[f.file]), pos.get(&f.key)) else {
                continue;
            };
            if !sh.takes(at) {
                return Err(data_err(
                    &files,
                    f.file,
                    f.line,
                    format!(
                        "point {} is at position {at} of {}'s {} points, which shard {sh} does not hold (its name and its contents disagree: renamed, or written for another shard count)",
                        key_text(f.key),
                        grid.path,
                        points.len()
                    ),
                ));
            }
        }
        report.grid_points = Some(points.len());
        let have: std::collections::HashSet<u64> = unique.iter().map(|f| f.key).collect();
        let missing: Vec<usize> = (0..points.len())
            .filter(|&i| !have.contains(&points[i].key))
            .collect();
        report.missing = Some(missing.len());
        if !missing.is_empty() {
            let n = report.shard_count.ok_or_else(|| {
                SweepError::Usage(format!(
                    "{} points are missing, and the shard count is not known from the file names ({}): give --shards N",
                    missing.len(),
                    if counts.is_empty() {
                        "none is a shard file".to_string()
                    } else {
                        format!("they say {}", counts.iter().map(u64::to_string).collect::<Vec<_>>().join(" and "))
                    }
                ))
            })?;
            let ids: BTreeSet<u64> = missing.iter().map(|&i| i as u64 % n).collect();
            report.missing_shards = ids.into_iter().collect();
        }
    } else if let Some(n) = report.shard_count {
        let present: BTreeSet<u64> = files
            .iter()
            .filter_map(|f| f.file_name()?.to_str().and_then(parse_file_name))
            .filter(|s| s.count == n)
            .map(|s| s.index)
            .collect();
        report.missing_shards = (0..n).filter(|i| !present.contains(i)).collect();
    }

    // The JSONL.
    write_atomic(req.out, |w| {
        for f in &unique {
            w.write_all(f.text.as_bytes())?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })?;
    report.out = req.out.to_path_buf();

    // The CSV's rows: in the grid file's order (its axes crossed in order, the last one
    // fastest) with the grid, else in key order.
    let mut rows: Vec<&Found> = unique.clone();
    if !file_order.is_empty() {
        rows.sort_by_key(|f| file_order.get(&f.key).copied().unwrap_or(usize::MAX));
    }
    // One streaming read of every line into its chunk's cells (super::csv), in parallel.
    let chunks: Vec<super::csv::Chunk> = rows
        .par_chunks(CSV_CHUNK)
        .map(|c| {
            let lines: Vec<&str> = c.iter().map(|f| f.text).collect();
            super::csv::parse_chunk(&lines)
        })
        .collect();
    // The columns: the key, the grid variables in the file's order (without a grid, in the
    // order the lines give them), the status, the record's fields (`result.…`, in order of
    // first appearance, a vector's elements side by side), then the error's fields. A
    // variable or record column holding a number beyond f64's range is followed by its
    // `log10_` column.
    let under = |c: &str, top: &str| {
        c.strip_prefix(top)
            .is_some_and(|r| r.is_empty() || r.starts_with('.') || r.starts_with('['))
    };
    let is_var = |c: &str| c != "status" && !under(c, "result") && !under(c, "error");
    let vars: Vec<String> = match req.grid {
        Some(g) => g
            .vars_in_file_order()
            .into_iter()
            .map(String::from)
            .collect(),
        None => {
            let mut v: Vec<String> = Vec::new();
            for c in chunks.iter().flat_map(|ch| ch.cols.iter()) {
                if is_var(c) && !v.contains(c) {
                    v.push(c.clone());
                }
            }
            v
        }
    };
    let mut fields: Vec<String> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for c in chunks.iter().flat_map(|ch| ch.cols.iter()) {
        if is_var(c) || c == "status" || !seen.insert(c.as_str()) {
            continue;
        }
        if under(c, "error") {
            errors.push(c.clone());
        } else {
            fields.push(c.clone());
        }
    }
    // A vector's columns side by side, in index order (`cutoffs[0]`, `cutoffs[1]`), where
    // its name first appears.
    let mut first: HashMap<String, usize> = HashMap::new();
    for (i, c) in fields.iter().enumerate() {
        first.entry(base_name(c)).or_insert(i);
    }
    fields.sort_by_cached_key(|c| (first[&base_name(c)], indices(c)));
    errors.sort();
    // The columns holding a number beyond f64's range (one pass, in parallel).
    let wide: BTreeSet<&str> = rows
        .par_chunks(CSV_CHUNK)
        .zip(chunks.par_iter())
        .map(|(c, ch)| {
            let lines: Vec<&str> = c.iter().map(|f| f.text).collect();
            let mut w = BTreeSet::new();
            for row in ch.rows(&lines) {
                for (k, v) in row {
                    if super::csv::beyond_f64(v) {
                        w.insert(ch.cols[k as usize].as_str());
                    }
                }
            }
            w
        })
        .reduce(BTreeSet::new, |mut a, b| {
            a.extend(b);
            a
        });
    // Every name a line gives: a log10_ column never takes one of them.
    let taken: std::collections::HashSet<&str> = vars
        .iter()
        .chain(&fields)
        .chain(&errors)
        .map(String::as_str)
        .chain(["key", "status"])
        .collect();
    let mut cols: Vec<String> = vec!["key".into()];
    let mut index: HashMap<String, usize> = HashMap::new();
    // where a column's log10_ column is
    let mut log_of: HashMap<String, usize> = HashMap::new();
    let mut add = |c: &str, with_log: bool, cols: &mut Vec<String>| {
        index.insert(c.to_string(), cols.len());
        cols.push(c.to_string());
        let name = super::csv::log10_name(c);
        if with_log && wide.contains(c) && !taken.contains(name.as_str()) {
            log_of.insert(c.to_string(), cols.len());
            cols.push(name);
        }
    };
    for v in &vars {
        add(v, true, &mut cols);
    }
    add("status", false, &mut cols);
    for c in &fields {
        add(c, true, &mut cols);
    }
    for c in &errors {
        add(c, false, &mut cols);
    }
    let csv_path = req
        .csv
        .map(Path::to_path_buf)
        .unwrap_or_else(|| req.out.with_extension("csv"));
    let render = |(c, ch): (&[&Found], &super::csv::Chunk)| {
        // The chunk's columns' places in the CSV (a variable of a line that the grid does not
        // name has none), and of their log10_ columns.
        let place: Vec<Option<usize>> = ch.cols.iter().map(|k| index.get(k).copied()).collect();
        let log_place: Vec<Option<usize>> =
            ch.cols.iter().map(|k| log_of.get(k).copied()).collect();
        let lines: Vec<&str> = c.iter().map(|f| f.text).collect();
        let mut s = String::new();
        let mut cells: Vec<std::borrow::Cow<str>> =
            vec![std::borrow::Cow::Borrowed(""); cols.len()];
        for (f, row) in c.iter().zip(ch.rows(&lines)) {
            cells.fill(std::borrow::Cow::Borrowed(""));
            for (k, v) in row {
                if let Some(i) = place[k as usize] {
                    cells[i] = std::borrow::Cow::Borrowed(v);
                }
                if let Some(i) = log_place[k as usize] {
                    cells[i] =
                        std::borrow::Cow::Owned(super::csv::log10_text(v).unwrap_or_default());
                }
            }
            s.push_str(&key_text(f.key));
            for v in &cells[1..] {
                s.push(',');
                push_cell(&mut s, v);
            }
            s.push('\n');
        }
        s
    };
    write_atomic(&csv_path, |w| {
        let header: Vec<String> = cols.iter().map(|c| cell(c)).collect();
        w.write_all(header.join(",").as_bytes())?;
        w.write_all(b"\n")?;
        // Rendered in parallel a batch of chunks at a time and written as each batch is
        // done, so the CSV's text is never all in memory at once.
        let line_chunks: Vec<&[&Found]> = rows.chunks(CSV_CHUNK).collect();
        for (lc, cc) in line_chunks
            .chunks(CSV_BATCH_CHUNKS)
            .zip(chunks.chunks(CSV_BATCH_CHUNKS))
        {
            let texts: Vec<String> = lc
                .par_iter()
                .zip(cc.par_iter())
                .map(|(c, ch)| render((c, ch)))
                .collect();
            for t in &texts {
                w.write_all(t.as_bytes())?;
            }
        }
        Ok(())
    })?;
    report.csv = csv_path;
    Ok(report)
}
