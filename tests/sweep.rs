//! The sweep contract (issue 13; ARCHITECTURE.md, "Sweeps"), end to end through the
//! binary:
//!
//! * a sweep cut into n = 1, 3, 7 shards merges to the same bytes (JSONL and CSV) as the
//!   unsharded run, and each point's record is the command's own JSON output;
//! * a shard SIGKILLed at random points and resumed loses nothing and duplicates nothing,
//!   and an incomplete last line is cut off;
//! * merge reports missing points (with the shard ids to rerun) and conflicting lines;
//! * the numbers do not depend on the thread count, and a simulated point's streams are
//!   seeded from (seed, key, replication);
//! * a failing point is a line with its class, not retried;
//! * a malformed grid exits 2 with one line naming the file, the line and the key.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_taskassign");
/// Exit status of bad input (ARCHITECTURE.md, "Errors and exit statuses").
const EXIT_BAD_INPUT: i32 = 2;
/// Exit status of merge --grid while points are missing.
const EXIT_MISSING: i32 = 1;
/// Kills a resume test must really land (the process still running when killed).
const MIN_KILLS: usize = 3;
/// Most rounds of kill and resume before the test gives up.
const MAX_ROUNDS: usize = 60;
/// Longest wait for a shard to write its next lines.
const LINE_WAIT: Duration = Duration::from_secs(60);

fn run(args: &[&str]) -> Output {
    Command::new(EXE)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8")
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// 36 evaluations (about 0.1 ms each): SITA and TAGS × α × cutoff × load.
const EVAL_GRID: &str = r#"
command = "eval"
[options]
policy = "{policy}"
dist = "bp:k=1,p=1e4,alpha={alpha}"
hosts = 2
load = "{load}"
cutoffs = "{s}"
digits = 12
[grid]
policy = ["sita", "tags"]
alpha = ["0.5", "1", "1.5"]
s = ["10", "100"]
load = { from = "0.2", to = "0.6", step = "0.2" }
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let f = dir.join(name);
    std::fs::write(&f, text).expect("write");
    f
}

