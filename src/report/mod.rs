//! Certified results and their rendering (text and JSON).
//!
//! Each result is computed twice, at the two precisions of [`crate::num::certify_bits`],
//! and every number is printed with the significant digits on which both runs agree.

pub(crate) mod claims;
pub(crate) mod design;
pub(crate) mod eval;
pub(crate) mod figure;
pub(crate) mod files;
pub(crate) mod html;
pub(crate) mod jsq;
pub(crate) mod junit;
pub(crate) mod optimize;
pub(crate) mod quantity;
pub(crate) mod redundancy;
pub(crate) mod simulate;
pub(crate) mod table;
pub(crate) mod tables;
pub(crate) mod threshold;

pub use self::claims::{summary as claims_summary, to_json as claims_json, ClaimsSummary};
pub use eval::{eval_record, eval_rigorous_record};
pub use jsq::{
    exact_record as jsq_exact_record, fixed_point_record as jsq_fixed_point_record,
    fixed_point_rigorous_record as jsq_fixed_point_rigorous_record,
};
pub use optimize::{optimize_proven_record, optimize_record};
pub use redundancy::{
    exact_record as redundancy_exact_record,
    exact_rigorous_record as redundancy_exact_rigorous_record,
};
pub use threshold::{threshold_record, threshold_rigorous_record};

// Pieces of the renderers, for the tests that hold them to their contracts (figures
// convert to PDF and sanitise, LaTeX preambles, TeX to HTML); not a stable interface.
#[doc(hidden)]
pub use figure::pdf::{parse as parse_svg, to_pdf as svg_to_pdf};
#[doc(hidden)]
pub use figure::sanitize::{sanitize as sanitize_svg, NotSvg};
#[doc(hidden)]
pub use html::tex_to_html;
#[doc(hidden)]
pub use table::latex::{DECLARED_PREAMBLE, DUMP_PREAMBLE};

use crate::num::certify::{certify_pair, Certified};
use crate::num::interval::Interval;
use crate::optimize::certified::DispatchNumbers;
use rug::Float;
use serde_json::{Map, Value};

/// Certifies matching vectors of values from the low and high precision runs.
pub fn certify_all(lo: &[Float], hi: &[Float], wanted: u32) -> Vec<Certified> {
    lo.iter()
        .zip(hi)
        .map(|(a, b)| certify_pair(a, b, wanted))
        .collect()
}

/// An ordered list of (key, value) pairs rendered as JSON or aligned text.
#[derive(Debug, Clone, Default)]
pub struct Record {
    fields: Vec<(String, Value)>,
    /// Keys added as certified numbers (their `inf`/`nan` texts become JSON `null`).
    numeric: Vec<String>,
    /// Keys whose object text shows as `k=v k=v` ([`Record::pairs`]).
    flat: Vec<String>,
}

/// The keys of a record that measure this run's wall-clock time rather than the
/// computation's result (`jsq simulate` and `redundancy simulate`: `events_per_second`,
/// `seconds`, and `jobs_per_second` of the latter; `optimize --repeat`:
/// `seconds_per_run`). A sweep leaves them out of the records it writes, so that a
/// sharded and an unsharded run merge to the same bytes.
pub const WALL_CLOCK_KEYS: &[&str] = &[
    "events_per_second",
    "jobs_per_second",
    "seconds",
    "seconds_per_run",
];
/// One number's (or one list's) certified digits: its record key, the digits (one an entry
/// for a list), and whether it is a list.
pub type FieldDigits = (String, Vec<u32>, bool);

/// The note added to a JSON record in which an infinite value became `null`.
pub const NULL_NOTE: &str = "null stands for an infinite value (the top of an unbounded support as an idle host's cutoff, or the mean of a host with load >= 1): no JSON number is infinite";

