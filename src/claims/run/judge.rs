//! Judging: the relation applied to the values of a check (at each point or limit, or
//! along a grid variable), each comparison with its margin, uncertainty and verdict.
//!
//! A verdict compares a margin `m` (positive when the relation holds) with the
//! uncertainty `u` the value carries ([`judge`]); how `u` was obtained is the value's
//! [`Basis`], which the verdict rule receives with it.

use super::points::PointVal;
use super::result::{heavy_tail_note, label, value_text, Judged, MARGIN_DIGITS, SINGLE_POINT};
use crate::claims::compile::Check;
use crate::claims::grid::Point;
use crate::claims::proof::{decide, Decided, Proof};
use crate::claims::value::Pair;
use crate::claims::verdict::{Relation, Verdict};
use crate::num::certify::to_sci;
use crate::num::interval::Interval;
use rug::Float;

/// `consistent` fails only when the bound is more than this many half-widths from the
/// value: a 95 % interval misses an exact value at 5 % of the points by chance, but a miss
/// by two half-widths (about 4 standard errors) is not chance.
pub const CONSISTENT_FAIL_HALF_WIDTHS: u32 = 2;

/// How a compared value was obtained, which says what its uncertainty is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Basis {
    /// Computed at the two precisions: the uncertainty is their difference.
    TwoPrecisions,
    /// Depends on simulations: the uncertainty adds their 95 % half-widths. A heavy-tail
    /// warning of any of them (`warnings`) means the interval is not trusted.
    Simulated {
        /// The simulations' heavy-tail warnings, deduplicated.
        warnings: Vec<String>,
    },
    /// An extrapolated limit: the uncertainty is the extrapolation's error estimate plus
    /// the difference between the two precisions' estimates.
    Extrapolated,
}

impl Basis {
    /// The basis of a comparison of `q` with `bound`: simulated when either depends on a
    /// simulation, with both's warnings.
    pub(crate) fn of(q: &Pair, bound: Option<&Pair>) -> Basis {
        if q.sim.is_none() && bound.is_none_or(|b| b.sim.is_none()) {
            return Basis::TwoPrecisions;
        }
        let mut warnings: Vec<String> = q.warnings().to_vec();
        for w in bound.map_or(&[][..], Pair::warnings) {
            if !warnings.contains(w) {
                warnings.push(w.clone());
            }
        }
        Basis::Simulated { warnings }
    }

    /// The heavy-tail warnings that make the interval untrusted (none for a computed or
    /// extrapolated value).
    pub(crate) fn warnings(&self) -> &[String] {
        match self {
            Basis::Simulated { warnings } => warnings,
            Basis::TwoPrecisions | Basis::Extrapolated => &[],
        }
    }

    /// The bases of several values compared together (steps along a variable): simulated
    /// when any is, with every warning once; else extrapolated when any is.
    fn joint<'a>(all: impl IntoIterator<Item = &'a Basis>) -> Basis {
        let (mut simulated, mut extrapolated) = (false, false);
        let mut warnings: Vec<String> = Vec::new();
        for b in all {
            match b {
                Basis::Simulated { warnings: w } => {
                    simulated = true;
                    for x in w {
                        if !warnings.contains(x) {
                            warnings.push(x.clone());
                        }
                    }
                }
                Basis::Extrapolated => extrapolated = true,
                Basis::TwoPrecisions => {}
            }
        }
        if simulated {
            Basis::Simulated { warnings }
        } else if extrapolated {
            Basis::Extrapolated
        } else {
            Basis::TwoPrecisions
        }
    }

    /// The note a comparison's value text gets when the interval is not trusted.
    pub(crate) fn note(&self) -> String {
        if self.warnings().is_empty() {
            String::new()
        } else {
            heavy_tail_note(self.warnings())
        }
    }
}

/// A value as the relation compares it.
#[derive(Debug, Clone)]
pub(crate) struct Estimate {
    /// The value (at the certifying precision).
    pub value: Float,
    /// The uncertainty it carries.
    pub uncertainty: Float,
    /// As the report shows it.
    pub text: String,
    /// How it was obtained.
    pub basis: Basis,
}

