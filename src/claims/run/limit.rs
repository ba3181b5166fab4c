//! Limits (p → ∞): at each point of the other variables, the quantity's values along the
//! limit variable are a sequence, extrapolated to the limit ([`crate::num::extrapolate`])
//! at each of the two precisions through [`Certify`]. The estimate is the certifying
//! precision's; its error is the extrapolation's own estimate plus the difference between
//! the two precisions' estimates.

use super::judge::{Basis, Estimate, Item};
use super::points::PointVal;
use super::result::LimitRow;
use crate::claims::compile::LimitDef;
use crate::claims::error::QuantityError;
use crate::claims::grid::Point;
use crate::claims::proof::Proof;
use crate::num::certify::{certify_pair, to_sci, Certify};
use crate::num::extrapolate::{extrapolate, Extrapolated};
use crate::num::{certify_bits, parse_decimal, NumError};
use rug::Float;
use thiserror::Error;

/// Significant digits of a limit's estimate in reports.
const ESTIMATE_DIGITS: u32 = 8;
/// Significant digits of a limit's error estimate in reports.
const ERROR_DIGITS: u32 = 3;

/// What the report says of a simulated term: a limit of simulated values is not taken.
const SIMULATED_TERMS: &str = "a simulated quantity cannot be extrapolated to a limit (its half-widths do not carry through the extrapolation, and a simulation cannot reach the limit's sizes)";

/// Why a limit could not be extrapolated at one point of the other variables.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub(crate) enum LimitError {
    /// Terms of the sequence that could not be computed (`p=1e10: …`), or that were
    /// simulated.
    #[error("{}", terms_text(failed, *simulated))]
    Terms {
        /// Each failed term as `var=value: error`.
        failed: Vec<String>,
        /// Whether some term depends on a simulation.
        simulated: bool,
    },
    /// A term that is not a finite number.
    #[error("the sequence has a non-finite value")]
    NonFinite,
    /// No term to extrapolate.
    #[error("empty sequence")]
    Empty,
    /// A value of the limit variable that does not parse at a precision.
    #[error(transparent)]
    Value(#[from] NumError),
}

fn terms_text(failed: &[String], simulated: bool) -> String {
    let mut all: Vec<&str> = failed.iter().map(String::as_str).collect();
    if simulated {
        all.push(SIMULATED_TERMS);
    }
    all.join("; ")
}

/// The limits of a check: `vals` are the evaluated points in the order of
/// [`super::points::expand`] (each outer point's terms contiguous). Each outer point gives
/// an item to judge, and a report row when its limit could be extrapolated.
pub(crate) fn limits(
    l: &LimitDef,
    outer: &[Point],
    vals: Vec<Result<PointVal, QuantityError>>,
    digits: u32,
) -> (Vec<LimitRow>, Vec<Item>) {
    let bits = certify_bits(digits).1;
    let mut rows = Vec::new();
    let mut items = Vec::new();
    let mut vals = vals.into_iter();
    for o in outer {
        let terms: Vec<Result<PointVal, QuantityError>> =
            vals.by_ref().take(l.values.len()).collect();
        match limit_at(l, &terms, digits) {
            Ok((est, err, degree)) => {
                let sequence = l
                    .values
                    .iter()
                    .zip(&terms)
                    .map(|(v, t)| (v.clone(), term_text(t, digits)))
                    .collect();
                let text = format!(
                    "{} ± {}",
                    to_sci(&est, ESTIMATE_DIGITS),
                    to_sci(&err, ERROR_DIGITS)
                );
                rows.push(LimitRow {
                    towards: format!("{} -> {}", l.var, l.transform.towards()),
                    outer: o.clone(),
                    sequence,
                    estimate: to_sci(&est, ESTIMATE_DIGITS),
                    error: to_sci(&err, ERROR_DIGITS),
                    degree,
                    estimate_value: est.clone(),
                    error_value: err.clone(),
                });
                // Judged against the bound and tolerance of the last term, the one
                // closest to the limit.
                let last = terms.last().and_then(|t| t.as_ref().ok());
                items.push(Item {
                    point: o.clone(),
                    value: Ok(Estimate {
                        value: est,
                        uncertainty: err,
                        text,
                        basis: Basis::Extrapolated,
                    }),
                    bound: last.and_then(|t| t.bound.clone()),
                    tol: last.map_or_else(|| Float::with_val(bits, 0), |t| t.tol.clone()),
                    q_proof: Proof::Off,
                    tol_proof: Proof::Off,
                });
            }
            Err(e) => items.push(Item::failed(o.clone(), e.to_string(), bits)),
        }
    }
    (rows, items)
}

/// A term of the sequence as the report shows it.
fn term_text(t: &Result<PointVal, QuantityError>, digits: u32) -> String {
    match t {
        Ok(pv) => certify_pair(&pv.q.lo, &pv.q.hi, digits).text,
        Err(e) => format!("error: {e}"),
    }
}

/// The limit of one sequence: (estimate, error estimate, degree used).
fn limit_at(
    l: &LimitDef,
    terms: &[Result<PointVal, QuantityError>],
    digits: u32,
) -> Result<(Float, Float, usize), LimitError> {
    let failed: Vec<String> = l
        .values
        .iter()
        .zip(terms)
        .filter_map(|(v, r)| r.as_ref().err().map(|e| format!("{}={v}: {e}", l.var)))
        .collect();
    let simulated = terms
        .iter()
        .any(|r| r.as_ref().is_ok_and(|pv| pv.q.sim.is_some()));
    if !failed.is_empty() || simulated {
        return Err(LimitError::Terms { failed, simulated });
    }
    let terms: Vec<&PointVal> = terms.iter().filter_map(|r| r.as_ref().ok()).collect();
    if terms.iter().any(|t| !t.q.hi.is_finite()) {
        return Err(LimitError::NonFinite);
    }
    // The terms' two precisions are the claim's (working, certifying).
    let lo_bits = terms.first().ok_or(LimitError::Empty)?.q.lo.prec();
    let hi_bits = certify_bits(digits).1;
    let both = Certify::with_bits(digits, (lo_bits, hi_bits)).run(|b| {
        let xs = l
            .values
            .iter()
            .map(|v| parse_decimal(v, b).map(|x| l.transform.apply(&x)))
            .collect::<Result<Vec<Float>, NumError>>()?;
        let ys: Vec<Float> = terms
            .iter()
            .map(|t| if b == lo_bits { &t.q.lo } else { &t.q.hi }.clone())
            .collect();
        extrapolate(&xs, &ys, l.degree).ok_or(LimitError::Empty)
    })?;
    let Extrapolated {
        estimate,
        error,
        degree,
    } = both.hi;
    let between = Float::with_val(hi_bits, &estimate - &both.lo.estimate).abs();
    Ok((estimate, error + between, degree))
}
