//! Running a claim: every grid point at two precisions (in parallel), limits by
//! extrapolation, relations, verdicts, margins and the worst point.

use super::compile::{Check, Claim};
use super::registry::{Cache, QuantityError};
use super::scope::Scope;
use super::value::Pair;
use super::verdict::{Relation, Verdict};
use crate::error::{Classify, ErrorKind};
use crate::num::certify::{certify_pair, to_sci};
use crate::num::extrapolate::extrapolate;
use crate::num::{certify_bits, parse_decimal};
use rayon::prelude::*;
use rug::Float;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Significant digits of margins in reports.
pub const MARGIN_DIGITS: u32 = 4;
/// Most significant digits shown for a simulated value (fewer when its half-width is wide).
pub const SIM_VALUE_DIGITS: u32 = 6;
/// `consistent` fails only when the bound is more than this many half-widths from the
/// value: a 95 % interval misses an exact value at 5 % of the points by chance, but a miss
/// by two half-widths (about 4 standard errors) is not chance.
pub const CONSISTENT_FAIL_HALF_WIDTHS: u32 = 2;
/// Significant digits of a simulated value's half-width.
pub const SIM_HALF_WIDTH_DIGITS: u32 = 2;

/// A simulated value as `mean ± half-width` and the significant digits its half-width
/// supports (1 to [`SIM_VALUE_DIGITS`]); `None` for a computed value.
fn sim_text(q: &Pair) -> Option<(String, u32)> {
    let s = q.sim.as_ref()?;
    let hw = &s.half_width;
    let digits = if q.hi.is_zero() || !hw.is_finite() || hw.is_zero() {
        if hw.is_zero() {
            SIM_VALUE_DIGITS
        } else {
            2
        }
    } else {
        let r = Float::with_val(hw.prec(), q.hi.abs_ref()) / hw;
        // down to the half-width's leading digit, and one more
        let d = r.to_f64().log10().floor() + 2.0;
        if d.is_finite() {
            d.clamp(2.0, f64::from(SIM_VALUE_DIGITS)) as u32
        } else {
            2
        }
    };
    Some((
        format!(
            "{} ± {}",
            to_sci(&q.hi, digits),
            to_sci(hw, SIM_HALF_WIDTH_DIGITS)
        ),
        digits,
    ))
}

