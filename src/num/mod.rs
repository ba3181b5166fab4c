//! Numbers: working precision, decimal parsing, certified output, root finding, and the
//! raw numerics the layers above share (golden section, Gauss–Legendre, double-double and
//! f64 log-domain kernels).
//!
//! Precision is never global: every MPFR value carries its own precision, and the
//! functions here take the precision they should produce as an argument.

pub(crate) mod certify;
pub(crate) mod dd;
pub(crate) mod extrapolate;
pub(crate) mod gamma;
pub(crate) mod gauss;
pub(crate) mod golden;
pub(crate) mod interval;
// Stays a public path while the exact-chain work on it is under way (its items are
// judged by the dead-code lint once that lands).
pub mod levels;
pub(crate) mod logf64;
pub(crate) mod markov;
pub(crate) mod normal;
pub(crate) mod ode;
pub(crate) mod quad;
pub(crate) mod range;
pub(crate) mod real;
pub(crate) mod root;
pub(crate) mod tol;

pub use certify::{certify_pair, last_digit_unit, to_sci, AtBoth, Certified, Certify};
pub use extrapolate::{extrapolate, Extrapolated, Transform};
pub use gamma::{gamma_interval, gamma_interval_enclosure, upper_gamma, upper_gamma_cf};
pub use interval::Interval;
pub use logf64::ln_power_integral_f64;
pub use markov::{
    explore, stationary, Ctmc, MarkovChain, MarkovError, SolveOptions, Solver, Stationary,
};
pub use normal::{ln_normal_q, normal_q};
pub use ode::{Tolerance, GLOBAL_ERROR_FACTOR};
pub use quad::{integrate_positive, integrate_with, tanh_sinh, QuadResult};
pub use range::Flags as MpfrFlags;
pub use real::{Dual2, Real};
pub use root::{illinois_f64, solve_increasing, solve_increasing_f64, BracketF64, Root};

use rug::Float;
use thiserror::Error;

/// Guard bits added to the bits that `--digits` asks for.
pub const GUARD_BITS: u32 = 32;
/// Smallest `--digits` accepted.
pub const MIN_DIGITS: u32 = 1;
/// Largest `--digits` accepted.
pub const MAX_DIGITS: u32 = 10_000;
/// Default `--digits`.
pub const DEFAULT_DIGITS: u32 = 30;
/// log2(10), used to turn decimal digits into bits.
const LOG2_10: f64 = std::f64::consts::LOG2_10;

/// Errors of the numeric layer.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum NumError {
    /// A string that is not a finite decimal number.
    #[error("'{0}' is not a finite decimal number")]
    BadNumber(String),
    /// `--digits` outside the accepted range.
    #[error("digits must be between {MIN_DIGITS} and {MAX_DIGITS}, got {0}")]
    DigitsOutOfRange(i64),
    /// A root finder that was given no sign change.
    #[error("no sign change on [{lo}, {hi}] for {what}")]
    NoBracket {
        /// What was being solved.
        what: String,
        /// Lower end of the interval (decimal).
        lo: String,
        /// Upper end of the interval (decimal).
        hi: String,
    },
    /// A root finder that ran out of iterations.
    #[error("{what}: no convergence after {iterations} iterations, last bracket [{lo}, {hi}]")]
    NoConvergence {
        /// What was being solved.
        what: String,
        /// Iterations used.
        iterations: usize,
        /// Lower end of the last bracket.
        lo: String,
        /// Upper end of the last bracket.
        hi: String,
    },
    /// Quadrature that did not reach its tolerance.
    #[error("quadrature did not converge: estimate {estimate}, error estimate {error}")]
    Quadrature {
        /// Last estimate.
        estimate: String,
        /// Last error estimate.
        error: String,
    },
    /// A value that is not finite where a finite one is needed.
    #[error("{0} is not finite")]
    NotFinite(String),
    /// An integral asked for that diverges (the question has no finite answer).
    #[error("{0} diverges")]
    Divergent(String),
    /// A computation whose intermediate results left MPFR's exponent range (a finite,
    /// nonzero quantity that became infinite or zero): nothing it computed is printed.
    #[error("{what}: a quantity {how} MPFR's exponent range (magnitudes 10^-323228496 to 10^323228496); no result is printed")]
    OutOfRange {
        /// What was computed.
        what: String,
        /// "overflowed" / "underflowed".
        how: String,
    },
    /// A count (hosts, servers, jobs) that is not a whole number in its range.
    #[error("{what} must be a whole number from {min} to {max}, got '{text}'")]
    BadCount {
        /// What is counted.
        what: String,
        /// As written.
        text: String,
        /// Smallest accepted.
        min: u64,
        /// Largest accepted.
        max: u64,
    },
}

