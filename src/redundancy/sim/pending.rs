//! The pending events of the event loop: at most one arrival and one completion per server,
//! on the calendar of `sim::event` (the reference) or on one clock per server (the default).

use crate::sim::event::{Calendar, EventId};

/// The events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The next job arrives.
    Arrival,
    /// The copy at server s completes.
    Done(u32),
}

/// The pending events of the model: one arrival and at most one completion per server,
/// popped in (time, scheduling order) — the order of [`Calendar`].
pub trait Pending {
    /// Empty, for `k` servers.
    fn for_servers(k: usize) -> Self;
    /// Schedules the (one) next arrival.
    fn arrival_at(&mut self, t: f64);
    /// Schedules the completion at server `s` (none pending there).
    fn done_at(&mut self, s: usize, t: f64);
    /// Cancels the completion pending at server `s`.
    fn cancel(&mut self, s: usize);
    /// Removes the next event.
    fn pop(&mut self) -> Option<(f64, Event)>;
    /// Moves the time origin to `shift`.
    fn rebase(&mut self, shift: f64);
}

/// The events on the calendar of `sim::event` (an indexed heap with cancellation): the
/// reference engine.
#[derive(Debug)]
pub struct CalendarQueue {
    cal: Calendar<Event>,
    ids: Vec<Option<EventId>>,
}

impl Pending for CalendarQueue {
    fn for_servers(k: usize) -> Self {
        CalendarQueue {
            cal: Calendar::with_capacity(k + 1),
            ids: vec![None; k],
        }
    }
    fn arrival_at(&mut self, t: f64) {
        self.cal.schedule_at(t, Event::Arrival);
    }
    fn done_at(&mut self, s: usize, t: f64) {
        self.ids[s] = Some(self.cal.schedule_at(t, Event::Done(s as u32)));
    }
    fn cancel(&mut self, s: usize) {
        if let Some(id) = self.ids[s].take() {
            self.cal.cancel(id);
        }
    }
    fn pop(&mut self) -> Option<(f64, Event)> {
        let (t, e) = self.cal.pop()?;
        if let Event::Done(s) = e {
            self.ids[s as usize] = None;
        }
        Some((t, e))
    }
    fn rebase(&mut self, shift: f64) {
        self.cal.rebase(shift);
    }
}

/// The same events as one clock per server and one for the arrival, the next found by a
/// scan of the busy servers (at most 32) — what a calendar reduces to when every server
/// holds at most one event. Ties are broken by a scheduling counter exactly as the
/// calendar breaks them, so both engines run the same events in the same order (tested
/// job by job).
#[derive(Debug)]
pub struct ServerClocks {
    /// The arrival's key ([`clock_key`]), or [`NO_EVENT`].
    arrival: u128,
    /// Each server's completion key (meaningful where `busy` has its bit).
    done: Vec<u128>,
    busy: u32,
    seq: u64,
}

/// No event pending.
const NO_EVENT: u128 = u128::MAX;
/// `pop`'s name for the arrival: no server has this index (at most 32 servers).
const ARRIVAL_SLOT: u32 = 32;

/// (time, scheduling order) as one integer that orders as the pair does: a non-negative
/// `f64`'s bits order as the number (times are never negative: an event is scheduled at or
/// after the clock, and a rebase shifts by the current time), so the scan in `pop` is one
/// integer comparison per server, without the unpredictable branches of a float compare and
/// a tie test.
#[inline]
fn clock_key(t: f64, seq: u64) -> u128 {
    debug_assert!(t >= 0.0 && t.is_sign_positive(), "negative event time {t}");
    (u128::from(t.to_bits()) << 64) | u128::from(seq)
}

#[inline]
fn key_time(key: u128) -> f64 {
    f64::from_bits((key >> 64) as u64)
}

impl Pending for ServerClocks {
    fn for_servers(k: usize) -> Self {
        ServerClocks {
            arrival: NO_EVENT,
            done: vec![NO_EVENT; k],
            busy: 0,
            seq: 0,
        }
    }
    #[inline]
    fn arrival_at(&mut self, t: f64) {
        self.arrival = clock_key(t, self.seq);
        self.seq += 1;
    }
    #[inline]
    fn done_at(&mut self, s: usize, t: f64) {
        self.done[s] = clock_key(t, self.seq);
        self.seq += 1;
        self.busy |= 1 << s;
    }
    #[inline]
    fn cancel(&mut self, s: usize) {
        self.busy &= !(1u32 << s);
    }
    #[inline]
    fn pop(&mut self) -> Option<(f64, Event)> {
        let mut best = self.arrival;
        let mut which = ARRIVAL_SLOT;
        let mut m = self.busy;
        while m != 0 {
            let s = m.trailing_zeros();
            m &= m - 1;
            let d = self.done[s as usize];
            let less = d < best;
            best = if less { d } else { best };
            which = if less { s } else { which };
        }
        if which == ARRIVAL_SLOT {
            if best == NO_EVENT {
                return None;
            }
            self.arrival = NO_EVENT;
            Some((key_time(best), Event::Arrival))
        } else {
            self.busy &= !(1u32 << which);
            Some((key_time(best), Event::Done(which)))
        }
    }
    fn rebase(&mut self, shift: f64) {
        if self.arrival != NO_EVENT {
            self.arrival = clock_key(key_time(self.arrival) - shift, self.arrival as u64);
        }
        let mut m = self.busy;
        while m != 0 {
            let s = m.trailing_zeros() as usize;
            m &= m - 1;
            let d = self.done[s];
            self.done[s] = clock_key(key_time(d) - shift, d as u64);
        }
    }
}
