//! `taskassign redundancy exact|simulate|stability` from the binary: the keys of the
//! command-line contract (issue 12), values against closed forms, and bad input (exit 2,
//! one line on stderr naming the problem).

mod common;
use common::{expect_bad, run_json};
use serde_json::Value;

fn num(v: &Value) -> f64 {
    v.as_str()
        .expect("a decimal string")
        .parse()
        .expect("a number")
}

const W: [&str; 6] = [
    "--system",
    "w-model",
    "--lambdas",
    "0.3,0.3,0.6",
    "--format",
    "json",
];

#[test]
fn exact_has_the_contract_keys_and_the_closed_form() {
    let mut args = vec!["redundancy", "exact", "--policy", "fcfs", "--digits", "25"];
    args.extend(W);
    let m = run_json(&args);
    for k in [
        "policy",
        "servers",
        "classes",
        "mean_number",
        "mean_response",
        "stable",
        "nested",
        "method",
        "truncation",
        "digits",
    ] {
        assert!(m.contains_key(k), "missing {k}");
    }
    let classes = m["classes"].as_array().unwrap();
    assert_eq!(classes.len(), 3);
    for k in ["set", "rate", "mean_number", "mean_response"] {
        assert!(classes[2].get(k).is_some(), "class lacks {k}");
    }
    // Source: Gardner et al. (2016), W-model class {1,2}: E[T] = 1/(μ1 + μ2 − Σλ) = 1.25.
    assert_eq!(classes[2]["mean_response"], "1.250000000000000000000000e0");
    assert_eq!(m["digits"], 25);
    assert_eq!(m["nested"], true);
}

#[test]
fn exact_chain_for_a_class_policy() {
    // Preemptive LRF in the N-model ({1}, {1+2}): class {1} is an M/M/1(0.2, 1) at server
    // 1, E[T1] = 1/0.8 = 1.25 (derived in tests/redundancy_exact.rs).
    let m = run_json(&[
        "redundancy",
        "exact",
        "--servers",
        "2",
        "--class",
        "1:0.2",
        "--class",
        "1+2:0.5",
        "--policy",
        "lrf-fcfs",
        "--preemptive",
        "--digits",
        "6",
        "--format",
        "json",
    ]);
    assert_eq!(m["preemption"], "preemptive-resume");
    let t1 = num(&m["classes"][0]["mean_response"]);
    assert!((t1 - 1.25).abs() < 1e-5, "{t1}");
    // The search finds a Foster–Lyapunov certificate for this chain: the digits are proven
    // (issue 26), and the enclosure [lo, hi] printed beside E[T1] must contain the closed
    // form 1.25 itself (no tolerance: the enclosure is the tolerance).
    let truncation = m["truncation"].as_str().unwrap();
    assert!(
        truncation.starts_with("proven: Foster-Lyapunov certificate"),
        "{truncation}"
    );
    let (lo, hi) = (
        num(&m["classes"][0]["mean_response_lo"]),
        num(&m["classes"][0]["mean_response_hi"]),
    );
    assert!(lo <= 1.25 && 1.25 <= hi, "[{lo}, {hi}]");
    let bound = num(&m["truncation_bound"]);
    assert!(bound > 0.0 && bound < 1e-6, "{bound}");
}

