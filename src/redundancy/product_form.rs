//! FCFS redundancy with exponential i.i.d. copies: the product form and its mean values,
//! in MPFR.
//!
//! **The product form** (Gardner, Zbarsky, Doroudi, Harchol-Balter, Hyytiä & Scheller-Wolf,
//! "Queueing with redundant requests: exact analysis", Queueing Systems 83, 2016,
//! Theorem 1). With the jobs in arrival order c_1, …, c_n (oldest first), every server
//! serves the oldest job whose set contains it, so job i is served by the servers of
//! S_{c_i} not used by older jobs and the oldest i jobs leave at rate μ(U_i),
//! U_i = S_{c_1} ∪ … ∪ S_{c_i}, μ(U) = Σ_{s∈U} μ_s. The stationary distribution is
//! π(c_1, …, c_n) = π(∅) Π_{i=1}^n λ_{c_i} / μ(U_i) ([`ordered_weight`]).
//!
//! **Aggregated** (Bonald & Comte, "Balanced fair resource sharing in computer clusters",
//! Performance Evaluation 116, 2017): summed over the orders of the class counts x,
//! π(x) = π(0) Φ(x) Π_c λ_c^{x_c} with Φ(0) = 1 and
//! Φ(x) = Σ_{c: x_c>0} Φ(x − e_c) / μ(∪_{c: x_c>0} S_c) (the last job of an order is of
//! some class c present, and the union of all n jobs' sets is that of the classes present).
//!
//! **Summed in closed form over union phases** ([`normaliser`]). Group an order by its
//! prefix unions: while the union is U, every further job of a class with S_c ⊆ U
//! multiplies the weight by λ_c/μ(U), and these stays add up to a geometric series
//! 1/(1 − λ(U)/μ(U)), λ(U) = Σ_{c: S_c ⊆ U} λ_c. A job of a class with S_c ⊄ U moves the
//! union to U ∪ S_c. Hence, over the unions reachable from ∅ (at most 2^K, in order of
//! size), with a(∅) = 1,
//!
//! a(U) = Σ_{(U', c): S_c ⊄ U', U' ∪ S_c = U} a(U') λ_c / (μ(U) − λ(U)),
//! G = Σ_U a(U) = 1/π(0),
//!
//! a finite sum of positive terms: no truncation, exact rational arithmetic up to MPFR's
//! rounding. It converges iff μ(U) > λ(U) for every reachable U, which is the stability
//! condition Σ_{c∈A} λ_c < μ(∪_{c∈A} S_c) for every class set A (Gardner et al. 2016; the
//! set A = {c: S_c ⊆ U} attains the union U). The mean numbers follow by differentiating:
//! λ_c ∂G/∂λ_c = Σ_x x_c Φ(x) λ^x, so E[N_c] = λ_c ∂_c G / G, with
//! ∂_c a(U) = (∂_c N(U) + a(U)·1[S_c ⊆ U]) / (μ(U) − λ(U)) carried along the same
//! recursion; E[T_c] = E[N_c]/λ_c (Little).
//!
//! **The cross-check** ([`truncated_sums`]): the Φ recursion itself summed over
//! |x| ≤ N, with the proven tail bound W_n ≤ G(z) z^{−n} for 1 < z < z* (W_n the weight of
//! the states with n jobs, G(z) the normaliser with every λ_c multiplied by z, a power
//! series with non-negative coefficients W_n, convergent for z < z* = min_U μ(U)/λ(U)).

use super::classes::{ClassSystem, ServerSet};
use super::RedundancyError;
use crate::num::interval::Interval;
use crate::num::message_number;
use rug::ops::Pow;
use rug::Float;
use std::collections::HashMap;

/// Most reachable unions of busy sets the closed-form sum enumerates (2^20: a million
/// MPFR recursions is seconds; more servers need more structure than this method uses).
pub const MAX_UNIONS: usize = 1 << 20;
/// Most states of the truncated Φ sum ([`truncated_sums`]).
pub const MAX_TRUNCATED_STATES: usize = 5_000_000;
/// Fractions θ tried for z = 1 + θ(z* − 1) in the tail bound; the smallest bound is kept.
const TAIL_THETAS: [f64; 6] = [0.3, 0.5, 0.7, 0.8, 0.9, 0.95];