/// A value the relation judges: a point's quantity, or a limit, with its bound and
/// tolerance; or the error that stopped it.
pub(crate) struct Item {
    /// The grid point (after a limit: the other variables).
    pub point: Point,
    /// The value, or why there is none.
    pub value: Result<Estimate, String>,
    /// The bound, for relations that have one.
    pub bound: Option<Pair>,
    /// The tolerance (absolute plus relative).
    pub tol: Float,
    /// Under `check --rigorous`: the value's enclosure, or why there is none.
    pub q_proof: Proof,
    /// Under `check --rigorous`: the tolerance's enclosure (absolute plus relative).
    pub tol_proof: Proof,
}

impl Item {
    /// A point that could not be computed (or extrapolated).
    pub fn failed(point: Point, why: String, bits: u32) -> Item {
        Item {
            point,
            value: Err(why),
            bound: None,
            tol: Float::with_val(bits, 0),
            q_proof: Proof::Off,
            tol_proof: Proof::Off,
        }
    }

    /// A point's evaluated quantity.
    pub fn at_point(point: Point, pv: PointVal, digits: u32) -> Item {
        let q_proof = pv.q.proof.clone();
        Item {
            q_proof,
            tol_proof: pv.tol_proof,
            point,
            value: Ok(Estimate {
                value: pv.q.hi.clone(),
                uncertainty: pv.q.uncertainty(),
                text: value_text(&pv.q, digits),
                basis: Basis::of(&pv.q, pv.bound.as_ref()),
            }),
            bound: pv.bound,
            tol: pv.tol,
        }
    }
}

/// The verdict of a margin `m` (positive when the relation holds) known within `u`, for a
/// value of the given basis: PASS when all of m ± u holds (m − u > 0 for a strict
/// relation), FAIL when none of it does (or a strict relation's margin is exactly 0 or
/// below it with no uncertainty), else INCONCLUSIVE — and INCONCLUSIVE whatever the
/// margin when the basis says the interval is not trusted.
pub(crate) fn judge(m: &Float, u: &Float, strict: bool, basis: &Basis) -> Verdict {
    if !basis.warnings().is_empty() {
        return Verdict::Inconclusive;
    }
    let lo = Float::with_val(m.prec(), m - u);
    let hi = Float::with_val(m.prec(), m + u);
    if (strict && lo > 0) || (!strict && lo >= 0) {
        Verdict::Pass
    } else if hi < 0 || (strict && hi <= 0 && u.is_zero()) {
        Verdict::Fail
    } else {
        Verdict::Inconclusive
    }
}

/// Why a comparison judged by [`judge`] with margin `m` and uncertainty `u` is
/// INCONCLUSIVE (`None` when `verdict` is not).
pub(crate) fn reason(verdict: Verdict, m: &Float, u: &Float, basis: &Basis) -> Option<String> {
    if verdict != Verdict::Inconclusive {
        return None;
    }
    if !basis.warnings().is_empty() {
        return Some(format!(
            "the simulation's 95% interval is not trusted (heavy-tail warning), whatever the margin: {}",
            basis.warnings().join("; ")
        ));
    }
    let what = match basis {
        Basis::TwoPrecisions => "the difference between the two precisions",
        Basis::Simulated { .. } => "the simulations' 95% half-widths",
        Basis::Extrapolated => "the extrapolation's error estimate",
    };
    Some(format!(
        "the margin {} lies within its uncertainty ±{} ({what}): the relation may hold or fail",
        to_sci(m, MARGIN_DIGITS),
        to_sci(u, 3)
    ))
}

/// The margin relative to the scale of the comparison, in MPFR (f64 would overflow at the
/// papers' sizes): m / |scale|, or m itself when the scale is 0 or not finite.
fn ratio(m: &Float, scale: &Float) -> Float {
    let s = Float::with_val(m.prec(), scale.abs_ref());
    if s.is_zero() || !s.is_finite() {
        m.clone()
    } else {
        Float::with_val(m.prec(), m / &s)
    }
}

/// The relative margin for ranking: [`ratio`] in f64 (±∞ beyond its range; a NaN ranks
/// last as −∞).
pub(crate) fn scaled(m: &Float, scale: &Float) -> f64 {
    let r = ratio(m, scale).to_f64();
    if r.is_nan() {
        f64::NEG_INFINITY
    } else {
        r
    }
}

