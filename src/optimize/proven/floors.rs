//! The window of a stable chain's cutoffs: proven floors ℓ_1 ≤ … ≤ ℓ_{h−1} and ceilings
//! c_1 ≤ … ≤ c_{h−1} such that every cutoff vector with some s_i ≤ ℓ_i or s_i ≥ c_i leaves
//! a host unstable, so that the branch and bound may cut every box to them
//! ([`Problem::stability_window`], [`Window::cut`]).
//!
//! **Why they are floors.** Host i's load ρ_i(a, b) on (a, b] = (s_{i−1}, s_i] is λ
//! E[min(X, b); X > a] for TAGS (every job above a is served up to b) and λ M_1(a, b) for
//! SITA; both fall in a and grow in b over a ≤ b (∂/∂a = −λ a f(a) ≤ 0, ∂/∂b = λ F̄(b) ≥ 0
//! for TAGS and λ b f(b) ≥ 0 for SITA; as integrals the same holds with atoms). The last
//! host is ρ_h(s_{h−1}, +∞). Take ℓ_{h−1} with ρ_h(ℓ_{h−1}, +∞) ≥ 1 proven, and, going
//! down, ℓ_{i−1} ≤ ℓ_i with ρ_i(ℓ_{i−1}, ℓ_i) ≥ 1 proven. By induction from the top:
//! s_{h−1} ≤ ℓ_{h−1} gives ρ_h(s_{h−1}, +∞) ≥ ρ_h(ℓ_{h−1}, +∞) ≥ 1; and if s_{i−1} ≤
//! ℓ_{i−1} while every s_j > ℓ_j above it (else a host above is already unstable), then
//! ρ_i(s_{i−1}, s_i) ≥ ρ_i(s_{i−1}, ℓ_i) ≥ ρ_i(ℓ_{i−1}, ℓ_i) ≥ 1 (b lowered to ℓ_i < s_i,
//! then a raised to ℓ_{i−1} ≥ s_{i−1}, both within a ≤ b). An unstable host makes the
//! objective +∞, so the minimum lies where every s_i > ℓ_i, and a box may be cut to
//! [max(lo_i, ℓ_i), hi_i] (the point ℓ_i kept, harmlessly).
//!
//! The greedy fill from the top (each host in turn loaded to 1) is the same recursion
//! with equalities; here each ℓ is the largest point found by bisection at which the
//! enclosure proves the load ≥ 1, so it lies at or below the exact edge and is proven.
//!
//! **Ceilings, from the bottom up** ([`Problem::stability_ceilings`]). The same two
//! monotonicities give the mirror image. Take c_1 with ρ_1(bottom, c_1) ≥ 1 proven and,
//! going up, c_i ≥ c_{i−1} with ρ_i(c_{i−1}, c_i) ≥ 1 proven. By induction from the
//! bottom: s_1 ≥ c_1 gives ρ_1(bottom, s_1) ≥ ρ_1(bottom, c_1) ≥ 1; and if s_i ≥ c_i while
//! every s_j < c_j below it (else a host below is already unstable), then ρ_i(s_{i−1},
//! s_i) ≥ ρ_i(s_{i−1}, c_i) ≥ ρ_i(c_{i−1}, c_i) ≥ 1 (b lowered to c_i ≤ s_i, then a raised
//! to c_{i−1} > s_{i−1}). Each c_i is the least point found by bisection at which the
//! enclosure proves the load ≥ 1, so it lies at or above the exact edge. Where host i's
//! load on (c_{i−1}, ·) never reaches 1 (the top of a bounded support, or ρ_i(c_{i−1}, +∞)
//! not proven ≥ 1 on an unbounded one) there is no ceiling from i up: s_{i−1} could be as
//! large as s_i itself, which loads host i with nothing.
//!
//! A run of bottom hosts at their edges is where the ceilings matter: TAGS's slowdown at
//! BP(1, 10^1000, 1.2), 6 hosts, total load 3, whose hosts 1 to 3 sit at load 1 − σ
//! (σ below the printed digits) under host 4, whose term falls in its lower cutoff s_3 and
//! carries the value. Boxes reaching past c_3 bounded host 4 at s_3's upper end, where
//! host 3 cannot be stable: 200 000 boxes proved [6.3·10^53, 8.4·10^66], 0 digits
//! (2026-12-06). Cut at c_1, c_2, c_3 (3.0517578125 = 0.8^−5, 18.158, 671.67), the gap
//! closes to 12 digits in 6 391 boxes and to 20 digits in 10 251 (15 s).
//!
//! **Why it matters.** Where the optimum loads its last hosts almost to 1 (TAGS's slowdown
//! at BP(1, 10^1000, 1), 8 hosts, total load 4: hosts 6 to 8 within 10^−5 of 1 at the
//! certified point of stop 52), the boxes below the floors hold no stable point but the
//! corner bounds of one host at a time cannot see it: hosts 7 and 8 are each stable at
//! some corner of a box whose s_6 lies below ℓ_6 (2026-12-06: of the first 5 000 splits,
//! 1 803 went to s_6 and s_7).

