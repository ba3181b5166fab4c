//! The points of a check and their values: the grid (and the limit variable's values)
//! expanded into points, each evaluated at the two precisions with its bound and tolerance,
//! and the evaluated points as the report's rows.

use super::result::{sim_text, Row};
use crate::claims::cache::Cache;
use crate::claims::compile::{Check, Claim};
use crate::claims::error::QuantityError;
use crate::claims::grid::{self, Point};
use crate::claims::proof::{abs, Proof};
use crate::claims::registry;
use crate::claims::scope::Scope;
use crate::claims::value::Pair;
use crate::error::Classify;
use crate::num::certify::certify_pair;
use crate::num::interval::Interval;
use crate::num::parse_decimal;
use rayon::prelude::*;
use rug::Float;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Values at one point: quantity, bound, total tolerance (at the high precision).
pub(crate) struct PointVal {
    /// The quantity.
    pub q: Pair,
    /// The bound, for relations that have one.
    pub bound: Option<Pair>,
    /// The absolute tolerance plus the relative one times |bound|.
    pub tol: Float,
    /// Under `check --rigorous`: the tolerance's enclosure (or why there is none).
    pub tol_proof: Proof,
    /// A proof of the first stage stopped short of the claim's digits
    /// ([`Scope::coarse`]).
    pub coarse: bool,
}

/// The points of a check: the grid's points (`outer`), and the points evaluated — each
/// outer point followed by the limit variable's values in order when there is a limit (so
/// that one outer point's sequence is a contiguous run), the outer points themselves when
/// there is none.
pub(crate) fn expand(check: &Check) -> (Vec<Point>, Vec<Point>) {
    let outer = grid::points(&check.grid);
    let points = match &check.limit {
        None => outer.clone(),
        Some(l) => outer
            .iter()
            .flat_map(|o| {
                l.values.iter().map(move |v| {
                    let mut p = o.clone();
                    p.push((l.var.clone(), v.clone()));
                    p
                })
            })
            .collect(),
    };
    (outer, points)
}

/// The check's quantity, bound and tolerance at one point.
pub(crate) fn eval_point(
    claim: &Claim,
    check: &Check,
    point: &[(String, String)],
    cache: &Cache,
    stage: Option<usize>,
) -> Result<PointVal, QuantityError> {
    let vars: BTreeMap<String, String> = point.iter().cloned().collect();
    let flag = AtomicBool::new(false);
    let ctx = Scope::new(vars, claim.system.as_ref(), registry(), cache, claim.digits)
        // A limit is never proven: its terms are not enclosed (that would only cost time).
        .with_rigour(claim.rigorous && check.limit.is_none())
        .with_stage(stage, &flag);
    let bits = ctx.bits;
    let q = ctx.eval_value(&check.quantity)?;
    if q.hi.is_nan() || q.lo.is_nan() {
        return Err(QuantityError::Undefined(
            "the quantity is not a number (NaN)".into(),
        ));
    }
    let bound = match &check.bound {
        Some(b) => Some(ctx.eval_value(b)?),
        None => None,
    };
    // The tolerance the relation allows: absolute, plus relative to a finite bound.
    let tol_pair = ctx.eval_value(&check.tolerance)?;
    let mut tol = tol_pair.hi.clone();
    let rel = parse_decimal(&check.rel_tolerance, bits.1)?;
    if let Some(b) = &bound {
        if b.hi.is_finite() {
            tol += Float::with_val(bits.1, &rel * &Float::with_val(bits.1, b.hi.abs_ref()));
        }
    }
    let tol_proof = if ctx.rigorous {
        tolerance_proof(
            &tol_pair.proof,
            &check.rel_tolerance,
            bound.as_ref(),
            ctx.enclosure_bits(),
        )
    } else {
        Proof::Off
    };
    Ok(PointVal {
        q,
        bound,
        tol,
        tol_proof,
        coarse: flag.load(Ordering::Relaxed),
    })
}

/// The tolerance's enclosure: the absolute tolerance's plus the relative one times the
/// bound's magnitude (the relative part only for a finite bound, as in the certified
/// tolerance).
fn tolerance_proof(abs_tol: &Proof, rel: &str, bound: Option<&Pair>, bits: u32) -> Proof {
    let rel = match Interval::from_decimal(rel, bits) {
        Ok(r) => r,
        Err(e) => return Proof::unproven(e.to_string()),
    };
    let rel_zero = rel.is_point() && rel.contains_zero();
    match (abs_tol, bound) {
        (Proof::Enclosed(t), Some(b)) if b.hi.is_finite() && !rel_zero => {
            match b.proof.interval() {
                Some(bi) => Proof::enclosed(t.add(&rel.mul(&abs(bi)))),
                None => Proof::unproven("the bound of a relative tolerance is not enclosed"),
            }
        }
        (other, _) => other.clone(),
    }
}

/// Every point evaluated, in parallel (the cache shares results between them), in the
/// order of `points`; `stage[i]`: point i's coarse stage of `check --rigorous`
/// ([`Scope::stage`]; `None`: the proofs to the claim's digits).
pub(crate) fn eval_points(
    claim: &Claim,
    check: &Check,
    points: &[Point],
    cache: &Cache,
    stage: &[Option<usize>],
) -> Vec<Result<PointVal, QuantityError>> {
    points
        .par_iter()
        .zip(stage)
        .map(|(p, c)| eval_point(claim, check, p, cache, *c))
        .collect()
}

/// An evaluated point as the report shows it: the certified value (a simulated one as
/// `mean ± half-width`), or the error and whose fault it is.
pub(crate) fn row(point: &Point, v: &Result<PointVal, QuantityError>, digits: u32) -> Row {
    let (value, d) = match v {
        Ok(pv) => match sim_text(&pv.q) {
            Some((t, k)) => (Ok(t), k),
            None => {
                let c = certify_pair(&pv.q.lo, &pv.q.hi, digits);
                (Ok(c.text), c.digits)
            }
        },
        Err(e) => (Err(e.to_string()), 0),
    };
    let magnitude = match v {
        Ok(pv) if d == 0 && pv.q.sim.is_none() => magnitude_bound(&pv.q),
        _ => None,
    };
    Row {
        point: point.clone(),
        value,
        digits: d,
        error_kind: v.as_ref().err().map(|e| e.kind()),
        magnitude,
    }
}

/// max(|lo|, |hi|) + |lo − hi|, rounded up: a bound on |value| when the two precisions
/// agree on no digit; `None` when either is not finite.
fn magnitude_bound(q: &Pair) -> Option<Float> {
    if !q.lo.is_finite() || !q.hi.is_finite() {
        return None;
    }
    let p = q.hi.prec().max(q.lo.prec());
    let big = Float::with_val(p, q.lo.abs_ref()).max(&Float::with_val(p, q.hi.abs_ref()));
    let up = rug::float::Round::Up;
    let spread = Float::with_val_round(p, &q.lo - &q.hi, up)
        .0
        .max(&Float::with_val_round(p, &q.hi - &q.lo, up).0);
    Some(Float::with_val_round(p, big + spread, up).0)
}
