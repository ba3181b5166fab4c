//! Reports of `check`: a text table, one JSON object, Markdown, and per-claim CSV.

use crate::claims::run::{CheckResult, ClaimResult};
use crate::claims::Verdict;
use serde_json::{json, Map, Value};

/// Counts over a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaimsSummary {
    /// Claims run.
    pub claims: usize,
    /// Checks run.
    pub checks: usize,
    /// Claims whose verdict is PASS.
    pub pass: usize,
    /// FAIL.
    pub fail: usize,
    /// INCONCLUSIVE.
    pub inconclusive: usize,
    /// Claims with a FAIL their file expects (a documented finding).
    pub expected_fail: usize,
    /// Claims that make the run fail (unexpected FAIL, or an expected FAIL that passed).
    pub failing_run: usize,
    /// Claims that could not be computed: a check none of whose points computed, or a
    /// point stopped by a numerical failure or an internal error.
    pub uncomputed: usize,
    /// Whether some claim ran under `--rigorous` (then PROVEN is counted apart).
    pub rigorous: bool,
    /// Claims whose every check is PROVEN (not counted in `pass`).
    pub proven: usize,
    /// Checks that are PROVEN.
    pub proven_checks: usize,
}

impl ClaimsSummary {
    /// Exit status of `check`: 1 when some claim fails the run, else 3 when some claim
    /// could not be computed, else 0.
    pub fn exit_status(&self) -> i32 {
        self.exit_status_strict(false)
    }

    /// As [`ClaimsSummary::exit_status`]; with `strict`, an INCONCLUSIVE claim fails the run too.
    pub fn exit_status_strict(&self, strict: bool) -> i32 {
        if self.failing_run > 0 || (strict && self.inconclusive > 0) {
            crate::error::EXIT_FAILED
        } else if self.uncomputed > 0 {
            crate::error::EXIT_NUMERICAL
        } else {
            crate::error::EXIT_OK
        }
    }
}

/// Counts the results.
pub fn summary(rs: &[ClaimResult]) -> ClaimsSummary {
    let mut s = ClaimsSummary {
        claims: rs.len(),
        ..ClaimsSummary::default()
    };
    for r in rs {
        s.checks += r.checks.len();
        s.rigorous |= r.rigorous();
        s.proven_checks += r.proven_checks();
        match r.verdict {
            Verdict::Pass if r.proven() => s.proven += 1,
            Verdict::Pass => s.pass += 1,
            Verdict::Fail => s.fail += 1,
            Verdict::Inconclusive => s.inconclusive += 1,
        }
        if r.verdict == Verdict::Fail && !r.fails_run() {
            s.expected_fail += 1;
        }
        if r.fails_run() {
            s.failing_run += 1;
        }
        if r.uncomputed() {
            s.uncomputed += 1;
        }
    }
    s
}

/// A relative margin in JSON: a decimal string, or `null` when there is none (JSON has
/// no infinities; [`rel_note`] says why).
fn rel(x: &Option<String>) -> Value {
    x.clone().map_or(Value::Null, Value::String)
}

/// Why a relative margin is `null`: inserted as `rel_margin_note` beside it.
fn rel_note(x: &Option<String>, obj: &mut Value) {
    if x.is_some() {
        return;
    }
    if let Value::Object(m) = obj {
        m.insert(
            "rel_margin_note".into(),
            Value::String(
                "no comparison could be made (no point was computed, or the margin is not a number)"
                    .into(),
            ),
        );
    }
}

/// The verdict as shown, with the expectation when it is not PASS.
pub fn verdict_shown(r: &ClaimResult) -> String {
    let v = r.class();
    if r.fails_run() {
        let w = r.checks.iter().find(|c| c.fails_run());
        match w {
            Some(c) if c.expect != Verdict::Pass => format!("{v} (expected {})", c.expect.name()),
            _ => v.to_string(),
        }
    } else if r.verdict != Verdict::Pass && r.as_expected() {
        format!("{v} (expected)")
    } else {
        v.to_string()
    }
}