use super::Problem;
use crate::num::interval::Interval;
use crate::num::root::{bisect_predicate, expand_upper};
use crate::num::NumError;
use crate::policy::rigorous::enclosed_host;
use crate::policy::PolicyError;
use rug::Float;
use std::convert::Infallible;

impl Problem<'_> {
    /// Host `i`'s load (1-based, of `hosts`) enclosed at the points a, b (b = +∞ for the
    /// last host).
    pub(super) fn load_at(&self, a: &Float, b: Option<&Float>) -> Result<Interval, PolicyError> {
        let bits = self.bits;
        let a = Interval::point(a.clone());
        let (b, top) = match b {
            Some(b) => (Interval::point(b.clone()), false),
            None => (Interval::infinite_at(bits), true),
        };
        let host = enclosed_host(
            self.obj.kind,
            self.enc,
            &self.lambda,
            (&a, &b, top),
            self.obj.metric,
        )?;
        Ok(host.load)
    }

    /// The floors ℓ_1 ≤ … ≤ ℓ_n of the n cutoffs (module docs); the bottom of the support
    /// where no floor is proven above it. An enclosure that fails leaves that floor and
    /// those below it at the bottom (no cut: still a valid floor).
    pub(super) fn stability_floors(&self, n: usize) -> Vec<Float> {
        let bits = self.bits;
        let bottom = crate::dist::enclose::below_support(bits);
        let mut floors = vec![bottom.clone(); n];
        let top = self.enc.upper().hi().clone();
        let mut above: Option<Float> = None;
        for k in (0..n).rev() {
            // Host k + 2 (1-based) on (s_{k+1}, s_{k+2}] = (x, above].
            let unstable = |x: &Float| -> Option<bool> {
                let load = self.load_at(x, above.as_ref()).ok()?;
                Some(*load.lo() >= 1)
            };
            let ceiling = above.clone().unwrap_or_else(|| top.clone());
            let Some(f) = largest_unstable(&bottom, &ceiling, unstable, bits) else {
                break;
            };
            floors[k] = f.clone();
            above = Some(f);
        }
        floors
    }
}

/// The largest x in [lo, hi] found by bisection with `unstable(x)` proven (`unstable`
/// falls from true to false as x grows); `None` where it is not proven at `lo` (or fails).
/// An unbounded `hi` is first brought to a finite point where it is not proven, by
/// doubling ([`expand_upper`]); where doubling finds none, `lo` (a weaker floor, still one).
fn largest_unstable(
    lo: &Float,
    hi: &Float,
    unstable: impl Fn(&Float) -> Option<bool>,
    bits: u32,
) -> Option<Float> {
    if !unstable(lo)? {
        return None;
    }
    let proven = |x: &Float| unstable(x) == Some(true);
    let bad = if hi.is_finite() {
        if proven(hi) {
            return Some(hi.clone());
        }
        hi.clone()
    } else {
        let sign = |x: &Float| -> Result<Float, NumError> {
            Ok(Float::with_val(bits, if proven(x) { -1 } else { 1 }))
        };
        match expand_upper("a stability floor", &Float::with_val(bits, lo), sign) {
            Ok(x) => x,
            Err(_) => return Some(lo.clone()),
        }
    };
    let holds = |x: &Float| Ok::<bool, Infallible>(proven(x));
    let Ok((good, _)) = bisect_predicate(lo, &bad, bits, bits.saturating_sub(8), holds);
    Some(good)
}