/// Mean values of one system at one precision, or (`T` = [`Interval`], [`EnclosedMeans`])
/// as enclosures.
#[derive(Debug, Clone, PartialEq)]
pub struct MeanValues<T = Float> {
    /// E[N_c], per class.
    pub number: Vec<T>,
    /// E[T_c] = E[N_c]/λ_c, per class.
    pub response: Vec<T>,
    /// E[N] = Σ_c E[N_c].
    pub total_number: T,
    /// E[T] = E[N]/Σλ_c.
    pub total_response: T,
    /// P(empty) = 1/G.
    pub p_empty: T,
}

impl MeanValues {
    /// Per-class numbers with Little's law applied (λ_c at `bits`).
    pub fn from_numbers(sys: &ClassSystem, number: Vec<Float>, p_empty: Float, bits: u32) -> Self {
        let lambda = sys.lambda(bits);
        let response: Vec<Float> = number
            .iter()
            .zip(&lambda)
            .map(|(n, l)| Float::with_val(bits, n / l))
            .collect();
        let mut total = Float::with_val(bits, 0);
        for n in &number {
            total += n;
        }
        let mut lt = Float::with_val(bits, 0);
        for l in &lambda {
            lt += l;
        }
        let total_response = Float::with_val(bits, &total / &lt);
        MeanValues {
            number,
            response,
            total_number: total,
            total_response,
            p_empty,
        }
    }
}

/// The error of a reachable union `u` of servers whose capacity μ(U) (`capacity`) does not
/// exceed the arrival rate λ(U) (`load`) of the classes whose sets lie within it.
fn unstable_union(
    sys: &ClassSystem,
    u: ServerSet,
    load: &Float,
    capacity: &Float,
) -> RedundancyError {
    let within: Vec<usize> = (0..sys.classes().len())
        .filter(|&c| sys.classes()[c].set.is_subset_of(u))
        .collect();
    RedundancyError::Unstable {
        classes: sys.describe(&within),
        servers: u.to_string(),
        load: message_number(load),
        capacity: message_number(capacity),
    }
}

/// The unions of class sets reachable from ∅ (∅ first), ordered by size then mask, so that
/// every union comes after the unions it is reached from.
pub fn reachable_unions(sys: &ClassSystem) -> Result<Vec<ServerSet>, RedundancyError> {
    let sets: Vec<ServerSet> = sys.classes().iter().map(|c| c.set).collect();
    let mut seen: std::collections::HashSet<ServerSet> = std::collections::HashSet::new();
    let mut out = vec![ServerSet::EMPTY];
    seen.insert(ServerSet::EMPTY);
    let mut i = 0;
    while i < out.len() {
        let u = out[i];
        for &s in &sets {
            let v = u.union(s);
            if seen.insert(v) {
                if out.len() >= MAX_UNIONS {
                    return Err(RedundancyError::Unsupported(format!(
                        "more than {MAX_UNIONS} reachable unions of server sets: too many for the exact FCFS sum"
                    )));
                }
                out.push(v);
            }
        }
        i += 1;
    }
    out.sort_by_key(|u| (u.len(), u.mask()));
    Ok(out)
}

/// λ(U) = Σ_{c: S_c ⊆ U} λ_c for given rates.
fn lambda_within(sys: &ClassSystem, lambda: &[Float], u: ServerSet, bits: u32) -> Float {
    let mut t = Float::with_val(bits, 0);
    for (c, l) in sys.classes().iter().zip(lambda) {
        if c.set.is_subset_of(u) {
            t += l;
        }
    }
    t
}

