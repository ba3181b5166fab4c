//! Named observables: what a simulator measures, read by name.
//!
//! A simulator's replication reports its measurements as [`Sample`]s under a [`Key`] — a
//! name such as `waiting` or `host_waiting`, and for a vector an index (`host_waiting[2]`,
//! later `occupancy[i]`, `response[class]`). The replication runner
//! ([`crate::sim::Replicator`]) turns the samples of all replications into an [`Estimates`]
//! map, a mean with its 95 % half-width per key, so that claims and reports read any
//! simulator's results the same way, without knowing its per-replication sums.
//!
//! Every estimate is a ratio Σ_r S_r / Σ_r w_r over the replications r: S_r is the sum of
//! the quantity over what replication r measured, w_r the measure it is averaged over —
//! the count of jobs (or visits) for a per-job mean, the length of the observation window
//! for a time average (the occupancy of a queue, the number in system). The half-width is
//! the delta-method interval of [`crate::sim::stats`].
//!
//! Indices are 0-based positions in the vector (host 1 is `host_waiting[0]`, as in the
//! JSON arrays); names are the output keys (ARCHITECTURE.md, "Simulators").

pub use super::stats::Sample;
use super::stats::{ratio_estimate_weighted, Estimate};
use std::fmt;

/// The names of the observables of today's simulators (one place, so that claims, reports
/// and simulators spell them alike).
pub mod names {
    /// Mean waiting time before service (TAGS: queueing plus wasted service).
    pub const WAITING: &str = "waiting";
    /// Mean response time (waiting plus the job's own service); `response[c]` per class.
    pub const RESPONSE: &str = "response";
    /// Mean slowdown W/X.
    pub const SLOWDOWN: &str = "slowdown";
    /// Mean queueing delay (waiting minus wasted service).
    pub const QUEUEING: &str = "queueing";
    /// Mean service wasted on hosts that killed the job (TAGS).
    pub const WASTED: &str = "wasted";
    /// Mean queueing delay per visit, per host (`host_waiting[i]`, host i + 1).
    pub const HOST_WAITING: &str = "host_waiting";
    /// Time-average number of jobs in the system.
    pub const NUMBER: &str = "number";
    /// Mean of the squared waiting time, E\[W²\].
    pub const WAITING_SQUARED: &str = "waiting_squared";
    /// Mean of the squared response time, E\[T²\]; `response_squared[c]` per class.
    pub const RESPONSE_SQUARED: &str = "response_squared";
    /// Time-average fraction of servers with at least i + 1 tasks (`occupancy[i]` is
    /// q_{i+1}), for the occupancy simulators.
    pub const OCCUPANCY: &str = "occupancy";
}

/// The name of an observable and, for a vector, the position in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    /// The observable's name (see [`names`]).
    pub name: &'static str,
    /// The position in a vector observable; `None` for a scalar.
    pub index: Option<usize>,
}

impl Key {
    /// A scalar observable.
    pub const fn scalar(name: &'static str) -> Self {
        Key { name, index: None }
    }

    /// Element `index` (0-based) of a vector observable.
    pub const fn at(name: &'static str, index: usize) -> Self {
        Key {
            name,
            index: Some(index),
        }
    }

    /// True when this key is called `name` and has the index `index`.
    pub fn is(&self, name: &str, index: Option<usize>) -> bool {
        self.name == name && self.index == index
    }
}

/// `name` or `name[index]`.
impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            None => write!(f, "{}", self.name),
            Some(i) => write!(f, "{}[{i}]", self.name),
        }
    }
}

/// Estimates by name, in the order the simulator reports them.
///
/// ```
/// use taskassign::sim::{names, Estimates, Key, Sample};
/// // Two replications of a per-job mean: 10 jobs summing to 10, 10 jobs summing to 30.
/// let e = Estimates::from_columns(vec![(
///     Key::scalar(names::WAITING),
///     vec![Sample::per_job(10.0, 10), Sample::per_job(30.0, 10)],
/// )]);
/// let w = e.scalar(names::WAITING).unwrap();
/// assert_eq!(w.mean, 2.0);
/// assert_eq!(w.count, 20);
/// assert!(e.find("waiting").is_some() && e.find("host_waiting[0]").is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Estimates {
    entries: Vec<(Key, Estimate)>,
}