/// The stability window of the cutoffs: floors from the top down ([`Problem::stability_floors`])
/// and ceilings from the bottom up ([`Problem::stability_ceilings`]); every stable cutoff
/// vector has ℓ_i < s_i < c_i for each i.
#[derive(Debug, Clone)]
pub(super) struct Window {
    pub(super) floors: Vec<Float>,
    pub(super) ceilings: Vec<Float>,
}

impl Window {
    /// The box `cut` with each interval clipped to its cutoff's window; `None` where some
    /// interval lies wholly outside it (no stable cutoff vector in the box).
    pub(super) fn cut(&self, cut: &[Interval]) -> Option<Vec<Interval>> {
        let mut out = Vec::with_capacity(cut.len());
        for ((c, f), g) in cut.iter().zip(&self.floors).zip(&self.ceilings) {
            if c.hi() < f || c.lo() > g {
                return None;
            }
            let lo = if c.lo() < f { f } else { c.lo() };
            let hi = if c.hi() > g { g } else { c.hi() };
            out.push(Interval::new(lo.clone(), hi.clone()));
        }
        Some(out)
    }
}

impl Problem<'_> {
    /// The ceilings c_1 ≤ … ≤ c_n above every stable chain's cutoffs (module docs,
    /// "Ceilings"); the top of the support where none is proven below it. An enclosure that fails leaves
    /// that ceiling and those above it at the top (no cut: still a valid ceiling).
    pub(super) fn stability_ceilings(&self, n: usize) -> Vec<Float> {
        let bits = self.bits;
        let top = self.enc.upper().hi().clone();
        let mut ceilings = vec![top.clone(); n];
        let mut below = crate::dist::enclose::below_support(bits);
        for ceiling in ceilings.iter_mut() {
            // Host k + 1 (1-based) on (s_k, s_{k+1}] = (below, x].
            let unstable = |x: &Float| -> bool {
                self.load_at(&below, Some(x))
                    .map(|load| *load.lo() >= 1)
                    .unwrap_or(false)
            };
            let hi = if top.is_finite() {
                top.clone()
            } else {
                // Its load rises to ρ(below, +∞) (the last host's on the same lower
                // cutoff): where that is not proven ≥ 1 no finite point is; else the
                // doubling search finds one.
                match self.load_at(&below, None) {
                    Ok(load) if *load.lo() >= 1 => {}
                    _ => break,
                }
                let sign = |x: &Float| -> Result<Float, NumError> {
                    Ok(Float::with_val(bits, if unstable(x) { 1 } else { -1 }))
                };
                let start = Float::with_val(bits, &below).max(&Float::with_val(bits, 1));
                match expand_upper("a stability ceiling", &start, sign) {
                    Ok(x) => x,
                    Err(_) => break,
                }
            };
            let Some(c) = smallest_unstable(&below, &hi, unstable, bits) else {
                break;
            };
            *ceiling = c.clone();
            below = c;
        }
        ceilings
    }

    /// Floors and ceilings of the `n` cutoffs together.
    pub(super) fn stability_window(&self, n: usize) -> Window {
        Window {
            floors: self.stability_floors(n),
            ceilings: self.stability_ceilings(n),
        }
    }
}