#[test]
fn exact_says_whether_its_truncation_bound_is_proven() {
    // Every chain policy on the W-model at λ = (0.3, 0.3, 0.6), 6 digits: a `truncation`
    // that says "proven" has a finite positive `truncation_bound`, at least half the width
    // of every printed enclosure (it is the largest half-width), and each printed number
    // lies within its `_lo`/`_hi`; an estimate ("estimate, no certificate", or "estimate
    // beyond the proof" where a proof stopped short) has none (null) and no `_lo`/`_hi`. LRF-FCFS has a certificate (lyapunov.rs), and plain ROS
    // one of the summed check.
    let mut seen = (0, 0);
    for p in ["lrf-fcfs", "mrf-fcfs", "ros", "lrf-ros"] {
        let mut args = vec!["redundancy", "exact", "--policy", p, "--digits", "6"];
        args.extend(W);
        let m = run_json(&args);
        let t = m["truncation"].as_str().unwrap();
        if t.starts_with("proven: ") {
            seen.0 += 1;
            let b = num(&m["truncation_bound"]);
            assert!(b > 0.0 && b.is_finite(), "{p}: {b}");
            let mut pairs = vec![(
                m["mean_number"].clone(),
                m["mean_number_lo"].clone(),
                m["mean_number_hi"].clone(),
            )];
            for c in m["classes"].as_array().unwrap() {
                for k in ["mean_number", "mean_response"] {
                    pairs.push((
                        c[k].clone(),
                        c[format!("{k}_lo")].clone(),
                        c[format!("{k}_hi")].clone(),
                    ));
                }
            }
            for (v, lo, hi) in pairs {
                // Every point of [lo, hi] rounds to the printed decimal: both ends lie
                // within half a unit of its last digit (1e-9 of slack for the f64 reading).
                let text = v.as_str().unwrap().to_string();
                let (mant, exp) = text.split_once('e').unwrap();
                let places = mant.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
                let half = 0.5 * 10f64.powi(exp.parse::<i32>().unwrap() - places);
                let (v, lo, hi) = (num(&v), num(&lo), num(&hi));
                assert!(
                    lo >= v - half * (1.0 + 1e-9) && hi <= v + half * (1.0 + 1e-9),
                    "{p}: {text} [{lo}, {hi}]"
                );
                // The ends are printed to 6 + 3 digits, rounded outward: a unit of the
                // 9th digit of slack.
                assert!(
                    lo <= hi && (hi - lo) / 2.0 <= b * (1.0 + 1e-2) + 1e-8 * hi.abs(),
                    "{p}: [{lo}, {hi}] vs {b}"
                );
            }
        } else {
            seen.1 += 1;
            assert!(
                t.starts_with("estimate, no certificate: ")
                    || t.starts_with("estimate beyond the proof: a certificate was found"),
                "{p}: {t}"
            );
            assert!(m["truncation_bound"].is_null(), "{p}");
            assert!(m.get("mean_number_lo").is_none(), "{p}");
        }
    }
    assert!(seen.0 >= 1, "no proven case: {seen:?}");
}

#[test]
fn unstable_exact_is_bad_input_naming_the_subset() {
    // {1} at 0.5 and {1+2} at 1.6: the union {1,2} carries 2.1 > 2.
    expect_bad(
        &[
            "redundancy",
            "exact",
            "--servers",
            "2",
            "--class",
            "1:0.5",
            "--class",
            "1+2:1.6",
            "--policy",
            "lrf-ros",
        ],
        &["unstable", "{1}, {1+2}", "1+2"],
    );
}

#[test]
fn simulate_has_half_widths_and_speed() {
    let mut args = vec![
        "redundancy",
        "simulate",
        "--policy",
        "lrf-ros",
        "--dist",
        "erlang:k=4,rate=4",
        "--copies",
        "identical",
        "--jobs",
        "20000",
        "--replications",
        "4",
    ];
    args.extend(W);
    let m = run_json(&args);
    for k in [
        "mean_number",
        "mean_number_half_width",
        "mean_response",
        "mean_response_half_width",
        "events_per_second",
        "stable",
        "copies",
        "service_class",
    ] {
        assert!(m.contains_key(k), "missing {k}");
    }
    assert!(m["classes"][0].get("mean_response_half_width").is_some());
    assert_eq!(m["copies"], "identical");
    assert!(m["service_class"].as_str().unwrap().starts_with("NBU"));
}

