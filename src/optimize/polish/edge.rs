//! The edge fill: top hosts whose terms weigh nothing are loaded to their stability edge
//! together, and the cutoffs below them polished again.
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
//! **What it does.** The run is the longest set of top hosts each with a term below
//! 2^−(bits − 8) of the objective. From the top down, each run host's lower cutoff is moved
//! to where its load is 1 − δ, δ the least slack at which its term stays below that share
//! (its term scales as 1/(1 − ρ)), but at least 2^−(bits − 16) (the loads carry rounding
//! of about 2^−bits; the slack moves the cutoffs, and the objective through the host below
//! the run, at first order, so at 2^−bits/2 two precisions agreed on 7 digits of 12): a
//! bisection on the load, which falls in the lower cutoff. (Leaving a host already within
//! 2^−bits/2 of its edge where the working run put it, so that the certifying run keeps that
//! fill, was tried: the certifying run's Newton moves the run first, and 20 digits asked
//! certified only 14 to 17 at 5, 6 and 8 hosts.) The certifying run's cutoffs are thus
//! nearer the edge than a printed decimal resolves: `optimize --rigorous` starts from the
//! working run's there ([`crate::optimize::proven`]). The cutoffs below the run then go
//! through the coordinate roots with the run's held. The point is kept by
//! the caller only if its objective is lower.

use super::{coordinate_roots_of, value_grad_scaled, Polished};
use crate::num::root::bisect_predicate;
use crate::optimize::chain::Chain;
use crate::policy::PolicyError;
use rug::Float;

/// The host loads at a full set of interior cutoffs.
pub type Loads<'a> = dyn Fn(&[Float]) -> Result<Vec<Float>, PolicyError> + 'a;

/// The edge fill from `start` (module docs), `None` where no run of top hosts weighs
/// nothing. `loads` gives the host loads at a full set of
/// interior cutoffs; `sweeps` bounds the coordinate roots afterwards.
pub fn edge_fill(
    chain: &Chain,
    hosts: usize,
    start: &[Float],
    sweeps: usize,
    loads: &Loads,
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
    // The run: hosts r..h (1-based) each with a term below the share; the host below it
    // keeps its lower cutoff free, so the run stops above host 2.
    let mut r = hosts + 1;
    while r > 2 && terms[r - 2].is_finite() && terms[r - 2] < share {
        r -= 1;
    }
    if r > hosts {
        return Ok(None);
    }
    let floor_slack = Float::with_val(bits, 1) >> bits.saturating_sub(16);
    let mut s: Vec<Float> = start.iter().map(|x| Float::with_val(bits, x)).collect();
    let one = Float::with_val(bits, 1);
    for host in (r..=hosts).rev() {
        // Host `host` on (s_{host−1}, s_host]: its lower cutoff is s[host − 2].
        let k = host - 2;
        let l = loads(&s)?;
        let rho = &l[host - 1];
        let slack = Float::with_val(bits, &one - rho);
        if slack <= 0 {
            return Ok(None);
        }
        // T ≈ w/δ: the least δ at which T stays below the share.
        let t = &terms[host - 1];
        let want = Float::with_val(bits, &slack * t) / &share;
        let want = want.max(&floor_slack);
        if want >= Float::with_val(bits, &slack / 2u32) {
            continue;
        }
        let target = Float::with_val(bits, &one - &want);
        // Lower s_k (raising the load) to where the load meets the target: bisect between
        // the cutoff below (or the support's bottom) and s_k.
        let below = if k == 0 {
            chain.lo.clone()
        } else {
            s[k - 1].clone()
        };
        // Just above the cutoff below (the cutoffs must stay strictly increasing).
        let nudge = if below > 0 {
            Float::with_val(bits, &below >> bits.saturating_sub(8))
        } else {
            Float::with_val(bits, &s[k] - &below) >> bits.saturating_sub(8)
        };
        let lo = Float::with_val(bits, &below + &nudge);
        let load_at = |x: &Float, s: &mut Vec<Float>| -> Result<Float, PolicyError> {
            let keep = std::mem::replace(&mut s[k], x.clone());
            let l = loads(s);
            s[k] = keep;
            Ok(l?[host - 1].clone())
        };
        if load_at(&lo, &mut s)? < target {
            // Even the lowest cutoff leaves the host below the target: no edge to fill to.
            continue;
        }
        let mut probe = s.clone();
        let (_, hi) = bisect_predicate(&lo, &s[k], bits, bits.saturating_sub(8), |x| {
            Ok::<bool, PolicyError>(load_at(x, &mut probe)? >= target)
        })?;
        // hi: the load just below the target (the host keeps its slack).
        if hi < s[k] {
            s[k] = hi;
        }
    }
    // Polished even where no cutoff of the run moved: a run already at its edge (the
    // coordinate roots bisect to it) leaves the cutoffs below it where a sweep of all of
    // them stalled (TAGS's slowdown at BP(1, 10^1000, 1), 5 hosts, total load 2.5, 12
    // digits: host 5 at its edge at 72 bits, the value 1.4e−7 above the minimum).
    // The cutoffs below the run, polished with the run's held: s_1 … s_{r−2}.
    let free = r - 2;
    let p = coordinate_roots_of(chain, hosts, &s, sweeps, free)?;
    Ok(Some(p))
}