/// The normaliser G = Σ_x Φ(x) Π λ_c^{x_c} of the FCFS product form with the arrival
/// rates `lambda` (one per class, any values), and its gradient ∂G/∂λ_c, by the union
/// phases of the module documentation. An unstable system (some reachable U with
/// λ(U) ≥ μ(U)) is [`RedundancyError::Unstable`], naming the classes {c: S_c ⊆ U}.
///
/// ```
/// use taskassign::redundancy::{normaliser, ClassSystem};
/// // One class on one server of rate 1 at λ: G = Σ λ^n = 1/(1 − λ), ∂G = 1/(1 − λ)².
/// let sys = ClassSystem::preset("full:k=1", &["0.5".into()]).unwrap();
/// let (g, dg) = normaliser(&sys, &sys.lambda(64), 64).unwrap();
/// assert!((g.to_f64() - 2.0).abs() < 1e-15 && (dg[0].to_f64() - 4.0).abs() < 1e-15);
/// ```
pub fn normaliser(
    sys: &ClassSystem,
    lambda: &[Float],
    bits: u32,
) -> Result<(Float, Vec<Float>), RedundancyError> {
    let unions = reachable_unions(sys)?;
    let nc = sys.classes().len();
    let index: HashMap<ServerSet, usize> =
        unions.iter().enumerate().map(|(i, &u)| (u, i)).collect();
    let zero = Float::with_val(bits, 0);
    // N(U) and ∂N(U), accumulated by pushes from smaller unions.
    let mut num: Vec<Float> = vec![zero.clone(); unions.len()];
    let mut dnum: Vec<Vec<Float>> = vec![vec![zero.clone(); nc]; unions.len()];
    let mut g = Float::with_val(bits, 0);
    let mut dg = vec![zero.clone(); nc];
    for (i, &u) in unions.iter().enumerate() {
        let (a, da): (Float, Vec<Float>) = if u.is_empty() {
            (Float::with_val(bits, 1), vec![zero.clone(); nc])
        } else {
            let cap = sys.capacity(u, bits);
            let load = lambda_within(sys, lambda, u, bits);
            let d = Float::with_val(bits, &cap - &load);
            if !(d > 0) {
                return Err(unstable_union(sys, u, &load, &cap));
            }
            let a = Float::with_val(bits, &num[i] / &d);
            let da = (0..nc)
                .map(|c| {
                    let mut x = Float::with_val(bits, &dnum[i][c]);
                    if sys.classes()[c].set.is_subset_of(u) {
                        x += &a;
                    }
                    x / &d
                })
                .collect();
            (a, da)
        };
        g += &a;
        for c in 0..nc {
            dg[c] += &da[c];
        }
        // Push to the unions a new class moves U to.
        for (c, cl) in sys.classes().iter().enumerate() {
            if cl.set.is_subset_of(u) {
                continue;
            }
            let Some(&j) = index.get(&u.union(cl.set)) else {
                continue;
            };
            let w = Float::with_val(bits, &a * &lambda[c]);
            num[j] += &w;
            for k in 0..nc {
                let mut t = Float::with_val(bits, &da[k] * &lambda[c]);
                if k == c {
                    t += &a;
                }
                dnum[j][k] += t;
            }
        }
    }
    Ok((g, dg))
}

/// E[N_c], E[T_c] and P(empty) of FCFS with exponential i.i.d. copies, at `bits`
/// (closed-form phase sum; unstable systems are errors).
///
/// ```
/// use taskassign::redundancy::{fcfs_means, ClassSystem};
/// // W-model: the fully redundant class has response Exp(μ1 + μ2 − Σλ) (Gardner et al.
/// // 2016): 1/(2 − 1.2) = 1.25.
/// let w = ClassSystem::preset("w-model", &["0.3".into(), "0.3".into(), "0.6".into()]).unwrap();
/// let m = fcfs_means(&w, 128).unwrap();
/// assert!((m.response[2].to_f64() - 1.25).abs() < 1e-30);
/// ```
pub fn fcfs_means(sys: &ClassSystem, bits: u32) -> Result<MeanValues, RedundancyError> {
    let lambda = sys.lambda(bits);
    let (g, dg) = normaliser(sys, &lambda, bits)?;
    let number: Vec<Float> = lambda
        .iter()
        .zip(&dg)
        .map(|(l, d)| Float::with_val(bits, l * d) / &g)
        .collect();
    let p_empty = Float::with_val(bits, g.recip_ref());
    Ok(MeanValues::from_numbers(sys, number, p_empty, bits))
}

