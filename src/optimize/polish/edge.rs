//! The edge fill: top or bottom hosts whose terms weigh nothing are loaded to their
//! stability edge together, and the cutoffs between them polished again.
//!
//! **Why.** An optimum can press a run of top hosts against load 1 while their terms weigh
//! far below the objective's last digit: TAGS's slowdown at BP(1, 10^1000, 1), 8 hosts,
//! total load 4, whose hosts 7 and 8 have terms of about 10^−251/(1 − ρ) and 10^−500/(1 −
//! ρ). Lowering their cutoffs lets the host below them (host 6, whose term is of the order
//! 10^−2/(1 − ρ_6) and does count) take less load at the same s_5, so the minimum lies
//! where hosts 7 and 8 sit at their edge. The cutoffs of such a run are coupled (each
//! host's load falls in its lower cutoff and grows in its upper one), and moving one at a
//! time, as the coordinate roots do, crawls: after 60 sweeps the certified point still had
//! host 8 at a slack of 1.2·10^−5 (2026-12-06).
//!
//! The same holds at the bottom: under a heavy tail the lowest hosts can weigh nothing
//! while the host above a run of them dominates, and raising their cutoffs together takes
//! load off it (TAGS's slowdown at BP(1, 10^1000, 1.2), 6 hosts, total load 3: hosts 1 to 3
//! at their edges, where each host's load reaches 1 at a closed-form cutoff, s_1 = 0.8^−5;
//! SITA's slowdown there: 1.1e47 at Newton's point, 9.19916660311e24 once hosts 1 and 2
//! are filled, 2026-12-06).
//!
//! **What it does.** A top run is the longest set of top hosts, a bottom run the longest
//! set of bottom hosts, each with a term below 2^−(bits − 8) of the objective ([`Run`]).
//! Each run host's slack σ is aimed from its term T ≈ w/σ (w = T·σ where the host stands)
//! and the run's transfer rate G, what the objective gains per unit of load the run takes
//! off its neighbour (the neighbour's term slope at the run's boundary cutoff over the run
//! host's load slope there): the objective along σ is about w/σ + G·σ, least at σ* =
//! √(w/G). The aim is σ*, but no more than w/share (where the term weighs nothing, and the
//! gain beyond is below the share too) and at least 2^−(bits − 16) (the loads carry
//! rounding of about 2^−bits; the slack moves the cutoffs, and the objective through the
//! neighbour, at first order, so at 2^−bits/2 two precisions agreed on 7 digits of 12).
//! The host's cutoff on the run's side (a top host's lower one, a bottom host's upper one)
//! is bisected to the load 1 − σ, from the top down or the bottom up, either way; w moves
//! with the cutoff (a heavy-tailed host can widen by decades), so σ is aimed again from the
//! point reached, until it moves by less than [`AIM_TOLERANCE`]. A host whose aim then lies
//! beyond [`EDGE_LOAD`] of its edge does not belong to the run: its cutoff is put back and
//! the run ends before it (host 3 of the SITA case above weighs 10^78 at its edge once
//! hosts 1 and 2 are filled). (Leaving a host already within 2^−bits/2 of its edge where
//! the working run put it, so that the certifying run keeps that fill, was tried: the
//! certifying run's Newton moves the run first, and 20 digits asked certified only 14 to
//! 17 at 5, 6 and 8 hosts.) The certifying run's cutoffs are thus nearer the edge than a
//! printed decimal resolves: `optimize --rigorous` starts from the working run's there
//! ([`crate::optimize::proven`]). The cutoffs between the runs then go through the
//! coordinate roots with the runs' held. The point is kept by the caller only if its
//! objective is lower; the caller fills again from it ([`Run::Filled`]) while the objective
//! falls, since G and the share were those of the start.

use super::{coordinate_roots_of, value_grad_scaled, Polished};
use crate::num::root::bisect_predicate;
use crate::optimize::chain::Chain;
use crate::optimize::pipeline::EDGE_LOAD;
use crate::policy::PolicyError;
use rug::Float;

/// The host loads at a full set of interior cutoffs.
pub type Loads<'a> = dyn Fn(&[Float]) -> Result<Vec<Float>, PolicyError> + 'a;

