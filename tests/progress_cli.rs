//! Progress of long commands (issue 14): on a non-terminal stderr, `taskassign: progress:`
//! lines every `TASKASSIGN_PROGRESS_SECS` (0 here: every report), the result unchanged.

mod common;

/// Runs the binary ([`common::taskassign`]) with progress lines every report (`progress`)
/// or none, and returns (exit status, stdout, stderr).
fn run(args: &[&str], progress: bool) -> (i32, String, String) {
    let mut c = common::taskassign();
    c.args(args);
    if progress {
        c.env("TASKASSIGN_PROGRESS_SECS", "0");
    } else {
        c.env_remove("TASKASSIGN_PROGRESS_SECS");
    }
    let out = c.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn threshold_reports_its_root_and_greedy_progress_and_the_same_result() {
    // 600 hosts: the greedy reports at hosts 256 and 512 of each root evaluation.
    let args = [
        "threshold",
        "--dist",
        "exp:rate=1",
        "--hosts",
        "600",
        "--digits",
        "8",
        "--format",
        "json",
    ];
    let (code, out, err) = run(&args, true);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(!lines.is_empty(), "no progress lines");
    for l in &lines {
        assert!(
            l.starts_with("taskassign: progress: threshold after "),
            "{l}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l.contains("threshold root, evaluation")),
        "{err}"
    );
    assert!(
        lines.iter().any(|l| l.contains("greedy host 512/600")),
        "{err}"
    );
    // Progress changes nothing on stdout; without it stderr is empty (a quick run).
    let (code2, out2, err2) = run(&args, false);
    assert_eq!(code2, 0);
    assert_eq!(out, out2);
    assert!(err2.is_empty(), "{err2}");
}

#[test]
fn design_reports_each_host_count_it_tries() {
    let args = [
        "design",
        "--dist",
        "exp:rate=1",
        "--load",
        "0.5",
        "--target-waiting",
        "0.3",
        "--policy",
        "sita",
        "--max-hosts",
        "6",
        "--digits",
        "6",
    ];
    let (code, _out, err) = run(&args, true);
    assert!(code == 0 || code == 2, "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("taskassign: progress: design after ")
                && l.contains("design sita, hosts 1/6")),
        "{err}"
    );
}

#[test]
fn optimize_and_the_simulators_report_progress_and_the_same_result() {
    // Each: a short run with progress lines every report, then the same run without: the
    // same stdout (progress only writes to stderr).
    let cases: [(&str, &[&str]); 3] = [
        (
            "cutoff search, host 3/4",
            &[
                "optimize",
                "--policy",
                "sita",
                "--dist",
                "exp:rate=1",
                "--hosts",
                "4",
                "--load",
                "0.5",
                "--digits",
                "8",
            ],
        ),
        (
            "replications 3/3",
            &[
                "simulate",
                "--policy",
                "sita",
                "--dist",
                "exp:rate=1",
                "--hosts",
                "2",
                "--load",
                "0.5",
                "--cutoffs",
                "1",
                "--jobs",
                "2000",
                "--replications",
                "3",
            ],
        ),
        (
            "replications 3/3",
            &[
                "redundancy",
                "simulate",
                "--system",
                "w-model",
                "--lambdas",
                "0.4,0.4,0.8",
                "--policy",
                "mrf-fcfs",
                "--jobs",
                "2000",
                "--replications",
                "3",
            ],
        ),
    ];
    for (want, args) in cases {
        let (code, out, err) = run(args, true);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(
            err.lines().all(|l| l.starts_with("taskassign: progress: ")),
            "{err}"
        );
        assert!(err.contains(want), "{args:?}: {want} not in {err}");
        let (code2, out2, err2) = run(args, false);
        assert_eq!(code2, 0);
        // The simulators print their own timing (rates, seconds): everything else must agree.
        let numbers = |o: &str| -> Vec<String> {
            o.lines()
                .filter(|l| {
                    !["events_per_second", "jobs_per_second", "seconds"]
                        .iter()
                        .any(|k| l.starts_with(k))
                })
                .map(String::from)
                .collect()
        };
        assert_eq!(numbers(&out), numbers(&out2), "{args:?}");
        assert!(err2.is_empty(), "{args:?}: {err2}");
    }
}

#[test]
fn a_sweeps_in_process_points_leave_progress_to_the_sweep() {
    // `optimize` reports progress when it is the process's command; run as a sweep's point
    // (in process) it must not, or its lines would cut through the sweep's own.
    let dir = tempfile::tempdir().expect("tempdir");
    let grid = dir.path().join("g.toml");
    std::fs::write(
        &grid,
        "command = \"optimize\"\n[options]\npolicy = \"sita\"\ndist = \"exp:rate=1\"\nhosts = 3\nload = \"{l}\"\n[grid]\nl = [\"0.5\", \"0.6\"]\n",
    )
    .expect("write grid");
    let out = dir.path().join("out");
    let args = [
        "sweep",
        grid.to_str().expect("path"),
        "--shard",
        "0/1",
        "--out",
        out.to_str().expect("path"),
    ];
    let (code, _out, err) = run(&args, true);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("taskassign: progress:"), "{err}");
}

