//! `check --format junit`: the run as JUnit XML for CI systems, valid against the Apache
//! Ant JUnit schema (Windy Road's `JUnit.xsd`, `tests/junit/JUnit.xsd`).
//!
//! One `<testsuite>` per claim (name: its id; package: its file), one `<testcase>` per
//! check (classname: the claim's id; name: the check's; time: its wall-clock seconds):
//! * a FAIL the file does not expect is a `<failure type="FAIL">` whose message gives the
//!   margin and the worst point; an expected FAIL that no longer fails is a failure too
//!   (`type="expected FAIL not reproduced"`), since it makes `check` exit 1;
//! * an INCONCLUSIVE check is `<skipped>` with its reasons (each undecided comparison and
//!   each point that could not be computed);
//! * a check that could not be computed (no point computed, or a numerical failure) is an
//!   `<error type="uncomputed">` with the points' errors;
//! * anything else passes. An expected FAIL that reproduces passes, and its finding is
//!   written in the suite's `<system-out>` (the schema allows no output inside a testcase).

use crate::claims::run::{CheckResult, ClaimResult};
use crate::claims::Verdict;

/// Undecided comparisons and uncomputed points listed in a message, at most.
const MAX_REASONS: usize = 5;

/// Where and when the run happened (the schema requires both on every suite).
#[derive(Debug, Clone)]
pub struct JunitEnv {
    /// `YYYY-MM-DDTHH:MM:SS` (UTC, no zone: the schema's pattern).
    pub timestamp: String,
    /// The machine's name (not empty).
    pub hostname: String,
}

/// Text escaped for an XML attribute or element.
fn esc(s: &str) -> String {
    crate::report::figure::text::xml_escape_with(s, |o, c| match c {
        '\'' => o.push_str("&apos;"),
        '\n' => o.push_str("&#10;"),
        '\t' => o.push_str("&#9;"),
        // characters XML 1.0 cannot carry at all
        c if (c as u32) < 0x20 && c != '\r' => o.push('?'),
        c => o.push(c),
    })
}

/// Element text escaped (line breaks kept as they are).
fn esc_text(s: &str) -> String {
    esc(s).replace("&#10;", "\n")
}

/// Why a check is undecided or uncomputed: its comparisons that are INCONCLUSIVE and its
/// points that could not be computed, at most [`MAX_REASONS`] (and how many more).
pub fn reasons(c: &CheckResult) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for r in &c.rows {
        if let Err(e) = &r.value {
            let at = crate::claims::point_label(&r.point);
            all.push(if at.is_empty() {
                format!("not computed: {e}")
            } else {
                format!("{at}: not computed: {e}")
            });
        }
    }
    for j in &c.judged {
        if j.verdict == Verdict::Inconclusive && !j.value.starts_with("error: ") {
            all.push(format!(
                "{}: {} vs {} (uncertainty {}): undecided",
                j.label, j.value, j.bound, j.uncertainty
            ));
        }
    }
    if all.is_empty() {
        all.push("no comparison could be made".into());
    }
    let more = all.len().saturating_sub(MAX_REASONS);
    all.truncate(MAX_REASONS);
    if more > 0 {
        all.push(format!("and {more} more"));
    }
    all
}

/// The body of a non-passing case: the check and every comparison that did not pass.
fn details(c: &CheckResult) -> String {
    let mut o = format!(
        "quantity: {}\nrelation: {}\nverdict: {} (expected {})\nmargin: {}\nworst point: {}\n",
        c.quantity,
        c.relation,
        c.verdict.name(),
        c.expect.name(),
        c.margin,
        c.worst_point
    );
    for j in c.judged.iter().filter(|j| j.verdict != Verdict::Pass) {
        o.push_str(&format!(
            "  {} at {}: {}",
            j.verdict.name(),
            j.label,
            j.value
        ));
        if !j.bound.is_empty() {
            o.push_str(&format!(", bound {}, margin {}", j.bound, j.margin));
        }
        o.push('\n');
    }
    o
}

