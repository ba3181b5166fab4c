//! Empirical distribution of a sample file: each of the n sizes has probability 1/n.
//!
//! The file has one size a line; blank lines and lines starting with `#` are skipped. The
//! sizes are kept as the decimal strings of the file and parsed at the working precision
//! (never through f64). The partial moments M_j(a, b) = (1/n) Σ_{a < x_i ≤ b} x_i^j are
//! differences of cumulative sums found by binary search; the sums run from the end where
//! x^j is small (from the smallest sample for j ≥ 0, from the largest for j = −1), so the
//! difference of two of them loses at most log2(n) bits, which the guard bits cover.

use super::{
    check_higher_order, check_level, check_order, to_f64_param, DistError, JobSize, Sampler,
};
use crate::num::parse_decimal;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rug::ops::Pow;
use rug::Float;

/// Guard bits of the cumulative sums, on top of 2·log2(n).
pub const EMPIRICAL_GUARD_BITS: u32 = 16;
/// Precision at which [`read_file`] checks that each line is a positive finite number.
const CHECK_BITS: u32 = 64;

/// Reads a sample file: one positive decimal size a line, blank lines and `#` comments
/// skipped. Returns the sizes as the strings written in the file (trimmed).
///
/// Errors name the 1-based line of the first bad entry; a file with no sizes is an error
/// (line 0).
pub fn read_file(path: &str) -> Result<Vec<String>, DistError> {
    let bytes = std::fs::read(path).map_err(|e| DistError::File {
        path: path.to_string(),
        line: 0,
        why: e.to_string(),
    })?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        // The line and the byte of the first invalid sequence (the file is text: one
        // decimal a line).
        let at = e.valid_up_to();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        let col = at - bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        DistError::File {
            path: path.to_string(),
            line,
            why: format!(
                "invalid UTF-8 at byte {at} of the file (byte {} of the line, 0x{:02x}): a sample file is text, one decimal size a line",
                col + 1,
                bytes[at]
            ),
        }
    })?;
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: String| DistError::File {
            path: path.to_string(),
            line: i + 1,
            why,
        };
        let x = parse_decimal(line, CHECK_BITS).map_err(|e| bad(e.to_string()))?;
        if x <= 0 {
            return Err(bad(format!("job size '{line}' is not positive")));
        }
        out.push(line.to_string());
    }
    if out.is_empty() {
        return Err(DistError::File {
            path: path.to_string(),
            line: 0,
            why: "no job sizes in the file".into(),
        });
    }
    Ok(out)
}

/// Empirical distribution of a sample.
#[derive(Debug, Clone)]
pub struct Empirical {
    bits: u32,
    /// Sorted sizes at `bits`.
    x: Vec<Float>,
    /// up[j][i] = Σ_{m < i} x_m^j for j = 0, 1, 2 (index j) — sums from the smallest.
    up: [Vec<Float>; 3],
    /// inv[i] = Σ_{m ≥ i} 1/x_m — sums of 1/x from the largest.
    inv: Vec<Float>,
}