/// A grid point's (name, value) pairs as a JSON object of strings, in their order.
fn text_map(pairs: &[(String, String)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect()
}

fn check_json(c: &CheckResult) -> Value {
    let limits: Vec<Value> = c
        .limits
        .iter()
        .map(|l| {
            json!({
                "at": text_map(&l.outer),
                "sequence": l.sequence.iter().map(|(x, y)| json!([x, y])).collect::<Vec<_>>(),
                "estimate": l.estimate,
                "error": l.error,
                "degree": l.degree,
            })
        })
        .collect();
    let points: Vec<Value> = c
        .rows
        .iter()
        .map(|r| {
            let mut m = text_map(&r.point);
            match &r.value {
                Ok(v) => {
                    m.insert("value".into(), Value::String(v.clone()));
                    m.insert("digits".into(), Value::from(r.digits));
                }
                Err(e) => {
                    m.insert("error".into(), Value::String(e.clone()));
                }
            }
            Value::Object(m)
        })
        .collect();
    let judged: Vec<Value> = c
        .judged
        .iter()
        .map(|j| {
            let mut o = json!({
                "point": j.label,
                "value": j.value,
                "bound": j.bound,
                "margin": j.margin,
                "rel_margin": rel(&j.rel_margin_text),
                "uncertainty": j.uncertainty,
                "verdict": j.class(),
            });
            rel_note(&j.rel_margin_text, &mut o);
            proof_json(&j.proof, &mut o);
            if let (Some(why), Value::Object(m)) = (&j.reason, &mut o) {
                m.insert("reason".into(), Value::String(why.clone()));
            }
            o
        })
        .collect();
    let mut o = json!({
        "name": c.name,
        "meaning": c.meaning,
        "quantity": c.quantity,
        "relation": c.relation,
        "verdict": c.class(),
        "expect": c.expect.name(),
        "as_expected": c.as_expected(),
        "finding": c.finding,
        "margin": c.margin,
        "rel_margin": rel(&c.rel_margin_text),
        "worst_point": c.worst_point,
        "limits": limits,
        "points": points,
        "comparisons": judged,
    });
    rel_note(&c.rel_margin_text, &mut o);
    proof_json(&c.proof, &mut o);
    o
}

/// Under `--rigorous`: `proven` (true or false) and, when false, `proof_note` (why not).
fn proof_json(p: &Option<Result<(), String>>, obj: &mut Value) {
    let (Some(p), Value::Object(m)) = (p, obj) else {
        return;
    };
    m.insert("proven".into(), Value::Bool(p.is_ok()));
    if let Err(why) = p {
        m.insert("proof_note".into(), Value::String(why.clone()));
    }
}

/// A check's class as the tables show it: `PROVEN`, or the verdict, and under
/// `--rigorous` why a check is not proven.
pub fn check_class_text(c: &CheckResult) -> String {
    match c.unproven_reason() {
        Some(why) => format!("{} (not proven: {why})", c.class()),
        None => c.class().to_string(),
    }
}

/// Under `--rigorous`, one line per check: its class and, when it is not PROVEN, why.
pub fn proof_lines(rs: &[ClaimResult]) -> Vec<String> {
    rs.iter()
        .filter(|r| r.rigorous())
        .flat_map(|r| {
            r.checks
                .iter()
                .map(move |c| format!("{}/{}: {}", r.claim.id, c.name, check_class_text(c)))
        })
        .collect()
}

/// The counts of the summary line: PROVEN apart under `--rigorous`.
fn counts_text(s: &ClaimsSummary) -> String {
    if s.rigorous {
        format!("{} PROVEN, ", s.proven)
    } else {
        String::new()
    }
}

/// The end of the summary line under `--rigorous`: the checks PROVEN.
fn proven_checks_text(s: &ClaimsSummary) -> String {
    if s.rigorous {
        format!("; {} of {} checks PROVEN", s.proven_checks, s.checks)
    } else {
        String::new()
    }
}

/// One claim as JSON.
pub fn claim_json(r: &ClaimResult) -> Value {
    let c = &r.claim;
    let w = r.worst();
    let mut o = json!({
        "id": c.id,
        "row": c.row,
        "file": c.path,
        "source": match &c.source {
            Some(s) => format!(
                "{}, {}: \"{}\"",
                s.paper,
                s.seed.as_deref().unwrap_or("no seed file"),
                s.words.trim()
            ),
            None => crate::claims::compile::UNPUBLISHED.to_string(),
        },
        "paper": c.source.as_ref().map(|s| s.paper.clone()),
        "seed": c.source.as_ref().and_then(|s| s.seed.clone()),
        "location": c.source.as_ref().and_then(|s| s.location.clone()),
        "statement": c.statement,
        "reading": c.reading,
        "notes": c.notes,
        "verdict": r.class(),
        "as_expected": r.as_expected(),
        "fails_run": r.fails_run(),
        "margin": w.map(|w| w.margin.clone()),
        "rel_margin": w.map(|w| rel(&w.rel_margin_text)),
        "worst_point": w.map(|w| format!("{}: {}", w.name, w.worst_point)),
        "margin_check": w.map(|w| w.name.clone()),
        "digits": c.digits,
        "checks": r.checks.iter().map(check_json).collect::<Vec<_>>(),
    });
    if let Some(w) = w {
        rel_note(&w.rel_margin_text, &mut o);
    }
    if let (true, Value::Object(m)) = (r.rigorous(), &mut o) {
        m.insert("proven_checks".into(), json!(r.proven_checks()));
    }
    o
}

/// The whole run as one JSON object `{"claims": [...], "summary": {...}}`.
pub fn to_json(rs: &[ClaimResult]) -> String {
    let s = summary(rs);
    let v = json!({
        "claims": rs.iter().map(claim_json).collect::<Vec<_>>(),
        "summary": {
            "claims": s.claims,
            "checks": s.checks,
            "pass": s.pass,
            "fail": s.fail,
            "inconclusive": s.inconclusive,
            "expected_fail": s.expected_fail,
            "failing_run": s.failing_run,
            "uncomputed": s.uncomputed,
            "exit_status": s.exit_status(),
        }
    });
    let mut v = v;
    if let (true, Some(Value::Object(m))) = (s.rigorous, v.get_mut("summary")) {
        m.insert("proven".into(), json!(s.proven));
        m.insert("proven_checks".into(), json!(s.proven_checks));
    }
    v.to_string()
}

fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut w: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            if i < w.len() {
                w[i] = w[i].max(c.chars().count());
            }
        }
    }
    let line = |cells: Vec<String>| -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = w[i].saturating_sub(c.chars().count());
            s.push_str(c);
            if i + 1 < cells.len() {
                s.push_str(&" ".repeat(pad + 2));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(headers.iter().map(|h| h.to_string()).collect());
    out.push_str(&line(w.iter().map(|n| "-".repeat(*n)).collect()));
    for r in rows {
        out.push_str(&line(r.clone()));
    }
    out
}