/// π(c_1, …, c_n)/π(∅) = Π_i λ_{c_i}/μ(U_i) for the jobs of classes `order` (oldest first):
/// Gardner et al. (2016), Theorem 1.
pub fn ordered_weight(sys: &ClassSystem, order: &[usize], bits: u32) -> Float {
    let lambda = sys.lambda(bits);
    let mut w = Float::with_val(bits, 1);
    let mut u = ServerSet::EMPTY;
    for &c in order {
        u = u.union(sys.classes()[c].set);
        w *= &lambda[c];
        w /= sys.capacity(u, bits);
    }
    w
}

/// Calls `f(x, ψ(x))` for every class-count vector x with |x| ≤ `n_max`, level by level,
/// where ψ(x) = Φ(x) Π λ_c^{x_c} by the Bonald–Comte recursion
/// ψ(x) = Σ_{c: x_c>0} ψ(x − e_c) λ_c / μ(∪_{c: x_c>0} S_c).
pub fn for_each_state(
    sys: &ClassSystem,
    bits: u32,
    n_max: usize,
    mut f: impl FnMut(&[u16], &Float),
) -> Result<(), RedundancyError> {
    let nc = sys.classes().len();
    let lambda = sys.lambda(bits);
    let sets: Vec<ServerSet> = sys.classes().iter().map(|c| c.set).collect();
    let mut caps: HashMap<ServerSet, Float> = HashMap::new();
    let mut level: HashMap<Vec<u16>, Float> = HashMap::new();
    level.insert(vec![0u16; nc], Float::with_val(bits, 1));
    let mut states = 1usize;
    let max_count = usize::from(u16::MAX);
    if n_max > max_count {
        return Err(RedundancyError::Unsupported(format!(
            "truncation {n_max} exceeds {max_count}"
        )));
    }
    for n in 0..=n_max {
        let mut keys: Vec<&Vec<u16>> = level.keys().collect();
        keys.sort();
        for k in keys {
            f(k, &level[k]);
        }
        if n == n_max {
            break;
        }
        let mut next: HashMap<Vec<u16>, Float> = HashMap::new();
        for (x, psi) in &level {
            for c in 0..nc {
                let mut y = x.clone();
                y[c] += 1;
                let w = Float::with_val(bits, psi * &lambda[c]);
                match next.get_mut(&y) {
                    Some(v) => *v += w,
                    None => {
                        next.insert(y, w);
                    }
                }
            }
        }
        for (y, v) in next.iter_mut() {
            let u = (0..nc)
                .filter(|&c| y[c] > 0)
                .fold(ServerSet::EMPTY, |a, c| a.union(sets[c]));
            let cap = caps
                .entry(u)
                .or_insert_with(|| sys.capacity(u, bits))
                .clone();
            *v /= cap;
        }
        states += next.len();
        if states > MAX_TRUNCATED_STATES {
            return Err(RedundancyError::Unsupported(format!(
                "the truncated sum at N = {n_max} has more than {MAX_TRUNCATED_STATES} states"
            )));
        }
        level = next;
    }
    Ok(())
}

/// The Φ sums over |x| ≤ N and proven bounds on what the truncation leaves out.
#[derive(Debug, Clone, PartialEq)]
pub struct Truncated {
    /// N.
    pub n_max: usize,
    /// Σ_{|x|≤N} ψ(x).
    pub mass: Float,
    /// Σ_{|x|≤N} x_c ψ(x), per class.
    pub first: Vec<Float>,
    /// An upper bound on Σ_{|x|>N} ψ(x).
    pub tail_mass: Float,
    /// An upper bound on Σ_{|x|>N} |x| ψ(x) (so on each Σ_{|x|>N} x_c ψ(x)).
    pub tail_first: Float,
    /// The z of the Chernoff bound used.
    pub z: Float,
}

impl Truncated {
    /// Bounds [lo, hi] that contain E[N_c]: the true value is (first_c + τ_c)/(mass + τ)
    /// with 0 ≤ τ_c ≤ tail_first and 0 ≤ τ ≤ tail_mass.
    pub fn number_bounds(&self, c: usize) -> (Float, Float) {
        let bits = self.mass.prec();
        let lo = Float::with_val(
            bits,
            &self.first[c] / Float::with_val(bits, &self.mass + &self.tail_mass),
        );
        let hi = Float::with_val(
            bits,
            Float::with_val(bits, &self.first[c] + &self.tail_first) / &self.mass,
        );
        (lo, hi)
    }
}