/// How a host is found to weigh nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Run {
    /// A term below 2^−(bits − 8) of the objective, the share the fill loads it to.
    Negligible,
    /// A host within [`EDGE_LOAD`] of its edge with a term below 2^−[`FILLED_SHARE_BITS`]
    /// of the objective, kept in the run where the slack it is aimed at is within
    /// [`EDGE_LOAD`] too: for a start that a fill already put at an edge (an earlier round,
    /// whose aim used the objective and the transfer rate of its own start, or another
    /// precision's run), where the run's hosts weigh more than this precision's share.
    Filled,
}

/// A host at its edge weighing below 2^−this of the objective may belong to a filled run
/// ([`Run::Filled`]); whether it does is then decided by the slack it is aimed at.
const FILLED_SHARE_BITS: u32 = 16;

/// The edge fill from `start` (module docs), `None` where no run of top or bottom hosts
/// weighs nothing (as `run` tells). `loads` gives the host loads at a full set of interior
/// cutoffs; `sweeps` bounds the coordinate roots afterwards.
pub fn edge_fill(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
    sweeps: usize,
    loads: &Loads,
    run: Run,
) -> Result<Option<Polished>, PolicyError> {
    let bits = chain.dist.prec();
    let n = start.len();
    if n + 1 != hosts || n < 2 {
        return Ok(None);
    }
    let (j, _, terms, _) = value_grad_scaled(chain, start, hosts, false)?;
    if !j.is_finite() || j <= 0 {
        return Ok(None);
    }
    let share = Float::with_val(bits, &j) >> bits.saturating_sub(8);
    let detect = match run {
        Run::Negligible => share.clone(),
        Run::Filled => Float::with_val(bits, &j) >> FILLED_SHARE_BITS,
    };
    // A filled run's hosts sit at their edge (else a host of a tiny term far from load 1,
    // which the fill would not move, would be held).
    let at_start = loads(start)?;
    let edge = 1.0 - EDGE_LOAD;
    let weighs_nothing = |host: usize| {
        terms[host - 1].is_finite()
            && terms[host - 1] < detect
            && (run == Run::Negligible || at_start[host - 1].to_f64() > edge)
    };
    // The bottom run: hosts 1..=m each with a term below the share; its last host's upper
    // cutoff s_m must have a cutoff above it, so the run stops below host h − 1.
    let mut m = 0;
    while m + 1 < hosts - 1 && weighs_nothing(m + 1) {
        m += 1;
    }
    // The top run: hosts r..=h; the host below it keeps its lower cutoff free, so the run
    // stops above host 2 (and above the bottom run's first host beyond).
    let mut r = hosts + 1;
    while r > 2.max(m + 2) && weighs_nothing(r - 1) {
        r -= 1;
    }
    if r > hosts && m == 0 {
        return Ok(None);
    }
    let floor_slack = Float::with_val(bits, 1) >> bits.saturating_sub(16);
    let mut s: Vec<Float> = start.iter().map(|x| Float::with_val(bits, x)).collect();
    let filler = Filler {
        chain,
        hosts,
        loads,
        share: &share,
        floor_slack: &floor_slack,
    };
    if r <= hosts {
        // The top run's cutoff s_{r−1} (index r − 2), against host r − 1 below it.
        let g = transfer_rate(chain, hosts, &s, r - 2, r - 1, Side::Lower, loads)?;
        for host in (r..=hosts).rev() {
            if !filler.fill(&mut s, host, Side::Lower, g.as_ref())? {
                r = host + 1;
                break;
            }
        }
    }
    if m > 0 {
        // The bottom run's cutoff s_m (index m − 1), against host m + 1 above it.
        let g = transfer_rate(chain, hosts, &s, m - 1, m + 1, Side::Upper, loads)?;
        for host in 1..=m {
            if !filler.fill(&mut s, host, Side::Upper, g.as_ref())? {
                m = host - 1;
                break;
            }
        }
    }
    // Polished even where no cutoff of a run moved: a run already at its edge (the
    // coordinate roots bisect to it) leaves the cutoffs between the runs where a sweep of
    // all of them stalled (TAGS's slowdown at BP(1, 10^1000, 1), 5 hosts, total load 2.5,
    // 12 digits: host 5 at its edge at 72 bits, the value 1.4e−7 above the minimum).
    // The cutoffs between the runs, polished with the runs' held: s_{m+1} … s_{r−2}.
    let p = coordinate_roots_of(chain, hosts, &s, sweeps, m..r - 2)?;
    Ok(Some(p))
}

/// Which cutoff of a run host the fill moves: the lower one (a top run; the load falls in
/// it) or the upper one (a bottom run; the load grows in it).
#[derive(Clone, Copy)]
enum Side {
    Lower,
    Upper,
}

