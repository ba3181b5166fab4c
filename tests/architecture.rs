//! The direction of dependencies between the rooms of `src/` (ARCHITECTURE.md, "Direction
//! of dependencies"): every path a non-test item of a room names — `use crate::…`,
//! `use super::…` and the same paths written inline — must lead to the room itself or to
//! a room it may use. [`ALLOWED`] is the one table of those edges; ARCHITECTURE.md prints
//! the same table, and [`the_documented_table_is_the_one_enforced`] holds the two equal.
//!
//! A room is a directory `src/<room>/` or a file `src/<room>.rs`. The scan strips comments
//! (doc comments too: a link is not a dependency), string and character literals, and every
//! item under `#[cfg(test)]`; it expands `use` groups (`crate::{a::X, b::Y}` names two
//! rooms) and resolves `super::` from the file's own module path.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// `error`, `progress` and `vocab` are the crate's services: every room may use them.
const SERVICES: &[&str] = &["error", "progress", "vocab"];

/// The rooms each room may use besides itself and the [`SERVICES`]. `cli` parses and calls
/// any room, `error` aggregates every room's error enum and `prelude` re-exports what a
/// library user needs: the three may use every room ([`EVERY_ROOM`]).
const ALLOWED: &[(&str, &[&str])] = &[
    ("num", &[]),
    ("dist", &["num"]),
    ("policy", &["num", "dist"]),
    ("optimize", &["num", "dist", "policy"]),
    ("sim", &["num", "dist", "policy"]),
    ("lb", &["num", "dist", "sim"]),
    ("redundancy", &["num", "dist", "sim"]),
    (
        "claims",
        &[
            "num",
            "dist",
            "policy",
            "optimize",
            "sim",
            "lb",
            "redundancy",
        ],
    ),
    ("sweep", &["num", "claims"]),
    (
        "report",
        &[
            "num",
            "dist",
            "policy",
            "optimize",
            "sim",
            "lb",
            "redundancy",
            "claims",
        ],
    ),
    ("cli", EVERY_ROOM),
    ("progress", &[]),
    ("vocab", &[]),
    ("error", EVERY_ROOM),
    ("prelude", EVERY_ROOM),
];

/// The rooms `cli`, `error` and `prelude` may use: all the others but the services.
const EVERY_ROOM: &[&str] = &[
    "num",
    "dist",
    "policy",
    "optimize",
    "sim",
    "lb",
    "redundancy",
    "claims",
    "sweep",
    "report",
];

/// Names the crate root re-exports or defines (`lib.rs`), and the room they belong to.
const ROOT_ITEMS: &[(&str, &str)] = &[
    ("Error", "error"),
    ("ErrorKind", "error"),
    ("run_command_line", "cli"),
    ("run_command_line_captured", "cli"),
];

