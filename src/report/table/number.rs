//! The numbers of a table: certified decimal strings rounded to a table's digits, and a
//! limit or simulated mean with its error, the estimate rounded to the error's leading
//! digit (`1.5874011 ± 0.0000002`). Decimal strings are rounded as strings (half up on
//! the certified digits), so no binary conversion touches a printed digit.

use crate::num::certify::to_sci;
use rug::float::Round;
use rug::ops::Pow;
use rug::Float;

/// Leading exponents shown in plain decimal (`0.00123`, `123456`); outside, scientific.
pub const PLAIN_EXPONENTS: std::ops::RangeInclusive<i64> = -3..=5;

/// A decimal: sign, significant digits (no leading zero unless the number is 0) and the
/// exponent of the leading digit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dec {
    /// Negative.
    pub neg: bool,
    /// Significant digits.
    pub digits: String,
    /// Exponent of the first digit.
    pub exp: i64,
}

impl Dec {
    /// Parses `1.4142136e0`, `-3.2e-7`, `0.25`, `1e100`, `12`; `None` for anything else.
    pub fn parse(s: &str) -> Option<Dec> {
        let s = s.trim();
        let (neg, s) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s.strip_prefix('+').unwrap_or(s)),
        };
        let (mant, e) = match s.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i64>().ok()?),
            None => (s, 0),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        if int.is_empty() && frac.is_empty()
            || !int.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let all = format!("{int}{frac}");
        let lead = all.bytes().position(|b| b != b'0');
        let Some(lead) = lead else {
            return Some(Dec {
                neg: false,
                digits: "0".into(),
                exp: 0,
            });
        };
        let exp = e + int.len() as i64 - 1 - lead as i64;
        Some(Dec {
            neg,
            digits: all[lead..].to_string(),
            exp,
        })
    }

    /// Whether it is zero.
    pub fn is_zero(&self) -> bool {
        self.digits == "0"
    }

    /// Rounded (half up) to at most `n` significant digits.
    pub fn round(&self, n: usize) -> Dec {
        let n = n.max(1);
        if self.digits.len() <= n {
            return self.clone();
        }
        let mut d: Vec<u8> = self.digits.as_bytes()[..n].to_vec();
        let mut exp = self.exp;
        if self.digits.as_bytes()[n] >= b'5' {
            let mut i = n;
            loop {
                if i == 0 {
                    d.insert(0, b'1');
                    d.pop();
                    exp += 1;
                    break;
                }
                i -= 1;
                if d[i] == b'9' {
                    d[i] = b'0';
                } else {
                    d[i] += 1;
                    break;
                }
            }
        }
        Dec {
            neg: self.neg,
            digits: String::from_utf8_lossy(&d).into_owned(),
            exp,
        }
    }

    /// The digits as a fixed-point decimal of `self / 10^e` (every digit kept).
    pub fn fixed(&self, e: i64) -> String {
        let sign = if self.neg { "-" } else { "" };
        let k = self.exp - e; // exponent of the leading digit after scaling
        let d = &self.digits;
        if self.is_zero() {
            // zero shown to the position of its (only) digit
            return if k >= 0 {
                "0".into()
            } else {
                format!("0.{}", "0".repeat((-k) as usize))
            };
        }
        if k < 0 {
            return format!("{sign}0.{}{d}", "0".repeat((-k - 1) as usize));
        }
        let ku = k as usize;
        if d.len() <= ku + 1 {
            format!("{sign}{d}{}", "0".repeat(ku + 1 - d.len()))
        } else {
            format!("{sign}{}.{}", &d[..=ku], &d[ku + 1..])
        }
    }
}

/// A number as a table shows it: a mantissa (plain decimal), an optional error in the same
/// units, and the power of ten both are scaled by (0: plain).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The value (scaled by 10^-exp).
    pub value: String,
    /// Its error (same scale, same last decimal place).
    pub err: Option<String>,
    /// The power of ten.
    pub exp: i64,
}

