//! Values of a grid axis: lists, exact decimal ranges and log ranges
//! ([`super::grid`] describes the grid file).
//!
//! A range `{ from, to, step }` is computed in exact decimal arithmetic and written
//! without an exponent while that is short (`0.1, 0.2, …, 0.9`); a log range
//! `{ from, to, per_decade }` takes `from × 10^(i/per_decade)` for i = 0, 1, … up to `to`
//! (which must be one of them): exact where i/per_decade is whole (`1e3`), else rounded to
//! [`LOG_RANGE_DIGITS`] significant digits (`3.16227766017e2`).

use crate::claims::schema::value_text;
use rug::ops::Pow;
use rug::{Float, Integer};
use toml::Spanned;

/// Significant digits of a log range's values that are not exact powers of ten apart.
pub const LOG_RANGE_DIGITS: u32 = 12;
/// Longest plain rendering of a range value (`0.000125`, `1000000`); longer ones are
/// written with an exponent (`1.5e100`).
const PLAIN_MAX_CHARS: usize = 24;
/// Precision (bits) of the log-range arithmetic: far beyond [`LOG_RANGE_DIGITS`].
const LOG_RANGE_BITS: u32 = 256;
/// How far `per_decade × log10(to/from)` may be from a whole number for `to` to count as
/// a value of the log range (rounding of the 256-bit arithmetic is far below it).
const LOG_RANGE_WHOLE_TOLERANCE: f64 = 1e-9;
/// Most values one axis may take.
pub const MAX_AXIS_VALUES: usize = 10_000_000;
/// An exact decimal m × 10^e.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decimal {
    m: Integer,
    e: i64,
}

impl Decimal {
    /// Reads `-12.5e-3` and the like (no `inf`, no hexadecimal).
    fn parse(s: &str) -> Option<Decimal> {
        let t = s.trim();
        let (mant, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
            None => (t, 0),
        };
        let (neg, mant) = match mant.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, mant.strip_prefix('+').unwrap_or(mant)),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        if int.is_empty() && frac.is_empty()
            || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let digits = format!("{int}{frac}");
        let mut m = Integer::from_str_radix(&digits, 10).ok()?;
        if neg {
            m = -m;
        }
        let e = exp.checked_sub(i64::try_from(frac.len()).ok()?)?;
        Some(Decimal { m, e }.normal())
    }

    /// Trailing zeros of the mantissa moved into the exponent (zero is 0e0).
    fn normal(mut self) -> Decimal {
        if self.m == 0 {
            return Decimal {
                m: Integer::new(),
                e: 0,
            };
        }
        while self.m.is_divisible_u(10) {
            self.m /= 10;
            self.e += 1;
        }
        self
    }

    /// The mantissa at exponent `e` (≤ the own exponent): m × 10^(self.e − e).
    fn scaled(&self, e: i64) -> Option<Integer> {
        let k = u32::try_from(self.e.checked_sub(e)?).ok()?;
        Some(&self.m * Integer::from(Integer::u_pow_u(10, k)))
    }

    /// Plain (`0.125`, `-40`) while short, else `d.ddde±x`.
    fn render(&self) -> String {
        let n = self.clone().normal();
        let neg = n.m < 0;
        let digits = Integer::from(n.m.abs_ref()).to_string();
        let sign = if neg { "-" } else { "" };
        let plain = if n.e >= 0 {
            usize::try_from(n.e)
                .ok()
                .filter(|&z| digits.len() + z <= PLAIN_MAX_CHARS)
                .map(|z| format!("{sign}{digits}{}", "0".repeat(z)))
        } else {
            usize::try_from(-n.e)
                .ok()
                .filter(|&f| f.max(digits.len()) + 2 <= PLAIN_MAX_CHARS)
                .map(|f| {
                    if f >= digits.len() {
                        format!("{sign}0.{}{digits}", "0".repeat(f - digits.len()))
                    } else {
                        let (i, r) = digits.split_at(digits.len() - f);
                        format!("{sign}{i}.{r}")
                    }
                })
        };
        plain.unwrap_or_else(|| n.scientific())
    }

    /// `d.ddde±x` with the mantissa's digits (no trailing zeros).
    fn scientific(&self) -> String {
        let n = self.clone().normal();
        let neg = n.m < 0;
        let digits = Integer::from(n.m.abs_ref()).to_string();
        let exp = n.e + digits.len() as i64 - 1;
        let sign = if neg { "-" } else { "" };
        if digits.len() == 1 {
            format!("{sign}{digits}e{exp}")
        } else {
            format!("{sign}{}.{}e{exp}", &digits[..1], &digits[1..])
        }
    }
}

/// An axis: a list, `{ from, to, step }` or `{ from, to, per_decade }`.
pub(super) fn axis_values(
    v: &Spanned<toml::Value>,
) -> Result<Vec<String>, (std::ops::Range<usize>, String)> {
    let at = |w: String| (v.span(), w);
    let vals = match v.get_ref() {
        toml::Value::Array(a) => {
            let mut out = Vec::with_capacity(a.len());
            for x in a {
                let t = value_text(x).map_err(at)?;
                if out.contains(&t) {
                    return Err(at(format!("value {t} appears twice")));
                }
                out.push(t);
            }
            out
        }
        toml::Value::Table(t) => range_values(t).map_err(at)?,
        other => {
            return Err(at(format!(
                "an axis is a list of values, {{ from, to, step }} or {{ from, to, per_decade }}; got {}",
                other.type_str()
            )))
        }
    };
    if vals.is_empty() {
        return Err(at("empty axis: give at least one value".into()));
    }
    if vals.len() > MAX_AXIS_VALUES {
        return Err(at(format!(
            "{} values: more than the {MAX_AXIS_VALUES} an axis may have",
            vals.len()
        )));
    }
    Ok(vals)
}

