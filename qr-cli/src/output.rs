//! Printing helpers shared by the commands: aligned tables, JSON, dates and optional values.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

/// A table printed with columns aligned on the widest cell, headers in capitals.
#[derive(Debug)]
pub struct Table {
    headers: Vec<&'static str>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers.
    pub fn new(headers: &[&'static str]) -> Self {
        Self {
            headers: headers.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; it must have one cell per header.
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.headers.len());
        self.rows.push(cells);
    }

    /// Writes the table; an empty table writes only its header row.
    pub fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |out: &mut dyn Write, cells: &mut dyn Iterator<Item = &str>| {
            let mut text = String::new();
            for (i, cell) in cells.enumerate() {
                if i > 0 {
                    text.push_str("  ");
                }
                text.push_str(cell);
                let pad = widths[i].saturating_sub(cell.chars().count());
                text.extend(std::iter::repeat_n(' ', pad));
            }
            writeln!(out, "{}", text.trim_end())
        };
        line(out, &mut self.headers.iter().copied())?;
        for row in &self.rows {
            line(out, &mut row.iter().map(String::as_str))?;
        }
        Ok(())
    }
}

/// Writes `value` as pretty-printed JSON followed by a newline.
pub fn write_json<T: Serialize + ?Sized>(out: &mut dyn Write, value: &T) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Writes `key: value` lines with the values aligned.
pub fn write_fields(out: &mut dyn Write, fields: &[(&str, String)]) -> std::io::Result<()> {
    let width = fields.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (key, value) in fields {
        writeln!(
            out,
            "{:<width$}  {value}",
            format!("{key}:"),
            width = width + 1
        )?;
    }
    Ok(())
}

/// An instant as ISO 8601 UTC with whole seconds, as `2024-05-01T12:00:00Z`.
pub fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// An optional instant, or `never`.
pub fn time_or_never(at: Option<DateTime<Utc>>) -> String {
    at.map_or_else(|| "never".to_owned(), time)
}

/// A list of items joined with commas, or `-` when empty.
pub fn list_or_dash<T: ToString>(items: impl IntoIterator<Item = T>) -> String {
    let items: Vec<String> = items.into_iter().map(|i| i.to_string()).collect();
    if items.is_empty() {
        "-".to_owned()
    } else {
        items.join(", ")
    }
}

/// Writes `path` all or nothing: `write` fills a temporary file (named `prefix`…) beside it,
/// which is synced and renamed over `path` once `write` succeeds; a failure leaves `path` as it
/// was. Returns what `write` returned and the bytes written.
pub fn write_atomically<T>(
    path: &Path,
    prefix: &str,
    write: impl FnOnce(&File) -> anyhow::Result<T>,
) -> anyhow::Result<(T, u64)> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let temp = tempfile::Builder::new()
        .prefix(prefix)
        .tempfile_in(&dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    let value = write(temp.as_file())?;
    temp.as_file().sync_all()?;
    let bytes = temp.as_file().metadata()?.len();
    temp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok((value, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_columns() {
        let mut t = Table::new(&["ID", "E-MAIL"]);
        t.row(vec!["1".into(), "a@example.com".into()]);
        t.row(vec!["12345".into(), "b@example.com".into()]);
        let mut out = Vec::new();
        t.write(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "ID     E-MAIL\n1      a@example.com\n12345  b@example.com\n"
        );
    }

    #[test]
    fn fields_align_values() {
        let mut out = Vec::new();
        write_fields(&mut out, &[("id", "1".into()), ("plan", "pro".into())]).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "id:    1\nplan:  pro\n");
    }
}