/// The truncated Φ sums at `n_max` with the tail bound of the module documentation (the
/// bound is the smallest over z = 1 + θ(z* − 1), θ ∈ [`TAIL_THETAS`]).
pub fn truncated_sums(
    sys: &ClassSystem,
    bits: u32,
    n_max: usize,
) -> Result<Truncated, RedundancyError> {
    let nc = sys.classes().len();
    let mut mass = Float::with_val(bits, 0);
    let mut first = vec![Float::with_val(bits, 0); nc];
    for_each_state(sys, bits, n_max, |x, psi| {
        mass += psi;
        for c in 0..nc {
            if x[c] > 0 {
                first[c] += Float::with_val(bits, psi * u32::from(x[c]));
            }
        }
    })?;
    // z* = min over reachable U ≠ ∅ of μ(U)/λ(U).
    let lambda = sys.lambda(bits);
    let mut zstar: Option<Float> = None;
    for u in reachable_unions(sys)? {
        if u.is_empty() {
            continue;
        }
        let l = lambda_within(sys, &lambda, u, bits);
        if l > 0 {
            let r = Float::with_val(bits, sys.capacity(u, bits) / &l);
            zstar = Some(match zstar {
                Some(z) if z < r => z,
                _ => r,
            });
        }
    }
    let zstar = zstar.ok_or_else(|| RedundancyError::Numerical("no loaded union".into()))?;
    if !(zstar > 1) {
        // Re-raise the instability with its subset.
        normaliser(sys, &lambda, bits)?;
        return Err(RedundancyError::Numerical("unstable system".into()));
    }
    let nf = n_max as u32;
    let mut best: Option<(Float, Float, Float)> = None;
    for theta in TAIL_THETAS {
        let z = Float::with_val(bits, &zstar - 1u32) * theta + 1u32;
        let scaled: Vec<Float> = lambda
            .iter()
            .map(|l| Float::with_val(bits, l * &z))
            .collect();
        let Ok((gz, _)) = normaliser(sys, &scaled, bits) else {
            continue;
        };
        let r = Float::with_val(bits, z.recip_ref());
        let one_minus = Float::with_val(bits, 1u32 - &r);
        let rn1 = Float::with_val(bits, (&r).pow(nf + 1));
        let tm = Float::with_val(bits, &gz * &rn1) / &one_minus;
        let lin = Float::with_val(bits, nf + 1) - Float::with_val(bits, &r * nf);
        let tf =
            Float::with_val(bits, &gz * &rn1) * lin / Float::with_val(bits, one_minus.square_ref());
        if best.as_ref().is_none_or(|(_, b, _)| tf < *b) {
            best = Some((tm, tf, z));
        }
    }
    let (tail_mass, tail_first, z) =
        best.ok_or_else(|| RedundancyError::Numerical("no z gave a tail bound".into()))?;
    Ok(Truncated {
        n_max,
        mass,
        first,
        tail_mass,
        tail_first,
        z,
    })
}

/// The mean values of [`fcfs_means`] as enclosures ([`Interval`]s: each contains the
/// exact value for the decimal rates written).
pub type EnclosedMeans = MeanValues<Interval>;

