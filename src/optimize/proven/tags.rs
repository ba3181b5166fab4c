//! TAGS's box bounds ([`Problem`]'s methods for TAGS and TAGS-minmax): the monotone pieces
//! and their dynamic programme (`pieces_lb`), the wasted b G(b) over an interval
//! (`waste_lb`), and the mean-value form in the cutoffs themselves (`mean_value_s_lb`).
//! The module docs of [`super`] say what each bound is and why it holds.

use super::{
    combine_sum, key, widest, End, Problem, QUEUEING_LEAST, REMEMBERED, WASTE_PIECES,
    WASTE_REL_BITS,
};
use crate::num::interval::Interval;
use crate::policy::host_term::{weight_order, ChainKind};
use crate::policy::rigorous::enclosed_host;
use crate::policy::PolicyError;
use rug::float::Round;
use rug::Float;

/// [`Problem::mean_value_s_lb`]'s answer: the bound, the gradient for the monotonicity test
/// (no sign where the test is not justified), and the split's ranking per cutoff where a
/// host was held at its bound (empty otherwise: [`super::smear_in_s`] of the gradient).
pub(super) type MeanValueS = (Float, Vec<Interval>, Vec<f64>);

impl Problem<'_> {
    /// [`Problem::pieces_lb`] with each cutoff interval whole (one piece).
    #[cfg(test)]
    pub(super) fn monotone_lb(
        &self,
        cut: &[Interval],
        corner: (End, End),
    ) -> Result<Float, PolicyError> {
        self.pieces_lb(cut, corner, 1)
    }

    /// The TAGS box bound by monotone pieces over a chain of sub-intervals (TAGS and its
    /// queue length): a lower bound of the objective at every ordered cutoff vector of the
    /// box `cut`. Each cutoff interval is cut into up to `pieces` sub-intervals
    /// ([`Problem::cut_pieces`]), each host's term is bounded below on every pair of
    /// pieces (its a's piece, its b's piece) as in the single-piece bound, and the least
    /// sum (largest term for TAGS-minmax) over every choice of one piece per cutoff is
    /// found by a dynamic programme along the chain — n·m² host bounds, where the
    /// single-piece bound evaluates the queueing of neighbouring hosts at opposite ends of
    /// their shared cutoff's interval (host i's b at its lower end, host i+1's a at its
    /// upper end) and so is first-order loose; here the two ends are a piece apart.
    ///
    /// **Why it is a bound.** The pieces of a cutoff cover its interval, so every cutoff
    /// vector s of the box has each s_i in some piece p_i; the objective at s is the sum
    /// (largest) of host terms T_i(s_{i−1}, s_i), each at least its pair's bound
    /// L_i(p_{i−1}, p_i) below; as + and max are non-decreasing in each argument, the
    /// objective at s is at least the combination of L_i along (p_1, …, p_n), which is at
    /// least the least such combination over all piece sequences — what the programme
    /// computes exactly (min over p_i of combine(best up to p_i, L_{i+1}(p_i, p_{i+1}))),
    /// each combination rounded down. A pair whose a-piece lies wholly above its b-piece
    /// (a_lo > b_hi) holds no ordered vector (s_{i−1} ≤ s_i) and is left out (+∞).
    ///
    /// **A host's bound on a pair (a, b)**, host i's term Q(a, b) + b G(b) on
    /// (a, b] = (s_{i−1}, s_i]: its queueing Q(a, b) = G(a) W(a, b) (queue length:
    /// λ P(X > a) W(a, b)) and the wasted b G(b).
    ///
    /// - **Q is monotone in each end** (a ≤ b, every law, atoms included):
    ///   n_k(a, b) = M_k(a, b) + b^k F̄(b) = E[min(X, b)^k; X > a] (k = 1, 2), so
    ///   ∂n_k/∂b = k b^{k−1} F̄(b) ≥ 0 (the density terms b^k f(b) − b^k f(b) cancel) and
    ///   ∂n_k/∂a = −a^k f(a) ≤ 0; W = λ n₂ / (2 (1 − λ n₁)) grows with n₁ (below 1/λ)
    ///   and with n₂, so ∂W/∂b ≥ 0 and ∂W/∂a ≤ 0; the weight G(a) = E[X^{j_w}; X > a]
    ///   (or λ P(X > a)) is ≥ 0 with ∂G/∂a = −a^{j_w} f(a) ≤ 0 and does not depend on b.
    ///   Hence ∂Q/∂a ≤ 0 and ∂Q/∂b ≥ 0: over the pair Q is least at the corner
    ///   (a_hi, b_lo) ([`QUEUEING_LEAST`]), enclosed there as a point. A host unstable
    ///   there (λ n₁ ≥ 1 proven) is unstable on the whole pair (n₁ is least there too): +∞.
    /// - **b G(b)** is not monotone (b grows, G(b) falls; d/db = G(b) − b^{1+j_w} f(b)):
    ///   it depends on b alone and is bounded over b's piece by [`Problem::waste_lb`].
    ///
    /// A pair whose two pieces overlap (a_hi > b_lo ≥ a_lo) keeps the interval evaluation
    /// of its queueing. The shift is added to the sum. `corner` is [`QUEUEING_LEAST`];
    /// another corner (a test's mutation) is not a bound.
    pub(super) fn pieces_lb(
        &self,
        cut: &[Interval],
        corner: (End, End),
        pieces: usize,
    ) -> Result<Float, PolicyError> {
        let bits = self.bits;
        let n = cut.len();
        let lower = Interval::point(crate::dist::enclose::below_support(bits));
        let top = Interval::infinite_at(bits);
        let inf = || Float::with_val(bits, rug::float::Special::Infinity);
        let combine = |x: &Float, y: &Float| -> Float {
            if self.obj.max {
                x.clone().max(y)
            } else {
                Float::with_val_round(bits, x + y, Round::Down).0
            }
        };
        // A host's bound on the pair (a, b).
        let host_lb =
            |i: usize, a: &Interval, b: &Interval| self.host_pair_lb(a, b, i == n, corner);
        let split: Vec<Vec<Interval>> = cut.iter().map(|c| self.cut_pieces(c, pieces)).collect();
        // best[k]: the least combination of hosts 0..=i with s_i in piece k of cut[i].
        let mut best: Vec<Float> = Vec::new();
        for i in 0..=n {
            let b_pieces: Vec<Interval> = if i == n {
                vec![top.clone()]
            } else {
                split[i].clone()
            };
            let mut next = Vec::with_capacity(b_pieces.len());
            for b in &b_pieces {
                if i == 0 {
                    next.push(host_lb(0, &lower, b)?);
                    continue;
                }
                let mut least = inf();
                for (a, up_to) in split[i - 1].iter().zip(&best) {
                    if i < n && a.lo() > b.hi() {
                        continue;
                    }
                    if *up_to >= least {
                        continue;
                    }
                    let v = combine(up_to, &host_lb(i, a, b)?);
                    if v < least {
                        least = v;
                    }
                }
                next.push(least);
            }
            best = next;
        }
        let v = best
            .into_iter()
            .min_by(|x, y| x.total_cmp(y))
            .unwrap_or_else(inf);
        Ok(if self.obj.max {
            v
        } else {
            combine_sum(bits, &v, self.shift.lo())
        })
    }

    /// TAGS-minmax's lower bound of the global minimum from one ordered cutoff vector `c`
    /// (the certified optimum): the least of its host terms at `c`, min_i T_i(c) (its
    /// lower end, the terms enclosed at `c` as points); `None` for every other objective,
    /// or where `c` is not finite and ordered. No box is needed.
    ///
    /// **Why it is a bound.** Each queue-length term T_i(a, b) = λ P(X > a) W(a, b) falls
    /// in a and grows in b over a ≤ b, for every law ([`Problem::pieces_lb`]: n_k(a, b) =
    /// E[min(X, b)^k; X > a]; b = +∞, the top, included, and +∞ where a host is unstable).
    /// Take any ordered s (s_0 = c_0 the bottom of the support, s_h = c_h its top, trailing
    /// cutoffs at +∞ allowed) and the first i ≥ 1 with s_i ≥ c_i (one exists: s_h = c_h).
    /// Then s_{i−1} < c_{i−1} (or i = 1, s_0 = c_0), so T_i(s_{i−1}, s_i) ≥
    /// T_i(c_{i−1}, s_i) ≥ T_i(c_{i−1}, c_i) (a moved down, then b up, both within a ≤ b),
    /// and the objective max_j T_j(s) ≥ T_i(c) ≥ min_j T_j(c). Where `c` equalises the terms
    /// (the minmax optimum of a monotone chain does, to the working precision) the bound
    /// lies within their spread of the value at `c`, whatever the number of hosts.
    pub(super) fn equal_terms_lb(&self, c: &[Float]) -> Result<Option<Float>, PolicyError> {
        if !self.obj.max || self.obj.kind != ChainKind::TagsQueueLength {
            return Ok(None);
        }
        if !c.iter().all(Float::is_finite) || !c.windows(2).all(|w| w[0] <= w[1]) {
            return Ok(None);
        }
        Ok(self
            .terms_at(c)?
            .iter()
            .map(|t| t.lo().clone())
            .min_by(|x, y| x.total_cmp(y)))
    }

    /// A TAGS host's lower bound over every (a, b) of the pair `a` × `b` (host i's term on
    /// (a, b] = (s_{i−1}, s_i], `last` where b is the support's top): its queueing at the
    /// corner `corner` ([`QUEUEING_LEAST`]: the queueing falls in a and grows in b,
    /// [`Problem::pieces_lb`]), enclosed there as a point, plus the wasted b G(b) bounded
    /// over b's interval ([`Problem::waste_lb`]); +∞ where the host is proven unstable
    /// there. A pair whose intervals overlap (a's upper end above b's lower end) keeps the
    /// interval evaluation of its queueing. At least 0 (every term is).
    pub(super) fn host_pair_lb(
        &self,
        a: &Interval,
        b: &Interval,
        last: bool,
        corner: (End, End),
    ) -> Result<Float, PolicyError> {
        let bits = self.bits;
        let (qa, qb) = if a.hi() <= b.lo() {
            (corner.0.of(a), corner.1.of(b))
        } else {
            (a.clone(), b.clone())
        };
        let host = enclosed_host(
            self.obj.kind,
            self.enc,
            &self.lambda,
            (&qa, &qb, last),
            self.obj.metric,
        )?;
        if !host.stable() {
            return Ok(Float::with_val(bits, rug::float::Special::Infinity));
        }
        let mut q = host.queueing.lo().clone();
        if !last && self.obj.kind.counts_waste() {
            q = combine_sum(bits, &q, &self.waste_lb(b)?);
        }
        // A host's term is ≥ 0 (G ≥ 0, W ≥ 0 when stable, b ≥ 0): 0 is a bound too,
        // and with it a partial combination never falls along the chain (the
        // programme skips a piece whose combination so far is already not below the
        // least found).
        Ok(q.max(&Float::new(bits)))
    }

    /// The cutoff interval `c` cut into up to `m` pieces that cover it (a point stays
    /// whole): the widest piece (relative) is split at its [`Problem::split_point`] until
    /// there are `m`.
    pub(super) fn cut_pieces(&self, c: &Interval, m: usize) -> Vec<Interval> {
        let mut out = vec![c.clone()];
        if c.is_point() {
            return out;
        }
        while out.len() < m {
            let Some(i) = widest(&out, |c| self.mass(c), self.bits) else {
                break;
            };
            let (lo, hi) = (out[i].lo().clone(), out[i].hi().clone());
            let x = self.split_point(&lo, &hi);
            if !(x > lo && x < hi) {
                break;
            }
            out[i] = Interval::new(lo, x.clone());
            out.insert(i + 1, Interval::new(x, hi));
        }
        out
    }

    /// A lower bound of b G(b) over every b of the interval `b` (G(b) = E[X^{j_w}; X > b],
    /// TAGS's wasted service), by bisection of the interval into pieces: on a piece
    /// [x₁, x₂] (x₁ ≥ 0) b G(b) ≥ x₁ G(x₂), as b ≥ x₁ ≥ 0 and G(b) ≥ G(x₂) ≥ 0 (G
    /// falls); where the law's density is enclosed over the piece and the derivative
    /// G(b) − b^{1+j_w} f(b) has a proven sign, b G(b) is monotone on it and its least
    /// value is at x₁ (sign ≥ 0) or x₂ (sign ≤ 0), enclosed there as a point. The piece
    /// of least bound is split until the bound is within 2^−[`WASTE_REL_BITS`] of the
    /// least value met at a point or [`WASTE_PIECES`] pieces; the bound is the least of
    /// the pieces' bounds. Remembered per interval.
    pub(super) fn waste_lb(&self, b: &Interval) -> Result<Float, PolicyError> {
        let bits = self.bits;
        let jw = weight_order(self.obj.metric);
        let top = Interval::infinite_at(bits);
        let g = |x: &Interval| {
            self.enc
                .partial_moment(jw, x, &top)
                .map_err(|e| PolicyError::Dist(e).for_metric(self.obj.metric))
        };
        if b.is_point() || *b.lo() < 0 {
            return Ok(b.mul(&g(b)?).lo().clone());
        }
        let k = (key(b.lo()), key(b.hi()));
        if let Ok(memo) = self.waste.lock() {
            if let Some(v) = memo.get(&k) {
                return Ok(v.clone());
            }
        }
        // b G(b) at a point x: its enclosure (upper end: a value b G(b) reaches).
        let at = |x: &Float| -> Result<Interval, PolicyError> {
            let p = Interval::point(x.clone());
            Ok(p.mul(&g(&p)?))
        };
        let piece_lb = |x1: &Float, x2: &Float| -> Result<Float, PolicyError> {
            let piece = Interval::new(x1.clone(), x2.clone());
            if let Some(f) = self.enc.density(&piece) {
                let slope = g(&piece)?.sub(&piece.powi(1 + jw).mul(&f));
                if *slope.lo() >= 0 && x1.is_finite() {
                    return Ok(at(x1)?.lo().clone());
                }
                if *slope.hi() <= 0 && x2.is_finite() {
                    return Ok(at(x2)?.lo().clone());
                }
            }
            let gx2 = g(&Interval::point(x2.clone()))?;
            Ok(Interval::point(x1.clone()).mul(&gx2).lo().clone())
        };
        let mut least = Float::with_val(bits, rug::float::Special::Infinity);
        for x in [b.lo(), b.hi()] {
            if x.is_finite() {
                least = least.min(at(x)?.hi());
            }
        }
        let mut pieces = vec![(b.lo().clone(), b.hi().clone(), piece_lb(b.lo(), b.hi())?)];
        while pieces.len() < WASTE_PIECES {
            let Some((i, _)) = pieces
                .iter()
                .enumerate()
                .min_by(|x, y| x.1 .2.total_cmp(&y.1 .2))
            else {
                break;
            };
            let lb = &pieces[i].2;
            let slack = Float::with_val(bits, least.abs_ref()) >> WASTE_REL_BITS;
            if Float::with_val(bits, lb + &slack) >= least {
                break;
            }
            let (x1, x2, _) = pieces.swap_remove(i);
            let m = self.split_point(&x1, &x2);
            if !(m > x1 && m < x2) {
                pieces.push((x1.clone(), x2.clone(), piece_lb(&x1, &x2)?));
                break;
            }
            if m.is_finite() {
                least = least.min(at(&m)?.hi());
            }
            let left = piece_lb(&x1, &m)?;
            let right = piece_lb(&m, &x2)?;
            pieces.push((x1, m.clone(), left));
            pieces.push((m, x2, right));
        }
        let lb = pieces
            .iter()
            .map(|p| p.2.clone())
            .min_by(|x, y| x.total_cmp(y))
            .unwrap_or_else(|| Float::with_val(bits, 0));
        if let Ok(mut memo) = self.waste.lock() {
            if memo.len() > REMEMBERED {
                memo.clear();
            }
            memo.insert(k, lb.clone());
        }
        Ok(lb)
    }

    /// The mean-value form in the cutoffs themselves, for TAGS and its queue length (whose
    /// wasted b G(b) has no density-free derivative in u): with the law's density f
    /// enclosed over each cutoff interval ([`crate::dist::Enclosure::density`]; `None` without one),
    /// each host term's partial derivatives are enclosed over the box by the chain rule of
    /// [`crate::policy::host_term::host_grad`] — ∂n₁/∂b = F̄(b), ∂n₂/∂b = 2b F̄(b),
    /// ∂M_j/∂a = −a^j f(a), ∂G(x)/∂x = −x^{j_w} f(x), ∂W/∂x = λ n₂'/(2(1 − ρ)) +
    /// W λ n₁'/(1 − ρ) — and T_i(s) ∈ T_i(c) + Σ_k ∂T_i/∂s_k (s_k − c_k) for every s of the
    /// box (the terms are Lipschitz where f is bounded: mean-value theorem along the
    /// segment from c to s, the box's cutoff intervals ordered). The lower bound is the
    /// sum of these (and the shift), or their largest for TAGS-minmax; the gradient
    /// returned (for the monotonicity test) is the sum's, empty for the largest. `None`
    /// where a host's load may reach 1 over the box or the form is not finite.
    ///
    /// **A cutoff interval without an enclosed density** (Weibull with shape below 1 over
    /// an interval meeting 0, where f is unbounded) for a continuous law
    /// ([`crate::dist::Enclosure::continuous`]). Every slope in s_k above is f(s_k) times
    /// a factor D_k that is bounded over the box (−a^{j_w} W − G (a, a²)-weighted terms on
    /// the a side, −b^{1+j_w} from the waste on the b side) plus a bounded part B_k. Along
    /// the segment from c to s, ∫ f(γ_k) D_k(γ) dγ_k = D̃ (F(s_k) − F(c_k)) for some D̃ in
    /// the hull of D_k over the box (f ≥ 0: the mean-value theorem for integrals), so the
    /// form takes D_k ΔF_k + B_k Δ_k with ΔF_k = F̄(c_k) − F̄(s_k) enclosed from the tails
    /// and no density. The two intervals meet independently, so that cutoff's part is
    /// first-order in its width (in mass and in s): it closes where the interval is narrow
    /// in F, near 0. Its gradient has no sign for the monotonicity test. TAGS's response
    /// at Weibull(0.7, mean 1), total load 0.153, 3 hosts, whose boxes on host 1 idle
    /// (s_1 ∈ [0, 2·10⁻¹¹]) held the gap open, since no bound of this form reached them.
    ///
    /// **Cutoffs whose interval reaches +∞** (where the optimum lets trailing hosts idle,
    /// the box of the last cutoff is [X, +∞) and no Δ is finite) are held by monotonicity
    /// instead, and the form stays second-order in the other cutoffs: such intervals are
    /// the last ones of an ordered box (an upper end +∞ passes to every later cutoff).
    /// The host whose b lies in [X, +∞) (and a in a finite interval below X) has the
    /// queueing Q(a, b) ≥ Q(a, X) (Q grows in b: [`Problem::pieces_lb`]), and
    /// Q(a, X) ∈ Q(c_a, X) + ∂Q/∂a(a's interval, X) (a − c_a) by the mean-value theorem
    /// in a alone; its wasted b G(b) is bounded over [X, +∞) by [`Problem::waste_lb`]. A
    /// host whose a lies in [X, +∞) has Q(a, b) ≥ 0 (Q falls in a, and vanishes as
    /// a → +∞), so only its waste's bound remains. The bound lost against b = +∞ is
    /// Q(c_a, +∞) − Q(c_a, X), of the order of the law's mass beyond X times X²: the
    /// branch and bound shrinks it by splitting [X, +∞) by mass ([`widest`]). A host whose
    /// a-interval reaches above X (overlapping intervals) is held at Q ≥ 0 too (Q(a, X)
    /// needs a ≤ X).
    ///
    /// **Overlapping intervals** (s_{i−1} and s_i may be equal: a host on a ridge of
    /// the objective, e.g. near-empty leading hosts, s_1 ≈ s_2 ≈ 0, where the optimum
    /// lets hosts idle). The bound is claimed over the box's ordered vectors only, which
    /// form a convex set; the centre is ordered ([`Problem::bound_once`]), so the segment
    /// from it to any ordered vector stays among ordered vectors, where every term is the
    /// smooth signed-integral form whose derivatives the chain rule above encloses (the
    /// moments' enclosures over the intervals contain their values at ordered vectors).
    /// The gradient returned for the monotonicity test has no sign in a cutoff where
    /// that test is not justified (see the end of the function).
    pub(super) fn mean_value_s_lb(
        &self,
        cut: &[Interval],
        centre: &[Float],
        centre_terms: &[Interval],
    ) -> Result<Option<MeanValueS>, PolicyError> {
        let bits = self.bits;
        let n = cut.len();
        let lam = &self.lambda;
        let queue_length = self.obj.kind == ChainKind::TagsQueueLength;
        let jw = weight_order(self.obj.metric);
        let lower = Interval::point(crate::dist::enclose::below_support(bits));
        let top = Interval::infinite_at(bits);
        let one = Interval::int(bits, 1);
        let moment = |j: i32, a: &Interval, b: &Interval| {
            self.enc
                .partial_moment(j, a, b)
                .map_err(|e| PolicyError::Dist(e).for_metric(self.obj.metric))
        };
        // A frozen interval (reaching +∞) needs no density: no derivative is taken there.
        let dens: Vec<Option<Interval>> = cut
            .iter()
            .map(|c| {
                if c.hi().is_finite() {
                    self.enc.density(c)
                } else {
                    Some(Interval::zero_at(bits))
                }
            })
            .collect();
        // A cutoff interval without an enclosed density (Weibull with shape below 1, whose
        // density is unbounded at 0, over an interval that meets 0): where the law is
        // continuous, every slope in that cutoff is f(s_k) times a bounded factor (kept in
        // `fpart[k]`) plus a bounded part (kept in `grad[k]`), and the first meets
        // ΔF_k = F(s_k) − F(c_k) instead of f Δ_k (see the function's docs).
        if dens.iter().any(Option::is_none) && !self.enc.continuous() {
            return Ok(None);
        }
        let delta_f: Vec<Option<Interval>> = cut
            .iter()
            .zip(centre)
            .zip(&dens)
            .map(|((c, x), f)| match f {
                Some(_) => Ok(None),
                None => {
                    let at_centre = self.enc.tail(&Interval::point(x.clone()))?;
                    Ok(Some(at_centre.sub(&self.enc.tail(c)?)))
                }
            })
            .collect::<Result<_, crate::dist::DistError>>()
            .map_err(|e| PolicyError::Dist(e).for_metric(self.obj.metric))?;
        let mut fpart = vec![Interval::zero_at(bits); n];
        let delta: Vec<Interval> = cut
            .iter()
            .zip(centre)
            .map(|(c, x)| c.sub(&Interval::point(x.clone())))
            .collect();
        // A cutoff interval reaching +∞ (the last cutoffs of a box that lets trailing
        // hosts idle; ordered boxes put them last) has no finite Δ: it is held at its
        // lower end X by monotonicity instead (see the function's docs).
        let frozen: Vec<bool> = cut.iter().map(|c| !c.hi().is_finite()).collect();
        let mut grad = vec![Interval::zero_at(bits); n];
        // Whether grad[k] encloses ∂J/∂s_k over the box (not where a host's bound is held).
        let mut exact_slope: Vec<bool> = frozen.iter().map(|&f| !f).collect();
        // Hosts are held only on boxes of disjoint intervals (below); whether one was.
        let disjoint = super::ordered(cut);
        let mut held = false;
        let mut bounds = Vec::with_capacity(n + 1);
        // Each host's value at the centre (or its held bound), without the Δ terms.
        let mut bases = Vec::with_capacity(n + 1);
        for i in 0..=n {
            let a = if i == 0 { &lower } else { &cut[i - 1] };
            let a_frozen = i > 0 && frozen[i - 1];
            let b_frozen = i < n && frozen[i];
            let waste = if i < n && !queue_length && (a_frozen || b_frozen) {
                self.waste_lb(&cut[i])?
            } else {
                Float::new(bits)
            };
            // b held at X needs a ≤ X at every point of the box: an a-interval reaching
            // above X (the box's intervals overlap) is held like a frozen a.
            let a_above = b_frozen && i > 0 && cut[i - 1].hi() > cut[i].lo();
            if i > 0 && (a_frozen || a_above || b_frozen) {
                // Host i's bound is not its term as a function of s_{i−1} (held, or taken
                // at b = X): grad[i − 1] is no slope of the objective.
                exact_slope[i - 1] = false;
            }
            if a_frozen || a_above {
                // a ≥ X_a, b ≥ a: Q(a, b) ≥ 0 and the waste alone remains.
                let inf = Float::with_val(bits, rug::float::Special::Infinity);
                let held = Interval::new(waste.max(&Float::new(bits)), inf);
                bounds.push(held.clone());
                bases.push(held);
                continue;
            }
            let b_held = cut.get(i).map(Interval::lo_point);
            let b = if i == n {
                &top
            } else if b_frozen {
                b_held.as_ref().unwrap_or(&top)
            } else {
                &cut[i]
            };
            let killed = if i == n {
                None
            } else {
                let tail = self.enc.tail(b)?;
                let b_tail = b.mul(&tail);
                Some((tail, b_tail))
            };
            let m1 = moment(1, a, b)?;
            let n1 = match &killed {
                Some((_, bt)) => m1.add(bt),
                None => m1,
            };
            let rho = lam.mul(&n1);
            if *rho.hi() >= 1 && !disjoint {
                return Ok(None);
            }
            if *rho.hi() >= 1 {
                // A host that may be unstable on the box (its load reaches 1 there) has no
                // slope: its term is held at its corner bound ([`Problem::host_pair_lb`],
                // +∞ where it is proven unstable on the whole box) and the form covers the
                // others' sum, which is smooth on the box (each of them stable on all of
                // it). The objective is at least that sum's form plus the held bound.
                // Before 2026-12-06 the whole form gave up here, and so did the split's
                // ranking: TAGS's slowdown at BP(1, 10^1000, 1), 8 hosts, whose last three
                // hosts sit within 10^−5 of load 1, was bounded at first order only. Only
                // on a box of disjoint intervals: on overlapping ones the held hosts'
                // corner bounds are near 0 and the ranking below kept splitting a cutoff
                // that does not order the box (that row: 4.35e−4 after 200 000 boxes,
                // against 4.05e5 with the widest split).
                let b_whole = cut.get(i).unwrap_or(&top);
                let lb = self.host_pair_lb(a, b_whole, i == n, QUEUEING_LEAST)?;
                if !lb.is_finite() {
                    return Ok(None);
                }
                if i > 0 {
                    exact_slope[i - 1] = false;
                }
                if i < n {
                    exact_slope[i] = false;
                }
                held = true;
                let inf = Float::with_val(bits, rug::float::Special::Infinity);
                let h = Interval::new(lb, inf);
                bounds.push(h.clone());
                bases.push(h);
                continue;
            }
            let one_m = one.sub(&rho);
            let m2 = moment(2, a, b)?;
            let n2 = match &killed {
                Some((_, bt)) => m2.add(&b.mul(bt)),
                None => m2,
            };
            let wait = lam.mul(&n2).mul_2exp(-1).div(&one_m);
            let w = if queue_length {
                lam.mul(&moment(0, a, &top)?)
            } else {
                moment(jw, a, &top)?
            };
            let wl = wait.mul(lam);
            let qx = |n1x: &Interval, n2x: &Interval| {
                lam.mul(n2x)
                    .mul_2exp(-1)
                    .div(&one_m)
                    .add(&wl.mul(n1x).div(&one_m))
            };
            let mut v = if b_frozen {
                // Q(c_a, X) + the waste's bound over b's whole interval [X, +∞).
                let a_c = if i == 0 {
                    lower.clone()
                } else {
                    Interval::point(centre[i - 1].clone())
                };
                let host = enclosed_host(
                    self.obj.kind,
                    self.enc,
                    lam,
                    (&a_c, b, false),
                    self.obj.metric,
                )?;
                if !host.stable() {
                    return Ok(None);
                }
                host.queueing.add(&Interval::point(waste))
            } else {
                centre_terms[i].clone()
            };
            bases.push(v.clone());
            if i > 0 {
                match (&dens[i - 1], &delta_f[i - 1]) {
                    (Some(f), _) => {
                        let n1a = a.mul(f).neg();
                        let n2a = a.square().mul(f).neg();
                        let gaa = if queue_length {
                            lam.mul(f).neg()
                        } else {
                            a.powi(jw).mul(f).neg()
                        };
                        let da = gaa.mul(&wait).add(&w.mul(&qx(&n1a, &n2a)));
                        v = v.add(&da.mul(&delta[i - 1]));
                        grad[i - 1] = grad[i - 1].add(&da);
                    }
                    (None, Some(df)) => {
                        // The same slope with the density factored out: every term above
                        // is f(a) times this.
                        let ga = if queue_length {
                            lam.neg()
                        } else {
                            a.powi(jw).neg()
                        };
                        let coef = ga.mul(&wait).add(&w.mul(&qx(&a.neg(), &a.square().neg())));
                        v = v.add(&coef.mul(df));
                        fpart[i - 1] = fpart[i - 1].add(&coef);
                    }
                    (None, None) => return Ok(None),
                }
            }
            if let (Some((tail, bt)), false) = (&killed, b_frozen) {
                let mut db = w.mul(&qx(tail, &bt.mul_2exp(1)));
                match (&dens[i], &delta_f[i]) {
                    (Some(f), _) => {
                        if !queue_length {
                            let g_b = moment(jw, b, &top)?;
                            let gbb = b.powi(jw).mul(f).neg();
                            db = db.add(&g_b).add(&b.mul(&gbb));
                        }
                    }
                    (None, Some(df)) => {
                        // The waste's slope G(b) − b^(1+j_w) f(b): its density part
                        // meets ΔF.
                        if !queue_length {
                            db = db.add(&moment(jw, b, &top)?);
                            let coef = b.powi(1 + jw).neg();
                            v = v.add(&coef.mul(df));
                            fpart[i] = fpart[i].add(&coef);
                        }
                    }
                    (None, None) => return Ok(None),
                }
                v = v.add(&db.mul(&delta[i]));
                grad[i] = grad[i].add(&db);
            }
            bounds.push(v);
        }
        let v = if self.obj.max {
            self.fold(bounds)
        } else {
            // The sum: each cutoff's slopes added before they meet its Δ (the hosts on
            // either side of a cutoff have large slopes of opposite signs there, whose
            // sum, the objective's slope, is small near the optimum), which keeps the
            // form second-order; host by host it would be first-order in the widths.
            let mut v = self.fold(bases);
            for (k, g) in grad.iter().enumerate() {
                if !frozen[k] {
                    v = v.add(&g.mul(&delta[k]));
                }
                if let Some(df) = &delta_f[k] {
                    v = v.add(&fpart[k].mul(df));
                }
            }
            v
        };
        let lo = v.lo().clone();
        if !lo.is_finite() {
            return Ok(None);
        }
        if self.obj.max || delta_f.iter().any(Option::is_some) {
            // The bound only. A cutoff without a density has no slope to rank or test
            // (grad[k] is only its bounded part), and the split keeps the order it had
            // without the form (the widest interval). With the other cutoffs' slopes ranked
            // beside it, TAGS's response at Weibull(0.3, mean 1), total load 1.6, 4 hosts,
            // split s_1 towards 0 down to 10⁻⁷⁵⁰ and stopped at 0 digits in 20 000 boxes,
            // where it closes in 1 269 without.
            return Ok(Some((lo, Vec::new(), Vec::new())));
        }
        // The split's ranking where a host is held: the widest interval (in ln s), but not
        // a cutoff whose hosts on both sides weigh less than 2^−bits of the value at the
        // centre (splitting it would refine terms below the working precision): TAGS's
        // slowdown at BP(1, 10^1000, 1), 8 hosts, s_7 between hosts 7 and 8, whose terms
        // weigh about 10^−234 and less.
        let rank = if !held {
            Vec::new()
        } else {
            let value = Float::with_val(64, self.fold(centre_terms.to_vec()).hi());
            let least = if value.is_finite() && value > 0 {
                value.ln().to_f64() - f64::from(bits) * std::f64::consts::LN_2
            } else {
                f64::NEG_INFINITY
            };
            // A host whose term at the centre is below that (held or not: only the
            // ranking reads it, never the bound).
            let negligible = |i: usize| {
                let t = Float::with_val(64, centre_terms[i].hi());
                t.is_finite() && (t <= 0 || t.ln().to_f64() < least)
            };
            cut.iter()
                .enumerate()
                .map(|(k, c)| {
                    if c.is_point() || (negligible(k) && negligible(k + 1)) {
                        f64::NEG_INFINITY
                    } else {
                        super::relative_width(c)
                    }
                })
                .collect()
        };
        // The monotonicity test moves s_k to its lower end where the slope is positive
        // (to its upper end where negative); the gradient returned has no sign where that
        // is not justified: where grad[k] is not the objective's slope (a cutoff held at
        // X, or a neighbouring host's bound held), and where the move could leave the
        // ordered vectors (an interval overlapping the one below, for a move down, or the
        // one above, for a move up: the least of the ordered vectors may then sit at
        // s_k = s_{k∓1}).
        let zero = Interval::zero_at(bits);
        for k in 0..n {
            let down_ok = k == 0 || cut[k - 1].hi() <= cut[k].lo();
            let up_ok = k + 1 == n || cut[k].hi() <= cut[k + 1].lo();
            if !exact_slope[k] || (*grad[k].lo() > 0 && !down_ok) || (*grad[k].hi() < 0 && !up_ok) {
                grad[k] = zero.clone();
            }
        }
        Ok(Some((lo, grad, rank)))
    }
}
