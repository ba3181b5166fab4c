//! Helpers shared by the integration tests (each test file is its own crate and uses a
//! part of them: `mod common;`).
#![allow(dead_code)]

use rug::Float;
use serde_json::{Map, Value};
use std::ffi::OsStr;
use std::time::Duration;
use taskassign::dist::{DistFactory, DistSpec, JobSize};

/// Longest a single run of the binary may take in a test.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// Exit status for bad input (ARCHITECTURE.md, "Errors and exit statuses").
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit status for a numerical failure.
pub const EXIT_NUMERICAL: i32 = 3;

/// A distribution from its spec at `bits` of precision (a test with a bad spec is a bug
/// of the test: it panics naming the spec).
pub fn build(spec: &str, bits: u32) -> Box<dyn JobSize> {
    DistSpec::parse(spec)
        .unwrap_or_else(|e| panic!("{spec}: {e}"))
        .build(bits)
        .unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// The `taskassign` binary, with [`RUN_TIMEOUT`].
pub fn taskassign() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("taskassign").expect("binary taskassign is built");
    c.timeout(RUN_TIMEOUT);
    c
}

/// What one run of the binary gave.
#[derive(Debug, Clone)]
pub struct Ran {
    /// The exit status (−1 when a signal ended it).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs the binary (with [`RUN_TIMEOUT`]) on `args`.
pub fn run<I, S>(args: I) -> Ran
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = taskassign().args(args).output().expect("binary runs");
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs the binary, asserts exit 0 and returns stdout.
pub fn run_ok<S: AsRef<OsStr> + std::fmt::Debug>(args: &[S]) -> String {
    let r = run(args);
    assert_eq!(
        r.code, 0,
        "args {args:?}: expected success, stderr: {}",
        r.stderr
    );
    r.stdout
}

/// Runs the binary with `--format json` already among `args`, asserts exit 0 and nothing
/// on stderr (no progress when stderr is not a terminal), and parses the one JSON object
/// on stdout.
pub fn run_json<S: AsRef<OsStr> + std::fmt::Debug>(args: &[S]) -> Map<String, Value> {
    let r = run(args);
    assert_eq!(r.code, 0, "args {args:?}: stderr: {}", r.stderr);
    assert!(
        r.stderr.is_empty(),
        "args {args:?}: nothing on stderr, got {}",
        r.stderr
    );
    match serde_json::from_str::<Value>(&r.stdout) {
        Ok(Value::Object(m)) => m,
        other => panic!(
            "args {args:?}: stdout is not one JSON object: {other:?}\n{}",
            r.stdout
        ),
    }
}

/// Asserts the bad-input contract (exit 2, nothing on stdout, exactly one non-empty line
/// on stderr, no panic) and that the line contains every one of `needles`
/// (case-insensitive). Returns the line.
pub fn expect_bad<S: AsRef<OsStr> + std::fmt::Debug>(args: &[S], needles: &[&str]) -> String {
    let r = run(args);
    assert_eq!(
        r.code, EXIT_BAD_INPUT,
        "args {args:?}: exit status, stderr: {}",
        r.stderr
    );
    assert!(
        r.stdout.is_empty(),
        "args {args:?}: stdout must be empty, got {:?}",
        r.stdout
    );
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "args {args:?}: stderr must be exactly one line, got {:?}",
        r.stderr
    );
    let line = lines[0];
    assert!(
        !line.trim().is_empty(),
        "args {args:?}: the stderr line is empty"
    );
    assert!(
        !line.contains("panicked"),
        "args {args:?}: panic instead of an error: {line}"
    );
    let lower = line.to_lowercase();
    for n in needles {
        assert!(
            lower.contains(&n.to_lowercase()),
            "args {args:?}: stderr line {line:?} does not mention {n:?}"
        );
    }
    line.to_string()
}

/// Asserts |got − want| ≤ tol (MPFR; the caller's tolerance says what it bounds).
pub fn assert_close(what: &str, got: &Float, want: &Float, tol: &Float) {
    let bits = got.prec().max(want.prec()) + 64;
    let d = Float::with_val(bits, got - want).abs();
    assert!(
        got.is_finite() && want.is_finite() && d <= *tol,
        "{what}: got {got}, want {want} (difference {d}, allowed {tol})"
    );
}

/// Asserts |got − want| ≤ tol (f64; the caller's tolerance says what it bounds).
pub fn assert_close_f64(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} (difference {}, allowed {tol})",
        (got - want).abs()
    );
}

/// The contract's format of a certified nonzero number: `d.ddd…eX` / `-d.ddd…eX` with a
/// nonzero leading digit (ARCHITECTURE.md, "The command line": every real number a decimal
/// string in scientific notation).
pub fn is_sci(s: &str) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    let Some((mant, exp)) = s.split_once('e') else {
        return false;
    };
    let exp = exp.strip_prefix('-').unwrap_or(exp);
    if exp.is_empty() || !exp.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let mut chars = mant.chars();
    if !matches!(chars.next(), Some('1'..='9')) {
        return false;
    }
    let rest = chars.as_str();
    rest.is_empty()
        || rest
            .strip_prefix('.')
            .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
}

/// A simulated number as `simulate` prints it: scientific notation, or `0`, or `inf`.
pub fn is_simulated_number(s: &str) -> bool {
    if s == "0" || s == "inf" {
        return true;
    }
    let Some((m, e)) = s.split_once('e') else {
        return false;
    };
    m.parse::<f64>().is_ok() && e.parse::<i32>().is_ok()
}

/// Sizes of the empirical test file: decimals that binary does not represent, ties, and
/// a wide spread.
pub const EMPIRICAL_SIZES: [&str; 12] = [
    "0.1",
    "0.3",
    "0.3",
    "1.25",
    "1.7",
    "2",
    "2.5",
    "7.77",
    "30",
    "31.5",
    "999.9",
    "123456.789",
];

/// Writes the empirical test file of [`EMPIRICAL_SIZES`] (one per test, `tag`, as tests
/// run in parallel) and returns its path.
pub fn empirical_file(tag: &str) -> String {
    let p = std::env::temp_dir().join(format!(
        "taskassign-test-sizes-{}-{tag}.txt",
        std::process::id()
    ));
    let mut text = String::from("# job sizes for the tests (tests/common)\n\n");
    for s in EMPIRICAL_SIZES {
        text.push_str(s);
        text.push('\n');
    }
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// The empirical law of `sizes` (one a line), written to a file of its own for a test
/// (`tag` names it: tests run in parallel).
pub fn sizes_law(tag: &str, sizes: &[&str]) -> DistSpec {
    let p = std::env::temp_dir().join(format!(
        "taskassign-test-law-{}-{tag}.txt",
        std::process::id()
    ));
    std::fs::write(&p, sizes.join("\n")).unwrap();
    DistSpec::parse(&format!("empirical:file={}", p.display())).unwrap()
}
