//! `num::levels::explore` with a size hint (the space reserved at once, issue 26's memory
//! work) against the same chain explored without one.

use taskassign::num::levels::{explore, stationary, LevelChain};

/// Two M/M/1 queues fed at rates 0.3 and 0.4, truncated to a + b ≤ 40, with a size hint
/// that may be exact, too small or too large (it must change nothing but the memory).
struct Two {
    hint: Option<usize>,
}

const TOP: u32 = 40;

impl LevelChain for Two {
    type State = (u32, u32);
    fn start(&self) -> (u32, u32) {
        (0, 0)
    }
    fn level(&self, s: &(u32, u32)) -> u32 {
        s.0 + s.1
    }
    fn inside(&self, s: &(u32, u32)) -> bool {
        s.0 + s.1 <= TOP
    }
    fn transitions(&self, s: &(u32, u32), out: &mut Vec<((u32, u32), f64)>) {
        out.push(((s.0 + 1, s.1), 0.3));
        out.push(((s.0, s.1 + 1), 0.4));
        if s.0 > 0 {
            out.push(((s.0 - 1, s.1), 1.0));
        }
        if s.1 > 0 {
            out.push(((s.0, s.1 - 1), 1.0));
        }
    }
    fn growth(&self, s: &(u32, u32)) -> f64 {
        f64::from(s.0 + s.1)
    }
    fn lyapunov(&self, _: &(u32, u32)) -> Option<[f64; 4]> {
        None
    }
    fn on_boundary(&self, s: &(u32, u32)) -> bool {
        s.0 + s.1 == TOP
    }
    fn size_hint(&self) -> Option<usize> {
        self.hint
    }
}

#[test]
fn a_size_hint_changes_nothing_but_the_memory() {
    // The triangle a + b ≤ 40 holds 41·42/2 = 861 states (counted by hand). Explored and
    // solved without a hint (the path before the hint existed) and with an exact, a too
    // small and a too large one: the same states in the same order, the same transitions,
    // and stationary vectors within 1e-11 of each other (the same arithmetic on the same
    // arrays, so in fact equal).
    let plain = explore(&Two { hint: None }, 100_000).unwrap();
    assert_eq!(plain.len(), 861);
    let want = stationary(&plain).unwrap();
    // The mass of the truncated chain sits near the origin: an independent check that the
    // solve is the one of two M/M/1 queues, whose product form (1 − ρ_1)(1 − ρ_2) =
    // 0.7·0.6 = 0.42 at (0, 0) the truncation at 40 (mass beyond about 0.4^40) does not
    // move by 1e-11.
    assert!((want.pi[0] - 0.42).abs() < 1e-11, "{}", want.pi[0]);
    for hint in [Some(861), Some(10), Some(1_000_000)] {
        let c = explore(&Two { hint }, 100_000).unwrap();
        assert_eq!(c.states, plain.states, "{hint:?}");
        assert_eq!(c.transitions(), plain.transitions(), "{hint:?}");
        let st = stationary(&c).unwrap();
        for (a, b) in st.pi.iter().zip(&want.pi) {
            assert!((a - b).abs() <= 1e-11, "{hint:?}: {a} vs {b}");
        }
    }
}