/// The limits found, one line each.
pub fn limit_lines(rs: &[ClaimResult]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rs {
        for c in &r.checks {
            for l in &c.limits {
                let at = l.at_text();
                out.push(format!(
                    "{}/{}: {} = {} ± {} as {}{}",
                    r.claim.id,
                    c.name,
                    c.quantity,
                    l.estimate,
                    l.error,
                    l.towards,
                    if at.is_empty() {
                        String::new()
                    } else {
                        format!(" [{at}]")
                    }
                ));
            }
        }
    }
    out
}

/// The claim's margin as its summary shows it: the deciding check's margin, and when the
/// claim has several checks (whose margins may be in different units) that check's name.
pub fn claim_margin(r: &ClaimResult) -> String {
    match r.worst() {
        None => String::new(),
        Some(w) if r.checks.len() > 1 => format!("{} ({})", w.margin, w.name),
        Some(w) => w.margin.clone(),
    }
}

/// A check's verdict as shown, with its expectation when that is not PASS.
fn check_verdict_shown(k: &CheckResult) -> String {
    if k.expect != Verdict::Pass {
        format!("{} (expected {})", k.verdict.name(), k.expect.name())
    } else {
        k.verdict.name().to_string()
    }
}

/// Every comparison the run could not decide, as `id/check at POINT: why` lines
/// ([`CheckResult::undecided`]).
pub fn undecided_lines(rs: &[ClaimResult]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rs {
        for k in &r.checks {
            for (at, why) in k.undecided() {
                out.push(format!("{}/{} at {at}: {why}", r.claim.id, k.name));
            }
        }
    }
    out
}

