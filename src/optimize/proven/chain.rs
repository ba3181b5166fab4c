//! A lower bound of the SITA objective over the ordered cutoff vectors **outside** the
//! convex basin N, by a dynamic programme over one partition of the support shared by
//! every cutoff, instead of boxes in h − 1 dimensions (whose number grows like
//! (range/width)^(h−1): at h = 6 the box search left far boxes unsplit after 200 000).
//!
//! **The bound.** Cut points x_0 < x_1 < … < x_M split the support into pieces
//! P_j = [x_j, x_{j+1}]. Every ordered vector s has each s_i in some piece P_{j_i}, with
//! j_1 ≤ j_2 ≤ … (s is ordered and the pieces are). A SITA host's term T(a, b) grows as
//! (a, b] widens (module docs of `proven`), so host i + 1 on (s_i, s_{i+1}] has
//! T ≥ T(x_{j_i + 1}, x_{j_{i+1}}) when j_i < j_{i+1}, and T ≥ 0 when j_i = j_{i+1} (the
//! host may be empty); the first host is bounded at (below the support, x_{j_1}), the
//! last at (x_{j_{h−1} + 1}, +∞). The objective at s is their sum (+ the shift), at
//! least the sum of the bounds along (j_1, …, j_{h−1}), at least the least such sum over
//! every non-decreasing sequence — what the programme computes, each addition rounded
//! down. Restricted to vectors outside N, the programme carries a flag "some s_i so far
//! lies in a piece not inside N_i" and keeps the sequences whose flag is set at the end:
//! a vector outside N has some s_i ∉ N_i, and its piece then is not inside N_i.
//!
//! **Refinement.** The pieces on the least sequence are split (each at its
//! [`Problem::split_point`]) until the bound passes the target or a limit of pieces; the
//! pair values T(x_p, x_q) depend on two cut points only and are remembered, so a new cut
//! point costs one evaluation per other cut point.

use super::Problem;
use crate::num::interval::Interval;
use crate::policy::rigorous::enclosed_host;
use crate::policy::PolicyError;
use rug::float::{Round, Special};
use rug::Float;
use std::collections::HashMap;

/// The bound reached and the pieces used.
pub(super) struct ChainBound {
    /// A proven lower bound of the objective over every ordered vector outside N.
    pub lb: Float,
    /// Pieces of the last partition.
    pub pieces: usize,
}

/// Index of a cut point (stable while points are added).
type Id = usize;

struct Pairs<'a, 'p> {
    pb: &'a Problem<'p>,
    /// The cut points by id.
    at: Vec<Float>,
    /// T(x_p, x_q) lower ends, by ids; `None` id for below the support / +∞.
    memo: HashMap<(Option<Id>, Option<Id>), Float>,
}

impl Pairs<'_, '_> {
    /// The lower end of host term T(a, b) at the points a (None: below the support) and
    /// b (None: +∞), clamped at 0 (every term is ≥ 0); +∞ when proven unstable.
    fn t(&mut self, a: Option<Id>, b: Option<Id>) -> Result<Float, PolicyError> {
        if let Some(v) = self.memo.get(&(a, b)) {
            return Ok(v.clone());
        }
        let bits = self.pb.bits;
        let pa = match a {
            Some(i) => Interval::point(self.at[i].clone()),
            None => Interval::point(crate::dist::enclose::below_support(bits)),
        };
        let pbv = match b {
            Some(i) => Interval::point(self.at[i].clone()),
            None => Interval::infinite_at(bits),
        };
        let v = if a.is_some() && b.is_some() && self.at[a.unwrap()] >= self.at[b.unwrap()] {
            Float::new(bits)
        } else {
            let host = enclosed_host(
                self.pb.obj.kind,
                self.pb.enc,
                &self.pb.lambda,
                (&pa, &pbv, b.is_none()),
                self.pb.obj.metric,
            )?;
            if host.stable() {
                host.term().lo().clone().max(&Float::new(bits))
            } else {
                Float::with_val(bits, Special::Infinity)
            }
        };
        self.memo.insert((a, b), v.clone());
        Ok(v)
    }
}

