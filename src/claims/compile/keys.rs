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

// ---------------------------------------------------------------------------------------
// The key lists that find every mistake at once are the serde types' own fields (moved
// from tests/claims_reports.rs: the lists and the types are the crate's internals).

#[cfg(test)]
mod key_lists {
    use super::{key_errors, Keys, CHECK, EXPECTED, LIMIT, SHARED_SETUP, SOURCE, TABLE, TOP};
    use crate::claims::schema::{
        CheckSpec, ClaimFile, ExpectedValue, LimitSpec, Source, TableSpec,
    };
    use crate::claims::systems::{dispatch, jsq, redundancy};
    use crate::claims::ClaimError;
    use serde::de::DeserializeOwned;

    /// The fields serde expects of `T`, read from its own "unknown field" message.
    fn serde_fields<T: DeserializeOwned>() -> Vec<String> {
        let e = toml::from_str::<T>("zz_not_a_key = 1\n")
            .err()
            .expect("an unknown field is refused")
            .to_string();
        let list = e.split("expected one of").nth(1).unwrap_or("");
        let mut v: Vec<String> = list
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        v.sort();
        v
    }

    fn names(k: Keys) -> Vec<String> {
        let mut v: Vec<String> = k.iter().map(|(n, _)| n.to_string()).collect();
        v.sort();
        v
    }

    /// The keys a part requires, in the lists; serde's first "missing field" of an
    /// empty part must be one of them (serde names only the first).
    fn first_missing<T: DeserializeOwned>() -> Option<String> {
        let e = toml::from_str::<T>("").err()?.to_string();
        e.split("missing field `")
            .nth(1)
            .and_then(|r| r.split('`').next())
            .map(str::to_string)
    }

    #[test]
    fn the_key_lists_are_the_serde_types_fields() {
        // The source of truth is each type's derive: its "unknown field" message lists
        // every field. A field added to a type and not to the lists (or the reverse)
        // fails here.
        assert_eq!(names(TOP), serde_fields::<ClaimFile>());
        assert_eq!(names(SOURCE), serde_fields::<Source>());
        assert_eq!(names(CHECK), serde_fields::<CheckSpec>());
        assert_eq!(names(LIMIT), serde_fields::<LimitSpec>());
        assert_eq!(names(EXPECTED), serde_fields::<ExpectedValue>());
        assert_eq!(names(TABLE), serde_fields::<TableSpec>());
        let required =
            |k: Keys| -> Vec<&str> { k.iter().filter(|(_, r)| *r).map(|(n, _)| *n).collect() };
        for (list, missing) in [
            (SOURCE, first_missing::<Source>()),
            (CHECK, first_missing::<CheckSpec>()),
            (LIMIT, first_missing::<LimitSpec>()),
            (EXPECTED, first_missing::<ExpectedValue>()),
            (TABLE, first_missing::<TableSpec>()),
        ] {
            let m = missing.expect("an empty part is refused");
            assert!(
                required(list).contains(&m.as_str()),
                "{m} not required in {list:?}"
            );
        }
    }

    #[test]
    fn the_models_setup_keys_are_their_serde_types_fields() {
        for (sig, fields, missing) in [
            (
                &dispatch::SIGNATURE,
                serde_fields::<dispatch::DispatchSetup>(),
                first_missing::<dispatch::DispatchSetup>(),
            ),
            (
                &jsq::SIGNATURE,
                serde_fields::<jsq::JsqSetup>(),
                first_missing::<jsq::JsqSetup>(),
            ),
            (
                &redundancy::SIGNATURE,
                serde_fields::<redundancy::RedundancySetup>(),
                first_missing::<redundancy::RedundancySetup>(),
            ),
        ] {
            let mut want: Vec<String> = SHARED_SETUP
                .iter()
                .chain(sig.setup_keys)
                .map(|s| s.to_string())
                .collect();
            want.sort();
            assert_eq!(want, fields, "model {}", sig.name);
            assert_eq!(
                missing.as_deref(),
                sig.required.first().copied(),
                "model {}",
                sig.name
            );
        }
    }

    #[test]
    fn every_unknown_and_missing_key_is_found_at_its_line() {
        // An unknown top-level key (line 3), a [source] (header at line 5) without words
        // and with an unknown key (line 7), a [setup] with an unknown key (line 10), and
        // a check (header at line 12) without relation: five errors, in file order within
        // each part.
        let text = "id = \"x\"\nstatement = \"s\"\nbogus = 1\nreading = \"r\"\n[source]\npaper = \"P\"\npages = \"1\"\n[setup]\ndist = \"exp:rate=1\"\nlod = \"0.5\"\n\n[[check]]\nquantity = \"mean()\"\n";
        let got: Vec<(usize, String)> = key_errors("t.toml", text)
            .into_iter()
            .map(|e| match e {
                ClaimError::Schema { line, key, .. } => (line, key),
                other => (0, other.to_string()),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (3, "bogus".to_string()),
                (7, "source.pages".to_string()),
                (5, "source.words".to_string()),
                (10, "setup.lod".to_string()),
                (12, "check.relation".to_string()),
            ]
        );
    }
}
