//! The one layered dynamic programme behind both global searches (the MPFR grid of
//! [`super::grid`] and the f64 grid of [`super::fast`]) and both zooms.
//!
//! The objective is a chain J = Σ_i T(s_{i−1}, s_i) (or max_i T for minmax), so the best
//! placement of the cutoffs on candidate points is exact by dynamic programming (Bellman
//! 1957): with node 0 = s_0, layers L_1, …, L_h of candidate nodes for s_1, …, s_h and
//! V_0(0) = 0,
//!
//!   V_i(l) = min_{k ∈ L_{i−1}, k < l} V_{i−1}(k) ⊕ T(k, l),   l ∈ L_i,
//!
//! with ⊕ = + (or max), at O(Σ_i |L_{i−1}| |L_i|) terms. Nodes are numbered in increasing
//! order of their points, so "k before l" is k < l. A path that reaches the top node
//! early (at layer u < h) leaves hosts u+1 … h idle; every such path is kept, best per u,
//! since the objective can have a local minimum with all hosts busy and a better one with
//! fewer (TAGS at light load).
//!
//! Terms are nonnegative, so V ⊕ T ≥ max(V, T): a predecessor whose value, or whose term,
//! is already at least the best found for l cannot win, and its term is not computed
//! (nor, for lazily computed terms, evaluated at all).
//!
//! The zoom ([`zoom`]) refines a placement by running the same programme over shrinking
//! windows of candidate points around each busy cutoff.

use crate::num::logf64::ln_add_exp;
use crate::num::real::LnF64;
use rug::{Assign, Float};
use std::cmp::Ordering;

/// How the host terms of a chain combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// J = Σ_i T_i.
    Sum,
    /// J = max_i T_i (minmax objectives).
    Max,
}

/// The value of a path: an MPFR number, or a number carried as its logarithm.
pub trait Cost: Clone {
    /// Sets `self` to `acc ⊕ t`.
    fn combine_into(&mut self, acc: &Self, t: &Self, how: Combine);
    /// Whether `self < other` (false for NaN).
    fn lt(&self, other: &Self) -> bool;
    /// Whether the value is +∞ (no stable path reaches the node).
    fn is_unreachable(&self) -> bool;
    /// Whether the value is finite (a path worth reporting).
    fn is_finite(&self) -> bool;
    /// The order in which [`layered_dp`]'s paths are ranked.
    fn rank(&self, other: &Self) -> Ordering;
}

/// The host terms a [`layered_dp`] reads, T(k, l) for node k before node l (+∞ for an
/// unstable host).
pub trait Terms {
    /// The value type.
    type Cost: Cost;
    /// What a failed term reports.
    type Error;
    /// T(k, l).
    fn term(&mut self, k: usize, l: usize) -> Result<&Self::Cost, Self::Error>;
}

/// The candidate nodes of one layer, increasing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer<'a> {
    /// The nodes start … end − 1 (a whole grid: node ids need not be stored or read).
    Range(usize, usize),
    /// Any increasing nodes.
    Nodes(&'a [usize]),
}

impl Layer<'_> {
    /// The number of nodes.
    pub fn len(&self) -> usize {
        match *self {
            Layer::Range(a, b) => b.saturating_sub(a),
            Layer::Nodes(n) => n.len(),
        }
    }

    /// Whether the layer has no node.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The node at position i.
    #[inline]
    pub fn node(&self, i: usize) -> usize {
        match *self {
            Layer::Range(a, _) => a + i,
            Layer::Nodes(n) => n[i],
        }
    }

    /// How many nodes lie before node l.
    #[inline]
    fn before(&self, l: usize) -> usize {
        match *self {
            Layer::Range(a, b) => l.clamp(a, b) - a,
            Layer::Nodes(n) => n.partition_point(|&k| k < l),
        }
    }
}

/// A path of the programme that reaches the top node.
#[derive(Debug, Clone)]
pub struct Path<C> {
    /// The nodes of layers 1 … u − 1 (the busy cutoffs; layer u is the top node).
    pub nodes: Vec<usize>,
    /// Its value J.
    pub value: C,
}

