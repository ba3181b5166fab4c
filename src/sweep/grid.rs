//! Grid files: what a sweep computes and over which points.
//!
//! ```toml
//! command = "optimize"                 # the command's words (`jsq sim` has two)
//! [options]                            # its long options without the dashes
//! policy = "tags"
//! dist = "bp:k=1,p={p},alpha={alpha}"  # {var}: the point's value of a grid variable
//! hosts = "{h}"
//! load = "0.5"
//! [grid]                               # crossed axes
//! alpha = ["0.5", "1", "1.5"]          # a list (strings, or integers)
//! p = { from = "1e2", to = "1e10", per_decade = 1 }   # a log range: 1e2, 1e3, …, 1e10
//! h = { from = 2, to = 4, step = 1 }   # an exact decimal range, both ends included
//! [[zip]]                              # variables that vary together (equal lengths),
//! k = ["1", "2"]                       # crossed with everything else
//! scale = ["1", "4"]
//! ```
//!
//! Instead of `command` and `[options]`, a grid may give `quantity = "opt(tags).value /
//! opt(sita).value"` and a `[setup]` exactly as a claim file's (templates and expressions
//! over the grid variables; see `proofs-check/README.md`).
//!
//! Values are read as text, never through f64: a TOML float is an error (write `"0.5"`),
//! as in claim files. A range `{ from, to, step }` is computed in exact decimal
//! arithmetic and written without an exponent while that is short (`0.1, 0.2, …, 0.9`);
//! a log range `{ from, to, per_decade }` takes `from × 10^(i/per_decade)` for i = 0, 1, …
//! up to `to` (which must be one of them): exact where i/per_decade is whole (`1e3`),
//! else rounded to [`LOG_RANGE_DIGITS`] significant digits ([`super::axis`]) (`3.16227766017e2`).
//!
//! Every error names the file, the line and the key, and is bad input (exit 2).

use super::axis::axis_values;
use super::SweepError;
use crate::claims::grid::positions;
use crate::claims::schema::{line_of, value_text};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use toml::Spanned;

/// Most points a grid may have (a sorted list of keys of this length is ~200 MB).
pub const MAX_POINTS: usize = 10_000_000;
/// Most shards a sweep may be cut into.
pub const MAX_SHARDS: u64 = 1_000_000;
/// Options left out of the canonical string: by the command-line contract they do not
/// change a result (ARCHITECTURE.md, "Numbers": identical numbers for any thread count),
/// so a shard rerun with another thread count keeps its keys and its bytes.
pub const NOT_IN_KEY: &[&str] = &["threads"];
/// The first line of every canonical string: the version of the key's definition.
/// Changing how canonical strings are written changes every key; bump it then.
pub const CANONICAL_VERSION: &str = "taskassign sweep point v1";

/// An axis as read: its variable, its values and where it was written.
type RawAxis = (String, Vec<String>, std::ops::Range<usize>);

/// A grid file, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GridFile {
    command: Option<Spanned<String>>,
    quantity: Option<Spanned<String>>,
    #[serde(default)]
    options: Option<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
    #[serde(default)]
    setup: Option<Spanned<toml::Table>>,
    #[serde(default)]
    grid: BTreeMap<String, Spanned<toml::Value>>,
    #[serde(default)]
    zip: Vec<Spanned<BTreeMap<String, Spanned<toml::Value>>>>,
}

/// A piece of an option's template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Lit(String),
    /// A grid variable, by its index in [`Grid::vars`].
    Var(usize),
}

/// An option's value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum OptValue {
    /// `--name=value`, the value a template.
    Value(Vec<Piece>),
    /// A flag: `--name` when true, nothing when false.
    Flag(bool),
}

/// One option of a command grid, with the line it was written on.
#[derive(Debug, Clone)]
pub struct GridOption {
    /// The long name, without dashes.
    pub name: String,
    /// Whether it is a flag (a TOML boolean).
    pub is_flag: bool,
    /// 1-based line in the grid file.
    pub line: usize,
    value: OptValue,
}

/// What every point computes.
#[derive(Debug)]
pub enum Target {
    /// A command of the binary: its words and options (sorted by name).
    Command {
        /// `["optimize"]`, `["jsq", "sim"]`.
        words: Vec<String>,
        /// 1-based line of `command`.
        line: usize,
        /// The options.
        options: Vec<GridOption>,
    },
    /// A claim quantity (compiled by [`super::quantity`]).
    Quantity(super::quantity::QuantityDef),
}

