//! The property tier (issue 14): generated distribution specs, claim files and command lines
//! run through the binary. Whatever the input: no panic and no abort, an exit status in
//! {0, 1, 2, 3}, an error on exactly one line of stderr, and with `--format json` a valid
//! JSON document whose every number is finite and whose every numeric string is a finite
//! decimal (never `inf`/`nan`; `null` stands for what has no value).
//!
//! The default run is short (`FUZZ_CASES`, default 24 cases, seconds); `make test-fuzz` runs
//! the long one (`fuzz_long`, ignored by default, 3000 cases unless `FUZZ_CASES` says
//! otherwise) and prints the counts by outcome class. Counterexamples it found are checked in
//! as the regression cases at the end of this file (`found_cases_stay_fixed`).

mod common;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

/// Longest one generated invocation may take: the generator keeps hosts ≤ 8 and digits ≤ 40
/// (and simulations short), so a run longer than this is a hang worth reporting.
const CASE_TIMEOUT: Duration = Duration::from_secs(60);

fn num_text() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => prop::sample::select(vec![
            "1", "2", "0.5", "1.5", "3", "10", "1e10", "1e100", "0.001", "0.1", "7", "2.5",
        ]).prop_map(String::from),
        2 => prop::sample::select(vec![
            "0", "-1", "1e-30", "1e30", "1e100000", "1e-100000", "1e1000000000", "inf", "nan",
            "", "abc", "1e", "--1", "0x10", "1,5", "+2", " 1", "1e99999999999",
        ]).prop_map(String::from),
        1 => (1u32..1000).prop_map(|n| format!("{}", f64::from(n) / 37.0)),
    ]
}

fn dist_spec() -> impl Strategy<Value = String> {
    let fam = prop::sample::select(vec![
        ("bp", vec!["k", "p", "alpha"]),
        ("pareto", vec!["k", "alpha"]),
        ("exp", vec!["rate"]),
        ("uniform", vec!["a", "b"]),
        ("det", vec!["x"]),
        ("hyperexp", vec!["p", "rate1", "rate2"]),
        ("weibull", vec!["shape", "scale"]),
        ("lognormal", vec!["mu", "sigma"]),
    ]);
    prop_oneof![
        16 => (fam, prop::collection::vec(num_text(), 3)).prop_map(|((f, keys), vals)| {
            let kv: Vec<String> = keys.iter().zip(&vals).map(|(k, v)| format!("{k}={v}")).collect();
            format!("{f}:{}", kv.join(","))
        }),
        1 => "[a-z]{0,8}:?[a-z=0-9.,]{0,16}",
        1 => prop::sample::select(vec![
            "bp:k=1,p=1e10", "exp:rate=1,rate=2", "exp", "exp:", ":rate=1", "exp:rate",
            "empirical:file=/nonexistent", "bp:k=2,p=1,alpha=1", "uniform:a=1,b=1",
        ]).prop_map(String::from),
    ]
}

fn hosts_text() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => (1u32..=8).prop_map(|h| h.to_string()),
        1 => prop::sample::select(vec!["0", "-1", "abc", "1e6", "1.5", "inf", "", "1e30"])
            .prop_map(String::from),
    ]
}

fn load_text() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::sample::select(vec!["0.3", "0.5", "0.8", "0.95", "1.2", "1.5", "2.5"])
            .prop_map(String::from),
        1 => num_text(),
    ]
}

fn digits_text() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => prop::sample::select(vec!["5", "10", "15", "20", "30", "40"]).prop_map(String::from),
        1 => prop::sample::select(vec!["0", "-3", "10001", "abc", "1e3"]).prop_map(String::from),
    ]
}

/// A generated invocation: the arguments, and a claim file's text if it needs one.
#[derive(Debug, Clone)]
struct Case {
    args: Vec<String>,
    claim: Option<String>,
}