/// The layered programme over `layers` (layer 0 holds the start node; each layer's nodes
/// increase), ending at node `top`: the best path for every layer at which `top` is
/// reached with a finite value, in the order of the layers. `zero` is the value of the
/// empty path and `unreachable` is +∞.
pub fn layered_dp<T: Terms>(
    layers: &[Layer],
    top: usize,
    zero: &T::Cost,
    unreachable: &T::Cost,
    how: Combine,
    terms: &mut T,
) -> Result<Vec<Path<T::Cost>>, T::Error> {
    debug_assert!(layers.iter().all(|l| match l {
        Layer::Nodes(n) => n.windows(2).all(|w| w[0] < w[1]),
        Layer::Range(..) => true,
    }));
    let Some(first) = layers.first() else {
        return Ok(vec![]);
    };
    let mut v: Vec<T::Cost> = vec![zero.clone(); first.len()];
    // args[m][a]: the position in layer m of the predecessor of node a of layer m + 1.
    let mut args: Vec<Vec<usize>> = Vec::with_capacity(layers.len());
    let mut tmp = zero.clone();
    let mut found = Vec::new();
    for m in 1..layers.len() {
        crate::progress::report(
            "cutoff search, host",
            m as u64,
            Some(layers.len() as u64 - 1),
            "",
        );
        let (prev, here) = (layers[m - 1], layers[m]);
        let mut nv: Vec<T::Cost> = vec![unreachable.clone(); here.len()];
        let mut na = vec![usize::MAX; here.len()];
        for a in 0..here.len() {
            let l = here.node(a);
            // The nodes of the previous layer before l: a prefix, the layer being sorted.
            let before = prev.before(l);
            let (best, arg) = (&mut nv[a], &mut na[a]);
            match prev {
                Layer::Range(start, _) => relax(
                    (0..before).map(|b| (b, start + b)),
                    l,
                    &v,
                    best,
                    arg,
                    &mut tmp,
                    how,
                    terms,
                )?,
                Layer::Nodes(nodes) => relax(
                    nodes[..before].iter().copied().enumerate(),
                    l,
                    &v,
                    best,
                    arg,
                    &mut tmp,
                    how,
                    terms,
                )?,
            }
        }
        args.push(na);
        // The top is the last node of a layer that holds it.
        if !here.is_empty() && here.node(here.len() - 1) == top {
            let at = here.len() - 1;
            if nv[at].is_finite() {
                found.push(Path {
                    nodes: backtrack(layers, &args, m, at),
                    value: nv[at].clone(),
                });
            }
        }
        v = nv;
    }
    Ok(found)
}

/// V(l) = min over the predecessors (b, k) (position in the previous layer, node) of
/// v[b] ⊕ T(k, l), skipping those that cannot win; `arg` receives the position.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn relax<T: Terms>(
    preds: impl Iterator<Item = (usize, usize)>,
    l: usize,
    v: &[T::Cost],
    best: &mut T::Cost,
    arg: &mut usize,
    tmp: &mut T::Cost,
    how: Combine,
    terms: &mut T,
) -> Result<(), T::Error> {
    for (b, k) in preds {
        let vk = &v[b];
        if vk.is_unreachable() || !vk.lt(best) {
            continue;
        }
        let t = terms.term(k, l)?;
        if !t.lt(best) {
            continue;
        }
        tmp.combine_into(vk, t, how);
        if tmp.lt(best) {
            best.clone_from(tmp);
            *arg = b;
        }
    }
    Ok(())
}

/// The nodes of layers 1 … m − 1 on the best path to node `at` of layer m.
fn backtrack(layers: &[Layer], args: &[Vec<usize>], m: usize, at: usize) -> Vec<usize> {
    let mut nodes = vec![0; m.saturating_sub(1)];
    let mut pos = at;
    for i in (1..=m).rev() {
        pos = args[i - 1][pos];
        if i >= 2 {
            nodes[i - 2] = layers[i - 1].node(pos);
        }
    }
    nodes
}

/// The paths of [`layered_dp`], best first.
pub fn ranked<C: Cost>(mut paths: Vec<Path<C>>) -> Vec<Path<C>> {
    paths.sort_by(|a, b| a.value.rank(&b.value));
    paths
}

impl Cost for Float {
    #[inline]
    fn combine_into(&mut self, acc: &Self, t: &Self, how: Combine) {
        match how {
            Combine::Sum => self.assign(acc + t),
            Combine::Max if acc >= t => self.assign(acc),
            Combine::Max => self.assign(t),
        }
    }
    #[inline]
    fn lt(&self, other: &Self) -> bool {
        self < other
    }
    #[inline]
    fn is_unreachable(&self) -> bool {
        self.is_infinite()
    }
    #[inline]
    fn is_finite(&self) -> bool {
        Float::is_finite(self)
    }
    fn rank(&self, other: &Self) -> Ordering {
        self.partial_cmp(other).unwrap_or(Ordering::Equal)
    }
}