impl crate::error::Classify for NumError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            NumError::BadNumber(_)
            | NumError::DigitsOutOfRange(_)
            | NumError::BadCount { .. }
            | NumError::Divergent(_) => ErrorKind::Input,
            NumError::NoBracket { .. }
            | NumError::NoConvergence { .. }
            | NumError::Quadrature { .. }
            | NumError::NotFinite(_)
            | NumError::OutOfRange { .. } => ErrorKind::Numerical,
        }
    }
}

/// Bits needed to represent `digits` significant decimal digits.
pub fn digits_to_bits(digits: u32) -> u32 {
    (f64::from(digits) * LOG2_10).ceil() as u32
}

/// Working precision (bits) for a result wanted to `digits` decimal digits: the digits'
/// bits plus [`GUARD_BITS`].
pub fn working_bits(digits: u32) -> u32 {
    digits_to_bits(digits) + GUARD_BITS
}

/// Extra bits of the second evaluation used to certify digits: at least this many, or a
/// quarter of the working precision if that is more.
pub const CERTIFY_EXTRA_BITS: u32 = 32;

/// The two precisions at which a result wanted to `digits` digits is computed: the
/// working precision and a higher one. Digits on which the two agree are printed.
pub fn certify_bits(digits: u32) -> (u32, u32) {
    let b = working_bits(digits);
    (b, b + CERTIFY_EXTRA_BITS.max(b / 4))
}

/// Checks a `--digits` value.
pub fn check_digits(digits: i64) -> Result<u32, NumError> {
    if (i64::from(MIN_DIGITS)..=i64::from(MAX_DIGITS)).contains(&digits) {
        Ok(digits as u32)
    } else {
        Err(NumError::DigitsOutOfRange(digits))
    }
}

/// Checks a `--max-states` value (the most states of an exact chain's truncation, `jsq
/// exact` and `redundancy exact`): at least one state, in one line the command line and the
/// Python package share.
///
/// ```
/// use taskassign::num::check_max_states;
/// assert_eq!(check_max_states(2_000_000), Ok(2_000_000));
/// assert_eq!(check_max_states(0), Err("--max-states must be at least 1, got 0".to_string()));
/// ```
pub fn check_max_states(n: i64) -> Result<usize, String> {
    usize::try_from(n)
        .ok()
        .filter(|m| *m >= 1)
        .ok_or_else(|| format!("--max-states must be at least 1, got {n}"))
}

/// Parses a decimal string (`"0.3"`, `"1e100000"`) directly at `bits` of precision,
/// never through `f64`.
///
/// ```
/// let x = taskassign::num::parse_decimal("1e100000", 64).unwrap();
/// assert!(x.is_finite());
/// let tenth = taskassign::num::parse_decimal("0.1", 200).unwrap();
/// assert_eq!(tenth.prec(), 200);
/// assert_ne!(tenth, rug::Float::with_val(200, 0.1f64)); // not rounded through f64
/// ```
pub fn parse_decimal(s: &str, bits: u32) -> Result<Float, NumError> {
    let t = s.trim();
    let bad = || NumError::BadNumber(s.to_string());
    // MPFR also accepts "@inf@", "nan" and hexadecimal forms; a user number is decimal.
    if t.is_empty()
        || !t
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return Err(bad());
    }
    let parsed = Float::parse(t).map_err(|_| bad())?;
    let x = Float::with_val(bits, parsed);
    if x.is_finite() {
        Ok(x)
    } else {
        Err(bad())
    }
}

/// Precision at which a count written as a decimal (`1e6`) is read: exact for every
/// integer below 2^64.
const COUNT_BITS: u32 = 128;