/// What a check is as a test case.
enum Outcome {
    Pass,
    Failure { kind: &'static str, message: String },
    Skipped(String),
    Error(String),
}

fn outcome(c: &CheckResult) -> Outcome {
    if c.uncomputed() {
        return Outcome::Error(format!("could not be computed: {}", reasons(c).join("; ")));
    }
    if c.fails_run() {
        return if c.verdict == Verdict::Fail {
            Outcome::Failure {
                kind: "FAIL",
                message: format!("FAIL: margin {} at {}", c.margin, c.worst_point),
            }
        } else {
            Outcome::Failure {
                kind: "expected FAIL not reproduced",
                message: format!(
                    "expected FAIL ({}) but the check is {}: margin {} at {}",
                    c.finding.as_deref().unwrap_or("a documented finding"),
                    c.verdict.name(),
                    c.margin,
                    c.worst_point
                ),
            }
        };
    }
    if c.verdict == Verdict::Inconclusive {
        return Outcome::Skipped(format!("INCONCLUSIVE: {}", reasons(c).join("; ")));
    }
    Outcome::Pass
}

/// Seconds as the schema's decimal (no exponent).
fn secs(s: f64) -> String {
    if s.is_finite() && s >= 0.0 {
        format!("{s:.3}")
    } else {
        "0.000".into()
    }
}

/// The run as one `<testsuites>` document.
pub fn to_junit(rs: &[ClaimResult], env: &JunitEnv) -> String {
    let mut o = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for (id, r) in rs.iter().enumerate() {
        let outcomes: Vec<Outcome> = r.checks.iter().map(outcome).collect();
        let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|x| f(x)).count();
        let failures = count(|x| matches!(x, Outcome::Failure { .. }));
        let errors = count(|x| matches!(x, Outcome::Error(_)));
        let skipped = count(|x| matches!(x, Outcome::Skipped(_)));
        let time: f64 = r.check_seconds.iter().sum();
        o.push_str(&format!(
            "  <testsuite name=\"{}\" package=\"{}\" id=\"{id}\" timestamp=\"{}\" hostname=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{}\">\n",
            esc(&r.claim.id),
            esc(&r.claim.path),
            esc(&env.timestamp),
            esc(&env.hostname),
            r.checks.len(),
            secs(time)
        ));
        o.push_str("    <properties>\n");
        for (k, v) in [
            ("source", r.claim.source_short()),
            ("statement", r.claim.statement.trim().to_string()),
            ("verdict", r.verdict.name().to_string()),
        ] {
            o.push_str(&format!(
                "      <property name=\"{k}\" value=\"{}\"/>\n",
                esc(&v)
            ));
        }
        o.push_str("    </properties>\n");
        let mut out = String::new();
        for (i, (c, x)) in r.checks.iter().zip(&outcomes).enumerate() {
            let t = secs(r.check_seconds.get(i).copied().unwrap_or(0.0));
            let head = format!(
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{t}\"",
                esc(&c.name),
                esc(&r.claim.id)
            );
            match x {
                Outcome::Pass => {
                    o.push_str(&head);
                    o.push_str("/>\n");
                    if c.verdict == Verdict::Fail {
                        out.push_str(&format!(
                            "{}: FAIL as expected (a documented finding: {}); margin {} at {}\n",
                            c.name,
                            c.finding.as_deref().unwrap_or("-"),
                            c.margin,
                            c.worst_point
                        ));
                    }
                }
                Outcome::Failure { kind, message } => o.push_str(&format!(
                    "{head}>\n      <failure type=\"{kind}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                    esc(message),
                    esc_text(&details(c))
                )),
                Outcome::Skipped(m) => o.push_str(&format!(
                    "{head}>\n      <skipped message=\"{}\">{}</skipped>\n    </testcase>\n",
                    esc(m),
                    esc_text(&details(c))
                )),
                Outcome::Error(m) => o.push_str(&format!(
                    "{head}>\n      <error type=\"uncomputed\" message=\"{}\">{}</error>\n    </testcase>\n",
                    esc(m),
                    esc_text(&details(c))
                )),
            }
        }
        o.push_str(&format!(
            "    <system-out>{}</system-out>\n    <system-err></system-err>\n  </testsuite>\n",
            esc_text(&out)
        ));
    }
    o.push_str("</testsuites>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(esc("a<b & \"c\"\n"), "a&lt;b &amp; &quot;c&quot;&#10;");
        assert_eq!(esc_text("x > 1\ny"), "x &gt; 1\ny");
        assert_eq!(esc("\u{1}"), "?");
        assert_eq!(secs(1.23456), "1.235");
        assert_eq!(secs(f64::NAN), "0.000");
    }
}