/// The smallest x in (lo, hi] found by bisection with `unstable(x)` proven (`unstable`
/// rises from false to true as x grows); `None` where it is not proven at `hi` (or hi is
/// not finite).
fn smallest_unstable(
    lo: &Float,
    hi: &Float,
    unstable: impl Fn(&Float) -> bool,
    bits: u32,
) -> Option<Float> {
    if !hi.is_finite() || !unstable(hi) {
        return None;
    }
    let stable_side = |x: &Float| Ok::<bool, Infallible>(!unstable(x));
    let Ok((_, bad)) = bisect_predicate(lo, hi, bits, bits.saturating_sub(8), stable_side);
    Some(bad)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{bp_one_edge, problem_of, BpOneEdge};
    use super::*;
    use crate::dist::{DistFactory, DistSpec};
    use crate::optimize::OptPolicy;
    use crate::policy::{LoadSpec, Metric};

    /// The floors at BP(1, 10^10, 1), 4 hosts, total load 3.5, against the edges in closed
    /// form (by hand: with C = 1/(1 − 10^−10) the density is C x^−2, M_1(a, b) =
    /// C ln(b/a) and b F̄(b) = C (1 − b/p); so SITA's edges are L_3 = p e^{−1/(λC)} and
    /// L_{i−1} = L_i e^{−1/(λC)}, TAGS's L_3 the same and L_{i−1} = L_i e^{−(1/(λC) −
    /// (1 − L_i/p))}). Each floor must lie at or below its edge (above it, it would cut
    /// stable points away) and within 10^−25 of it (the bisection's stop is 2^−120).
    #[test]
    fn floors_lie_just_below_the_closed_form_edges() {
        let bits = 128;
        let BpOneEdge {
            enc,
            law,
            lambda,
            inv,
        } = bp_one_edge(bits);
        let p = Float::with_val(bits, 1e10);
        for policy in [OptPolicy::Sita, OptPolicy::Tags] {
            let pb = problem_of(
                (policy, Metric::Waiting),
                enc.as_ref(),
                law.as_ref(),
                &lambda,
            );
            let floors = pb.stability_floors(3);
            let mut edge = Float::with_val(bits, &p * Float::with_val(bits, -&inv).exp());
            let mut edges = vec![edge.clone()];
            for _ in 0..2 {
                let step = if policy == OptPolicy::Sita {
                    inv.clone()
                } else {
                    Float::with_val(
                        bits,
                        &inv - (Float::with_val(bits, 1) - Float::with_val(bits, &edge / &p)),
                    )
                };
                edge = Float::with_val(bits, &edge * Float::with_val(bits, -step).exp());
                edges.push(edge.clone());
            }
            edges.reverse();
            for (i, (f, e)) in floors.iter().zip(&edges).enumerate() {
                let rel = (Float::with_val(bits, e - f) / e).to_f64();
                assert!(
                    (0.0..1e-25).contains(&rel),
                    "{policy:?} floor {} = {f} against the edge {e}: relative {rel:e}",
                    i + 1
                );
            }
        }
    }

    /// The ceilings at BP(1, 10^10, 1), 4 hosts, total load 3.5, against the edges from
    /// the bottom (by hand, with C = 1/(1 − 10^−10) as above: host 1 on (1, b] has SITA's
    /// load λ C ln b and TAGS's λ C (ln b + 1 − b/p), so SITA's edges are
    /// c_i = c_{i−1} e^{1/(λC)} from c_0 = 1, and TAGS's solve ln(c_i/c_{i−1}) + 1 − c_i/p =
    /// 1/(λC), here by the fixed-point iteration c_i = c_{i−1} e^{1/(λC) − 1 + c_i/p}, a
    /// contraction since c_i/p < 10^−2). Each ceiling must lie at or above its edge (below
    /// it, it would cut stable points away) and within 10^−25 of it.
    #[test]
    fn ceilings_lie_just_above_the_closed_form_edges() {
        let bits = 128;
        let BpOneEdge {
            enc,
            law,
            lambda,
            inv,
        } = bp_one_edge(bits);
        let f = |v: f64| Float::with_val(bits, v);
        let p = f(1e10);
        for policy in [OptPolicy::Sita, OptPolicy::Tags] {
            let pb = problem_of(
                (policy, Metric::Waiting),
                enc.as_ref(),
                law.as_ref(),
                &lambda,
            );
            let ceilings = pb.stability_ceilings(3);
            let mut below = f(1.0);
            for (i, got) in ceilings.iter().enumerate() {
                let edge = if policy == OptPolicy::Sita {
                    Float::with_val(bits, &below * Float::with_val(bits, inv.exp_ref()))
                } else {
                    let mut x = below.clone();
                    for _ in 0..200 {
                        let e = Float::with_val(bits, &inv - 1u32) + Float::with_val(bits, &x / &p);
                        x = Float::with_val(bits, &below * e.exp());
                    }
                    x
                };
                let rel = (Float::with_val(bits, got - &edge) / &edge).to_f64();
                assert!(
                    (0.0..1e-25).contains(&rel),
                    "{policy:?} ceiling {} = {got} against the edge {edge}: relative {rel:e}",
                    i + 1
                );
                below = edge;
            }
        }
    }

    /// An unbounded support. TAGS at Exp(1), 2 hosts: host 1's load is λ E[min(X, b)] =
    /// λ(1 − e^{−b}). At a total load of 1.5 (λ = 1.5) it reaches 1 at b = ln 3 (the
    /// ceiling, found past the doubling search; tolerance 10^−30 relative, the bisection
    /// stops at 2^−120); at 0.5 it never does (λ E[X] = 0.5 < 1) and there is no ceiling.
    #[test]
    fn an_unbounded_support_gets_its_ceiling_by_doubling_or_none() {
        let bits = 128;
        let spec = DistSpec::parse("exp:rate=1").unwrap();
        let enc = spec.enclose(bits).unwrap();
        let law = spec.build(bits).unwrap();
        for (load, want) in [
            ("1.5", Some(Float::with_val(bits, 3u32).ln())),
            ("0.5", None),
        ] {
            let (lambda, _) = LoadSpec::Total(load.into())
                .resolve_enclosed(enc.as_ref(), 2)
                .unwrap();
            let pb = problem_of(
                (OptPolicy::Tags, Metric::Waiting),
                enc.as_ref(),
                law.as_ref(),
                &lambda,
            );
            let got = pb.stability_ceilings(1).remove(0);
            match want {
                Some(edge) => {
                    let rel = (Float::with_val(bits, &got - &edge) / &edge).to_f64();
                    assert!(
                        (0.0..1e-30).contains(&rel),
                        "load {load}: ceiling {got} against ln 3: relative {rel:e}"
                    );
                }
                None => assert!(got.is_infinite(), "load {load}: ceiling {got}"),
            }
        }
    }

    /// An unbounded support (the doubling search): TAGS at Exp(1), 2 hosts, total load
    /// 1.5. Host 2 serves every job above s_1 in full, its load λ(s_1 + 1)e^{−s_1}, so the
    /// edge is the root of (a + 1)e^{−a} = 1/λ (λ = 1.5), found here by bisection in f64
    /// (tolerance 10^−12: the root's f64 accuracy). Host 1 puts no floor below it.
    #[test]
    fn an_unbounded_support_gets_its_floor_by_doubling() {
        let bits = 128;
        let spec = DistSpec::parse("exp:rate=1").unwrap();
        let enc = spec.enclose(bits).unwrap();
        let law = spec.build(bits).unwrap();
        let (lambda, _) = LoadSpec::Total("1.5".into())
            .resolve_enclosed(enc.as_ref(), 2)
            .unwrap();
        let pb = problem_of(
            (OptPolicy::Tags, Metric::Waiting),
            enc.as_ref(),
            law.as_ref(),
            &lambda,
        );
        let floors = pb.stability_floors(1);
        let g = |a: f64| 1.5 * (a + 1.0) * (-a).exp() - 1.0;
        let (mut lo, mut hi) = (0.0f64, 10.0f64);
        for _ in 0..200 {
            let m = 0.5 * (lo + hi);
            if g(m) > 0.0 {
                lo = m;
            } else {
                hi = m;
            }
        }
        let f = floors[0].to_f64();
        assert!(
            f <= lo * (1.0 + 1e-12) && f >= lo * (1.0 - 1e-12),
            "floor {f} against the root {lo}"
        );
    }

    /// A box is cut to the window, and a box wholly below a floor or above a ceiling holds
    /// no stable point.
    #[test]
    fn boxes_are_cut_to_the_window() {
        let bits = 64;
        let x = |v: f64| Float::with_val(bits, v);
        let floors = vec![x(2.0), x(5.0)];
        let cut = vec![Interval::new(x(1.0), x(3.0)), Interval::new(x(4.0), x(9.0))];
        let window = Window {
            floors,
            ceilings: vec![x(2.5), x(7.0)],
        };
        let got = window.cut(&cut).unwrap();
        assert_eq!(got[0].lo().to_f64(), 2.0);
        assert_eq!(got[0].hi().to_f64(), 2.5);
        assert_eq!(got[1].lo().to_f64(), 5.0);
        assert_eq!(got[1].hi().to_f64(), 7.0);
        let below = vec![Interval::new(x(1.0), x(3.0)), Interval::new(x(4.0), x(4.5))];
        assert!(window.cut(&below).is_none());
        let above = vec![Interval::new(x(2.6), x(3.0)), Interval::new(x(5.0), x(6.0))];
        assert!(window.cut(&above).is_none());
    }
}
