//! The system models a claim's `[setup]` may describe, registered in [`register`].
//!
//! | model | file | setup keys |
//! |---|---|---|
//! | `dispatch` (default) | [`dispatch`] | `dist`, `hosts`, `load` / `load_per_host` / `lambda`, `metric` |
//! | `jsq` | [`jsq`] | `kind`, `lambda` / `halfin_whitt`, `servers`, `d`, `buffer`, `sampling` |

pub mod dispatch;
pub mod jsq;

use super::registry::Registry;

/// Registers every model.
pub fn register(r: &mut Registry) {
    r.model(dispatch::Dispatch);
    r.model(jsq::Jsq);
}