/// The bound over the ordered vectors of `whole` (one interval, the support, for every
/// cutoff) outside `basin` (the convex basin's box), refined until it is at least
/// `target` or `max_pieces` pieces.
pub(super) fn chain_lb(
    pb: &Problem,
    support: &Interval,
    basin: &[Interval],
    target: &Float,
    max_pieces: usize,
) -> Result<ChainBound, PolicyError> {
    let bits = pb.bits;
    let n = basin.len();
    // Cut points: the support's ends and the basin's ends, sorted (ids in order of
    // creation; `order` lists ids by value).
    let mut pairs = Pairs {
        pb,
        at: Vec::new(),
        memo: HashMap::new(),
    };
    let mut pts: Vec<Float> = vec![support.lo().clone(), support.hi().clone()];
    for c in basin {
        pts.push(c.lo().clone());
        pts.push(c.hi().clone());
    }
    pts.sort_by(|x, y| x.total_cmp(y));
    pts.dedup();
    pairs.at = pts;
    let mut order: Vec<Id> = (0..pairs.at.len()).collect();
    let inf = || Float::with_val(bits, Special::Infinity);
    let add = |x: &Float, y: &Float| Float::with_val_round(bits, x + y, Round::Down).0;
    loop {
        let m = order.len() - 1; // pieces
        let lo_id = |j: usize| order[j];
        let hi_id = |j: usize| order[j + 1];
        let x = |id: Id, pairs: &Pairs| pairs.at[id].clone();
        // inside[i][j]: piece j lies inside the basin's interval of cutoff i.
        let inside: Vec<Vec<bool>> = (0..n)
            .map(|i| {
                (0..m)
                    .map(|j| {
                        x(lo_id(j), &pairs) >= *basin[i].lo()
                            && x(hi_id(j), &pairs) <= *basin[i].hi()
                    })
                    .collect()
            })
            .collect();
        // best[f][j], with back pointers for the least sequence.
        let mut best: [Vec<Float>; 2] = [vec![inf(); m], vec![inf(); m]];
        let mut back: Vec<[Vec<(usize, usize)>; 2]> = Vec::with_capacity(n);
        for j in 0..m {
            let f = usize::from(!inside[0][j]);
            best[f][j] = pairs.t(None, Some(lo_id(j)))?;
        }
        back.push([vec![(0, 0); m], vec![(0, 0); m]]);
        for i in 1..n {
            let mut next: [Vec<Float>; 2] = [vec![inf(); m], vec![inf(); m]];
            let mut bk = [vec![(usize::MAX, 0); m], vec![(usize::MAX, 0); m]];
            for k in 0..m {
                let out = !inside[i][k];
                for f in 0..2 {
                    for j in 0..=k {
                        if best[f][j].is_infinite() {
                            continue;
                        }
                        let l = if j == k {
                            Float::new(bits)
                        } else {
                            pairs.t(Some(hi_id(j)), Some(lo_id(k)))?
                        };
                        let v = add(&best[f][j], &l);
                        let g = usize::from(f == 1 || out);
                        if v < next[g][k] {
                            next[g][k] = v;
                            bk[g][k] = (j, f);
                        }
                    }
                }
            }
            best = next;
            back.push(bk);
        }
        // The last host, flag set.
        let mut least = inf();
        let mut arg = None;
        for j in 0..m {
            if best[1][j].is_infinite() {
                continue;
            }
            let v = add(&best[1][j], &pairs.t(Some(hi_id(j)), None)?);
            if v < least {
                least = v;
                arg = Some(j);
            }
        }
        let lb = add(&least, pb.shift.lo());
        if lb >= *target || m >= max_pieces {
            return Ok(ChainBound { lb, pieces: m });
        }
        let Some(mut j) = arg else {
            return Ok(ChainBound { lb, pieces: m });
        };
        // The least sequence's pieces, split.
        let mut path = vec![j];
        let mut f = 1;
        for i in (1..n).rev() {
            let (pj, pf) = back[i][f][j];
            if pj == usize::MAX {
                break;
            }
            path.push(pj);
            j = pj;
            f = pf;
        }
        path.sort_unstable();
        path.dedup();
        let mut new_points = Vec::new();
        for &j in &path {
            let (a, b) = (x(lo_id(j), &pairs), x(hi_id(j), &pairs));
            let s = pb.split_point(&a, &b);
            if s > a && s < b {
                new_points.push(s);
            }
        }
        if new_points.is_empty() {
            return Ok(ChainBound { lb, pieces: m });
        }
        for s in new_points {
            pairs.at.push(s);
        }
        order = (0..pairs.at.len()).collect();
        order.sort_by(|&p, &q| pairs.at[p].total_cmp(&pairs.at[q]));
    }
}