impl Side {
    /// The index in the free cutoffs of this side's cutoff of `host` (1-based): host i sits
    /// on (s_{i−1}, s_i], s_i at index i − 1.
    fn index(self, host: usize) -> usize {
        match self {
            Side::Lower => host - 2,
            Side::Upper => host - 1,
        }
    }
}

/// G, what the objective gains per unit of load a run takes off its neighbour: at the run's
/// boundary cutoff (index `k`), the neighbour's term slope there over the slope of the run
/// host's load (the run host beside the cutoff: above it for a top run, below for a bottom
/// one), the latter by a one-sided difference away from the edge. `None` where either slope
/// has the wrong sign or is not finite (no gain: the fill falls back to the share).
fn transfer_rate(
    chain: &Chain,
    hosts: usize,
    s: &[Float],
    k: usize,
    neighbour: usize,
    side: Side,
    loads: &Loads,
) -> Result<Option<Float>, PolicyError> {
    let bits = chain.dist.prec();
    let full = super::full_vector(chain, s, hosts);
    // Host `neighbour` on (full[neighbour − 1], full[neighbour]].
    let (a, b) = (&full[neighbour - 1], &full[neighbour]);
    let tg = chain.term_grad(&chain.left_point(a), &chain.point(b), true)?;
    // The neighbour's term falls as the cutoff moves into the run's side: a bottom run
    // raises s_m (the neighbour's lower cutoff: −∂T/∂a), a top run lowers s_{r−1} (its
    // upper cutoff: ∂T/∂b).
    let gain = match side {
        Side::Upper => Float::with_val(bits, -&tg.da),
        Side::Lower => tg.db.clone(),
    };
    // The run host beside the cutoff: host k + 1 (its upper cutoff) for a bottom run,
    // host k + 2 (its lower cutoff) for a top run; its load moved by a step away from the
    // edge.
    let (run_host, step_sign) = match side {
        Side::Upper => (k + 1, -1i32),
        Side::Lower => (k + 2, 1i32),
    };
    let h = Float::with_val(bits, &s[k] >> (bits / 3)) * step_sign;
    let mut moved = s.to_vec();
    moved[k] += &h;
    let (l0, l1) = (loads(s)?, loads(&moved)?);
    // |∂ρ/∂s| by the difference (the load falls away from the edge either way).
    let slope = Float::with_val(bits, &l0[run_host - 1] - &l1[run_host - 1]) / h.abs();
    if !(gain.is_finite() && slope.is_finite() && gain > 0 && slope > 0) {
        return Ok(None);
    }
    Ok(Some(gain / slope))
}

/// What the fill of one host needs: the share below which a term weighs nothing and the
/// floor of the slack (the run's transfer rate G is passed with each host).
struct Filler<'a, 'b> {
    chain: &'a Chain<'b>,
    hosts: usize,
    loads: &'a Loads<'a>,
    share: &'a Float,
    floor_slack: &'a Float,
}

/// Times a host's slack is aimed again at most: its term's numerator w moves with the
/// cutoff (a host of a heavy tail filled from a slack of 2·10^−3 to its edge can widen its
/// interval by 15 decades: SITA's slowdown at BP(1, 10^1000, 1.2), 6 hosts, total load 3),
/// so σ is aimed from w at the point the last aim reached, until it is within
/// [`AIM_TOLERANCE`] of its aim.
const FILL_AIMS: usize = 8;
/// Relative distance of a host's slack from its target below which the aim stops.
const AIM_TOLERANCE: f64 = 1e-4;

impl Filler<'_, '_> {
    /// The slack `host` (1-based) is filled to from `s`: its term is about w/σ (w = T·σ
    /// at `s`), the run's other costs about G·σ, so σ* = √(w/G); no larger than w/share,
    /// where the term weighs nothing and the gain beyond is below the share too; at least
    /// the floor. With the host's slack at `s`; `None` where it is not stable there.
    fn target(
        &self,
        s: &[Float],
        host: usize,
        g: Option<&Float>,
    ) -> Result<Option<(Float, Float)>, PolicyError> {
        let bits = self.chain.dist.prec();
        let slack = Float::with_val(bits, 1) - &(self.loads)(s)?[host - 1];
        let full = super::full_vector(self.chain, s, self.hosts);
        let (a, b) = (&full[host - 1], &full[host]);
        let term = self
            .chain
            .term_grad(&self.chain.left_point(a), &self.chain.point(b), false)?
            .value;
        if slack <= 0 || !term.is_finite() {
            return Ok(None);
        }
        let w = Float::with_val(bits, &slack * &term);
        let mut t = Float::with_val(bits, &w / self.share);
        if let Some(g) = g {
            t.min_mut(&Float::with_val(bits, &w / g).sqrt());
        }
        Ok(Some((t.max(self.floor_slack), slack)))
    }

