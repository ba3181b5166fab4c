//! What running a claim produces: the evaluated points ([`Row`]), the extrapolated limits
//! ([`LimitRow`]), every comparison the relation made ([`Judged`]), and a check's and a
//! claim's outcome ([`CheckResult`], [`ClaimResult`]); with the texts they show values in.

use crate::claims::compile::Claim;
use crate::claims::grid;
use crate::claims::value::Pair;
use crate::claims::verdict::Verdict;
use crate::error::ErrorKind;
use crate::num::certify::{certify_pair, to_sci};
use rug::Float;

/// Significant digits of margins in reports.
pub const MARGIN_DIGITS: u32 = 4;
/// Most significant digits shown for a simulated value (fewer when its half-width is wide).
pub const SIM_VALUE_DIGITS: u32 = 6;
/// Significant digits of a simulated value's half-width.
pub const SIM_HALF_WIDTH_DIGITS: u32 = 2;
/// Fewest significant digits shown for a simulated value: its half-width's leading digit
/// and one more.
const SIM_MIN_DIGITS: u32 = 2;

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
    /// Under `check --rigorous`: `Ok` when the enclosures prove the relation here (it
    /// holds for every point of them), else why not; `None` without `--rigorous`.
    pub proof: Option<Result<(), String>>,
    /// Why the comparison is INCONCLUSIVE: the error that stopped it (`not computed: …`),
    /// or why the margin does not decide; `None` when it is PASS or FAIL.
    pub reason: Option<String>,
    /// Under `check --rigorous`, when the enclosures leave the comparison undecided
    /// (they are too wide, not missing): the grid points whose values it reads, which the
    /// second stage proves again to the claim's digits; empty otherwise.
    pub(crate) read: Vec<Vec<(String, String)>>,
}

impl Judged {
    /// The comparison's class: `PROVEN` for a PASS the enclosures prove, else its
    /// verdict's name.
    pub fn class(&self) -> &'static str {
        if self.verdict == Verdict::Pass && matches!(self.proof, Some(Ok(()))) {
            "PROVEN"
        } else {
            self.verdict.name()
        }
    }
    /// A comparison that could not be made: its label and the error.
    pub(crate) fn error(label: String, e: &str) -> Self {
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
            proof: None,
            reason: Some(format!("not computed: {e}")),
            read: vec![],
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
    /// Under `check --rigorous`: `Ok` when the check is PROVEN (PASS, and every comparison
    /// decided by enclosures), else why it is not; `None` without `--rigorous`.
    pub proof: Option<Result<(), String>>,
}

impl CheckResult {
    /// Whether the check is PROVEN (`check --rigorous`: PASS, every comparison decided by
    /// enclosures).
    pub fn proven(&self) -> bool {
        self.verdict == Verdict::Pass && matches!(self.proof, Some(Ok(())))
    }
    /// The verdict's class as reports show it: `PROVEN` for a proven PASS, else the
    /// verdict's name.
    pub fn class(&self) -> &'static str {
        if self.proven() {
            "PROVEN"
        } else {
            self.verdict.name()
        }
    }
    /// Why a check run with `--rigorous` is not PROVEN (`None` when it is, or without
    /// `--rigorous`).
    pub fn unproven_reason(&self) -> Option<&str> {
        match &self.proof {
            Some(Err(w)) => Some(w),
            _ => None,
        }
    }
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
    /// Every comparison the check could not decide, with why (its label and
    /// [`Judged::reason`]): the INCONCLUSIVE ones, each uncomputed point among them; a
    /// check that made no comparison at all gives one entry saying so.
    pub fn undecided(&self) -> Vec<(String, String)> {
        if self.judged.is_empty() {
            return vec![(
                "(no comparison)".into(),
                "the relation made no comparison (no point, or no pair of values along the variable, to compare)".into(),
            )];
        }
        self.judged
            .iter()
            .filter(|j| j.verdict == Verdict::Inconclusive)
            .map(|j| {
                (
                    j.label.clone(),
                    j.reason
                        .clone()
                        .unwrap_or_else(|| "INCONCLUSIVE (no reason recorded)".into()),
                )
            })
            .collect()
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
    /// Wall-clock seconds each check took (in the order of `checks`; a later check may
    /// reuse an earlier one's cached values). For reports that carry timings (JUnit).
    pub check_seconds: Vec<f64>,
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
    /// Whether the claim ran under `--rigorous`.
    pub fn rigorous(&self) -> bool {
        self.claim.rigorous
    }
    /// How many of its checks are PROVEN.
    pub fn proven_checks(&self) -> usize {
        self.checks.iter().filter(|c| c.proven()).count()
    }
    /// Whether the claim is PROVEN: every check is.
    pub fn proven(&self) -> bool {
        !self.checks.is_empty() && self.checks.iter().all(CheckResult::proven)
    }
    /// The verdict's class: `PROVEN` for a claim whose every check is, else the verdict.
    pub fn class(&self) -> &'static str {
        if self.proven() {
            "PROVEN"
        } else {
            self.verdict.name()
        }
    }
}

/// A simulated value as `mean ± half-width` and the significant digits its half-width
/// supports ([`SIM_MIN_DIGITS`] to [`SIM_VALUE_DIGITS`]); `None` for a computed value.
pub(crate) fn sim_text(q: &Pair) -> Option<(String, u32)> {
    let s = q.sim.as_ref()?;
    let hw = &s.half_width;
    let digits = if hw.is_zero() {
        SIM_VALUE_DIGITS
    } else if q.hi.is_zero() || !hw.is_finite() {
        SIM_MIN_DIGITS
    } else {
        let r = Float::with_val(hw.prec(), q.hi.abs_ref()) / hw;
        // down to the half-width's leading digit, and one more
        let d = r.to_f64().log10().floor() + 2.0;
        if d.is_finite() {
            d.clamp(f64::from(SIM_MIN_DIGITS), f64::from(SIM_VALUE_DIGITS)) as u32
        } else {
            SIM_MIN_DIGITS
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
pub(crate) fn value_text(q: &Pair, digits: u32) -> String {
    match (sim_text(q), &q.sim) {
        (Some((t, _)), Some(s)) => format!("{t} (95%, simulated: {})", s.sources.join("; ")),
        _ => certify_pair(&q.lo, &q.hi, digits).text,
    }
}

/// The evidence appended when heavy-tail warnings make a comparison INCONCLUSIVE.
pub(crate) fn heavy_tail_note(w: &[String]) -> String {
    format!(
        "; INCONCLUSIVE whatever the margin, the interval is not trusted: {}",
        w.join("; ")
    )
}

/// A point as `k=v, k=v`, or `(single point)` for a check without grid variables.
pub(crate) fn label(point: &[(String, String)]) -> String {
    if point.is_empty() {
        return SINGLE_POINT.into();
    }
    grid::label(point)
}

/// The label of the one point of a check without grid variables.
pub(crate) const SINGLE_POINT: &str = "(single point)";