/// [`fcfs_means`] proven: the same closed-form phase sum ([`normaliser`]) on intervals with
/// outward rounding, from λ_c and μ_s enclosed from their decimals. The sum is finite (one
/// term per reachable union, each a geometric series summed exactly as
/// 1/(μ(U) − λ(U))), so nothing is truncated and no tail needs a bound; the enclosure's
/// width is rounding only. A union whose μ(U) − λ(U) is proven ≤ 0 is
/// [`RedundancyError::Unstable`]; one whose enclosure contains 0 is undecided at this
/// precision ([`RedundancyError::Numerical`]).
pub fn fcfs_means_enclosed(sys: &ClassSystem, bits: u32) -> Result<EnclosedMeans, RedundancyError> {
    let num_err = |e: crate::num::NumError| RedundancyError::Numerical(e.to_string());
    let lambda: Vec<Interval> = sys
        .classes()
        .iter()
        .map(|c| Interval::from_decimal(c.rate_text(), bits))
        .collect::<Result<_, _>>()
        .map_err(num_err)?;
    let mu: Vec<Interval> = sys
        .rate_texts()
        .iter()
        .map(|t| Interval::from_decimal(t, bits))
        .collect::<Result<_, _>>()
        .map_err(num_err)?;
    let unions = reachable_unions(sys)?;
    let nc = sys.classes().len();
    let index: HashMap<ServerSet, usize> =
        unions.iter().enumerate().map(|(i, &u)| (u, i)).collect();
    let zero = Interval::zero_at(bits);
    let mut num: Vec<Interval> = vec![zero.clone(); unions.len()];
    let mut dnum: Vec<Vec<Interval>> = vec![vec![zero.clone(); nc]; unions.len()];
    let mut g = zero.clone();
    let mut dg = vec![zero.clone(); nc];
    for (i, &u) in unions.iter().enumerate() {
        let (a, da): (Interval, Vec<Interval>) = if u.is_empty() {
            (Interval::int(bits, 1), vec![zero.clone(); nc])
        } else {
            let mut cap = zero.clone();
            for s in u.iter() {
                if let Some(m) = mu.get(s) {
                    cap = cap.add(m);
                }
            }
            let mut load = zero.clone();
            for (c, l) in sys.classes().iter().zip(&lambda) {
                if c.set.is_subset_of(u) {
                    load = load.add(l);
                }
            }
            let d = cap.sub(&load);
            if !d.is_positive() {
                if *d.hi() <= 0 {
                    return Err(unstable_union(sys, u, load.hi(), cap.lo()));
                }
                return Err(RedundancyError::Numerical(format!(
                    "the stability of the servers {u}: the enclosure of μ(U) − λ(U) contains 0 \
                     (more digits may decide it)"
                )));
            }
            let a = num[i].div(&d);
            let da = (0..nc)
                .map(|c| {
                    let x = if sys.classes()[c].set.is_subset_of(u) {
                        dnum[i][c].add(&a)
                    } else {
                        dnum[i][c].clone()
                    };
                    x.div(&d)
                })
                .collect();
            (a, da)
        };
        g = g.add(&a);
        for c in 0..nc {
            dg[c] = dg[c].add(&da[c]);
        }
        for (c, cl) in sys.classes().iter().enumerate() {
            if cl.set.is_subset_of(u) {
                continue;
            }
            let Some(&j) = index.get(&u.union(cl.set)) else {
                continue;
            };
            num[j] = num[j].add(&a.mul(&lambda[c]));
            for k in 0..nc {
                let mut t = da[k].mul(&lambda[c]);
                if k == c {
                    t = t.add(&a);
                }
                dnum[j][k] = dnum[j][k].add(&t);
            }
        }
    }
    let number: Vec<Interval> = lambda
        .iter()
        .zip(&dg)
        .map(|(l, d)| l.mul(d).div(&g))
        .collect();
    let response: Vec<Interval> = number.iter().zip(&lambda).map(|(n, l)| n.div(l)).collect();
    let mut total_number = zero.clone();
    for n in &number {
        total_number = total_number.add(n);
    }
    let mut total_rate = zero;
    for l in &lambda {
        total_rate = total_rate.add(l);
    }
    Ok(EnclosedMeans {
        total_response: total_number.div(&total_rate),
        total_number,
        number,
        response,
        p_empty: g.recip(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys(k: usize, classes: &[(&str, &str)]) -> ClassSystem {
        ClassSystem::unit_for_tests(k, classes)
    }

    #[test]
    fn one_class_on_one_server_is_mm1() {
        // M/M/1 at λ = 0.7, μ = 1: E[N] = ρ/(1 − ρ) = 7/3, P(0) = 0.3.
        let s = sys(1, &[("1", "0.7")]);
        let m = fcfs_means(&s, 200).unwrap();
        let e = Float::with_val(200, 7) / 3u32;
        assert!(Float::with_val(200, &m.number[0] - &e).abs() < 1e-55);
        assert!((m.p_empty.to_f64() - 0.3).abs() < 1e-15);
    }

    #[test]
    fn unstable_systems_name_the_violated_set() {
        // {1} at 0.6 and {1+2} at 1.5: the union {1,2} carries 2.1 > 2.
        let s = sys(2, &[("1", "0.6"), ("1+2", "1.5")]);
        match fcfs_means(&s, 64) {
            Err(RedundancyError::Unstable {
                classes, servers, ..
            }) => {
                assert_eq!((classes.as_str(), servers.as_str()), ("{1}, {1+2}", "1+2"));
            }
            other => panic!("{other:?}"),
        }
        // {1} alone overloaded.
        let s = sys(2, &[("1", "1.1"), ("1+2", "0.1")]);
        assert!(matches!(
            fcfs_means(&s, 64),
            Err(RedundancyError::Unstable { ref servers, .. }) if servers == "1"
        ));
    }

    /// The enclosure against closed forms: one class on one server is M/M/1 (E[N] =
    /// ρ/(1 − ρ), P(0) = 1 − ρ); one class on all K servers (the `full:k=K` preset) is an
    /// M/M/1 of rate K (E[T] = 1/(K − λ)); in the W-model the fully redundant class's
    /// response is exponential at rate μ1 + μ2 − Σλ (Gardner et al. 2016, the W-model
    /// result: E[T] = 1/(2 − 1.2) = 1.25). Each computed in MPFR at 2000 bits from the
    /// formula, not by the phase sum. Every mean also contains the certified value
    /// ([`fcfs_means`] at 3× the precision) and is at most 2^−(bits − 30) wide relative.
    #[test]
    fn enclosed_means_contain_the_closed_forms_and_the_certified_values() {
        let hp = 2000;
        let bits = 160;
        let dec = |s: &str| crate::num::parse_decimal(s, hp).unwrap();
        let tol = 2f64.powi(-(bits as i32 - 30));
        // M/M/1.
        for l in ["0.1", "0.7", "0.99"] {
            let s = sys(1, &[("1", l)]);
            let e = fcfs_means_enclosed(&s, bits).unwrap();
            let rho = dec(l);
            let one_m = Float::with_val(hp, 1u32 - &rho);
            assert!(
                e.number[0].contains(&Float::with_val(hp, &rho / &one_m)),
                "{l}"
            );
            assert!(e.p_empty.contains(&one_m), "{l}");
            assert!(e.number[0].rel_width() < tol);
        }
        // One class on K servers.
        for (k, l) in [(2usize, "1.5"), (4, "0.3"), (4, "3.9")] {
            let s = ClassSystem::preset(&format!("full:k={k}"), &[l.to_string()]).unwrap();
            let e = fcfs_means_enclosed(&s, bits).unwrap();
            let want = Float::with_val(hp, Float::with_val(hp, k as u32) - dec(l)).recip();
            assert!(e.response[0].contains(&want), "k {k} lambda {l}");
        }
        // W-model.
        let w =
            ClassSystem::preset("w-model", &["0.3".into(), "0.3".into(), "0.6".into()]).unwrap();
        let e = fcfs_means_enclosed(&w, bits).unwrap();
        assert!(e.response[2].contains(&dec("1.25")));
        // Against the certified values, several systems.
        for (name, rates) in [
            ("n-model", vec!["0.3", "0.6"]),
            ("w-model", vec!["0.5", "0.2", "0.9"]),
            (
                "nested-4",
                vec!["0.2", "0.3", "0.2", "0.4", "0.3", "0.3", "0.5"],
            ),
        ] {
            let rates: Vec<String> = rates.iter().map(|r| r.to_string()).collect();
            let s = ClassSystem::preset(name, &rates).unwrap();
            let e = fcfs_means_enclosed(&s, bits).unwrap();
            let m = fcfs_means(&s, 3 * bits).unwrap();
            for (x, y) in e.number.iter().zip(&m.number) {
                assert!(x.contains(y), "{name}");
                assert!(x.rel_width() < tol, "{name}");
            }
            for (x, y) in e.response.iter().zip(&m.response) {
                assert!(x.contains(y), "{name}");
            }
            assert!(e.total_response.contains(&m.total_response), "{name}");
            assert!(e.p_empty.contains(&m.p_empty), "{name}");
        }
        // Proven unstable.
        let s = sys(2, &[("1", "0.6"), ("1+2", "1.5")]);
        assert!(matches!(
            fcfs_means_enclosed(&s, 64),
            Err(RedundancyError::Unstable { .. })
        ));
    }
}
