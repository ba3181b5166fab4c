//! The files of `src/claims/` and of `src/sweep/` form a DAG: no file reaches itself
//! through the paths its non-test code names.
//!
//! The graph is read from the source text, the way a reviewer reads it:
//! - comments, string and character literals, and `#[cfg(test)]` items are blanked out;
//! - every `use` declaration (groups expanded, `self` in a group, `as` renames, globs) and
//!   every inline path that starts with `crate::`, `super::`, `self::`, a child module's
//!   name or a name a `use` of the file brought in, is resolved to the file that defines
//!   the item: the longest prefix that is a module file, then through that module's `use`
//!   declarations (re-exports) to where the item is defined;
//! - a `pub use` in a `mod.rs` is a facade, not a dependency: it makes no edge (paths
//!   through it still resolve to the defining file). Any other code of a `mod.rs` (an
//!   error type, a `register` function) makes edges like any file's.
//!
//! A failure lists every cycle's files and the line that makes each of its edges.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Most re-export hops followed while resolving one path (a loop of re-exports is a bug
/// of the resolver, not of the crate: rustc rejects it).
const MAX_REEXPORT_HOPS: usize = 16;

/// A module of the crate, read from its file.
struct Module {
    /// Path of the file relative to `src/` (`claims/run.rs`).
    file: String,
    /// `mod.rs` or `lib.rs`: its `pub use` declarations are a facade.
    facade_file: bool,
    /// The text with comments, literals and test items blanked (same offsets).
    code: Vec<char>,
    /// Its `use` declarations.
    uses: Vec<Use>,
    /// Names its own items take (`fn x`, `struct X`, …; not its child modules).
    defines: BTreeSet<String>,
}

/// One leaf of a `use` declaration.
#[derive(Clone, Debug)]
struct Use {
    /// The absolute path (`crate` left out), or `None` for a path outside the crate.
    target: Option<Vec<String>>,
    /// The name it binds in the module (`None` for a glob).
    name: Option<String>,
    /// Any `pub` visibility.
    public: bool,
    /// Character offset of the declaration.
    at: usize,
}

/// The crate: modules by path (`["claims", "run"]`; the root is `[]`).
struct Crate {
    modules: BTreeMap<Vec<String>, Module>,
}

/// An edge's evidence: the first line of the source file that makes it.
type Edges = BTreeMap<(String, String), usize>;