/// A group of variables that vary together: a crossed axis is a group of one.
#[derive(Debug, Clone)]
struct Group {
    /// Indices into [`Grid::vars`].
    vars: Vec<usize>,
    /// `values[j][k]`: the value of `vars[k]` at the group's position j.
    values: Vec<Vec<String>>,
}

/// A validated grid.
#[derive(Debug)]
pub struct Grid {
    /// The file it came from.
    pub path: String,
    /// What every point computes.
    pub target: Target,
    /// The grid variables, sorted by name.
    pub vars: Vec<String>,
    groups: Vec<Group>,
    /// For a command: the option that receives the point's key as the point coordinate
    /// of its random streams (`simulate --point`), when the command has one.
    pub point_option: Option<String>,
    /// Arguments appended to every point's command line and not part of its canonical
    /// string (`--format=json`: how the sweep reads a record, not what the point is).
    pub extra_args: Vec<String>,
}

/// One point: its key and its position in every group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Point {
    /// The key: the first 8 bytes of SHA-256 of the canonical string, big-endian.
    pub key: u64,
    at: Vec<u32>,
}

/// The key of a canonical string: its SHA-256, first 8 bytes, big-endian.
pub fn point_key(canonical: &str) -> u64 {
    let d = Sha256::digest(canonical.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_be_bytes(b)
}

/// A key as it is written: 16 lowercase hexadecimal digits.
pub fn key_text(key: u64) -> String {
    format!("{key:016x}")
}

/// A key read back from its 16 hex digits.
pub fn parse_key(s: &str) -> Option<u64> {
    if s.len() == 16
        && s.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    {
        u64::from_str_radix(s, 16).ok()
    } else {
        None
    }
}

/// Shard `index` of `count` (`--shard 3/8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 0-based index.
    pub index: u64,
    /// How many shards the sweep is cut into.
    pub count: u64,
}

