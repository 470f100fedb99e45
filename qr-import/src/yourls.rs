//! YOURLS's exports: the API's `action=stats` answer (`{"links": {"link_1": {"shorturl", "url", "title", "timestamp", "ip", "clicks"}, ...}}`) and its `yourls_url` table dumped as CSV (`keyword,url,title,timestamp,ip,clicks`).
//!
//! Formats, from YOURLS's source (github.com/YOURLS/YOURLS, `includes/functions-api.php` and
//! `yourls_get_stats` in `includes/functions.php`): each link as `link_N` with its full short
//! URL, long URL, title and `timestamp` (the table's DATETIME, `2021-03-04 05:06:07`, UTC);
//! the table `yourls_url` (`keyword`, `url`, `title`, `timestamp`, `ip`, `clicks`) is what a
//! database dump or phpMyAdmin's CSV export holds. YOURLS has no tags.

use serde_json::Value;

use crate::fields::{Found, Table, cell, split_short_url, text};
use crate::foreign::{ForeignRecord, ReadError};

/// Reads the JSON answer (starting with `{`) or the table's CSV.
pub(crate) fn read(input: &str) -> Result<Vec<ForeignRecord>, ReadError> {
    if input.trim_start().starts_with('{') {
        read_stats(input)
    } else {
        read_table(input)
    }
}

/// The number of a `link_N` key, for file order (JSON objects come back sorted by key, where
/// `link_10` sorts before `link_2`).
fn link_number(key: &str) -> u64 {
    key.rsplit('_')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX)
}

fn read_stats(input: &str) -> Result<Vec<ForeignRecord>, ReadError> {
    const SHAPE: &str = "YOURLS's action=stats answer: {\"links\": {\"link_1\": {\"shorturl\": ..., \"url\": ...}}}";
    let value: Value = serde_json::from_str(input).map_err(|e| ReadError::Json(e.to_string()))?;
    let links: Vec<&Value> = match value.get("links") {
        Some(Value::Object(links)) => {
            let mut keyed: Vec<(&String, &Value)> = links.iter().collect();
            keyed.sort_by_key(|(key, _)| link_number(key));
            keyed.into_iter().map(|(_, link)| link).collect()
        }
        Some(Value::Array(links)) => links.iter().collect(),
        _ => return Err(ReadError::Shape(SHAPE)),
    };
    let records = links
        .into_iter()
        .enumerate()
        .map(|(i, link)| {
            let (domain, code) = text(link, "shorturl")
                .map(split_short_url)
                .unwrap_or_default();
            let found = Found {
                code: text(link, "keyword")
                    .map(str::to_owned)
                    .or(Some(code).filter(|c| !c.is_empty())),
                domain,
                target: text(link, "url"),
                title: text(link, "title"),
                tags: Vec::new(),
                created: text(link, "timestamp"),
            };
            found.record(i + 1)
        })
        .collect();
    Ok(records)
}

fn read_table(input: &str) -> Result<Vec<ForeignRecord>, ReadError> {
    let table = Table::csv(input)?;
    let keyword = table.required(&["keyword"], "the keyword")?;
    let url = table.required(&["url"], "the long URL (url)")?;
    let (title, timestamp) = (table.column(&["title"]), table.column(&["timestamp"]));
    let records = table
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let found = Found {
                code: cell(row, Some(keyword)).map(str::to_owned),
                domain: None,
                target: cell(row, Some(url)),
                title: cell(row, title),
                tags: Vec::new(),
                created: cell(row, timestamp),
            };
            found.record(i + 1)
        })
        .collect();
    Ok(records)
}
