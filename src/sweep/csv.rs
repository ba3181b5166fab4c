//! The merged CSV's rows, read from each line in one streaming pass.
//!
//! A line's cells are the point's variables, `status`, the record's fields flattened
//! (`cutoffs[0]`, `designs[1].hosts`; renamed `result.NAME` where a grid variable, `key` or
//! `status` has that name) and the error's (`error.class`, …). They are collected by a serde
//! visitor straight from the line's text into one buffer per chunk of lines, with the column
//! names interned per chunk: no `serde_json::Value` tree is built for the record (the point,
//! a few short strings, is). The merge used to parse every line into a `Value` twice, once
//! to learn the columns and once to render them; this reads it once, and the rendering pass
//! only copies text.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::collections::{BTreeSet, HashMap};
use std::fmt;

/// The cells of a chunk of lines.
#[derive(Default)]
pub(super) struct Chunk {
    /// Column names in order of first appearance in the chunk.
    pub cols: Vec<String>,
    lookup: HashMap<String, u32>,
    /// The text of the cells that are not a slice of their line (numbers, strings with
    /// escapes, the point's values), one after the other.
    buf: String,
    /// Each cell: its column (with [`IN_BUF`] set when its text is in `buf`), and the start
    /// and end of its text in `buf` or in its line.
    cells: Vec<(u32, u32, u32)>,
    /// End (in `cells`) of each row.
    ends: Vec<usize>,
}

/// The flag of a cell whose text is in the chunk's buffer rather than its line.
const IN_BUF: u32 = 1 << 31;

impl Chunk {
    /// The rows of `lines` (the lines this chunk was read from): for each line, its cells
    /// as (chunk column, text).
    pub fn rows<'a>(
        &'a self,
        lines: &'a [&'a str],
    ) -> impl Iterator<Item = impl Iterator<Item = (u32, &'a str)> + 'a> + 'a {
        let mut start = 0;
        self.ends.iter().zip(lines).map(move |(&end, line)| {
            let row = &self.cells[start..end];
            start = end;
            row.iter().map(move |&(c, a, b)| {
                let (a, b) = (a as usize, b as usize);
                if c & IN_BUF != 0 {
                    (c & !IN_BUF, &self.buf[a..b])
                } else {
                    (c, &line[a..b])
                }
            })
        })
    }

    fn id(&mut self, col: &str) -> u32 {
        match self.lookup.get(col) {
            Some(&id) => id,
            None => {
                let id = self.cols.len() as u32;
                self.cols.push(col.to_string());
                self.lookup.insert(col.to_string(), id);
                id
            }
        }
    }

    /// A cell of the column with id `id` whose text is copied into the buffer.
    fn push_id(&mut self, id: u32, text: &str) {
        let a = self.buf.len() as u32;
        self.buf.push_str(text);
        self.cells.push((id | IN_BUF, a, self.buf.len() as u32));
    }

    /// A cell of the column `col`, copied into the buffer.
    fn push(&mut self, col: &str, text: &str) {
        let id = self.id(col);
        self.push_id(id, text);
    }
}

/// Reads the cells of `lines` (complete sweep lines) into one chunk. A line that is not a
/// JSON object gives an empty row (the first pass of the merge has already refused it).
pub(super) fn parse_chunk(lines: &[&str], vars: &BTreeSet<String>) -> Chunk {
    let mut chunk = Chunk::default();
    let mut path = String::new();
    for line in lines {
        let row_start = chunk.cells.len();
        let mut de = serde_json::Deserializer::from_str(line);
        let ok = Line {
            st: &mut State {
                chunk: &mut chunk,
                path: &mut path,
                vars,
                in_result: false,
                line,
            },
        }
        .deserialize(&mut de)
        .is_ok();
        if !ok {
            chunk.cells.truncate(row_start);
        }
        chunk.ends.push(chunk.cells.len());
    }
    chunk
}

struct State<'s> {
    chunk: &'s mut Chunk,
    /// The flattened name of the value being read.
    path: &'s mut String,
    vars: &'s BTreeSet<String>,
    in_result: bool,
    /// The line being read (borrowed strings are slices of it).
    line: &'s str,
}

impl State<'_> {
    /// The chunk's id of the column of the value being read (`result.NAME` for a record
    /// field named like a grid variable, `key` or `status`).
    fn column(&mut self) -> u32 {
        let p = self.path.as_str();
        if self.in_result && (self.vars.contains(p) || p == "key" || p == "status") {
            let renamed = format!("result.{p}");
            self.chunk.id(&renamed)
        } else {
            self.chunk.id(p)
        }
    }

    /// A cell whose text is copied into the chunk's buffer.
    fn cell(&mut self, text: &str) {
        let id = self.column();
        self.chunk.push_id(id, text);
    }

    /// A string borrowed from the line: kept as a slice of it, not copied.
    fn cell_borrowed(&mut self, text: &str) {
        let a = (text.as_ptr() as usize).wrapping_sub(self.line.as_ptr() as usize);
        if a.checked_add(text.len())
            .is_some_and(|b| b <= self.line.len())
        {
            let id = self.column();
            self.chunk
                .cells
                .push((id, a as u32, (a + text.len()) as u32));
        } else {
            self.cell(text);
        }
    }
}

/// A whole line: `point`, `result` and `error` read, anything else skipped.
struct Line<'a, 's> {
    st: &'a mut State<'s>,
}