#[test]
fn unstable_simulation_is_not_an_error() {
    // The union {1,2} is overloaded (2.4 > 2): every policy is unstable with exponential
    // i.i.d. copies, and the record says so.
    let m = run_json(&[
        "redundancy",
        "simulate",
        "--servers",
        "2",
        "--class",
        "1:0.6",
        "--class",
        "2:0.6",
        "--class",
        "1+2:1.2",
        "--policy",
        "ros",
        "--jobs",
        "20000",
        "--replications",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(m["stable"], false);
    assert!(m["stable_basis"].as_str().unwrap().contains("1+2"));
}

#[test]
fn stability_exact_and_estimated() {
    let mut args = vec!["redundancy", "stability", "--policy", "fcfs"];
    args.extend(W);
    let m = run_json(&args);
    // Source: min over unions of μ(U)/λ(U): {1,2} gives 2/1.2 = 5/3.
    assert!((num(&m["scale_limit"]) - 5.0 / 3.0).abs() < 1e-15);
    assert_eq!(m["binding_servers"], "1+2");
    // Estimated for ROS with a short horizon: an interval around some scale, the FCFS
    // exponential limit printed beside it.
    let mut args = vec![
        "redundancy",
        "stability",
        "--policy",
        "ros",
        "--horizon",
        "20000",
        "--replications",
        "4",
    ];
    args.extend(W);
    let m = run_json(&args);
    assert!(m.contains_key("scale_limit_lower") && m.contains_key("scale_limit_upper"));
    assert!(m.contains_key("fcfs_exponential_scale_limit"));
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let r = ["redundancy", "exact"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = r.to_vec();
        v.extend_from_slice(extra);
        v
    };
    expect_bad(
        &with(&["--servers", "2", "--class", "3:0.5", "--policy", "fcfs"]),
        &["server 3", "out of range"],
    );
    expect_bad(
        &with(&["--servers", "2", "--class", ":0.5", "--policy", "fcfs"]),
        &["empty"],
    );
    expect_bad(
        &with(&["--servers", "2", "--class", "1:-0.5", "--policy", "fcfs"]),
        &["positive"],
    );
    expect_bad(
        &with(&["--servers", "2", "--class", "1:0.5", "--policy", "sjf"]),
        &["unknown policy", "sjf"],
    );
    expect_bad(
        &with(&["--rates", "1,0", "--class", "1:0.5", "--policy", "fcfs"]),
        &["rate of server 2"],
    );
    expect_bad(
        &with(&[
            "--system",
            "w-model",
            "--lambdas",
            "0.3",
            "--policy",
            "fcfs",
        ]),
        &["3 arrival rates"],
    );
    expect_bad(
        &with(&[
            "--system",
            "v-model",
            "--lambdas",
            "0.3",
            "--policy",
            "fcfs",
        ]),
        &["no preset of that name"],
    );
    expect_bad(
        &with(&[
            "--servers",
            "2",
            "--class",
            "1:0.5",
            "--policy",
            "fcfs",
            "--preemptive",
        ]),
        &["preemptive"],
    );
    expect_bad(
        &[
            "redundancy",
            "simulate",
            "--servers",
            "2",
            "--class",
            "1:0.5",
            "--policy",
            "fcfs",
            "--copies",
            "twins",
        ],
        &["copy model"],
    );
    expect_bad(
        &[
            "redundancy",
            "simulate",
            "--servers",
            "2",
            "--class",
            "1:0.5",
            "--policy",
            "fcfs",
            "--dist",
            "gamma:k=2",
        ],
        &["unknown family"],
    );
    expect_bad(&with(&["--servers", "2", "--policy", "fcfs"]), &["--class"]);
    // Redundancy-d under LRF-FCFS: ranks tie at every server, no exact chain.
    expect_bad(
        &with(&[
            "--system",
            "redundancy-d:k=3,d=2",
            "--lambdas",
            "1",
            "--policy",
            "lrf-fcfs",
        ]),
        &["rank alike"],
    );
}

#[test]
fn a_system_that_is_no_preset_is_told_so() {
    // `--system empirical` is neither a preset nor a file: say that, not "needs --lambdas".
    let line = expect_bad(
        &[
            "redundancy",
            "exact",
            "--policy",
            "fcfs",
            "--system",
            "empirical",
        ],
        &["empirical", "no preset", "n-model"],
    );
    assert!(!line.contains("needs --lambdas"), "{line}");
    // A preset without its rates is told how many it needs.
    expect_bad(
        &[
            "redundancy",
            "exact",
            "--policy",
            "fcfs",
            "--system",
            "n-model",
        ],
        &["2 arrival rates", "--lambdas"],
    );
}

/// The README's sentence on the redundancy keys: the list of `exact`'s keys, and the
/// clause that says how `simulate`'s differ.
fn readme_redundancy_keys() -> (Vec<String>, String) {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let start = flat
        .find("Keys of `exact`: `")
        .expect("README lists exact's keys")
        + 18;
    let end = start + flat[start..].find('`').expect("closing backquote");
    let mut depth = 0;
    let mut keys = Vec::new();
    let mut cur = String::new();
    for c in flat[start..end].chars() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => keys.push(std::mem::take(&mut cur)),
            _ if depth == 0 => cur.push(c),
            _ => {}
        }
    }
    keys.push(cur);
    let keys = keys.into_iter().map(|k| k.trim().to_string()).collect();
    let rest = &flat[end..];
    let sim = rest
        .find("`simulate`")
        .map(|i| rest[i..].split(';').next().unwrap_or("").to_string())
        .expect("README says what simulate's keys are");
    (keys, sim)
}

#[test]
fn readme_says_which_exact_keys_simulate_lacks() {
    let (keys, sim_words) = readme_redundancy_keys();
    let mut exact = vec!["redundancy", "exact", "--policy", "fcfs"];
    exact.extend(W);
    let e = run_json(&exact);
    let mut simulate = vec![
        "redundancy",
        "simulate",
        "--policy",
        "fcfs",
        "--jobs",
        "20000",
        "--replications",
        "2",
    ];
    simulate.extend(W);
    let s = run_json(&simulate);
    for k in &keys {
        assert!(
            e.contains_key(k),
            "README lists {k} among exact's keys: {e:?}"
        );
        if !s.contains_key(k) {
            assert!(
                sim_words.contains(&format!("`{k}`")),
                "simulate has no {k}, and the README's words on simulate do not say so: {sim_words}"
            );
        }
    }
}