fn claim_text() -> impl Strategy<Value = String> {
    let quantity = prop::sample::select(vec![
        "threshold()",
        "opt(tags).value",
        "opt(sita).value / opt(tags).value",
        "opt(sita).value",
        "threshold()",
        "eval(sita).value",
        "ln(opt(sita-e).value)",
        "tags_stable() - 0.5",
        "nosuch(1)",
        "opt(tags, hosts=1000000).value",
        "1/0",
        "ln(0)",
        "opt(",
    ]);
    let relation = prop::sample::select(vec!["<=", "==", ">", "increasing", "argmax", "bogus"]);
    (dist_spec(), quantity, relation, hosts_text(), load_text(), num_text()).prop_map(
        |(d, q, r, h, l, b)| {
            let extra = match r {
                "increasing" | "decreasing" => "along = \"h\"\n[check.grid]\nh = [2, 3]\n",
                "==" => "tolerance = \"1e-3\"\n",
                _ => "",
            };
            format!(
                "id = \"fuzz\"\nstatement = \"generated\"\nreading = \"generated\"\n\n[source]\npaper = \"none\"\nseed = \"none\"\nwords = \"none\"\nlocation = \"none\"\n\n[setup]\ndist = \"{d}\"\nhosts = \"h\"\nload = \"{l}\"\ndigits = 10\n\n[grid]\nh = [{h}]\n\n[[check]]\nname = \"c\"\nquantity = \"{q}\"\nrelation = \"{r}\"\nbound = \"{b}\"\n{extra}"
            )
        },
    )
}