/// The relative margin as a decimal: f64's `{:.3e}` where it fits, MPFR's 4 significant
/// digits beyond f64's range, `None` when it is not a finite number.
pub(crate) fn scaled_text(m: &Float, scale: &Float) -> Option<String> {
    let x = ratio(m, scale);
    let r = x.to_f64();
    if r.is_finite() {
        Some(format!("{r:.3e}"))
    } else {
        x.is_finite().then(|| to_sci(&x, MARGIN_DIGITS))
    }
}

/// A comparison with a margin `m` and uncertainty `u`, ranked relative to `scale`; the
/// caller fills in what it compared.
fn compared(m: &Float, u: &Float, scale: &Float, verdict: Verdict) -> Judged {
    Judged {
        label: String::new(),
        value: String::new(),
        bound: String::new(),
        margin: to_sci(m, MARGIN_DIGITS),
        rel_margin: scaled(m, scale),
        rel_margin_text: scaled_text(m, scale),
        uncertainty: to_sci(u, 3),
        verdict,
        point: vec![],
        bound_value: None,
        proof: None,
        reason: None,
        read: vec![],
    }
}

/// Under `check --rigorous`, a comparison's verdict and proof from what the enclosures
/// decide: a relation that holds on the whole enclosure is PASS and proven (even where
/// the two precisions alone left it INCONCLUSIVE); one that fails on all of it is FAIL;
/// otherwise the two precisions' verdict stands, unproven, with the reason.
fn settle(j: &mut Judged, d: Result<Decided, String>) {
    match d {
        Ok(Decided::Holds) if j.verdict != Verdict::Fail => {
            j.verdict = Verdict::Pass;
            j.reason = None;
            j.proof = Some(Ok(()));
        }
        Ok(Decided::Holds) => {
            j.proof = Some(Err(
                "the enclosures say it holds, the two precisions that it fails".into(),
            ))
        }
        Ok(Decided::Fails) => {
            j.verdict = Verdict::Fail;
            j.reason = None;
            j.proof = Some(Err("the enclosures refute the relation".into()));
        }
        Ok(Decided::Undecided(why)) | Err(why) => j.proof = Some(Err(why)),
    }
}

/// The enclosure of a proof, or the reason there is none (`None`: rigour not asked).
fn enclosure(p: &Proof) -> Option<Result<&Interval, String>> {
    match p {
        Proof::Off => None,
        Proof::Enclosed(i) => Some(Ok(i)),
        Proof::Unproven(w) => Some(Err(w.clone())),
    }
}

/// What the enclosures of an item decide for a relation with a bound (`None`: rigour
/// not asked).
fn decided(check: &Check, it: &Item) -> Option<Result<Decided, String>> {
    let q = enclosure(&it.q_proof)?;
    Some((|| {
        let q = q?;
        let tol = enclosure(&it.tol_proof)
            .unwrap_or_else(|| Err("the tolerance is not enclosed".into()))?;
        let zero = Interval::zero_at(q.prec());
        let b = match &it.bound {
            Some(b) => enclosure(&b.proof)
                .unwrap_or_else(|| Err("the bound is not enclosed".into()))?
                .clone(),
            None => zero,
        };
        Ok(decide(check.relation, q, &b, tol))
    })())
}

/// Judges every item: along the check's variable for the along-relations, else each
/// item against its bound (a limit's comparison labelled with the limit).
pub(crate) fn judge_items(check: &Check, items: &[Item]) -> Vec<Judged> {
    if check.relation.is_along() {
        return along(check, items);
    }
    items
        .iter()
        .map(|it| {
            let mut j = pointwise(check, it);
            if let Some(l) = &check.limit {
                j.label = format!(
                    "{} -> {} ({}){}",
                    l.var,
                    l.transform.towards(),
                    l.transform.name(),
                    if it.point.is_empty() {
                        String::new()
                    } else {
                        format!(" at {}", label(&it.point))
                    }
                );
            }
            j
        })
        .collect()
}