/// `redundancy exact --max-states`: the limit every truncation of a chain keeps to.
#[test]
fn exact_keeps_its_chains_within_max_states() {
    let n_model = |limit: Option<&'static str>| -> Vec<&'static str> {
        let mut v = vec![
            "redundancy",
            "exact",
            "--system",
            "n-model",
            "--lambdas",
            "0.1,1.7",
            "--policy",
            "lrf-fcfs",
            "--digits",
            "12",
            "--format",
            "json",
        ];
        if let Some(l) = limit {
            v.extend(["--max-states", l]);
        }
        v
    };
    expect_bad(
        &n_model(Some("0")),
        &["--max-states must be at least 1, got 0"],
    );
    expect_bad(
        &n_model(Some("-5")),
        &["--max-states must be at least 1, got -5"],
    );
    // Its certified truncations hold 3 235 and then 10 151 states at 12 digits
    // (TASKASSIGN_TRACE_EXACT, 2026-12-04; a simplex of about 31.5 nats is the least the
    // digits need), and its pilot boxes 157 and 343 (2026-12-07): 300 states hold none of
    // them (1 000 hold a pair of the estimate, which prints a digit). A numerical failure
    // (exit 3), one line naming the limit given and the option that raises it, nothing on
    // stdout.
    let r = common::run(n_model(Some("300")));
    assert_eq!(r.code, 3, "stderr: {}", r.stderr);
    assert!(r.stdout.is_empty(), "stdout: {}", r.stdout);
    assert_eq!(r.stderr.trim_end().lines().count(), 1, "{}", r.stderr);
    for needle in [
        "300 states",
        "raise --max-states",
        "fewer --digits",
        "redundancy simulate",
    ] {
        assert!(r.stderr.contains(needle), "no '{needle}' in: {}", r.stderr);
    }
    // 20 000 states hold them: the same values as the default limit (2·10⁶), from a chain
    // of at most 20 000 states (the method names its states).
    let small = run_json(&n_model(Some("20000")));
    let default = run_json(&n_model(None));
    assert_eq!(small["digits"], 12);
    for k in ["mean_number", "mean_response", "classes"] {
        assert_eq!(small[k], default[k], "{k}");
    }
    assert!(method_states(&small) <= 20_000, "{}", small["method"]);
}

/// The states a record's `method` names ("… (N states …").
fn method_states(o: &serde_json::Map<String, Value>) -> usize {
    let method = o["method"].as_str().unwrap();
    method
        .split_once('(')
        .and_then(|(_, t)| t.split_once(" states"))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("no state count in: {method}"))
}

/// `args` (12 digits asked) under the default state limit, where all 12 are printed, and
/// under `limit`, where fewer are: the limited run's note names `needle`, the limit and the
/// way out, and its chain keeps to the limit. Returns both records and the limited digits.
fn limited_against_default(
    args: &str,
    limit: usize,
    needle: &str,
) -> (
    serde_json::Map<String, Value>,
    serde_json::Map<String, Value>,
    usize,
) {
    let full = exact_json(args);
    let cut = exact_json(&format!("{args} --max-states {limit}"));
    assert_eq!(full["digits"], 12);
    let digits = cut["digits"].as_u64().unwrap() as usize;
    assert!((1..12).contains(&digits), "digits {digits}");
    let note = cut["note"].as_str().unwrap();
    for n in [needle, &limit.to_string(), "raise --max-states"] {
        assert!(note.contains(n), "no '{n}' in: {note}");
    }
    assert!(method_states(&cut) <= limit, "{}", cut["method"]);
    (full, cut, digits)
}

/// A state limit that holds the first certified truncation but not the one the digits need:
/// the largest truncation the limit holds is solved, and what it proves is printed (not a
/// failure, and not the estimate, which would need two truncations of that size).
#[test]
fn a_state_limit_short_of_the_digits_proves_the_largest_truncation_it_holds() {
    // N-model (0.1, 1.7) under LRF-FCFS at 12 digits: certified truncations of 3 235 and
    // then about 10 000 states (TASKASSIGN_TRACE_EXACT, 2026-12-07), so 8 000 states hold
    // the first and not the second. Source of the value: the same chain under the default
    // limit, whose 12 digits are proven on a larger truncation; the limited enclosure must
    // contain every point of that one's (both enclose the one infinite chain's value, and
    // the smaller truncation's is the wider).
    let (full, cut, _) = limited_against_default(
        "--system n-model --lambdas 0.1,1.7 --policy lrf-fcfs --digits 12",
        8000,
        "largest that fits",
    );
    for k in ["mean_number", "mean_response"] {
        assert_holds_enclosure(&cut, &full, k);
    }
}