impl Shard {
    /// Reads `i/n` with 0 ≤ i < n ≤ [`MAX_SHARDS`].
    pub fn parse(s: &str) -> Result<Shard, SweepError> {
        let bad = || {
            SweepError::Usage(format!(
                "--shard must be i/n with 0 <= i < n <= {MAX_SHARDS} (e.g. 3/8), got '{s}'"
            ))
        };
        let (i, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let index: u64 = i.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || count > MAX_SHARDS || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether the point at position `pos` of the sorted list belongs to this shard.
    pub fn takes(&self, pos: usize) -> bool {
        pos as u64 % self.count == self.index
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Reads the file and builds the grid (for a command target, the caller checks the
/// options against the command: [`Grid::command_error`] names their lines).
pub fn load(path: &str) -> Result<Grid, SweepError> {
    let text = std::fs::read_to_string(path).map_err(|e| SweepError::Read {
        path: path.to_string(),
        why: e.to_string(),
    })?;
    parse(path, &text)
}

/// Builds the grid of the file `path` whose text is `text`.
pub fn parse(path: &str, text: &str) -> Result<Grid, SweepError> {
    let err = |span: std::ops::Range<usize>, key: &str, why: String| SweepError::Grid {
        path: path.to_string(),
        line: line_of(text, span.start),
        key: key.to_string(),
        why,
    };
    let f: GridFile = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        err(span, "(document)", crate::error::toml_reason(&e, text))
    })?;

    // The groups and the variables.
    let mut raw_groups: Vec<Vec<RawAxis>> = Vec::new();
    for (name, v) in &f.grid {
        let key = format!("grid.{name}");
        check_var_name(name).map_err(|w| err(v.span(), &key, w))?;
        let vals = axis_values(v).map_err(|(sp, w)| err(sp, &key, w))?;
        raw_groups.push(vec![(name.clone(), vals, v.span())]);
    }
    for (zi, z) in f.zip.iter().enumerate() {
        let mut group = Vec::new();
        let mut len: Option<(usize, String)> = None;
        for (name, v) in z.get_ref() {
            let key = format!("zip[{zi}].{name}");
            check_var_name(name).map_err(|w| err(v.span(), &key, w))?;
            let vals = axis_values(v).map_err(|(sp, w)| err(sp, &key, w))?;
            match &len {
                Some((n, first)) if *n != vals.len() => {
                    return Err(err(
                        v.span(),
                        &key,
                        format!(
                            "zipped variables need equal lengths: {name} has {}, {first} has {n}",
                            vals.len()
                        ),
                    ))
                }
                Some(_) => {}
                None => len = Some((vals.len(), name.clone())),
            }
            group.push((name.clone(), vals, v.span()));
        }
        if group.is_empty() {
            return Err(err(
                z.span(),
                &format!("zip[{zi}]"),
                "an empty [[zip]] table".into(),
            ));
        }
        raw_groups.push(group);
    }
    // The axes in the order the file writes them (the schema's maps sort their keys): it
    // orders the merged CSV's columns and rows, never the keys or the shards.
    if let Ok(raw) = toml::from_str::<toml::Table>(text) {
        let order = |t: Option<&toml::Value>| -> Vec<String> {
            t.and_then(toml::Value::as_table)
                .map(|t| t.keys().cloned().collect())
                .unwrap_or_default()
        };
        let at = |names: &[String], n: &str| names.iter().position(|x| x == n);
        let in_grid = order(raw.get("grid"));
        let nz = f.grid.len();
        raw_groups[..nz].sort_by_key(|g| g.first().and_then(|(n, _, _)| at(&in_grid, n)));
        let zips = raw.get("zip").and_then(toml::Value::as_array);
        for (zi, g) in raw_groups[nz..].iter_mut().enumerate() {
            let names = order(zips.and_then(|z| z.get(zi)));
            g.sort_by_key(|(n, _, _)| at(&names, n));
        }
    }
    let mut vars: Vec<String> = Vec::new();
    for g in &raw_groups {
        for (name, _, span) in g {
            if vars.contains(name) {
                return Err(err(
                    span.clone(),
                    name,
                    format!("variable '{name}' is given twice (in [grid] and [[zip]], or in two [[zip]] tables)"),
                ));
            }
            vars.push(name.clone());
        }
    }
    vars.sort();
    let index_of = |n: &str| vars.iter().position(|v| v == n);
    let mut groups = Vec::new();
    let mut total: usize = 1;
    for g in &raw_groups {
        let n = g.first().map_or(0, |(_, v, _)| v.len());
        let mut values = vec![Vec::with_capacity(g.len()); n];
        let mut idx = Vec::new();
        for (name, vals, _) in g {
            idx.push(index_of(name).ok_or_else(|| SweepError::Internal("lost a variable".into()))?);
            for (j, v) in vals.iter().enumerate() {
                values[j].push(v.clone());
            }
        }
        total = total.saturating_mul(n);
        groups.push(Group { vars: idx, values });
    }
    if total > MAX_POINTS {
        return Err(err(
            0..0,
            "grid",
            format!("{total} points: more than the {MAX_POINTS} a grid may have"),
        ));
    }

    let target = match (&f.command, &f.quantity) {
        (Some(c), None) => {
            if let Some(s) = &f.setup {
                return Err(err(
                    s.span(),
                    "setup",
                    "[setup] belongs to a quantity grid; a command takes [options]".into(),
                ));
            }
            let words: Vec<String> = c.get_ref().split_whitespace().map(String::from).collect();
            if words.is_empty() {
                return Err(err(c.span(), "command", "empty command".into()));
            }
            let mut options = Vec::new();
            let mut used = vec![false; vars.len()];
            if let Some(o) = &f.options {
                for (name, v) in o.get_ref() {
                    let key = format!("options.{name}");
                    let line = line_of(text, v.span().start);
                    if name.starts_with('-') || name.is_empty() {
                        return Err(err(
                            v.span(),
                            &key,
                            "write options without their dashes (hosts = \"2\")".into(),
                        ));
                    }
                    let value = match v.get_ref() {
                        toml::Value::Boolean(b) => OptValue::Flag(*b),
                        other => {
                            let t = value_text(other).map_err(|w| err(v.span(), &key, w))?;
                            let pieces = template(&t, &vars).map_err(|w| err(v.span(), &key, w))?;
                            for p in &pieces {
                                if let Piece::Var(i) = p {
                                    used[*i] = true;
                                }
                            }
                            OptValue::Value(pieces)
                        }
                    };
                    options.push(GridOption {
                        name: name.clone(),
                        is_flag: matches!(value, OptValue::Flag(_)),
                        line,
                        value,
                    });
                }
            }
            if let Some(i) = used.iter().position(|u| !u) {
                let name = &vars[i];
                let span = raw_groups
                    .iter()
                    .flatten()
                    .find(|(n, _, _)| n == name)
                    .map_or(0..0, |(_, _, s)| s.clone());
                return Err(err(
                    span,
                    &format!("grid.{name}"),
                    format!("variable '{name}' is used by no option (write {{{name}}} in one)"),
                ));
            }
            options.sort_by(|a, b| a.name.cmp(&b.name));
            Target::Command {
                words,
                line: line_of(text, c.span().start),
                options,
            }
        }
        (None, Some(q)) => {
            if let Some(o) = &f.options {
                return Err(err(
                    o.span(),
                    "options",
                    "[options] belong to a command grid; a quantity takes [setup]".into(),
                ));
            }
            let setup = f.setup.as_ref().map(|s| s.get_ref().clone());
            Target::Quantity(super::quantity::QuantityDef::compile(
                path,
                text,
                q,
                setup.as_ref(),
                &vars,
            )?)
        }
        (Some(c), Some(_)) => {
            return Err(err(
                c.span(),
                "command",
                "give either command (with [options]) or quantity (with [setup]), not both".into(),
            ))
        }
        (None, None) => {
            return Err(err(
                0..0,
                "command",
                "give command = \"…\" (with [options]) or quantity = \"…\" (with [setup])".into(),
            ))
        }
    };
    Ok(Grid {
        path: path.to_string(),
        target,
        vars,
        groups,
        point_option: None,
        extra_args: Vec::new(),
    })
}

/// A variable name: letters, digits and `_`, starting with a letter.
fn check_var_name(n: &str) -> Result<(), String> {
    let mut c = n.chars();
    if c.next().is_some_and(|f| f.is_ascii_alphabetic())
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
    {
        Ok(())
    } else {
        Err(format!(
            "'{n}' is not a variable name (letters, digits and _, starting with a letter)"
        ))
    }
}

/// `{var}` templates, checked against the grid's variables.
fn template(t: &str, vars: &[String]) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        if i > 0 {
            out.push(Piece::Lit(rest[..i].to_string()));
        }
        let after = &rest[i + 1..];
        let j = after
            .find('}')
            .ok_or_else(|| format!("unclosed '{{' in '{t}'"))?;
        let name = after[..j].trim();
        let k = vars.iter().position(|v| v == name).ok_or_else(|| {
            format!(
                "'{t}' uses {{{name}}}, which is not a grid variable ({})",
                if vars.is_empty() {
                    "there are none".to_string()
                } else {
                    vars.join(", ")
                }
            )
        })?;
        out.push(Piece::Var(k));
        rest = &after[j + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Lit(rest.to_string()));
    }
    if out
        .iter()
        .any(|p| matches!(p, Piece::Lit(s) if s.contains('}')))
    {
        return Err(format!("a '}}' without its '{{' in '{t}'"));
    }
    Ok(out)
}

impl Grid {
    /// How many points the grid has.
    pub fn len(&self) -> usize {
        self.groups.iter().map(|g| g.values.len()).product()
    }