    /// Moves one cutoff of `host` (1-based) until its load is 1 − σ (σ from
    /// [`Filler::target`], aimed again from each point reached, [`FILL_AIMS`] at most).
    /// Whether the host belongs to the run: where its target, aimed from the point the fill
    /// reached, lies beyond [`EDGE_LOAD`] of its edge (its term grew with the interval the
    /// fill gave it: host 3 of SITA's slowdown at BP(1, 10^1000, 1.2), 6 hosts, load 3, at
    /// its edge once hosts 1 and 2 are filled, weighs 10^78 against 10^47), the cutoff is
    /// put back and the run ends below it.
    fn fill(
        &self,
        s: &mut [Float],
        host: usize,
        side: Side,
        g: Option<&Float>,
    ) -> Result<bool, PolicyError> {
        let k = side.index(host);
        let keep = s[k].clone();
        for _ in 0..FILL_AIMS {
            if !self.aim(s, host, side, g)? {
                break;
            }
        }
        let belongs = match self.target(s, host, g)? {
            Some((sigma, _)) => sigma.to_f64() <= EDGE_LOAD,
            None => false,
        };
        if !belongs {
            s[k] = keep;
        }
        Ok(belongs)
    }

    /// One aim of [`Filler::fill`]: whether the cutoff moved (it stays where the host is
    /// within 1 % of its target slack or no cutoff between the neighbours reaches it).
    fn aim(
        &self,
        s: &mut [Float],
        host: usize,
        side: Side,
        g: Option<&Float>,
    ) -> Result<bool, PolicyError> {
        let bits = self.chain.dist.prec();
        let Some((sigma, slack)) = self.target(s, host, g)? else {
            return Ok(false);
        };
        let one = Float::with_val(bits, 1);
        let off = Float::with_val(bits, &slack - &sigma).abs() / &sigma;
        if off < AIM_TOLERANCE {
            return Ok(false);
        }
        let target = Float::with_val(bits, &one - &sigma);
        let k = side.index(host);
        // The cutoff's range, strictly between its neighbours (the support's bottom below
        // s_1, and s_{k+2} above: a top run's cutoff is below the run's top host's upper
        // one, a bottom run's below the cutoff above it, which exists).
        let below = if k == 0 {
            self.chain.lo.clone()
        } else {
            s[k - 1].clone()
        };
        let lo_end = {
            let nudge = if below > 0 {
                Float::with_val(bits, &below >> bits.saturating_sub(8))
            } else {
                Float::with_val(bits, &s[k] - &below) >> bits.saturating_sub(8)
            };
            Float::with_val(bits, &below + &nudge)
        };
        let hi_end = if k + 1 < s.len() {
            let above = &s[k + 1];
            let gap = Float::with_val(bits, above - &s[k]);
            Float::with_val(bits, above - (gap >> bits.saturating_sub(8)))
        } else {
            s[k].clone()
        };
        let probe = |x: &Float, s: &mut [Float]| -> Result<Float, PolicyError> {
            let keep = std::mem::replace(&mut s[k], x.clone());
            let l = (self.loads)(s);
            s[k] = keep;
            Ok(l?[host - 1].clone())
        };
        // Where the load must rise (σ below the slack) the cutoff moves into the host's
        // edge side: up for an upper cutoff, down for a lower one.
        let rise = sigma < slack;
        let (a, b) = match (side, rise) {
            (Side::Upper, true) | (Side::Lower, false) => (s[k].clone(), hi_end),
            (Side::Upper, false) | (Side::Lower, true) => (lo_end, s[k].clone()),
        };
        if !(a < b) {
            return Ok(false);
        }
        // The load below the target holds at the low end of the bracket for an upper cutoff
        // (the load grows in it) and at the high end for a lower one.
        let mut at = s.to_vec();
        let x = match side {
            Side::Upper => {
                if probe(&a, s)? >= target || probe(&b, s)? < target {
                    return Ok(false);
                }
                bisect_predicate(&a, &b, bits, bits.saturating_sub(8), |x| {
                    Ok::<bool, PolicyError>(probe(x, &mut at)? < target)
                })?
                .0
            }
            Side::Lower => {
                if probe(&a, s)? < target || probe(&b, s)? >= target {
                    return Ok(false);
                }
                bisect_predicate(&a, &b, bits, bits.saturating_sub(8), |x| {
                    Ok::<bool, PolicyError>(probe(x, &mut at)? >= target)
                })?
                .1
            }
        };
        let moved = x != s[k];
        s[k] = x;
        Ok(moved)
    }
}