/// The heading of a check's list of values: `id/check: QUANTITY RELATION`.
fn values_heading(r: &ClaimResult, k: &CheckResult) -> String {
    format!("{}/{}: {} {}", r.claim.id, k.name, k.quantity, k.relation)
}

/// The columns of a check's values (every comparison).
const VALUE_HEADERS: [&str; 6] = [
    "point",
    "value",
    "uncertainty",
    "bound",
    "margin",
    "verdict",
];

/// A check's comparisons as rows of [`VALUE_HEADERS`]: each point's (or limit's, or
/// step's) value, the uncertainty the verdict allowed for, the bound, the margin and the
/// verdict.
fn value_rows(k: &CheckResult) -> Vec<Vec<String>> {
    k.judged
        .iter()
        .map(|j| {
            vec![
                j.label.clone(),
                j.value.clone(),
                j.uncertainty.clone(),
                j.bound.clone(),
                j.margin.clone(),
                j.verdict.name().to_string(),
            ]
        })
        .collect()
}

/// The text report: a table (id, source, verdict, margin, worst point; a claim with
/// several checks gets one line per check below it), the limits found, every comparison
/// that could not be decided with why, and a summary line.
pub fn to_text(rs: &[ClaimResult]) -> String {
    text_report(rs, false)
}

/// [`to_text`] with every check's values (`check --verbose`): each comparison's value,
/// uncertainty, bound, margin and verdict.
pub fn to_text_verbose(rs: &[ClaimResult]) -> String {
    text_report(rs, true)
}

