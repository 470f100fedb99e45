//! Shlink's exports: the REST API's short-URL pages (`GET /rest/v3/short-urls`: `{"shortUrls": {"data": [...], "pagination": {...}}}`, one page or an array of pages) and the table `shlink short-url:list` prints.
//!
//! Formats, from Shlink's source (github.com/shlinkio/shlink): the ShortUrl JSON
//! (`docs/swagger/definitions/ShortUrl.json`: shortCode, shortUrl, longUrl, dateCreated,
//! tags, domain, null for the default domain, title) and
//! `module/CLI/src/Command/ShortUrl/ListShortUrlsCommand.php`, whose Symfony table has the
//! columns `Short Code | Title | Short URL | Long URL | Date created | Visits count`, then
//! `Tags` (joined by `, `) with `--show-tags` and `Domain` (`DEFAULT` for the default domain)
//! with `--show-domain`, and a footer `Page 1 of 1` in its bottom border.

use serde_json::Value;

use crate::fields::{Found, Table, cell, split_list, split_short_url, strings, text};
use crate::foreign::{ForeignRecord, ReadError};

/// What `--show-domain` prints for the default domain.
const DEFAULT_DOMAIN: &str = "DEFAULT";

/// Reads JSON (starting with `{` or `[`) or the printed table.
pub(crate) fn read(input: &str) -> Result<Vec<ForeignRecord>, ReadError> {
    let trimmed = input.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        read_json(input)
    } else {
        read_table(input)
    }
}

/// The items of one page (`{"shortUrls": {"data": [...]}}`) or of an array of pages.
fn read_json(input: &str) -> Result<Vec<ForeignRecord>, ReadError> {
    const SHAPE: &str =
        "Shlink's short-URL list: {\"shortUrls\": {\"data\": [...]}} or an array of those pages";
    let value: Value = serde_json::from_str(input).map_err(|e| ReadError::Json(e.to_string()))?;
    let pages = match &value {
        Value::Array(pages) => pages.iter().collect(),
        page => vec![page],
    };
    let mut records = Vec::new();
    for page in pages {
        let items = page
            .get("shortUrls")
            .and_then(|s| s.get("data"))
            .and_then(Value::as_array)
            .ok_or(ReadError::Shape(SHAPE))?;
        for item in items {
            let (url_domain, _) = text(item, "shortUrl")
                .map(split_short_url)
                .unwrap_or_default();
            let found = Found {
                code: text(item, "shortCode").map(str::to_owned),
                // `domain` is null on the default domain: the short URL's host is where it is
                // printed.
                domain: text(item, "domain")
                    .map(str::to_ascii_lowercase)
                    .or(url_domain),
                target: text(item, "longUrl"),
                title: text(item, "title"),
                tags: strings(item, "tags"),
                created: text(item, "dateCreated"),
            };
            records.push(found.record(records.len() + 1));
        }
    }
    Ok(records)
}

/// The cells of a table line (`| a | b |` or the box style's `│ a │ b │`), or `None` for a
/// border or any other line.
fn table_cells(line: &str) -> Option<Vec<String>> {
    let line = line.trim();
    let bar = |c: char| c == '|' || c == '│' || c == '┃';
    let inner = line.strip_prefix(bar)?.strip_suffix(bar)?;
    Some(inner.split(bar).map(|c| c.trim().to_owned()).collect())
}

/// The printed table: its first row is the header, the other rows are short URLs.
fn read_table(input: &str) -> Result<Vec<ForeignRecord>, ReadError> {
    let mut lines = input.lines().filter_map(table_cells);
    let headers = lines.next().ok_or(ReadError::Shape(
        "Shlink's short-url:list table (| Short Code | Title | Short URL | Long URL | ...) or its REST API's JSON",
    ))?;
    let table = Table::new(headers, lines.collect());
    let code = table.required(&["Short Code"], "the short code (Short Code)")?;
    let target = table.required(&["Long URL", "Original URL"], "the long URL (Long URL)")?;
    let short_url = table.column(&["Short URL"]);
    let (title, created, tags, domain) = (
        table.column(&["Title"]),
        table.column(&["Date created"]),
        table.column(&["Tags"]),
        table.column(&["Domain"]),
    );
    let records = table
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let (url_domain, _) = cell(row, short_url)
                .map(split_short_url)
                .unwrap_or_default();
            let found = Found {
                code: cell(row, Some(code)).map(str::to_owned),
                domain: cell(row, domain)
                    .filter(|d| *d != DEFAULT_DOMAIN)
                    .map(str::to_ascii_lowercase)
                    .or(url_domain),
                target: cell(row, Some(target)),
                title: cell(row, title),
                tags: cell(row, tags).map(split_list).unwrap_or_default(),
                created: cell(row, created),
            };
            found.record(i + 1)
        })
        .collect();
    Ok(records)
}
