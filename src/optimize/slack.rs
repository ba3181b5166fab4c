//! The precision chosen from the slack: an optimum at a stability edge whose slack lies
//! below what the digits' precision resolves is searched again at raised precisions
//! ([`raised_for_slack`]), called by [`super::optimal_cutoffs_certified`].

use super::pipeline::EDGE_LOAD;
use super::Optimum;
use crate::num::certify::{certify_pair, AtBoth, Certify};
use crate::policy::PolicyError;
use rug::Float;

/// Most bits [`raised_for_slack`] raises the working precision to.
pub const MAX_SLACK_BITS: u32 = 1024;
/// Most doublings of the working precision [`raised_for_slack`] makes (its searches cost
/// about the square of the bits: at 576 bits, 6 hosts, a search takes a minute or more).
pub const MAX_SLACK_DOUBLINGS: u32 = 2;
/// A host whose slack 1 − ρ is below 2^−(bits − this) sits at the precision's floor: the
/// edge fill aims no slack below 2^−(bits − 16) ([`polish::edge`]), and the coordinate roots
/// bisect an edge to about 2^−bits.
pub const SLACK_FLOOR_BITS: u32 = 24;

/// Whether an optimum has a host within [`EDGE_LOAD`] of load 1.
pub(super) fn near_edge(o: &Optimum) -> bool {
    o.eval.host_loads.iter().any(|l| *l > 1.0 - EDGE_LOAD)
}

/// Whether an optimum has a busy host whose slack is at its precision's floor
/// ([`SLACK_FLOOR_BITS`]).
fn slack_at_floor(o: &Optimum) -> bool {
    let bits = o.lambda.prec();
    let floor = Float::with_val(bits, 1) >> bits.saturating_sub(SLACK_FLOOR_BITS);
    o.eval
        .host_loads
        .iter()
        .filter(|l| **l > 0)
        .any(|l| Float::with_val(bits, 1 - l) < floor)
}