fn display_exp(d: &Dec) -> i64 {
    if d.is_zero() || PLAIN_EXPONENTS.contains(&d.exp) {
        0
    } else {
        d.exp
    }
}

/// Decades a column's numbers may span and still be set as the cells come (each plain
/// within [`PLAIN_EXPONENTS`], else scientific). A column whose nonzero values' leading
/// exponents differ by more than this (a largest value at least 10^4 times the smallest:
/// tags-minmax-lower-bound's differences run from 1e-5 to 1e44) is set in exponent form,
/// every cell as a one-digit mantissa times a power of ten, so its siunitx `S` column
/// aligns mantissas and exponents (`table-format=-1.3e2`) instead of reserving 40 integer
/// and 5 decimal places. A column that would mix plain and scientific cells is set in
/// exponent form too: a column is never half one, half the other.
pub const SCI_SPAN_DECADES: i64 = 3;

/// The exponent of a shown number's leading digit (`None` for zero).
pub fn lead_exp(s: &Shown) -> Option<i64> {
    let d = Dec::parse(&format!("{}e{}", s.value, s.exp))?;
    (!d.is_zero()).then_some(d.exp)
}

/// Whether a column of these numbers is set in exponent form (see [`SCI_SPAN_DECADES`]).
pub fn exponent_column<'a>(nums: impl IntoIterator<Item = &'a Shown>) -> bool {
    let (mut lo, mut hi, mut plain, mut sci) = (i64::MAX, i64::MIN, false, false);
    for s in nums {
        let Some(e) = lead_exp(s) else { continue };
        lo = lo.min(e);
        hi = hi.max(e);
        if s.exp == 0 {
            plain = true;
        } else {
            sci = true;
        }
    }
    lo <= hi && (hi - lo > SCI_SPAN_DECADES || (plain && sci))
}

/// A shown number rescaled to a one-digit mantissa (`123.4` → `1.234` × 10^2, every digit
/// kept; an error with it, both down to the same last place). Zero is left as it is (it
/// has no leading digit).
pub fn in_exponent_form(s: &Shown) -> Shown {
    let Some(lead) = lead_exp(s) else {
        return s.clone();
    };
    // an integer's trailing zeros are places, not digits (`32000` from 3.2e4 is 3.2 x 10^4)
    let at = |t: &str| {
        let mut d = Dec::parse(&format!("{t}e{}", s.exp))?;
        if !t.contains('.') && !d.is_zero() {
            d.digits = d.digits.trim_end_matches('0').to_string();
        }
        Some(d.fixed(lead))
    };
    let Some(value) = at(&s.value) else {
        return s.clone();
    };
    let err = match s.err.as_deref().map(at) {
        None => None,
        Some(Some(e)) => Some(e),
        Some(None) => return s.clone(),
    };
    // an estimate and its error end at the same place (`1.0 ± 0.1`, not `1 ± 0.1`)
    let places = |t: &str| t.split_once('.').map_or(0, |(_, f)| f.len());
    let n = places(&value).max(err.as_deref().map_or(0, places));
    let pad = |t: String| match (places(&t), n) {
        (h, w) if h >= w => t,
        (0, w) => format!("{t}.{}", "0".repeat(w)),
        (h, w) => format!("{t}{}", "0".repeat(w - h)),
    };
    Shown {
        value: if err.is_some() { pad(value) } else { value },
        err: err.map(pad),
        exp: lead,
    }
}

/// A certified decimal string rounded to `n` significant digits.
pub fn shown(text: &str, n: usize) -> Option<Shown> {
    let d = Dec::parse(text)?.round(n);
    let e = display_exp(&d);
    Some(Shown {
        value: d.fixed(e),
        err: None,
        exp: e,
    })
}

