//! A file's `[setup]`: the model it names (selected from the registry, which compiles the
//! model's own keys) and the keys every model shares (`model`, `digits`).

use super::names::{check_names, Names};
use crate::claims::registry;
use crate::claims::schema::FileCtx;
use crate::claims::scope::SystemSpec;
use crate::claims::system::DEFAULT_MODEL;
use crate::claims::ClaimError;
use crate::num::check_digits;
use serde::Deserialize;
use std::sync::Arc;
use toml::Spanned;

/// Default significant digits of a claim's computations (two-precision certified).
pub const DEFAULT_CLAIM_DIGITS: u32 = 20;
/// Fewest digits a claim may ask for.
pub const MIN_CLAIM_DIGITS: i64 = 5;
/// Most digits a claim may ask for (claims are meant to run in seconds).
pub const MAX_CLAIM_DIGITS: i64 = 1000;

/// The keys every `[setup]` may give, whatever its model.
#[derive(Debug, Deserialize)]
struct SharedSetupKeys {
    #[serde(default)]
    model: Option<Spanned<String>>,
    #[serde(default)]
    digits: Option<Spanned<i64>>,
}

/// A file read for its `[setup]`'s shared keys only (the model reads the rest).
#[derive(Debug, Deserialize)]
struct SharedSetup {
    setup: SharedSetupKeys,
}

/// The `[setup]` of a claim or figure file: its model's spec and the digits. `vars` are
/// the names its templates may use.
pub(crate) fn compile_system(
    c: &FileCtx,
    vars: &[String],
) -> Result<(Arc<dyn SystemSpec>, u32), ClaimError> {
    let shared = c.parse::<SharedSetup>()?.setup;
    let model_name = shared
        .model
        .as_ref()
        .map_or(DEFAULT_MODEL.to_string(), |m| {
            m.get_ref().trim().to_string()
        });
    let reg = registry();
    let Some(model) = reg.get_model(&model_name) else {
        let sp = shared.model.as_ref().map(|m| m.span()).unwrap_or(0..0);
        return c.err(
            sp,
            "setup.model",
            format!(
                "unknown model '{model_name}' ({})",
                reg.model_names().join(", ")
            ),
        );
    };
    let system: Arc<dyn SystemSpec> = Arc::from(model.compile(c, vars)?);
    // The setup's own expressions name what a check's may: a typo (`load = "lod"`) is an
    // error of the file, not a point that cannot be computed.
    let names = Names {
        vars,
        overridable: vars,
        system: system.as_ref(),
        grid: &[],
    };
    for (span, key, e) in c.setup_exprs() {
        check_names(c, &e, span, &key, &names)?;
    }
    let digits = match &shared.digits {
        None => DEFAULT_CLAIM_DIGITS,
        Some(d) => {
            if !(MIN_CLAIM_DIGITS..=MAX_CLAIM_DIGITS).contains(d.get_ref()) {
                return c.err(
                    d.span(),
                    "setup.digits",
                    format!("digits must be between {MIN_CLAIM_DIGITS} and {MAX_CLAIM_DIGITS}"),
                );
            }
            check_digits(*d.get_ref())
                .or_else(|e| c.err(d.span(), "setup.digits", e.to_string()))?
        }
    };
    Ok((system, digits))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `[setup]` without `model` compiles with a registered model.
    #[test]
    fn the_default_model_is_registered() {
        assert!(
            registry().get_model(DEFAULT_MODEL).is_some(),
            "DEFAULT_MODEL '{DEFAULT_MODEL}' is not among {:?}",
            registry().model_names()
        );
    }
}