impl Estimates {
    /// The estimates of the given columns: per key, the samples of every replication in
    /// replication order.
    pub fn from_columns(columns: Vec<(Key, Vec<Sample>)>) -> Self {
        Estimates {
            entries: columns
                .into_iter()
                .map(|(k, c)| (k, ratio_estimate_weighted(&c)))
                .collect(),
        }
    }

    /// The estimate under `key`.
    pub fn get(&self, key: Key) -> Option<&Estimate> {
        self.entries.iter().find(|(k, _)| *k == key).map(|(_, e)| e)
    }

    /// The scalar observable `name`.
    pub fn scalar(&self, name: &str) -> Option<&Estimate> {
        self.entries
            .iter()
            .find(|(k, _)| k.is(name, None))
            .map(|(_, e)| e)
    }

    /// Element `index` of the vector observable `name`.
    pub fn element(&self, name: &str, index: usize) -> Option<&Estimate> {
        self.entries
            .iter()
            .find(|(k, _)| k.is(name, Some(index)))
            .map(|(_, e)| e)
    }

    /// The elements of the vector observable `name`, in index order (empty when there is
    /// none).
    pub fn vector(&self, name: &str) -> Vec<Estimate> {
        let mut v: Vec<(usize, Estimate)> = self
            .entries
            .iter()
            .filter_map(|(k, e)| match k.index {
                Some(i) if k.name == name => Some((i, *e)),
                _ => None,
            })
            .collect();
        v.sort_by_key(|(i, _)| *i);
        v.into_iter().map(|(_, e)| e).collect()
    }

    /// The estimate written as in the output, `name` or `name[index]`.
    pub fn find(&self, text: &str) -> Option<&Estimate> {
        let t = text.trim();
        match t.strip_suffix(']').and_then(|s| s.split_once('[')) {
            Some((name, i)) => self.element(name.trim(), i.trim().parse().ok()?),
            None => self.scalar(t),
        }
    }

    /// Every (key, estimate), in the simulator's order.
    pub fn iter(&self) -> impl Iterator<Item = &(Key, Estimate)> {
        self.entries.iter()
    }

    /// The keys, in the simulator's order.
    pub fn keys(&self) -> impl Iterator<Item = Key> + '_ {
        self.entries.iter().map(|(k, _)| *k)
    }

    /// Number of estimates.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there is no estimate.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_display_and_lookup() {
        assert_eq!(Key::scalar("waiting").to_string(), "waiting");
        assert_eq!(Key::at("host_waiting", 2).to_string(), "host_waiting[2]");
        let s = |x: f64| vec![Sample::per_job(x, 1), Sample::per_job(x, 1)];
        let e = Estimates::from_columns(vec![
            (Key::scalar("response"), s(5.0)),
            (Key::at("response", 1), s(2.0)),
            (Key::at("response", 0), s(1.0)),
        ]);
        assert_eq!(e.scalar("response").map(|x| x.mean), Some(5.0));
        let v: Vec<f64> = e.vector("response").iter().map(|x| x.mean).collect();
        assert_eq!(v, [1.0, 2.0]);
        assert_eq!(e.find(" response[1] ").map(|x| x.mean), Some(2.0));
        assert!(e.find("response[x]").is_none());
        assert_eq!(e.len(), 3);
    }

    #[test]
    fn time_averages_weigh_by_duration() {
        // ∫N dt = 3 over 2 time units and 1 over 2: (3 + 1)/(2 + 2) = 1.
        let e = Estimates::from_columns(vec![(
            Key::scalar(names::NUMBER),
            vec![Sample::per_time(3.0, 2.0, 7), Sample::per_time(1.0, 2.0, 5)],
        )]);
        let n = e.scalar(names::NUMBER).copied();
        assert_eq!(n.map(|x| (x.mean, x.count)), Some((1.0, 12)));
    }
}