/// A certified text as JSON: a decimal string, or `null` for a value that is not finite.
fn json_number(v: &Value) -> (Value, bool) {
    match v {
        Value::String(s) if matches!(s.as_str(), "inf" | "-inf" | "nan") => (Value::Null, true),
        Value::Array(a) => {
            let mut any = false;
            let out = a
                .iter()
                .map(|x| {
                    let (y, n) = json_number(x);
                    any |= n;
                    y
                })
                .collect();
            (Value::Array(out), any)
        }
        other => (other.clone(), false),
    }
}

impl Record {
    /// Adds the keys of `eval` and `optimize` (one place for the command-line contract):
    /// `policy, dist, hosts, lambda, load, metric, cutoffs[], host_loads[], value,
    /// queueing, wasted, stable, digits`.
    pub fn policy_keys(
        &mut self,
        policy: &str,
        dist: String,
        hosts: usize,
        metric: &str,
        n: &DispatchNumbers,
    ) -> &mut Self {
        self.text("policy", policy)
            .text("dist", dist)
            .int("hosts", hosts as u64)
            .num("lambda", n.lambda)
            .num("load", n.load)
            .text("metric", metric)
            .nums("cutoffs", n.cutoffs)
            .nums("host_loads", n.host_loads)
            .num("value", n.value)
            .num("queueing", n.queueing)
            .num("wasted", n.wasted)
            .flag("stable", n.stable)
            .int("digits", u64::from(n.digits))
    }
    /// The fields added as certified numbers or lists of them (`k_lo`/`k_hi` of an
    /// enclosure too), in the order added: what a front end that keeps every digit (the
    /// Python package) turns into number objects instead of strings.
    pub fn number_keys(&self) -> &[String] {
        &self.numeric
    }
    /// `field_digits` (each number's certified digits under its key, a list's one an
    /// entry) and `digits_limited_by` (the numbers that have the fewest, `digits`, when that
    /// is less than the `wanted`; none otherwise), so that a reader sees which numbers are
    /// certain and which one the count `digits` is about.
    pub fn digit_fields(&mut self, fields: &[FieldDigits], wanted: u32) -> &mut Self {
        let pairs: Vec<(String, Value)> = fields
            .iter()
            .map(|(k, ds, list)| {
                let v = if *list {
                    Value::Array(ds.iter().map(|d| Value::from(*d)).collect())
                } else {
                    Value::from(ds.first().copied().unwrap_or(wanted))
                };
                (k.clone(), v)
            })
            .collect();
        self.pairs("field_digits", pairs);
        self.texts("digits_limited_by", &limited_by(fields, wanted))
    }
    /// Adds an object, shown in text as `k=v k=v` (a list's values joined by commas).
    pub fn pairs(&mut self, k: &str, v: Vec<(String, Value)>) -> &mut Self {
        self.flat.push(k.to_string());
        self.fields
            .push((k.to_string(), Value::Object(v.into_iter().collect())));
        self
    }
    /// The value of field `k`, if the record has it.
    pub fn get(&self, k: &str) -> Option<&Value> {
        self.fields.iter().find(|(n, _)| n == k).map(|(_, v)| v)
    }
    /// Adds a string field.
    pub fn text(&mut self, k: &str, v: impl Into<String>) -> &mut Self {
        self.fields.push((k.to_string(), Value::String(v.into())));
        self
    }
    /// Adds an integer field.
    pub fn int(&mut self, k: &str, v: u64) -> &mut Self {
        self.fields.push((k.to_string(), Value::from(v)));
        self
    }
    /// Adds a host count: an integer, or the string "inf" for h → ∞.
    pub fn hosts(&mut self, k: &str, h: Option<usize>) -> &mut Self {
        match h {
            Some(h) => self.int(k, h as u64),
            None => self.text(k, "inf"),
        }
    }
    /// Adds a boolean field.
    pub fn flag(&mut self, k: &str, v: bool) -> &mut Self {
        self.fields.push((k.to_string(), Value::Bool(v)));
        self
    }
    /// Adds a certified number (a decimal string).
    pub fn num(&mut self, k: &str, v: &Certified) -> &mut Self {
        self.numeric.push(k.to_string());
        self.text(k, v.text.clone())
    }
    /// Adds a list of certified numbers.
    pub fn nums(&mut self, k: &str, v: &[Certified]) -> &mut Self {
        self.numeric.push(k.to_string());
        self.fields.push((
            k.to_string(),
            Value::Array(v.iter().map(|c| Value::String(c.text.clone())).collect()),
        ));
        self
    }
    /// Adds `k_lo` and `k_hi` right after `k`: the ends of the enclosure `v` as decimals of
    /// `digits` significant digits rounded outward (down and up), so that the exact value
    /// lies between them (an infinite end is `null` in JSON, like every infinite number).
    pub fn bounds(&mut self, k: &str, v: &Interval, digits: u32) -> &mut Self {
        let lo = Value::String(v.lo_text(digits));
        let hi = Value::String(v.hi_text(digits));
        self.insert_pair_after(k, lo, hi)
    }
    /// [`Record::bounds`] for a list: `k_lo` and `k_hi` are lists of the ends.
    pub fn bounds_all(&mut self, k: &str, v: &[Interval], digits: u32) -> &mut Self {
        let lo = Value::Array(v.iter().map(|x| Value::String(x.lo_text(digits))).collect());
        let hi = Value::Array(v.iter().map(|x| Value::String(x.hi_text(digits))).collect());
        self.insert_pair_after(k, lo, hi)
    }
    /// Inserts the numeric keys `k_lo`, `k_hi` after `k` (at the end if there is no `k`).
    fn insert_pair_after(&mut self, k: &str, lo: Value, hi: Value) -> &mut Self {
        let at = self
            .fields
            .iter()
            .position(|(f, _)| f == k)
            .map_or(self.fields.len(), |i| i + 1);
        let (kl, kh) = (format!("{k}_lo"), format!("{k}_hi"));
        self.numeric.push(kl.clone());
        self.numeric.push(kh.clone());
        self.fields.insert(at, (kh, hi));
        self.fields.insert(at, (kl, lo));
        self
    }
    /// Adds a `null` (a value that does not exist; a `<key>_note` should say why).
    pub fn null(&mut self, k: &str) -> &mut Self {
        self.fields.push((k.to_string(), Value::Null));
        self
    }
    /// Adds a list of strings, `null` where there is none.
    pub fn opt_texts(&mut self, k: &str, v: &[Option<String>]) -> &mut Self {
        self.fields.push((
            k.to_string(),
            Value::Array(
                v.iter()
                    .map(|c| c.clone().map_or(Value::Null, Value::String))
                    .collect(),
            ),
        ));
        self
    }
    /// Adds a list of strings.
    pub fn texts(&mut self, k: &str, v: &[String]) -> &mut Self {
        self.fields.push((
            k.to_string(),
            Value::Array(v.iter().map(|c| Value::String(c.clone())).collect()),
        ));
        self
    }
    /// Adds a list of lists of strings (a table by rows, rows of any length).
    pub fn text_rows(&mut self, k: &str, rows: &[Vec<String>]) -> &mut Self {
        self.fields.push((
            k.to_string(),
            Value::Array(
                rows.iter()
                    .map(|r| Value::Array(r.iter().map(|c| Value::String(c.clone())).collect()))
                    .collect(),
            ),
        ));
        self
    }
    /// Adds any JSON value (a list of objects, a null); text shows an object as
    /// `key=value` pairs.
    pub fn raw(&mut self, k: &str, v: Value) -> &mut Self {
        self.fields.push((k.to_string(), v));
        self
    }
    /// One JSON object, keys in insertion order. A certified number that is infinite is
    /// `null` (with [`NULL_NOTE`] under `null_note`): no JSON number is ever infinite.
    pub fn to_json(&self) -> String {
        let mut m = Map::new();
        let mut nulls = false;
        for (k, v) in &self.fields {
            if self.numeric.contains(k) {
                let (j, n) = json_number(v);
                nulls |= n;
                m.insert(k.clone(), j);
            } else {
                m.insert(k.clone(), v.clone());
            }
        }
        if nulls && !m.contains_key("null_note") {
            m.insert(
                "null_note".to_string(),
                Value::String(NULL_NOTE.to_string()),
            );
        }
        Value::Object(m).to_string()
    }
    /// Aligned `key  value` lines.
    pub fn to_text(&self) -> String {
        let w = self.fields.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        let mut out = String::new();
        for (k, v) in &self.fields {
            let shown = match v {
                Value::Object(o) if self.flat.contains(k) => o
                    .iter()
                    .map(|(k, v)| match v {
                        Value::Array(a) if a.is_empty() => format!("{k}=(none)"),
                        Value::Array(a) => format!(
                            "{k}={}",
                            a.iter().map(Value::to_string).collect::<Vec<_>>().join(",")
                        ),
                        Value::String(s) => format!("{k}={s}"),
                        other => format!("{k}={other}"),
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
                Value::String(s) => s.clone(),
                Value::Array(a) => {
                    let parts: Vec<String> = a
                        .iter()
                        .map(|x| match x {
                            // A row of a table: its cells, one row a line.
                            Value::Array(row) if row.is_empty() => "(none)".to_string(),
                            Value::Array(row) => row
                                .iter()
                                .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string))
                                .collect::<Vec<_>>()
                                .join(", "),
                            Value::Object(o) => o
                                .iter()
                                .map(|(k, v)| match v {
                                    Value::String(s) => format!("{k}={s}"),
                                    other => format!("{k}={other}"),
                                })
                                .collect::<Vec<_>>()
                                .join(" "),
                            other => other
                                .as_str()
                                .map(str::to_string)
                                .unwrap_or_else(|| other.to_string()),
                        })
                        .collect();
                    let nested = a.iter().any(Value::is_array);
                    if parts.is_empty() {
                        "(none)".to_string()
                    } else if nested || a.iter().any(Value::is_object) {
                        parts.join(format!("\n{:w$}  ", "").as_str())
                    } else {
                        parts.join(", ")
                    }
                }
                other => other.to_string(),
            };
            out.push_str(&format!("{k:<w$}  {shown}\n"));
        }
        out
    }
}

