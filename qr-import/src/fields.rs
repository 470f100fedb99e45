//! What the readers share: CSV headers matched by name whatever their spelling, short URLs split into domain and code, creation times in every spelling the services use, and tag lists.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde_json::Value;

use crate::foreign::{ForeignLink, ForeignRecord, ReadError, Unreadable};

/// A header name reduced to lower-case letters and digits, so `Long URL`, `long_url` and
/// `longUrl` are one column.
fn normalised(header: &str) -> String {
    header
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// A CSV file's header and rows.
pub(crate) struct Table {
    headers: Vec<String>,
    keys: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
}

impl Table {
    /// Reads CSV with quoted cells; rows may be shorter or longer than the header.
    pub(crate) fn csv(text: &str) -> Result<Self, ReadError> {
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .from_reader(text.as_bytes());
        let headers: Vec<String> = reader
            .headers()
            .map_err(|e| ReadError::Csv(e.to_string()))?
            .iter()
            .map(str::to_owned)
            .collect();
        let mut rows = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| ReadError::Csv(e.to_string()))?;
            if record.iter().all(|cell| cell.trim().is_empty()) {
                continue;
            }
            rows.push(record.iter().map(str::to_owned).collect());
        }
        Ok(Self::new(headers, rows))
    }

    /// A table from a header and rows already split.
    pub(crate) fn new(headers: Vec<String>, rows: Vec<Vec<String>>) -> Self {
        Self {
            keys: headers.iter().map(|h| normalised(h)).collect(),
            headers,
            rows,
        }
    }

    /// The first column named by one of `names` (compared normalised), in the order given.
    pub(crate) fn column(&self, names: &[&str]) -> Option<usize> {
        names
            .iter()
            .find_map(|name| self.keys.iter().position(|k| *k == normalised(name)))
    }

    /// [`Table::column`], required: its absence refuses the file, naming what it holds.
    pub(crate) fn required(&self, names: &[&str], holds: &'static str) -> Result<usize, ReadError> {
        self.column(names).ok_or_else(|| ReadError::MissingColumn {
            column: holds,
            found: self.headers.join(", "),
        })
    }
}

/// A row's cell in `column`, trimmed, `None` when absent or blank.
pub(crate) fn cell(row: &[String], column: Option<usize>) -> Option<&str> {
    column
        .and_then(|c| row.get(c))
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
}

/// A short URL as exports write it (`https://bit.ly/3xYz9Ab`, `rebrand.ly/burn10M`, or a bare
/// code) split into its domain (lower-cased) and its code (as written). A code with a `/` in
/// it stays as it is, for the code's own refusal.
pub(crate) fn split_short_url(raw: &str) -> (Option<String>, String) {
    let raw = raw.trim();
    let rest = ["https://", "http://"]
        .iter()
        .find_map(|scheme| {
            raw.get(..scheme.len())
                .filter(|head| head.eq_ignore_ascii_case(scheme))
                .map(|_| &raw[scheme.len()..])
        })
        .unwrap_or(raw);
    match rest.split_once('/') {
        Some((domain, code)) if !domain.is_empty() => (
            Some(domain.to_ascii_lowercase()),
            code.trim_end_matches('/').to_owned(),
        ),
        _ => (None, rest.to_owned()),
    }
}

/// A creation time as the services write it: RFC 3339 (Rebrandly, Shlink, Kutt on
/// PostgreSQL), ISO 8601 with a `+0000` offset (Bitly's API), an SQL datetime without zone
/// (YOURLS, Kutt on SQLite: UTC), or a date alone (midnight UTC).
pub(crate) fn parse_time(raw: &str) -> Result<DateTime<Utc>, String> {
    let raw = raw.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(raw) {
        return Ok(at.with_timezone(&Utc));
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%z",
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%d %H:%M:%S%z",
    ] {
        if let Ok(at) = DateTime::parse_from_str(raw, format) {
            return Ok(at.with_timezone(&Utc));
        }
    }
    for format in [
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
    ] {
        if let Ok(at) = NaiveDateTime::parse_from_str(raw, format) {
            return Ok(at.and_utc());
        }
    }
    if let Ok(day) = NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
        return Ok(day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc());
    }
    Err(format!(
        "its creation time {:?} is not a date and time",
        raw.chars().take(40).collect::<String>()
    ))
}