/// One value against its bound, with everything the margin needs (at the value's
/// precision).
struct Against<'a> {
    /// The value.
    v: &'a Float,
    /// The bound (0 when the relation has none).
    b: Float,
    /// The value's uncertainty plus the bound's.
    u: Float,
    /// The tolerance.
    tol: &'a Float,
    /// What the relative margin is relative to: |b|, or the tolerance when b = 0.
    scale: Float,
}

impl<'a> Against<'a> {
    fn new(e: &'a Estimate, it: &'a Item) -> Self {
        let bits = e.value.prec();
        let b = it
            .bound
            .as_ref()
            .map(|b| b.hi.clone())
            .unwrap_or_else(|| Float::with_val(bits, 0));
        let ub = it
            .bound
            .as_ref()
            .map(Pair::uncertainty)
            .unwrap_or_else(|| Float::with_val(bits, 0));
        let u = Float::with_val(bits, &e.uncertainty + &ub);
        let scale = if b.is_zero() {
            it.tol.clone()
        } else {
            Float::with_val(bits, b.abs_ref())
        };
        Against {
            v: &e.value,
            b,
            u,
            tol: &it.tol,
            scale,
        }
    }
}

/// The relation at one point (or one limit): the value against its bound.
fn pointwise(check: &Check, it: &Item) -> Judged {
    let e = match &it.value {
        Ok(e) => e,
        Err(why) => {
            let mut j = Judged::error(label(&it.point), why);
            j.point = it.point.clone();
            return j;
        }
    };
    let a = Against::new(e, it);
    let mut j = if check.relation == Relation::Consistent {
        consistent(&a, &e.basis)
    } else {
        bounded(check, &a, &e.basis)
    };
    if let Some(d) = decided(check, it) {
        if matches!(d, Ok(Decided::Undecided(_))) {
            j.read = vec![it.point.clone()];
        }
        settle(&mut j, d);
    }
    j.label = label(&it.point);
    j.value = format!("{}{}", e.text, e.basis.note());
    j.point = it.point.clone();
    j
}

/// `consistent`: PASS when the interval v ± u contains b (margin u − |v − b| ≥ 0) and
/// resolves differences of the tolerance (u ≤ tol); FAIL when b is more than
/// [`CONSISTENT_FAIL_HALF_WIDTHS`] half-widths away; otherwise INCONCLUSIVE.
fn consistent(a: &Against, basis: &Basis) -> Judged {
    let bits = a.v.prec();
    let d = Float::with_val(bits, a.v - &a.b).abs();
    let m = Float::with_val(bits, &a.u - &d);
    let far = Float::with_val(bits, &a.u * CONSISTENT_FAIL_HALF_WIDTHS);
    let verdict = if !basis.warnings().is_empty() {
        Verdict::Inconclusive
    } else if d > far {
        Verdict::Fail
    } else if m >= 0 && a.u <= *a.tol {
        Verdict::Pass
    } else {
        Verdict::Inconclusive
    };
    let mut j = compared(&m, &a.u, &a.u, verdict);
    j.reason = if verdict != Verdict::Inconclusive {
        None
    } else if !basis.warnings().is_empty() {
        reason(verdict, &m, &a.u, basis)
    } else if a.u > *a.tol {
        Some(format!(
            "the interval's half-width {} is wider than the tolerance {}: too wide to resolve a difference of that size",
            to_sci(&a.u, 3),
            to_sci(a.tol, 3)
        ))
    } else {
        Some(format!(
            "the bound lies {} from the value, outside its interval (half-width {}) but within {CONSISTENT_FAIL_HALF_WIDTHS} half-widths: a 95% interval misses by that much at one point in twenty by chance",
            to_sci(&d, 3),
            to_sci(&a.u, 3)
        ))
    };
    j.bound = format!(
        "interval contains {} (half-width <= {})",
        to_sci(&a.b, 8),
        to_sci(a.tol, 3)
    );
    j
}

