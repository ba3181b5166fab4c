//! The dispatch driver: one replication of h FCFS hosts fed by one arrival stream.
//!
//! Each policy is a [`Kernel`] that takes the jobs in arrival order and returns each job's
//! waiting time; the driver ([`Dispatch`], generic in the kernel) draws sizes and arrival
//! times in blocks of [`BLOCK`] into reusable buffers (no allocation and no dynamic
//! dispatch in the kernels' loop; the only virtual call is the size sampler's, once per
//! job in the fill loop). After every block the clock restarts at 0 (all stored times are
//! shifted), so a waiting time, a difference of two times, keeps full f64 precision in
//! runs of any length.
//!
//! This model fixes a job's waiting at its arrival (FCFS hosts, routing decided on
//! arrival). Policies whose waiting is not fixed at arrival (random order of service,
//! cancelled copies) run on the event calendar of [`crate::sim::event`] instead.
//!
//! Streams: the arrival gaps come from [`STREAM_ARRIVALS`], the sizes from
//! [`STREAM_SIZES`], the kernels' random choices from [`STREAM_ROUTING`].

use super::{Arrivals, SimConfig};
use crate::sim::observe::{names, Key, Sample};
use crate::sim::rng::{exp1, STREAM_ARRIVALS, STREAM_ROUTING, STREAM_SIZES};
use crate::sim::warmup::{JobSeries, Series};
use crate::sim::{Simulator, Streams, TailEvidence, Tally};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Jobs drawn per block (sizes and arrival times are generated a block at a time).
pub const BLOCK: usize = 4096;

/// Sums over the measured jobs of one replication.
#[derive(Debug, Clone, PartialEq)]
pub struct RepStats {
    /// Measured jobs.
    pub n: u64,
    /// Σ W (waiting, including TAGS's wasted service).
    pub sum_w: f64,
    /// Σ X.
    pub sum_x: f64,
    /// Σ W/X.
    pub sum_slowdown: f64,
    /// Σ of the service wasted on hosts that killed the job (TAGS; 0 otherwise).
    pub sum_wasted: f64,
    /// Σ X² over the measured jobs (the heavy-tail evidence, [`crate::sim::TailEvidence`]).
    pub sum_x2: f64,
    /// The largest X² of a measured job (its share of `sum_x2` is the evidence).
    pub max_x2: f64,
    /// Visits per host (jobs served there; for TAGS also jobs killed there).
    pub host_n: Vec<u64>,
    /// Σ of the queueing delay of the visits, per host.
    pub host_w: Vec<f64>,
    /// Jobs simulated, warm-up included.
    pub simulated: u64,
    /// The waiting of every job (warm-up included) in batches
    /// ([`crate::sim::warmup`]).
    pub series: Series,
}

impl Tally for RepStats {
    fn samples(&self, out: &mut Vec<(Key, Sample)>) {
        let per_job = |s: f64| Sample::per_job(s, self.n);
        out.push((Key::scalar(names::WAITING), per_job(self.sum_w)));
        out.push((
            Key::scalar(names::RESPONSE),
            per_job(self.sum_w + self.sum_x),
        ));
        out.push((Key::scalar(names::SLOWDOWN), per_job(self.sum_slowdown)));
        out.push((
            Key::scalar(names::QUEUEING),
            per_job(self.sum_w - self.sum_wasted),
        ));
        out.push((Key::scalar(names::WASTED), per_job(self.sum_wasted)));
        for (j, (&w, &n)) in self.host_w.iter().zip(&self.host_n).enumerate() {
            out.push((Key::at(names::HOST_WAITING, j), Sample::per_job(w, n)));
        }
    }

    fn tail_evidence(&self) -> Option<TailEvidence> {
        Some(TailEvidence::from_sums(
            self.sum_w,
            self.n,
            self.max_x2,
            self.sum_x2,
        ))
    }

    fn events(&self) -> u64 {
        self.simulated
    }

    fn series(&self) -> Option<&Series> {
        Some(&self.series)
    }

    fn measured(&self) -> Option<u64> {
        Some(self.n)
    }
}