/// Passes of [`stabilised`] (each bottom-up, then top-down).
const STABILISE_PASSES: usize = 4;

/// A start with a host at or past load 1 at this precision, its cutoffs moved until every
/// host is stable: bottom-up, an unstable host's upper cutoff is lowered (its load grows in
/// it) to the load 1 − 2^−(bits/2); top-down, an unstable host's lower cutoff is raised
/// (its load falls in it) to the same load; each move loads the neighbour it hands the jobs
/// to, which the same pass or the next meets. `None` where [`STABILISE_PASSES`] passes leave
/// a host unstable. A start is unstable where the search found its point at a lower
/// precision than the polish's and the optimum sits at an edge closer than the search's
/// rounding (SITA's waiting at BP(1, 10^1000, 1.2), 4 hosts, total load 2, whose two lowest
/// hosts' edges hold the whole load: the search's 64 bits put host 1 at load 1); the polish
/// then moves the point back to the edge as far as its own precision resolves.
pub fn stabilised(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
    loads: &Loads,
) -> Result<Option<Vec<Float>>, PolicyError> {
    let bits = chain.dist.prec();
    let n = start.len();
    if n + 1 != hosts || n == 0 {
        return Ok(None);
    }
    let target = Float::with_val(bits, 1) - (Float::with_val(bits, 1) >> (bits / 2));
    let mut s: Vec<Float> = start.iter().map(|x| Float::with_val(bits, x)).collect();
    let stable = |l: &[Float]| l.iter().all(|x| *x < 1);
    // Host `host` (1-based)'s load with cutoff index k at x.
    let load_with = |s: &[Float], k: usize, x: &Float, host: usize| -> Result<Float, PolicyError> {
        let mut t = s.to_vec();
        t[k] = x.clone();
        Ok((loads)(&t)?[host - 1].clone())
    };
    for _ in 0..STABILISE_PASSES {
        if stable(&loads(&s)?) {
            return Ok(Some(s));
        }
        // Bottom-up: host i's upper cutoff s_i (index i − 1), down towards s_{i−1}.
        for host in 1..hosts {
            if loads(&s)?[host - 1] < 1 {
                continue;
            }
            let k = Side::Upper.index(host);
            let below = if k == 0 {
                chain.lo.clone()
            } else {
                s[k - 1].clone()
            };
            let here = s[k].clone();
            let (a, _) = bisect_predicate(&below, &here, bits, bits.saturating_sub(8), |x| {
                Ok::<bool, PolicyError>(load_with(&s, k, x, host)? < target)
            })?;
            if a > below {
                s[k] = a;
            }
        }
        // Top-down: host i's lower cutoff s_{i−1} (index i − 2), up towards s_i.
        for host in (2..=hosts).rev() {
            if loads(&s)?[host - 1] < 1 {
                continue;
            }
            let k = Side::Lower.index(host);
            let here = s[k].clone();
            let mut above = if k + 1 < n {
                s[k + 1].clone()
            } else {
                chain.top.clone()
            };
            if !above.is_finite() {
                // An unbounded support: the first doubling above s_{h−1} where host h's
                // load is below the target.
                above = Float::with_val(bits, &here * 2u32);
                for _ in 0..crate::num::root::EXPAND_LIMIT {
                    if !above.is_finite() || load_with(&s, k, &above, host)? < target {
                        break;
                    }
                    above *= 2u32;
                }
                if !above.is_finite() {
                    continue;
                }
            }
            let (_, b) = bisect_predicate(&here, &above, bits, bits.saturating_sub(8), |x| {
                Ok::<bool, PolicyError>(load_with(&s, k, x, host)? >= target)
            })?;
            if b < above {
                s[k] = b;
            }
        }
    }
    Ok(stable(&loads(&s)?).then_some(s))
}
