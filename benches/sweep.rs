//! What a sweep costs over the command it runs (issue 13), and how fast it plans. Run with
//! `cargo bench --bench sweep -- --warm-up-time 2 --measurement-time 20`.
//!
//! * `sweep_overhead`: the same 201 points of `optimize --policy sita --hosts 2
//!   --digits 300` (about 1 ms each), once as the command itself run in this process for
//!   each point (clap, the computation, the JSON record: what `taskassign optimize …`
//!   does, without a process start-up) and once as `taskassign sweep` over a grid of those
//!   points with one thread, into a fresh folder (grid expansion, keys, the record read
//!   back, one line written per point, flushes, progress). The ratio of the two is the
//!   sweep's overhead per point; the issue asks for under 5 %. Timed as wall time and as
//!   the CPU time of the calling thread (the machine is shared with other builds).
//! * `sweep_plan`: `sweep --plan --calibrate 0` of a 10^5-point grid (parse, expand, hash
//!   and sort every point, print the lines); the issue asks for under a second.
//!
//! The merge of 10^6 lines is timed against `sort -u` by the binary (README, "Sweeps").

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;
use taskassign::run_command_line_captured as run;

/// CPU time of the calling thread (Linux `/proc/thread-self/schedstat`, nanoseconds): the
/// points run on this thread (`--threads 1` computes them in the calling thread and
/// `optimize` is single-threaded), so it counts their work and not the other builds that
/// share the 2 cores, which the wall time does.
fn thread_cpu() -> Duration {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("schedstat");
    let ns: u64 = s
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .expect("schedstat's first field");
    Duration::from_nanos(ns)
}

/// The loads of the overhead grid: 0.5, 0.501, …, 0.7 (201 points).
const LOADS: (u32, u32) = (500, 700);

fn overhead_grid(dir: &Path) -> String {
    let g = dir.join("overhead.toml");
    std::fs::write(
        &g,
        "command = \"optimize\"\n[options]\npolicy = \"sita\"\ndist = \"bp:k=1,p=1e10,alpha=1.5\"\n\
         hosts = 2\ndigits = 300\nload = \"{l}\"\n[grid]\nl = { from = \"0.5\", to = \"0.7\", step = \"0.001\" }\n",
    )
    .expect("write the grid");
    g.display().to_string()
}

fn plan_grid(dir: &Path) -> String {
    // 10 × 10 × 10 × 100 = 10^5 points.
    let g = dir.join("plan.toml");
    std::fs::write(
        &g,
        "command = \"optimize\"\n[options]\npolicy = \"{pol}\"\ndist = \"bp:k=1,p={p},alpha={a}\"\n\
         hosts = \"{h}\"\nload = \"{l}\"\n[grid]\npol = [\"tags\", \"sita\"]\n\
         a = { from = \"0.5\", to = \"2.3\", step = \"0.2\" }\np = { from = \"1e2\", to = \"1e11\", per_decade = 1 }\n\
         h = [2, 3, 4, 5, 6]\nl = { from = \"0.01\", to = \"1\", step = \"0.01\" }\n",
    )
    .expect("write the grid");
    g.display().to_string()
}

fn bench_overhead(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let grid = overhead_grid(tmp.path());
    let argvs: Vec<Vec<String>> = (LOADS.0..=LOADS.1)
        .map(|m| {
            [
                "taskassign",
                "optimize",
                "--policy=sita",
                "--dist=bp:k=1,p=1e10,alpha=1.5",
                "--hosts=2",
                "--digits=300",
                &format!("--load={}", f64::from(m) / 1000.0),
                "--format=json",
            ]
            .map(String::from)
            .to_vec()
        })
        .collect();
    let command = || {
        for a in &argvs {
            let (out, code) = run(a).expect("the point runs");
            assert_eq!(code, 0);
            black_box(out);
        }
    };
    let mut n = 0u64;
    let mut sweep = || {
        n += 1;
        let out = tmp.path().join(format!("out-{n}"));
        let o = out.display().to_string();
        let (s, code) = run(["taskassign", "sweep", &grid, "--out", &o, "--threads", "1"])
            .expect("the sweep runs");
        assert_eq!(code, 0);
        assert!(s.contains("computed") && s.contains("201"), "{s}");
        std::fs::remove_dir_all(&out).expect("remove the shard folder");
    };
    // Wall time, then the CPU time of this thread. In each group the command is timed
    // before and after the sweep, so a drift of the machine's load shows.
    let mut group = c.benchmark_group("sweep_overhead_wall");
    group.sample_size(10);
    group.bench_function("command_201_points", |b| b.iter(command));
    group.bench_function("sweep_201_points", |b| b.iter(&mut sweep));
    group.bench_function("command_201_points_again", |b| b.iter(command));
    group.finish();
    let cpu = |f: &mut dyn FnMut(), iters: u64| {
        let t = thread_cpu();
        for _ in 0..iters {
            f();
        }
        thread_cpu() - t
    };
    let mut group = c.benchmark_group("sweep_overhead_cpu");
    group.sample_size(10);
    group.bench_function("command_201_points", |b| {
        b.iter_custom(|i| cpu(&mut { command }, i))
    });
    group.bench_function("sweep_201_points", |b| {
        b.iter_custom(|i| cpu(&mut sweep, i))
    });
    group.bench_function("command_201_points_again", |b| {
        b.iter_custom(|i| cpu(&mut { command }, i))
    });
    group.finish();
}

fn bench_plan(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let grid = plan_grid(tmp.path());
    let mut group = c.benchmark_group("sweep_plan");
    group.sample_size(10);
    group.bench_function("plan_100000_points", |b| {
        b.iter(|| {
            let (s, code) = run([
                "taskassign",
                "sweep",
                &grid,
                "--plan",
                "--calibrate",
                "0",
                "--shards",
                "100",
            ])
            .expect("the plan runs");
            assert_eq!(code, 0);
            assert!(s.contains("100000"), "{s}");
            black_box(s);
        })
    });
    group.finish();
}

criterion_group!(benches, bench_overhead, bench_plan);
criterion_main!(benches);