/// The text of a value in a comparison: certified digits, or for a simulated value
/// `mean ± half-width (95%, simulated: …)`.
fn value_text(q: &Pair, digits: u32) -> String {
    match (sim_text(q), &q.sim) {
        (Some((t, _)), Some(s)) => format!("{t} (95%, simulated: {})", s.sources.join("; ")),
        _ => certify_pair(&q.lo, &q.hi, digits).text,
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

/// Heavy-tail warnings of a quantity and its bound (deduplicated).
fn warnings_of(q: &Pair, bound: Option<&Pair>) -> Vec<String> {
    let mut w: Vec<String> = q.warnings().to_vec();
    if let Some(b) = bound {
        for x in b.warnings() {
            if !w.contains(x) {
                w.push(x.clone());
            }
        }
    }
    w
}

/// The evidence appended when heavy-tail warnings make a comparison INCONCLUSIVE.
fn heavy_tail_note(w: &[String]) -> String {
    format!(
        "; INCONCLUSIVE whatever the margin, the interval is not trusted: {}",
        w.join("; ")
    )
}

/// One evaluated grid point.
#[derive(Debug, Clone)]
pub struct Row {
    /// Variable assignments (grid variables, then the limit variable).
    pub point: Vec<(String, String)>,
    /// The certified value, or the error that stopped it.
    pub value: Result<String, String>,
    /// Certified significant digits.
    pub digits: u32,
    /// Whose fault the error is, when the point could not be computed.
    pub error_kind: Option<ErrorKind>,
    /// When no significant digit is certified (`undetermined`) but both precisions gave a
    /// finite value: a bound on |value|, max(|lo|, |hi|) + |lo − hi| (tables show a value
    /// whose bound is below their resolution as 0).
    pub magnitude: Option<Float>,
}

/// A sequence and its extrapolated limit.
#[derive(Debug, Clone)]
pub struct LimitRow {
    /// The limit: `p -> inf`.
    pub towards: String,
    /// The other variables.
    pub outer: Vec<(String, String)>,
    /// (value of the limit variable, certified quantity).
    pub sequence: Vec<(String, String)>,
    /// The estimate (8 significant digits).
    pub estimate: String,
    /// Its error estimate (3 significant digits): extrapolation spread plus the difference
    /// between the two precisions' estimates.
    pub error: String,
    /// The degree used.
    pub degree: usize,
    /// The estimate at the working precision (tables round it to the digits its error
    /// supports).
    pub estimate_value: Float,
    /// The error estimate.
    pub error_value: Float,
}

impl LimitRow {
    /// The other variables as `k=v, k=v` (empty when there are none).
    pub fn at_text(&self) -> String {
        self.outer
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One comparison the relation makes (a point, a step along a variable, a limit).
#[derive(Debug, Clone)]
pub struct Judged {
    /// Which point or step.
    pub label: String,
    /// The quantity (certified, or a limit as `estimate ± error`).
    pub value: String,
    /// The bound as compared.
    pub bound: String,
    /// Margin: positive when the relation holds (absolute).
    pub margin: String,
    /// Margin divided by the scale of the bound (or of the values), for ranking (±∞ where
    /// f64 overflows, −∞ where there is none).
    pub rel_margin: f64,
    /// The relative margin as a decimal (beyond f64's range too); `None` where there is
    /// no comparison or the margin is not a number.
    pub rel_margin_text: Option<String>,
    /// The uncertainty the verdict allowed for.
    pub uncertainty: String,
    /// The verdict here.
    pub verdict: Verdict,
    /// The grid point of a pointwise comparison (after a limit: its outer variables);
    /// empty for comparisons along a variable and for expected values.
    pub point: Vec<(String, String)>,
    /// The bound compared with (8 significant digits), for `<=`, `<`, `>=`, `>`, `==`.
    pub bound_value: Option<String>,
}

impl Judged {
    /// A comparison that could not be made: its label and the error.
    fn error(label: String, e: &str) -> Self {
        Judged {
            label,
            value: format!("error: {e}"),
            bound: String::new(),
            margin: "-".into(),
            rel_margin: f64::NEG_INFINITY,
            rel_margin_text: None,
            uncertainty: "-".into(),
            verdict: Verdict::Inconclusive,
            point: vec![],
            bound_value: None,
        }
    }
}

/// The outcome of one check.
#[derive(Debug, Clone)]
pub struct CheckResult {
    /// Name.
    pub name: String,
    /// Meaning.
    pub meaning: Option<String>,
    /// Quantity as written.
    pub quantity: String,
    /// Relation as written (with bound and `along`).
    pub relation: String,
    /// Verdict.
    pub verdict: Verdict,
    /// The expected verdict.
    pub expect: Verdict,
    /// Why a non-PASS verdict is expected.
    pub finding: Option<String>,
    /// Margin at the worst comparison.
    pub margin: String,
    /// Relative margin at the worst comparison.
    pub rel_margin: f64,
    /// The same as a decimal ([`Judged::rel_margin_text`]).
    pub rel_margin_text: Option<String>,
    /// The worst comparison's label.
    pub worst_point: String,
    /// Every evaluated point.
    pub rows: Vec<Row>,
    /// Limits.
    pub limits: Vec<LimitRow>,
    /// Every comparison.
    pub judged: Vec<Judged>,
}

impl CheckResult {
    /// Whether the verdict is the expected one.
    pub fn as_expected(&self) -> bool {
        self.verdict == self.expect
    }
    /// Whether this check makes `check` exit with status 1: an unexpected FAIL, or an
    /// expected FAIL that no longer fails (the documented finding does not reproduce).
    pub fn fails_run(&self) -> bool {
        (self.verdict == Verdict::Fail && self.expect != Verdict::Fail)
            || (self.expect == Verdict::Fail && self.verdict != Verdict::Fail)
    }
    /// Whether the check could not be computed: none of its points computed, or a point
    /// was stopped by a numerical failure or an internal error (not by its input: a load
    /// above the threshold at one grid point leaves that point INCONCLUSIVE, and the check
    /// computable).
    pub fn uncomputed(&self) -> bool {
        (!self.rows.is_empty() && self.rows.iter().all(|r| r.value.is_err()))
            || self
                .rows
                .iter()
                .any(|r| r.error_kind.is_some_and(|k| k != ErrorKind::Input))
    }
}

/// The outcome of a claim.
#[derive(Debug, Clone)]
pub struct ClaimResult {
    /// The claim.
    pub claim: Claim,
    /// The worst verdict of its checks.
    pub verdict: Verdict,
    /// Checks.
    pub checks: Vec<CheckResult>,
    /// Index of the check that decided the verdict and margin.
    pub worst_check: usize,
}

impl ClaimResult {
    /// Whether every check has its expected verdict.
    pub fn as_expected(&self) -> bool {
        self.checks.iter().all(CheckResult::as_expected)
    }
    /// Whether the claim makes the run fail.
    pub fn fails_run(&self) -> bool {
        self.checks.iter().any(CheckResult::fails_run)
    }
    /// Whether some check could not be computed ([`CheckResult::uncomputed`]).
    pub fn uncomputed(&self) -> bool {
        self.checks.iter().any(CheckResult::uncomputed)
    }
    /// The deciding check.
    pub fn worst(&self) -> Option<&CheckResult> {
        self.checks.get(self.worst_check)
    }
}

fn label(point: &[(String, String)]) -> String {
    if point.is_empty() {
        return "(single point)".into();
    }
    point
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn cartesian(grid: &[(String, Vec<String>)]) -> Vec<Vec<(String, String)>> {
    let mut out: Vec<Vec<(String, String)>> = vec![vec![]];
    for (k, vals) in grid {
        let mut next = Vec::with_capacity(out.len() * vals.len());
        for p in &out {
            for v in vals {
                let mut q = p.clone();
                q.push((k.clone(), v.clone()));
                next.push(q);
            }
        }
        out = next;
    }
    out
}

/// Variable assignments of a grid point.
type Point = Vec<(String, String)>;

/// Values at one point: quantity, bound, total tolerance (at the high precision).
struct PointVal {
    q: Pair,
    bound: Option<Pair>,
    tol: Float,
}

fn eval_point(
    claim: &Claim,
    check: &Check,
    point: &[(String, String)],
    cache: &Cache,
) -> Result<PointVal, QuantityError> {
    let vars: BTreeMap<String, String> = point.iter().cloned().collect();
    let ctx = Scope::new(vars, claim.system.as_ref(), cache, claim.digits);
    let bits = ctx.bits;
    let q = ctx.eval(&check.quantity)?;
    if q.hi.is_nan() || q.lo.is_nan() {
        return Err(QuantityError::Undefined(
            "the quantity is not a number (NaN)".into(),
        ));
    }
    let bound = match &check.bound {
        Some(b) => Some(ctx.eval(b)?),
        None => None,
    };
    let mut tol = ctx.eval(&check.tolerance)?.hi;
    let rel = parse_decimal(&check.rel_tolerance, bits.1)?;
    if let Some(b) = &bound {
        if b.hi.is_finite() {
            tol += Float::with_val(bits.1, &rel * &Float::with_val(bits.1, b.hi.abs_ref()));
        }
    }
    Ok(PointVal { q, bound, tol })
}

/// A value the relation judges: after limits, with its uncertainty.
struct Item {
    point: Vec<(String, String)>,
    value: Result<(Float, Float, String), String>,
    bound: Option<Pair>,
    tol: Float,
    /// Heavy-tail warnings of the simulations behind the value (or its bound).
    warn: Vec<String>,
}

fn judge(m: &Float, u: &Float, strict: bool) -> Verdict {
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
fn scaled(m: &Float, scale: &Float) -> f64 {
    let r = ratio(m, scale).to_f64();
    if r.is_nan() {
        f64::NEG_INFINITY
    } else {
        r
    }
}

/// The relative margin as a decimal: f64's `{:.3e}` where it fits, MPFR's 4 significant
/// digits beyond f64's range, `None` when it is not a finite number.
fn scaled_text(m: &Float, scale: &Float) -> Option<String> {
    let x = ratio(m, scale);
    let r = x.to_f64();
    if r.is_finite() {
        Some(format!("{r:.3e}"))
    } else {
        x.is_finite().then(|| to_sci(&x, MARGIN_DIGITS))
    }
}

fn pointwise(check: &Check, it: &Item) -> Judged {
    let lab = label(&it.point);
    let (v, u, text) = match &it.value {
        Ok(x) => x.clone(),
        Err(e) => {
            let mut j = Judged::error(lab, e);
            j.point = it.point.clone();
            return j;
        }
    };
    let bits = v.prec();
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
    let u = Float::with_val(bits, &u + &ub);
    let tol = &it.tol;
    let scale = if b.is_zero() {
        tol.clone()
    } else {
        Float::with_val(bits, b.abs_ref())
    };
    let warned = |mut j: Judged| -> Judged {
        if !it.warn.is_empty() {
            j.value.push_str(&heavy_tail_note(&it.warn));
            j.verdict = Verdict::Inconclusive;
        }
        j
    };
    if check.relation == Relation::Consistent {
        // PASS: the interval v ± u contains b (margin u − |v − b| ≥ 0) and resolves
        // differences of the tolerance (u ≤ tol). FAIL: b is more than
        // CONSISTENT_FAIL_HALF_WIDTHS half-widths away. Otherwise INCONCLUSIVE.
        let d = Float::with_val(bits, &v - &b).abs();
        let m = Float::with_val(bits, &u - &d);
        let far = Float::with_val(bits, &u * CONSISTENT_FAIL_HALF_WIDTHS);
        let verdict = if d > far {
            Verdict::Fail
        } else if m >= 0 && u <= *tol {
            Verdict::Pass
        } else {
            Verdict::Inconclusive
        };
        return warned(Judged {
            label: lab,
            value: text,
            bound: format!(
                "interval contains {} (half-width <= {})",
                to_sci(&b, 8),
                to_sci(tol, 3)
            ),
            margin: to_sci(&m, MARGIN_DIGITS),
            rel_margin: scaled(&m, &u),
            rel_margin_text: scaled_text(&m, &u),
            uncertainty: to_sci(&u, 3),
            verdict,
            point: it.point.clone(),
            bound_value: None,
        });
    }
    let (m, strict, bound_text) = match check.relation {
        Relation::Le | Relation::Lt => (
            Float::with_val(bits, &b + tol) - &v,
            check.relation == Relation::Lt,
            format!("{} {}", check.relation.name(), to_sci(&b, 8)),
        ),
        Relation::Ge | Relation::Gt => (
            Float::with_val(bits, &v - &b) + tol,
            check.relation == Relation::Gt,
            format!("{} {}", check.relation.name(), to_sci(&b, 8)),
        ),
        Relation::Eq => (
            Float::with_val(bits, tol - Float::with_val(bits, &v - &b).abs()),
            false,
            format!("== {} ± {}", to_sci(&b, 8), to_sci(tol, 3)),
        ),
        _ => {
            // sign_as: the sign of the bound expression, |b| ≤ tol counting as zero
            let sign_b = if Float::with_val(bits, b.abs_ref()) <= *tol {
                0
            } else if b > 0 {
                1
            } else {
                -1
            };
            let m = match sign_b {
                1 => Float::with_val(bits, &v - tol),
                -1 => Float::with_val(bits, -&v) - tol,
                _ => Float::with_val(bits, tol - Float::with_val(bits, v.abs_ref())),
            };
            let t = match sign_b {
                1 => format!(
                    "> {} (sign of {} > 0)",
                    to_sci(tol, 3),
                    check.bound_text.clone().unwrap_or_default()
                ),
                -1 => format!(
                    "< -{} (sign of {} < 0)",
                    to_sci(tol, 3),
                    check.bound_text.clone().unwrap_or_default()
                ),
                _ => format!(
                    "|·| <= {} (sign of {} = 0)",
                    to_sci(tol, 3),
                    check.bound_text.clone().unwrap_or_default()
                ),
            };
            (m, sign_b != 0, t)
        }
    };
    warned(Judged {
        label: lab,
        value: text,
        bound: bound_text,
        margin: to_sci(&m, MARGIN_DIGITS),
        rel_margin: scaled(&m, &scale),
        rel_margin_text: scaled_text(&m, &scale),
        uncertainty: to_sci(&u, 3),
        verdict: judge(&m, &u, strict),
        point: it.point.clone(),
        bound_value: (!matches!(check.relation, Relation::SignAs)).then(|| to_sci(&b, 8)),
    })
}

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
    // group by the other variables, keeping first-seen order
    let mut groups: Vec<(Point, Vec<&Item>)> = Vec::new();
    for it in items {
        let key: Vec<(String, String)> =
            it.point.iter().filter(|(k, _)| k != var).cloned().collect();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some(g) => g.1.push(it),
            None => groups.push((key, vec![it])),
        }
    }
    let val_of = |it: &Item| -> String {
        it.point
            .iter()
            .find(|(k, _)| k == var)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for (key, mut g) in groups {
        g.sort_by_key(|it| {
            order
                .iter()
                .position(|o| *o == val_of(it))
                .unwrap_or(usize::MAX)
        });
        let ctx_label = label(&key);
        let errs: Vec<String> = g
            .iter()
            .filter_map(|it| {
                it.value
                    .as_ref()
                    .err()
                    .map(|e| format!("{var}={}: {e}", val_of(it)))
            })
            .collect();
        if !errs.is_empty() {
            out.push(Judged::error(
                format!("{ctx_label}; {var} = {}", order.join(",")),
                &errs.join("; "),
            ));
            continue;
        }
        let vals: Vec<(String, Float, Float, String, Float)> =
            g.iter()
                .filter_map(|it| {
                    it.value.as_ref().ok().map(|(v, u, t)| {
                        (val_of(it), v.clone(), u.clone(), t.clone(), it.tol.clone())
                    })
                })
                .collect();
        let mut warn: Vec<String> = Vec::new();
        for it in &g {
            for w in &it.warn {
                if !warn.contains(w) {
                    warn.push(w.clone());
                }
            }
        }
        let mut push = |a: &(String, Float, Float, String, Float),
                        b: &(String, Float, Float, String, Float),
                        m: Float,
                        what: &str| {
            let bits = m.prec();
            let u = Float::with_val(bits, &a.2 + &b.2);
            let scale =
                Float::with_val(bits, a.1.abs_ref()).max(&Float::with_val(bits, b.1.abs_ref()));
            let sep = if ctx_label == "(single point)" {
                String::new()
            } else {
                format!("{ctx_label}; ")
            };
            let (note, verdict) = if warn.is_empty() {
                (String::new(), judge(&m, &u, false))
            } else {
                (heavy_tail_note(&warn), Verdict::Inconclusive)
            };
            out.push(Judged {
                label: format!("{sep}{var}={} vs {var}={}", a.0, b.0),
                value: format!("{} vs {}{note}", a.3, b.3),
                bound: what.to_string(),
                margin: to_sci(&m, MARGIN_DIGITS),
                rel_margin: scaled(&m, &scale),
                rel_margin_text: scaled_text(&m, &scale),
                uncertainty: to_sci(&u, 3),
                verdict,
                point: vec![],
                bound_value: None,
            });
        };
        match check.relation {
            Relation::Increasing | Relation::Decreasing => {
                for w in vals.windows(2) {
                    let d = Float::with_val(w[0].1.prec(), &w[1].1 - &w[0].1);
                    let m = if check.relation == Relation::Increasing {
                        d
                    } else {
                        -d
                    } + &w[1].4;
                    push(&w[0], &w[1], m, check.relation.name());
                }
            }
            _ => {
                let at = check.at.clone().unwrap_or_default();
                let Some(a) = vals.iter().find(|x| x.0 == at) else {
                    continue;
                };
                for b in vals.iter().filter(|x| x.0 != at) {
                    let d = Float::with_val(a.1.prec(), &a.1 - &b.1);
                    let m = if check.relation == Relation::Argmax {
                        d
                    } else {
                        -d
                    } + &a.4;
                    let what = if check.relation == Relation::Argmax {
                        "value at `at` >= others"
                    } else {
                        "value at `at` <= others"
                    };
                    push(a, b, m, what);
                }
            }
        }
    }
    out
}

/// Runs one check of a claim.
pub fn run_check(claim: &Claim, check: &Check, cache: &Cache) -> CheckResult {
    let digits = claim.digits;
    let outer = cartesian(&check.grid);
    let mut points: Vec<Vec<(String, String)>> = Vec::new();
    match &check.limit {
        Some(l) => {
            for o in &outer {
                for v in &l.values {
                    let mut p = o.clone();
                    p.push((l.var.clone(), v.clone()));
                    points.push(p);
                }
            }
        }
        None => points = outer.clone(),
    }
    let vals: Vec<Result<PointVal, QuantityError>> = points
        .par_iter()
        .map(|p| eval_point(claim, check, p, cache))
        .collect();
    let rows: Vec<Row> = points
        .iter()
        .zip(&vals)
        .map(|(p, v)| {
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
                point: p.clone(),
                value,
                digits: d,
                error_kind: v.as_ref().err().map(|e| e.kind()),
                magnitude,
            }
        })
        .collect();
    let bits = certify_bits(digits).1;
    let mut limits = Vec::new();
    let mut items: Vec<Item> = Vec::new();
    match &check.limit {
        None => {
            for (p, v) in points.iter().zip(vals) {
                items.push(match v {
                    Ok(pv) => Item {
                        point: p.clone(),
                        value: Ok((
                            pv.q.hi.clone(),
                            pv.q.uncertainty(),
                            value_text(&pv.q, digits),
                        )),
                        warn: warnings_of(&pv.q, pv.bound.as_ref()),
                        bound: pv.bound,
                        tol: pv.tol,
                    },
                    Err(e) => Item {
                        point: p.clone(),
                        value: Err(e.to_string()),
                        bound: None,
                        tol: Float::with_val(bits, 0),
                        warn: vec![],
                    },
                });
            }
        }
        Some(l) => {
            let n = l.values.len();
            for (oi, o) in outer.iter().enumerate() {
                let seg = &vals[oi * n..(oi + 1) * n];
                let seq: Vec<(String, String)> = l
                    .values
                    .iter()
                    .zip(seg)
                    .map(|(v, r)| {
                        (
                            v.clone(),
                            match r {
                                Ok(pv) => certify_pair(&pv.q.lo, &pv.q.hi, digits).text,
                                Err(e) => format!("error: {e}"),
                            },
                        )
                    })
                    .collect();
                let mut errs: Vec<String> = l
                    .values
                    .iter()
                    .zip(seg)
                    .filter_map(|(v, r)| r.as_ref().err().map(|e| format!("{}={v}: {e}", l.var)))
                    .collect();
                if seg
                    .iter()
                    .any(|r| r.as_ref().is_ok_and(|pv| pv.q.sim.is_some()))
                {
                    errs.push("a simulated quantity cannot be extrapolated to a limit (its half-widths do not carry through the extrapolation, and a simulation cannot reach the limit's sizes)".into());
                }
                if !errs.is_empty() {
                    items.push(Item {
                        point: o.clone(),
                        value: Err(errs.join("; ")),
                        bound: None,
                        tol: Float::with_val(bits, 0),
                        warn: vec![],
                    });
                    continue;
                }
                let ok: Vec<&PointVal> = seg.iter().filter_map(|r| r.as_ref().ok()).collect();
                let xs_of = |b: u32| -> Result<Vec<Float>, String> {
                    l.values
                        .iter()
                        .map(|v| {
                            parse_decimal(v, b)
                                .map(|x| l.transform.apply(&x))
                                .map_err(|e| e.to_string())
                        })
                        .collect()
                };
                let res = (|| -> Result<(Float, Float, usize), String> {
                    let xs_hi = xs_of(bits)?;
                    let xs_lo = xs_of(ok[0].q.lo.prec())?;
                    let ys_hi: Vec<Float> = ok.iter().map(|p| p.q.hi.clone()).collect();
                    let ys_lo: Vec<Float> = ok.iter().map(|p| p.q.lo.clone()).collect();
                    if ys_hi.iter().any(|y| !y.is_finite()) {
                        return Err("the sequence has a non-finite value".into());
                    }
                    let a = extrapolate(&xs_hi, &ys_hi, l.degree).ok_or("empty sequence")?;
                    let b = extrapolate(&xs_lo, &ys_lo, l.degree).ok_or("empty sequence")?;
                    let cert = Float::with_val(bits, &a.estimate - &b.estimate).abs();
                    Ok((a.estimate, a.error + cert, a.degree))
                })();
                match res {
                    Ok((est, err, deg)) => {
                        let last = ok[n - 1];
                        let text = format!("{} ± {}", to_sci(&est, 8), to_sci(&err, 3));
                        limits.push(LimitRow {
                            towards: format!("{} -> {}", l.var, l.transform.towards()),
                            outer: o.clone(),
                            sequence: seq,
                            estimate: to_sci(&est, 8),
                            error: to_sci(&err, 3),
                            degree: deg,
                            estimate_value: est.clone(),
                            error_value: err.clone(),
                        });
                        items.push(Item {
                            point: o.clone(),
                            value: Ok((est, err, text)),
                            bound: last.bound.clone(),
                            tol: last.tol.clone(),
                            warn: vec![],
                        });
                    }
                    Err(e) => items.push(Item {
                        point: o.clone(),
                        value: Err(e),
                        bound: None,
                        tol: Float::with_val(bits, 0),
                        warn: vec![],
                    }),
                }
            }
        }
    }
    let mut judged: Vec<Judged> = if check.relation.is_along() {
        along(check, &items)
    } else {
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
    };
    // Independent values.
    for ev in &check.expected_values {
        let point: Vec<(String, String)> = check
            .grid
            .iter()
            .filter_map(|(k, _)| ev.at.get(k).map(|v| (k.clone(), v.clone())))
            .collect();
        let lab = format!("expected value at {} ({})", label(&point), ev.source);
        let res = (|| -> Result<Judged, String> {
            let pv = eval_point(claim, check, &point, cache).map_err(|e| e.to_string())?;
            let want = parse_decimal(&ev.value, bits).map_err(|e| e.to_string())?;
            let tol = parse_decimal(&ev.tolerance, bits).map_err(|e| e.to_string())?;
            let m = Float::with_val(bits, &tol - Float::with_val(bits, &pv.q.hi - &want).abs());
            let u = pv.q.uncertainty();
            let warn = warnings_of(&pv.q, None);
            let mut value = value_text(&pv.q, digits);
            let verdict = if warn.is_empty() {
                judge(&m, &u, false)
            } else {
                value.push_str(&heavy_tail_note(&warn));
                Verdict::Inconclusive
            };
            Ok(Judged {
                label: lab.clone(),
                value,
                bound: format!("== {} ± {}", ev.value, ev.tolerance),
                margin: to_sci(&m, MARGIN_DIGITS),
                rel_margin: scaled(&m, &tol),
                rel_margin_text: scaled_text(&m, &tol),
                uncertainty: to_sci(&u, 3),
                verdict,
                point: vec![],
                bound_value: None,
            })
        })();
        judged.push(res.unwrap_or_else(|e| Judged::error(lab, &e)));
    }
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
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    let relation = match (check.relation.is_along(), &check.along) {
        (true, Some(a)) => match &check.at {
            Some(at) => format!("{} along {a} at {a}={at}", check.relation.name()),
            None => format!("{} along {a}", check.relation.name()),
        },
        _ => format!(
            "{} {}",
            check.relation.name(),
            check.bound_text.clone().unwrap_or_default()
        ),
    };
    CheckResult {
        name: check.name.clone(),
        meaning: check.meaning.clone(),
        quantity: check.quantity_text.clone(),
        relation,
        verdict,
        expect: check.expect,
        finding: check.finding.clone(),
        margin: worst
            .map(|w| w.margin.clone())
            .unwrap_or_else(|| "-".into()),
        rel_margin: worst.map(|w| w.rel_margin).unwrap_or(f64::NEG_INFINITY),
        rel_margin_text: worst.and_then(|w| w.rel_margin_text.clone()),
        worst_point: worst
            .map(|w| w.label.clone())
            .unwrap_or_else(|| "(no comparison)".into()),
        rows,
        limits,
        judged,
    }
}

/// Runs every check of a claim (points in parallel; one cache per claim).
pub fn run_claim(claim: &Claim) -> ClaimResult {
    let cache = Cache::default();
    let checks: Vec<CheckResult> = claim
        .checks
        .iter()
        .map(|c| run_check(claim, c, &cache))
        .collect();
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
                        .unwrap_or(std::cmp::Ordering::Equal),
                )
        })
        .map(|(i, _)| i)
        .unwrap_or(0);
    ClaimResult {
        claim: claim.clone(),
        verdict,
        checks,
        worst_check,
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
