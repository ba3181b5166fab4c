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
    /// The grid the expression is evaluated over (its variables' values), where known:
    /// a host count given by a grid variable is known at every point from it.
    pub grid: &'a [(String, Vec<String>)],
}

/// The host counts a call may see when the file is compiled: one per grid value of the
/// variable that gives them (a literal gives one); `None` where they are known only at
/// run time (an expression, `inf`, a model without hosts).
type HostCounts = Option<Vec<i64>>;

/// Validates the names and calls of an expression written at `span` under `key`.
pub(crate) fn check_names(
    c: &FileCtx,
    e: &Expr,
    span: Range<usize>,
    key: &str,
    n: &Names,
) -> Result<(), ClaimError> {
    // the calls first: a misspelt word a call takes (`opt(sitaa)`) is named as what the
    // call wanted (a policy), not as an unknown variable
    check_calls(c, e, span.clone(), key, n, &setup_hosts(n))?;
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
    Ok(())
}

/// The host counts of an expression written as `e` (a literal or a grid variable).
fn host_counts(e: &Expr, n: &Names) -> HostCounts {
    let int = |t: &str| t.trim().parse::<i64>().ok();
    match e {
        Expr::Num(t) => Some(vec![int(t)?]),
        Expr::Var(v) => {
            let (_, vals) = n.grid.iter().find(|(k, _)| k == v)?;
            vals.iter().map(|t| int(t)).collect()
        }
        _ => None,
    }
}

/// The host counts of the claim's `[setup]` ([`SystemSpec::setup_value`]).
fn setup_hosts(n: &Names) -> HostCounts {
    host_counts(n.system.setup_value("hosts")?, n)
}

/// The host counts inside a call: its own `hosts=` override, else those around it.
fn call_hosts(args: &[Arg], outer: &HostCounts, n: &Names) -> HostCounts {
    for a in args {
        if let Arg::Named(k, v) = a {
            if k == "hosts" {
                return match v.as_ref() {
                    Arg::Pos(e) => host_counts(e, n),
                    Arg::Str(t) => host_counts(&Expr::Num(t.clone()), n),
                    Arg::Named(..) => None,
                };
            }
        }
    }
    outer.clone()
}

/// Every call in the expression, recursively: known, and called as declared. `hosts` are
/// the host counts the calls see (an enclosing call's override, or the setup's).
fn check_calls(
    c: &FileCtx,
    e: &Expr,
    span: Range<usize>,
    key: &str,
    n: &Names,
    hosts: &HostCounts,
) -> Result<(), ClaimError> {
    match e {
        Expr::Call { name, args, field } => {
            let inner = if FUNCTIONS.contains(&name.as_str()) {
                if field.is_some() {
                    return c.err(span, key, format!("{name}() has no fields"));
                }
                hosts.clone()
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
                let own = call_hosts(args, hosts, n);
                check_call(q.signature(), args, field.as_ref(), n, &own)
                    .or_else(|why| c.err(span.clone(), key, why))?;
                own
            };
            // the arguments' own calls (an argument may be a named one's value)
            for a in args {
                let arg = match a {
                    Arg::Named(_, v) => v.as_ref(),
                    other => other,
                };
                if let Arg::Pos(x) = arg {
                    check_calls(c, x, span.clone(), key, n, &inner)?;
                }
            }
            Ok(())
        }
        Expr::Neg(a) => check_calls(c, a, span, key, n, hosts),
        Expr::Bin(_, a, b) => {
            check_calls(c, a, span.clone(), key, n, hosts)?;
            check_calls(c, b, span, key, n, hosts)
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
    hosts: &HostCounts,
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
        Some(f) => check_field(sig, f, hosts),
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
                    "'{word}' is not a {what}: {name}() takes one of the {what} names {}",
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

/// The field after the call (`.cutoff[1]`) against the declared fields; an index is
/// 1-based (−1 the last), and where the field has one entry per host and the host counts
/// are known (`hosts`), within the field's length at each of them.
fn check_field(sig: &Signature, f: &expr::Field, hosts: &HostCounts) -> Result<(), String> {
    let name = sig.name;
    let Some(spec) = sig.field(&f.name) else {
        return Err(format!(
            "{name}() has no field '{}' ({})",
            f.name,
            sig.fields_shown()
        ));
    };
    let i = match (spec.indexed, f.index) {
        (true, None) => {
            return Err(format!(
                "{name}().{0} needs an index: {0}[1] is the first, {0}[-1] the last",
                f.name
            ))
        }
        (false, Some(_)) => {
            return Err(format!(
                "{name}().{} is a number: it takes no index",
                f.name
            ))
        }
        (false, None) => return Ok(()),
        (true, Some(i)) => i,
    };
    if i == 0 {
        return Err(format!(
            "{name}().{0}[0] does not exist: indices start at 1 ({0}[1] is the first, {0}[-1] the last)",
            f.name
        ));
    }
    let (Some(offset), Some(counts)) = (spec.per_host, hosts) else {
        return Ok(());
    };
    for &h in counts {
        let len = h + offset;
        if i.unsigned_abs() > len.max(0).unsigned_abs() {
            let rule = match offset {
                0 => "one a host".to_string(),
                o if o < 0 => format!("h − {}", -o),
                o => format!("h + {o}"),
            };
            return Err(format!(
                "{name}().{0}[{i}] does not exist at h = {h}: there {1} ({rule}); {0}[1] is the first, {0}[-1] the last",
                f.name,
                if len <= 0 { "are none".to_string() } else if len == 1 { "is 1".to_string() } else { format!("are {len}") },
            ));
        }
    }
    Ok(())
}