fn case() -> impl Strategy<Value = Case> {
    let fmt = prop::sample::select(vec!["text", "json"]);
    let eval = (1usize..=6)
        .prop_flat_map(|h| {
            (
                Just(h),
                prop::sample::select(vec!["sita", "tags", "random", "bogus"]),
                dist_spec(),
                load_text(),
                digits_text(),
                prop::collection::vec(
                    prop::sample::select(vec!["0.5", "1", "2", "5", "10", "100", "1e5", "x", "-1"]),
                    h.saturating_sub(1),
                ),
                prop::bool::weighted(0.1),
                prop::sample::select(vec!["text", "json"]),
            )
        })
        .prop_map(|(h, p, d, l, dg, mut cuts, wrong_count, f)| {
            let hs = h.to_string();
            let mut a = vec![
                "eval", "--policy", p, "--dist", &d, "--hosts", &hs, "--load", &l,
            ];
            a.extend(["--digits", &dg, "--format", f]);
            // Increasing cutoffs as a rule (sorted by value where they parse), the wrong
            // count now and then.
            cuts.sort_by(|x, y| {
                let (a, b) = (x.parse::<f64>(), y.parse::<f64>());
                match (a, b) {
                    (Ok(a), Ok(b)) => a.total_cmp(&b),
                    _ => std::cmp::Ordering::Equal,
                }
            });
            cuts.dedup();
            if wrong_count {
                cuts.push("3");
            }
            let joined = cuts.join(",");
            if p != "random" && !cuts.is_empty() {
                a.extend(["--cutoffs", &joined]);
            }
            Case {
                args: a.into_iter().map(String::from).collect(),
                claim: None,
            }
        });
    let optimize = (
        prop::sample::select(vec![
            "sita",
            "tags",
            "sita-e",
            "tags-minmax",
            "both",
            "bogus",
        ]),
        dist_spec(),
        hosts_text(),
        load_text(),
        prop::sample::select(vec!["5", "10", "15", "20", "0"]),
        fmt.clone(),
    )
        .prop_map(|(p, d, h, l, dg, f)| Case {
            args: [
                "optimize", "--policy", p, "--dist", &d, "--hosts", &h, "--load", &l, "--digits",
                dg, "--format", f,
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            claim: None,
        });
    // `threshold` at 10^6 hosts runs the greedy construction 10^6 times (minutes: a slow
    // case of issue 14 left open), so its host counts here stop at 8, `inf` and bad ones.
    let threshold_hosts = prop_oneof![
        12 => (1u32..=8).prop_map(|h| h.to_string()),
        1 => prop::sample::select(vec!["0", "-1", "abc", "1.5", "inf", "", "1e30"])
            .prop_map(String::from),
    ];
    let threshold =
        (dist_spec(), threshold_hosts, digits_text(), fmt.clone()).prop_map(|(d, h, dg, f)| Case {
            args: [
                "threshold",
                "--dist",
                &d,
                "--hosts",
                &h,
                "--digits",
                &dg,
                "--format",
                f,
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            claim: None,
        });
    let simulate = (
        prop::sample::select(vec!["sita", "tags", "random", "lwl", "rr", "jsq"]),
        dist_spec(),
        hosts_text(),
        load_text(),
        fmt.clone(),
    )
        .prop_map(|(p, d, h, l, f)| Case {
            args: [
                "simulate",
                "--policy",
                p,
                "--dist",
                &d,
                "--hosts",
                &h,
                "--load",
                &l,
                "--jobs",
                "2000",
                "--replications",
                "2",
                "--format",
                f,
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            claim: None,
        });
    let check = (claim_text(), fmt).prop_map(|(c, f)| Case {
        args: ["check", "--format", f]
            .into_iter()
            .map(String::from)
            .collect(),
        claim: Some(c),
    });
    let junk = prop::collection::vec("[-a-z0-9=:.,]{0,12}", 0..6).prop_map(|v| Case {
        args: v,
        claim: None,
    });
    prop_oneof![3 => eval, 2 => optimize, 2 => threshold, 1 => simulate, 1 => check, 1 => junk]
}

/// Every JSON number finite, every string that reads as a number a finite one.
fn json_finite(v: &serde_json::Value, path: &str) -> Result<(), String> {
    use serde_json::Value;
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() => Ok(()),
            _ => Err(format!("{path}: number {n} is not finite")),
        },
        Value::String(s) => {
            let t = s.trim().to_ascii_lowercase();
            let t = t.trim_start_matches(['-', '+']);
            if ["inf", "infinity", "nan"].contains(&t) {
                Err(format!("{path}: non-finite number string {s:?}"))
            } else {
                Ok(())
            }
        }
        Value::Array(a) => a
            .iter()
            .enumerate()
            .try_for_each(|(i, x)| json_finite(x, &format!("{path}[{i}]"))),
        // `hosts: "inf"` is the contract's h → ∞ (ARCHITECTURE.md), a count, not a number.
        Value::Object(o) => o
            .iter()
            .filter(|(k, x)| !(k.as_str() == "hosts" && x.as_str() == Some("inf")))
            .try_for_each(|(k, x)| json_finite(x, &format!("{path}.{k}"))),
        _ => Ok(()),
    }
}

/// The outcome class of one run (what the long run counts).
fn run_case(c: &Case) -> Result<String, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut args = c.args.clone();
    if let Some(text) = &c.claim {
        let p = dir.path().join("fuzz.toml");
        std::fs::write(&p, text).map_err(|e| e.to_string())?;
        args.push(p.display().to_string());
    }
    let mut cmd = common::taskassign();
    cmd.timeout(CASE_TIMEOUT)
        .args(&args)
        .current_dir(dir.path());
    let out = cmd.output().map_err(|e| format!("{args:?}: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let Some(code) = out.status.code() else {
        return Err(format!(
            "{args:?}: killed by a signal or timed out ({:?}); stderr: {stderr}",
            out.status
        ));
    };
    if stderr.contains("panicked") || code == 101 {
        return Err(format!("{args:?}: panic (exit {code}): {stderr}"));
    }
    if !(0..=3).contains(&code) {
        return Err(format!("{args:?}: exit {code}: {stderr}"));
    }
    let is_check = args.first().is_some_and(|a| a == "check");
    let is_help = stdout.starts_with("Usage") || stdout.contains("\nUsage:");
    if code == 2 || (code == 3 && !is_check) {
        // Progress lines (a long run's periodic `taskassign: progress:` lines) are not part
        // of the error.
        let lines = stderr
            .trim_end()
            .lines()
            .filter(|l| !l.starts_with("taskassign: progress:"))
            .count();
        // clap's usage errors carry a usage block after the error line: the first line is
        // the error (clap's own format), the rest its help; ours must be exactly one line.
        let clap = stderr.starts_with("error:");
        if lines != 1 && !clap {
            return Err(format!(
                "{args:?}: exit {code} with {lines} lines of stderr: {stderr}"
            ));
        }
    }
    let json = args
        .windows(2)
        .any(|w| w[0] == "--format" && w[1] == "json");
    if json && (code == 0 || (is_check && code <= 3 && !stdout.trim().is_empty())) && !is_help {
        let v: serde_json::Value = serde_json::from_str(&stdout)
            .map_err(|e| format!("{args:?}: invalid JSON ({e}): {stdout}"))?;
        json_finite(&v, "$").map_err(|e| format!("{args:?}: {e}"))?;
    }
    if !json && code == 0 && !is_help {
        for l in stdout.lines() {
            let words: Vec<&str> = l.split([' ', ',']).collect();
            if words.iter().any(|w| *w == "nan" || *w == "NaN") {
                return Err(format!("{args:?}: NaN printed: {l}"));
            }
        }
    }
    let cmd = args.first().map(String::as_str).unwrap_or("(none)");
    let cmd = if ["eval", "optimize", "threshold", "simulate", "check"].contains(&cmd) {
        cmd
    } else {
        "other"
    };
    Ok(format!("{cmd} exit {code}"))
}

/// The seed of the default (short) tier: fixed, so that CI runs the same cases every time
/// and a red run reproduces anywhere. The long tier draws a fresh seed unless `FUZZ_SEED`
/// (32 hex digits) names one, and prints it.
const SHORT_TIER_SEED: u128 = 0x7a5c_a551_9e00_0000_0000_0000_0000_0017;

/// Time the runner may spend shrinking a failure: each candidate runs the binary (up to
/// [`CASE_TIMEOUT`] for a hang), so an unbounded shrink of a hang took 18 min on CI.
const MAX_SHRINK_TIME: Duration = Duration::from_secs(180);

fn run_tier(cases: u32, seed: u128) -> BTreeMap<String, u32> {
    let counts = Mutex::new(BTreeMap::new());
    let config = Config {
        cases,
        // Each case runs the binary; shrinking a failure is still worth a few hundred runs.
        max_shrink_iters: 200,
        max_shrink_time: MAX_SHRINK_TIME.as_millis() as u32,
        failure_persistence: None,
        ..Config::default()
    };
    // ChaCha takes 32 bytes: the 128-bit seed twice.
    let mut bytes = [0u8; 32];
    bytes[..16].copy_from_slice(&seed.to_le_bytes());
    bytes[16..].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let r = runner.run(&case(), |c| {
        let class = run_case(&c).map_err(TestCaseError::fail)?;
        *counts.lock().expect("counts").entry(class).or_insert(0) += 1;
        Ok(())
    });
    let counts = counts.into_inner().expect("counts");
    if let Err(e) = r {
        panic!("property tier: {e}\ncounts so far: {counts:?}");
    }
    counts
}

fn cases_from_env(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn seed_from_env() -> Option<u128> {
    let s = std::env::var("FUZZ_SEED").ok()?;
    Some(u128::from_str_radix(s.trim_start_matches("0x"), 16).expect("FUZZ_SEED: hex digits"))
}

#[test]
fn fuzz_short() {
    let counts = run_tier(
        cases_from_env(24),
        seed_from_env().unwrap_or(SHORT_TIER_SEED),
    );
    eprintln!("fuzz_short counts by outcome: {counts:?}");
}

#[test]
#[ignore = "long: make test-fuzz"]
fn fuzz_long() {
    let n = cases_from_env(3000);
    let seed = seed_from_env().unwrap_or_else(|| {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        t ^ (u128::from(std::process::id()) << 64)
    });
    eprintln!("fuzz_long: seed FUZZ_SEED={seed:032x} (set it to rerun these cases)");
    let counts = run_tier(n, seed);
    let total: u32 = counts.values().sum();
    eprintln!(
        "fuzz_long: {total} cases, 0 panics, 0 aborts, 0 non-finite numbers, 0 multi-line errors"
    );
    for (k, v) in &counts {
        eprintln!("  {k:<20} {v}");
    }
}

/// Inputs the property tier found (shrunk), kept as fixed cases through the same checks.
#[test]
fn found_cases_stay_fixed() {
    let cases: &[&[&str]] = &[
        // fuzz_long case 411 and CI's fuzz_short (stop 17): ran for hours (Weibull shape
        // 0.001 makes the gamma shapes 1001 and 2001); tests/reliability.rs checks its numbers.
        &[
            "optimize",
            "--policy",
            "sita",
            "--dist",
            "weibull:shape=0.001,scale=1",
            "--hosts",
            "2",
            "--load",
            "0.3",
            "--digits",
            "5",
            "--format",
            "text",
        ],
    ];
    for args in cases {
        let c = Case {
            args: args.iter().map(|a| a.to_string()).collect(),
            claim: None,
        };
        run_case(&c).unwrap_or_else(|e| panic!("{e}"));
    }
}
