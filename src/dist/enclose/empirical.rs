//! Enclosure of the empirical law of a sample file (each of the n sizes with probability
//! 1/n), in exact rational arithmetic: the decimal sizes are exact rationals, F̄ and
//! M_j(a, b) = (1/n) Σ_{a < x_i ≤ b} x_i^j for j = 0, 1, 2 are differences of exact cumulative
//! sums, rounded outward once at the end. For j = −1 the sums of 1/x_i (whose exact
//! denominators would grow with every size) are accumulated as intervals with outward
//! rounding, from the largest size down, at 2·log2(n) guard bits.
//! sup x F̄(x) = max over the sizes v of v · #{x_i ≥ v}/n (x F̄(x) rises on each step of F̄
//! and is approached at the next size from below), exact.

use super::Enclosure;
use crate::dist::DistError;
use crate::num::interval::Interval;
use rug::float::Round;
use rug::{Integer, Rational};

/// Guard bits of the sums of 1/x_i, on top of 2·log2(n).
const INV_GUARD_BITS: u32 = 16;

/// The empirical law of a sample.
#[derive(Debug, Clone)]
pub struct EmpiricalEnclosure {
    bits: u32,
    /// The sizes, sorted.
    x: Vec<Rational>,
    /// up[j][i] = Σ_{m < i} x_m^j for j = 0, 1, 2, exact.
    up: [Vec<Rational>; 3],
    /// inv[i] ⊇ Σ_{m ≥ i} 1/x_m.
    inv: Vec<Interval>,
}

/// A decimal string (`"12.5"`, `"-3e-7"`, `"1.5E+3"`) as an exact rational; `None` if it is
/// not one.
pub fn decimal_rational(s: &str) -> Option<Rational> {
    let t = s.trim();
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
        None => (t, 0),
    };
    let (neg, mant) = match mant.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mant.strip_prefix('+').unwrap_or(mant)),
    };
    let (int_part, frac) = match mant.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mant, ""),
    };
    if int_part.is_empty() && frac.is_empty() {
        return None;
    }
    if !int_part
        .chars()
        .chain(frac.chars())
        .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let digits = format!("{int_part}{frac}");
    let mut n = Integer::from_str_radix(if digits.is_empty() { "0" } else { &digits }, 10).ok()?;
    if neg {
        n = -n;
    }
    let e = exp.checked_sub(i64::try_from(frac.len()).ok()?)?;
    let p = Integer::from(Integer::u_pow_u(10, u32::try_from(e.unsigned_abs()).ok()?));
    Some(if e >= 0 {
        Rational::from(n * p)
    } else {
        Rational::from((n, p))
    })
}

impl EmpiricalEnclosure {
    /// From the sizes of the file (decimal strings, validated positive by
    /// [`crate::dist::empirical::read_file`]) at `bits`.
    pub fn new(bits: u32, path: &str, samples: &[String]) -> Result<Self, DistError> {
        let bad = |why: String| DistError::File {
            path: path.to_string(),
            line: 0,
            why,
        };
        let mut x = Vec::with_capacity(samples.len());
        for (i, s) in samples.iter().enumerate() {
            let q = decimal_rational(s)
                .ok_or_else(|| bad(format!("size #{}: '{s}' is not a decimal", i + 1)))?;
            if q <= 0 {
                return Err(bad(format!("size #{} ('{s}') is not positive", i + 1)));
            }
            x.push(q);
        }
        if x.is_empty() {
            return Err(bad("no job sizes".into()));
        }
        x.sort();
        let n = x.len();
        let mut up: [Vec<Rational>; 3] = [
            Vec::with_capacity(n + 1),
            Vec::with_capacity(n + 1),
            Vec::with_capacity(n + 1),
        ];
        for (j, sums) in up.iter_mut().enumerate() {
            let mut acc = Rational::new();
            sums.push(acc.clone());
            for v in &x {
                match j {
                    0 => acc += 1u32,
                    1 => acc += v,
                    _ => acc += Rational::from(v * v),
                }
                sums.push(acc.clone());
            }
        }
        let log2n = usize::BITS - n.leading_zeros();
        let w = bits + INV_GUARD_BITS + 2 * log2n;
        let mut inv = vec![Interval::zero_at(w); n + 1];
        let mut acc = Interval::zero_at(w);
        for i in (0..n).rev() {
            acc = acc.add(&rational(w, &Rational::from(x[i].recip_ref())));
            inv[i] = acc.clone();
        }
        Ok(EmpiricalEnclosure { bits, x, up, inv })
    }

    /// Number of sizes ≤ v.
    fn count_le(&self, v: &rug::Float) -> usize {
        self.x.partition_point(|s| *s <= *v)
    }

    fn n(&self) -> u32 {
        u32::try_from(self.x.len()).unwrap_or(u32::MAX)
    }
}

/// An exact rational enclosed at `bits` (rounded down and up).
fn rational(bits: u32, q: &Rational) -> Interval {
    let lo = rug::Float::with_val_round(bits, q, Round::Down).0;
    let hi = rug::Float::with_val_round(bits, q, Round::Up).0;
    Interval::new(lo, hi)
}

impl Enclosure for EmpiricalEnclosure {
    fn family(&self) -> &'static str {
        "empirical"
    }
    fn prec(&self) -> u32 {
        self.bits
    }
    fn lower(&self) -> Interval {
        self.x
            .first()
            .map_or_else(|| Interval::zero_at(self.bits), |q| rational(self.bits, q))
    }
    fn upper(&self) -> Interval {
        self.x
            .last()
            .map_or_else(|| Interval::zero_at(self.bits), |q| rational(self.bits, q))
    }
    fn tail_at(&self, x: &rug::Float) -> Result<Interval, DistError> {
        let above = self.x.len() - self.count_le(x);
        Ok(rational(self.bits, &Rational::from((above, self.x.len()))))
    }
    fn moment_at(&self, j: i32, a: &rug::Float, b: &rug::Float) -> Result<Interval, DistError> {
        crate::dist::check_order(j)?;
        let (lo, hi) = (self.count_le(a), self.count_le(b));
        if lo >= hi {
            return Ok(Interval::zero_at(self.bits));
        }
        if j == -1 {
            let s = self.inv[lo].sub(&self.inv[hi]);
            return Ok(s.div_u(self.n()).at_prec(self.bits));
        }
        let i = j as usize;
        let s = Rational::from(&self.up[i][hi] - &self.up[i][lo]) / Rational::from(self.x.len());
        Ok(rational(self.bits, &s))
    }
    fn atoms(&self) -> Option<Vec<super::Atom>> {
        let mut out: Vec<super::Atom> = Vec::new();
        for q in &self.x {
            if out.last().is_some_and(|a| a.exact == *q) {
                continue;
            }
            // The previous atom's representative must lie below this one.
            if out.last().is_some_and(|a| a.rep >= *q) {
                return None;
            }
            out.push(super::Atom {
                exact: q.clone(),
                value: rational(self.bits, q),
                rep: rug::Float::with_val_round(self.bits, q, Round::Up).0,
            });
        }
        Some(out)
    }
    fn sup_x_tail(&self) -> Result<Interval, DistError> {
        let n = self.x.len();
        let mut best = Rational::new();
        let mut i = 0;
        while i < n {
            // x_i · #{x_m ≥ x_i}/n at the first of equal sizes.
            let v = &self.x[i] * Rational::from((n - i, n));
            if v > best {
                best = v;
            }
            let mut k = i + 1;
            while k < n && self.x[k] == self.x[i] {
                k += 1;
            }
            i = k;
        }
        Ok(rational(self.bits, &best))
    }
}