impl RepStats {
    /// Empty sums for `hosts` hosts.
    pub fn new(hosts: usize) -> Self {
        RepStats {
            n: 0,
            sum_w: 0.0,
            sum_x: 0.0,
            sum_slowdown: 0.0,
            sum_wasted: 0.0,
            sum_x2: 0.0,
            max_x2: 0.0,
            host_n: vec![0; hosts],
            host_w: vec![0.0; hosts],
            simulated: 0,
            series: Series::default(),
        }
    }

    /// Books a visit to `host` with queueing delay `w` (kernels call it).
    #[inline]
    pub fn visit(&mut self, host: usize, w: f64) {
        self.host_n[host] += 1;
        self.host_w[host] += w;
    }

    /// Books a measured job of size `x` that waited `w` (the driver calls it).
    #[inline]
    pub fn job(&mut self, w: f64, x: f64) {
        self.n += 1;
        self.sum_w += w;
        self.sum_x += x;
        self.sum_slowdown += crate::sim::slowdown(w, x);
        crate::sim::add_square(&mut self.sum_x2, &mut self.max_x2, x);
    }
}

/// A dispatching policy over FCFS hosts, fed jobs in arrival order: the extension point of
/// the dispatch simulators (a new policy is a new kernel). A kernel value is the state at
/// time 0; every replication runs a clone of it. Times are on the driver's clock, which
/// restarts at every block ([`Kernel::rebase`]).
///
/// ```
/// use rand_xoshiro::Xoshiro256PlusPlus;
/// use taskassign::dist::{DistFactory, DistSpec};
/// use taskassign::sim::dispatch::{Dispatch, Kernel, RepStats};
/// use taskassign::sim::dispatch::{simulate, Arrivals, SimConfig};
/// use taskassign::sim::SimPolicy;
/// use taskassign::sim::{Length, Replicator, RunOptions};
/// // "Everything to host 1": one FCFS queue by a Lindley step, written outside the crate.
/// #[derive(Clone)]
/// struct First(f64);
/// impl Kernel for First {
///     fn job(&mut self, t: f64, x: f64, _: &mut Xoshiro256PlusPlus, st: &mut RepStats) -> f64 {
///         let start = self.0.max(t);
///         self.0 = start + x;
///         st.visit(0, start - t);
///         start - t
///     }
///     fn rebase(&mut self, shift: f64) {
///         self.0 -= shift;
///     }
/// }
/// let sizes = DistSpec::parse("exp:rate=1").unwrap().build(64).unwrap().sampler().unwrap();
/// let cfg = SimConfig {
///     policy: SimPolicy::Random, hosts: 1, lambda: 0.5, cutoffs: vec![], sizes,
///     arrivals: Arrivals::Poisson,
///     run: RunOptions {
///         length: Length::Jobs { measured: 20_000, warmup: 1_000 },
///         replications: 4,
///         ..RunOptions::new(Length::jobs(1))
///     },
/// };
/// let mine = Replicator::new(1, 0, 4).unwrap().run(&Dispatch::new(&cfg, First(0.0)), None);
/// // With one host, Random routing is the same queue fed the same jobs.
/// let random = simulate(&cfg, None).unwrap();
/// assert_eq!(mine.unwrap().estimates, random.estimates);
/// ```
pub trait Kernel: Clone + Send + Sync {
    /// The job arriving at `t` with size `x`: records its visits in `st` and returns its
    /// waiting time.
    fn job(&mut self, t: f64, x: f64, rng: &mut Xoshiro256PlusPlus, st: &mut RepStats) -> f64;
    /// Moves the time origin to `shift`: every stored time decreases by `shift`.
    fn rebase(&mut self, shift: f64);
}

/// A dispatch simulator: the jobs of `cfg` fed to kernel `K` (one monomorphised driver per
/// kernel: no dynamic dispatch per job).
pub struct Dispatch<'a, K> {
    cfg: &'a SimConfig,
    kernel: K,
}

impl<'a, K: Kernel> Dispatch<'a, K> {
    /// The jobs of `cfg` (validated) through `kernel` (its state at time 0).
    pub fn new(cfg: &'a SimConfig, kernel: K) -> Self {
        Dispatch { cfg, kernel }
    }
}

