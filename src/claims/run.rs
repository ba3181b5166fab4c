//! Running a claim: every grid point at two precisions (in parallel), limits by
//! extrapolation, relations, verdicts, margins and the worst point.
//!
//! A check runs in named steps: its points are expanded from the grid
//! ([`points::expand`]) and evaluated ([`points::eval_points`]); with a limit, each
//! point's sequence is extrapolated ([`limit::limits`]); the relation judges the values
//! ([`judge::judge_items`]) and the independent expected values are compared
//! ([`expected::expected_values`]); the worst comparison decides the check.

mod expected;
mod judge;
mod limit;
mod points;
mod result;

pub use result::{CheckResult, ClaimResult, Judged, LimitRow, Row};

use super::cache::Cache;
use super::compile::{Check, Claim};
use super::error::QuantityError;
use super::grid;
use super::scope::COARSE_STAGES;
use super::verdict::Verdict;
use crate::num::certify_bits;
use judge::Item;
use rayon::prelude::*;
use std::cmp::Ordering as Order;
use std::sync::atomic::{AtomicBool, Ordering};

/// Runs one check of a claim.
pub fn run_check(claim: &Claim, check: &Check, cache: &Cache) -> CheckResult {
    let (outer, points) = points::expand(check);
    // Under `--rigorous` the proofs run in stages: first the costly ones (a proven
    // optimum) to a few digits on a small budget ([`COARSE_STAGES`] coarse stages, each
    // with a larger one), which decide most relations; a check they leave undecided (its
    // enclosures too wide, not missing) is evaluated again with the proofs of the points
    // it reads at the next stage, the last to the claim's digits (the other points keep
    // their stage's, from the cache).
    let staged = claim.rigorous && check.limit.is_none();
    let mut stage_at = vec![staged.then_some(0); points.len()];
    let vals = points::eval_points(claim, check, &points, cache, &stage_at);
    let mut coarse = vals.iter().any(|v| v.as_ref().is_ok_and(|pv| pv.coarse));
    let (mut rows, mut limits, mut judged) = assess(check, &outer, &points, vals, claim.digits);
    while coarse {
        let refine: Vec<&Vec<(String, String)>> = judged
            .iter()
            .filter(|j| !matches!(j.proof, Some(Ok(()))))
            .flat_map(|j| &j.read)
            .collect();
        let mut moved = false;
        for (s, p) in stage_at.iter_mut().zip(&points) {
            if let Some(k) = *s {
                if refine.contains(&p) {
                    *s = (k + 1 < COARSE_STAGES).then_some(k + 1);
                    moved = true;
                }
            }
        }
        if !moved {
            break;
        }
        let vals = points::eval_points(claim, check, &points, cache, &stage_at);
        coarse = vals.iter().any(|v| v.as_ref().is_ok_and(|pv| pv.coarse));
        (rows, limits, judged) = assess(check, &outer, &points, vals, claim.digits);
    }
    judged.extend(expected::expected_values(claim, check, cache));
    let proof = claim.rigorous.then(|| proof_of(check, &mut judged));
    // The check's verdict is its worst comparison's; among those, the smallest relative
    // margin is the one reported.
    let verdict = judged
        .iter()
        .map(|j| j.verdict)
        .max()
        .unwrap_or(Verdict::Inconclusive);
    let worst = judged
        .iter()
        .filter(|j| j.verdict == verdict)
        .min_by(|a, b| {
            a.rel_margin
                .partial_cmp(&b.rel_margin)
                .unwrap_or(Order::Equal)
        });
    CheckResult {
        name: check.name.clone(),
        meaning: check.meaning.clone(),
        quantity: check.quantity_text.clone(),
        relation: relation_text(check),
        verdict,
        expect: check.expect,
        finding: check.finding.clone(),
        margin: worst.map_or_else(|| "-".into(), |w| w.margin.clone()),
        rel_margin: worst.map_or(f64::NEG_INFINITY, |w| w.rel_margin),
        rel_margin_text: worst.and_then(|w| w.rel_margin_text.clone()),
        worst_point: worst.map_or_else(|| "(no comparison)".into(), |w| w.label.clone()),
        rows,
        limits,
        judged,
        proof,
    }
}