fn text_report(rs: &[ClaimResult], verbose: bool) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    for r in rs {
        let w = r.worst();
        rows.push(vec![
            r.claim.id.clone(),
            r.claim.source_short(),
            verdict_shown(r),
            claim_margin(r),
            w.map(|w| format!("{}: {}", w.name, w.worst_point))
                .unwrap_or_default(),
        ]);
        if r.checks.len() > 1 {
            for k in &r.checks {
                rows.push(vec![
                    format!("  - {}", k.name),
                    String::new(),
                    check_verdict_shown(k),
                    k.margin.clone(),
                    k.worst_point.clone(),
                ]);
            }
        }
    }
    let mut out = table(&["id", "source", "verdict", "margin", "worst point"], &rows);
    let lim = limit_lines(rs);
    if !lim.is_empty() {
        out.push_str("\nlimits (extrapolated estimate ± error):\n");
        for l in lim {
            out.push_str(&format!("  {l}\n"));
        }
    }
    let proofs = proof_lines(rs);
    if !proofs.is_empty() {
        out.push_str("\nproofs (--rigorous: PROVEN = decided by enclosures at every point):\n");
        for l in proofs {
            out.push_str(&format!("  {l}\n"));
        }
    }
    let und = undecided_lines(rs);
    if !und.is_empty() {
        out.push_str(
            "\nnot decided (each INCONCLUSIVE comparison and uncomputed point, and why):\n",
        );
        for l in und {
            out.push_str(&format!("  {l}\n"));
        }
    }
    if verbose {
        out.push_str("\nvalues (each comparison: the value, the uncertainty the verdict allowed for, the bound, the margin):\n");
        for r in rs {
            for k in &r.checks {
                out.push_str(&format!("\n{}\n", values_heading(r, k)));
                for line in table(&VALUE_HEADERS, &value_rows(k)).lines() {
                    out.push_str(&format!("  {line}\n"));
                }
            }
        }
    }
    let s = summary(rs);
    out.push_str(&format!(
        "\n{} claims ({} checks): {}{} PASS, {} FAIL ({} expected: documented findings), {} INCONCLUSIVE; {}{}\n",
        s.claims,
        s.checks,
        counts_text(&s),
        s.pass,
        s.fail,
        s.expected_fail,
        s.inconclusive,
        match (s.failing_run, s.uncomputed) {
            (0, 0) => "nothing fails unexpectedly".to_string(),
            (0, u) => format!("{u} claim(s) could not be computed"),
            (f, 0) => format!("{f} claim(s) fail"),
            (f, u) => format!("{f} claim(s) fail; {u} could not be computed"),
        },
        proven_checks_text(&s)
    ));
    out
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The Markdown report: the summary table, then each claim with its reading, its checks
/// and their worst points, and its limits.
pub fn to_markdown(rs: &[ClaimResult]) -> String {
    let mut out = String::from("# taskassign check\n\n| id | source | verdict | margin | worst point |\n|---|---|---|---|---|\n");
    for r in rs {
        let w = r.worst();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            r.claim.id,
            md_escape(&r.claim.source_short()),
            verdict_shown(r),
            md_escape(&claim_margin(r)),
            md_escape(
                &w.map(|w| format!("{}: {}", w.name, w.worst_point))
                    .unwrap_or_default()
            )
        ));
    }
    let s = summary(rs);
    out.push_str(&format!(
        "\n{} claims: {}{} PASS, {} FAIL ({} expected), {} INCONCLUSIVE{}.\n",
        s.claims,
        counts_text(&s),
        s.pass,
        s.fail,
        s.expected_fail,
        s.inconclusive,
        proven_checks_text(&s)
    ));
    for r in rs {
        let c = &r.claim;
        out.push_str(&format!("\n## {}\n\n", c.id));
        out.push_str(&format!("*Source*: {}\n\n", c.source_long()));
        out.push_str(&format!("*Statement*: {}\n\n", c.statement));
        out.push_str(&format!("*Reading*: {}\n\n", c.reading));
        if let Some(n) = &c.notes {
            out.push_str(&format!("*Notes*: {n}\n\n"));
        }
        out.push_str(&format!("*Verdict*: **{}**\n\n", verdict_shown(r)));
        out.push_str("| check | quantity | relation | verdict | margin | worst point |\n|---|---|---|---|---|---|\n");
        for k in &r.checks {
            out.push_str(&format!(
                "| {} | `{}` | {} | {}{} | {} | {} |\n",
                k.name,
                md_escape(&k.quantity),
                md_escape(&k.relation),
                md_escape(&check_class_text(k)),
                if k.expect != Verdict::Pass {
                    format!(" (expected {})", k.expect.name())
                } else {
                    String::new()
                },
                k.margin,
                md_escape(&k.worst_point)
            ));
        }
        if r.checks.len() > 1 {
            if let Some(w) = r.worst() {
                out.push_str(&format!(
                    "\n*Margin*: the claim's is that of check `{}` (the deciding check: {}); each check's margin is in its own quantity's unit.\n",
                    w.name,
                    if w.fails_run() {
                        "it makes the run fail".to_string()
                    } else {
                        format!(
                            "the smallest margin relative to its bound{}",
                            w.rel_margin_text
                                .as_ref()
                                .map(|t| format!(", {t}"))
                                .unwrap_or_default()
                        )
                    }
                ));
            }
        }
        for k in &r.checks {
            if let Some(f) = &k.finding {
                out.push_str(&format!("\n*Finding ({})*: {}\n", k.name, f.trim()));
            }
        }
        let und: Vec<String> = r
            .checks
            .iter()
            .flat_map(|k| {
                k.undecided().into_iter().map(move |(at, why)| {
                    format!(
                        "- `{}` at {}: {}\n",
                        k.name,
                        md_escape(&at),
                        md_escape(&why)
                    )
                })
            })
            .collect();
        if !und.is_empty() {
            out.push_str(
                "\n*Not decided* (each INCONCLUSIVE comparison and uncomputed point, and why):\n\n",
            );
            und.iter().for_each(|l| out.push_str(l));
        }
        for k in &r.checks {
            if k.limits.is_empty() {
                continue;
            }
            out.push_str(&format!("\nLimits of `{}`:\n\n", md_escape(&k.quantity)));
            for l in &k.limits {
                let at = l.at_text();
                let seq = l
                    .sequence
                    .iter()
                    .map(|(x, y)| format!("{x}: {y}"))
                    .collect::<Vec<_>>()
                    .join("; ");
                out.push_str(&format!(
                    "- {}: **{} ± {}** (sequence {seq})\n",
                    if at.is_empty() { "-".into() } else { at },
                    l.estimate,
                    l.error
                ));
            }
        }
        for k in &r.checks {
            out.push_str(&format!(
                "\nValues of `{}` (`{}` {}):\n\n| {} |\n|{}\n",
                k.name,
                md_escape(&k.quantity),
                md_escape(&k.relation),
                VALUE_HEADERS.join(" | "),
                "---|".repeat(VALUE_HEADERS.len())
            ));
            for row in value_rows(k) {
                out.push_str(&format!(
                    "| {} |\n",
                    row.iter()
                        .map(|c| md_escape(c))
                        .collect::<Vec<_>>()
                        .join(" | ")
                ));
            }
        }
    }
    out
}

