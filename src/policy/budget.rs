//! Memory a request will allocate, bounded from its inputs before anything is allocated: a
//! host count up to 2^53 is a valid number, but vectors of one MPFR value per host (or per
//! pair of grid points) at 10^12 hosts are terabytes, and the allocator aborts (exit 134).
//! A request over [`MEMORY_LIMIT`] is refused, exit 2, with the largest host count that
//! fits.

use super::PolicyError;

/// The most memory (bytes) one request may plan to allocate: 2 GiB, a quarter of a small
/// CI machine's memory (two computations may run side by side in `check`).
pub const MEMORY_LIMIT: u64 = 2 << 30;

/// Per host of an evaluation: the cutoffs, loads, waiting times and their work vectors at
/// both precisions of a certified run (8 values), and the printed strings — a generous
/// estimate, in units of [`float_bytes`], plus this many bytes of text per host.
pub const EVAL_TEXT_BYTES_PER_HOST: u64 = 256;
/// MPFR values per host an evaluation holds at once (see [`EVAL_TEXT_BYTES_PER_HOST`]).
pub const EVAL_VALUES_PER_HOST: u64 = 16;

/// Bytes of one MPFR value at `bits` of precision (the `mpfr_t` header and its limbs).
pub fn float_bytes(bits: u32) -> u64 {
    32 + u64::from(bits).div_ceil(64) * 8
}

/// The largest `h` with `need(h)` ≤ [`MEMORY_LIMIT`], for a `need` increasing in h.
pub fn max_hosts_within(need: impl Fn(usize) -> u64) -> usize {
    let (mut lo, mut hi) = (1usize, 1usize << 53);
    if need(lo) > MEMORY_LIMIT {
        return 0;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if need(mid) <= MEMORY_LIMIT {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Refuses (an input error, exit 2) `what` for `hosts` hosts when `need(hosts)` bytes
/// exceed [`MEMORY_LIMIT`]; `why` says how the need grows.
pub fn check_hosts(
    what: &str,
    hosts: usize,
    why: &str,
    need: impl Fn(usize) -> u64,
) -> Result<(), PolicyError> {
    let n = need(hosts);
    if n <= MEMORY_LIMIT {
        return Ok(());
    }
    Err(PolicyError::TooLarge(format!(
        "{what} for {hosts} hosts would allocate about {} GiB, above the limit of {} GiB ({why}); at most {} hosts",
        n.div_ceil(1 << 30),
        MEMORY_LIMIT >> 30,
        max_hosts_within(need)
    )))
}

/// An evaluation's need for `hosts` hosts at `bits` (linear in h).
pub fn eval_need(hosts: usize, bits: u32) -> u64 {
    (hosts as u64)
        .saturating_mul(EVAL_VALUES_PER_HOST * float_bytes(bits) + EVAL_TEXT_BYTES_PER_HOST)
}

/// Refuses an evaluation whose per-host vectors exceed the limit.
pub fn check_eval_hosts(hosts: usize, bits: u32) -> Result<(), PolicyError> {
    check_hosts(
        "an evaluation",
        hosts,
        "one value per host at two precisions",
        |h| eval_need(h, bits),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_the_edge() {
        // The bisection's answer fits and one more host does not (from the definitions).
        for bits in [64, 132, 3400] {
            let m = max_hosts_within(|h| eval_need(h, bits));
            assert!(check_eval_hosts(m, bits).is_ok());
            assert!(check_eval_hosts(m + 1, bits).is_err());
        }
        // 10^5 hosts (a count that once ended in a broken pipe) fit; 10^12 do not.
        assert!(check_eval_hosts(100_000, 132).is_ok());
        assert!(check_eval_hosts(1_000_000_000_000, 132).is_err());
    }
}