/// The order relations, `==` and `sign_as`: the margin, whether the relation is strict,
/// and the bound as compared.
fn bounded(check: &Check, a: &Against, basis: &Basis) -> Judged {
    let bits = a.v.prec();
    let (v, b, tol) = (a.v, &a.b, a.tol);
    let bound_text = check.bound_text.clone().unwrap_or_default();
    let (m, strict, shown) = match check.relation {
        Relation::Le | Relation::Lt => (
            Float::with_val(bits, b + tol) - v,
            check.relation == Relation::Lt,
            format!("{} {}", check.relation.name(), to_sci(b, 8)),
        ),
        Relation::Ge | Relation::Gt => (
            Float::with_val(bits, v - b) + tol,
            check.relation == Relation::Gt,
            format!("{} {}", check.relation.name(), to_sci(b, 8)),
        ),
        Relation::Eq => (
            Float::with_val(bits, tol - Float::with_val(bits, v - b).abs()),
            false,
            format!("== {} ± {}", to_sci(b, 8), to_sci(tol, 3)),
        ),
        // sign_as (`consistent` and the along-relations are judged by their own functions):
        // the sign of the bound expression, |b| ≤ tol counting as zero.
        _ => {
            let sign_b = if Float::with_val(bits, b.abs_ref()) <= *tol {
                0
            } else if *b > 0 {
                1
            } else {
                -1
            };
            let m = match sign_b {
                1 => Float::with_val(bits, v - tol),
                -1 => Float::with_val(bits, -v) - tol,
                _ => Float::with_val(bits, tol - Float::with_val(bits, v.abs_ref())),
            };
            let shown = match sign_b {
                1 => format!("> {} (sign of {bound_text} > 0)", to_sci(tol, 3)),
                -1 => format!("< -{} (sign of {bound_text} < 0)", to_sci(tol, 3)),
                _ => format!("|·| <= {} (sign of {bound_text} = 0)", to_sci(tol, 3)),
            };
            (m, sign_b != 0, shown)
        }
    };
    let verdict = judge(&m, &a.u, strict, basis);
    let mut j = compared(&m, &a.u, &a.scale, verdict);
    j.reason = reason(verdict, &m, &a.u, basis);
    j.bound = shown;
    j.bound_value = (!matches!(check.relation, Relation::SignAs)).then(|| to_sci(b, 8));
    j
}

/// One value along the variable: the variable's value and the item's estimate.
struct Step<'a> {
    /// The along variable's value.
    at: String,
    /// The estimate there.
    e: &'a Estimate,
    /// The tolerance there.
    tol: &'a Float,
    /// The item (its enclosures, under `check --rigorous`).
    item: &'a Item,
}

/// The along-relations: the items grouped by their other variables (in first-seen
/// order), each group ordered by the along variable's grid values and compared step by
/// step (`increasing`, `decreasing`) or at `at` against every other value (`argmax`,
/// `argmin`).
fn along(check: &Check, items: &[Item]) -> Vec<Judged> {
    let Some(var) = check.along.as_deref() else {
        return vec![];
    };
    let order: Vec<String> = check
        .grid
        .iter()
        .find(|(k, _)| k == var)
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let value_of = |it: &Item| -> String {
        it.point
            .iter()
            .find(|(k, _)| k == var)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for (key, mut group) in grouped_by_others(items, var) {
        // in the grid's order of the along variable (values not in the grid last)
        group.sort_by_key(|it| {
            order
                .iter()
                .position(|o| *o == value_of(it))
                .unwrap_or(usize::MAX)
        });
        let at_label = label(&key);
        // A group with an uncomputed value is not compared: one entry names every error.
        let errors: Vec<String> = group
            .iter()
            .filter_map(|it| {
                it.value
                    .as_ref()
                    .err()
                    .map(|e| format!("{var}={}: {e}", value_of(it)))
            })
            .collect();
        if !errors.is_empty() {
            out.push(Judged::error(
                format!("{at_label}; {var} = {}", order.join(",")),
                &errors.join("; "),
            ));
            continue;
        }
        let steps: Vec<Step> = group
            .iter()
            .filter_map(|it| {
                let e = it.value.as_ref().ok()?;
                Some(Step {
                    at: value_of(it),
                    e,
                    tol: &it.tol,
                    item: it,
                })
            })
            .collect();
        let prefix = if at_label == SINGLE_POINT {
            String::new()
        } else {
            format!("{at_label}; ")
        };
        out.extend(along_group(check, var, &prefix, &steps));
    }
    out
}

/// The items grouped by their variables other than `var`, groups in first-seen order.
fn grouped_by_others<'a>(items: &'a [Item], var: &str) -> Vec<(Point, Vec<&'a Item>)> {
    let mut groups: Vec<(Point, Vec<&Item>)> = Vec::new();
    for it in items {
        let key: Point = it.point.iter().filter(|(k, _)| k != var).cloned().collect();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some(g) => g.1.push(it),
            None => groups.push((key, vec![it])),
        }
    }
    groups
}

