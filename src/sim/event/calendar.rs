//! The calendar of future events: an indexed binary min-heap on (time, sequence number).
//!
//! * **Order.** Events leave in increasing time; events at the same time leave in the order
//!   they were scheduled (the sequence number, a counter, breaks the tie), so a run is
//!   deterministic whatever the model's tie structure (equal service times, deterministic
//!   sizes). Times are compared with `f64::total_cmp`: even a NaN the model let through
//!   cannot corrupt the heap (it sorts after +∞).
//! * **Cancellation.** [`Calendar::schedule_at`] returns an [`EventId`]; [`Calendar::cancel`]
//!   removes that event in O(log n) and hands it back (a copy cancelled when another copy of
//!   its job completes). Each id names a slot and the sequence number it was issued with, so
//!   a stale id (its event already left, its slot reused) is refused, not misapplied. No
//!   tombstones are left in the heap: its size is the number of live events.
//! * **Precision.** [`Calendar::rebase`] moves the time origin to a given instant, so that a
//!   model can keep its clock small over runs of any length (as the dispatch driver does per
//!   block): a waiting time, a difference of two times, then keeps full f64 precision.
//!
//! Why a heap: the queueing models here hold at most one pending event per server (its
//! completion) plus the next arrival of each stream, so n is small and O(log n) with a
//! contiguous array is hard to beat; a calendar queue (Brown 1988) or a ladder queue pays
//! off only for many thousands of pending events. Occupancy-count models with exponential
//! clocks need no calendar at all (the next event follows from the total rate).

/// The position of a free slot (no event).
const FREE: usize = usize::MAX;

/// The handle of a scheduled event, for [`Calendar::cancel`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EventId {
    slot: usize,
    seq: u64,
}

#[derive(Debug, Clone)]
struct Entry<E> {
    time: f64,
    seq: u64,
    slot: usize,
    event: E,
}

impl<E> Entry<E> {
    #[inline]
    fn before(&self, other: &Entry<E>) -> bool {
        match self.time.total_cmp(&other.time) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => self.seq < other.seq,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    /// Index in the heap, or [`FREE`].
    pos: usize,
    /// Sequence number of the event in the slot.
    seq: u64,
}

/// Future events of type `E`, popped in (time, scheduling order).
///
/// ```
/// use taskassign::sim::event::Calendar;
/// let mut c = Calendar::new();
/// c.schedule_at(2.0, "b");
/// let a = c.schedule_at(1.0, "a");
/// c.schedule_at(2.0, "c"); // same time as "b": leaves after it
/// c.schedule_at(0.5, "x");
/// assert_eq!(c.cancel(a), Some("a"));
/// assert_eq!(c.cancel(a), None); // a stale id is refused
/// let order: Vec<_> = std::iter::from_fn(|| c.pop()).collect();
/// assert_eq!(order, [(0.5, "x"), (2.0, "b"), (2.0, "c")]);
/// assert_eq!(c.now(), 2.0);
/// ```
#[derive(Debug, Clone)]
pub struct Calendar<E> {
    heap: Vec<Entry<E>>,
    slots: Vec<Slot>,
    free: Vec<usize>,
    next_seq: u64,
    now: f64,
}

impl<E> Default for Calendar<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Calendar<E> {
    /// An empty calendar at time 0.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// An empty calendar at time 0 with room for `n` pending events.
    pub fn with_capacity(n: usize) -> Self {
        Calendar {
            heap: Vec::with_capacity(n),
            slots: Vec::with_capacity(n),
            free: Vec::with_capacity(n),
            next_seq: 0,
            now: 0.0,
        }
    }

