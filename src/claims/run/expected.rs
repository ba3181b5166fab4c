//! Expected values: values of the quantity known from an independent source (a closed
//! form, a paper's table, another program) at given grid points, each compared with the
//! computed value within the source's tolerance.

use super::judge::{judge, reason, scaled, scaled_text, Basis};
use super::points::{eval_point, PointVal};
use super::result::{label, value_text, Judged, MARGIN_DIGITS};
use crate::claims::cache::Cache;
use crate::claims::compile::{Check, Claim, ExpectedDef};
use crate::claims::grid::Point;
use crate::claims::proof::{decide, Decided, Proof};
use crate::claims::scope::COARSE_STAGES;
use crate::claims::verdict::{Relation, Verdict};
use crate::num::certify::to_sci;
use crate::num::interval::Interval;
use crate::num::{certify_bits, parse_decimal};
use rug::Float;

/// Every expected value of the check, compared.
pub(crate) fn expected_values(claim: &Claim, check: &Check, cache: &Cache) -> Vec<Judged> {
    check
        .expected_values
        .iter()
        .map(|ev| {
            // the point as the grid orders its variables
            let point: Point = check
                .grid
                .iter()
                .filter_map(|(k, _)| ev.at.get(k).map(|v| (k.clone(), v.clone())))
                .collect();
            let lab = format!("expected value at {} ({})", label(&point), ev.source);
            expected(claim, check, cache, ev, &point, &lab)
                .unwrap_or_else(|e| Judged::error(lab, &e))
        })
        .collect()
}

/// One expected value: the margin is tolerance − |value − expected|, judged within the
/// value's own uncertainty.
fn expected(
    claim: &Claim,
    check: &Check,
    cache: &Cache,
    ev: &ExpectedDef,
    point: &Point,
    lab: &str,
) -> Result<Judged, String> {
    let bits = certify_bits(claim.digits).1;
    // In stages under --rigorous, as the check's points (the first stage's proofs are the
    // ones the points computed): again at the next stage while undecided.
    let mut stage = claim.rigorous.then_some(0);
    let mut pv = eval_point(claim, check, point, cache, stage).map_err(|e| e.to_string())?;
    let undecided = |pv: &PointVal| match &pv.q.proof {
        Proof::Enclosed(q) => {
            let b = q.prec();
            match (
                Interval::from_decimal(&ev.value, b),
                Interval::from_decimal(&ev.tolerance, b),
            ) {
                (Ok(w), Ok(t)) => matches!(decide(Relation::Eq, q, &w, &t), Decided::Undecided(_)),
                _ => false,
            }
        }
        _ => false,
    };
    while let Some(k) = stage {
        if !(pv.coarse && undecided(&pv)) {
            break;
        }
        stage = (k + 1 < COARSE_STAGES).then_some(k + 1);
        pv = eval_point(claim, check, point, cache, stage).map_err(|e| e.to_string())?;
    }
    let want = parse_decimal(&ev.value, bits).map_err(|e| e.to_string())?;
    let tol = parse_decimal(&ev.tolerance, bits).map_err(|e| e.to_string())?;
    let m = Float::with_val(bits, &tol - Float::with_val(bits, &pv.q.hi - &want).abs());
    let u = pv.q.uncertainty();
    let basis = Basis::of(&pv.q, None);
    let mut verdict = judge(&m, &u, false, &basis);
    // Under --rigorous: |value − expected| ≤ tolerance on the whole enclosure.
    let proof = match &pv.q.proof {
        Proof::Off => None,
        Proof::Unproven(w) => Some(Err(w.clone())),
        Proof::Enclosed(q) => {
            let b = q.prec();
            let enc = |s: &str| Interval::from_decimal(s, b).map_err(|e| e.to_string());
            let d = enc(&ev.value).and_then(|w| Ok((w, enc(&ev.tolerance)?)));
            Some(match d {
                Err(e) => Err(e),
                Ok((w, t)) => match decide(Relation::Eq, q, &w, &t) {
                    Decided::Holds if verdict != Verdict::Fail => {
                        verdict = Verdict::Pass;
                        Ok(())
                    }
                    Decided::Holds => Err("the enclosures and the two precisions disagree".into()),
                    Decided::Fails => {
                        verdict = Verdict::Fail;
                        Err("the enclosures refute the expected value".into())
                    }
                    Decided::Undecided(w) => Err(w),
                },
            })
        }
    };
    Ok(Judged {
        label: lab.to_string(),
        value: format!("{}{}", value_text(&pv.q, claim.digits), basis.note()),
        bound: format!("== {} ± {}", ev.value, ev.tolerance),
        margin: to_sci(&m, MARGIN_DIGITS),
        rel_margin: scaled(&m, &tol),
        rel_margin_text: scaled_text(&m, &tol),
        uncertainty: to_sci(&u, 3),
        verdict,
        point: vec![],
        bound_value: None,
        proof,
        reason: reason(verdict, &m, &u, &basis),
        read: vec![],
    })
}
