//! What an optimum for `h` hosts allocates, bounded from its inputs before anything is
//! allocated: the f64 grid of the global search has about 3·[`fast::fast_grid_size`] + h
//! points N_f, its table of host terms N_f² f64 and its layered DP h·N_f back-pointers; the
//! MPFR grid (at most [`grid::GRID_MAX`] + h points N_m) keeps N_m²/2 terms of the working
//! precision and h·N_m back-pointers. Both grow as h², so a request beyond
//! [`crate::policy::budget::MEMORY_LIMIT`] is refused (exit 2) with the largest host count
//! that fits, instead of aborting in the allocator.

use super::{fast, grid};
use crate::policy::budget::{check_hosts, float_bytes};
use crate::policy::PolicyError;

/// The bytes an optimum for `hosts` hosts plans to allocate at `bits` (an upper estimate
/// of the two grids, their term tables and the DP back-pointers; saturating).
pub fn optimize_footprint(hosts: usize, bits: u32) -> u64 {
    let h = hosts as u64;
    let nf = (3 * fast::fast_grid_size(hosts) as u64).saturating_add(h);
    let nm = (grid::GRID_MAX as u64).saturating_add(h);
    let fast = nf.saturating_mul(nf).saturating_mul(8);
    let fast_dp = h.saturating_mul(nf).saturating_mul(16);
    let mpfr = (nm.saturating_mul(nm) / 2).saturating_mul(float_bytes(bits) + 8);
    let mpfr_dp = h.saturating_mul(nm).saturating_mul(8 + float_bytes(bits));
    fast.saturating_add(fast_dp)
        .saturating_add(mpfr)
        .saturating_add(mpfr_dp)
}

/// Refuses (an input error, exit 2) an optimum for `hosts` hosts at `bits` whose planned
/// allocation exceeds [`crate::policy::budget::MEMORY_LIMIT`].
pub fn check_optimize_hosts(hosts: usize, bits: u32) -> Result<(), PolicyError> {
    check_hosts(
        "an optimum",
        hosts,
        "its grids and tables grow as hosts²",
        |h| optimize_footprint(h, bits),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::budget::max_hosts_within;

    /// The largest host count whose optimum fits the limit at `bits`.
    fn max_optimize_hosts(bits: u32) -> usize {
        max_hosts_within(|h| optimize_footprint(h, bits))
    }

    #[test]
    fn footprint_grows_as_hosts_squared() {
        // From the formula: for h ≫ GRID_MAX, both tables are ~h² (8 + (f+8)/2 bytes per
        // pair), so doubling h multiplies the footprint by about 4 (within 10 %).
        let a = optimize_footprint(100_000, 128) as f64;
        let b = optimize_footprint(200_000, 128) as f64;
        assert!((b / a - 4.0).abs() < 0.4, "ratio {}", b / a);
    }

    #[test]
    fn limit_is_the_edge() {
        // The bisection's answer fits and one more host does not.
        for bits in [64, 128, 3400, 33_300] {
            let m = max_optimize_hosts(bits);
            assert!(check_optimize_hosts(m, bits).is_ok());
            assert!(check_optimize_hosts(m + 1, bits).is_err());
        }
        // 10^5 and 10^6 hosts (counts that once aborted in the allocator) are refused at 30
        // digits (132 bits).
        assert!(check_optimize_hosts(100_000, 132).is_err());
        assert!(check_optimize_hosts(1_000_000, 132).is_err());
        // A table of the papers (h ≤ 100) is far inside.
        assert!(check_optimize_hosts(100, 132).is_ok());
    }
}
