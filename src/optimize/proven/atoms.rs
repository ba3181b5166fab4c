//! The exact global minimum of a discrete law (the empirical law of a sample file): its
//! cutoffs matter only through the atoms they pass, so the minimum over every cutoff vector
//! is a minimum over finitely many choices, found by a dynamic programme along the chain of
//! hosts over the atoms' slots, every host term enclosed ([`Problem::atom_programme`]).
//!
//! **Why it is the minimum.** With atoms x_1 < … < x_m, a cutoff s lies in a slot: below x_1
//! (slot 0) or in [x_k, x_{k+1}) (slot k; x_{m+1} = +∞). Host i's term on (a, b] reads a
//! only through the event {X > a}, which is the same for every a of a slot, and reads b
//! through the atoms up to b (the same in a slot) and, for TAGS, through b itself in
//! b^j F̄(b) and b G(b), which grow with b while F̄(b) and G(b) stay fixed in the slot. So
//! every term at a cutoff vector is at least its value with each cutoff moved down to its
//! slot's lower end (x_k; slot 0: the least cutoff allowed), exactly equal for SITA, and the
//! moved vector is still ordered. Hence the global minimum of the sum (the largest term for
//! TAGS-minmax) is the least over non-decreasing slot sequences of the terms at the slots'
//! lower ends — what the programme computes, each term enclosed (counts of atoms by a point
//! r_k in [x_k, x_{k+1}) so that the moments are exact sums, the value b = x_k enclosed), the
//! lower ends combined with rounding down. The path that attains it, at the atoms
//! themselves, is a cutoff vector whose value the upper ends enclose: the two ends bound the
//! global minimum, and their gap is only the enclosures' width.
//!
//! Before it, SITA on an empirical law with atoms 1, 2, 2, 5, 10, 40, 3 hosts, load 0.5,
//! proved no digit (the branch and bound's natural bound over a box whose cutoff straddles
//! an atom drops the atom from both of its hosts, so a box around the optimum never closes:
//! "a box cannot be split at the working precision" after 529 boxes), and TAGS-minmax 4
//! digits in 20 000 boxes (2026-12-05).

use super::{Objective, Problem, GAP_EXTRA_DIGITS, MAX_BOXES, RIGOROUS_GUARD_BITS, TERMS_PER_BOX};
use crate::dist::enclose::{below_support, Atom, Enclosure};
use crate::num::interval::Interval;
use crate::num::working_bits;
use crate::optimize::OptPolicy;
use crate::policy::host_term::{host, weight_order, Host, HostInputs, KillPoint, Parts};
use crate::policy::LoadSpec;
use crate::policy::{Metric, PolicyError};
use rug::float::{Round, Special};
use rug::ops::Pow;
use rug::Float;
use std::collections::HashSet;

/// A host's inputs with its cutoffs at slots: a at the point `a` (a slot's representative,
/// or below the support), b at the representative `rep` with the value `at` (TAGS's b), or
/// the top (`None`).
struct SlotInputs<'a> {
    enc: &'a dyn Enclosure,
    metric: Metric,
    a: &'a Float,
    b: Option<(&'a Float, &'a Interval)>,
    top: Float,
}

impl SlotInputs<'_> {
    fn moment(&self, j: i32, a: &Float, b: &Float) -> Result<Interval, PolicyError> {
        if a >= b {
            return Ok(Interval::zero_at(self.enc.prec()));
        }
        self.enc
            .moment_at(j, a, b)
            .map_err(|e| PolicyError::Dist(e).for_metric(self.metric))
    }
    fn b_rep(&self) -> &Float {
        self.b.map_or(&self.top, |(r, _)| r)
    }
}

impl HostInputs for SlotInputs<'_> {
    type R = Interval;
    type Error = PolicyError;
    fn m1(&self) -> Result<Interval, PolicyError> {
        self.moment(1, self.a, self.b_rep())
    }
    fn m2(&self) -> Result<Interval, PolicyError> {
        self.moment(2, self.a, self.b_rep())
    }
    fn interval_weight(&self) -> Result<Interval, PolicyError> {
        self.moment(weight_order(self.metric), self.a, self.b_rep())
    }
    fn killed_at_b(&self) -> Result<Option<KillPoint<'_, Interval>>, PolicyError> {
        let Some((rep, at)) = self.b else {
            return Ok(None);
        };
        let tail = self
            .enc
            .tail_at(rep)
            .map_err(|e| PolicyError::Dist(e).for_metric(self.metric))?;
        Ok(Some(KillPoint { b: at, tail }))
    }
    fn weight_above_a(&self) -> Result<Interval, PolicyError> {
        self.moment(weight_order(self.metric), self.a, &self.top)
    }
    fn mass_above_a(&self) -> Result<Interval, PolicyError> {
        self.moment(0, self.a, &self.top)
    }
    fn weight_above_b(&self) -> Result<Interval, PolicyError> {
        self.moment(weight_order(self.metric), self.b_rep(), &self.top)
    }
}