/// The precision chosen from the slack. An optimum at a stability edge lies where a host's
/// term w/σ balances what its load takes off a neighbour, and that slack σ can be far below
/// what the digits' precision resolves: SITA's waiting at BP(1, 10^1000, 1.2), 4 hosts,
/// total load 2 (the first two hosts' edges hold exactly that load) balances near
/// σ ≈ 10^−37, where 72 bits end with a host at load 1 (2026-12-06). The search runs again
/// with both precisions doubled (the certifying one kept CERTIFY_EXTRA_BITS or a quarter
/// above), at most [`MAX_SLACK_DOUBLINGS`] times and up to [`MAX_SLACK_BITS`], while the
/// pair falls short beside an edge (its value certifies fewer digits than asked, or a
/// cutoff is undetermined as the record prints it, with a host within [`EDGE_LOAD`] of
/// load 1 or at its precision's floor) or fails numerically; it stops where a raise
/// certifies the same value to no more digits. A raised pair is kept where it certifies a
/// value the last did not, a lower one, or the same one to more digits; the digits asked,
/// and so what is certified, do not change. SITA's waiting at BP(1, 10^1000, 1.5), 4 hosts,
/// load 2, printed 2.68497868410e119 with two cutoffs undetermined at 72 bits (the edge
/// note's upper bound), and certifies 3.99262872e58, 9 digits, at 144 (all 12,
/// 3.99262871543e58, at 576).
pub(super) fn raised_for_slack(
    first: Result<AtBoth<Optimum>, PolicyError>,
    certify: &Certify,
    search: impl Fn(&Certify) -> Result<AtBoth<Optimum>, PolicyError>,
) -> Result<AtBoth<Optimum>, PolicyError> {
    use crate::error::{Classify, ErrorKind};
    let wanted = certify.wanted().max(1);
    let digits = |x: &Float, y: &Float| certify_pair(x, y, wanted).digits;
    let value_digits = |b: &AtBoth<Optimum>| digits(&b.lo.eval.value, &b.hi.eval.value);
    let mut best = first;
    let mut c = *certify;
    trace_slack(&c, &best);
    let limit = MAX_SLACK_BITS.min(certify.bits().0 << MAX_SLACK_DOUBLINGS);
    // Whether a pair (or its failure) falls short beside an edge. Two precisions whose
    // floors differ by CERTIFY_EXTRA_BITS and more that agree on every digit of the value
    // and the cutoffs do not depend on where the floor put a host (a host of a negligible
    // term, filled to the floor at either).
    let falls_short = |r: &Result<AtBoth<Optimum>, PolicyError>| {
        match r {
            Ok(b) => {
                // A cutoff undetermined as the record prints it (the two runs share no digit
                // of it, or the optimum determines it to less than one).
                let loose_cutoff = super::certified::certify_cutoffs(&b.lo, &b.hi, wanted)
                    .iter()
                    .any(|c| c.digits == 0);
                (value_digits(b) < wanted || loose_cutoff)
                    && (slack_at_floor(&b.lo)
                        || slack_at_floor(&b.hi)
                        || near_edge(&b.lo)
                        || near_edge(&b.hi))
            }
            Err(e) => e.kind() == ErrorKind::Numerical,
        }
    };
    // The last pair searched decides whether to go on (a raised pair not kept, because its
    // value is higher, but complete, ends the raise as well).
    let mut short = falls_short(&best);
    loop {
        let work = c.bits().0.saturating_mul(2);
        if !short || work > limit {
            return best;
        }
        c = Certify::with_bits(
            c.wanted(),
            (work, work + crate::num::CERTIFY_EXTRA_BITS.max(work / 4)),
        );
        crate::progress::report(
            "optimum at a stability edge: precision raised",
            u64::from(work),
            Some(u64::from(limit)),
            &format!("searching again at {work} bits"),
        );
        let r = search(&c);
        trace_slack(&c, &r);
        short = falls_short(&r);
        match (r, &best) {
            (Ok(next), Ok(last)) => {
                let (dn, dl) = (value_digits(&next), value_digits(last));
                let agree = digits(&next.lo.eval.value, &last.lo.eval.value);
                if dn == 0 {
                    // No certified value: nothing to compare.
                } else if dl == 0 || (agree < dn.min(dl) && next.lo.eval.value < last.lo.eval.value)
                {
                    // A certified value where there was none, or a lower one.
                    best = Ok(next);
                } else if agree >= dn.min(dl) && dn > dl {
                    // The same value, to more digits.
                    best = Ok(next);
                } else if agree >= dn.min(dl) {
                    // The same value to no more digits: the raise moved nothing the record
                    // prints, and the next one would cost four times as much (SITA's
                    // slowdown at BP(1, 10^1000, 0.8), 6 hosts, load 3: 1.99685519550e48 at
                    // 72, 144 and 288 bits, host 4 following the floor, 3 s then 52 s).
                    short = false;
                }
            }
            (Ok(next), Err(_)) => best = Ok(next),
            // A raised search that fails keeps the last pair; a failure before it goes on
            // doubling.
            (Err(_), Ok(_)) => {}
            (Err(e), Err(_)) => best = Err(e),
        }
    }
}

/// With `TASKASSIGN_TRACE_SLACK` set, [`raised_for_slack`] prints each pair's precisions,
/// values and host slacks (or its error) on standard error.
fn trace_slack(c: &Certify, r: &Result<AtBoth<Optimum>, PolicyError>) {
    if std::env::var_os("TASKASSIGN_TRACE_SLACK").is_none() {
        return;
    }
    let b = match r {
        Ok(b) => b,
        Err(e) => return eprintln!("slack: bits {:?} error {e}", c.bits()),
    };
    let slacks: Vec<String> =
        b.lo.eval
            .host_loads
            .iter()
            .map(|l| crate::num::to_sci(&Float::with_val(l.prec(), 1 - l), 4))
            .collect();
    eprintln!(
        "slack: bits {:?} value {} / {} slacks {}",
        c.bits(),
        crate::num::to_sci(&b.lo.eval.value, 7),
        crate::num::to_sci(&b.hi.eval.value, 7),
        slacks.join(" ")
    );
}