/// Without a proof within the limit, the estimate (two truncations compared) meets the same
/// rule: when the truncation the digits need and its comparison do not fit, the largest
/// pair that fits is solved and the digits they agree on are printed with the reason.
#[test]
fn a_state_limit_short_of_the_digits_compares_the_largest_pair_it_holds() {
    // N-model (0.1, 1.7) under ROS at 12 digits: proven under the default limit on
    // 92 897 states; with 30 000 the proof (a quarter of the limit for its summed
    // certificate) gets 1 digit, and the estimate's box needs about 49 000 states for its
    // pair (TASKASSIGN_TRACE_EXACT, 2026-12-07). Source of the value: the default run's
    // proven 12 digits; the estimate's fewer digits must be that value rounded to them.
    let (full, cut, digits) = limited_against_default(
        "--system n-model --lambdas 0.1,1.7 --policy ros --digits 12",
        30_000,
        "largest pair that fits",
    );
    for k in ["mean_number", "mean_response"] {
        assert!(
            figures(cut[k].as_str().unwrap()) >= digits,
            "{k}: {}",
            cut[k]
        );
        assert_rounds(&cut, &full, k);
    }
    // The proof that stopped short prints its enclosures of E[N] and E[T] in the
    // truncation's words; each must hold the default run's proven value (the same infinite
    // chain's), and the estimate must say it was checked against them.
    let t = cut["truncation"].as_str().unwrap();
    assert!(
        t.starts_with("estimate beyond the proof: a certificate was found"),
        "{t}"
    );
    assert!(t.contains("within every enclosure it proves"), "{t}");
    for (name, k) in [("E[N] in [", "mean_number"), ("E[T] in [", "mean_response")] {
        let at = t
            .find(name)
            .unwrap_or_else(|| panic!("no '{name}' in: {t}"))
            + name.len();
        let (lo, rest) = t[at..].split_once(", ").unwrap();
        let hi = rest.split_once(']').unwrap().0;
        let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
        let (flo, fhi) = (
            num(&full[&format!("{k}_lo")]),
            num(&full[&format!("{k}_hi")]),
        );
        assert!(
            lo <= flo && fhi <= hi && hi - lo < 1.0,
            "{k}: [{lo}, {hi}] does not hold [{flo}, {fhi}]"
        );
    }
}