impl Empirical {
    /// Builds the distribution from the sizes read by [`read_file`] (`path` is only for
    /// error messages), parsing them at `bits`.
    ///
    /// ```
    /// use taskassign::dist::{Empirical, JobSize};
    /// let s: Vec<String> = ["1", "2", "3", "4"].iter().map(|x| x.to_string()).collect();
    /// let d = Empirical::new(128, "sizes.txt", &s).unwrap();
    /// assert_eq!(d.mean().unwrap(), 2.5);
    /// assert_eq!(d.moment(2).unwrap(), 7.5); // (1 + 4 + 9 + 16)/4
    /// ```
    pub fn new(bits: u32, path: &str, samples: &[String]) -> Result<Self, DistError> {
        if samples.is_empty() {
            return Err(DistError::File {
                path: path.to_string(),
                line: 0,
                why: "no job sizes".into(),
            });
        }
        let mut x = Vec::with_capacity(samples.len());
        for (i, s) in samples.iter().enumerate() {
            let v = parse_decimal(s, bits).map_err(|e| DistError::File {
                path: path.to_string(),
                line: 0,
                why: format!("size #{}: {e}", i + 1),
            })?;
            if v <= 0 {
                return Err(DistError::File {
                    path: path.to_string(),
                    line: 0,
                    why: format!("size #{} ('{s}') is not positive", i + 1),
                });
            }
            x.push(v);
        }
        x.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        let n = x.len();
        let log2n = usize::BITS - n.leading_zeros();
        let w = bits + EMPIRICAL_GUARD_BITS + 2 * log2n;
        let mut up: [Vec<Float>; 3] = [
            Vec::with_capacity(n + 1),
            Vec::with_capacity(n + 1),
            Vec::with_capacity(n + 1),
        ];
        for (j, sums) in up.iter_mut().enumerate() {
            let mut acc = Float::with_val(w, 0);
            sums.push(acc.clone());
            for v in &x {
                match j {
                    0 => acc += 1u32,
                    1 => acc += v,
                    _ => acc += Float::with_val(w, v.square_ref()),
                }
                sums.push(acc.clone());
            }
        }
        let mut inv = vec![Float::with_val(w, 0); n + 1];
        let mut acc = Float::with_val(w, 0);
        for i in (0..n).rev() {
            acc += Float::with_val(w, x[i].recip_ref());
            inv[i] = acc.clone();
        }
        Ok(Empirical { bits, x, up, inv })
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether there are no samples (never true for a built distribution).
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Number of samples ≤ v.
    fn count_le(&self, v: &Float) -> usize {
        self.x.partition_point(|s| s <= v)
    }

    /// Number of samples < v.
    fn count_lt(&self, v: &Float) -> usize {
        self.x.partition_point(|s| s < v)
    }

    fn n(&self) -> Float {
        Float::with_val(self.bits, self.x.len())
    }
}

impl JobSize for Empirical {
    fn family(&self) -> &'static str {
        "empirical"
    }
    fn prec(&self) -> u32 {
        self.bits
    }
    fn lower(&self) -> Float {
        self.x
            .first()
            .cloned()
            .unwrap_or_else(|| Float::with_val(self.bits, 0))
    }
    fn upper(&self) -> Float {
        self.x
            .last()
            .cloned()
            .unwrap_or_else(|| Float::with_val(self.bits, 0))
    }
    fn tail(&self, x: &Float) -> Float {
        let above = self.x.len() - self.count_le(x);
        Float::with_val(self.bits, above) / self.n()
    }
    fn cdf(&self, x: &Float) -> Float {
        Float::with_val(self.bits, self.count_le(x)) / self.n()
    }
    fn density(&self, _x: &Float) -> Option<Float> {
        None
    }
    fn atom_at_or_below(&self, x: &Float) -> Option<Float> {
        self.count_le(x)
            .checked_sub(1)
            .and_then(|k| self.x.get(k))
            .cloned()
    }
    fn partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        check_order(j)?;
        let bits = self.bits;
        if a >= b {
            return Ok(Float::with_val(bits, 0));
        }
        // Samples with a < x_i ≤ b have indices lo..hi.
        let lo = self.count_le(a);
        let hi = self.count_le(b);
        if lo >= hi {
            return Ok(Float::with_val(bits, 0));
        }
        let s = match j {
            -1 => Float::with_val(self.inv[lo].prec(), &self.inv[lo] - &self.inv[hi]),
            _ => {
                let sums = &self.up[j as usize];
                Float::with_val(sums[hi].prec(), &sums[hi] - &sums[lo])
            }
        };
        Ok(Float::with_val(bits, s / self.x.len()))
    }
    /// The mean of x_i^j over the samples in (a, b], summed directly (the prefix sums
    /// hold the orders −1…2 only; the heavy-tail rule asks a few of these per run).
    fn higher_partial_moment(&self, j: i32, a: &Float, b: &Float) -> Result<Float, DistError> {
        check_higher_order(j)?;
        let bits = self.bits;
        if a >= b {
            return Ok(Float::with_val(bits, 0));
        }
        let (lo, hi) = (self.count_le(a), self.count_le(b));
        let w = self.up[0][0].prec();
        let mut s = Float::with_val(w, 0);
        for v in self.x.get(lo..hi).unwrap_or(&[]) {
            s += Float::with_val(w, v.pow(j));
        }
        Ok(Float::with_val(bits, s / self.x.len()))
    }
    fn quantile(&self, u: &Float) -> Result<Float, DistError> {
        check_level("empirical", u)?;
        // The smallest sample with CDF ≥ u is x_(⌈u n⌉) (1-based, sorted).
        let n = self.x.len();
        let un = Float::with_val(u.prec() + usize::BITS, u * n).ceil();
        let k = un
            .to_u32_saturating()
            .map(|v| v as usize)
            .unwrap_or(n)
            .clamp(1, n);
        Ok(self.x[k - 1].clone())
    }
    fn sup_x_tail(&self) -> Result<(Float, Float), DistError> {
        // F̄ is a step function: on [x_(i−1), x_(i)) it equals P(X ≥ x_(i)), so x F̄(x)
        // rises towards x_(i)·P(X ≥ x_(i)) and drops at x_(i). The supremum (approached
        // from the left, not attained) is max_i x_(i)·P(X ≥ x_(i)), over distinct values.
        let bits = self.bits;
        let n = self.x.len();
        let mut best = (self.lower(), Float::with_val(bits, 0));
        for (i, v) in self.x.iter().enumerate() {
            if i > 0 && self.x[i - 1] == *v {
                continue;
            }
            let first = self.count_lt(v);
            let val = Float::with_val(bits, v * (n - first)) / n;
            if val > best.1 {
                best = (v.clone(), val);
            }
        }
        Ok(best)
    }
    fn sampler(&self) -> Result<Box<dyn Sampler>, DistError> {
        let xs = self
            .x
            .iter()
            .map(|v| to_f64_param("empirical", "sample", v))
            .collect::<Result<Vec<f64>, _>>()?;
        Ok(Box::new(EmpiricalSampler { xs }))
    }
}