/// Digits of the outward-rounded ends `K_lo`/`K_hi` beyond the digits asked (so that the
/// ends show the enclosure's width).
pub const BOUND_EXTRA_DIGITS: u32 = 3;

/// The note of a proven answer: what its numbers and digits mean.
pub const PROVEN_NOTE: &str = "proven: every number K lies in [K_lo, K_hi], enclosures computed by interval arithmetic with outward rounding (MPFR); each printed digit of K is the correct rounding of the exact value for the decimal inputs";

/// The sentence printed when fewer digits than asked are proven.
pub fn proven_digits_note(proven: u32, wanted: u32) -> Option<String> {
    if proven < wanted {
        Some(format!("only {proven} of the {wanted} requested significant digits are proven (the enclosures' ends agree on {proven})"))
    } else {
        None
    }
}

/// The numbers of `fields` that have the fewest certified digits, as record keys
/// (`cutoffs[1]`, `value`), when that is less than `wanted`; none otherwise.
pub fn limited_by(fields: &[FieldDigits], wanted: u32) -> Vec<String> {
    let fewest = fields
        .iter()
        .flat_map(|(_, ds, _)| ds.iter().copied())
        .min()
        .unwrap_or(wanted);
    if fewest >= wanted {
        return vec![];
    }
    fields
        .iter()
        .flat_map(|(k, ds, list)| {
            ds.iter()
                .enumerate()
                .filter(|(_, d)| **d == fewest)
                .map(move |(i, _)| {
                    if *list {
                        format!("{k}[{}]", i + 1)
                    } else {
                        k.clone()
                    }
                })
        })
        .collect()
}

