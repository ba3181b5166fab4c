//! The FCFS recursion: a run without events where every server serves its jobs in arrival
//! order (see [`RedundancySim::fcfs_recursion_applies`]).

use super::{RedundancySim, RedundancyTally, MAX_IN_SYSTEM, REBASE_EVENTS, STOPPED_OVERFLOW};
use crate::sim::rng::{exp1, STREAM_ARRIVALS, STREAM_SIZES};
use crate::sim::warmup::JobSeries;
use crate::sim::Streams;

/// The length at which the recursion first prunes its list of jobs present.
const PRESENT_MIN: usize = 64;

/// The later of two times (never NaN here), as one `maxsd`: `f64::max` spends three more
/// instructions on NaN, on the FCFS recursion's critical path.
#[inline(always)]
fn later(x: f64, y: f64) -> f64 {
    if x > y {
        x
    } else {
        y
    }
}

impl RedundancySim {
    /// One replication by the FCFS recursion (where [`Self::fcfs_recursion_applies`]).
    ///
    /// Each server serves the jobs of its classes oldest first and never leaves one for
    /// another, so the jobs can be taken one at a time in arrival order. With F_s the time
    /// server s is through with every earlier job, job m (arrival A_m, requirements X_ms)
    /// starts at server s at max(A_m, F_s), leaves at D_m = min over s in S_m of
    /// max(A_m, F_s) + X_ms/μ_s, and server s is next free at D_m if it started m before
    /// D_m (it finished m, or m's completion elsewhere cancelled its copy), at F_s otherwise
    /// (it never began m). Later jobs never change D_m, so the run stops at arrival
    /// `warmup + jobs`. It draws what the event loop draws, in the same order (common random
    /// numbers): the class and the next gap of each arrival, then its requirements.
    ///
    /// The measurement is the event loop's. The time average over the window [W0, W1)
    /// (W0 the first measured arrival, W1 the first arrival after the measured ones) is
    /// Σ_m |[A_m, D_m) ∩ [W0, W1)|: the measured jobs' T_m, plus D_m − W0 for the earlier
    /// jobs present at W0, minus D_m − W1 for the jobs present at W1. The jobs present at
    /// an arrival are found in `present`, the (D_m, class) of the jobs that may still be in
    /// system, pruned of those gone by the latest arrival whenever it doubles in length
    /// (amortised O(1) per job). Events: an arrival and a departure per job. The first
    /// `warmup` jobs are discarded; a run with more than [`MAX_IN_SYSTEM`] jobs present
    /// stops (unstable).
    #[inline(never)]
    pub(super) fn fcfs_recursion(
        &self,
        streams: &Streams,
        trace: Option<u64>,
        warmup: u64,
    ) -> RedundancyTally {
        let mut ra = streams.rng(STREAM_ARRIVALS);
        let mut rx = streams.rng(STREAM_SIZES);
        let (k, nc) = (self.k, self.nc);
        let measure = trace.is_none();
        // The two snapshots: the window's ends, or half the horizon and the horizon.
        let (first, end) = match trace {
            Some(h) => (h / 2, h),
            None => (warmup, warmup.saturating_add(self.jobs)),
        };
        // jobs finish their bookkeeping here in arrival order, so the series is filled by a
        // cursor (no index arithmetic per job)
        let mut series = measure.then(|| JobSeries::new(end, first));
        let mut st = RedundancyTally {
            n: vec![0; nc],
            sum_t: vec![0.0; nc],
            sum_t2: vec![0.0; nc],
            area: vec![0.0; nc],
            start_counts: vec![0; nc],
            end_counts: vec![0; nc],
            between: end - first,
            ..Default::default()
        };
        // When each server is through with the jobs so far (current clock).
        let mut free_at = vec![0.0f64; k];
        let mut present: Vec<(f64, u32)> = Vec::with_capacity(PRESENT_MIN);
        let mut prune_at = PRESENT_MIN;
        let mut window_start = 0.0;
        let mut a = exp1(&mut ra) * self.mean_gap;
        let mut id = 0u64;
        loop {
            if id == first || id == end {
                present.retain(|&(d, _)| d > a);
                let counts = if id == first {
                    &mut st.start_counts
                } else {
                    &mut st.end_counts
                };
                for &(_, c) in &present {
                    counts[c as usize] += 1;
                }
                if measure {
                    if id == first {
                        window_start = a;
                        for &(d, c) in &present {
                            st.area[c as usize] += d - a;
                        }
                    } else {
                        for &(d, c) in &present {
                            st.area[c as usize] -= d - a;
                        }
                        st.window = a - window_start;
                    }
                }
                if id == end {
                    break;
                }
            }
            if id % REBASE_EVENTS == 0 && id > 0 {
                // Restart the clock at this arrival (precision over long runs).
                for f in free_at.iter_mut() {
                    *f -= a;
                }
                for p in present.iter_mut() {
                    p.0 -= a;
                }
                window_start -= a;
                a = 0.0;
            }
            let c = if nc == 1 {
                0
            } else {
                self.class_of.sample(&mut ra)
            };
            let next = a + exp1(&mut ra) * self.mean_gap;
            let set = self.sets[c];
            let mut dep = f64::INFINITY;
            let x0 = self.draw_requirements(&mut rx, set, |s, x| {
                let e = later(a, free_at[s]) + x * self.inv_mu[s];
                dep = if e < dep { e } else { dep };
            });
            // Server s is next free at D_m if it started job m before D_m, and at F_s if
            // it never began m; that is max(F_s, D_m) in both cases but one, where F_s < A_m
            // = D_m (a zero requirement at an idle server), and there max gives A_m instead
            // of F_s, which no later job can tell apart (every later start is at or after
            // A_m). One max per server, without a branch on the comparison.
            let mut m = set;
            while m != 0 {
                let s = m.trailing_zeros() as usize;
                m &= m - 1;
                free_at[s] = later(free_at[s], dep);
            }
            if let Some(s) = series.as_mut() {
                s.push(dep - a);
            }
            if measure && id >= first {
                let t = dep - a;
                st.departed(c, t);
                st.area[c] += t;
                st.arrived(x0);
            }
            present.push((dep, c as u32));
            if present.len() >= prune_at {
                present.retain(|&(d, _)| d > a);
                prune_at = (2 * present.len()).max(PRESENT_MIN);
                if measure && present.len() > MAX_IN_SYSTEM {
                    st.stopped = Some(STOPPED_OVERFLOW);
                    st.unfinished = end - id.max(first);
                    st.window = a - window_start;
                    st.arrivals = id;
                    st.events = 2 * id;
                    st.series = series.map(JobSeries::finish);
                    return st;
                }
            }
            a = next;
            id += 1;
        }
        st.arrivals = end;
        st.events = 2 * end;
        st.series = series.map(JobSeries::finish);
        st
    }
}