fn src_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `src` with comments, string literals and character literals replaced by spaces
/// (newlines kept, so that line numbers stay).
fn strip(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out: Vec<char> = c.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for x in out.iter_mut().take(to.min(c.len())).skip(from) {
            if *x != '\n' {
                *x = ' ';
            }
        }
    };
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            let end = (i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len());
            blank(&mut out, i, end);
            i = end;
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            let mut j = i;
            while j < c.len() {
                if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if c[i] == 'r'
            && (i == 0
                || !is_ident(c[i - 1])
                || (c[i - 1] == 'b' && (i < 2 || !is_ident(c[i - 2]))))
            && matches!(next, Some('"') | Some('#'))
        {
            // A raw string r"…" or r#"…"#: no escapes, ends at '"' and as many '#'.
            let hashes = c[i + 1..].iter().take_while(|&&x| x == '#').count();
            if c.get(i + 1 + hashes) != Some(&'"') {
                i += 1;
                continue;
            }
            let body = i + 2 + hashes;
            let mut j = body;
            while j < c.len() {
                if c[j] == '"'
                    && c[j + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&x| x == '#')
                        .count()
                        == hashes
                {
                    break;
                }
                j += 1;
            }
            blank(&mut out, body, j);
            i = j + 1 + hashes;
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j);
            i = j + 1;
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{..}', '"'), or else a lifetime.
            if next == Some('\\') {
                let end = (i + 3..c.len()).find(|&j| c[j] == '\'').unwrap_or(c.len());
                blank(&mut out, i + 1, end);
                i = end + 1;
            } else if c.get(i + 2) == Some(&'\'') {
                blank(&mut out, i + 1, i + 2);
                i += 3;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out.into_iter().collect()
}

/// `text` (already stripped) with every item under `#[cfg(test)]` blanked: the attribute
/// and the item up to its `;` or the end of its `{ … }` block.
fn drop_test_items(text: &str) -> String {
    const ATTR: &str = "#[cfg(test)]";
    let mut c: Vec<char> = text.chars().collect();
    let attr: Vec<char> = ATTR.chars().collect();
    let mut i = 0;
    while i + attr.len() <= c.len() {
        if c[i..i + attr.len()] != attr[..] {
            i += 1;
            continue;
        }
        let mut j = i + attr.len();
        let mut nest = 0i32;
        while j < c.len() {
            match c[j] {
                '(' | '[' => nest += 1,
                ')' | ']' => nest -= 1,
                ';' if nest == 0 => break,
                '{' if nest == 0 => {
                    let mut depth = 0;
                    while j < c.len() {
                        match c[j] {
                            '{' => depth += 1,
                            '}' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        let end = (j + 1).min(c.len());
        for x in c.iter_mut().take(end).skip(i) {
            if *x != '\n' {
                *x = ' ';
            }
        }
        i = j + 1;
    }
    c.into_iter().collect()
}

/// The first segments of the paths that start at `c[at]` (after `crate::` or the last
/// `super::`): one name, or one per item of a `{ … }` group.
fn first_segments(c: &[char], at: usize) -> Vec<String> {
    let mut i = at;
    while i < c.len() && c[i].is_whitespace() {
        i += 1;
    }
    if c.get(i) != Some(&'{') {
        let name: String = c[i..].iter().take_while(|&&x| is_ident(x)).collect();
        return if name.is_empty() { vec![] } else { vec![name] };
    }
    let mut out = Vec::new();
    let mut depth = 0;
    let mut start = true;
    i += 1;
    while i < c.len() {
        match c[i] {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => start = true,
            x if start && is_ident(x) => {
                let name: String = c[i..].iter().take_while(|&&y| is_ident(y)).collect();
                i += name.chars().count();
                start = false;
                out.push(name);
                continue;
            }
            x if !x.is_whitespace() => start = false,
            _ => {}
        }
        i += 1;
    }
    out
}

/// One path from a room's non-test code into the crate.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Use {
    /// `src/…` and line.
    at: String,
    /// The module path it names, from the crate root (first segments only).
    path: Vec<String>,
}

/// The module path of `file` (relative to `src/`): `lb/sim/mod.rs` is `lb::sim`,
/// `lb/sim/occupancy.rs` is `lb::sim::occupancy`, `error.rs` is `error`.
fn module_path(file: &Path) -> Vec<String> {
    let mut parts: Vec<String> = file
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs").to_string();
        if stem != "mod" && stem != "lib" {
            parts.push(stem);
        }
    }
    parts
}

/// Every path of `text` (the source of `file`, relative to `src/`) into the crate:
/// `crate::…` from the root, `super::…` from the file's module.
fn uses_of(file: &Path, text: &str) -> Vec<Use> {
    let clean = drop_test_items(&strip(text));
    let c: Vec<char> = clean.chars().collect();
    let module = module_path(file);
    let line_of = |at: usize| 1 + c[..at].iter().filter(|&&x| x == '\n').count();
    let starts_word = |at: usize| at == 0 || !(is_ident(c[at - 1]) || c[at - 1] == ':');
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let rest: String = c[i..(i + 7).min(c.len())].iter().collect();
        if rest == "crate::" && starts_word(i) {
            for s in first_segments(&c, i + 7) {
                out.push(Use {
                    at: format!("src/{}:{}", file.display(), line_of(i)),
                    path: vec![s],
                });
            }
            i += 7;
        } else if rest.starts_with("super::") && starts_word(i) {
            let mut j = i;
            let mut up = 0;
            while c[j..].iter().take(7).collect::<String>() == "super::" {
                up += 1;
                j += 7;
            }
            // `super` of a module is its parent: drop `up` segments of the module path.
            let base: Vec<String> = module[..module.len().saturating_sub(up)].to_vec();
            for s in first_segments(&c, j) {
                let mut path = base.clone();
                path.push(s);
                out.push(Use {
                    at: format!("src/{}:{}", file.display(), line_of(i)),
                    path,
                });
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The rooms of `src/`: its directories and its `.rs` files but `lib.rs` and `main.rs`.
fn rooms() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in fs::read_dir(src_dir()).expect("src/ is readable").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() {
            out.insert(name);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "lib" && stem != "main" {
                out.insert(stem.to_string());
            }
        }
    }
    out
}

/// Every `.rs` file under `dir`, relative to `src/`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir)
        .expect("a source directory is readable")
        .flatten()
    {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p.strip_prefix(src_dir()).expect("under src/").to_path_buf());
        }
    }
}

/// The room a module path belongs to (its first segment, or the root item's room).
fn room_of(path: &[String], rooms: &BTreeSet<String>) -> Option<String> {
    let first = path.first()?;
    if rooms.contains(first) {
        return Some(first.clone());
    }
    ROOT_ITEMS
        .iter()
        .find(|(name, _)| name == first)
        .map(|(_, room)| room.to_string())
}

/// Every (from, to) room edge of the crate's non-test code, with where each is used.
fn edges() -> BTreeMap<(String, String), Vec<String>> {
    let rooms = rooms();
    let mut all = Vec::new();
    files(&src_dir(), &mut all);
    let mut out: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut unresolved = Vec::new();
    for f in all {
        let from = match module_path(&f).first() {
            Some(r) if rooms.contains(r) => r.clone(),
            // lib.rs and main.rs: the crate root and the binary.
            _ => continue,
        };
        let text = fs::read_to_string(src_dir().join(&f)).expect("a source file is readable");
        for u in uses_of(&f, &text) {
            match room_of(&u.path, &rooms) {
                Some(to) if to != from => {
                    out.entry((from.clone(), to)).or_default().push(u.at);
                }
                Some(_) => {}
                None => unresolved.push(format!("{}: crate::{}", u.at, u.path.join("::"))),
            }
        }
    }
    assert!(
        unresolved.is_empty(),
        "paths that lead to no room (a new root item? add it to ROOT_ITEMS):\n{}",
        unresolved.join("\n")
    );
    out
}

fn allowed(from: &str, to: &str) -> bool {
    SERVICES.contains(&to)
        || ALLOWED
            .iter()
            .any(|(room, may)| *room == from && may.contains(&to))
}

#[test]
fn every_room_uses_only_the_rooms_it_may() {
    let edges = edges();
    let rooms = rooms();
    // Every room of src/ has a row, and the table names no room that does not exist.
    let listed: BTreeSet<String> = ALLOWED.iter().map(|(r, _)| r.to_string()).collect();
    assert_eq!(listed, rooms, "ALLOWED lists exactly the rooms of src/");
    for (_, may) in ALLOWED {
        for r in *may {
            assert!(rooms.contains(*r), "ALLOWED names an unknown room {r}");
        }
    }
    let bad: Vec<String> = edges
        .iter()
        .filter(|((from, to), _)| !allowed(from, to))
        .map(|((from, to), at)| format!("{from} -> {to} (not allowed): {}", at.join(", ")))
        .collect();
    assert!(
        bad.is_empty(),
        "edges against ARCHITECTURE.md's direction of dependencies:\n{}",
        bad.join("\n")
    );
    // The scan sees the crate: edges it must find (a scan that found nothing would pass
    // the check above vacuously).
    for (from, to) in [
        ("cli", "report"),
        ("report", "lb"),
        ("lb", "sim"),
        ("dist", "num"),
        ("claims", "redundancy"),
    ] {
        assert!(
            edges.contains_key(&(from.to_string(), to.to_string())),
            "the scan should find {from} -> {to}"
        );
    }
}

/// The table of ARCHITECTURE.md's "Direction of dependencies": the rows `| \`room\` |
/// \`a\`, \`b\` |` of its table of allowed rooms ("every room" is [`EVERY_ROOM`], "—"
/// none).
fn documented_table() -> BTreeMap<String, BTreeSet<String>> {
    let doc = fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md is readable");
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("Direction of dependencies"))
        .expect("ARCHITECTURE.md has a section \"Direction of dependencies\"");
    let mut out = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let names = |cell: &str| -> BTreeSet<String> {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        };
        let room = names(cells[1]).into_iter().next().expect("a room name");
        let may = if cells[2] == "every room" {
            EVERY_ROOM.iter().map(|s| s.to_string()).collect()
        } else {
            names(cells[2])
        };
        out.insert(room, may);
    }
    out
}