/// An estimate with its error, as a table shows it.
///
/// When the error is below half a unit of the `n`-th significant digit, the estimate is
/// shown without an error, to the most digits (at most `n`) to which every value within
/// the error rounds alike ([`certain_digits`]): every digit shown is certain, and the
/// table's caption says so. Otherwise the error is rounded up to one significant digit
/// (two when the first is 1), the estimate rounded to that digit's place, but to at most
/// `n` significant digits (the error then rounded up to the last place shown), and the
/// two are shown together (`1.4142136 ± 0.0000001`, siunitx `1.4142136(1)`): an error
/// rounded up to one unit of the last digit is only ever printed when it is at least half
/// that unit. `None` when either is not finite.
pub fn with_error(est: &Float, err: &Float, n: u32) -> Option<Shown> {
    if !est.is_finite() || !err.is_finite() {
        return None;
    }
    let err = Float::with_val(err.prec(), err.abs_ref());
    if err.is_zero() {
        return shown(&to_sci(est, n), n as usize);
    }
    if !est.is_zero() {
        // the place of the n-th significant digit, after rounding to n digits
        let last = Dec::parse(&to_sci(est, n))?.exp - i64::from(n.max(1)) + 1;
        let prec = err.prec().max(est.prec()).max(64) + 64;
        let half_unit = Float::with_val(prec, Float::with_val(prec, 10).pow(last)) / 2u32;
        if err < half_unit {
            if let Some(s) = certain_digits(est, &err, n, last) {
                return Some(s);
            }
        }
    }
    // the error's leading place, rounded up; one place further when its leading digit is
    // 1 (1.1 would round up to 2, nearly doubling the interval: it is shown as 1.1, the
    // Particle Data Group's convention for a leading 1)
    let (_, d2, e2) = err.to_sign_string_exp_round(10, Some(2), Round::Up);
    let (_, _, e1) = err.to_sign_string_exp_round(10, Some(1), Round::Up);
    let err_place = if d2.starts_with('1') {
        i64::from(e2.unwrap_or(0)) - 2
    } else {
        i64::from(e1.unwrap_or(0)) - 1
    };
    let est_exp = if est.is_zero() {
        err_place
    } else {
        Dec::parse(&to_sci(est, n))?.exp
    };
    // the last place shown: the error's, or the n-th significant digit's if coarser
    let place = err_place.max(est_exp - i64::from(n.max(1)) + 1);
    let prec = err.prec().max(est.prec()).max(64) + 64;
    let scale = Float::with_val(prec, Float::with_val(prec, 10).pow(-place));
    let units = |x: Float| x.to_integer().map(|i| i.to_string());
    let v = units(Float::with_val(prec, est * &scale).round())?;
    let u = units(Float::with_val(prec, &err * &scale).ceil())?;
    let dec = |t: &str| -> Dec {
        let (neg, d) = match t.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, t),
        };
        if d == "0" {
            Dec {
                neg: false,
                digits: "0".into(),
                exp: place,
            }
        } else {
            Dec {
                neg,
                digits: d.trim_end_matches('0').to_string().max("0".into()),
                exp: place + d.len() as i64 - 1,
            }
        }
    };
    let (v, u) = (dec(&v), dec(&u));
    let x = display_exp(if v.is_zero() { &u } else { &v });
    // trailing zeros down to `place` are digits too
    let pad = |d: &Dec| -> String {
        let f = d.fixed(x);
        let want = (x - place).max(0) as usize; // decimals down to `place`
        let have = f.split_once('.').map_or(0, |(_, r)| r.len());
        match (have, want) {
            (h, w) if h >= w => f,
            (0, w) => format!("{f}.{}", "0".repeat(w)),
            (h, w) => format!("{f}{}", "0".repeat(w - h)),
        }
    };
    Some(Shown {
        value: pad(&v),
        err: Some(pad(&u)),
        exp: x,
    })
}

