//! The plain per-server simulator of JSQ(d) (the module docs of [`super`]): every server
//! keeps its own count; O(d + N) per event, an independent implementation to test the
//! occupancy simulator against.

use super::{Counts, Obs, Plan, PER_SERVER_MAX, STREAM_EVENTS, STREAM_SAMPLES};
use crate::lb::model::{JsqSystem, LbError, ModelKind, Sampling};
use crate::sim::rng::{exp1, index, unit_f64};
use crate::sim::{Simulator, Streams};

/// The plain per-server simulator (module docs).
#[derive(Debug, Clone)]
pub struct PerServerSim {
    system: JsqSystem,
    plan: Plan,
}

impl PerServerSim {
    /// A simulator of `system` over `plan`; at most [`PER_SERVER_MAX`] servers.
    pub fn new(system: &JsqSystem, plan: &Plan) -> Result<Self, LbError> {
        plan.check(system)?;
        if system.servers() > PER_SERVER_MAX {
            return Err(LbError::BadInput(format!(
                "the per-server simulator takes at most {PER_SERVER_MAX} servers"
            )));
        }
        Ok(PerServerSim {
            system: system.clone(),
            plan: plan.clone(),
        })
    }
}

impl Simulator for PerServerSim {
    type Tally = Obs;

    fn replicate(&self, streams: &Streams) -> Obs {
        let mut ev = streams.rng(STREAM_EVENTS);
        let mut sm = streams.rng(STREAM_SAMPLES);
        let n = self.system.servers() as usize;
        let d = self.system.d().d as usize;
        let pools = self.system.model().kind() == ModelKind::Pools;
        let cap = self.system.model().buffer().map_or(u32::MAX, |b| b);
        let lam = self.system.model().lambda() * n as f64;
        // Servers from the start occupancy: server j has #{i : Q_i > j} tasks.
        let mut x = vec![0u32; n];
        for (j, xj) in x.iter_mut().enumerate() {
            *xj = self.plan.start.iter().filter(|&&q| q as usize > j).count() as u32;
        }
        let mut perm: Vec<usize> = (0..n).collect();
        // Q_i for i = 0..: counts of servers with at least i tasks.
        let mut q: Vec<u64> = vec![0; 2];
        let recount = |x: &[u32], q: &mut Vec<u64>| {
            let top = x.iter().copied().max().unwrap_or(0) as usize;
            q.clear();
            q.resize(top + 2, 0);
            for &v in x {
                for qi in q.iter_mut().take(v as usize + 1) {
                    *qi += 1;
                }
            }
        };
        recount(&x, &mut q);
        let mut busy = x.iter().filter(|&&v| v > 0).count() as u64;
        let mut tasks: u64 = x.iter().map(|&v| u64::from(v)).sum();
        let mut acc: Vec<f64> = Vec::new();
        let mut acc2: Vec<f64> = Vec::new();
        let nf = n as f64;
        let reference = &self.plan.reference;
        let own_reference = &self.plan.own_reference;
        let mut dist = 0.0f64;
        let mut own_dist = 0.0f64;
        let (t_warm, t_end) = (self.plan.warmup, self.plan.warmup + self.plan.horizon);
        let times = &self.plan.sample_times;
        let mut next_sample = 0;
        let mut trajectory = Vec::new();
        let mut t = 0.0f64;
        let mut c = Counts::default();
        let mut drawn = 0u64;
        loop {
            let dep = if pools { tasks as f64 } else { busy as f64 };
            let rate = lam + dep;
            let tn = t + exp1(&mut ev) / rate;
            let tstop = tn.min(t_end);
            while next_sample < times.len() && times[next_sample] < tstop {
                trajectory.push(q[1..].iter().map(|&v| v as f64).collect::<Vec<f64>>());
                next_sample += 1;
            }
            // Time integrals over [max(t, warm), min(tn, end)), every level (no laziness).
            let (a, b) = (t.max(t_warm), tstop);
            if b > a {
                if acc.len() < q.len() - 1 {
                    acc.resize(q.len() - 1, 0.0);
                    acc2.resize(q.len() - 1, 0.0);
                }
                for i in 1..q.len() {
                    let v = q[i] as f64;
                    // Level 1 squared about N: the idle servers (as OccupancySim).
                    let c = if i == 1 { nf - v } else { v };
                    acc[i - 1] += v * (b - a);
                    acc2[i - 1] += c * c * (b - a);
                }
                // Σ_i |Q_i − N r_i| over every level of the state and of the reference.
                let gap = |reference: &[f64]| -> f64 {
                    let levels = (q.len() - 1).max(reference.len());
                    (1..=levels)
                        .map(|i| {
                            let v = q.get(i).copied().unwrap_or(0) as f64;
                            let r = reference.get(i - 1).copied().unwrap_or(0.0);
                            (v - nf * r).abs()
                        })
                        .sum()
                };
                if !reference.is_empty() {
                    dist += gap(reference) * (b - a);
                }
                if !own_reference.is_empty() {
                    own_dist += gap(own_reference) * (b - a);
                }
            }
            if tn >= t_end {
                break;
            }
            t = tn;
            c.events += 1;
            let measuring = t >= t_warm;
            if measuring {
                c.measured += 1;
            }
            if unit_f64(&mut ev) * rate < lam || dep == 0.0 {
                // Sample d servers; keep the first minimum in sample order.
                let mut best = usize::MAX;
                for k in 0..d {
                    let s = match self.system.sampling() {
                        Sampling::Without => {
                            let r = k + index(&mut sm, n - k);
                            perm.swap(k, r);
                            perm[k]
                        }
                        Sampling::With => index(&mut sm, n),
                    };
                    if best == usize::MAX || x[s] < x[best] {
                        best = s;
                    }
                }
                drawn += d as u64;
                if measuring {
                    c.arrivals += 1;
                }
                if x[best] >= cap {
                    if measuring {
                        c.blocked += 1;
                    }
                } else {
                    x[best] += 1;
                    let v = x[best] as usize;
                    if v >= q.len() {
                        q.resize(v + 1, 0);
                    }
                    q[v] += 1;
                    if v == 1 {
                        busy += 1;
                    }
                    tasks += 1;
                }
            } else {
                // A busy server uniformly (queues) or a pool by its task count (pools).
                let target = if pools {
                    index(&mut ev, tasks as usize)
                } else {
                    index(&mut ev, busy as usize)
                };
                let mut cum = 0usize;
                let mut chosen = 0;
                for (j, &v) in x.iter().enumerate() {
                    cum += if pools {
                        v as usize
                    } else {
                        usize::from(v > 0)
                    };
                    if cum > target {
                        chosen = j;
                        break;
                    }
                }
                let v = x[chosen] as usize;
                q[v] -= 1;
                x[chosen] -= 1;
                if v == 1 {
                    busy -= 1;
                }
                tasks -= 1;
                while q.len() > 2 && q[q.len() - 1] == 0 && q[q.len() - 2] == 0 {
                    q.pop();
                }
            }
        }
        while next_sample < times.len() {
            trajectory.push(q[1..].iter().map(|&v| v as f64).collect::<Vec<f64>>());
            next_sample += 1;
        }
        while acc.last() == Some(&0.0) && acc.len() > 1 {
            acc.pop();
            acc2.pop();
        }
        Obs {
            servers: n as u64,
            reported_levels: Plan::reported_levels(&self.system),
            replications: 1,
            measured_time: self.plan.horizon,
            level_time: acc,
            level_sq_time: acc2,
            distance_time: (!reference.is_empty()).then_some(dist),
            own_distance_time: (!own_reference.is_empty()).then_some(own_dist),
            scaled_idle_sd_sum: 0.0,
            arrivals: c.arrivals,
            blocked: c.blocked,
            events: c.events,
            measured_events: c.measured,
            samples_drawn: drawn,
            trajectory,
            series: None,
        }
        .finish()
    }
}
