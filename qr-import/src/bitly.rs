//! Bitly's CSV export of links: one row per Bitlink with the Bitlink object's fields as columns (`link`/`id` as `bit.ly/3xYz9Ab`, `long_url`, `title`, `created_at`, `tags`, `custom_bitlinks`), every code a row prints (the Bitlink and each custom back-half) one foreign link.
//!
//! Format: the Bitlink object of Bitly's API v4 (<https://dev.bitly.com/api-reference>,
//! `BitlinkBody`: id, link, long_url, title, created_at, archived, tags, custom_bitlinks),
//! which the `links_list` CSV export (`POST /v4/groups/{group_guid}/exports`) lists. Headers
//! are matched whatever their case, spaces or underscores, so the web app's `Long URL` and
//! `Date created` read as `long_url` and `created_at`.

use std::collections::BTreeSet;

use crate::fields::{Found, Table, cell, split_list, split_short_url};
use crate::foreign::{ForeignRecord, ReadError};

/// The column of the Bitlink itself, best first.
const LINK: &[&str] = &["link", "bitlink", "id", "short_url", "short link"];
/// The Bitlink's hash form when `link` shows a custom back-half.
const ID: &[&str] = &["id"];
const TARGET: &[&str] = &["long_url", "destination", "url"];
const TITLE: &[&str] = &["title"];
const CREATED: &[&str] = &["created_at", "date_created", "created", "creation_date"];
const TAGS: &[&str] = &["tags"];
const CUSTOM: &[&str] = &["custom_bitlinks", "custom_bitlink", "custom_back_halves"];

/// Reads the CSV: each row's Bitlink, then its other codes (the `id` when `link` differs, each
/// custom back-half), each a record of its own with the row's target, title, tags and time:
/// every one of them may be printed somewhere.
pub(crate) fn read(text: &str) -> Result<Vec<ForeignRecord>, ReadError> {
    let table = Table::csv(text)?;
    let link = table.required(LINK, "the Bitlink (link)")?;
    let target = table.required(TARGET, "the long URL (long_url)")?;
    let id = table.column(ID).filter(|c| *c != link);
    let (title, created, tags, custom) = (
        table.column(TITLE),
        table.column(CREATED),
        table.column(TAGS),
        table.column(CUSTOM),
    );
    let mut records = Vec::new();
    for row in &table.rows {
        let mut codes: Vec<(Option<String>, String)> = Vec::new();
        let mut seen = BTreeSet::new();
        let others = cell(row, custom).map(split_list).unwrap_or_default();
        let shown = [cell(row, Some(link)), cell(row, id)]
            .into_iter()
            .flatten()
            .map(str::to_owned)
            .chain(others);
        for short_url in shown {
            let split = split_short_url(&short_url);
            if seen.insert(split.clone()) {
                codes.push(split);
            }
        }
        if codes.is_empty() {
            codes.push((None, String::new()));
        }
        for (domain, code) in codes {
            let found = Found {
                code: Some(code),
                domain,
                target: cell(row, Some(target)),
                title: cell(row, title),
                tags: cell(row, tags).map(split_list).unwrap_or_default(),
                created: cell(row, created),
            };
            records.push(found.record(records.len() + 1));
        }
    }
    Ok(records)
}