// ---------------------------------------------------------------------------------------
// Reading the text.

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text with comments, string and character literals replaced by spaces (newlines
/// kept, so that offsets and line numbers are those of the file).
fn blank_comments_and_literals(text: &str) -> Vec<char> {
    let c: Vec<char> = text.chars().collect();
    let mut out = c.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for x in out.iter_mut().take(to.min(c.len())).skip(from) {
            if *x != '\n' {
                *x = ' ';
            }
        }
    };
    let n = c.len();
    let mut i = 0;
    while i < n {
        let prev_ident = i > 0 && is_ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            let mut j = i;
            while j < n && c[j] != '\n' {
                j += 1;
            }
            blank(&mut out, i, j);
            i = j;
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            let mut j = i;
            while j < n {
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
        } else if !prev_ident && (c[i] == 'r' || (c[i] == 'b' && c.get(i + 1) == Some(&'r'))) && {
            let k = if c[i] == 'b' { i + 2 } else { i + 1 };
            let mut h = k;
            while h < n && c[h] == '#' {
                h += 1;
            }
            c.get(h) == Some(&'"')
        } {
            // A raw string: r#"…"# with as many hashes at both ends.
            let k = if c[i] == 'b' { i + 2 } else { i + 1 };
            let mut h = k;
            while h < n && c[h] == '#' {
                h += 1;
            }
            let hashes = h - k;
            let mut j = h + 1;
            while j < n {
                if c[j] == '"' && (1..=hashes).all(|m| c.get(j + m) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            blank(&mut out, i, j);
            i = j;
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < n && c[j] != '"' {
                if c[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{1F600}'), or else a lifetime or a label.
            if c.get(i + 1) == Some(&'\\') {
                let mut j = i + 3;
                while j < n && c[j] != '\'' {
                    j += 1;
                }
                blank(&mut out, i, j + 1);
                i = j + 1;
            } else if c.get(i + 2) == Some(&'\'') {
                blank(&mut out, i, i + 3);
                i += 3;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Blanks every item marked `#[cfg(test)]` (a `mod tests { … }`, a test-only `use` or fn).
fn blank_test_items(code: &mut [char]) {
    let text: String = code.iter().collect();
    let marks: Vec<usize> = text
        .match_indices("#[cfg(test)]")
        .map(|(b, _)| text[..b].chars().count())
        .collect();
    for start in marks {
        let n = code.len();
        let mut i = start + "#[cfg(test)]".len();
        // further attributes of the same item
        loop {
            while i < n && code[i].is_whitespace() {
                i += 1;
            }
            if i + 1 < n && code[i] == '#' && code[i + 1] == '[' {
                let mut depth = 0;
                while i < n {
                    match code[i] {
                        '[' => depth += 1,
                        ']' => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            } else {
                break;
            }
        }
        // the item: up to a `;` outside brackets, or the brace that closes its body
        let (mut braces, mut other) = (0i32, 0i32);
        while i < n {
            match code[i] {
                '(' | '[' => other += 1,
                ')' | ']' => other -= 1,
                '{' => braces += 1,
                '}' => {
                    braces -= 1;
                    if braces == 0 {
                        i += 1;
                        break;
                    }
                }
                ';' if braces == 0 && other == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        for x in code.iter_mut().take(i).skip(start) {
            if *x != '\n' {
                *x = ' ';
            }
        }
    }
}

/// Tokens of a `use` tree: names and the punctuation `::`, `{`, `}`, `,`, `*`.
fn use_tokens(s: &str) -> Vec<String> {
    let c: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if is_ident(c[i]) {
            let st = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            out.push(c[st..i].iter().collect());
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".into());
            i += 2;
        } else if "{},*".contains(c[i]) {
            out.push(c[i].to_string());
            i += 1;
        } else {
            i += 1;
        }
    }
    out
}

/// Expands a `use` tree at `toks[*i..]` under `prefix` into (path, bound name) leaves; a
/// glob binds no name.
fn use_tree(
    toks: &[String],
    i: &mut usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix.to_vec();
    if toks.get(*i).map(String::as_str) == Some("::") {
        *i += 1; // a leading `::` (an extern crate)
    }
    loop {
        match toks.get(*i).map(String::as_str) {
            Some("{") => {
                *i += 1;
                while toks.get(*i).map(String::as_str) != Some("}") && *i < toks.len() {
                    use_tree(toks, i, &path, out);
                    if toks.get(*i).map(String::as_str) == Some(",") {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            Some("*") => {
                *i += 1;
                out.push((path, None));
                return;
            }
            Some(t) if is_ident(t.chars().next().unwrap_or(' ')) => {
                path.push(t.to_string());
                *i += 1;
                if toks.get(*i).map(String::as_str) == Some("::") {
                    *i += 1;
                    continue;
                }
                let mut name = path.last().cloned();
                if toks.get(*i).map(String::as_str) == Some("as") {
                    name = toks.get(*i + 1).cloned();
                    *i += 2;
                }
                if path.last().map(String::as_str) == Some("self") {
                    path.pop();
                    if name.as_deref() == Some("self") {
                        name = path.last().cloned();
                    }
                }
                out.push((path, name));
                return;
            }
            _ => return,
        }
    }
}

impl Crate {
    /// Reads every module file under `src` (the library: `main.rs` is left out).
    fn read(src: &Path) -> Crate {
        let mut files = Vec::new();
        walk(src, &mut files);
        let sources = files
            .into_iter()
            .filter_map(|p| {
                let rel = p
                    .strip_prefix(src)
                    .ok()?
                    .to_string_lossy()
                    .replace('\\', "/");
                if rel == "main.rs" || rel.starts_with("bin/") {
                    return None;
                }
                let text = std::fs::read_to_string(&p).ok()?;
                Some((rel, text))
            })
            .collect();
        Crate::from_sources(sources)
    }

    /// A crate from (file relative to `src/`, text) pairs.
    fn from_sources(sources: Vec<(String, String)>) -> Crate {
        let mut modules = BTreeMap::new();
        for (file, text) in sources {
            let mut path: Vec<String> = file
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_string)
                .collect();
            let facade_file = matches!(path.last().map(String::as_str), Some("mod" | "lib"));
            if facade_file {
                path.pop();
            }
            let mut code = blank_comments_and_literals(&text);
            blank_test_items(&mut code);
            modules.insert(
                path,
                Module {
                    file,
                    facade_file,
                    code,
                    uses: vec![],
                    defines: BTreeSet::new(),
                },
            );
        }
        let mut krate = Crate { modules };
        let paths: Vec<Vec<String>> = krate.modules.keys().cloned().collect();
        for p in paths {
            let (uses, defines) = krate.read_module(&p);
            if let Some(m) = krate.modules.get_mut(&p) {
                m.uses = uses;
                m.defines = defines;
            }
        }
        krate
    }

    fn is_module(&self, p: &[String]) -> bool {
        self.modules.contains_key(p)
    }

    /// A path as written in module `at` made absolute (`None`: outside the crate).
    fn absolute(&self, at: &[String], written: &[String], uses: &[Use]) -> Option<Vec<String>> {
        let first = written.first()?;
        let mut base: Vec<String> = at.to_vec();
        let mut rest = written;
        match first.as_str() {
            "crate" => {
                base.clear();
                rest = &written[1..];
            }
            "self" => rest = &written[1..],
            "super" => {
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                if rest.first().map(String::as_str) == Some("self") {
                    rest = &rest[1..];
                }
            }
            name => {
                let mut child = at.to_vec();
                child.push(name.to_string());
                if self.is_module(&child) {
                    // a child module, named without `self::`
                } else if let Some(u) = uses
                    .iter()
                    .find(|u| u.name.as_deref() == Some(name) && u.target.is_some())
                {
                    base = u.target.clone()?;
                    rest = &written[1..];
                } else {
                    return None;
                }
            }
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The `use` declarations and defined names of module `p`.
    fn read_module(&self, p: &[String]) -> (Vec<Use>, BTreeSet<String>) {
        let code = &self.modules[p].code;
        let text: String = code.iter().collect();
        let chars: Vec<char> = text.chars().collect();
        let mut raw: Vec<(Vec<String>, Option<String>, bool, usize)> = Vec::new();
        let mut defines = BTreeSet::new();
        for (i, w) in words(&chars) {
            match w.as_str() {
                "use" => {
                    let end = (i..chars.len())
                        .find(|&k| chars[k] == ';')
                        .unwrap_or(chars.len());
                    let body: String = chars[i + 3..end].iter().collect();
                    let toks = use_tokens(&body);
                    let mut leaves = Vec::new();
                    let mut k = 0;
                    use_tree(&toks, &mut k, &[], &mut leaves);
                    let before: String = chars[..i].iter().collect();
                    let before = before.trim_end();
                    // `pub use`, `pub(crate) use`, `pub(super) use`, `pub(in …) use`
                    let public = before.ends_with("pub")
                        || (before.ends_with(')')
                            && before
                                .rfind('(')
                                .is_some_and(|b| before[..b].trim_end().ends_with("pub")));
                    for (path, name) in leaves {
                        raw.push((path, name, public, i));
                    }
                }
                "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union" => {
                    if let Some((_, name)) = words(&chars[i + w.len()..]).next() {
                        defines.insert(name);
                    }
                }
                "macro_rules" => {
                    let after: String = chars[i + w.len()..].iter().collect();
                    if let Some((_, name)) = words(&after.chars().collect::<Vec<_>>()).next() {
                        defines.insert(name);
                    }
                }
                _ => {}
            }
        }
        // Absolute paths, in two passes: a `use` may start from a name another `use` of
        // the file bound (`use super::expr; use expr::Arg;` is rare but legal).
        let mut uses: Vec<Use> = raw
            .iter()
            .map(|(_, name, public, at)| Use {
                target: None,
                name: name.clone(),
                public: *public,
                at: *at,
            })
            .collect();
        for _ in 0..2 {
            let known = uses.clone();
            for (u, (path, _, _, _)) in uses.iter_mut().zip(&raw) {
                u.target = self.absolute(p, path, &known);
            }
        }
        (uses, defines)
    }

    /// The files that define what `path` (absolute) names, following re-exports: one,
    /// or two when the path ends at a module's name that its parent also gives an item
    /// (`claims::registry` is both the module `registry.rs` and the function `registry()`
    /// of `claims/mod.rs`; both are kept, so that no edge is missed).
    fn resolve(&self, path: &[String]) -> Vec<String> {
        let mut path = path.to_vec();
        for _ in 0..MAX_REEXPORT_HOPS {
            let mut module: Vec<String> = vec![];
            let mut k = 0;
            while k < path.len() {
                let mut next = module.clone();
                next.push(path[k].clone());
                if !self.is_module(&next) {
                    break;
                }
                if k + 1 == path.len() {
                    if let Some(parent) = self.modules.get(&module) {
                        if parent.defines.contains(&path[k]) {
                            return vec![parent.file.clone(), self.modules[&next].file.clone()];
                        }
                    }
                }
                module = next;
                k += 1;
            }
            let Some(m) = self.modules.get(&module) else {
                return vec![];
            };
            let Some(item) = path.get(k) else {
                return vec![m.file.clone()];
            };
            if m.defines.contains(item) {
                return vec![m.file.clone()];
            }
            // an item the module imports or re-exports: where it comes from
            if let Some(t) = m
                .uses
                .iter()
                .find(|u| u.name.as_deref() == Some(item.as_str()))
                .and_then(|u| u.target.clone())
            {
                let mut next = t;
                next.extend(path[k + 1..].iter().cloned());
                path = next;
                continue;
            }
            // through a glob, to the module that defines the name
            let globbed = m.uses.iter().filter(|u| u.name.is_none()).find_map(|u| {
                let t = u.target.as_ref()?;
                let g = self.modules.get(t)?;
                let has = g.defines.contains(item)
                    || g.uses
                        .iter()
                        .any(|v| v.name.as_deref() == Some(item.as_str()));
                has.then(|| t.clone())
            });
            match globbed {
                Some(t) => {
                    let mut next = t;
                    next.extend(path[k..].iter().cloned());
                    path = next;
                }
                None => return vec![m.file.clone()],
            }
        }
        vec![]
    }

    /// Every file-to-file edge of non-test code, with the first line that makes it.
    fn edges(&self) -> Edges {
        let mut out = Edges::new();
        for (p, m) in &self.modules {
            let mut add = |at: usize, target: &[String]| {
                for f in self.resolve(target) {
                    if f != m.file {
                        let line = m.code[..at].iter().filter(|&&c| c == '\n').count() + 1;
                        out.entry((m.file.clone(), f)).or_insert(line);
                    }
                }
            };
            for u in &m.uses {
                if u.public && m.facade_file {
                    continue;
                }
                if let Some(t) = &u.target {
                    add(u.at, t);
                }
            }
            // inline paths, outside `use` declarations
            let mut code = m.code.clone();
            for u in &m.uses {
                let end = (u.at..code.len())
                    .find(|&k| code[k] == ';')
                    .unwrap_or(code.len());
                for x in code.iter_mut().take(end).skip(u.at) {
                    *x = ' ';
                }
            }
            for (at, written) in inline_paths(&code) {
                if let Some(abs) = self.absolute(p, &written, &m.uses) {
                    add(at, &abs);
                }
            }
        }
        out
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            walk(&e, out);
        } else if e.extension().is_some_and(|x| x == "rs") {
            out.push(e);
        }
    }
}

/// The words of `c` (identifiers and keywords) with their offsets.
fn words(c: &[char]) -> impl Iterator<Item = (usize, String)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < c.len() {
            if is_ident(c[i]) && (i == 0 || !is_ident(c[i - 1])) {
                let st = i;
                while i < c.len() && is_ident(c[i]) {
                    i += 1;
                }
                let w: String = c[st..i].iter().collect();
                if !w.chars().next().is_some_and(|f| f.is_ascii_digit()) {
                    return Some((st, w));
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

/// Paths of two or more segments (`a::b`, `super::x::Y`) not preceded by `::`, with their
/// offsets.
fn inline_paths(c: &[char]) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut i = 0;
    let n = c.len();
    while i < n {
        if !(is_ident(c[i]) && (i == 0 || !is_ident(c[i - 1]))) {
            i += 1;
            continue;
        }
        let preceded = {
            let mut b = i;
            while b > 0 && c[b - 1].is_whitespace() {
                b -= 1;
            }
            b >= 2 && c[b - 1] == ':' && c[b - 2] == ':'
        };
        let st = i;
        let mut segs = Vec::new();
        loop {
            let s = i;
            while i < n && is_ident(c[i]) {
                i += 1;
            }
            segs.push(c[s..i].iter().collect::<String>());
            let mut j = i;
            while j < n && c[j].is_whitespace() {
                j += 1;
            }
            if j + 1 < n && c[j] == ':' && c[j + 1] == ':' {
                let mut k = j + 2;
                while k < n && c[k].is_whitespace() {
                    k += 1;
                }
                if k < n && is_ident(c[k]) {
                    i = k;
                    continue;
                }
            }
            break;
        }
        if !preceded && segs.len() >= 2 {
            out.push((st, segs));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Cycles.

/// The strongly connected components with more than one file (Tarjan), each sorted.
fn cycles(nodes: &BTreeSet<String>, edges: &Edges) -> Vec<Vec<String>> {
    let idx: BTreeMap<&String, usize> = nodes.iter().enumerate().map(|(i, n)| (n, i)).collect();
    let names: Vec<&String> = nodes.iter().collect();
    let mut adj = vec![Vec::new(); nodes.len()];
    for (a, b) in edges.keys() {
        if let (Some(&x), Some(&y)) = (idx.get(a), idx.get(b)) {
            adj[x].push(y);
        }
    }
    struct T {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(v: usize, adj: &[Vec<usize>], t: &mut T) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for &w in &adj[v] {
            match t.index[w] {
                None => {
                    visit(w, adj, t);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on[w] => t.low[v] = t.low[v].min(iw),
                _ => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                t.out.push(comp);
            }
        }
    }
    let n = nodes.len();
    let mut t = T {
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: vec![],
        next: 0,
        out: vec![],
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(v, &adj, &mut t);
        }
    }
    let mut out: Vec<Vec<String>> = t
        .out
        .into_iter()
        .map(|c| {
            let mut c: Vec<String> = c.into_iter().map(|i| names[i].clone()).collect();
            c.sort();
            c
        })
        .collect();
    out.sort();
    out
}

/// The cycles among the files under `room/`, each with the edges inside it and their
/// lines, as a report; empty when there is none.
fn cycle_report(krate: &Crate, room: &str) -> String {
    let edges = krate.edges();
    let nodes: BTreeSet<String> = krate
        .modules
        .values()
        .map(|m| m.file.clone())
        .filter(|f| f.starts_with(&format!("{room}/")))
        .collect();
    let mut report = String::new();
    for comp in cycles(&nodes, &edges) {
        report.push_str(&format!("cycle among {} files:\n", comp.len()));
        for ((a, b), line) in &edges {
            if comp.contains(a) && comp.contains(b) {
                report.push_str(&format!("  src/{a}:{line} -> src/{b}\n"));
            }
        }
    }
    report
}

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

// ---------------------------------------------------------------------------------------
// The tests.

#[test]
fn the_files_of_claims_form_a_dag() {
    let report = cycle_report(&Crate::read(&src()), "claims");
    assert!(report.is_empty(), "src/claims/ has cycles:\n{report}");
}

#[test]
fn the_files_of_sweep_form_a_dag() {
    let report = cycle_report(&Crate::read(&src()), "sweep");
    assert!(report.is_empty(), "src/sweep/ has cycles:\n{report}");
}

/// The reader sees the edges a reviewer sees in today's code (so that an empty cycle
/// report means something): a `use` of a sibling and of a cousin, an import across rooms,
/// a parent calling its child by name, a function of a `mod.rs` that shares its name with
/// a module (`claims::registry()`), a type named through a `mod.rs` re-export.
#[test]
fn the_reader_finds_known_edges() {
    let edges = Crate::read(&src()).edges();
    for (from, to) in [
        ("claims/scope.rs", "claims/expr.rs"),
        ("claims/run/points.rs", "claims/scope.rs"),
        ("sweep/axis.rs", "claims/schema.rs"),
        ("claims/quantities/mod.rs", "claims/quantities/dispatch.rs"),
        ("claims/compile/names.rs", "claims/mod.rs"),
        ("claims/mod.rs", "claims/registry.rs"),
        ("claims/compile/table.rs", "claims/error.rs"),
    ] {
        assert!(
            edges.contains_key(&(from.to_string(), to.to_string())),
            "no edge {from} -> {to}; edges from {from}: {:?}",
            edges
                .keys()
                .filter(|(a, _)| a == from)
                .map(|(_, b)| b)
                .collect::<Vec<_>>()
        );
    }
}

fn synthetic(files: &[(&str, &str)]) -> Crate {
    Crate::from_sources(
        files
            .iter()
            .map(|(f, t)| (f.to_string(), t.to_string()))
            .collect(),
    )
}

/// A cycle made by a `use`, by an inline path, and through a re-export is found; the same
/// names in comments, strings and test code are not edges.
#[test]
fn a_cycle_is_found_and_test_code_is_not_one() {
    let lib = "pub mod room;";
    let facade = "mod a; mod b; mod c; pub use a::Alpha; pub use b::beta;";
    for (a, b) in [
        (
            "use super::b::beta; pub struct Alpha;",
            "use super::a::Alpha; pub fn beta() {}",
        ),
        (
            "pub struct Alpha; fn f() { crate::room::b::beta() }",
            "pub fn beta() { let _ = super::Alpha; }",
        ),
    ] {
        let k = synthetic(&[
            ("lib.rs", lib),
            ("room/mod.rs", facade),
            ("room/a.rs", a),
            ("room/b.rs", b),
            ("room/c.rs", ""),
        ]);
        let r = cycle_report(&k, "room");
        assert!(
            r.contains("src/room/a.rs") && r.contains("src/room/b.rs"),
            "no cycle found in {a:?} / {b:?}:\n{r}"
        );
    }
    let k = synthetic(&[
        ("lib.rs", lib),
        ("room/mod.rs", facade),
        (
            "room/a.rs",
            "use super::b::beta; pub struct Alpha; fn f() { beta() }",
        ),
        (
            "room/b.rs",
            r##"pub fn beta() {
                // super::a::Alpha
                let _ = "super::a::Alpha";
                let _ = r#"super::Alpha"#;
                let _ = '"';
            }
            /* crate::room::a::Alpha */
            #[cfg(test)]
            mod tests { use super::super::a::Alpha; }
            #[cfg(test)]
            use crate::room::Alpha;"##,
        ),
        ("room/c.rs", ""),
    ]);
    assert_eq!(cycle_report(&k, "room"), "");
    assert!(k
        .edges()
        .contains_key(&("room/a.rs".to_string(), "room/b.rs".to_string())));
}