/// A count (`what`: hosts, servers, jobs) written as an integer or as a decimal with an
/// exponent (`1000000`, `1e6`, `2.5e3`), read exactly (never through f64), from `min` to
/// `max`.
///
/// ```
/// use taskassign::num::parse_count;
/// assert_eq!(parse_count("1e6", "hosts", 1, u64::MAX).unwrap(), 1_000_000);
/// assert_eq!(parse_count("1000000", "hosts", 1, u64::MAX).unwrap(), 1_000_000);
/// assert!(parse_count("2.5", "hosts", 1, 100).is_err());
/// assert!(parse_count("0", "hosts", 1, 100).is_err());
/// ```
pub fn parse_count(text: &str, what: &str, min: u64, max: u64) -> Result<u64, NumError> {
    let t = text.trim();
    let bad = || NumError::BadCount {
        what: what.to_string(),
        text: t.to_string(),
        min,
        max,
    };
    let n = match t.parse::<u64>() {
        Ok(n) => n,
        Err(_) => {
            let x = parse_decimal(t, COUNT_BITS).map_err(|_| bad())?;
            if !(x.is_integer() && x >= 0) {
                return Err(bad());
            }
            x.to_integer().and_then(|i| i.to_u64()).ok_or_else(bad)?
        }
    };
    if (min..=max).contains(&n) {
        Ok(n)
    } else {
        Err(bad())
    }
}

/// Significant digits of a number in an error message: enough to tell two close values
/// apart, short enough to read.
pub const MESSAGE_DIGITS: u32 = 12;

/// A number as an error message writes it: scientific notation with [`MESSAGE_DIGITS`]
/// significant digits (never a certified value: a message only points at the input); an
/// exact zero is `0` (`erlang:k=0` is told "got 0", not "got 0e0").
pub fn message_number(x: &Float) -> String {
    if x.is_zero() {
        return "0".to_string();
    }
    certify::to_sci(x, MESSAGE_DIGITS)
}

/// `x` rounded up to two significant digits (a length to run or to suggest: the simulators'
/// hints and defaults); a non-finite or non-positive `x` is returned as it is.
pub fn round_up_two_digits(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return x;
    }
    let unit = 10f64.powf(x.log10().floor() - 1.0);
    (x / unit).ceil() * unit
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: the least number with two significant digits at or above x; tolerance
    /// 1e−15 relative (the unit 10^k is a rounded power of ten).
    #[test]
    fn round_up_two_digits_by_hand() {
        for (x, want) in [
            (1234.0, 1300.0),
            (0.123, 0.13),
            (100.0, 100.0),
            (99.1, 100.0),
            (2.0, 2.0),
        ] {
            let got = round_up_two_digits(x);
            assert!((got - want).abs() <= 1e-15 * want, "{x}: {got}");
        }
        assert!(round_up_two_digits(f64::NAN).is_nan());
        assert_eq!(round_up_two_digits(f64::INFINITY), f64::INFINITY);
        assert_eq!(round_up_two_digits(0.0), 0.0);
    }

    #[test]
    fn digits_to_bits_matches_log2_10() {
        // 30 digits need ceil(30 * 3.3219...) = 100 bits.
        assert_eq!(digits_to_bits(30), 100);
        assert_eq!(digits_to_bits(1), 4);
    }

    #[test]
    fn parse_rejects_non_numbers() {
        for s in ["", "abc", "1e", "inf", "nan", "0x10", "1,5", "@inf@"] {
            assert!(parse_decimal(s, 64).is_err(), "{s}");
        }
    }

    #[test]
    fn parse_huge_exponent() {
        let x = parse_decimal("1e100000", 128).unwrap();
        // log10(x) = 100000 exactly; check through MPFR's log10 at the same precision.
        let l = Float::with_val(128, x.log10_ref());
        assert!((l - 100000u32).abs() < 1e-30);
    }

    #[test]
    fn digits_range() {
        assert!(check_digits(0).is_err());
        assert!(check_digits(10_001).is_err());
        assert_eq!(check_digits(30).unwrap(), 30);
    }
}