/// The comparisons of one group of [`along`].
fn along_group(check: &Check, var: &str, prefix: &str, steps: &[Step]) -> Vec<Judged> {
    let basis = Basis::joint(steps.iter().map(|s| &s.e.basis));
    // a against b with margin m: the uncertainty is both's, the scale the larger value.
    // The margin's enclosure: sign · (b − a) + the tolerance at `tol_of`.
    let proven =
        |a: &Step, b: &Step, sign: i32, tol_of: &Step| -> Option<Result<Decided, String>> {
            let qa = enclosure(&a.item.q_proof)?;
            Some((|| {
                let qa = qa?;
                let qb =
                    enclosure(&b.item.q_proof).unwrap_or_else(|| Err("not enclosed".into()))?;
                let tol = enclosure(&tol_of.item.tol_proof)
                    .unwrap_or_else(|| Err("the tolerance is not enclosed".into()))?;
                let d = qb.sub(qa);
                let d = if sign > 0 { d } else { d.neg() };
                Ok(crate::claims::proof::by_margin(&d.add(tol), false))
            })())
        };
    let compare =
        |a: &Step, b: &Step, m: Float, what: &str, p: Option<Result<Decided, String>>| -> Judged {
            let bits = m.prec();
            let u = Float::with_val(bits, &a.e.uncertainty + &b.e.uncertainty);
            let scale = Float::with_val(bits, a.e.value.abs_ref())
                .max(&Float::with_val(bits, b.e.value.abs_ref()));
            let mut j = compared(&m, &u, &scale, judge(&m, &u, false, &basis));
            if let Some(d) = p {
                if matches!(d, Ok(Decided::Undecided(_))) {
                    j.read = vec![a.item.point.clone(), b.item.point.clone()];
                }
                settle(&mut j, d);
            }
            j.reason = reason(j.verdict, &m, &u, &basis);
            j.label = format!("{prefix}{var}={} vs {var}={}", a.at, b.at);
            j.value = format!("{} vs {}{}", a.e.text, b.e.text, basis.note());
            j.bound = what.to_string();
            j
        };
    let mut out = Vec::new();
    match check.relation {
        Relation::Increasing | Relation::Decreasing => {
            // each step may fall by at most the tolerance at its upper end
            for w in steps.windows(2) {
                let d = Float::with_val(w[0].e.value.prec(), &w[1].e.value - &w[0].e.value);
                let m = if check.relation == Relation::Increasing {
                    d
                } else {
                    -d
                } + w[1].tol;
                let sign = if check.relation == Relation::Increasing {
                    1
                } else {
                    -1
                };
                let p = proven(&w[0], &w[1], sign, &w[1]);
                out.push(compare(&w[0], &w[1], m, check.relation.name(), p));
            }
        }
        _ => {
            // argmax/argmin: the value at `at` against every other value
            let at = check.at.clone().unwrap_or_default();
            let Some(a) = steps.iter().find(|s| s.at == at) else {
                return out;
            };
            let (sign, what) = if check.relation == Relation::Argmax {
                (1, "value at `at` >= others")
            } else {
                (-1, "value at `at` <= others")
            };
            for b in steps.iter().filter(|s| s.at != at) {
                let d = Float::with_val(a.e.value.prec(), &a.e.value - &b.e.value);
                let m = if sign > 0 { d } else { -d } + a.tol;
                // a − b for argmax is (a − b) = −(b − a): the margin's sign is −sign
                let p = proven(b, a, sign, a);
                out.push(compare(a, b, m, what, p));
            }
        }
    }
    out
}