/// Merges `dirs` into `out` (and `out`.csv), returns the two files' bytes.
fn merged(dirs: &[&Path], grid: &Path, out: &Path) -> (Vec<u8>, Vec<u8>) {
    let mut args = vec!["merge"];
    args.extend(dirs.iter().map(|d| p(d)));
    args.extend(["--grid", p(grid), "--out", p(out)]);
    ok(&args);
    (
        std::fs::read(out).expect("jsonl"),
        std::fs::read(out.with_extension("csv")).expect("csv"),
    )
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("read")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn sharded_runs_merge_to_the_unsharded_bytes() {
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(t.path(), "g.toml", EVAL_GRID);
    let whole = t.path().join("whole");
    ok(&["sweep", p(&g), "--out", p(&whole), "--threads", "2"]);
    let reference = merged(&[&whole], &g, &t.path().join("whole.jsonl"));
    let recs = lines(&t.path().join("whole.jsonl"));
    assert_eq!(recs.len(), 36);
    let keys: Vec<&str> = recs
        .iter()
        .map(|r| r["key"].as_str().expect("key"))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(keys, sorted, "sorted by key, no duplicates");
    for n in [1usize, 3, 7] {
        let d = t.path().join(format!("n{n}"));
        for i in 0..n {
            ok(&[
                "sweep",
                p(&g),
                "--shard",
                &format!("{i}/{n}"),
                "--out",
                p(&d),
                "--threads",
                "1",
            ]);
        }
        let files = std::fs::read_dir(&d).expect("dir").count();
        assert_eq!(files, n, "one file per shard");
        let m = merged(&[&d], &g, &t.path().join(format!("n{n}.jsonl")));
        assert!(
            m.0 == reference.0,
            "JSONL of {n} shards differs from the unsharded run"
        );
        assert!(
            m.1 == reference.1,
            "CSV of {n} shards differs from the unsharded run"
        );
    }
    // Each record is the command's own JSON output for the point's arguments.
    for r in recs.iter().take(4) {
        let pt = &r["point"];
        let s = |k: &str| pt[k].as_str().expect("point value").to_string();
        let out = ok(&[
            "eval",
            "--policy",
            &s("policy"),
            "--dist",
            &format!("bp:k=1,p=1e4,alpha={}", s("alpha")),
            "--hosts",
            "2",
            "--load",
            &s("load"),
            "--cutoffs",
            &s("s"),
            "--digits",
            "12",
            "--format",
            "json",
        ]);
        let alone: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(r["result"], alone, "point {pt}");
    }
    // The CSV: a header and one row per point, the variables after the key in the grid
    // file's order (policy, alpha, s, load), the record's fields under `result.`, and the
    // rows in the grid's order (its axes crossed as written, load fastest).
    let csv = String::from_utf8(reference.1).expect("utf-8");
    let mut rows = csv.lines();
    let header = rows.next().expect("header");
    assert!(
        header.starts_with("key,policy,alpha,s,load,status,result."),
        "{header}"
    );
    let first: Vec<Vec<&str>> = rows
        .clone()
        .take(4)
        .map(|r| r.split(',').skip(1).take(4).collect())
        .collect();
    assert_eq!(
        first,
        [
            ["sita", "0.5", "10", "0.2"],
            ["sita", "0.5", "10", "0.4"],
            ["sita", "0.5", "10", "0.6"],
            ["sita", "0.5", "100", "0.2"]
        ]
    );
    assert_eq!(rows.count(), 36);
}

/// 64 optimisations of about 1–10 ms each.
const OPT_GRID: &str = r#"
command = "optimize"
[options]
policy = "tags"
dist = "bp:k=1,p=1e6,alpha={alpha}"
hosts = "{h}"
load = "{load}"
digits = 25
[grid]
alpha = { from = "0.5", to = "2.25", step = "0.25" }
h = [2, 3]
load = ["0.3", "0.5", "0.7", "0.9"]
"#;

fn count_lines(f: &Path) -> usize {
    std::fs::read(f).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

#[test]
fn a_shard_killed_at_random_points_resumes_without_loss_or_duplicates() {
    use rand::{Rng, SeedableRng};
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(t.path(), "g.toml", OPT_GRID);
    let whole = t.path().join("whole");
    ok(&["sweep", p(&g), "--out", p(&whole), "--threads", "2"]);
    let reference = merged(&[&whole], &g, &t.path().join("whole.jsonl"));
    let total = lines(&t.path().join("whole.jsonl")).len();
    assert_eq!(total, 64);

    let seed: u64 = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    eprintln!("kill schedule seed {seed}");
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let d = t.path().join("killed");
    let file = d.join("shard-000000-of-000001.jsonl");
    let mut kills = 0;
    let mut finished = false;
    for _ in 0..MAX_ROUNDS {
        let before = count_lines(&file);
        let target = before + rng.random_range(1..=8);
        let mut child = Command::new(EXE)
            .args(["sweep", p(&g), "--out", p(&d), "--resume", "--threads", "1"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let start = Instant::now();
        let exited = loop {
            if let Some(st) = child.try_wait().expect("wait") {
                assert!(st.success(), "a resumed shard failed");
                break true;
            }
            if count_lines(&file) >= target || start.elapsed() > LINE_WAIT {
                break false;
            }
            std::thread::sleep(Duration::from_micros(300));
        };
        if exited {
            finished = true;
            break;
        }
        child.kill().expect("SIGKILL"); // std's kill is SIGKILL on Unix
        child.wait().expect("reaped");
        kills += 1;
    }
    assert!(finished, "the shard never finished");
    assert!(kills >= MIN_KILLS, "only {kills} kills landed mid-run");
    let killed = lines(&file);
    assert_eq!(
        killed.len(),
        total,
        "every point once: nothing lost, nothing duplicated"
    );
    let m = merged(&[&d], &g, &t.path().join("killed.jsonl"));
    assert!(
        m.0 == reference.0 && m.1 == reference.1,
        "resumed run differs from the reference"
    );

    // A torn last line (a writer killed inside its write): the last line cut in half.
    let text = std::fs::read_to_string(&file).expect("read");
    let body = text.trim_end_matches('\n');
    let cut = body.rfind('\n').map_or(0, |i| i + 1);
    let half = cut + (body.len() - cut) / 2;
    std::fs::write(&file, &text[..half]).expect("tear");
    let o = run(&[
        "merge",
        p(&d),
        "--grid",
        p(&g),
        "--out",
        p(&t.path().join("torn.jsonl")),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(EXIT_MISSING));
    let rep: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(rep["incomplete_lines"], 1);
    assert_eq!(rep["missing"], 1);
    assert_eq!(rep["missing_shards"], "0");
    let out = ok(&[
        "sweep",
        p(&g),
        "--out",
        p(&d),
        "--resume",
        "--format",
        "json",
    ]);
    let s: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(s["computed"], 1);
    assert_eq!(s["already_done"], total as u64 - 1);
    assert_eq!(s["discarded_bytes"], (half - cut) as u64);
    let m = merged(&[&d], &g, &t.path().join("healed.jsonl"));
    assert!(
        m.0 == reference.0,
        "the healed shard differs from the reference"
    );
    eprintln!(
        "{kills} kills landed; torn line of {} bytes discarded",
        half - cut
    );
}

#[test]
fn merge_reports_missing_and_conflicting_points() {
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(t.path(), "g.toml", EVAL_GRID);
    let d = t.path().join("d");
    for i in [0, 2, 3] {
        ok(&["sweep", p(&g), "--shard", &format!("{i}/4"), "--out", p(&d)]);
    }
    let out = t.path().join("m.jsonl");
    // Shard 1 never ran: 9 of the 36 points are missing.
    let o = run(&[
        "merge",
        p(&d),
        "--grid",
        p(&g),
        "--out",
        p(&out),
        "--format",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(EXIT_MISSING),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(r["missing"], 9);
    assert_eq!(r["missing_shards"], "1");
    assert_eq!(r["points"], 27);
    // Without the grid, the absent shard file is reported; the merge itself succeeds.
    let r: Value =
        serde_json::from_str(&ok(&["merge", p(&d), "--out", p(&out), "--format", "json"]))
            .expect("json");
    assert_eq!(r["missing_shards"], "1");
    // One point of shard 3 lost too: shards 1 and 3 to rerun.
    let f3 = d.join("shard-000003-of-000004.jsonl");
    let text = std::fs::read_to_string(&f3).expect("read");
    let (first, rest) = text.split_once('\n').expect("lines");
    std::fs::write(&f3, rest).expect("write");
    let o = run(&[
        "merge",
        p(&d),
        "--grid",
        p(&g),
        "--out",
        p(&out),
        "--format",
        "shards",
    ]);
    assert_eq!(o.status.code(), Some(EXIT_MISSING));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "1,3\n");
    // Rerunning exactly those shards completes the sweep.
    for i in [1, 3] {
        ok(&[
            "sweep",
            p(&g),
            "--shard",
            &format!("{i}/4"),
            "--out",
            p(&d),
            "--resume",
        ]);
    }
    let o = run(&[
        "merge",
        p(&d),
        "--grid",
        p(&g),
        "--out",
        p(&out),
        "--format",
        "shards",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "\n");

    // An identical copy merges silently.
    let copy = t.path().join("copy");
    std::fs::create_dir(&copy).expect("mkdir");
    std::fs::write(
        copy.join("shard-000003-of-000004.jsonl"),
        format!("{first}\n"),
    )
    .expect("write");
    let r: Value = serde_json::from_str(&ok(&[
        "merge",
        p(&d),
        p(&copy),
        "--grid",
        p(&g),
        "--out",
        p(&out),
        "--format",
        "json",
    ]))
    .expect("json");
    assert_eq!(r["identical_duplicates"], 1);
    assert_eq!(r["points"], 36);
    // A copy that disagrees is an error naming the point, and writes nothing.
    let key = serde_json::from_str::<Value>(first).expect("json")["key"]
        .as_str()
        .expect("key")
        .to_string();
    let changed = first.replacen("\"value\":\"", "\"value\":\"9", 1);
    assert_ne!(changed, first);
    std::fs::write(
        copy.join("shard-000003-of-000004.jsonl"),
        format!("{changed}\n"),
    )
    .expect("write");
    let out2 = t.path().join("conflict.jsonl");
    let o = run(&["merge", p(&d), p(&copy), "--out", p(&out2)]);
    assert_eq!(o.status.code(), Some(EXIT_BAD_INPUT));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&key) && err.contains("two different results"),
        "{err}"
    );
    assert!(!out2.exists(), "a failed merge writes nothing");
}

const SIM_GRID: &str = r#"
command = "simulate"
[options]
policy = "sita"
dist = "exp:rate=1"
hosts = 2
load = "{load}"
cutoffs = "{s}"
jobs = "3000"
replications = 4
threads = 1
[grid]
load = ["0.5", "0.9"]
s = ["0.7", "1.5"]
"#;

#[test]
fn simulations_do_not_depend_on_threads_or_shards_and_draw_from_the_key() {
    let t = tempfile::tempdir().expect("tempdir");
    let g1 = write(t.path(), "g1.toml", SIM_GRID);
    let a = t.path().join("a");
    ok(&["sweep", p(&g1), "--out", p(&a), "--threads", "1"]);
    let (ja, _) = merged(&[&a], &g1, &t.path().join("a.jsonl"));
    // Points two at a time, in two shards.
    let b = t.path().join("b");
    ok(&[
        "sweep",
        p(&g1),
        "--shard",
        "0/2",
        "--out",
        p(&b),
        "--threads",
        "2",
    ]);
    ok(&[
        "sweep",
        p(&g1),
        "--shard",
        "1/2",
        "--out",
        p(&b),
        "--threads",
        "2",
    ]);
    let (jb, _) = merged(&[&b], &g1, &t.path().join("b.jsonl"));
    assert!(ja == jb, "sweep threads or shards changed a simulation");
    // The simulator's own threads: not part of the key, and no change to a number.
    let g2 = write(
        t.path(),
        "g2.toml",
        &SIM_GRID.replace("threads = 1", "threads = 2"),
    );
    let c = t.path().join("c");
    ok(&["sweep", p(&g2), "--out", p(&c)]);
    let (jc, _) = merged(&[&c], &g2, &t.path().join("c.jsonl"));
    assert!(ja == jc, "simulate --threads changed a simulation");

    // A point's streams are (seed, key, replication): the standalone command with
    // --point KEY prints the same record.
    let ra = lines(&t.path().join("a.jsonl"));
    assert_eq!(ra.len(), 4);
    let r = &ra[0];
    let key = u64::from_str_radix(r["key"].as_str().expect("key"), 16).expect("hex");
    let pt = &r["point"];
    let args = |point: &str| -> Vec<String> {
        let mut v: Vec<String> = [
            "simulate",
            "--policy",
            "sita",
            "--dist",
            "exp:rate=1",
            "--hosts",
            "2",
            "--load",
            pt["load"].as_str().expect("load"),
            "--cutoffs",
            pt["s"].as_str().expect("s"),
            "--jobs",
            "3000",
            "--replications",
            "4",
            "--format",
            "json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(["--point".to_string(), point.to_string()]);
        v
    };
    let run_s = |point: &str| -> Value {
        let a = args(point);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        serde_json::from_str(&ok(&a)).expect("json")
    };
    assert_eq!(r["result"], run_s(&key.to_string()));
    // And the points do draw streams of their own: point 0 differs.
    assert_ne!(r["result"]["waiting"], run_s("0")["waiting"]);
}

#[test]
fn a_failing_point_is_a_line_with_its_class_and_is_not_retried() {
    let t = tempfile::tempdir().expect("tempdir");
    // exp(1) on 2 hosts: TAGS is stable up to 1.4659… (README, `threshold`), so load 1.8
    // is bad input (exit 2) and load 0.5 is fine.
    let g = write(
        t.path(),
        "g.toml",
        "command = \"optimize\"\n[options]\npolicy = \"tags\"\ndist = \"exp:rate=1\"\nhosts = 2\nload = \"{load}\"\ndigits = 10\n[grid]\nload = [\"0.5\", \"1.8\"]\n",
    );
    let d = t.path().join("d");
    let s: Value = serde_json::from_str(&ok(&["sweep", p(&g), "--out", p(&d), "--format", "json"]))
        .expect("json");
    assert_eq!(s["failed"], 1);
    let recs = lines(&d.join("shard-000000-of-000001.jsonl"));
    let bad = recs
        .iter()
        .find(|r| r["point"]["load"] == "1.8")
        .expect("the failing point has a line");
    assert_eq!(bad["error"]["class"], "input");
    assert_eq!(bad["error"]["exit"], EXIT_BAD_INPUT);
    assert!(
        bad["error"]["message"]
            .as_str()
            .expect("message")
            .contains("1.4659"),
        "{bad}"
    );
    assert!(bad.get("result").is_none());
    let s: Value = serde_json::from_str(&ok(&[
        "sweep",
        p(&g),
        "--out",
        p(&d),
        "--resume",
        "--format",
        "json",
    ]))
    .expect("json");
    assert_eq!(s["computed"], 0, "a failure is final");
    let r: Value = serde_json::from_str(&ok(&[
        "merge",
        p(&d),
        "--grid",
        p(&g),
        "--out",
        p(&t.path().join("m.jsonl")),
        "--format",
        "json",
    ]))
    .expect("json");
    assert_eq!(r["failed"], 1);
    assert_eq!(r["missing"], 0);
    let csv = std::fs::read_to_string(t.path().join("m.csv")).expect("csv");
    assert!(csv
        .lines()
        .next()
        .expect("header")
        .ends_with("error.class,error.exit,error.message"));
    // A shard file with lines is not overwritten without --resume.
    let o = run(&["sweep", p(&g), "--out", p(&d)]);
    assert_eq!(o.status.code(), Some(EXIT_BAD_INPUT));
}

#[test]
fn malformed_grids_exit_2_naming_file_line_and_key() {
    let t = tempfile::tempdir().expect("tempdir");
    let head = "command = \"optimize\"\n[options]\npolicy = \"tags\"\ndist = \"exp:rate=1\"\n";
    let cases: &[(&str, &str, &str)] = &[
        // (grid text, "LINE: KEY" expected, a word of the reason)
        (&format!("{head}hosts = \"{{h}}\"\nload = \"0.5\"\n[grid]\nh = [2.5]\n"), ":8: grid.h:", "TOML float"),
        (&format!("{head}hots = \"2\"\nload = \"0.5\"\n"), ":5: options.hots:", "no option --hots"),
        (&format!("{head}hosts = \"{{x}}\"\nload = \"0.5\"\n[grid]\nh = [2]\n"), ":5: options.hosts:", "not a grid variable"),
        (&format!("{head}hosts = \"2\"\nload = \"0.5\"\nformat = \"text\"\n"), ":7: options.format:", "--format json"),
        (&format!("{head}hosts = \"2\"\nload = \"{{l}}\"\n[grid]\nl = []\n"), ":8: grid.l:", "empty axis"),
        (&format!("{head}hosts = \"{{h}}\"\nload = \"{{l}}\"\n[[zip]]\nh = [2, 3]\nl = [\"0.5\"]\n"), ":9: zip[0].l:", "equal lengths"),
        (&format!("{head}hosts = \"{{h}}\"\nload = \"0.5\"\n[grid]\nh = {{ from = 2, to = 3 }}\n"), ":8: grid.h:", "per_decade"),
        ("command = \"optimise\"\n", ":1: command:", "unknown command"),
        ("command = \"check\"\n", ":1: command:", "cannot be swept"),
        ("command = \"eval\"\n[grid\n", ":2: (document):", ""),
        ("quantity = \"opt(tags).valu\"\n[setup]\ndist = \"exp:rate=1\"\nhosts = \"2\"\nload = \"0.5\"\n", ":1: quantity:", "valu"),
    ];
    for (text, at, why) in cases {
        let g = write(t.path(), "bad.toml", text);
        let o = run(&["sweep", p(&g), "--plan", "--calibrate", "0"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(EXIT_BAD_INPUT), "{text}\n{err}");
        assert!(o.stdout.is_empty());
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(
            err.contains(&format!("bad.toml{at}")),
            "expected '{at}' in: {err}"
        );
        assert!(err.contains(why), "expected '{why}' in: {err}");
    }
    let g = write(t.path(), "g.toml", EVAL_GRID);
    for shard in ["3/3", "1/0", "a/b"] {
        let o = run(&[
            "sweep",
            p(&g),
            "--shard",
            shard,
            "--out",
            p(&t.path().join("x")),
        ]);
        assert_eq!(o.status.code(), Some(EXIT_BAD_INPUT), "--shard {shard}");
    }
}

#[test]
fn plan_counts_points_and_prints_both_engines() {
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(t.path(), "g.toml", EVAL_GRID);
    let r: Value = serde_json::from_str(&ok(&[
        "sweep",
        p(&g),
        "--plan",
        "--calibrate",
        "2",
        "--shards",
        "5",
        "--out",
        "OUT",
        "--format",
        "json",
    ]))
    .expect("json");
    assert_eq!(r["points"], 36);
    assert_eq!(r["shards"], 5);
    assert_eq!(r["calibration_points"], 2);
    let slurm = r["slurm"].as_str().expect("slurm");
    assert!(
        slurm.contains("sbatch --array=0-4") && slurm.ends_with(" OUT 5"),
        "{slurm}"
    );
    assert!(r["slurm_resubmit"]
        .as_str()
        .expect("resubmit")
        .contains("--format shards"));
    let par = r["parallel"].as_str().expect("parallel");
    assert!(
        par.contains("--joblog") && par.contains("--resume-failed") && par.contains("$(seq 0 4)"),
        "{par}"
    );
    // Planning computes nothing but the calibration points.
    assert!(!Path::new("OUT").exists());
    // Slurm: at most 100 tasks at once (the default throttle), and a time limit from the
    // calibration by the rule README and sweep.sbatch state: 3 × (8 points of the 36 in
    // each of 5 shards) × the measured seconds per point + 300 s, rounded up to the minute.
    assert!(slurm.contains("--array=0-4%100 "), "{slurm}");
    let time = r["slurm_time"].as_str().expect("slurm_time");
    assert!(slurm.contains(&format!(" --time={time} ")), "{slurm}");
    let secs = slurm_seconds(time);
    let per_point: f64 = r["seconds_per_point"]
        .as_str()
        .expect("seconds_per_point")
        .parse()
        .expect("a number");
    let want = 3.0 * 8.0 * per_point + 300.0;
    assert!(
        secs >= want && secs < want + 60.0 && secs % 60.0 == 0.0,
        "{time}: {secs} s for {want} s"
    );
    assert!(r["slurm_resubmit"]
        .as_str()
        .expect("resubmit")
        .contains("--array=\"$ids\"%100 --time="));
}

/// Seconds of a Slurm `D-HH:MM:SS` time.
fn slurm_seconds(t: &str) -> f64 {
    let (d, hms) = t.split_once('-').expect("D-HH:MM:SS");
    let f: Vec<f64> = hms
        .split(':')
        .map(|x| x.parse().expect("a number"))
        .collect();
    assert_eq!(f.len(), 3, "{t}");
    d.parse::<f64>().expect("days") * 86400.0 + f[0] * 3600.0 + f[1] * 60.0 + f[2]
}

#[test]
fn plan_throttles_the_array_and_packs_shards_per_task() {
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(t.path(), "g.toml", EVAL_GRID);
    let plan = |extra: &[&str]| -> Value {
        let mut args = vec!["sweep", p(&g), "--plan", "--out", "OUT", "--format", "json"];
        args.extend(extra);
        serde_json::from_str(&ok(&args)).expect("json")
    };
    // no point timed: no --time (the site's default), and the plan says so
    let r = plan(&["--calibrate", "0", "--shards", "5", "--throttle", "7"]);
    let slurm = r["slurm"].as_str().expect("slurm");
    assert!(
        slurm.contains("--array=0-4%7 ") && !slurm.contains("--time"),
        "{slurm}"
    );
    assert!(r["slurm_time"]
        .as_str()
        .expect("slurm_time")
        .starts_with("not set"));
    // 5 shards packed 2 a task: tasks 0-2 of 2 CPUs each; the script gets K = 2
    let r = plan(&["--calibrate", "1", "--shards", "5", "--pack", "2"]);
    assert_eq!(r["slurm_tasks"], 3);
    let slurm = r["slurm"].as_str().expect("slurm");
    assert!(
        slurm.contains("--array=0-2%100 ")
            && slurm.contains(" --cpus-per-task=2 ")
            && slurm.ends_with(" OUT 5 2"),
        "{slurm}"
    );
    // the resubmission maps the missing shards to their tasks (shard s is in task s / 2):
    // run its id pipeline on the shard list merge would print
    let re = r["slurm_resubmit"].as_str().expect("resubmit");
    let pipe = re
        .split_once("--format shards")
        .and_then(|(_, rest)| rest.split_once(");"))
        .map(|(p, _)| p)
        .expect("the id pipeline");
    for (shards, tasks) in [("1,2,4", "0,1,2"), ("3", "1"), ("", "")] {
        let o = Command::new("bash")
            .arg("-c")
            .arg(format!("echo '{shards}' {pipe}"))
            .output()
            .expect("bash runs");
        assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), tasks, "{shards}");
    }
    for bad in [["--throttle", "0"], ["--pack", "0"]] {
        let o = run(&["sweep", p(&g), "--plan", "--calibrate", "0", bad[0], bad[1]]);
        assert_eq!(o.status.code(), Some(EXIT_BAD_INPUT), "{bad:?}");
    }
}

#[test]
fn the_batch_script_runs_a_packed_task_through_gnu_parallel() {
    // examples/slurm/sweep.sbatch outside Slurm: task 1 of shards packed 2 a task runs
    // shards 2 and 3 of 5 (GNU parallel, which make test's deps install) and nothing else;
    // task 2 holds shard 4 only; task 3 holds none and is refused
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(t.path(), "g.toml", EVAL_GRID);
    let d = t.path().join("out");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/slurm/sweep.sbatch");
    let task = |i: &str| {
        Command::new("bash")
            .arg(&script)
            .args([p(&g), p(&d), "5", "2"])
            .env("SLURM_ARRAY_TASK_ID", i)
            .env("SLURM_CPUS_PER_TASK", "2")
            .env("TASKASSIGN", EXE)
            .output()
            .expect("bash runs")
    };
    for i in ["1", "2"] {
        let o = task(i);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let mut files: Vec<String> = std::fs::read_dir(&d)
        .expect("out")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "shard-000002-of-000005.jsonl",
            "shard-000003-of-000005.jsonl",
            "shard-000004-of-000005.jsonl"
        ]
    );
    // 36 points in 5 shards: shards 2 and 3 hold 7 each (positions 2, 7, …, 32 and
    // 3, 8, …, 33), shard 4 holds 7 (4, 9, …, 34)
    for f in &files {
        assert_eq!(lines(&d.join(f)).len(), 7, "{f}");
    }
    let o = task("3");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds no shard"));
}

#[test]
fn the_readme_example_grid_has_20000_points() {
    // README, "Sweeps": 2 policies × 10 alphas (0.5, 0.7, …, 2.3) × 5 values of p × 4 host
    // counts × 50 loads per host (0.01, 0.03, …, 0.99) = 20 000, counted by hand.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let g = root.join("examples/sweeps/tags-sita.toml");
    let r: Value = serde_json::from_str(&ok(&[
        "sweep",
        p(&g),
        "--plan",
        "--calibrate",
        "0",
        "--shards",
        "8",
        "--format",
        "json",
    ]))
    .expect("json");
    assert_eq!(r["points"], 20_000);
    assert_eq!(r["points_per_shard"], 2_500);
    assert_eq!(
        r["variables"],
        serde_json::json!(["alpha", "h", "p", "policy", "rho"])
    );
}

/// The cells of one CSV line (RFC 4180: a quoted cell may hold commas and doubled quotes;
/// no cell of these grids holds a line break).
fn csv_split(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().expect("a cell").push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(String::new()),
            (c, _) => out.last_mut().expect("a cell").push(c),
        }
    }
    out
}

/// A CSV's rows as key → (column → cell), for comparing two CSVs whatever their order.
fn csv_cells(
    csv: &str,
) -> std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>> {
    let mut lines = csv.lines();
    let header = csv_split(lines.next().expect("a header"));
    lines
        .map(|l| {
            let cells = csv_split(l);
            let row = header.iter().cloned().zip(cells.iter().cloned()).collect();
            (cells[0].clone(), row)
        })
        .collect()
}

#[test]
fn merge_without_the_grid_writes_the_same_files_and_counts() {
    // Without --grid the CSV's variable columns come from the lines' "point" objects and
    // the failures from their "error" fields; with --grid from the grid file. The JSONL
    // is the same bytes; the CSV has the same rows and cells, in key order and with the
    // variables in the lines' order (sorted by name) instead of the grid file's orders. A
    // grid whose TAGS points at load 1.8 on exp(1) fail (the TAGS threshold for 2 hosts is
    // 1.4659…, README `threshold`) and whose option `load` is also a record field (written
    // `result.load`, like every record field).
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(
        t.path(),
        "g.toml",
        "command = \"optimize\"\n[options]\npolicy = \"{policy}\"\ndist = \"exp:rate=1\"\nhosts = 2\nload = \"{load}\"\n\
         [grid]\npolicy = [\"sita\", \"tags\"]\nload = [\"0.5\", \"1.8\"]\n",
    );
    let d = t.path().join("out");
    ok(&["sweep", p(&g), "--shard", "1/2", "--out", p(&d)]);
    ok(&["sweep", p(&g), "--shard", "0/2", "--out", p(&d)]);
    let with = merged(&[&d], &g, &t.path().join("a.jsonl"));
    let a = t.path().join("b.jsonl");
    let r: Value = serde_json::from_str(&ok(&["merge", p(&d), "--out", p(&a), "--format", "json"]))
        .expect("json");
    let without = (
        std::fs::read(&a).expect("jsonl"),
        std::fs::read(a.with_extension("csv")).expect("csv"),
    );
    assert_eq!(with.0, without.0, "the JSONL");
    assert_eq!(r["points"], 4);
    assert_eq!(r["failed"], 1, "only TAGS at load 1.8 fails");
    let (a, b) = (
        String::from_utf8(with.1).expect("utf-8"),
        String::from_utf8(without.1).expect("utf-8"),
    );
    assert_eq!(csv_cells(&a), csv_cells(&b), "the same cells");
    let header = |csv: &str| csv.lines().next().expect("a header").to_string();
    assert!(
        header(&a).starts_with("key,policy,load,status,") && header(&a).contains(",result.load,"),
        "{}",
        header(&a)
    );
    assert!(
        header(&b).starts_with("key,load,policy,status,"),
        "{}",
        header(&b)
    );
    // with the grid, its order: policy sita then tags, load 0.5 then 1.8
    let order: Vec<String> = a
        .lines()
        .skip(1)
        .map(|l| l.split(',').skip(1).take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(order, ["sita 0.5", "sita 1.8", "tags 0.5", "tags 1.8"]);
}

/// How far a `log10_` cell (6 decimals) may be from log10 of its number computed here: half
/// a unit of its 6th decimal, plus f64's rounding of log10 of the mantissa.
const LOG10_CELL_TOL: f64 = 0.5e-6 + 1e-9;

#[test]
fn numbers_beyond_f64_get_a_log10_column() {
    // Random dispatch on BP(1, p, 0.5): E[W] grows like p (1e1000 is beyond f64's range,
    // 1e10 is not) and lambda like p^-1/2 (1e-500 is below it). Each such record column is
    // followed by its log10_ column, filled for every row; p's axis is written 1e1000 first,
    // and the rows keep that order.
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(
        t.path(),
        "g.toml",
        "command = \"eval\"\n[options]\npolicy = \"random\"\ndist = \"bp:k=1,p={p},alpha=0.5\"\nhosts = 2\nload = \"0.5\"\n[grid]\np = [\"1e1000\", \"1e10\"]\n",
    );
    let d = t.path().join("out");
    ok(&["sweep", p(&g), "--out", p(&d)]);
    let (_, csv) = merged(&[&d], &g, &t.path().join("m.jsonl"));
    let csv = String::from_utf8(csv).expect("utf-8");
    let header = csv_split(csv.lines().next().expect("header"));
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"))
    };
    for f in ["value", "lambda"] {
        assert_eq!(
            col(&format!("result.log10_{f}")),
            col(&format!("result.{f}")) + 1
        );
    }
    // hosts (2) and load (0.5) are in range: no log10 column
    assert!(!header.iter().any(|h| h == "result.log10_hosts"));
    let rows: Vec<Vec<String>> = csv.lines().skip(1).map(csv_split).collect();
    assert_eq!(
        rows.iter()
            .map(|r| r[col("p")].as_str())
            .collect::<Vec<_>>(),
        ["1e1000", "1e10"]
    );
    // (the JSONL, in key order, has them the other way round: the CSV's order is the grid's)
    let jsonl = lines(&t.path().join("m.jsonl"));
    assert_eq!(
        jsonl
            .iter()
            .map(|l| l["point"]["p"].clone())
            .collect::<Vec<_>>(),
        ["1e10", "1e1000"]
    );
    // the grid variable p (1e1000 is beyond f64 too) has its log10 column beside it:
    // log10 1e1000 = 1000 and log10 1e10 = 10 exactly
    assert_eq!(col("log10_p"), col("p") + 1);
    assert_eq!(
        rows.iter()
            .map(|r| r[col("log10_p")].as_str())
            .collect::<Vec<_>>(),
        ["1000.000000", "10.000000"]
    );
    for r in &rows {
        for f in ["value", "lambda"] {
            // log10 of the printed decimal, by its exponent and mantissa (f64 for the
            // mantissa only): within half a unit of the 6th decimal, plus f64's rounding
            let v = &r[col(&format!("result.{f}"))];
            let (m, e) = v.split_once('e').expect("scientific");
            let want = e.parse::<f64>().expect("exponent")
                + m.parse::<f64>().expect("mantissa").abs().log10();
            let got: f64 = r[col(&format!("result.log10_{f}"))]
                .parse()
                .expect("a number");
            assert!(
                (got - want).abs() <= LOG10_CELL_TOL,
                "{f} = {v}: log10 {got} vs {want}"
            );
        }
    }
    // the large one is beyond f64, the other not
    let v = &rows[0][col("result.value")];
    assert!(v.parse::<f64>().map_or(true, |x| x.is_infinite()), "{v}");
}

#[test]
fn merge_writes_into_a_pipe_without_replacing_it() {
    // `--csv /dev/null` once replaced /dev/null with a regular file (the temporary file
    // was renamed over it). A named pipe stands in for the device here: after the merge
    // it must still be a pipe, and its reader must have received the CSV, whose bytes
    // equal those of a merge into a regular file.
    use std::os::unix::fs::FileTypeExt;
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(t.path(), "g.toml", EVAL_GRID);
    let d = t.path().join("out");
    ok(&["sweep", p(&g), "--out", p(&d)]);
    let (_, csv) = merged(&[&d], &g, &t.path().join("m.jsonl"));
    let fifo = t.path().join("pipe");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    // The reader is a process, so that it can be killed if the pipe was replaced (it
    // would wait on it for ever).
    let mut reader = Command::new("cat")
        .arg(&fifo)
        .stdout(Stdio::piped())
        .spawn()
        .expect("cat runs");
    let o = run(&[
        "merge",
        p(&d),
        "--grid",
        p(&g),
        "--out",
        p(&t.path().join("n.jsonl")),
        "--csv",
        p(&fifo),
    ]);
    let kind = std::fs::symlink_metadata(&fifo)
        .expect("the pipe")
        .file_type();
    if !o.status.success() || !kind.is_fifo() {
        let _ = reader.kill();
        panic!(
            "merge into a pipe: {:?}, {}; the pipe is now {kind:?}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let got = reader.wait_with_output().expect("the reader").stdout;
    assert_eq!(got, csv);
}

#[test]
fn a_two_word_command_sweeps_and_keeps_its_numbers() {
    // `jsq fixed-point` for queues: the power-of-d fixed point is s_k = λ^((d^k − 1)/(d − 1))
    // (Vvedenskaya, Dobrushin & Karpelevich 1996; Mitzenmacher 2001), so s_2 = λ^(d + 1) and
    // s_3 = λ^(d² + d + 1), here checked for d = 2, 3 at λ = 0.5, 0.9 to 1e-12 relative
    // (the record carries 30 certified digits).
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(
        t.path(),
        "g.toml",
        "command = \"jsq fixed-point\"\n[options]\nmodel = \"queues\"\nlambda = \"{l}\"\nd = \"{d}\"\n\
         [grid]\nl = [\"0.5\", \"0.9\"]\nd = [2, 3]\n",
    );
    let d = t.path().join("out");
    ok(&["sweep", p(&g), "--shard", "0/1", "--out", p(&d)]);
    let out = t.path().join("m.jsonl");
    merged(&[&d], &g, &out);
    let ls = lines(&out);
    assert_eq!(ls.len(), 4);
    for l in ls {
        let lam: f64 = l["point"]["l"].as_str().expect("l").parse().expect("l");
        let dd: i32 = l["point"]["d"].as_str().expect("d").parse().expect("d");
        let occ = l["result"]["occupancy"].as_array().expect("occupancy");
        for (k, s) in occ.iter().enumerate().skip(1).take(3) {
            let got: f64 = s.as_str().expect("a decimal").parse().expect("a number");
            // s_k with k counted from 1: exponent (d^k − 1)/(d − 1); occupancy[0] is s_1 = λ.
            let k = k as i32 + 1;
            let want = lam.powi((dd.pow(k as u32) - 1) / (dd - 1));
            assert!(
                (got - want).abs() <= 1e-12 * want,
                "λ={lam} d={dd} s_{k}: {got} vs {want}"
            );
        }
    }
}

/// A two-point grid (about 0.1 ms a point).
const TINY_GRID: &str = r#"
command = "eval"
[options]
policy = "random"
dist = "exp:rate=1"
hosts = 2
load = "{load}"
[grid]
load = ["0.5", "1"]
"#;

/// Runs `args`, expects exit 2 with one line on stderr holding every one of `want`.
/// Runs `args`, expects one clear refusal (exit 2) holding every `want`, returns its line.
fn refused(args: &[&str], want: &[&str]) -> String {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(EXIT_BAD_INPUT), "{args:?}: {err}");
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("taskassign:"))
        .collect();
    assert_eq!(lines.len(), 1, "{args:?}: {err}");
    assert!(!lines[0].contains("numerical failure"), "{err}");
    for w in want {
        assert!(lines[0].contains(w), "{args:?}: want '{w}' in {err}");
    }
    lines[0].to_string()
}

#[test]
fn outputs_that_cannot_be_written_are_the_users_to_fix() {
    // an output path that cannot be written is bad input (exit 2) naming the path and the
    // system's reason, not a numerical failure (exit 3)
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(t.path(), "g.toml", TINY_GRID);
    let file = write(t.path(), "a-file", "x");
    refused(
        &["sweep", p(&g), "--out", "/proc/no-such-folder"],
        &["/proc/no-such-folder", "cannot write", "os error"],
    );
    refused(
        &["sweep", p(&g), "--out", p(&file)],
        &[p(&file), "it is a file"],
    );
    let out = t.path().join("out");
    ok(&["sweep", p(&g), "--out", p(&out)]);
    let folder = t.path().join("a-folder");
    std::fs::create_dir(&folder).expect("mkdir");
    refused(
        &["merge", p(&out), "--out", p(&folder)],
        &[p(&folder), "it is a folder"],
    );
    let m = t.path().join("m.jsonl");
    refused(
        &[
            "merge",
            p(&out),
            "--out",
            p(&m),
            "--csv",
            "/proc/no-such-folder/m.csv",
        ],
        &["/proc/no-such-folder/m.csv", "cannot write", "os error"],
    );
}

#[test]
fn a_shard_count_that_contradicts_the_shard_files_is_an_error() {
    // two shards of the 36-point grid, shard 1 lost: the files say 2 shards, so
    // `--shards 3` (which would name shards 1 and 2 of 3 to resubmit, the wrong Slurm
    // tasks) is refused; without it, shard 1 is named
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(t.path(), "g.toml", EVAL_GRID);
    let d = t.path().join("out");
    for i in 0..2 {
        ok(&["sweep", p(&g), "--shard", &format!("{i}/2"), "--out", p(&d)]);
    }
    std::fs::remove_file(d.join("shard-000001-of-000002.jsonl")).expect("rm");
    let m = t.path().join("m.jsonl");
    refused(
        &[
            "merge",
            p(&d),
            "--grid",
            p(&g),
            "--out",
            p(&m),
            "--shards",
            "3",
        ],
        &[
            "--shards 3 contradicts",
            "2 shards",
            "shard-000000-of-000002.jsonl",
        ],
    );
    let o = run(&[
        "merge",
        p(&d),
        "--grid",
        p(&g),
        "--out",
        p(&m),
        "--format",
        "shards",
    ]);
    assert_eq!(o.status.code(), Some(EXIT_MISSING));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "1\n");
    // a shard file renamed to another shard count: its contents are not that shard's
    // (shard 0 of 2 holds positions 0, 2, 4, …; shard 0 of 3 would hold 0, 3, 6, …)
    std::fs::rename(
        d.join("shard-000000-of-000002.jsonl"),
        d.join("shard-000000-of-000003.jsonl"),
    )
    .expect("mv");
    let why = refused(
        &["merge", p(&d), "--grid", p(&g), "--out", p(&m)],
        &[
            "shard-000000-of-000003.jsonl:",
            "which shard 0/3 does not hold",
        ],
    );
    // the shard's lines are in the order its points finished (threads), so which line is
    // the first wrong one varies; the line named must be one of the file's, and the
    // position named one shard 0 of 2 holds (even) and shard 0 of 3 does not
    let text = std::fs::read_to_string(d.join("shard-000000-of-000003.jsonl")).expect("read");
    let after = |tag: &str| -> usize {
        let rest = &why[why.find(tag).expect(tag) + tag.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().expect("a number")
    };
    let line = after("shard-000000-of-000003.jsonl:");
    assert!((1..=text.lines().count()).contains(&line), "{why}");
    let at = after("at position ");
    assert!(at % 2 == 0 && at % 3 != 0, "{why}");
}

/// Four short `jsq simulate` runs: records that carried wall-clock timing.
const JSQ_SIM_GRID: &str = r#"
command = "jsq simulate"
[options]
model = "queues"
servers = 50
lambda = "{lambda}"
d = "{d}"
time = 10
replications = 2
[grid]
lambda = ["0.5", "0.8"]
d = ["1", "2"]
"#;

#[test]
fn simulation_sweeps_merge_to_the_same_bytes_without_wall_clock_keys() {
    // README ("Sweeps"): a sharded and an unsharded run of one grid merge to the same
    // bytes; a simulation's wall-clock speed (events_per_second, seconds) differs from
    // run to run, so a sweep leaves it out of the records it writes.
    let t = tempfile::tempdir().expect("tempdir");
    let g = write(t.path(), "g.toml", JSQ_SIM_GRID);
    let whole = t.path().join("whole");
    ok(&["sweep", p(&g), "--out", p(&whole), "--threads", "1"]);
    let reference = merged(&[&whole], &g, &t.path().join("whole.jsonl"));
    let d = t.path().join("n2");
    for i in 0..2 {
        ok(&[
            "sweep",
            p(&g),
            "--shard",
            &format!("{i}/2"),
            "--out",
            p(&d),
            "--threads",
            "1",
        ]);
    }
    let m = merged(&[&d], &g, &t.path().join("n2.jsonl"));
    assert!(
        m.0 == reference.0,
        "JSONL of 2 shards differs from the unsharded run"
    );
    assert!(
        m.1 == reference.1,
        "CSV of 2 shards differs from the unsharded run"
    );
    let recs = lines(&t.path().join("whole.jsonl"));
    assert_eq!(recs.len(), 4);
    for r in &recs {
        let res = r["result"].as_object().expect("a result");
        for k in ["events_per_second", "seconds"] {
            assert!(!res.contains_key(k), "{k} in a sweep record: {r}");
        }
        assert!(res.contains_key("mean_tasks"), "{r}");
    }
}
