//! Scheduling policies Π1-Π2 of [ARV22] and the copy models.
//!
//! When a server becomes free it picks a job among those whose set contains it (jobs with
//! a copy in service elsewhere included):
//! * **Π1** ranks classes by redundancy: LRF (least redundant first) serves the classes
//!   with the smallest |S_c| first, MRF (most redundant first) the largest, `none` ranks
//!   every class alike. In a nested system the classes at one server have distinct sizes,
//!   so Π1 names one class; elsewhere (redundancy-d) classes of one size tie and Π2
//!   chooses among all their jobs.
//! * **Π2** picks among the jobs of the top rank: FCFS the oldest, ROS a uniformly random
//!   one.
//!
//! FCFS and ROS alone (Π1 = none) are [ARV22]'s redundancy-oblivious policies. The
//! reading is **non-preemptive** by default: a server keeps its copy until it completes
//! or is cancelled. With `preemptive`, an arriving job whose class ranks strictly higher
//! at a busy server takes that server over (preemptive-resume: the interrupted copy keeps
//! its remaining work and stays in the server's queue). Preemption needs a class priority
//! (under FCFS an arrival is always the youngest, under ROS nothing ranks), so it is
//! refused for FCFS and ROS.

use super::classes::ClassSystem;
use super::RedundancyError;

/// Π1: the class priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Priority {
    /// Least redundant first: smallest |S_c| first.
    Lrf,
    /// Most redundant first: largest |S_c| first.
    Mrf,
    /// No class priority.
    None,
}

/// Π2: the order within a priority rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// The oldest job.
    Fcfs,
    /// A uniformly random job.
    Ros,
}

/// A policy Π1-Π2 with its preemption rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Policy {
    /// Π1, which class a server serves first (Gardner et al.'s notation: none, or a
    /// fixed class priority).
    pub priority: Priority,
    /// Π2, which job of that class a server serves first (FCFS, LCFS, ROS, …).
    pub order: Order,
    /// Preemptive-resume class priority (only with a class priority).
    pub preemptive: bool,
}

/// The policy names, as the command line takes them.
pub const POLICY_NAMES: &[&str] = &["fcfs", "ros", "lrf-fcfs", "mrf-fcfs", "lrf-ros", "mrf-ros"];

impl Policy {
    /// Parses `fcfs`, `ros`, `lrf-fcfs`, `mrf-fcfs`, `lrf-ros`, `mrf-ros` (any case).
    ///
    /// ```
    /// use taskassign::redundancy::{Order, Policy, Priority};
    /// let p = Policy::parse("LRF-ROS", false).unwrap();
    /// assert_eq!((p.priority, p.order), (Priority::Lrf, Order::Ros));
    /// assert!(Policy::parse("fcfs", true).is_err()); // no class priority to preempt with
    /// assert!(Policy::parse("sjf", false).is_err());
    /// ```
    pub fn parse(name: &str, preemptive: bool) -> Result<Self, RedundancyError> {
        let n = name.trim().to_ascii_lowercase();
        let (priority, order) = match n.as_str() {
            "fcfs" => (Priority::None, Order::Fcfs),
            "ros" => (Priority::None, Order::Ros),
            "lrf-fcfs" => (Priority::Lrf, Order::Fcfs),
            "mrf-fcfs" => (Priority::Mrf, Order::Fcfs),
            "lrf-ros" => (Priority::Lrf, Order::Ros),
            "mrf-ros" => (Priority::Mrf, Order::Ros),
            _ => {
                return Err(RedundancyError::BadPolicy(format!(
                    "unknown policy '{}' (known: {})",
                    name.trim(),
                    POLICY_NAMES.join(", ")
                )))
            }
        };
        if preemptive && priority == Priority::None {
            return Err(RedundancyError::BadPolicy(format!(
                "--preemptive needs a class priority (lrf-… or mrf-…); {n} has none"
            )));
        }
        Ok(Policy {
            priority,
            order,
            preemptive,
        })
    }

    /// The non-preemptive policy Π1-Π2.
    pub fn new(priority: Priority, order: Order) -> Self {
        Policy {
            priority,
            order,
            preemptive: false,
        }
    }