pub(crate) fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Every evaluated point and every comparison of a claim, as CSV
/// (`check,kind,point,value,bound,margin,verdict`).
pub fn claim_csv(r: &ClaimResult) -> String {
    let mut out = String::from("check,kind,point,value,bound,margin,verdict\n");
    for k in &r.checks {
        for row in &k.rows {
            let p = row
                .point
                .iter()
                .map(|(a, b)| format!("{a}={b}"))
                .collect::<Vec<_>>()
                .join(" ");
            let v = match &row.value {
                Ok(v) => v.clone(),
                Err(e) => format!("error: {e}"),
            };
            out.push_str(&format!(
                "{},value,{},{},,,\n",
                csv_cell(&k.name),
                csv_cell(&p),
                csv_cell(&v)
            ));
        }
        for j in &k.judged {
            out.push_str(&format!(
                "{},comparison,{},{},{},{},{}\n",
                csv_cell(&k.name),
                csv_cell(&j.label),
                csv_cell(&j.value),
                csv_cell(&j.bound),
                csv_cell(&j.margin),
                j.class()
            ));
        }
    }
    out
}

/// Marks a JSON report as incomplete: the run was interrupted before all `total` claims
/// ran (the summary gains `incomplete` and `claims_total`, and `exit_status` becomes
/// the interrupted run's, `exit`).
pub fn mark_incomplete_json(json: &str, total: usize, exit: i32) -> String {
    match serde_json::from_str::<Value>(json) {
        Ok(mut v) => {
            if let Some(Value::Object(m)) = v.get_mut("summary") {
                m.insert("incomplete".into(), Value::Bool(true));
                m.insert("claims_total".into(), json!(total));
                m.insert("exit_status".into(), json!(exit));
            }
            v.to_string()
        }
        Err(_) => json.to_string(),
    }
}

/// The line that ends a text or Markdown report of an interrupted run.
pub fn incomplete_note(run: usize, total: usize) -> String {
    format!(
        "\nINCOMPLETE: interrupted after {run} of {total} claims; the claims not run are not in this report\n"
    )
}