impl<K: Kernel> Simulator for Dispatch<'_, K> {
    type Tally = RepStats;
    fn replicate(&self, streams: &Streams) -> RepStats {
        drive(
            self.cfg,
            self.cfg.warmup(),
            streams,
            self.kernel.clone(),
            &mut NoProbe,
        )
    }

    /// The same jobs, the first `warmup` (rounded up to a whole job) discarded.
    fn replicate_from(&self, streams: &Streams, warmup: f64) -> Option<RepStats> {
        let w = warmup.ceil();
        (w.is_finite() && w >= 0.0 && w < u64::MAX as f64).then(|| {
            drive(
                self.cfg,
                w as u64,
                streams,
                self.kernel.clone(),
                &mut NoProbe,
            )
        })
    }
}

impl<K: Kernel> Dispatch<'_, K> {
    /// Runs one replication and also hands every job, warm-up included, to `probe` in
    /// arrival order.
    pub fn replicate_probed<P: JobProbe>(&self, streams: &Streams, probe: &mut P) -> RepStats {
        drive(
            self.cfg,
            self.cfg.warmup(),
            streams,
            self.kernel.clone(),
            probe,
        )
    }
}

/// Sees every job of a replication in arrival order, warm-up included: its size and its
/// waiting time. The driver is generic in the probe, so [`NoProbe`] costs nothing.
pub trait JobProbe {
    /// The job of size `x` waited `w`.
    fn job(&mut self, x: f64, w: f64);
}

/// The probe that does nothing (every ordinary run).
pub struct NoProbe;

impl JobProbe for NoProbe {
    #[inline(always)]
    fn job(&mut self, _: f64, _: f64) {}
}

/// Records every job's waiting time, in arrival order.
impl JobProbe for Vec<f64> {
    #[inline]
    fn job(&mut self, _: f64, w: f64) {
        self.push(w);
    }
}

/// The replication driver: `warmup` jobs, then the measured jobs, drawn in blocks; the
/// waiting of every job goes to the series.
fn drive<K: Kernel, P: JobProbe>(
    cfg: &SimConfig,
    warmup: u64,
    streams: &Streams,
    mut kernel: K,
    probe: &mut P,
) -> RepStats {
    let mut ra = streams.rng(STREAM_ARRIVALS);
    let mut rx = streams.rng(STREAM_SIZES);
    let mut rr = streams.rng(STREAM_ROUTING);
    let mean_gap = 1.0 / cfg.lambda;
    let mut xs = vec![0.0f64; BLOCK];
    let mut ts = vec![0.0f64; BLOCK];
    let mut t = 0.0f64;
    let mut st = RepStats::new(cfg.hosts);
    let mut series = JobSeries::new(warmup.saturating_add(cfg.jobs()), warmup);
    for (phase_jobs, measured) in [(warmup, false), (cfg.jobs(), true)] {
        if measured {
            st = RepStats::new(cfg.hosts);
        }
        let mut left = phase_jobs;
        while left > 0 {
            let b = usize::try_from(left).map_or(BLOCK, |l| l.min(BLOCK));
            // Sizes and gaps are drawn in the same loop: the sampler is a virtual call
            // whose latency (a `pow` for Bounded Pareto) the CPU hides behind the
            // independent gap generation only when both sit in one loop body (measured:
            // 1.7× faster than two separate loops).
            match &cfg.arrivals {
                Arrivals::Poisson => {
                    cfg.sizes.fill(&mut rx, &mut xs[..b]);
                    for tt in ts[..b].iter_mut() {
                        // Exp(λ) gap: an Exp(1) ziggurat variate times 1/λ.
                        t += exp1(&mut ra) * mean_gap;
                        *tt = t;
                    }
                }
                Arrivals::Renewal { gaps, scale } => {
                    for (tt, x) in ts[..b].iter_mut().zip(xs[..b].iter_mut()) {
                        *x = cfg.sizes.sample(&mut rx);
                        t += gaps.sample(&mut ra) * scale;
                        *tt = t;
                    }
                }
            }
            for (&tt, &x) in ts[..b].iter().zip(&xs[..b]) {
                let w = kernel.job(tt, x, &mut rr, &mut st);
                st.job(w, x);
                series.push(w);
                probe.job(x, w);
            }
            // Restart the clock at every block, so that times stay small and the waits
            // (differences of times) keep full f64 precision however long the run.
            kernel.rebase(t);
            t = 0.0;
            left -= b as u64;
        }
    }
    st.simulated = warmup.saturating_add(cfg.jobs());
    st.series = series.finish();
    st
}