    /// `lrf-fcfs`, `ros`, …
    pub fn name(&self) -> &'static str {
        match (self.priority, self.order) {
            (Priority::None, Order::Fcfs) => "fcfs",
            (Priority::None, Order::Ros) => "ros",
            (Priority::Lrf, Order::Fcfs) => "lrf-fcfs",
            (Priority::Mrf, Order::Fcfs) => "mrf-fcfs",
            (Priority::Lrf, Order::Ros) => "lrf-ros",
            (Priority::Mrf, Order::Ros) => "mrf-ros",
        }
    }

    /// Whether the policy is plain FCFS (no class priority, the oldest job first): the one
    /// with the product form of Gardner et al. (2016) for exponential i.i.d. copies, which
    /// the exact values, the stability region and the method choices use; every other
    /// policy needs a chain or the simulator.
    ///
    /// ```
    /// use taskassign::redundancy::Policy;
    /// assert!(Policy::parse("fcfs", false).unwrap().has_product_form());
    /// assert!(!Policy::parse("lrf-fcfs", false).unwrap().has_product_form());
    /// assert!(!Policy::parse("ros", false).unwrap().has_product_form());
    /// ```
    pub fn has_product_form(&self) -> bool {
        match (self.priority, self.order) {
            (Priority::None, Order::Fcfs) => true,
            (Priority::None, Order::Ros) | (Priority::Lrf | Priority::Mrf, _) => false,
        }
    }

    /// `non-preemptive` or `preemptive-resume`.
    pub fn preemption(&self) -> &'static str {
        if self.preemptive {
            "preemptive-resume"
        } else {
            "non-preemptive"
        }
    }

    /// The rank of a class with a set of `size` servers: lower ranks are served first.
    pub fn rank(&self, size: usize) -> i64 {
        match self.priority {
            Priority::Lrf => size as i64,
            Priority::Mrf => -(size as i64),
            Priority::None => 0,
        }
    }

    /// The rank of every class of `sys`.
    pub fn ranks(&self, sys: &ClassSystem) -> Vec<i64> {
        sys.classes()
            .iter()
            .map(|c| self.rank(c.set.len()))
            .collect()
    }

    /// The first server (0-based) at which two classes of one rank meet, with the two
    /// classes: where Π1 does not name a single class.
    pub fn tie(&self, sys: &ClassSystem) -> Option<(usize, usize, usize)> {
        let ranks = self.ranks(sys);
        for s in 0..sys.servers() {
            let at: Vec<usize> = (0..sys.classes().len())
                .filter(|&c| sys.classes()[c].set.contains(s))
                .collect();
            for (i, &a) in at.iter().enumerate() {
                for &b in &at[i + 1..] {
                    if ranks[a] == ranks[b] {
                        return Some((s, a, b));
                    }
                }
            }
        }
        None
    }
}

/// Copies of one job: independent requirements, or one requirement shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Copies {
    /// Each copy's requirement drawn independently from the law.
    Iid,
    /// One requirement X per job; its copy at server s takes X/μ_s.
    Identical,
}

impl Copies {
    /// Parses `iid` or `identical`.
    pub fn parse(s: &str) -> Result<Self, RedundancyError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "iid" | "i.i.d." => Ok(Copies::Iid),
            "identical" => Ok(Copies::Identical),
            other => Err(RedundancyError::BadPolicy(format!(
                "unknown copy model '{other}' (known: iid, identical)"
            ))),
        }
    }

    /// `iid` or `identical`.
    pub fn name(&self) -> &'static str {
        match self {
            Copies::Iid => "iid",
            Copies::Identical => "identical",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_ranks_order_classes() {
        for n in POLICY_NAMES {
            assert_eq!(Policy::parse(n, false).unwrap().name(), *n);
        }
        let lrf = Policy::parse("lrf-fcfs", true).unwrap();
        assert!(lrf.rank(1) < lrf.rank(2));
        let mrf = Policy::parse("mrf-ros", false).unwrap();
        assert!(mrf.rank(2) < mrf.rank(1));
        assert_eq!(Policy::parse("ros", false).unwrap().rank(3), 0);
        assert_eq!(lrf.preemption(), "preemptive-resume");
    }

    #[test]
    fn ties_are_found_where_sets_of_one_size_meet() {
        let d = ClassSystem::preset("redundancy-d:k=3,d=2", &["0.9".to_string()]).unwrap();
        assert!(Policy::parse("lrf-fcfs", false).unwrap().tie(&d).is_some());
        let w =
            ClassSystem::preset("w-model", &["0.3".into(), "0.3".into(), "0.6".into()]).unwrap();
        assert!(Policy::parse("lrf-fcfs", false).unwrap().tie(&w).is_none());
        assert!(Policy::parse("fcfs", false).unwrap().tie(&w).is_some());
    }
}
