//! Names in expressions: every variable a grid variable, a model's variable or a word of
//! the language; every call a mathematical function or a registered quantity, called as
//! its [`Signature`] declares (model, positional argument, named arguments, field).

use crate::claims::expr::{self, Arg, Expr};
use crate::claims::registry;
use crate::claims::schema::FileCtx;
use crate::claims::scope::SystemSpec;
use crate::claims::scope::FUNCTIONS;
use crate::claims::signature::{Positional, Signature};
use crate::claims::ClaimError;
use std::ops::Range;

/// What a name in an expression may be: the names a compiled claim knows.
pub(crate) struct Names<'a> {
    /// Grid and limit variables of the check.
    pub vars: &'a [String],
    /// Every variable a call may override (the grid and limit variables of the claim and
    /// all its checks).
    pub overridable: &'a [String],
    /// The claim's system.
    pub system: &'a dyn SystemSpec,
}

/// Validates the names and calls of an expression written at `span` under `key`.
pub(crate) fn check_names(
    c: &FileCtx,
    e: &Expr,
    span: Range<usize>,
    key: &str,
    n: &Names,
) -> Result<(), ClaimError> {
    let mut used = Vec::new();
    expr::variables(e, &mut used);
    let words = registry().words();
    for v in used {
        if !n.vars.contains(&v)
            && !n.system.variables().contains(&v.as_str())
            && !words.contains(&v.as_str())
        {
            return c.err(
                span,
                key,
                format!(
                    "unknown name '{v}' (grid variables: {}; also {})",
                    if n.vars.is_empty() {
                        "none".to_string()
                    } else {
                        n.vars.join(", ")
                    },
                    n.system.variables().join(", ")
                ),
            );
        }
    }
    check_calls(c, e, span, key, n)
}

/// Every call in the expression, recursively: known, and called as declared.
fn check_calls(
    c: &FileCtx,
    e: &Expr,
    span: Range<usize>,
    key: &str,
    n: &Names,
) -> Result<(), ClaimError> {
    match e {
        Expr::Call { name, args, field } => {
            if FUNCTIONS.contains(&name.as_str()) {
                if field.is_some() {
                    return c.err(span, key, format!("{name}() has no fields"));
                }
            } else {
                let reg = registry();
                let Some(q) = reg.get(name) else {
                    return c.err(
                        span,
                        key,
                        format!(
                            "unknown function '{name}' (quantities: {}; functions: {})",
                            reg.names().join(", "),
                            FUNCTIONS.join(", ")
                        ),
                    );
                };
                check_call(q.signature(), args, field.as_ref(), n)
                    .or_else(|why| c.err(span.clone(), key, why))?;
            }
            // the arguments' own calls (an argument may be a named one's value)
            for a in args {
                let inner = match a {
                    Arg::Named(_, v) => v.as_ref(),
                    other => other,
                };
                if let Arg::Pos(x) = inner {
                    check_calls(c, x, span.clone(), key, n)?;
                }
            }
            Ok(())
        }
        Expr::Neg(a) => check_calls(c, a, span, key, n),
        Expr::Bin(_, a, b) => {
            check_calls(c, a, span.clone(), key, n)?;
            check_calls(c, b, span, key, n)
        }
        _ => Ok(()),
    }
}

/// The quantity's declaration against a call as written.
fn check_call(
    sig: &Signature,
    args: &[Arg],
    field: Option<&expr::Field>,
    n: &Names,
) -> Result<(), String> {
    let name = sig.name;
    if let Some(m) = sig.model {
        if m != n.system.model() {
            return Err(format!(
                "{name}() is a quantity of the '{m}' model; this claim's [setup] is model = \"{}\"",
                n.system.model()
            ));
        }
    }
    check_positional(sig, args)?;
    for a in args {
        if let Arg::Named(k, v) = a {
            check_named(sig, k, v, n)?;
        }
    }
    match field {
        Some(f) => check_field(sig, f),
        None => Ok(()),
    }
}

/// The positional arguments against [`Signature::positional`].
fn check_positional(sig: &Signature, args: &[Arg]) -> Result<(), String> {
    let name = sig.name;
    let pos: Vec<&Arg> = args
        .iter()
        .filter(|a| !matches!(a, Arg::Named(..)))
        .collect();
    match sig.positional {
        Positional::None => {
            if let Some(first) = pos.first() {
                return Err(format!(
                    "{name}() takes no positional argument, got '{first}'"
                ));
            }
        }
        Positional::Word { what, choices } => {
            let word = match pos.as_slice() {
                [Arg::Pos(Expr::Var(w))] | [Arg::Str(w)] => w,
                _ => {
                    return Err(format!(
                        "{name}() takes one {what} ({})",
                        choices.join(", ")
                    ))
                }
            };
            if !choices.contains(&word.as_str()) {
                return Err(format!(
                    "unknown {what} '{word}' for {name} ({})",
                    choices.join(", ")
                ));
            }
        }
        Positional::Number { what } => {
            if !matches!(pos.as_slice(), [Arg::Pos(_)]) {
                return Err(format!("{name}({what}) takes one number, {what}"));
            }
        }
    }
    Ok(())
}

/// A named argument `k=v`: one of the quantity's own (a bare word among those it takes,
/// or a variable), or an override of a setup key or a grid variable.
fn check_named(sig: &Signature, k: &str, v: &Arg, n: &Names) -> Result<(), String> {
    let name = sig.name;
    if matches!(v, Arg::Named(..)) {
        return Err(format!("nested '=' in {name}()"));
    }
    if let Some(own) = sig.named.iter().find(|x| x.name == k) {
        if let Arg::Pos(Expr::Var(w)) = v {
            if !own.words.is_empty() && !own.words.contains(&w.as_str()) && !n.vars.contains(w) {
                return Err(format!(
                    "{name}({k}={w}): {k}= takes {} or a string",
                    own.words.join(", ")
                ));
            }
        }
        return Ok(());
    }
    if !n.system.keys().contains(&k) && !n.overridable.iter().any(|o| o == k) {
        let own: Vec<&str> = sig.named.iter().map(|x| x.name).collect();
        return Err(format!(
            "{name}() has no argument '{k}' (its own: {}; setup keys: {}; or a grid variable)",
            if own.is_empty() {
                "none".to_string()
            } else {
                own.join(", ")
            },
            n.system.keys().join(", ")
        ));
    }
    Ok(())
}

/// The field after the call (`.cutoff[1]`) against the declared fields.
fn check_field(sig: &Signature, f: &expr::Field) -> Result<(), String> {
    let name = sig.name;
    let Some(spec) = sig.field(&f.name) else {
        return Err(format!(
            "{name}() has no field '{}' ({})",
            f.name,
            sig.fields_shown()
        ));
    };
    match (spec.indexed, f.index) {
        (true, None) => Err(format!(
            "{name}().{0} needs an index: {0}[1] is the first, {0}[-1] the last",
            f.name
        )),
        (false, Some(_)) => Err(format!(
            "{name}().{} is a number: it takes no index",
            f.name
        )),
        _ => Ok(()),
    }
}