/// The comparison of a pair cut to fit the state limit can itself meet the limit (a
/// chain's states per class-count vector grow with the budget): the pair is then cut
/// again from what the exploration missed, and a pair that still agrees on no digit is one
/// line naming the pair and the limit, not the explorer's bare limit.
#[test]
fn a_comparison_that_meets_the_state_limit_cuts_the_pair_again() {
    // Nested-3 at 0.9 of capacity under LRF-FCFS, 12 digits, the default limit
    // (TASKASSIGN_TRACE_EXACT, 2026-12-07): the first truncation the estimate aims at
    // would hold about 1.9e7 states; cut from the pilot's 4.47 states per vector to 17.2
    // nats (738 267 states), whose 6.05 states per vector put its comparison past 2e6; cut
    // again to 15.9 and 20.5 nats (492 473 and 1 704 752 states), whose values agree on
    // no digit. Before, the first estimate alone exited 3. (With the pair aimed at 0.7 of
    // the limit the comparison's exploration met the limit first: cut at 16.6 nats, then
    // at 14.0 and 18.6.)
    let r = common::run([
        "redundancy",
        "exact",
        "--servers",
        "3",
        "--class",
        "1:0.4",
        "--class",
        "2:0.4",
        "--class",
        "1+2:0.6",
        "--class",
        "3:0.5",
        "--class",
        "1+2+3:0.8",
        "--policy",
        "lrf-fcfs",
        "--digits",
        "12",
    ]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let line = r.stderr.lines().last().unwrap_or_default();
    assert!(
        line.contains("agree on no digit") && line.contains("--max-states"),
        "{line}"
    );
    assert_eq!(line.matches("--max-states").count(), 1, "{line}");
    // The pair solved lies below the first cut's 17.2 nats: it was cut again.
    let pair = line
        .split("the largest pair that fits (budgets ")
        .nth(1)
        .and_then(|t| t.split(" nats)").next())
        .unwrap_or_else(|| panic!("{line}"));
    let budgets: Vec<f64> = pair
        .split(" and ")
        .map(|b| b.parse().unwrap_or(f64::NAN))
        .collect();
    assert!(
        budgets.len() == 2 && budgets[0] < 17.2 && budgets[1] > budgets[0],
        "{line}"
    );
}

/// The truncation the digits need fits the state limit and its comparison does not, or no
/// budget is left between the last truncation solved and the limit: the pair is cut to the
/// largest that fits, as where the first estimate already passed the limit, and its digits
/// printed with the reason.
#[test]
fn a_comparison_past_the_limit_after_a_truncation_that_fit_cuts_the_pair() {
    // Nested-3 at half its capacity under LRF-ROS (2026-12-07, TASKASSIGN_TRACE_EXACT): at
    // 6 digits the truncation the digits need (37.2 nats, 1 336 174 states) fits the
    // default limit and its comparison (about 2.3e6 states) does not. Before, that exited
    // 3 ("the truncation did not settle ... ask fewer --digits") while 10 digits asked
    // printed 6 estimated digits, its first estimate having passed the limit. Source of the
    // value: that 10-digit run, a pair of other truncations (budgets cut from 52.5 nats);
    // the 6-digit run's figures must be its value rounded to them.
    let args = "--servers 3 --class 1:0.2 --class 2:0.2 --class 1+2:0.3 --class 3:0.25 \
                --class 1+2+3:0.4 --policy lrf-ros";
    let six = exact_json(&format!("{args} --digits 6"));
    let ten = exact_json(&format!("{args} --digits 10"));
    let digits = six["digits"].as_u64().unwrap();
    assert!((1..6).contains(&digits), "digits {digits}");
    let note = six["note"].as_str().unwrap();
    for n in [
        "the comparison truncation (budget",
        "more than the limit 2000000",
        "the largest pair that fits",
        "raise --max-states",
    ] {
        assert!(note.contains(n), "no '{n}' in: {note}");
    }
    assert!(
        figures(ten["mean_number"].as_str().unwrap())
            > figures(six["mean_number"].as_str().unwrap()),
        "{} against {}",
        ten["mean_number"],
        six["mean_number"]
    );
    for k in ["mean_number", "mean_response"] {
        assert_rounds(&six, &ten, k);
    }
    // At 13 digits the budget the digits need (64.4 nats, about 1.9e7 states) leaves no
    // room above the last truncation solved: the pair is cut from below it. Before, that
    // exited 3 too ("the truncation 13 digits need ... ask fewer --digits").
    let thirteen = exact_json(&format!("{args} --digits 13"));
    let note = thirteen["note"].as_str().unwrap();
    for n in [
        "the truncation 13 digits need",
        "the largest pair that fits",
    ] {
        assert!(note.contains(n), "no '{n}' in: {note}");
    }
    assert!(thirteen["digits"].as_u64().unwrap() >= 1, "{note}");
    for k in ["mean_number", "mean_response"] {
        assert_rounds(&thirteen, &ten, k);
    }
}

/// A comparison whose exploration itself meets the state limit: the pair is cut again with
/// the states per vector scaled by what it missed, and the smaller pair's digits printed.
#[test]
fn a_comparison_whose_exploration_meets_the_limit_is_replaced_by_a_smaller_pair() {
    // Found by a random search over small systems (2026-12-07, TASKASSIGN_TRACE_EXACT):
    // classes {1+2} 0.267, {1} 0.2, {2} 0.537 on two unit servers under ROS, 12 digits,
    // 20 000 states. The box is cut to 15.5 nats (9 531 states, 3.84 per vector); its
    // comparison at 20.1 nats passes 20 000 while exploring; the pair is cut again to 13.9
    // and 18.5 nats (7 359 and 15 818 states), which agree on 4 digits. (The build before
    // the fall-back aimed its pair at 0.7 of the limit, which fit here: 5 digits; where a
    // comparison did not fit it exited 3.) Source of the value: the same chain under the
    // default limit, proven to 12 digits; the limited figures must be it rounded.
    let (full, cut, digits) = limited_against_default(
        "--servers 2 --class 1+2:0.267 --class 1:0.2 --class 2:0.537 --policy ros --digits 12",
        20_000,
        "largest pair that fits",
    );
    assert!(digits >= 2, "{digits}");
    let note = cut["note"].as_str().unwrap();
    let pair = note
        .split("the largest pair that fits (budgets ")
        .nth(1)
        .and_then(|t| t.split(" and ").next())
        .and_then(|b| b.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("{note}"));
    // Below the first cut's 15.5 nats: the pair was cut again.
    assert!(pair < 15.5, "{note}");
    for k in ["mean_number", "mean_response"] {
        assert_rounds(&cut, &full, k);
    }
}

/// Every chain policy on the N-model under a range of state limits: what a limit lets
/// through agrees with the value under the default limit, and a larger limit never prints
/// fewer digits.
#[test]
fn the_digits_a_state_limit_prints_agree_with_the_unlimited_chain_and_grow_with_it() {
    // Source of each value: the same chain at 12 digits under the default limit (proven
    // there, 10 151 to 164 546 states). A limited proven record must enclose that one's
    // enclosure; a limited estimate's printed figures must be that value rounded to them.
    // Limits from below the first truncation each policy solves to above the one it needs
    // (a sweep of the N-model and the W-model at (0.5, 0.5, 0.6) over 4-6 limits each,
    // 2026-12-07, found the digits monotone and every value consistent). At 1 000 and
    // 3 000 states the first truncation the estimate aims at is beyond the limit: LRF-FCFS
    // exited 3 there before the pair was cut to fit from the pilot's states per vector, and
    // must print a digit at both now.
    for policy in ["ros", "lrf-fcfs", "mrf-fcfs", "lrf-ros", "mrf-ros"] {
        let args = format!("--system n-model --lambdas 0.1,1.7 --policy {policy} --digits 12");
        let full = exact_json(&args);
        assert_eq!(full["digits"], 12, "{policy}");
        let mut last = 0;
        for limit in [1_000, 3_000, 6_000, 10_000, 20_000, 40_000] {
            let mut a: Vec<String> = vec!["redundancy".into(), "exact".into()];
            a.extend(args.split_whitespace().map(String::from));
            a.extend([
                "--max-states".into(),
                limit.to_string(),
                "--format".into(),
                "json".into(),
            ]);
            let r = common::run(a.iter().map(String::as_str).collect::<Vec<_>>());
            if r.code == 3 {
                // Below the first truncation: one line naming the limit.
                assert!(
                    r.stderr.contains("--max-states"),
                    "{policy} {limit}: {}",
                    r.stderr
                );
                assert_ne!(policy, "lrf-fcfs", "{limit}: {}", r.stderr);
                assert_eq!(
                    last, 0,
                    "{policy} {limit}: a failure after a larger limit printed"
                );
                continue;
            }
            assert_eq!(r.code, 0, "{policy} {limit}: {}", r.stderr);
            let cut: serde_json::Map<String, Value> = serde_json::from_str(&r.stdout).unwrap();
            let digits = cut["digits"].as_u64().unwrap();
            assert!(
                digits >= last,
                "{policy}: {digits} digits at {limit}, {last} below it"
            );
            last = digits;
            assert!(
                method_states(&cut) <= limit,
                "{policy} {limit}: {}",
                cut["method"]
            );
            if cut["truncation"].as_str().unwrap().starts_with("proven") {
                assert_holds_enclosure(&cut, &full, "mean_number");
            } else {
                assert_rounds(&cut, &full, "mean_number");
            }
        }
        assert!(last >= 1, "{policy}: no limit printed a digit");
    }
}

/// `lo <= x <= hi` for the decimal ends `K_lo`, `K_hi` of a record and an exact rational x.
fn encloses(o: &serde_json::Map<String, Value>, key: &str, x: &rug::Rational) -> bool {
    let end = |k: String| decimal(o, &k);
    end(format!("{key}_lo")) <= *x && *x <= end(format!("{key}_hi"))
}

/// The decimal string d.ddde±X of `o[k]` as an exact rational.
fn decimal(o: &serde_json::Map<String, Value>, k: &str) -> rug::Rational {
    use rug::ops::Pow;
    let s = o[k].as_str().unwrap_or_else(|| panic!("{k} missing"));
    let (m, e) = s.split_once('e').expect("scientific notation");
    let (int, frac) = m.split_once('.').unwrap_or((m, ""));
    let digits: rug::Integer = format!("{int}{frac}").parse().unwrap();
    let exp: i32 = e.parse::<i32>().unwrap() - frac.len() as i32;
    let ten = rug::Rational::from(10);
    let scale = if exp >= 0 {
        ten.clone().pow(exp as u32)
    } else {
        ten.pow(-exp as u32).recip()
    };
    rug::Rational::from(digits) * scale
}

/// `cut`'s proven enclosure of `key` holds `full`'s: both enclose the one infinite chain's
/// value, and a smaller truncation's is the wider.
fn assert_holds_enclosure(
    cut: &serde_json::Map<String, Value>,
    full: &serde_json::Map<String, Value>,
    key: &str,
) {
    let (lo, hi) = (format!("{key}_lo"), format!("{key}_hi"));
    assert!(
        decimal(cut, &lo) <= decimal(full, &lo) && decimal(full, &hi) <= decimal(cut, &hi),
        "{key}: [{}, {}] does not hold [{}, {}]",
        cut[&lo],
        cut[&hi],
        full[&lo],
        full[&hi]
    );
}

/// The significant figures of a printed number d.ddde±X.
fn figures(printed: &str) -> usize {
    let mantissa = printed.split('e').next().unwrap();
    mantissa.chars().filter(char::is_ascii_digit).count()
}

/// `cut`'s printed `key` is `full`'s value rounded to its own figures (the record's
/// `digits` is the fewest over every value printed).
fn assert_rounds(
    cut: &serde_json::Map<String, Value>,
    full: &serde_json::Map<String, Value>,
    key: &str,
) {
    let printed = cut[key].as_str().unwrap();
    let exact: f64 = full[key].as_str().unwrap().parse().unwrap();
    let rounded: f64 = format!("{:.*e}", figures(printed) - 1, exact)
        .parse()
        .unwrap();
    assert_eq!(
        printed.parse::<f64>().unwrap(),
        rounded,
        "{key}: {printed} against {exact}"
    );
}

/// `taskassign redundancy exact ARGS --format json`, the arguments as one line.
fn exact_json(args: &str) -> serde_json::Map<String, Value> {
    let mut a = vec!["redundancy", "exact"];
    a.extend(args.split_whitespace());
    a.extend(["--format", "json"]);
    run_json(&a)
}

#[test]
fn rigorous_fcfs_encloses_the_closed_forms_and_refuses_the_chains() {
    use rug::Rational;
    let r = |a: i32, b: i32| Rational::from((a, b));
    // One class on both unit servers (issue 26's closed forms): M/M/1 at rate 2, ρ = 3/4,
    // E[N] = ρ/(1 − ρ) = 3 and E[T] = 1/(2 − 1.5) = 2.
    let m = exact_json("--servers 2 --class 1+2:1.5 --policy fcfs --digits 25 --rigorous");
    assert_eq!(m["proven_digits"], 25);
    assert!(encloses(&m, "mean_number", &r(3, 1)));
    assert!(encloses(&m, "mean_response", &r(2, 1)));
    // Two classes on their own servers: two M/M/1 queues, E[N_1] = 0.5/0.5 = 1,
    // E[N_2] = 0.25/0.75 = 1/3, E[T_1] = 2, E[T_2] = 4/3, E[N] = 4/3.
    let m =
        exact_json("--servers 2 --class 1:0.5 --class 2:0.25 --policy fcfs --digits 30 --rigorous");
    let classes = m["classes"].as_array().unwrap();
    let c = |i: usize| classes[i].as_object().unwrap();
    assert!(encloses(c(0), "mean_number", &r(1, 1)));
    assert!(encloses(c(1), "mean_number", &r(1, 3)));
    assert!(encloses(c(0), "mean_response", &r(2, 1)));
    assert!(encloses(c(1), "mean_response", &r(4, 3)));
    assert!(encloses(&m, "mean_number", &r(4, 3)));
    assert_eq!(c(1)["mean_number"], "3.33333333333333333333333333333e-1");
    // The W-model: the enclosure holds the certified value at 40 digits (the same phase
    // sum at two MPFR precisions rounded to nearest), and its printed digits are those of
    // the certified run at 20.
    let w = "--system w-model --lambdas 0.3,0.3,0.3 --policy fcfs --digits";
    let (p, c40, c20) = (
        exact_json(&format!("{w} 20 --rigorous")),
        exact_json(&format!("{w} 40")),
        exact_json(&format!("{w} 20")),
    );
    for key in ["mean_number", "mean_response"] {
        let text = c40[key].as_str().unwrap();
        let x = rug::Float::with_val(200, rug::Float::parse(text).unwrap())
            .to_rational()
            .unwrap();
        // The 40-digit value is within half a unit of its 40th digit of the exact one,
        // far inside the enclosure's width (a unit of the 23rd digit).
        assert!(encloses(&p, key, &x), "{key}");
        assert_eq!(p[key], c20[key], "{key}");
    }
    // The certified record's keys, in order, with the ends, proven_digits and notes added.
    let plain = |m: &serde_json::Map<String, Value>| -> Vec<String> {
        m.keys()
            .filter(|k| {
                !k.ends_with("_lo") && !k.ends_with("_hi") && *k != "proven_digits" && *k != "notes"
            })
            .cloned()
            .collect()
    };
    assert_eq!(plain(&p), plain(&c20));
    // A chain is never proven: one line, exit 2.
    expect_bad(
        &[
            "redundancy",
            "exact",
            "--system",
            "w-model",
            "--lambdas",
            "0.3,0.3,0.3",
            "--policy",
            "lrf-fcfs",
            "--rigorous",
        ],
        &["--rigorous", "FCFS product form", "lrf-fcfs"],
    );
}
