//! Kutt's export: the API's link pages (`GET /api/v2/links`: `{"total", "limit", "skip", "data": [...]}`, one page or an array of pages, or the `data` array alone).
//!
//! Format, from Kutt's source (github.com/thedevs-network/kutt, `server/handlers/links.handler.js`
//! `get` and `sanitize.link` in `server/utils/utils.js`, the `Link` schema of
//! `docs/api/api.js`): each link has `id` (a UUID), `address` (the code), `target`,
//! `description` (its title), `domain` (null on the instance's own domain), `link` (the full
//! short URL), `created_at`, `updated_at`, `visit_count`, `password` and `banned` (booleans).
//! Kutt has no tags.

use serde_json::Value;

use crate::fields::{Found, split_short_url, text};
use crate::foreign::{ForeignRecord, ReadError};

pub(crate) fn read(input: &str) -> Result<Vec<ForeignRecord>, ReadError> {
    const SHAPE: &str = "Kutt's link list: {\"data\": [...]} as GET /api/v2/links answers, an array of those pages, or the data array";
    let value: Value = serde_json::from_str(input).map_err(|e| ReadError::Json(e.to_string()))?;
    let page_links = |page: &Value| page.get("data").and_then(Value::as_array).cloned();
    let links: Vec<Value> = match &value {
        Value::Array(items)
            if items.iter().all(|i| i.get("data").is_some()) && !items.is_empty() =>
        {
            items
                .iter()
                .map(page_links)
                .collect::<Option<Vec<_>>>()
                .ok_or(ReadError::Shape(SHAPE))?
                .concat()
        }
        Value::Array(items) => items.clone(),
        page => page_links(page).ok_or(ReadError::Shape(SHAPE))?,
    };
    let records = links
        .iter()
        .enumerate()
        .map(|(i, link)| {
            let (url_domain, _) = text(link, "link").map(split_short_url).unwrap_or_default();
            let found = Found {
                code: text(link, "address").map(str::to_owned),
                domain: text(link, "domain")
                    .map(str::to_ascii_lowercase)
                    .or(url_domain),
                target: text(link, "target"),
                title: text(link, "description"),
                tags: Vec::new(),
                created: text(link, "created_at"),
            };
            found.record(i + 1)
        })
        .collect();
    Ok(records)
}