/// A tag cell: a JSON array of strings, or tags separated by commas.
pub(crate) fn split_list(cell: &str) -> Vec<String> {
    if cell.trim_start().starts_with('[')
        && let Ok(Value::Array(items)) = serde_json::from_str::<Value>(cell)
    {
        return items
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
    }
    cell.split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A JSON member as text: a string trimmed (`None` when blank), `None` for null or absent.
pub(crate) fn text<'a>(object: &'a Value, name: &str) -> Option<&'a str> {
    object
        .get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// A JSON array of strings (tags), empty when absent.
pub(crate) fn strings(object: &Value, name: &str) -> Vec<String> {
    object
        .get(name)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// What a reader found in one record, before the checks every format shares.
pub(crate) struct Found<'a> {
    pub(crate) code: Option<String>,
    pub(crate) domain: Option<String>,
    pub(crate) target: Option<&'a str>,
    pub(crate) title: Option<&'a str>,
    pub(crate) tags: Vec<String>,
    pub(crate) created: Option<&'a str>,
}

impl Found<'_> {
    /// The record at `position`: a link when it has a code and a target and its time reads.
    pub(crate) fn record(self, position: usize) -> ForeignRecord {
        let shown = match (&self.domain, &self.code) {
            (Some(domain), Some(code)) => format!("{domain}/{code}"),
            (None, Some(code)) => code.clone(),
            _ => String::new(),
        };
        let unreadable = |reason: String| Unreadable {
            shown: shown.clone(),
            reason,
        };
        let link = (|| {
            let code = self
                .code
                .filter(|c| !c.is_empty())
                .ok_or_else(|| unreadable("it has no short code".to_owned()))?;
            let target = self
                .target
                .ok_or_else(|| unreadable("it has no target URL".to_owned()))?;
            let created_at = self
                .created
                .map(parse_time)
                .transpose()
                .map_err(unreadable)?;
            Ok(ForeignLink {
                code,
                domain: self.domain,
                target: target.to_owned(),
                title: self.title.map(str::to_owned),
                tags: self.tags,
                created_at,
            })
        })();
        ForeignRecord { position, link }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_urls_split_into_domain_and_code() {
        assert_eq!(
            split_short_url("https://Bit.ly/3xYz9Ab"),
            (Some("bit.ly".to_owned()), "3xYz9Ab".to_owned())
        );
        assert_eq!(
            split_short_url("rebrand.ly/burn10M/"),
            (Some("rebrand.ly".to_owned()), "burn10M".to_owned())
        );
        assert_eq!(split_short_url("abc"), (None, "abc".to_owned()));
        assert_eq!(
            split_short_url("go.brand.com/a/b"),
            (Some("go.brand.com".to_owned()), "a/b".to_owned())
        );
    }

    #[test]
    fn times_in_every_spelling() {
        let at = |s| parse_time(s).map(|t| t.to_rfc3339());
        assert_eq!(
            at("2016-07-13T10:54:12.000Z"),
            Ok("2016-07-13T10:54:12+00:00".into())
        );
        assert_eq!(
            at("2016-08-21T20:53:31+02:00"),
            Ok("2016-08-21T18:53:31+00:00".into())
        );
        assert_eq!(
            at("2020-02-19T17:57:29+0000"),
            Ok("2020-02-19T17:57:29+00:00".into())
        );
        assert_eq!(
            at("2021-03-04 05:06:07"),
            Ok("2021-03-04T05:06:07+00:00".into())
        );
        assert_eq!(at("2021-03-04"), Ok("2021-03-04T00:00:00+00:00".into()));
        assert!(at("last tuesday").unwrap_err().contains("\"last tuesday\""));
    }

    #[test]
    fn tag_cells() {
        assert_eq!(split_list("print, spring ,"), ["print", "spring"]);
        assert_eq!(split_list("[\"a, b\", \"c\"]"), ["a, b", "c"]);
        assert!(split_list(" ").is_empty());
    }
}
