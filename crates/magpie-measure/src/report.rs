//! Report primitives shared by the experiments and the benchmark suites: aligned text
//! tables, CSV fields, and the suites' "JSON on stdout, tables on stderr" output.

use std::io::{self, Write};

use serde::Serialize;

/// A text table with aligned columns: two spaces between columns, numbers right-aligned.
///
/// ```
/// let mut t = magpie_measure::report::Table::new(&[("name", false), ("n", true)]);
/// t.row(vec!["a".into(), "10".into()]);
/// let mut out = Vec::new();
/// t.write(&mut out).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "name   n\na     10\n");
/// ```
pub struct Table {
    headers: Vec<(&'static str, bool)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Columns: header and whether it is right-aligned (numbers).
    pub fn new(headers: &[(&'static str, bool)]) -> Table {
        Table {
            headers: headers.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row: one cell per column.
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.headers.len());
        self.rows.push(cells);
    }

    /// Writes the header line and the rows.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let widths: Vec<usize> = self
            .headers
            .iter()
            .enumerate()
            .map(|(i, (h, _))| {
                self.rows
                    .iter()
                    .map(|r| r[i].chars().count())
                    .chain([h.chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: Vec<&str>| -> String {
            let mut s = String::new();
            for (i, c) in cells.iter().enumerate() {
                if i > 0 {
                    s.push_str("  ");
                }
                let pad = widths[i] - c.chars().count();
                if self.headers[i].1 {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    if i + 1 < cells.len() {
                        s.push_str(&" ".repeat(pad));
                    }
                }
            }
            s
        };
        writeln!(out, "{}", line(self.headers.iter().map(|h| h.0).collect()))?;
        for r in &self.rows {
            writeln!(out, "{}", line(r.iter().map(String::as_str).collect()))?;
        }
        Ok(())
    }
}

/// A CSV field, quoted if it holds a comma, a quote or a line break (RFC 4180).
///
/// ```
/// use magpie_measure::report::csv_field;
/// assert_eq!(csv_field("park"), "park");
/// assert_eq!(csv_field("park:spin=0,yield=0"), "\"park:spin=0,yield=0\"");
/// ```
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Prints a suite's report: the tables (`text`) on stdout, or with `json` the rows as a
/// pretty JSON array on stdout and the tables on stderr; then an error listing the
/// configurations that `failed` (and so have no row), if any.
pub fn emit<T: Serialize>(
    rows: &[T],
    text: &str,
    json: bool,
    failed: &[String],
) -> Result<(), String> {
    if json {
        eprint!("{text}");
        let json = serde_json::to_string_pretty(rows).map_err(|e| e.to_string())?;
        println!("{json}");
    } else {
        print!("{text}");
    }
    failures("configuration", failed)
}

/// `Ok` when nothing `failed`; else the error that ends a report: how many `what`s (a
/// configuration, a pair…) failed and so have no row, then each failure on its own line.
pub fn failures(what: &str, failed: &[String]) -> Result<(), String> {
    if failed.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{} {what}(s) failed and have no row:\n  {}",
        failed.len(),
        failed.join("\n  ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("park"), "park");
        assert_eq!(csv_field("park:spin=0,yield=0"), "\"park:spin=0,yield=0\"");
        assert_eq!(csv_field("a \"b\""), "\"a \"\"b\"\"\"");
    }

    #[test]
    fn tables_align() {
        let mut t = Table::new(&[("name", false), ("n", true)]);
        t.row(vec!["a".into(), "10".into()]);
        t.row(vec!["long".into(), "2".into()]);
        let mut out = Vec::new();
        t.write(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "name   n\na     10\nlong   2\n"
        );
    }
}

/// Named counts serialized as one JSON object, in their order: `{"pushes": 3, "pops": 2}`
/// (a worker's counters, its LCWS profile).
///
/// ```
/// use magpie_measure::report::Fields;
/// let json = serde_json::to_string(&Fields(&[("pushes", 3), ("pops", 2)])).unwrap();
/// assert_eq!(json, r#"{"pushes":3,"pops":2}"#);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Fields<'a>(pub &'a [(&'static str, u64)]);

impl Serialize for Fields<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}
