//! Every unknown and every missing key of a claim file, found in one reading: a file
//! with three mistakes gets three errors in one run, not one per run (serde stops at the
//! first). Each names the file, the line and the key; the keys of each part are those of
//! its serde type in [`crate::claims::schema`] (a test holds them together), and the
//! `[setup]`'s those its model declares ([`crate::claims::signature::ModelSignature`]).

use crate::claims::registry;
use crate::claims::schema::err_at;
use crate::claims::system::DEFAULT_MODEL;
use crate::claims::ClaimError;
use std::ops::Range;
use toml_edit::{ImDocument, Item, TableLike};

/// A part's keys: (name, required).
pub type Keys = &'static [(&'static str, bool)];

/// The top level ([`crate::claims::schema::ClaimFile`]).
pub const TOP: Keys = &[
    ("id", true),
    ("row", false),
    ("statement", true),
    ("reading", true),
    ("source", false),
    ("notes", false),
    ("setup", true),
    ("grid", false),
    ("check", true),
    ("table", false),
    ("rigorous", false),
];
/// `[source]` ([`crate::claims::schema::Source`]): optional, but when given it says
/// whose words these are.
pub const SOURCE: Keys = &[
    ("paper", true),
    ("seed", false),
    ("words", true),
    ("location", false),
];
/// A `[[check]]` ([`crate::claims::schema::CheckSpec`]).
pub const CHECK: Keys = &[
    ("name", false),
    ("meaning", false),
    ("quantity", true),
    ("relation", true),
    ("bound", false),
    ("tolerance", false),
    ("rel_tolerance", false),
    ("along", false),
    ("at", false),
    ("grid", false),
    ("limit", false),
    ("expect", false),
    ("finding", false),
    ("expected_values", false),
];
/// A `[check.limit]` ([`crate::claims::schema::LimitSpec`]).
pub const LIMIT: Keys = &[
    ("var", true),
    ("values", true),
    ("transform", true),
    ("degree", false),
];
/// A `[[check.expected_values]]` ([`crate::claims::schema::ExpectedValue`]).
pub const EXPECTED: Keys = &[
    ("at", true),
    ("value", true),
    ("tolerance", true),
    ("source", true),
];
/// A `[[table]]` ([`crate::claims::schema::TableSpec`]).
pub const TABLE: Keys = &[
    ("label", true),
    ("caption", true),
    ("check", true),
    ("rows", true),
    ("columns", false),
    ("cell", true),
    ("digits", false),
    ("at", false),
    ("math", false),
    ("labels", false),
];
/// The keys every `[setup]` may give, whatever its model.
pub const SHARED_SETUP: [&str; 2] = ["model", "digits"];

/// The errors found so far, with what they are reported against.
struct Found<'a> {
    path: &'a str,
    text: &'a str,
    errors: Vec<ClaimError>,
}

impl Found<'_> {
    fn push(&mut self, span: Range<usize>, key: &str, why: String) {
        self.errors
            .push(err_at(self.path, self.text, span, key, &why));
    }

    /// The keys of one table: each unknown key at its own line, each missing one at the
    /// table's header (`at`). `prefix` names the part (`source.`, `check.`).
    fn part(
        &mut self,
        t: &dyn TableLike,
        at: Range<usize>,
        prefix: &str,
        allowed: &[&str],
        required: &[&str],
    ) {
        for (k, _) in t.iter() {
            if !allowed.contains(&k) {
                let span = t.key(k).and_then(|x| x.span()).unwrap_or(at.clone());
                self.push(
                    span,
                    &format!("{prefix}{k}"),
                    format!(
                        "unknown key `{k}`, expected one of {}",
                        allowed
                            .iter()
                            .map(|a| format!("`{a}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
        }
        for r in required {
            if t.get_key_value(r).is_none() {
                self.push(
                    at.clone(),
                    &format!("{prefix}{r}"),
                    format!("missing key `{r}`"),
                );
            }
        }
    }

    /// [`Found::part`] with a [`Keys`] table.
    fn keys(&mut self, t: &dyn TableLike, at: Range<usize>, prefix: &str, keys: Keys) {
        let allowed: Vec<&str> = keys.iter().map(|(k, _)| *k).collect();
        let required: Vec<&str> = keys.iter().filter(|(_, r)| *r).map(|(k, _)| *k).collect();
        self.part(t, at, prefix, &allowed, &required);
    }
}

/// The span of a table's header, else `fallback`.
fn header(item: &Item, fallback: &Range<usize>) -> Range<usize> {
    item.span()
        .or_else(|| item.as_table().and_then(toml_edit::Table::span))
        .unwrap_or(fallback.clone())
}

/// The tables of an item that is a table or an array of tables, with their headers.
fn tables<'i>(item: &'i Item, fallback: &Range<usize>) -> Vec<(&'i dyn TableLike, Range<usize>)> {
    if let Some(a) = item.as_array_of_tables() {
        return a
            .iter()
            .map(|t| (t as &dyn TableLike, t.span().unwrap_or(fallback.clone())))
            .collect();
    }
    match item.as_table_like() {
        Some(t) => vec![(t, header(item, fallback))],
        None => vec![],
    }
}

/// Every unknown and missing key of the claim file `text` (none when the text is not
/// TOML: the parser's error is reported instead).
pub fn key_errors(path: &str, text: &str) -> Vec<ClaimError> {
    let Ok(doc) = ImDocument::parse(text) else {
        return vec![];
    };
    let root = doc.as_table();
    let start = 0..0;
    let mut f = Found {
        path,
        text,
        errors: Vec::new(),
    };
    f.keys(root, start.clone(), "", TOP);
    if let Some(item) = root.get("source") {
        for (t, at) in tables(item, &start) {
            f.keys(t, at, "source.", SOURCE);
        }
    }
    if let Some(item) = root.get("setup") {
        for (t, at) in tables(item, &start) {
            let model = t
                .get("model")
                .and_then(Item::as_str)
                .unwrap_or(DEFAULT_MODEL)
                .trim()
                .to_string();
            // an unknown model is the compiler's error, with the list of models
            if let Some(m) = registry().get_model(&model) {
                let sig = m.signature();
                let allowed: Vec<&str> =
                    SHARED_SETUP.iter().chain(sig.setup_keys).copied().collect();
                f.part(t, at, "setup.", &allowed, sig.required);
            }
        }
    }
    if let Some(item) = root.get("check") {
        for (t, at) in tables(item, &start) {
            f.keys(t, at.clone(), "check.", CHECK);
            if let Some(l) = t.get("limit") {
                for (lt, lat) in tables(l, &at) {
                    f.keys(lt, lat, "check.limit.", LIMIT);
                }
            }
            if let Some(e) = t.get("expected_values") {
                for (et, eat) in tables(e, &at) {
                    f.keys(et, eat, "check.expected_values.", EXPECTED);
                }
            }
        }
    }
    if let Some(item) = root.get("table") {
        for (t, at) in tables(item, &start) {
            f.keys(t, at, "table.", TABLE);
        }
    }
    f.errors
}