/// What the atom programme proved.
#[derive(Debug, Clone)]
pub(super) struct AtomOptimum {
    /// A proven lower bound of the objective's global minimum (shift included).
    pub value_lo: Float,
    /// The best cutoff vector the programme met, at atoms: its slots, one per cutoff (0:
    /// below the least atom, k ≥ 1: the atom x_k), and the objective there enclosed (shift
    /// included). Where the programme closed, it attains the bound.
    pub path: Option<(Vec<usize>, Interval)>,
    /// The atoms (index k − 1 for slot k).
    pub atoms: Vec<Atom>,
    /// Host terms enclosed.
    pub evals: usize,
}

/// The ranges the slots 0..=m start in, at most this many (then halved where kept).
const FIRST_RANGES: usize = 64;

/// A range of consecutive slots [lo, hi].
type Range = (usize, usize);

/// The first host's a: the support's bottom, slot 0 alone.
const BOTTOM: Range = (0, 0);

/// Whether the pair (a, b) is among the `allowed` (every pair where `None`).
fn may(allowed: &Option<HashSet<(Range, Range)>>, a: Range, b: Range) -> bool {
    allowed.as_ref().is_none_or(|set| set.contains(&(a, b)))
}

/// Host terms the certified optimiser's atom start may take (a quarter of the default
/// `--max-boxes` at [`TERMS_PER_BOX`]): 5 000 lognormal sizes close within it at 8 hosts
/// (SITA 244 466 terms, 1.8 s); 50 000 at 8 hosts stop after about 3 s with a better point
/// than the grid's.
const ATOM_START_TERMS: usize = MAX_BOXES * TERMS_PER_BOX / 4;

/// For a law whose every size is an atom: the busy cutoffs of the best cutoff vector the
/// atom programme ([`Problem::atom_programme`]) meets, at atoms, at the rigorous precision of `digits` on up
/// to [`ATOM_START_TERMS`] host terms, its cut starting at `start`'s value (free cutoffs,
/// idle hosts left out): the minimum over every cutoff vector where it closes, a good point
/// where it does not, with what it proved ([`crate::optimize::AtomBound`]: whether it closed, to
/// 10^−(`digits` + [`GAP_EXTRA_DIGITS`]) of the value, its lower bound and its terms). `None` for any other law, for TAGS-minmax and SITA-E
/// (not a search), or where its path leaves a host empty below a busy one. The certified
/// optimiser takes it as one more start: its grid search alone missed the minimum over
/// 5 000 lognormal sizes by 0.8 % at 3 hosts (TAGS, load 0.5), and over 50 000 at 8 hosts
/// (SITA) printed 0.112663 where the programme, without closing, met 0.112451 (2026-12-05).
pub(crate) fn atom_minimiser(
    dist: &dyn crate::dist::DistFactory,
    load: &LoadSpec,
    hosts: usize,
    policy: OptPolicy,
    metric: Metric,
    digits: u32,
    start: Option<&[Float]>,
) -> Option<(Vec<Float>, crate::optimize::AtomBound)> {
    if hosts < 2 || !matches!(policy, OptPolicy::Sita | OptPolicy::Tags) {
        return None;
    }
    let obj = Objective::of(policy, metric).ok()?;
    let bits = working_bits(digits) + RIGOROUS_GUARD_BITS;
    let enc = dist.enclose(bits).ok()?;
    let m = enc.atoms()?.len();
    let law = dist.build(bits).ok()?;
    let (lambda, _) = load.resolve_enclosed_at(None, enc.as_ref(), hosts).ok()?;
    let pb = Problem::new(obj, enc.as_ref(), law.as_ref(), lambda).ok()?;
    let inf = Float::with_val(bits, rug::float::Special::Infinity);
    let best_hi = start
        .and_then(|c| {
            let cut: Vec<Interval> = c
                .iter()
                .map(|x| Interval::point(Float::with_val(bits, x)))
                .collect();
            pb.value(&cut).ok()
        })
        .map_or(inf, |v| v.hi().clone());
    let a = pb
        .atom_programme(hosts, &best_hi, ATOM_START_TERMS)
        .ok()??;
    let (slots, value) = a.path.as_ref()?;
    let gap = Float::with_val_round(bits, value.hi() - &a.value_lo, Round::Up).0;
    let target = Float::with_val(bits, value.hi().abs_ref())
        * Float::with_val(bits, 10u32).pow(-i32::try_from(digits + GAP_EXTRA_DIGITS).ok()?);
    let closed = gap <= target;
    // Slot m (the largest atom) leaves the hosts above idle; slot 0 or a repeated slot
    // would leave a host empty below a busy one.
    let busy: Vec<usize> = slots.iter().copied().take_while(|&k| k < m).collect();
    if busy.first() == Some(&0) || busy.windows(2).any(|w| w[0] >= w[1]) {
        return None;
    }
    Some((
        busy.iter().map(|&k| a.atoms[k - 1].rep.clone()).collect(),
        crate::optimize::AtomBound {
            closed,
            value_lo: a.value_lo.clone(),
            terms: a.evals,
        },
    ))
}

