//! `/dashboard/audit`: the workspace's audit log for owners and admins, filtered by actor, object and time, newest first a page at a time, and `/dashboard/audit.csv`, the same filters as a CSV download.

use askama::Template;
use http::StatusCode;
use qr_domain::audit::entry::{AuditEntry, summary_line};
use qr_domain::audit::query::{AuditError, AuditQuery, MAX_AUDIT_LIMIT};
use qr_domain::{Clock, Store};
use qr_export::audit::{AUDIT_CSV_NAME, audit_csv};

use super::{Failure, Layout, User, page, when};
use crate::Web;
use crate::response::{self, WebResponse};

/// Entries per page.
const PAGE_SIZE: &str = "50";
/// The most entries one CSV download holds (ten pages of the largest size); a longer log is
/// downloaded in parts by narrowing the time range.
const CSV_PAGES: usize = 10;

struct Row {
    at: String,
    actor: String,
    actor_kind: &'static str,
    action: &'static str,
    object: String,
    changes: String,
    network: String,
}

#[derive(Template)]
#[template(path = "audit.html")]
struct AuditPage {
    layout: Layout,
    rows: Vec<Row>,
    actor: String,
    object: String,
    since: String,
    until: String,
    /// The filters as a query string (URL-encoded), for the CSV link and the next page.
    filters: String,
    next: Option<String>,
    error: Option<String>,
}

fn row(e: &AuditEntry) -> Row {
    let entry = &e.entry;
    Row {
        at: when(entry.at),
        actor: entry.actor.label.clone(),
        actor_kind: entry.actor.kind.as_str(),
        action: entry.action.as_str(),
        object: format!("{} {}", entry.object.kind, entry.object.id),
        changes: summary_line(&entry.changes),
        network: entry
            .network
            .as_ref()
            .map_or_else(|| "–".to_owned(), |n| n.as_str().to_owned()),
    }
}

/// The filters as typed, from the query string.
struct Filters {
    actor: String,
    object: String,
    since: String,
    until: String,
}

impl Filters {
    fn read(user: &User<'_>) -> Self {
        let q = user.req.query();
        let text = |name: &str| q.get(name).unwrap_or("").trim().to_owned();
        Self {
            actor: text("actor"),
            object: text("object"),
            since: text("since"),
            until: text("until"),
        }
    }

    fn parse(&self, cursor: Option<&str>, limit: &str) -> Result<AuditQuery, String> {
        AuditQuery::parse(
            Some(&self.actor),
            Some(&self.object),
            Some(&self.since),
            Some(&self.until),
            cursor,
            Some(limit),
        )
        .map_err(|e| e.to_string())
    }

    /// The filters given, URL-encoded (`actor=…&since=…`).
    fn query_string(&self) -> String {
        [
            ("actor", &self.actor),
            ("object", &self.object),
            ("since", &self.since),
            ("until", &self.until),
        ]
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect::<Vec<_>>()
        .join("&")
    }
}

/// `application/x-www-form-urlencoded` for a query value: unreserved characters kept, every
/// other byte as `%XX`.
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A refusal of the log: the page does not exist for those who may not read it (as the admin
/// pages for customers), and a store failure is the store's page.
fn failure(e: AuditError) -> Failure {
    match e {
        AuditError::NotPermitted(_) => Failure::Forbidden,
        AuditError::Store(e) => e.into(),
    }
}

/// `GET /dashboard/audit`: one page of the log under the filters; `cursor` pages on.
pub(super) fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let caller = user.ctx.caller(user.req.client_ip);
    let filters = Filters::read(user);
    let query_string = user.req.query();
    let cursor = query_string.get("cursor");
    let (rows, next, error, status) = match filters.parse(cursor, PAGE_SIZE) {
        Ok(query) => {
            let found = web.service.audit_log(&caller, &query).map_err(failure)?;
            let rows = found.entries.iter().map(row).collect();
            (
                rows,
                found.next.map(|c| c.to_string()),
                None,
                StatusCode::OK,
            )
        }
        Err(message) => {
            // The permission comes before the filters' errors, as everywhere.
            web.service
                .audit_log(&caller, &AuditQuery::default())
                .map_err(failure)?;
            (Vec::new(), None, Some(message), StatusCode::BAD_REQUEST)
        }
    };
    page(
        status,
        &AuditPage {
            layout: user.layout("Audit log", "audit"),
            rows,
            filters: filters.query_string(),
            actor: filters.actor,
            object: filters.object,
            since: filters.since,
            until: filters.until,
            next,
            error,
        },
    )
}

/// `GET /dashboard/audit.csv`: every entry under the filters, newest first, up to
/// [`CSV_PAGES`] pages of [`MAX_AUDIT_LIMIT`].
pub(super) fn csv<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let caller = user.ctx.caller(user.req.client_ip);
    let filters = Filters::read(user);
    let limit = MAX_AUDIT_LIMIT.to_string();
    let mut query = filters.parse(None, &limit).map_err(|_| Failure::NotFound)?;
    let mut entries = Vec::new();
    for _ in 0..CSV_PAGES {
        let found = web.service.audit_log(&caller, &query).map_err(failure)?;
        entries.extend(found.entries);
        match found.next {
            Some(next) => query.before = Some(next.0),
            None => break,
        }
    }
    Ok(response::csv(audit_csv(&entries), AUDIT_CSV_NAME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_are_encoded_for_links() {
        assert_eq!(encode("key:a-b_c"), "key%3Aa-b_c");
        assert_eq!(
            encode("2026-11-28T10:00:00+01:00"),
            "2026-11-28T10%3A00%3A00%2B01%3A00"
        );
        assert_eq!(encode("é"), "%C3%A9");
    }
}