impl Cost for LnF64 {
    #[inline]
    fn combine_into(&mut self, acc: &Self, t: &Self, how: Combine) {
        *self = match how {
            Combine::Sum => LnF64(ln_add_exp(acc.0, t.0)),
            Combine::Max => LnF64(acc.0.max(t.0)),
        };
    }
    #[inline]
    fn lt(&self, other: &Self) -> bool {
        self.0 < other.0
    }
    #[inline]
    fn is_unreachable(&self) -> bool {
        self.0 == f64::INFINITY
    }
    #[inline]
    fn is_finite(&self) -> bool {
        self.0.is_finite()
    }
    fn rank(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Points per zoom window: each cutoff's window in ln s is ZOOM_POINTS + 1 equally spaced
/// points on [−w, w] around it.
pub const ZOOM_POINTS: usize = 24;

/// A cutoff that moved by at least this fraction of the half-width w sits at the edge of
/// its window (a little below 1: a point at ±w lands a rounding short of it); the window
/// is then not shrunk, so that the next round can move it further.
pub const ZOOM_EDGE: f64 = 0.999;

/// Each round that leaves every cutoff inside its window divides the half-width by this:
/// the next window spans four steps 2w / ZOOM_POINTS of this one.
pub const ZOOM_SHRINK: f64 = ZOOM_POINTS as f64 / 4.0;

/// The points a zoom works on: cutoffs in MPFR, or their logarithms in f64.
pub trait ZoomSpace {
    /// A cutoff.
    type Point: Clone;
    /// The value of a placement.
    type Cost: Cost;
    /// What a failed round reports.
    type Error;
    /// s_0 and s_h.
    fn ends(&self) -> (Self::Point, Self::Point);
    /// The window of half-width w (in ln s) around x: its points strictly inside the
    /// support, then x itself.
    fn window(&self, x: &Self::Point, w: f64) -> Vec<Self::Point>;
    /// |ln(a/b)|.
    fn ln_distance(&self, a: &Self::Point, b: &Self::Point) -> f64;
    /// The order of two points.
    fn cmp(&self, a: &Self::Point, b: &Self::Point) -> Ordering;
    /// The smallest half-width: the first is at least this, and the zoom stops below
    /// `min_width() · scale(cur)`.
    fn min_width(&self) -> f64;
    /// The scale of the cutoffs `cur` for the stopping width (1 for an absolute one).
    fn scale(&self, cur: &[Self::Point]) -> f64;
    /// The best path through `layers` (nodes index `points`, which increase from s_0 to
    /// s_h), `None` if no stable one.
    fn best_path(
        &mut self,
        points: &[Self::Point],
        layers: &[Layer],
        how: Combine,
    ) -> Result<Option<Path<Self::Cost>>, Self::Error>;
}

/// Refines the busy cutoffs `start` by dynamic programming over windows around each,
/// shrinking the windows each round (each round is exact over its windows, so cutoffs
/// that move the objective only slightly are still placed where the chain's terms put
/// them), for at most `rounds` rounds from the half-width `width` (in ln s).
pub fn zoom<S: ZoomSpace>(
    space: &mut S,
    start: &[S::Point],
    width: f64,
    rounds: usize,
    how: Combine,
) -> Result<Zoomed<S::Point, S::Cost>, S::Error> {
    let (lo, top) = space.ends();
    let mut cur: Vec<S::Point> = start.to_vec();
    let mut value = None;
    let mut w = width.max(space.min_width());
    for _ in 0..rounds {
        let windows: Vec<Vec<S::Point>> = cur.iter().map(|x| space.window(x, w)).collect();
        let mut points: Vec<S::Point> = vec![lo.clone(), top.clone()];
        points.extend(windows.iter().flatten().cloned());
        points.sort_by(|a, b| space.cmp(a, b));
        points.dedup_by(|a, b| space.cmp(a, b) == Ordering::Equal);
        let index = |x: &S::Point| points.partition_point(|p| space.cmp(p, x) == Ordering::Less);
        let mut layers: Vec<Vec<usize>> = vec![vec![0]];
        for win in &windows {
            let mut ids: Vec<usize> = win.iter().map(index).collect();
            ids.sort_unstable();
            ids.dedup();
            layers.push(ids);
        }
        layers.push(vec![points.len() - 1]);
        let refs: Vec<Layer> = layers.iter().map(|l| Layer::Nodes(l)).collect();
        let Some(best) = space.best_path(&points, &refs, how)? else {
            break;
        };
        let next: Vec<S::Point> = best.nodes.iter().map(|&k| points[k].clone()).collect();
        let at_edge = next
            .iter()
            .zip(&cur)
            .any(|(a, b)| space.ln_distance(a, b) >= ZOOM_EDGE * w);
        cur = next;
        value = Some(best.value);
        if !at_edge {
            w /= ZOOM_SHRINK;
        }
        if w < space.min_width() * space.scale(&cur) {
            break;
        }
    }
    Ok(Zoomed {
        cutoffs: cur,
        value,
    })
}

/// What [`zoom`] returns.
#[derive(Debug, Clone)]
pub struct Zoomed<P, C> {
    /// The busy cutoffs.
    pub cutoffs: Vec<P>,
    /// The last round's value (`None` if no round found a stable placement).
    pub value: Option<C>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    impl Cost for f64 {
        fn combine_into(&mut self, acc: &Self, t: &Self, how: Combine) {
            *self = match how {
                Combine::Sum => acc + t,
                Combine::Max => acc.max(*t),
            };
        }
        fn lt(&self, other: &Self) -> bool {
            self < other
        }
        fn is_unreachable(&self) -> bool {
            *self == f64::INFINITY
        }
        fn is_finite(&self) -> bool {
            f64::is_finite(*self)
        }
        fn rank(&self, other: &Self) -> Ordering {
            self.total_cmp(other)
        }
    }

    /// T(k, l) = (x_l − x_k − c)² + ε x_l: a chain whose optimum is known by enumeration.
    struct Quad<'a> {
        x: &'a [f64],
        c: f64,
        last: f64,
    }

    impl Terms for Quad<'_> {
        type Cost = f64;
        type Error = Infallible;
        fn term(&mut self, k: usize, l: usize) -> Result<&f64, Infallible> {
            let d = self.x[l] - self.x[k] - self.c;
            self.last = d * d + 1e-3 * self.x[l];
            Ok(&self.last)
        }
    }

