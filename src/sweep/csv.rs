//! The merged CSV's rows, read from each line in one streaming pass.
//!
//! A line's cells are the point's variables, `status`, the record's fields flattened under
//! `result.` (`result.cutoffs[0]`, `result.designs[1].hosts`) and the error's
//! (`error.class`, …). They are collected by a serde visitor straight from the line's text
//! into one buffer per chunk of lines, with the column names interned per chunk: no
//! `serde_json::Value` tree is built for the record (the point, a few short strings, is).
//! The merge used to parse every line into a `Value` twice, once to learn the columns and
//! once to render them; this reads it once, and the rendering pass only copies text.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::collections::HashMap;
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
pub(super) fn parse_chunk(lines: &[&str]) -> Chunk {
    let mut chunk = Chunk::default();
    let mut path = String::new();
    for line in lines {
        let row_start = chunk.cells.len();
        let mut de = serde_json::Deserializer::from_str(line);
        let ok = Line {
            st: &mut State {
                chunk: &mut chunk,
                path: &mut path,
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
    /// The line being read (borrowed strings are slices of it).
    line: &'s str,
}

impl State<'_> {
    /// The chunk's id of the column of the value being read.
    fn column(&mut self) -> u32 {
        let Self { chunk, path, .. } = self;
        chunk.id(path)
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
                    self.st.path.push_str("result");
                    m.next_value_seed(Flat { st: self.st })?;
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

/// Largest finite f64, as (mantissa, decimal exponent).
const F64_MAX: (f64, i64) = (1.797_693_134_862_315_7, 308);
/// Smallest positive normal f64, as (mantissa, decimal exponent).
const F64_MIN_NORMAL: (f64, i64) = (2.225_073_858_507_201_4, -308);
/// Decimal places of a `log10_` cell.
const LOG10_DECIMALS: u32 = 6;

/// A plain decimal (`1.5`, `-2e-400`, `12`) read without allocating: its integer and
/// fraction digits, and the decimal exponent of its first nonzero digit. `None` for zero and
/// for anything that is not such a decimal.
struct Decimal<'a> {
    int: &'a str,
    frac: &'a str,
    /// Index of the first nonzero digit in `int` followed by `frac`.
    lead: usize,
    /// x = m · 10^exp with m in [1, 10).
    exp: i64,
}

impl<'a> Decimal<'a> {
    fn read(text: &'a str) -> Option<Self> {
        let t = text.trim();
        let t = t
            .strip_prefix('-')
            .or_else(|| t.strip_prefix('+'))
            .unwrap_or(t);
        let (mant, e) = match t.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i64>().ok()?),
            None => (t, 0),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        if (int.is_empty() && frac.is_empty())
            || !int.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let lead = int.bytes().chain(frac.bytes()).position(|b| b != b'0')?;
        let exp = e.checked_add(int.len() as i64 - 1 - lead as i64)?;
        Some(Decimal {
            int,
            frac,
            lead,
            exp,
        })
    }

    /// The mantissa in [1, 10), from its first 17 digits (correctly rounded by f64's parser).
    fn mantissa(&self) -> f64 {
        let sig: String = self
            .int
            .bytes()
            .chain(self.frac.bytes())
            .skip(self.lead)
            .take(17)
            .map(char::from)
            .collect();
        format!("{}.{}", &sig[..1], &sig[1..])
            .parse()
            .unwrap_or(1.0)
    }
}

/// Whether `text` is a number whose magnitude lies beyond f64's normal range (above its
/// largest finite value, or nonzero below its smallest normal one). Only a number at
/// either end's decade reads its mantissa.
pub(super) fn beyond_f64(text: &str) -> bool {
    match Decimal::read(text) {
        None => false,
        Some(d) => {
            d.exp > F64_MAX.1
                || d.exp < F64_MIN_NORMAL.1
                || (d.exp == F64_MAX.1 && d.mantissa() > F64_MAX.0)
                || (d.exp == F64_MIN_NORMAL.1 && d.mantissa() < F64_MIN_NORMAL.0)
        }
    }
}

/// log10 |x| of the number `text` to [`LOG10_DECIMALS`] decimals, from its exponent and
/// mantissa (exact in the exponent however large); `None` when it is not a number or zero.
pub(super) fn log10_text(text: &str) -> Option<String> {
    let d = Decimal::read(text)?;
    let (m, e) = (d.mantissa(), d.exp);
    let scale = 10i128.pow(LOG10_DECIMALS);
    // m in [1, 10): log10 m in [0, 1), rounded to the decimals kept
    let frac = (m.log10() * scale as f64).round() as i128;
    let total = i128::from(e) * scale + frac;
    let sign = if total < 0 { "-" } else { "" };
    let a = total.abs();
    Some(format!(
        "{sign}{}.{:0width$}",
        a / scale,
        a % scale,
        width = LOG10_DECIMALS as usize
    ))
}

/// The name of a record column's log10 column: `log10_` before its last part
/// (`result.value` → `result.log10_value`, `result.d[0].cutoffs[1]` →
/// `result.d[0].log10_cutoffs[1]`).
pub(super) fn log10_name(col: &str) -> String {
    match col.rfind('.') {
        Some(i) => format!("{}.log10_{}", &col[..i], &col[i + 1..]),
        None => format!("log10_{col}"),
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

    fn plain_row(line: &str) -> Vec<(String, String)> {
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
            flatten("result", r, &mut out);
        }
        if let Some(e) = v.get("error") {
            flatten("error", e, &mut out);
        }
        let ok = v.get("result").is_some();
        out.push(("status".into(), if ok { "ok" } else { "error" }.into()));
        out
    }

    #[test]
    fn numbers_beyond_f64_and_their_log10() {
        // hand-worked: f64's largest is 1.7976931348623157e308, its smallest normal
        // 2.2250738585072014e-308
        for t in [
            "1.8e308",
            "-1e309",
            "1.23e100000",
            "2e-308",
            "5e-324",
            "-1e-400",
        ] {
            assert!(beyond_f64(t), "{t}");
        }
        for t in [
            "1.7e308",
            "2.3e-308",
            "0",
            "0e0",
            "-0.5",
            "12",
            "undetermined",
            "",
            "1e",
        ] {
            assert!(!beyond_f64(t), "{t}");
        }
        // log10 1.23e100000 = 100000 + 0.0899051 (log10 1.23 = 0.08990511...)
        assert_eq!(log10_text("1.23e100000").as_deref(), Some("100000.089905"));
        // log10 |-2e-400| = -400 + 0.30103 = -399.69897
        assert_eq!(log10_text("-2e-400").as_deref(), Some("-399.698970"));
        // log10 9.9999999e9 rounds up to 10.000000
        assert_eq!(log10_text("9.9999999e9").as_deref(), Some("10.000000"));
        assert_eq!(log10_text("0.001").as_deref(), Some("-3.000000"));
        assert_eq!(log10_text("0"), None);
        assert_eq!(log10_text("n/a"), None);
        assert_eq!(log10_name("result.value"), "result.log10_value");
        assert_eq!(
            log10_name("result.d[0].cutoffs[1]"),
            "result.d[0].log10_cutoffs[1]"
        );
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
        let chunk = parse_chunk(&lines);
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
            let mut want = plain_row(line);
            if want.is_empty() {
                // A line that is no JSON: an empty row both ways.
                assert!(got.is_empty(), "line {i}: {got:?}");
                continue;
            }
            got.sort();
            want.sort();
            assert_eq!(got, want, "line {i}");
        }
        // Columns in order of first appearance (the record's fields after the variables),
        // every record field under `result.`.
        let pos = |c: &str| chunk.cols.iter().position(|x| x == c).expect(c);
        assert!(pos("a") < pos("result.a") && pos("result.a") < pos("result.x"));
        assert!(pos("result.x") < pos("result.v[0]") && pos("result.v[0]") < pos("result.v[1]"));
        assert!(pos("result.d[1].hosts") < pos("result.m.p.q"));
        assert!(pos("result.key") < pos("result.status"));
    }
}
