//! Results shared by the points and checks of one claim: computed once under a key that
//! names what was computed and its canonical arguments.

use super::error::QuantityError;
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The key of a cached result: the quantity (or intermediate object) and its canonical
/// arguments (the resolved system and the quantity's own arguments).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CacheKey {
    /// What is cached.
    pub what: &'static str,
    /// Its canonical arguments.
    pub args: String,
}

impl CacheKey {
    /// A key.
    pub fn new(what: &'static str, args: impl Into<String>) -> Self {
        CacheKey {
            what,
            args: args.into(),
        }
    }
}

type Slot = Arc<dyn Any + Send + Sync>;

/// Results shared by the points and checks of one claim (same key, same numbers).
/// Errors are cached too. Two threads asking for one key at once may both compute it
/// (the computations are deterministic, so either result is the result); the cache never
/// blocks one computation on another.
#[derive(Default)]
pub struct Cache {
    map: Mutex<HashMap<CacheKey, Slot>>,
}

impl Cache {
    /// The result under `key`, computed by `f` if it is not there yet.
    pub fn get_or<T: Any + Send + Sync>(
        &self,
        key: CacheKey,
        f: impl FnOnce() -> Result<T, QuantityError>,
    ) -> Result<Arc<T>, QuantityError> {
        let slot = self.map.lock().ok().and_then(|m| m.get(&key).cloned());
        let slot = match slot {
            Some(s) => s,
            None => {
                let s: Slot = Arc::new(f().map(Arc::new));
                if let Ok(mut m) = self.map.lock() {
                    m.insert(key.clone(), s.clone());
                }
                s
            }
        };
        match slot.downcast_ref::<Result<Arc<T>, QuantityError>>() {
            Some(Ok(v)) => Ok(v.clone()),
            Some(Err(e)) => Err(e.clone()),
            None => Err(QuantityError::Internal(format!(
                "cache entry {}|{} of the wrong kind",
                key.what, key.args
            ))),
        }
    }
}