    /// The current time: the time of the last event popped (0 at the start, shifted by
    /// [`Calendar::rebase`]).
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at absolute time `time` (≥ [`Calendar::now`]; an earlier time is
    /// the model's bug: the event still leaves first, at a time in the past).
    pub fn schedule_at(&mut self, time: f64, event: E) -> EventId {
        let seq = self.next_seq;
        self.next_seq += 1;
        let pos = self.heap.len();
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s] = Slot { pos, seq };
                s
            }
            None => {
                self.slots.push(Slot { pos, seq });
                self.slots.len() - 1
            }
        };
        self.heap.push(Entry {
            time,
            seq,
            slot,
            event,
        });
        self.sift_up(pos);
        EventId { slot, seq }
    }

    /// The next event's time and event, without removing it.
    pub fn peek(&self) -> Option<(f64, &E)> {
        self.heap.first().map(|e| (e.time, &e.event))
    }

    /// Removes the next event, advances the clock to its time and returns both.
    pub fn pop(&mut self) -> Option<(f64, E)> {
        let e = self.remove_at(0)?;
        self.now = e.time;
        Some((e.time, e.event))
    }

    /// Cancels the event `id` and returns it; `None` when it has already left (popped or
    /// cancelled).
    pub fn cancel(&mut self, id: EventId) -> Option<E> {
        let s = *self.slots.get(id.slot)?;
        if s.pos == FREE || s.seq != id.seq {
            return None;
        }
        self.remove_at(s.pos).map(|e| e.event)
    }

    /// True when the event `id` is still pending.
    pub fn is_pending(&self, id: EventId) -> bool {
        self.slots
            .get(id.slot)
            .is_some_and(|s| s.pos != FREE && s.seq == id.seq)
    }

    /// Moves the time origin to `shift`: the clock and every pending time decrease by it.
    pub fn rebase(&mut self, shift: f64) {
        self.now -= shift;
        for e in &mut self.heap {
            e.time -= shift;
        }
        // A common shift keeps the order except where rounding makes two times equal; a
        // rebuild restores the (time, sequence) order exactly. O(n), and n is small.
        for i in (0..self.heap.len() / 2).rev() {
            self.sift_down(i);
        }
    }

    /// Removes the entry at heap position `pos` and frees its slot.
    fn remove_at(&mut self, pos: usize) -> Option<Entry<E>> {
        if pos >= self.heap.len() {
            return None;
        }
        let e = self.heap.swap_remove(pos);
        self.slots[e.slot].pos = FREE;
        self.free.push(e.slot);
        if pos < self.heap.len() {
            self.slots[self.heap[pos].slot].pos = pos;
            // The entry moved into `pos` may belong above or below it.
            let p = self.sift_up(pos);
            self.sift_down(p);
        }
        Some(e)
    }

    /// Moves the entry at `i` up to its place; returns where it ended.
    fn sift_up(&mut self, mut i: usize) -> usize {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[i].before(&self.heap[parent]) {
                self.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
        i
    }

    /// Moves the entry at `i` down to its place.
    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                return;
            }
            let r = l + 1;
            let c = if r < n && self.heap[r].before(&self.heap[l]) {
                r
            } else {
                l
            };
            if self.heap[c].before(&self.heap[i]) {
                self.swap(c, i);
                i = c;
            } else {
                return;
            }
        }
    }

    #[inline]
    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.slots[self.heap[a].slot].pos = a;
        self.slots[self.heap[b].slot].pos = b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::{index, stream_rng, unit_f64};

    /// Random schedules, pops, cancels and rebases against a plain sorted list (the
    /// reference model: the pending events sorted by (time, sequence)).
    #[test]
    fn matches_a_sorted_list_under_random_operations() {
        let mut rng = stream_rng(11, 0, 0, 0);
        let mut cal = Calendar::new();
        let mut reference: Vec<(f64, u64, EventId)> = Vec::new();
        let mut seq = 0u64;
        for step in 0..20_000 {
            match index(&mut rng, 10) {
                // Schedule; times on a coarse grid so that ties are frequent.
                0..=4 => {
                    let t = cal.now() + (index(&mut rng, 8) as f64) * 0.25;
                    let id = cal.schedule_at(t, seq);
                    reference.push((t, seq, id));
                    seq += 1;
                }
                5..=7 => {
                    reference.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                    let want = (!reference.is_empty()).then(|| reference.remove(0));
                    let got = cal.pop();
                    assert_eq!(
                        got.map(|g| (g.0, g.1)),
                        want.map(|w| (w.0, w.1)),
                        "step {step}"
                    );
                }
                8 => {
                    if !reference.is_empty() {
                        let k = index(&mut rng, reference.len());
                        let (_, s, id) = reference.swap_remove(k);
                        assert!(cal.is_pending(id));
                        assert_eq!(cal.cancel(id), Some(s));
                        assert!(!cal.is_pending(id));
                    }
                }
                _ => {
                    // Rebase by a multiple of the grid (exact in binary): the order is kept.
                    let shift = cal.now() * f64::from(unit_f64(&mut rng) < 0.5);
                    cal.rebase(shift);
                    for r in &mut reference {
                        r.0 -= shift;
                    }
                }
            }
            assert_eq!(cal.len(), reference.len());
        }
    }

    #[test]
    fn stale_ids_are_refused_after_slot_reuse() {
        let mut c = Calendar::new();
        let a = c.schedule_at(1.0, 'a');
        assert_eq!(c.pop(), Some((1.0, 'a')));
        let b = c.schedule_at(2.0, 'b'); // reuses a's slot
        assert_eq!(c.cancel(a), None);
        assert_eq!(c.cancel(b), Some('b'));
        assert!(c.is_empty() && c.pop().is_none());
    }
}