#[test]
fn jsq_exact_announces_each_truncation_with_its_states_before_solving_it() {
    // The estimate before each solve counts the states of the truncation (the simplex's
    // counting recursion); the exploration that follows is an independent count, reported
    // as `states` in the result: the last announced count must equal it.
    let args = [
        "jsq",
        "exact",
        "--model",
        "queues",
        "--servers",
        "2",
        "--d",
        "2",
        "--lambda",
        "0.5",
        "--digits",
        "8",
        "--format",
        "json",
    ];
    let (code, out, err) = run(&args, true);
    assert_eq!(code, 0, "{err}");
    let announced: Vec<u64> = err
        .lines()
        .filter(|l| l.starts_with("taskassign: progress: jsq exact after "))
        .filter_map(|l| {
            let rest = &l[l.find("(solving ")? + "(solving ".len()..];
            rest.split(' ').next()?.parse().ok()
        })
        .collect();
    assert!(!announced.is_empty(), "no estimate: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let states = v["states"].as_u64().expect("states");
    assert_eq!(announced.last(), Some(&states), "{err}");
    let (code2, out2, _) = run(&args, false);
    assert_eq!(code2, 0);
    assert_eq!(out, out2);
}

/// The announced truncations of a `redundancy exact` run: (note, seconds estimated, if any).
fn redundancy_truncations(err: &str) -> Vec<(String, Option<f64>)> {
    err.lines()
        .filter(|l| l.starts_with("taskassign: progress: redundancy exact after "))
        .filter_map(|l| {
            // The truncation task's note: "... truncation K ... (budget ..., about N states[, about T s] (estimated))".
            let at = l.find("truncation ")?;
            let note = &l[at..];
            let end = note.find(" (estimated)")?;
            let note = &note[..end];
            let secs = note
                .rfind(", about ")
                .map(|i| &note[i + ", about ".len()..])
                .and_then(|t| t.strip_suffix(" s"))
                .and_then(|t| t.parse::<f64>().ok());
            Some((note.to_string(), secs))
        })
        .collect()
}

#[test]
fn redundancy_exact_announces_each_truncation_with_its_states_and_time_before_solving_it() {
    // Two chains: the certified path (LRF-FCFS has a Lyapunov certificate) and the
    // comparison path (ROS on the N-model has none). Each announces every truncation with
    // its estimated states before solving it; from the second truncation on, also the
    // time the first one's pace predicts. The result is the same with and without the
    // progress lines.
    for policy in ["lrf-fcfs", "ros"] {
        let args = [
            "redundancy",
            "exact",
            "--system",
            "n-model",
            "--lambdas",
            "0.1,1.7",
            "--policy",
            policy,
            "--digits",
            "12",
            "--format",
            "json",
        ];
        let (code, out, err) = run(&args, true);
        assert_eq!(code, 0, "{policy}: {err}");
        let announced = redundancy_truncations(&err);
        assert!(
            announced.iter().any(|(n, _)| n.contains(" states")),
            "{policy}: no estimate of the states: {err}"
        );
        // A time estimate appears once a truncation has been solved: positive and finite.
        let timed: Vec<f64> = announced.iter().filter_map(|(_, s)| *s).collect();
        assert!(!timed.is_empty(), "{policy}: no time estimate: {err}");
        assert!(timed.iter().all(|s| s.is_finite() && *s >= 0.0), "{err}");
        let (code2, out2, err2) = run(&args, false);
        assert_eq!(code2, 0, "{err2}");
        assert_eq!(out, out2, "{policy}");
        assert!(!err2.contains("taskassign: progress:"), "{err2}");
    }
}

/// `optimize --rigorous`'s branch and bound reports its boxes against the budget, the boxes
/// left and the gap (a proof of minutes printed nothing before 2026-12-07); the result is
/// the same with and without the lines. TAGS's waiting time at BP(1, 10^4, 1), total load
/// 0.5, 5 hosts: the 4-host face's search (about 1 900 boxes, on half the budget) passes
/// 1 000 boxes.
#[test]
fn the_proven_optimum_reports_its_boxes_and_the_same_result() {
    let args = [
        "optimize",
        "--rigorous",
        "--policy",
        "tags",
        "--dist",
        "bp:k=1,p=1e4,alpha=1",
        "--hosts",
        "5",
        "--load",
        "0.5",
        "--digits",
        "20",
        "--format",
        "json",
    ];
    let (code, out, err) = run(&args, true);
    assert_eq!(code, 0, "{err}");
    let boxes: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("proven optimum: branch and bound"))
        .collect();
    assert!(!boxes.is_empty(), "no branch-and-bound progress: {err}");
    assert!(
        boxes
            .iter()
            .all(|l| l.contains("boxes left") && l.contains("gap")),
        "{err}"
    );
    // The face's search counts against half the default budget of 200 000 boxes.
    assert!(
        boxes
            .iter()
            .any(|l| l.contains("(4 hosts") && l.contains("/100000")),
        "{err}"
    );
    let (code2, out2, _) = run(&args, false);
    assert_eq!(code2, 0);
    assert_eq!(out, out2);
}