/// The estimate `est` rounded at the finest decimal place from `last` up (at most `n`
/// significant digits) at which `est − err` and `est + err` round (half away from zero) to
/// the same number: every value within the error shows these digits. `None` when no such
/// place keeps a nonzero digit.
fn certain_digits(est: &Float, err: &Float, n: u32, last: i64) -> Option<Shown> {
    let prec = err.prec().max(est.prec()).max(64) + 64;
    let lo = Float::with_val(prec, est - err);
    let hi = Float::with_val(prec, est + err);
    let n = i64::from(n.max(1));
    // at place last + n the value has no significant digit left
    for place in last..last + n {
        let scale = Float::with_val(prec, Float::with_val(prec, 10).pow(-place));
        let at = |x: &Float| {
            Float::with_val(prec, x * &scale)
                .round()
                .to_integer()
                .map(|i| i.to_string())
        };
        let (a, b) = (at(&lo)?, at(&hi)?);
        let digits = a.trim_start_matches('-');
        if a != b || digits == "0" || digits.len() as i64 > n {
            continue;
        }
        let d = Dec {
            neg: a.starts_with('-'),
            // every digit down to `place` is shown, trailing zeros too
            digits: digits.to_string(),
            exp: place + digits.len() as i64 - 1,
        };
        let e = display_exp(&d);
        return Some(Shown {
            value: d.fixed(e),
            err: None,
            exp: e,
        });
    }
    None
}