fn range_values(t: &toml::Table) -> Result<Vec<String>, String> {
    for k in t.keys() {
        if !["from", "to", "step", "per_decade"].contains(&k.as_str()) {
            return Err(format!(
                "unknown key '{k}' in a range (from, to, and step or per_decade)"
            ));
        }
    }
    let num = |k: &str| -> Result<Decimal, String> {
        let v = t
            .get(k)
            .ok_or_else(|| format!("a range needs '{k}'"))
            .and_then(value_text)?;
        Decimal::parse(&v).ok_or_else(|| format!("{k} = '{v}' is not a decimal number"))
    };
    let from = num("from")?;
    let to = num("to")?;
    match (t.get("step"), t.get("per_decade")) {
        (Some(_), None) => {
            let step = num("step")?;
            if step.m <= 0 {
                return Err("step must be positive".into());
            }
            let e = from.e.min(to.e).min(step.e);
            let (a, b, s) = (
                from.scaled(e).ok_or("range too wide")?,
                to.scaled(e).ok_or("range too wide")?,
                step.scaled(e).ok_or("range too wide")?,
            );
            if b < a {
                return Err("to must not be below from".into());
            }
            let n = Integer::from(&b - &a) / &s;
            let n = n
                .to_usize()
                .filter(|n| *n < MAX_AXIS_VALUES)
                .ok_or_else(|| format!("more than {MAX_AXIS_VALUES} values"))?;
            Ok((0..=n)
                .map(|i| {
                    Decimal {
                        m: &a + Integer::from(&s * i),
                        e,
                    }
                    .render()
                })
                .collect())
        }
        (None, Some(k)) => {
            let k = match k {
                toml::Value::Integer(k) if *k >= 1 && (*k as u64) <= MAX_AXIS_VALUES as u64 => {
                    *k as u64
                }
                _ => return Err("per_decade must be a whole number >= 1".into()),
            };
            if from.m <= 0 || to.m <= 0 {
                return Err("a log range needs from > 0 and to > 0".into());
            }
            let bits = LOG_RANGE_BITS;
            let fl = |d: &Decimal| -> Result<Float, String> {
                crate::num::parse_decimal(&d.scientific(), bits).map_err(|e| e.to_string())
            };
            let (f, g) = (fl(&from)?, fl(&to)?);
            let steps = Float::with_val(bits, Float::with_val(bits, &g / &f).log10() * k);
            let n = steps.to_f64();
            let whole = n.round();
            if !(whole >= 0.0) || (n - whole).abs() > LOG_RANGE_WHOLE_TOLERANCE {
                return Err(format!(
                    "to is not from x 10^(i/{k}) for a whole i >= 0 (per_decade x log10(to/from) = {n})"
                ));
            }
            let count = whole as usize + 1;
            if count > MAX_AXIS_VALUES {
                return Err(format!("more than {MAX_AXIS_VALUES} values"));
            }
            let mut out = Vec::with_capacity(count);
            for i in 0..count as u64 {
                if i % k == 0 {
                    let shift = i64::try_from(i / k).map_err(|_| "range too wide")?;
                    out.push(
                        Decimal {
                            m: from.m.clone(),
                            e: from.e + shift,
                        }
                        .scientific(),
                    );
                } else {
                    let r = Float::with_val(bits, i) / Float::with_val(bits, k);
                    let p = Float::with_val(bits, Float::with_val(bits, 10).pow(r));
                    let x = Float::with_val(bits, &f * p);
                    out.push(trim_sci(&crate::num::certify::to_sci(&x, LOG_RANGE_DIGITS)));
                }
            }
            Ok(out)
        }
        _ => Err("a range takes one of step (linear) or per_decade (logarithmic)".into()),
    }
}

/// `3.16227766000e2` → `3.16227766e2`.
fn trim_sci(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) if m.contains('.') => {
            let m = m.trim_end_matches('0').trim_end_matches('.');
            format!("{m}e{e}")
        }
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_range_exact_at_decades() {
        let vals = range_values(
            &toml::from_str::<toml::Table>("from = \"1e2\"\nto = \"1e4\"\nper_decade = 2").unwrap(),
        )
        .unwrap();
        // 10^2.5 = 316.227766016837933… (10^0.5 = √10).
        assert_eq!(
            vals,
            ["1e2", "3.16227766017e2", "1e3", "3.16227766017e3", "1e4"]
        );
        assert!(range_values(
            &toml::from_str::<toml::Table>("from = \"1e2\"\nto = \"5e3\"\nper_decade = 1").unwrap()
        )
        .is_err());
    }

    #[test]
    fn decimal_render() {
        let r = |s: &str| Decimal::parse(s).unwrap().render();
        assert_eq!(r("0.50"), "0.5");
        assert_eq!(r("1e3"), "1000");
        assert_eq!(r("-1.25e-2"), "-0.0125");
        assert_eq!(r("1.5e100"), "1.5e100");
        assert_eq!(Decimal::parse("1000").unwrap().scientific(), "1e3");
    }
}