/// [`digits_note`] naming the numbers that have only the fewest digits (`limited`, from
/// [`Record::digit_fields`]'s `digits_limited_by`).
pub fn digits_note_naming(certified: u32, wanted: u32, limited: &[String]) -> Option<String> {
    let n = digits_note(certified, wanted)?;
    Some(if limited.is_empty() {
        n
    } else {
        format!(
            "{n}: the fewest are in {} (field_digits gives every number's; the others are certain to theirs)",
            limited.join(", ")
        )
    })
}

/// The sentence printed when fewer digits than asked are certain.
pub fn digits_note(certified: u32, wanted: u32) -> Option<String> {
    if certified < wanted {
        Some(format!("only {certified} of the {wanted} requested significant digits are certified (two precisions agree on {certified})"))
    } else {
        None
    }
}

/// Writes a simulation's diagnostics of initialisation bias and length into `rec` and
/// returns the failed ones, each a sentence saying what to change, then the diagnostics'
/// advice ([`crate::sim::warmup::Diagnostics::advice`]), all for the record's notes and
/// for stderr. The fields: `warmup_rule` (`given`, the default: the configured warm-up, MSER-5
/// reported; `mser-5`, opt-in: extended to MSER-5's truncation point where that lies
/// beyond it),
/// `warmup_applied` (the largest warm-up a replication discarded, in the run's unit),
/// `mser_truncation` (the largest MSER-5 truncation point), `warmup_extended` (replications
/// run again with the longer warm-up), `warmup_reason` (the rule in words),
/// `stationarity` (the halves test: statistic, p-value, replications, level, passed; `null`
/// when the simulator keeps no series) and `diagnostics_passed`. `length` is the run's
/// measured length in the unit of `knobs.length`.
pub(crate) fn diagnostics_fields(
    rec: &mut Record,
    d: &crate::sim::warmup::Diagnostics,
    knobs: &crate::sim::warmup::Knobs,
    length: f64,
) -> Vec<String> {
    use crate::sim::warmup::{WarmupRule, MSER_GROUP, STATIONARITY_LEVEL};
    let shown = |x: f64| simulate::sci(x, 4);
    match &d.warmup {
        Some(w) => {
            rec.text("warmup_rule", w.rule.name())
                .text("warmup_applied", shown(w.applied_max()))
                .text("mser_truncation", shown(w.truncation_max()))
                .int("warmup_extended", w.extended as u64);
            let reason = match w.rule {
                WarmupRule::Mser => format!(
                    "the configured warm-up, extended to the MSER-{MSER_GROUP} truncation point (White 1997; White, Cobb & Spratt 2000) in the {} of {} replications where that lay beyond it",
                    w.extended,
                    w.truncation.len()
                ),
                WarmupRule::Given => format!(
                    "the configured warm-up (a tenth of the run unless given), judged by the stationarity test; the MSER-{MSER_GROUP} truncation point (White 1997; White, Cobb & Spratt 2000) lay beyond it in {} of {} replications",
                    w.short(),
                    w.truncation.len()
                ),
            };
            rec.text("warmup_reason", reason);
        }
        None => {
            rec.text("warmup_rule", WarmupRule::Given.name()).text(
                "warmup_reason",
                "as given (this simulator keeps no series for MSER-5)",
            );
        }
    }
    match d.stationarity {
        Some(t) => {
            let mut m = Map::new();
            m.insert("test".into(), Value::from("halves (paired t)"));
            m.insert("observable".into(), Value::from(d.observable));
            m.insert(
                "statistic".into(),
                Value::from(simulate::sci(t.statistic, 4)),
            );
            m.insert("p_value".into(), Value::from(simulate::sci(t.p_value, 3)));
            m.insert("replications".into(), Value::from(t.replications as u64));
            m.insert(
                "level".into(),
                Value::from(simulate::sci(STATIONARITY_LEVEL, 1)),
            );
            m.insert("passed".into(), Value::Bool(t.passed));
            rec.raw("stationarity", Value::Object(m));
        }
        None => {
            rec.null("stationarity");
        }
    }
    let mut notes = d.failures(knobs, length);
    rec.flag("diagnostics_passed", notes.is_empty());
    notes.extend(d.advice(knobs));
    notes
}