/// The decimal place of a shown number's last digit (`-0.449680` → −6, `(1.2 ± 0.3)e5` →
/// 4, `320` → 0).
pub fn last_place(s: &Shown) -> i64 {
    let decimals = s.value.split_once('.').map_or(0, |(_, f)| f.len()) as i64;
    s.exp - decimals
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_round() {
        // hand-worked decimals
        let d = Dec::parse("1.4142135623e0").unwrap();
        assert_eq!((d.digits.as_str(), d.exp), ("14142135623", 0));
        assert_eq!(d.round(8).fixed(0), "1.4142136");
        assert_eq!(Dec::parse("9.9996e2").unwrap().round(4).fixed(0), "1000");
        assert_eq!(Dec::parse("0.00125").unwrap().exp, -3);
        assert_eq!(Dec::parse("1e100").unwrap().exp, 100);
        assert!(Dec::parse("error").is_none());
        assert!(Dec::parse("1.2.3").is_none());
        assert_eq!(shown("3.4567e12", 3).unwrap().value, "3.46");
        assert_eq!(shown("3.4567e12", 3).unwrap().exp, 12);
        assert_eq!(shown("-2.5e-3", 2).unwrap().value, "-0.0025");
    }

    #[test]
    fn estimate_with_error() {
        // 2^(2/3) = 1.587401052 with error 1.3e-7: error rounded up to 2e-7, estimate to 1e-7
        let est = Float::with_val(128, 1.587401052);
        let err = Float::with_val(128, 1.3e-7);
        let s = with_error(&est, &err, 8).unwrap();
        assert_eq!(s.value, "1.5874011");
        assert_eq!(s.err.as_deref(), Some("0.0000002"));
        // an error below half a unit of the 8th digit: the 8 digits alone, all certain
        let tiny = Float::with_val(128, 3e-15);
        let s = with_error(&est, &tiny, 8).unwrap();
        assert_eq!((s.value.as_str(), s.err.as_deref()), ("1.5874011", None));
        // an estimate far below its error rounds to 0 at the error's place: -5e-41 ± 9.9e-30
        let small = Float::with_val(128, -5e-41);
        let big = Float::with_val(128, 9.86e-30);
        let s = with_error(&small, &big, 8).unwrap();
        assert_eq!(
            (s.value.as_str(), s.err.as_deref(), s.exp),
            ("0", Some("1"), -29)
        );
        // 0.5 exactly, error 1.2e-6 (leading digit 1: two digits): 0.5000000 ± 0.0000012,
        // capped at 6 significant digits: 0.500000 ± 0.000002
        let s = with_error(&Float::with_val(128, 0.5), &Float::with_val(128, 1.2e-6), 6).unwrap();
        assert_eq!(
            (s.value.as_str(), s.err.as_deref()),
            ("0.500000", Some("0.000002"))
        );
        let s = with_error(&Float::with_val(128, 0.5), &Float::with_val(128, 1.2e-6), 8).unwrap();
        assert_eq!(
            (s.value.as_str(), s.err.as_deref()),
            ("0.5000000", Some("0.0000012"))
        );
        // -1.404 ± 1.05 (like redundancy-nbu-ros's -1.4 ± 1.1): -1.4 ± 1.1, not -1 ± 2 (the
        // f64 1.05 is just above 1.05, so it rounds up to 1.1); 0.95 rounds up to 1
        let s = with_error(
            &Float::with_val(128, -1.404),
            &Float::with_val(128, 1.05),
            3,
        )
        .unwrap();
        assert_eq!((s.value.as_str(), s.err.as_deref()), ("-1.4", Some("1.1")));
        let s = with_error(&Float::with_val(128, 2.34), &Float::with_val(128, 0.95), 3).unwrap();
        assert_eq!((s.value.as_str(), s.err.as_deref()), ("2", Some("1")));
    }

    fn at(s: &str) -> Float {
        crate::num::parse_decimal(s, 128).unwrap()
    }

    #[test]
    fn an_error_below_half_a_unit_is_not_printed() {
        // sqrt 2 = 1.41421356237309504880... (its definition, in MPFR). Errors below half a
        // unit of the 8th digit (5e-8) within which every value rounds to 1.4142136 (hand:
        // sqrt 2 - 1.2e-8 = 1.41421355037..., at least 1.41421355):
        let two = Float::with_val(128, 2);
        let sqrt2 = Float::with_val(128, two.sqrt_ref());
        for err in ["4.21e-30", "1.2e-8"] {
            let s = with_error(&sqrt2, &at(err), 8).unwrap();
            assert_eq!(
                (s.value.as_str(), s.err.as_deref(), s.exp),
                ("1.4142136", None, 0)
            );
        }
        // tags-sita-factor-two's limit at alpha = 1, h = 2, load = 0.8 has the error 1.24e-8,
        // also below 5e-8, but sqrt 2 - 1.24e-8 = 1.41421354997... rounds to 1.4142135: the
        // 8th digit is not certain, the 7th is (1.414214 throughout)
        for err in ["1.24e-8", "4.99e-8"] {
            let s = with_error(&sqrt2, &at(err), 8).unwrap();
            assert_eq!(
                (s.value.as_str(), s.err.as_deref(), s.exp),
                ("1.414214", None, 0)
            );
        }
        // half a unit exactly is not below it: the error is printed, rounded up to a unit
        let s = with_error(&sqrt2, &at("5e-8"), 8).unwrap();
        assert_eq!(
            (s.value.as_str(), s.err.as_deref()),
            ("1.4142136", Some("0.0000001"))
        );
        // an interval that straddles a rounding boundary of the 8th digit:
        // [1.4142135499997, 1.4142135500003] rounds to 1.4142135 and 1.4142136, but to
        // 1.414214 throughout at 7 digits
        let s = with_error(&at("1.41421355"), &at("3e-13"), 8).unwrap();
        assert_eq!((s.value.as_str(), s.err.as_deref()), ("1.414214", None));
        // trailing zeros are certain digits too, and the sign stays: -0.49999999999 +- 1e-20
        // at 6 digits is -0.500000
        let s = with_error(&at("-0.49999999999"), &at("1e-20"), 6).unwrap();
        assert_eq!((s.value.as_str(), s.err.as_deref()), ("-0.500000", None));
        // scientific beyond the plain exponents, as shown() does: 1.2345678e12 at 4 digits
        let s = with_error(&at("1.2345678e12"), &at("1e-3"), 4).unwrap();
        assert_eq!(
            (s.value.as_str(), s.err.as_deref(), s.exp),
            ("1.235", None, 12)
        );
        // the places of shown numbers
        assert_eq!(last_place(&s), 9);
        assert_eq!(last_place(&shown("-4.4968030e-1", 6).unwrap()), -6);
        assert_eq!(last_place(&shown("320", 3).unwrap()), 0);
    }

    fn nums(texts: &[&str]) -> Vec<Shown> {
        texts.iter().map(|t| shown(t, 4).unwrap()).collect()
    }

    #[test]
    fn exponent_form_when_a_column_spans_decades() {
        // 1e-5 .. 1e37 spans 42 decades (> SCI_SPAN_DECADES = 3): exponent form
        assert!(exponent_column(&nums(&[
            "1.046e-5",
            "0.1212",
            "3.2e4",
            "1.4132e37"
        ])));
        // 0.5 .. 3: under one decade, all plain: as the cells come
        assert!(!exponent_column(&nums(&["0.5", "1.25", "3"])));
        // exactly 3 decades (0.25 .. 250): still plain; 4 (0.25 .. 2500): exponent form
        assert!(!exponent_column(&nums(&["0.25", "250"])));
        assert!(exponent_column(&nums(&["0.25", "2500"])));
        // one decade but half plain (0.002), half scientific (0.0004 is below 10^-3)
        assert!(exponent_column(&nums(&["0.002", "0.0004"])));
        // zeros have no leading digit and do not count
        assert!(!exponent_column(&nums(&["0", "1.5", "2"])));
        assert!(!exponent_column(&nums(&["0"])));
    }

    #[test]
    fn exponent_form_keeps_every_digit() {
        // hand-worked: 123.4 = 1.234 x 10^2; -0.01046 = -1.046 x 10^-2; 0.500 keeps its zeros
        let f = |t: &str, n: usize| {
            let s = in_exponent_form(&shown(t, n).unwrap());
            (s.value, s.exp)
        };
        assert_eq!(f("123.4", 4), ("1.234".into(), 2));
        assert_eq!(f("-1.046e-2", 4), ("-1.046".into(), -2));
        assert_eq!(f("5.000e-1", 4), ("5.000".into(), -1));
        assert_eq!(f("1.4132213e44", 4), ("1.413".into(), 44));
        assert_eq!(f("7", 1), ("7".into(), 0));
        // trailing zeros of an integer are not digits: 32000 (2 digits) is 3.2 x 10^4
        assert_eq!(f("3.2e4", 4), ("3.2".into(), 4));
        // 1000 +- 100 at the hundreds: (1.0 +- 0.1) x 10^3
        let s = in_exponent_form(&Shown {
            value: "1000".into(),
            err: Some("100".into()),
            exp: 0,
        });
        assert_eq!(
            (s.value.as_str(), s.err.as_deref(), s.exp),
            ("1.0", Some("0.1"), 3)
        );
        // a value with its error: 0.51 +- 0.07 = (5.1 +- 0.7) x 10^-1
        let est = Float::with_val(128, 0.512);
        let s = in_exponent_form(&with_error(&est, &Float::with_val(128, 0.061), 3).unwrap());
        assert_eq!(
            (s.value.as_str(), s.err.as_deref(), s.exp),
            ("5.1", Some("0.7"), -1)
        );
        // 1.5874011 +- 0.0000002 has leading exponent 0: unchanged
        let s = with_error(
            &Float::with_val(128, 1.587401052),
            &Float::with_val(128, 1.3e-7),
            8,
        )
        .unwrap();
        assert_eq!(in_exponent_form(&s), s);
        // zero keeps its places
        let z = shown("0e0", 3).unwrap();
        assert_eq!(in_exponent_form(&z), z);
    }
}