    /// The chain's value along `nodes` then the top.
    fn along(q: &mut Quad, nodes: &[usize], top: usize, how: Combine) -> f64 {
        let (mut at, mut acc) = (0, 0.0);
        for &k in nodes.iter().chain(std::iter::once(&top)) {
            let Ok(t) = q.term(at, k).copied();
            acc = match how {
                Combine::Sum => acc + t,
                Combine::Max => acc.max(t),
            };
            at = k;
        }
        acc
    }

    /// Every increasing tuple of inner nodes of each length u − 1 < h, then the top: the
    /// brute-force optimum of each number u of busy hosts (the expected values below).
    fn brute(x: &[f64], c: f64, hosts: usize, how: Combine) -> Vec<Option<f64>> {
        let n = x.len() - 1;
        let mut q = Quad { x, c, last: 0.0 };
        let mut best = vec![None; hosts];
        // Every subset of the inner nodes 1 … n − 1, as a bit mask.
        for mask in 0u32..(1 << (n - 1)) {
            let nodes: Vec<usize> = (1..n).filter(|i| mask & (1 << (i - 1)) != 0).collect();
            if nodes.len() >= hosts {
                continue;
            }
            let v = along(&mut q, &nodes, n, how);
            let b: &mut Option<f64> = &mut best[nodes.len()];
            if b.is_none_or(|old| v < old) {
                *b = Some(v);
            }
        }
        best
    }

    /// The layered programme against brute force on small grids, for sums and maxima and
    /// every number of busy hosts. Source of the expected values: enumeration of every
    /// increasing tuple (brute above); tolerance 1e-12 (the same additions in another
    /// order).
    #[test]
    fn layered_dp_matches_brute_force() {
        let x: Vec<f64> = (0..=9).map(|i| (i as f64).powf(1.3)).collect();
        let n = x.len() - 1;
        for hosts in 1..=4 {
            for how in [Combine::Sum, Combine::Max] {
                // Whole-grid layers as ranges, and the same as node lists.
                let all: Vec<usize> = (1..=n).collect();
                let mut layers = vec![Layer::Range(0, 1)];
                let mut listed = vec![Layer::Nodes(&[0])];
                for _ in 1..hosts {
                    layers.push(Layer::Range(1, n + 1));
                    listed.push(Layer::Nodes(&all));
                }
                layers.push(Layer::Range(n, n + 1));
                listed.push(Layer::Nodes(&all[n - 1..]));
                let mut q = Quad {
                    x: &x,
                    c: 3.0,
                    last: 0.0,
                };
                let Ok(paths) = layered_dp(&layers, n, &0.0, &f64::INFINITY, how, &mut q);
                let Ok(same) = layered_dp(&listed, n, &0.0, &f64::INFINITY, how, &mut q);
                assert_eq!(paths.len(), same.len());
                for (p, r) in paths.iter().zip(&same) {
                    assert_eq!((&p.nodes, p.value), (&r.nodes, r.value));
                }
                let want = brute(&x, 3.0, hosts, how);
                let got: Vec<Option<f64>> = (0..hosts)
                    .map(|u| paths.iter().find(|p| p.nodes.len() == u).map(|p| p.value))
                    .collect();
                for (g, w) in got.iter().zip(&want) {
                    match (g, w) {
                        (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{g} vs {w}"),
                        _ => assert_eq!(g, w),
                    }
                }
                // The path's value is the chain evaluated along its nodes.
                for p in &paths {
                    assert!((along(&mut q, &p.nodes, n, how) - p.value).abs() < 1e-12);
                }
            }
        }
    }
}
