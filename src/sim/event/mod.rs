//! Event-driven simulation: a calendar of future events, for the models whose waiting is
//! not fixed at a job's arrival.
//!
//! The dispatch driver ([`crate::sim::dispatch`]) needs no event list: with FCFS hosts and
//! routing decided on arrival, a job's waiting follows from the hosts' states when it
//! arrives. Random order of service, cancelled copies (redundancy with cancel-on-complete)
//! or preemption break that: what happens to a job depends on later events. Such a model
//! keeps its state (queues, busy servers) and a [`Calendar`] of its future events, pops
//! the earliest, updates the state and schedules what follows (Law & Kelton, *Simulation
//! Modeling and Analysis*, 3rd ed., §1.3: next-event time advance). The method is exact:
//! time jumps from event to event, with no discretisation.
//!
//! A model is a [`crate::sim::Simulator`] whose replication runs such a loop from its
//! [`crate::sim::Streams`], so it inherits the replication runner's guarantees (parallel
//! replications, identical numbers for any thread count, Student-t half-widths, named
//! estimates). Ties between events at equal times are broken by scheduling order, so runs
//! are deterministic. `mgc`, the M/G/c queue with FCFS or ROS service, is the model that
//! proves the engine (closed forms, and the dispatch kernels job by job under common
//! random numbers) and the template for the next ones (redundancy: one completion per
//! busy copy on the calendar, [`Calendar::cancel`] for the copies a completion removes).

pub(crate) mod calendar;
pub(crate) mod mgc;

pub use mgc::{Discipline, Mgc, MgcTally};

pub use calendar::{Calendar, EventId};
