//! Helpers shared by the integration tests (each test file is its own crate and uses a
//! part of them: `mod common;`).
#![allow(dead_code)]

use std::time::Duration;
use taskassign::dist::{DistFactory, DistSpec, JobSize};

/// Longest a single run of the binary may take in a test.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(120);

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
