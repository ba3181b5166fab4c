//! The shipped catalogue (proofs-check/): every claim has its expected verdict, the run
//! fits the time budget, and the computed thresholds, optimal values and extrapolated
//! limits are locked by an insta snapshot as decimal strings with fixed significant digits.

use rug::Float;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use taskassign::claims::load_paths;
use taskassign::claims::run_all;
use taskassign::num::to_sci;

/// Significant digits locked for values (certified to 20; 12 leave room for the last
/// digits of values certified with fewer).
const SNAPSHOT_DIGITS: u32 = 12;
/// The catalogue's time budget in release mode on 2 cores (issue 4: "under two minutes").
const BUDGET: Duration = Duration::from_secs(120);
/// Precision used to re-round decimal strings for the snapshot.
const ROUND_BITS: u32 = 256;

/// `s` re-rounded to `k` significant digits (never more than it has).
fn round(s: &str, k: u32) -> String {
    match Float::parse(s.trim()) {
        Ok(p) => to_sci(&Float::with_val(ROUND_BITS, p), k),
        Err(_) => s.to_string(),
    }
}

#[test]
fn catalogue_runs_as_expected_within_budget_and_snapshot() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("proofs-check");
    let claims = load_paths(&[root]).expect("catalogue loads");
    assert!(
        claims.len() >= 15,
        "one file per CLAIMS.md size-routing row"
    );
    let t0 = Instant::now();
    let rs = run_all(&claims, &|_| {});
    let took = t0.elapsed();
    let mut snap = String::new();
    for r in &rs {
        for c in &r.checks {
            assert!(
                !c.fails_run(),
                "{}/{}: verdict {} but expected {} (worst: {} margin {})",
                r.claim.id,
                c.name,
                c.verdict.name(),
                c.expect.name(),
                c.worst_point,
                c.margin
            );
            snap.push_str(&format!(
                "## {}/{} {}\n",
                r.claim.id,
                c.name,
                c.verdict.name()
            ));
            for l in &c.limits {
                let at: Vec<String> = l.outer.iter().map(|(k, v)| format!("{k}={v}")).collect();
                snap.push_str(&format!(
                    "limit {} [{}] = {} ± {}\n",
                    l.towards,
                    at.join(" "),
                    l.estimate,
                    round(&l.error, 1)
                ));
            }
            if c.limits.is_empty() {
                for row in &c.rows {
                    let at: Vec<String> =
                        row.point.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    let v = match &row.value {
                        Ok(v) => round(v, SNAPSHOT_DIGITS.min(row.digits)),
                        Err(e) => format!("error: {e}"),
                    };
                    snap.push_str(&format!("{} = {v}\n", at.join(" ")));
                }
            }
        }
    }
    insta::assert_snapshot!(snap);
    // last, so that a run slowed by a loaded machine still shows whether the verdicts and
    // the values are right
    assert!(took < BUDGET, "catalogue took {took:?}");
}
