//! `taskassign quantity "EXPR" --dist … --hosts … --load …`: one expression of the claim
//! language evaluated once, certified, by the claims engine itself: the options become a
//! dispatch `[setup]` (the keys of a claim file's), compiled and checked against the
//! registry exactly as a claim's check or a sweep's quantity is
//! ([`crate::claims::compile::compile_quantity`]), then evaluated by
//! [`crate::claims::scope::Scope`] at its two precisions. No second implementation of a
//! quantity: `opt(tags).value / opt(sita).value` here is the number `check` judges.

use super::{bad, fail, named, render, Format, Outcome};
use crate::claims::cache::Cache;
use crate::claims::compile::compile_quantity;
use crate::claims::registry;
use crate::claims::scope::Scope;
use crate::claims::ClaimError;
use crate::num::{check_digits, DEFAULT_DIGITS};
use crate::policy::Metric;
use crate::report::quantity::quantity_record;
use clap::Args;
use std::collections::BTreeMap;

/// `taskassign quantity …`.
#[derive(Args, Debug)]
pub(super) struct QuantityArgs {
    /// An expression of the claim language, e.g. "opt(tags).value / opt(sita).value",
    /// "threshold()" or "eval(sita, cutoffs='100').host_load[1]" (`check --quantities`
    /// lists the quantities, their arguments and fields).
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    expr: String,
    /// Job-size distribution, family:key=value,...
    #[arg(long, value_name = "SPEC")]
    dist: String,
    /// Number of hosts h >= 1 (e.g. 4 or 1e6), inf (thresholds only), or an expression.
    #[arg(long, value_name = "H", allow_hyphen_values = true)]
    hosts: Option<String>,
    #[command(flatten)]
    load: QuantityLoad,
    /// The metric of the quantities that take one.
    #[arg(long, value_parser = named::<Metric>())]
    metric: Option<Metric>,
    /// Significant decimal digits wanted (each printed digit is certified: the two
    /// precisions agree on it).
    #[arg(long, default_value_t = i64::from(DEFAULT_DIGITS), allow_hyphen_values = true)]
    digits: i64,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// The load, when the expression needs one (`threshold()` does not): an expression of
/// the claim language like the setup's (`--load "0.9*threshold()"`).
#[derive(Args, Debug)]
#[group(required = false, multiple = false)]
struct QuantityLoad {
    /// Total offered load rho = lambda*E[X], 0 < rho < hosts.
    #[arg(long, value_name = "RHO", allow_hyphen_values = true)]
    load: Option<String>,
    /// Load per host u (rho = u*hosts).
    #[arg(long, value_name = "U", allow_hyphen_values = true)]
    load_per_host: Option<String>,
    /// Arrival rate lambda.
    #[arg(long, value_name = "LAMBDA", allow_hyphen_values = true)]
    lambda: Option<String>,
}

/// The name the setup's errors give in place of a file position.
const SOURCE: &str = "quantity";

/// The option a setup key comes from (`setup.load_per_host` is `--load-per-host`), or the
/// expression itself.
fn option_of(key: &str) -> String {
    match key.strip_prefix("setup.") {
        Some(k) => format!("--{}", k.replace('_', "-")),
        None => "EXPR".to_string(),
    }
}

/// A compile error as the command line says it: the option (or the expression) and the
/// reason, without the position in the generated setup.
fn compile_error(e: ClaimError) -> (i32, String) {
    match e {
        ClaimError::Schema { key, why, .. } => bad(format!("{}: {why}", option_of(&key))),
        other => fail(other),
    }
}

pub(super) fn run_quantity(a: QuantityArgs) -> Outcome {
    let digits = check_digits(a.digits).map_err(bad)?;
    let expr = a.expr.trim().to_string();
    if expr.is_empty() {
        return Err(bad(
            "EXPR is empty: give an expression such as \"threshold()\"",
        ));
    }
    // The setup in the order the record shows it.
    let mut keys: Vec<(&str, String)> = vec![("dist", a.dist.clone())];
    if let Some(h) = &a.hosts {
        keys.push(("hosts", h.clone()));
    }
    for (k, v) in [
        ("load", &a.load.load),
        ("load_per_host", &a.load.load_per_host),
        ("lambda", &a.load.lambda),
    ] {
        if let Some(v) = v {
            keys.push((k, v.clone()));
        }
    }
    if let Some(m) = a.metric {
        keys.push(("metric", m.name().to_string()));
    }
    let mut setup = toml::Table::new();
    for (k, v) in &keys {
        setup.insert((*k).to_string(), toml::Value::String(v.clone()));
    }
    setup.insert("digits".into(), toml::Value::Integer(i64::from(digits)));
    let mut doc = toml::Table::new();
    doc.insert("quantity".into(), toml::Value::String(expr.clone()));
    doc.insert("setup".into(), toml::Value::Table(setup));
    let text = toml::to_string(&doc).map_err(|e| bad(format!("the options: {e}")))?;
    #[derive(serde::Deserialize)]
    struct Doc {
        quantity: toml::Spanned<String>,
    }
    let parsed: Doc = toml::from_str(&text).map_err(|e| bad(format!("the options: {e}")))?;
    let (system, digits, e) =
        compile_quantity(SOURCE, &text, &parsed.quantity, &[]).map_err(compile_error)?;
    let cache = Cache::default();
    let scope = Scope::new(BTreeMap::new(), system.as_ref(), registry(), &cache, digits);
    let v = scope.eval_value(&e).map_err(fail)?;
    Ok(render(&quantity_record(&expr, &keys, &v, digits), a.format))
}