#[test]
fn the_documented_table_is_the_one_enforced() {
    let doc = documented_table();
    let ours: BTreeMap<String, BTreeSet<String>> = ALLOWED
        .iter()
        .map(|(r, may)| (r.to_string(), may.iter().map(|s| s.to_string()).collect()))
        .collect();
    assert_eq!(doc, ours, "ARCHITECTURE.md's table and ALLOWED differ");
}

#[test]
fn the_scan_reads_paths_as_rustc_does() {
    let text = r##"
//! A doc link: [`crate::report::Record`] is no dependency.
use super::{model::System, sim::Obs};
use crate::{lb::fluid, num::{self, show}};
/* crate::cli in a block comment /* nested */ crate::cli */
const S: &str = "crate::sweep";
const R: &str = r#"crate::sweep " still"#;
const Q: char = '"';
fn f<'a>(x: &'a str) -> usize { crate::dist::check(x) + super::super::policy::g() }
#[cfg(test)]
mod tests {
    use crate::report::Record;
}
#[cfg(test)]
use crate::cli::run;
"##;
    let got: BTreeSet<Vec<String>> = uses_of(Path::new("lb/sim/mod.rs"), text)
        .into_iter()
        .map(|u| u.path)
        .collect();
    let want: BTreeSet<Vec<String>> = [
        vec!["lb", "model"],
        vec!["lb", "sim"],
        vec!["lb"],
        vec!["num"],
        vec!["dist"],
        vec!["policy"],
    ]
    .into_iter()
    .map(|p| p.into_iter().map(String::from).collect())
    .collect();
    assert_eq!(got, want);
    // super:: from a leaf file names its own directory's module.
    let leaf: Vec<Vec<String>> = uses_of(Path::new("lb/sim/occupancy.rs"), "use super::Counts;")
        .into_iter()
        .map(|u| u.path)
        .collect();
    assert_eq!(leaf, vec![vec!["lb", "sim", "Counts"]]);
    assert_eq!(
        room_of(&["lb".to_string(), "model".to_string()], &rooms()),
        Some("lb".to_string())
    );
}