struct EmpiricalSampler {
    xs: Vec<f64>,
}

impl Sampler for EmpiricalSampler {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> f64 {
        self.xs[rng.random_range(0..self.xs.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn temp_file(name: &str, text: &str) -> String {
        let p = std::env::temp_dir().join(format!(
            "taskassign-empirical-{}-{name}",
            std::process::id()
        ));
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }

    #[test]
    fn reads_with_comments_and_blanks() {
        let p = temp_file("ok", "# sizes\n1\n\n  2.5 \n#x\n1e-3\n");
        assert_eq!(read_file(&p).unwrap(), samples(&["1", "2.5", "1e-3"]));
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn bad_lines_name_their_line() {
        for (text, line) in [
            ("1\n\nabc\n", 3usize),
            ("1\n-2\n", 2),
            ("0\n", 1),
            ("1\ninf\n", 2),
        ] {
            let p = temp_file(&format!("bad{line}"), text);
            match read_file(&p) {
                Err(DistError::File { line: l, .. }) => assert_eq!(l, line, "{text:?}"),
                other => panic!("{text:?}: {other:?}"),
            }
            std::fs::remove_file(p).unwrap();
        }
        let p = temp_file("empty", "# nothing\n\n");
        assert!(matches!(
            read_file(&p),
            Err(DistError::File { line: 0, .. })
        ));
        std::fs::remove_file(p).unwrap();
        assert!(read_file("/nonexistent/taskassign/sizes").is_err());
    }

    #[test]
    fn quantile_and_sup_with_ties() {
        // Samples 1, 2, 2, 10: P(X ≥ 1) = 1, P(X ≥ 2) = 3/4, P(X ≥ 10) = 1/4.
        let d = Empirical::new(64, "t", &samples(&["2", "10", "1", "2"])).unwrap();
        let q = |u: f64| d.quantile(&Float::with_val(64, u)).unwrap();
        assert_eq!(q(0.25), 1);
        assert_eq!(q(0.26), 2);
        assert_eq!(q(0.75), 2);
        assert_eq!(q(0.76), 10);
        // sup x F̄(x) = max(1·1, 2·3/4, 10·1/4) = 2.5 at x = 10.
        let (x, v) = d.sup_x_tail().unwrap();
        assert_eq!(x, 10);
        assert_eq!(v, 2.5);
        assert_eq!(d.tail(&Float::with_val(64, 2)), 0.25);
    }

    #[test]
    fn reciprocal_sums_do_not_cancel() {
        // 1/x for a tiny sample next to a large one: M_{−1}(0.5, 2] = 1/(1·2) exactly.
        let d = Empirical::new(64, "t", &samples(&["1e-30", "1"])).unwrap();
        let v = d
            .partial_moment(-1, &Float::with_val(64, 0.5), &Float::with_val(64, 2))
            .unwrap();
        assert_eq!(v, 0.5);
    }
}
