//! The record of `quantity`: one expression of the claim language evaluated once by the
//! claims engine ([`crate::claims::scope::Scope`]) at its two precisions.

use super::{digits_note, Record};
use crate::claims::value::Pair;
use crate::num::certify::{certify_pair, to_sci};

/// Significant digits of a simulated value's half-width (as a sweep's quantity records).
const HALF_WIDTH_DIGITS: u32 = 3;

/// The `[setup]` of a `quantity` command as given (the keys that were set, in the
/// order `dist, hosts, load | load_per_host | lambda, metric`).
pub type SetupKeys<'a> = &'a [(&'a str, String)];

/// The record printed by `quantity` (keys `quantity, value, digits`, then the setup
/// keys given, `half_width` and `warnings` when the value rests on a simulation, and
/// `notes`): `value` carries the significant digits on which the two precisions agree.
pub fn quantity_record(text: &str, setup: SetupKeys, v: &Pair, wanted: u32) -> Record {
    let c = certify_pair(&v.lo, &v.hi, wanted);
    let mut rec = Record::default();
    rec.text("quantity", text);
    rec.num("value", &c);
    rec.int("digits", u64::from(c.digits));
    for (k, val) in setup {
        rec.text(k, val.clone());
    }
    let mut notes = Vec::new();
    if let Some(sim) = &v.sim {
        rec.text("half_width", to_sci(&sim.half_width, HALF_WIDTH_DIGITS));
        rec.texts("warnings", &sim.warnings);
        notes.push(
            "value rests on a simulation: half_width is its 95% half-width (the digits are those of the simulated mean, not certified)"
                .to_string(),
        );
    } else if let Some(n) = digits_note(c.digits, wanted) {
        notes.push(n);
    }
    rec.texts("notes", &notes);
    rec
}