impl Problem<'_> {
    /// The global minimum over the atoms' slots (module docs) for a law whose
    /// [`Enclosure::atoms`] are known, `hosts` ≥ 2, on at most `budget` host terms, ranges
    /// whose bound is at least `best_hi` (a value the objective is known to reach) dropped;
    /// `None` for any other law.
    pub(super) fn atom_programme(
        &self,
        hosts: usize,
        best_hi: &Float,
        budget: usize,
    ) -> Result<Option<AtomOptimum>, PolicyError> {
        self.slot_programme(hosts, best_hi, budget, false)
    }

    /// [`Problem::atom_programme`]; `snap_up` is a test's mutation: TAGS's b at its slot's
    /// upper end (the next atom) rather than its lower one, not a bound.
    ///
    /// **Ranges.** With many atoms the slots are taken in ranges of consecutive slots, one
    /// partition shared by every cutoff. A host whose a lies in range A and b in range B is
    /// bounded below by its term with a at A's highest slot and b at B's lowest (each term
    /// falls in a and grows in b: the fewest jobs, [`Problem::pieces_lb`]); TAGS's waste
    /// b G(b), which is not monotone across atoms, by its least over B's slots. A dynamic
    /// programme along the chain gives each range of each cutoff, and each pair of ranges of
    /// neighbouring cutoffs, the least bound of a path through it; one whose bound is at
    /// least `cut` holds no better point and is dropped with its halves, the others are
    /// halved, until every range kept is one slot, where the bound is the terms at the atoms
    /// themselves and the programme is the exact minimum over the paths kept. Each round the
    /// least path, with each cutoff at its range's lowest atom, is a cutoff vector whose
    /// value lowers the cut.
    fn slot_programme(
        &self,
        hosts: usize,
        best_hi: &Float,
        budget: usize,
        snap_up: bool,
    ) -> Result<Option<AtomOptimum>, PolicyError> {
        let Some(atoms) = self.enc.atoms() else {
            return Ok(None);
        };
        let m = atoms.len();
        if hosts < 2 || m == 0 {
            return Ok(None);
        }
        let bits = self.bits;
        let below = below_support(bits);
        let inf = Float::with_val(bits, Special::Infinity);
        // Slot 0: counts below the least atom, b at the least cutoff allowed.
        let least = Interval::point(self.enc.lower().lo().clone());
        let rep = |k: usize| -> &Float {
            if k == 0 {
                &below
            } else {
                &atoms[k - 1].rep
            }
        };
        let at = |k: usize| -> &Interval {
            let k = if snap_up { (k + 1).min(m) } else { k };
            if k == 0 {
                &least
            } else {
                &atoms[k - 1].value
            }
        };
        let waste = self.obj.kind.counts_waste();
        let jw = weight_order(self.obj.metric);
        let evals = std::cell::Cell::new(0usize);
        // The host's term (queueing only where `waste`) with a at slot a, b at slot b (or
        // the top), enclosed.
        let term = |a: usize, b: Option<usize>| -> Result<Interval, PolicyError> {
            evals.set(evals.get() + 1);
            let h = self.slot_host(rep(a), b.map(|k| (rep(k), at(k))))?;
            Ok(if waste && h.stable() {
                h.queueing
            } else {
                h.term()
            })
        };
        // TAGS's waste b G(b) at each slot's b (lower ends), for the ranges' least.
        let wasted: Vec<Float> = if waste {
            (0..=m)
                .map(|k| {
                    let g = self
                        .enc
                        .moment_at(jw, rep(k), &inf)
                        .map_err(|e| PolicyError::Dist(e).for_metric(self.obj.metric))?;
                    Ok(at(k).mul(&g).lo().clone().max(&Float::new(bits)))
                })
                .collect::<Result<_, PolicyError>>()?
        } else {
            Vec::new()
        };
        // The least waste over b's range (0 without waste).
        let least_waste = |b: Range| -> Float {
            wasted
                .get(b.0..=b.1)
                .and_then(|w| w.iter().min_by(|x, y| x.total_cmp(y)))
                .cloned()
                .unwrap_or_else(|| Float::new(bits))
        };
        let combine = |x: &Float, y: &Float| -> Float {
            if self.obj.max {
                x.clone().max(y)
            } else {
                Float::with_val_round(bits, x + y, Round::Down).0
            }
        };
        // The first partition: the slots halved by weight until there are FIRST_RANGES
        // ranges (a few more where single slots cannot be halved); a budget that cannot pay
        // for its round (every pair of ranges) runs none.
        let count = (m + 1).min(FIRST_RANGES);
        let cum = self.slot_weights(&atoms, rep);
        let halve = |(lo, hi): Range| -> (Range, Range) {
            // The slot where the range's weight is halved, leaving both halves a slot.
            let target = (cum[lo] + cum[hi + 1]) / 2.0;
            let mid = cum.partition_point(|&w| w < target).saturating_sub(1);
            let mid = mid.clamp(lo, hi - 1);
            ((lo, mid), (mid + 1, hi))
        };
        let mut ranges: Vec<Range> = vec![(0, m)];
        while ranges.len() < count {
            ranges = ranges
                .iter()
                .flat_map(|&(lo, hi)| {
                    if lo < hi {
                        let (a, b) = halve((lo, hi));
                        vec![a, b]
                    } else {
                        vec![(lo, hi)]
                    }
                })
                .collect();
        }
        let count = ranges.len();
        if count * (count + 1) / 2 + 2 * count + hosts > budget {
            return Ok(None);
        }
        // alive[i]: the ranges (indices into `ranges`) cutoff i may still lie in.
        let mut alive: Vec<Vec<usize>> = vec![(0..ranges.len()).collect(); hosts - 1];
        // allowed[i]: the pairs of ranges (cutoff i, cutoff i + 1) a path may still take
        // (`None`: every ordered pair); a pair whose every path is at least the cut is not
        // met again, nor are its halves.
        let mut allowed: Vec<Option<HashSet<(Range, Range)>>> = vec![None; hosts - 2];
        let mut memo: std::collections::HashMap<(Range, Option<Range>), Float> =
            std::collections::HashMap::new();
        // The best cutoff vector met (its slots and value).
        let mut found: Option<(Vec<usize>, Interval)> = None;
        // A range whose bound (without the shift) is at least this holds no point below
        // best_hi.
        let mut cut_at = if self.obj.max {
            best_hi.clone()
        } else {
            Float::with_val_round(bits, best_hi - self.shift.lo(), Round::Up).0
        };
        loop {
            // A host's bound with a in `a` and b in `b` (None: the top).
            let mut pair = |a: Range, b: Option<Range>| -> Result<Float, PolicyError> {
                if let Some(v) = memo.get(&(a, b)) {
                    return Ok(v.clone());
                }
                let v = match b {
                    // Overlapping ranges: an empty host is possible; its term is ≥ 0 and
                    // TAGS's waste at least its least over b's range.
                    Some(b) if a.1 > b.0 => least_waste(b),
                    _ => {
                        let t = term(a.1, b.map(|b| b.0))?;
                        let v = t.lo().clone().max(&Float::new(bits));
                        match b {
                            Some(b) if waste && t.hi().is_finite() => {
                                Float::with_val_round(bits, &v + &least_waste(b), Round::Down).0
                            }
                            _ => v,
                        }
                    }
                };
                memo.insert((a, b), v.clone());
                Ok(v)
            };
            // Forward: fw[i][x], the least combination of hosts 1..=i+1 with cutoff i in
            // alive[i][x] (and the argument before it).
            let n = hosts - 1;
            let mut fw: Vec<Vec<(Float, usize)>> = Vec::with_capacity(n);
            let mut first = Vec::with_capacity(alive[0].len());
            for &r in &alive[0] {
                first.push((pair(BOTTOM, Some(ranges[r]))?, 0));
            }
            fw.push(first);
            for i in 1..n {
                let mut cur = Vec::with_capacity(alive[i].len());
                for &r in &alive[i] {
                    let b = ranges[r];
                    let mut best = (inf.clone(), 0usize);
                    for (x, &q) in alive[i - 1].iter().enumerate() {
                        let a = ranges[q];
                        if a.0 > b.1 || fw[i - 1][x].0 >= best.0 || !may(&allowed[i - 1], a, b) {
                            continue;
                        }
                        let v = combine(&fw[i - 1][x].0, &pair(a, Some(b))?);
                        if v < best.0 {
                            best = (v, x);
                        }
                    }
                    cur.push(best);
                }
                fw.push(cur);
            }
            // Backward: bw[i][x], the least combination of hosts i+2..=h from cutoff i in
            // alive[i][x].
            let mut bw: Vec<Vec<Float>> = vec![Vec::new(); n];
            bw[n - 1] = alive[n - 1]
                .iter()
                .map(|&r| pair(ranges[r], None))
                .collect::<Result<_, _>>()?;
            for i in (0..n - 1).rev() {
                let mut cur = Vec::with_capacity(alive[i].len());
                for &r in &alive[i] {
                    let a = ranges[r];
                    let mut best = inf.clone();
                    for (y, &q) in alive[i + 1].iter().enumerate() {
                        let b = ranges[q];
                        if a.0 > b.1 || !may(&allowed[i], a, b) {
                            continue;
                        }
                        let v = combine(&pair(a, Some(b))?, &bw[i + 1][y]);
                        if v < best {
                            best = v;
                        }
                    }
                    cur.push(best);
                }
                bw[i] = cur;
            }
            // The least over every path.
            let mut low = inf.clone();
            let mut end = 0usize;
            for (x, b) in bw[n - 1].iter().enumerate() {
                let v = combine(&fw[n - 1][x].0, b);
                if v < low {
                    low = v;
                    end = x;
                }
            }
            let shifted = |v: &Float| -> Float {
                if self.obj.max {
                    v.clone()
                } else {
                    Float::with_val_round(bits, v + self.shift.lo(), Round::Down).0
                }
            };
            // The least path, back from its last cutoff.
            let mut path = vec![0usize; n];
            let mut x = end;
            for i in (0..n).rev() {
                path[i] = alive[i][x];
                x = fw[i][x].1;
            }
            let singles = path.iter().all(|&r| ranges[r].0 == ranges[r].1);
            // The least path with each cutoff at its range's lowest atom is a cutoff vector:
            // its value (upper end) lowers the cut where it is better.
            let slots: Vec<usize> = path.iter().map(|&r| ranges[r].0).collect();
            let value = self.slot_value(&slots, rep, at)?;
            evals.set(evals.get() + hosts);
            let up = if self.obj.max {
                value.hi().clone()
            } else {
                Float::with_val_round(bits, value.hi() - self.shift.lo(), Round::Up).0
            };
            if up < cut_at || found.is_none() {
                if up < cut_at {
                    cut_at = up;
                }
                found = Some((slots, value));
            }
            let done = singles
                && alive
                    .iter()
                    .all(|al| al.iter().all(|&r| ranges[r].0 == ranges[r].1));
            if done {
                return Ok(Some(AtomOptimum {
                    value_lo: shifted(&low),
                    path: found,
                    atoms,
                    evals: evals.get(),
                }));
            }
            if std::env::var_os("TASKASSIGN_TRACE_PROVEN").is_some() {
                eprintln!(
                    "atoms: {} ranges, alive {:?}, least {} cut {} evals {} singles {singles}",
                    ranges.len(),
                    alive.iter().map(Vec::len).collect::<Vec<_>>(),
                    low.to_f64(),
                    cut_at.to_f64(),
                    evals.get()
                );
            }
            // Keep the ranges a path below the cut passes through; halve them.
            let mut keep: Vec<Vec<usize>> = Vec::with_capacity(n);
            for i in 0..n {
                keep.push(
                    (0..alive[i].len())
                        .filter(|&x| combine(&fw[i][x].0, &bw[i][x]) < cut_at)
                        .map(|x| alive[i][x])
                        .collect(),
                );
            }
            // The pairs of neighbouring cutoffs' ranges a path below the cut may take.
            let mut pairs_kept: Vec<Vec<(usize, usize)>> = Vec::with_capacity(n - 1);
            for i in 0..n - 1 {
                let mut kept = Vec::new();
                for (x, &qa) in alive[i].iter().enumerate() {
                    let a = ranges[qa];
                    for (y, &qb) in alive[i + 1].iter().enumerate() {
                        let b = ranges[qb];
                        if a.0 > b.1 || !may(&allowed[i], a, b) {
                            continue;
                        }
                        let through =
                            combine(&combine(&fw[i][x].0, &pair(a, Some(b))?), &bw[i + 1][y]);
                        if through < cut_at {
                            kept.push((qa, qb));
                        }
                    }
                }
                pairs_kept.push(kept);
            }
            // The next round's terms at most: every kept pair's halves, the first and last
            // hosts' ranges, and the least path's value.
            let fresh = 4 * pairs_kept.iter().map(Vec::len).sum::<usize>()
                + 2 * (keep[0].len() + keep[n - 1].len())
                + hosts;
            if keep.iter().any(Vec::is_empty) || evals.get().saturating_add(fresh) > budget {
                return Ok(Some(AtomOptimum {
                    value_lo: shifted(&low),
                    path: found,
                    atoms,
                    evals: evals.get(),
                }));
            }
            let mut split = vec![false; ranges.len()];
            for k in keep.iter().flatten() {
                split[*k] = true;
            }
            let mut next: Vec<Range> = Vec::with_capacity(ranges.len() * 2);
            let mut children: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
            for (r, &(lo, hi)) in ranges.iter().enumerate() {
                let start = next.len();
                if split[r] && lo < hi {
                    let (a, b) = halve((lo, hi));
                    next.push(a);
                    next.push(b);
                } else {
                    next.push((lo, hi));
                }
                children.push((start, next.len()));
            }
            alive = keep
                .iter()
                .map(|al| {
                    al.iter()
                        .flat_map(|&r| children[r].0..children[r].1)
                        .collect()
                })
                .collect();
            allowed = pairs_kept
                .iter()
                .map(|kept| {
                    let mut set = HashSet::new();
                    for &(qa, qb) in kept {
                        for ca in children[qa].0..children[qa].1 {
                            for cb in children[qb].0..children[qb].1 {
                                set.insert((next[ca], next[cb]));
                            }
                        }
                    }
                    Some(set)
                })
                .collect();
            ranges = next;
            // Bounds of ranges that were halved are not met again.
            let current: HashSet<Range> = ranges.iter().copied().collect();
            memo.retain(|(a, b), _| {
                (*a == BOTTOM || current.contains(a)) && b.is_none_or(|b| current.contains(&b))
            });
        }
    }

    /// The cumulative weights of the slots 0..=m (entry k: slots below k; m + 2 entries) by
    /// which the programme cuts its ranges: slot k ≥ 1 (the atom x_k, of mass p_k) weighs
    /// Σ_j p_k x_k^j / E[X^j] over the orders j = −1, 0, 1, 2 that are finite and positive, so
    /// that a range holds about as much of each moment as of the count. A host's term moves
    /// with the moments its range gains or loses, so the heavy atoms of a long tail, each
    /// worth many light ones, get ranges of their own early. The weights only choose where
    /// ranges are cut: every bound holds for any partition.
    fn slot_weights<'r>(&self, atoms: &[Atom], rep: impl Fn(usize) -> &'r Float) -> Vec<f64> {
        let m = atoms.len();
        let mut w = vec![0.0f64; m + 1];
        for j in [-1, 0, 1, 2] {
            // An order the law cannot give (x^−1 at an atom at 0) is left out.
            let Ok(per) = (1..=m)
                .map(|k| {
                    let v = self.enc.moment_at(j, rep(k - 1), rep(k))?;
                    Ok(v.mid().to_f64().max(0.0))
                })
                .collect::<Result<Vec<f64>, crate::dist::DistError>>()
            else {
                continue;
            };
            let total: f64 = per.iter().sum();
            if total.is_finite() && total > 0.0 {
                for (wk, p) in w.iter_mut().skip(1).zip(&per) {
                    *wk += p / total;
                }
            }
        }
        let mut cum = Vec::with_capacity(m + 2);
        cum.push(0.0);
        for x in &w {
            cum.push(cum.last().copied().unwrap_or(0.0) + x);
        }
        cum
    }

    /// One host with a at the point `a` and b at `b` ([`SlotInputs`]), its parts enclosed.
    fn slot_host(
        &self,
        a: &Float,
        b: Option<(&Float, &Interval)>,
    ) -> Result<Host<Interval>, PolicyError> {
        let inputs = SlotInputs {
            enc: self.enc,
            metric: self.obj.metric,
            a,
            b,
            top: Float::with_val(self.bits, Special::Infinity),
        };
        host(self.obj.kind, &self.lambda, &inputs, Parts::Term)
    }

    /// The objective at the cutoffs at the atoms of `slots` (0: below the least), enclosed.
    fn slot_value<'r>(
        &self,
        slots: &[usize],
        rep: impl Fn(usize) -> &'r Float,
        at: impl Fn(usize) -> &'r Interval,
    ) -> Result<Interval, PolicyError> {
        let bits = self.bits;
        let mut total: Option<Interval> = None;
        for i in 0..=slots.len() {
            let a = if i == 0 { 0 } else { slots[i - 1] };
            let b = slots.get(i).copied();
            let t = self.slot_host(rep(a), b.map(|k| (rep(k), at(k))))?.term();
            total = Some(match total {
                None => t,
                Some(v) if self.obj.max => v.max(&t),
                Some(v) => v.add(&t),
            });
        }
        let v = total.unwrap_or_else(|| Interval::zero_at(bits));
        Ok(if self.obj.max { v } else { v.add(&self.shift) })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::problem_of;
    use crate::dist::{DistFactory, DistSpec};
    use crate::num::interval::Interval;
    use crate::optimize::OptPolicy;
    use crate::policy::{LoadSpec, Metric};
    use rug::Float;

    /// The empirical law of the sizes `text` (one a line), in a directory of its own.
    fn sample_law(tag: &str, text: &str) -> (std::path::PathBuf, DistSpec) {
        let dir = std::env::temp_dir().join(format!("ta-atoms-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("sizes.txt");
        std::fs::write(&file, text).unwrap();
        let spec = DistSpec::parse(&format!("empirical:file={}", file.display())).unwrap();
        (dir, spec)
    }

    /// The arrival rate of a load of 0.3 per host.
    fn per_host(enc: &dyn crate::dist::Enclosure, hosts: usize) -> Interval {
        LoadSpec::PerHost("0.3".into())
            .resolve_enclosed(enc, hosts)
            .unwrap()
            .0
    }

    /// The atom programme against brute force: an empirical law with non-dyadic sizes
    /// (0.1, 0.3, 0.3, 0.7, 1.3, 2.9, 6.1, so that no atom is a double), 3 hosts, load
    /// 0.3 per host, SITA, TAGS and TAGS-minmax, waiting, response and slowdown. The
    /// oracle: the objective enclosed by `policy::rigorous` (checked against Arb in
    /// `tests/rigorous.rs`) at every ordered pair of a grid of cutoffs: each atom rounded
    /// up and down (so one side of the atom each), points between atoms and beyond both
    /// ends. The programme's bound must lie at or below every grid point's upper end (a
    /// lower bound of the minimum) and within 10^−25 relative of the least lower end of
    /// the grid (the grid holds the minimising path's atoms rounded up, where SITA's value
    /// is the atoms' and TAGS's at most 10^−30 above it): the exact minimum, not only a
    /// bound. Mutant: TAGS's cutoff at its slot's upper end must exceed some grid point.
    #[test]
    fn the_atom_programme_is_the_least_value_of_a_brute_force_grid() {
        let bits = 128;
        let hosts = 3;
        let (dir, spec) = sample_law("few", "0.1\n0.3\n0.3\n0.7\n1.3\n2.9\n6.1\n");
        let enc = spec.enclose(bits).unwrap();
        let law = spec.build(bits).unwrap();
        let lambda = per_host(enc.as_ref(), hosts);
        let sizes = ["0.1", "0.3", "0.7", "1.3", "2.9", "6.1"];
        let mut grid: Vec<Float> = Vec::new();
        for t in sizes {
            let x = Interval::from_decimal(t, bits).unwrap();
            assert!(!x.is_point(), "{t} is a double");
            grid.push(x.lo().clone());
            grid.push(x.hi().clone());
        }
        for x in [0.05, 0.2, 0.5, 1.0, 2.0, 4.0, 9.0] {
            grid.push(Float::with_val(bits, x));
        }
        grid.sort_by(|a, b| a.total_cmp(b));
        let mut caught = false;
        for policy in [OptPolicy::Sita, OptPolicy::Tags, OptPolicy::TagsMinmax] {
            for metric in [Metric::Waiting, Metric::Response, Metric::Slowdown] {
                let pb = problem_of((policy, metric), enc.as_ref(), law.as_ref(), &lambda);
                let what = format!("{policy:?} {metric:?}");
                let huge = Float::with_val(bits, rug::float::Special::Infinity);
                let a = pb
                    .atom_programme(hosts, &huge, 100_000)
                    .unwrap()
                    .expect("atoms known");
                assert_eq!(a.atoms.len(), 6, "{what}");
                let mutant = pb
                    .slot_programme(hosts, &huge, 100_000, true)
                    .unwrap()
                    .unwrap();
                let mut least = Float::with_val(bits, rug::float::Special::Infinity);
                for (i, x) in grid.iter().enumerate() {
                    for y in &grid[i..] {
                        let cut = [Interval::point(x.clone()), Interval::point(y.clone())];
                        let v = pb.value(&cut).unwrap();
                        assert!(
                            a.value_lo <= *v.hi(),
                            "{what}: bound {} above the objective {v:?} at ({x}, {y})",
                            a.value_lo
                        );
                        if mutant.value_lo > *v.hi() {
                            caught = true;
                        }
                        if *v.lo() < least {
                            least = v.lo().clone();
                        }
                    }
                }
                let rel = (Float::with_val(bits, &least - &a.value_lo) / &least).to_f64();
                assert!(
                    rel.abs() < 1e-25,
                    "{what}: bound {} against the grid's least {least}",
                    a.value_lo
                );
                // The path's enclosure (the objective at its atoms) attains the bound.
                let (_, value) = a.path.as_ref().expect("refined to single slots");
                let gap = (Float::with_val(bits, value.hi() - &a.value_lo) / &least).to_f64();
                assert!((0.0..1e-30).contains(&gap), "{what}: path {value:?}");
            }
        }
        assert!(caught, "the snapped-up mutant is not caught");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The ranges of the programme (many atoms: 400 sizes 0.013·k + 0.001·(k mod 7), none a
    /// double, 3 hosts, load 0.3 per host, waiting), started from ranges of several slots and
    /// halved where kept, against brute force over every pair of atoms (each rounded up, so
    /// every configuration of slots is met; the objective enclosed by `policy::rigorous`):
    /// the bound at or below every pair's upper end, and within 10^−25 relative of the least
    /// lower end (the exact minimum, refined to single slots), for SITA, TAGS and
    /// TAGS-minmax, with the cut at the brute-force minimum's upper end times 1.01 (ranges
    /// above it dropped); a budget below the first round runs none, and a run stays within
    /// its budget.
    #[test]
    fn the_atom_programme_refines_its_ranges_to_the_minimum() {
        let bits = 128;
        let hosts = 3;
        let sizes: Vec<String> = (1..=400)
            .map(|k| format!("{:.3}", 0.013 * f64::from(k) + 0.001 * f64::from(k % 7)))
            .collect();
        let (dir, spec) = sample_law("many", &sizes.join("\n"));
        let enc = spec.enclose(bits).unwrap();
        let law = spec.build(bits).unwrap();
        let lambda = per_host(enc.as_ref(), hosts);
        let reps: Vec<Float> = enc.atoms().unwrap().iter().map(|a| a.rep.clone()).collect();
        assert!(reps.len() > 300, "{}", reps.len());
        for policy in [OptPolicy::Sita, OptPolicy::Tags, OptPolicy::TagsMinmax] {
            let pb = problem_of(
                (policy, Metric::Waiting),
                enc.as_ref(),
                law.as_ref(),
                &lambda,
            );
            let mut least_lo = Float::with_val(bits, rug::float::Special::Infinity);
            let mut least_hi = least_lo.clone();
            let mut his = Vec::new();
            for (i, x) in reps.iter().enumerate() {
                for y in &reps[i..] {
                    let v = pb
                        .value(&[Interval::point(x.clone()), Interval::point(y.clone())])
                        .unwrap();
                    if *v.lo() < least_lo {
                        least_lo = v.lo().clone();
                    }
                    if *v.hi() < least_hi {
                        least_hi = v.hi().clone();
                    }
                    his.push(v.hi().clone());
                }
            }
            let cut = Float::with_val(bits, &least_hi * 1.01);
            let a = pb
                .atom_programme(hosts, &cut, 2_000_000)
                .unwrap()
                .expect("atoms known");
            let what = format!("{policy:?}");
            assert!(
                his.iter().all(|v| a.value_lo <= *v),
                "{what}: {}",
                a.value_lo
            );
            let rel = (Float::with_val(bits, &least_lo - &a.value_lo) / &least_lo).to_f64();
            assert!(
                rel.abs() < 1e-25,
                "{what}: {} against {least_lo}",
                a.value_lo
            );
            assert!(a.path.is_some(), "{what}");
            // Far fewer terms than every pair of atoms.
            assert!(a.evals < his.len() / 4, "{what}: {} terms", a.evals);
            // A budget below its first round (64 ranges: 2 080 pairs and 128 ends) runs none,
            // and the terms of a run stay within its budget.
            assert!(
                pb.atom_programme(hosts, &cut, 2000).unwrap().is_none(),
                "{what}"
            );
            let capped = pb.atom_programme(hosts, &cut, 5000).unwrap().unwrap();
            assert!(capped.evals <= 5000, "{what}: {} terms", capped.evals);
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