/// A check's evaluated points as the report's rows, their limits (with a limit) and the
/// relation's comparisons of the values.
fn assess(
    check: &Check,
    outer: &[grid::Point],
    points: &[grid::Point],
    vals: Vec<Result<points::PointVal, QuantityError>>,
    digits: u32,
) -> (Vec<Row>, Vec<LimitRow>, Vec<Judged>) {
    let rows: Vec<Row> = points
        .iter()
        .zip(&vals)
        .map(|(p, v)| points::row(p, v, digits))
        .collect();
    // The values the relation judges: each point's, or each outer point's limit.
    let (limits, items) = match &check.limit {
        Some(l) => limit::limits(l, outer, vals, digits),
        None => {
            let bits = certify_bits(digits).1;
            let items = points
                .iter()
                .cloned()
                .zip(vals)
                .map(|(p, v)| match v {
                    Ok(pv) => Item::at_point(p, pv, digits),
                    Err(e) => Item::failed(p, e.to_string(), bits),
                })
                .collect();
            (vec![], items)
        }
    };
    let judged = judge::judge_items(check, &items);
    (rows, limits, judged)
}

/// Under `check --rigorous`: every comparison without a proof gets its reason (a limit is
/// never proven; a comparison that could not be made is not), and the check is proven
/// when every comparison is. The reason of an unproven check names how many comparisons
/// are not proven and the first one's reason.
fn proof_of(check: &Check, judged: &mut [Judged]) -> Result<(), String> {
    for j in judged.iter_mut() {
        if let Some(l) = &check.limit {
            j.proof = Some(Err(format!(
                "a limit ({} -> {}, extrapolated) is never proven",
                l.var,
                l.transform.towards()
            )));
        } else if j.proof.is_none() {
            j.proof = Some(Err("no value to enclose".into()));
        }
    }
    let open: Vec<&Judged> = judged
        .iter()
        .filter(|j| !matches!(j.proof, Some(Ok(()))))
        .collect();
    match open.first() {
        None if judged.is_empty() => Err("no comparison was made".into()),
        None => Ok(()),
        Some(first) => {
            let why = first
                .proof
                .as_ref()
                .and_then(|p| p.as_ref().err().cloned())
                .unwrap_or_default();
            Err(if check.limit.is_some() {
                why
            } else {
                format!(
                    "{} of {} comparisons not proven; {}: {why}",
                    open.len(),
                    judged.len(),
                    first.label
                )
            })
        }
    }
}

/// The relation as the report writes it: `<= BOUND`, `increasing along p`,
/// `argmax along k at k=3`.
fn relation_text(check: &Check) -> String {
    let name = check.relation.name();
    match (check.relation.is_along(), &check.along) {
        (true, Some(a)) => match &check.at {
            Some(at) => format!("{name} along {a} at {a}={at}"),
            None => format!("{name} along {a}"),
        },
        _ => format!("{name} {}", check.bound_text.clone().unwrap_or_default()),
    }
}

/// Runs every check of a claim (points in parallel; one cache per claim).
pub fn run_claim(claim: &Claim) -> ClaimResult {
    let cache = Cache::default();
    let (checks, check_seconds): (Vec<CheckResult>, Vec<f64>) = claim
        .checks
        .iter()
        .map(|c| {
            let t = std::time::Instant::now();
            let r = run_check(claim, c, &cache);
            (r, t.elapsed().as_secs_f64())
        })
        .unzip();
    let verdict = checks
        .iter()
        .map(|c| c.verdict)
        .max()
        .unwrap_or(Verdict::Inconclusive);
    // The deciding check: one that makes the run fail first, else the worst verdict with
    // the smallest relative margin.
    let worst_check = checks
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| {
            (!a.fails_run(), std::cmp::Reverse(a.verdict))
                .cmp(&(!b.fails_run(), std::cmp::Reverse(b.verdict)))
                .then(
                    a.rel_margin
                        .partial_cmp(&b.rel_margin)
                        .unwrap_or(Order::Equal),
                )
        })
        .map(|(i, _)| i)
        .unwrap_or(0);
    ClaimResult {
        claim: claim.clone(),
        verdict,
        checks,
        worst_check,
        check_seconds,
    }
}

/// Runs claims in parallel, calling `tick` as each finishes; results in input order.
pub fn run_all(claims: &[Claim], tick: &(dyn Fn(&ClaimResult) + Sync)) -> Vec<ClaimResult> {
    run_until(claims, tick, &AtomicBool::new(false))
}

/// As [`run_all`], but a claim that has not started when `stop` is set is not run: the
/// claims in progress finish (a claim is the unit of a report) and the results of those
/// that ran are returned, in input order.
pub fn run_until(
    claims: &[Claim],
    tick: &(dyn Fn(&ClaimResult) + Sync),
    stop: &AtomicBool,
) -> Vec<ClaimResult> {
    let rs: Vec<Option<ClaimResult>> = claims
        .par_iter()
        .map(|c| {
            if stop.load(Ordering::SeqCst) {
                return None;
            }
            let r = run_claim(c);
            tick(&r);
            Some(r)
        })
        .collect();
    rs.into_iter().flatten().collect()
}