    /// A grid error at `line` on `key` (for the checks of options against a command).
    pub fn error_at(&self, line: usize, key: &str, why: impl Into<String>) -> SweepError {
        SweepError::Grid {
            path: self.path.clone(),
            line,
            key: key.to_string(),
            why: why.into(),
        }
    }

    /// The value of every variable at `p`, in the order of [`Grid::vars`] (by name).
    pub fn values<'a>(&'a self, p: &Point) -> Vec<&'a str> {
        let mut out = vec![""; self.vars.len()];
        for (g, &j) in self.groups.iter().zip(&p.at) {
            for (k, &v) in g.vars.iter().enumerate() {
                out[v] = g.values[j as usize][k].as_str();
            }
        }
        out
    }

    /// The variables in the order the grid file gives its axes ([grid] in order, then each
    /// [[zip]] table's).
    pub fn vars_in_file_order(&self) -> Vec<&str> {
        self.groups
            .iter()
            .flat_map(|g| g.vars.iter().map(|&v| self.vars[v].as_str()))
            .collect()
    }

    /// The point's place in the grid file's order: the axes crossed in file order, the last
    /// one varying fastest (what [`Grid::points`] generates before sorting by key).
    pub fn file_position(&self, p: &Point) -> usize {
        self.groups.iter().zip(&p.at).fold(0usize, |acc, (g, &j)| {
            acc.saturating_mul(g.values.len())
                .saturating_add(j as usize)
        })
    }

    /// The point's variables as a JSON object, keys sorted by name.
    pub fn point_json(&self, p: &Point) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for (name, v) in self.vars.iter().zip(self.values(p)) {
            m.insert(name.clone(), serde_json::Value::String(v.to_string()));
        }
        serde_json::Value::Object(m)
    }

    fn fill(pieces: &[Piece], vals: &[&str]) -> String {
        let mut s = String::new();
        for p in pieces {
            match p {
                Piece::Lit(l) => s.push_str(l),
                Piece::Var(i) => s.push_str(vals[*i]),
            }
        }
        s
    }

    /// The point's canonical string, whose SHA-256 is its key: [`CANONICAL_VERSION`],
    /// then for a command `command WORDS` and one `--name=value` (or `--name`) line per
    /// option sorted by name, templates filled (less [`NOT_IN_KEY`]); for a quantity, the expression, the
    /// setup and the variables (see [`super::quantity::QuantityDef::canonical`]).
    pub fn canonical(&self, p: &Point) -> String {
        let vals = self.values(p);
        let mut s = String::with_capacity(256);
        s.push_str(CANONICAL_VERSION);
        s.push('\n');
        match &self.target {
            Target::Command { words, options, .. } => {
                s.push_str("command ");
                s.push_str(&words.join(" "));
                s.push('\n');
                for o in options {
                    if NOT_IN_KEY.contains(&o.name.as_str()) {
                        continue;
                    }
                    match &o.value {
                        OptValue::Flag(false) => continue,
                        OptValue::Flag(true) => {
                            s.push_str("--");
                            s.push_str(&o.name);
                        }
                        OptValue::Value(pieces) => {
                            s.push_str("--");
                            s.push_str(&o.name);
                            s.push('=');
                            s.push_str(&Self::fill(pieces, &vals));
                        }
                    }
                    s.push('\n');
                }
            }
            Target::Quantity(q) => q.canonical(&mut s, &self.vars, &vals),
        }
        s
    }

    /// The command line of a point (program name first): the words, the options, the
    /// point coordinate (when the command takes one) and [`Grid::extra_args`].
    pub fn argv(&self, p: &Point) -> Vec<String> {
        let vals = self.values(p);
        let mut out = vec!["taskassign".to_string()];
        if let Target::Command { words, options, .. } = &self.target {
            out.extend(words.iter().cloned());
            for o in options {
                match &o.value {
                    OptValue::Flag(false) => {}
                    OptValue::Flag(true) => out.push(format!("--{}", o.name)),
                    OptValue::Value(pieces) => {
                        out.push(format!("--{}={}", o.name, Self::fill(pieces, &vals)))
                    }
                }
            }
            if let Some(po) = &self.point_option {
                out.push(format!("--{po}={}", p.key));
            }
            out.extend(self.extra_args.iter().cloned());
        }
        out
    }

    /// The variables of a point by name (for a quantity's scope).
    pub fn var_map(&self, p: &Point) -> BTreeMap<String, String> {
        self.vars
            .iter()
            .cloned()
            .zip(self.values(p).into_iter().map(String::from))
            .collect()
    }

    /// Every point, sorted by key. Two points with one canonical string (a grid whose
    /// templates make two points alike) or one key (a SHA-256 collision in 64 bits) are
    /// an error naming both.
    pub fn points(&self) -> Result<Vec<Point>, SweepError> {
        let sizes: Vec<usize> = self.groups.iter().map(|g| g.values.len()).collect();
        let mut out = Vec::with_capacity(self.len());
        for at in positions(&sizes) {
            // an axis has at most MAX_AXIS_VALUES < 2^32 values: an index fits a u32
            let mut p = Point {
                key: 0,
                at: at.into_iter().map(|i| i as u32).collect(),
            };
            p.key = point_key(&self.canonical(&p));
            out.push(p);
        }
        out.sort_unstable_by_key(|p| p.key);
        for w in out.windows(2) {
            if w[0].key == w[1].key {
                let (a, b) = (self.canonical(&w[0]), self.canonical(&w[1]));
                let show =
                    |p: &Point| serde_json::to_string(&self.point_json(p)).unwrap_or_default();
                return Err(SweepError::Grid {
                    path: self.path.clone(),
                    line: 1,
                    key: "grid".into(),
                    why: if a == b {
                        format!(
                            "the points {} and {} run the same arguments: make every variable change what a point computes",
                            show(&w[0]),
                            show(&w[1])
                        )
                    } else {
                        format!(
                            "the points {} and {} have one key {} (a 64-bit hash collision): rename a variable's value",
                            show(&w[0]),
                            show(&w[1]),
                            key_text(w[0].key)
                        )
                    },
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> Result<Grid, SweepError> {
        parse("g.toml", text)
    }

    #[test]
    fn key_is_sha256_prefix() {
        // `printf 'abc' | sha256sum` = ba7816bf8f01cfea414140de5dae2223b00361a3…
        // (FIPS 180-2, appendix B.1).
        assert_eq!(point_key("abc"), 0xba78_16bf_8f01_cfea);
        assert_eq!(key_text(point_key("abc")), "ba7816bf8f01cfea");
        assert_eq!(parse_key("ba7816bf8f01cfea"), Some(0xba78_16bf_8f01_cfea));
        assert_eq!(parse_key("BA7816BF8F01CFEA"), None);
    }

    #[test]
    fn linear_range_is_exact() {
        let g = grid(
            "command = \"eval\"\n[options]\nload = \"{l}\"\n[grid]\nl = { from = \"0.1\", to = \"0.9\", step = \"0.1\" }\n",
        )
        .unwrap();
        let pts = g.points().unwrap();
        let mut v: Vec<String> = pts.iter().map(|p| g.values(p)[0].to_string()).collect();
        v.sort();
        assert_eq!(
            v,
            ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9"]
        );
        let g = grid("command = \"eval\"\n[options]\nhosts = \"{h}\"\n[grid]\nh = { from = 2, to = 11, step = 3 }\n").unwrap();
        assert_eq!(g.len(), 4); // 2, 5, 8, 11
    }

    #[test]
    fn keys_do_not_depend_on_the_order_written() {
        let a = grid("command = \"eval\"\n[options]\nhosts = \"{h}\"\nload = \"{l}\"\n[grid]\nh = [2, 3]\nl = [\"0.5\", \"0.7\"]\n").unwrap();
        let b = grid("command = \"eval\"\n[options]\nload = \"{l}\"\nhosts = \"{h}\"\n[grid]\nl = [\"0.7\", \"0.5\"]\nh = [3, 2]\n").unwrap();
        let ka: Vec<u64> = a.points().unwrap().iter().map(|p| p.key).collect();
        let kb: Vec<u64> = b.points().unwrap().iter().map(|p| p.key).collect();
        assert_eq!(ka, kb);
        assert_eq!(ka.len(), 4);
    }

    #[test]
    fn zip_varies_together() {
        let g = grid("command = \"eval\"\n[options]\ndist = \"bp:k={k},p={p},alpha=1\"\nhosts = \"{h}\"\n[grid]\nh = [2, 3]\n[[zip]]\nk = [\"1\", \"2\"]\np = [\"1e10\", \"1e20\"]\n").unwrap();
        assert_eq!(g.len(), 4);
        for p in g.points().unwrap() {
            let m = g.var_map(&p);
            assert_eq!(m["k"] == "1", m["p"] == "1e10");
        }
    }

    #[test]
    fn errors_name_line_and_key() {
        let e = grid("command = \"eval\"\n[options]\nhosts = \"{h}\"\n[grid]\nh = [2.5]\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("g.toml:5: grid.h: "), "{e}");
        let e = grid("command = \"eval\"\n[options]\nhosts = \"{x}\"\n[grid]\nh = [2]\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("g.toml:3: options.hosts: "), "{e}");
        let e = grid("command = \"eval\"\n[options]\nhosts = \"2\"\n[grid]\nh = [2]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("grid.h") && e.contains("used by no option"),
            "{e}"
        );
        let e = grid("command = \"eval\"\n[grid]\n[[zip]]\na = [\"1\"]\nb = [\"1\", \"2\"]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("zip[0].b") && e.contains("equal lengths"), "{e}");
    }

    #[test]
    fn shard_spec() {
        assert_eq!(Shard::parse("3/8").unwrap(), Shard { index: 3, count: 8 });
        assert!(Shard::parse("8/8").is_err());
        assert!(Shard::parse("0/0").is_err());
        assert!(Shard::parse("x").is_err());
    }
}
