//! Rebrandly's CSV export of links: one row per branded link with the link entity's fields as columns (`slashtag`, `domain`, `shortUrl`, `destination`, `title`, `createdAt`, `tags`).
//!
//! Format: Rebrandly's link entity (<https://developers.rebrandly.com/docs/link-entity>: id,
//! title, slashtag, destination, shortUrl such as `rebrand.ly/burn10M`, domain.fullName,
//! createdAt as `2016-07-13T10:54:12.000Z`, updatedAt, clicks), which the dashboard's CSV
//! export lists one column each. Headers are matched whatever their case, spaces or
//! underscores (`Short URL`, `Created at`).

use crate::fields::{Found, Table, cell, split_list, split_short_url};
use crate::foreign::{ForeignRecord, ReadError};

const SLASHTAG: &[&str] = &["slashtag", "slash_tag", "keyword"];
const SHORT_URL: &[&str] = &["shortUrl", "short_link", "shortlink", "link"];
const DOMAIN: &[&str] = &["domain", "domain.fullName", "domain_name", "branded_domain"];
const TARGET: &[&str] = &["destination", "destination_url", "long_url"];
const TITLE: &[&str] = &["title"];
const CREATED: &[&str] = &["createdAt", "created", "creation_date", "date_created"];
const TAGS: &[&str] = &["tags"];

/// Reads the CSV: the code is the slashtag (else the short URL's path), the domain the
/// domain column (else the short URL's host).
pub(crate) fn read(text: &str) -> Result<Vec<ForeignRecord>, ReadError> {
    let table = Table::csv(text)?;
    let target = table.required(TARGET, "the destination")?;
    let slashtag = table.column(SLASHTAG);
    let short_url = table.column(SHORT_URL);
    if slashtag.is_none() && short_url.is_none() {
        table.required(SLASHTAG, "the slashtag (or shortUrl)")?;
    }
    let (domain, title, created, tags) = (
        table.column(DOMAIN),
        table.column(TITLE),
        table.column(CREATED),
        table.column(TAGS),
    );
    let records = table
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let (url_domain, url_code) = cell(row, short_url)
                .map(split_short_url)
                .unwrap_or_default();
            let found = Found {
                code: cell(row, slashtag)
                    .map(str::to_owned)
                    .or(Some(url_code).filter(|c| !c.is_empty())),
                domain: cell(row, domain)
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