impl<'de> DeserializeSeed<'de> for Line<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Line<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sweep line")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        let mut has_result = false;
        while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
            match k.as_ref() {
                "point" => {
                    let p: serde_json::Map<String, serde_json::Value> = m.next_value()?;
                    for (k, x) in p {
                        let text = x.as_str().map_or_else(|| x.to_string(), String::from);
                        self.st.chunk.push(&k, &text);
                    }
                }
                "result" => {
                    has_result = true;
                    self.st.path.clear();
                    self.st.in_result = true;
                    m.next_value_seed(Flat { st: self.st })?;
                    self.st.in_result = false;
                }
                "error" => {
                    self.st.path.clear();
                    self.st.path.push_str("error");
                    m.next_value_seed(Flat { st: self.st })?;
                }
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        self.st
            .chunk
            .push("status", if has_result { "ok" } else { "error" });
        Ok(())
    }
}

/// A value flattened under `st.path`.
struct Flat<'a, 's> {
    st: &'a mut State<'s>,
}

impl<'de> DeserializeSeed<'de> for Flat<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Flat<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        let base = self.st.path.len();
        while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
            if base > 0 {
                self.st.path.push('.');
            }
            self.st.path.push_str(&k);
            m.next_value_seed(Flat { st: self.st })?;
            self.st.path.truncate(base);
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
        let base = self.st.path.len();
        let mut i = 0usize;
        loop {
            use fmt::Write;
            // Writing to a String cannot fail.
            let _ = write!(self.st.path, "[{i}]");
            if s.next_element_seed(Flat { st: self.st })?.is_none() {
                self.st.path.truncate(base);
                return Ok(());
            }
            self.st.path.truncate(base);
            i += 1;
        }
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<(), E> {
        self.st.cell_borrowed(v);
        Ok(())
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.st.cell(v);
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.st.cell("");
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        self.st.cell("");
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.st.cell(if v { "true" } else { "false" });
        Ok(())
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.st.cell(&v.to_string());
        Ok(())
    }
    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.st.cell(&v.to_string());
        Ok(())
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        // serde_json's own rendering of a number, as `Value::to_string` gives it.
        let text = serde_json::Number::from_f64(v).map_or_else(String::new, |n| n.to_string());
        self.st.cell(&text);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The plain reading this module replaced, kept as the reference: the line parsed into a
    /// `Value` and flattened recursively.
    fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let p = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    flatten(&p, x, out);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    flatten(&format!("{prefix}[{i}]"), x, out);
                }
            }
            Value::String(s) => out.push((prefix.to_string(), s.clone())),
            Value::Null => out.push((prefix.to_string(), String::new())),
            other => out.push((prefix.to_string(), other.to_string())),
        }
    }

    fn plain_row(line: &str, vars: &BTreeSet<String>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return out;
        };
        if let Some(p) = v.get("point").and_then(|p| p.as_object()) {
            for (k, x) in p {
                out.push((
                    k.clone(),
                    x.as_str().map_or_else(|| x.to_string(), String::from),
                ));
            }
        }
        if let Some(r) = v.get("result") {
            let mut cells = Vec::new();
            flatten("", r, &mut cells);
            for (k, x) in cells {
                let k = if vars.contains(&k) || k == "key" || k == "status" {
                    format!("result.{k}")
                } else {
                    k
                };
                out.push((k, x));
            }
        }
        if let Some(e) = v.get("error") {
            flatten("error", e, &mut out);
        }
        let ok = v.get("result").is_some();
        out.push(("status".into(), if ok { "ok" } else { "error" }.into()));
        out
    }

    #[test]
    fn streaming_cells_equal_the_plain_flattening() {
        let lines = [
            // numbers (integer, negative, float, exponent), bools, null, nested arrays and
            // objects, an escaped string (not a slice of the line), a unicode escape, a
            // record field named like a variable, `key` and `status` inside the record.
            r#"{"key":"00000000000000ab","point":{"a":"1.5","h":2},"result":{"a":7,"key":"k","status":"s","x":-3,"y":1.25,"z":1e300,"ok":true,"no":false,"n":null,"v":["1e0","2e0"],"d":[{"hosts":2,"c":["x"]},{"hosts":3,"c":[]}],"m":{"p":{"q":"deep"}},"s":"comma, \"quote\"\nline","u":"\u00e9t\u00e9"}}"#,
            r#"{"key":"00000000000000ac","point":{"a":"2","h":3},"error":{"class":"input","exit":2,"message":"bad \\ thing"}}"#,
            r#"{"point":{"a":"3"},"key":"00000000000000ad","result":{}}"#,
            "not json",
        ];
        let vars: BTreeSet<String> = ["a", "h"].map(String::from).into();
        let chunk = parse_chunk(&lines, &vars);
        let rows: Vec<Vec<(String, String)>> = chunk
            .rows(&lines)
            .map(|r| {
                r.map(|(c, t)| (chunk.cols[c as usize].clone(), t.to_string()))
                    .collect()
            })
            .collect();
        assert_eq!(rows.len(), lines.len());
        for (i, line) in lines.iter().enumerate() {
            let mut got = rows[i].clone();
            let mut want = plain_row(line, &vars);
            if want.is_empty() {
                // A line that is no JSON: an empty row both ways.
                assert!(got.is_empty(), "line {i}: {got:?}");
                continue;
            }
            got.sort();
            want.sort();
            assert_eq!(got, want, "line {i}");
        }
        // Columns in order of first appearance (the record's fields after the variables).
        let pos = |c: &str| chunk.cols.iter().position(|x| x == c).expect(c);
        assert!(pos("result.a") < pos("x") && pos("x") < pos("v[0]") && pos("v[0]") < pos("v[1]"));
        assert!(pos("d[1].hosts") < pos("m.p.q"));
    }
}
