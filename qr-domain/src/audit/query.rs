//! Reading the audit log: the filters (actor, object, time range), the cursor of newest-first pages, and the errors of a read.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, NaiveDate, Utc};
use thiserror::Error;

use crate::accounts::permissions::NotPermitted;
use crate::audit::entry::{ActorKind, AuditEntry, AuditId, ObjectKind};
use crate::error::StoreError;
use crate::scans::analytics::day_start;

/// Entries per page when the reader does not say.
pub const DEFAULT_AUDIT_LIMIT: u32 = 50;
/// The most entries of one page (the CSV export reads pages of this size until the end).
pub const MAX_AUDIT_LIMIT: u32 = 1000;

/// Whose entries: the operator, every user or key, or one of them by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActorFilter {
    /// The actor's kind, when given (`key`, `user`, `operator`).
    pub kind: Option<ActorKind>,
    /// The user's or key's id, when given.
    pub id: Option<String>,
}

/// Which object's entries: every object of a kind, or one by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectFilter {
    /// The object's kind, when given.
    pub kind: Option<ObjectKind>,
    /// The object's id, when given.
    pub id: Option<String>,
}

/// A query of the log: filters, a cursor and a page size. Entries come newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditQuery {
    /// Only this actor's entries.
    pub actor: Option<ActorFilter>,
    /// Only this object's entries.
    pub object: Option<ObjectFilter>,
    /// Only entries at or after this instant.
    pub since: Option<DateTime<Utc>>,
    /// Only entries before this instant.
    pub until: Option<DateTime<Utc>>,
    /// Only entries older than this one (the previous page's last).
    pub before: Option<AuditId>,
    /// The most entries to return, 1 to [`MAX_AUDIT_LIMIT`].
    pub limit: u32,
}

impl Default for AuditQuery {
    fn default() -> Self {
        Self {
            actor: None,
            object: None,
            since: None,
            until: None,
            before: None,
            limit: DEFAULT_AUDIT_LIMIT,
        }
    }
}

/// One page of entries and where the next starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditPage {
    /// The entries, newest first.
    pub entries: Vec<AuditEntry>,
    /// The cursor of the next page; `None` on the last.
    pub next: Option<AuditCursor>,
}

/// Where a page starts: after the entry with this id. Shown as the id's decimal text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditCursor(pub AuditId);

/// Why a query's input was refused; each message names the parameter.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AuditQueryError {
    /// An actor filter that is neither `operator`, `key`, `user`, `KIND:ID` nor an id.
    #[error("invalid actor: {0}")]
    Actor(String),
    /// An object filter that is neither a kind, `KIND:ID` nor an id.
    #[error("invalid object: {0}")]
    Object(String),
    /// A time that is neither RFC 3339 nor a date.
    #[error("invalid {0}: expected a date (YYYY-MM-DD) or an RFC 3339 time")]
    Time(&'static str),
    /// `since` after `until`.
    #[error("since must be before until")]
    Range,
    /// A limit outside 1 to [`MAX_AUDIT_LIMIT`].
    #[error("invalid limit: expected 1 to {MAX_AUDIT_LIMIT}")]
    Limit,
    /// A cursor that is not one this service gave.
    #[error("invalid cursor")]
    Cursor,
}

/// Why the log could not be read.
#[derive(Debug, Error)]
pub enum AuditError {
    /// The caller may not read the log (keys never may; members below admin neither).
    #[error(transparent)]
    NotPermitted(#[from] NotPermitted),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An id filter's text: at most 100 characters of letters, digits, `-` and `_` (every id the
/// service makes is a UUID).
fn id_text(raw: &str) -> Option<String> {
    let raw = raw.trim();
    (!raw.is_empty()
        && raw.len() <= 100
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    .then(|| raw.to_ascii_lowercase())
}

impl FromStr for ActorFilter {
    type Err = AuditQueryError;

    /// `operator`, `key`, `user`, `key:ID`, `user:ID`, or a bare id of either.
    fn from_str(raw: &str) -> Result<Self, AuditQueryError> {
        let bad = || AuditQueryError::Actor(raw.to_owned());
        let kind = |s: &str| match s.trim().to_ascii_lowercase().as_str() {
            "operator" => Some(ActorKind::Operator),
            "key" => Some(ActorKind::Key),
            "user" => Some(ActorKind::User),
            _ => None,
        };
        if let Some((k, id)) = raw.split_once(':') {
            let kind = kind(k)
                .filter(|k| *k != ActorKind::Operator)
                .ok_or_else(bad)?;
            return Ok(Self {
                kind: Some(kind),
                id: Some(id_text(id).ok_or_else(bad)?),
            });
        }
        if let Some(kind) = kind(raw) {
            return Ok(Self {
                kind: Some(kind),
                id: None,
            });
        }
        Ok(Self {
            kind: None,
            id: Some(id_text(raw).ok_or_else(bad)?),
        })
    }
}

impl FromStr for ObjectFilter {
    type Err = AuditQueryError;

    /// `link`, `link:ID`, …, or a bare id of any kind.
    fn from_str(raw: &str) -> Result<Self, AuditQueryError> {
        let bad = || AuditQueryError::Object(raw.to_owned());
        if let Some((k, id)) = raw.split_once(':') {
            return Ok(Self {
                kind: Some(k.parse().map_err(|_| bad())?),
                id: Some(id_text(id).ok_or_else(bad)?),
            });
        }
        if let Ok(kind) = raw.parse::<ObjectKind>() {
            return Ok(Self {
                kind: Some(kind),
                id: None,
            });
        }
        Ok(Self {
            kind: None,
            id: Some(id_text(raw).ok_or_else(bad)?),
        })
    }
}

impl fmt::Display for ActorFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = self.kind.map(ActorKind::as_str);
        match (kind, &self.id) {
            (Some(k), Some(id)) => write!(f, "{k}:{id}"),
            (Some(k), None) => f.write_str(k),
            (None, Some(id)) => f.write_str(id),
            (None, None) => Ok(()),
        }
    }
}

impl fmt::Display for ObjectFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.kind, &self.id) {
            (Some(k), Some(id)) => write!(f, "{k}:{id}"),
            (Some(k), None) => write!(f, "{k}"),
            (None, Some(id)) => f.write_str(id),
            (None, None) => Ok(()),
        }
    }
}

impl ActorFilter {
    /// Whether an actor of `kind` with `id` matches.
    pub fn matches(&self, kind: ActorKind, id: &str) -> bool {
        self.kind.is_none_or(|k| k == kind) && self.id.as_deref().is_none_or(|want| want == id)
    }
}

impl ObjectFilter {
    /// Whether an object of `kind` with `id` matches.
    pub fn matches(&self, kind: ObjectKind, id: &str) -> bool {
        self.kind.is_none_or(|k| k == kind) && self.id.as_deref().is_none_or(|want| want == id)
    }
}

impl fmt::Display for AuditCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for AuditCursor {
    type Err = AuditQueryError;

    fn from_str(raw: &str) -> Result<Self, AuditQueryError> {
        raw.trim()
            .parse::<i64>()
            .ok()
            .filter(|id| *id > 0)
            .map(|id| AuditCursor(AuditId(id)))
            .ok_or(AuditQueryError::Cursor)
    }
}

/// A time bound as typed: RFC 3339, or a date meaning its UTC midnight (`until` a date means
/// the end of that day, so `--since 2026-11-01 --until 2026-11-30` covers all of November).
fn time_bound(
    raw: &str,
    name: &'static str,
    end_of_day: bool,
) -> Result<DateTime<Utc>, AuditQueryError> {
    let raw = raw.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(raw) {
        return Ok(t.with_timezone(&Utc));
    }
    let day =
        NaiveDate::parse_from_str(raw, "%Y-%m-%d").map_err(|_| AuditQueryError::Time(name))?;
    let day = if end_of_day {
        day.succ_opt().ok_or(AuditQueryError::Time(name))?
    } else {
        day
    };
    Ok(day_start(day))
}

impl AuditQuery {
    /// A query from the text an adapter received; empty strings count as absent.
    pub fn parse(
        actor: Option<&str>,
        object: Option<&str>,
        since: Option<&str>,
        until: Option<&str>,
        cursor: Option<&str>,
        limit: Option<&str>,
    ) -> Result<Self, AuditQueryError> {
        fn given(v: Option<&str>) -> Option<&str> {
            v.map(str::trim).filter(|s| !s.is_empty())
        }
        let since = given(since)
            .map(|s| time_bound(s, "since", false))
            .transpose()?;
        let until = given(until)
            .map(|s| time_bound(s, "until", true))
            .transpose()?;
        if let (Some(s), Some(u)) = (since, until)
            && s > u
        {
            return Err(AuditQueryError::Range);
        }
        let limit = match given(limit) {
            None => DEFAULT_AUDIT_LIMIT,
            Some(l) => l
                .parse::<u32>()
                .ok()
                .filter(|l| (1..=MAX_AUDIT_LIMIT).contains(l))
                .ok_or(AuditQueryError::Limit)?,
        };
        Ok(Self {
            actor: given(actor).map(str::parse).transpose()?,
            object: given(object).map(str::parse).transpose()?,
            since,
            until,
            before: given(cursor)
                .map(str::parse::<AuditCursor>)
                .transpose()?
                .map(|c| c.0),
            limit,
        })
    }

    /// Whether `entry` passes every filter and the cursor (what a store without an index
    /// computes; the SQL stores say the same in their `WHERE`).
    pub fn matches(&self, entry: &AuditEntry) -> bool {
        let e = &entry.entry;
        self.actor
            .as_ref()
            .is_none_or(|a| a.matches(e.actor.kind, &e.actor.id))
            && self
                .object
                .as_ref()
                .is_none_or(|o| o.matches(e.object.kind, &e.object.id))
            && self.since.is_none_or(|s| e.at >= s)
            && self.until.is_none_or(|u| e.at < u)
            && self.before.is_none_or(|b| entry.id < b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_parse_from_text() {
        let q = AuditQuery::parse(
            Some("key:3F2504E0-4F89-11D3-9A0C-0305E82C3301"),
            Some("link"),
            Some("2026-11-01"),
            Some("2026-11-30"),
            Some("42"),
            Some("10"),
        )
        .unwrap();
        assert_eq!(
            q.actor,
            Some(ActorFilter {
                kind: Some(ActorKind::Key),
                id: Some("3f2504e0-4f89-11d3-9a0c-0305e82c3301".into())
            })
        );
        assert_eq!(q.object.unwrap().kind, Some(ObjectKind::Link));
        assert_eq!(q.since.unwrap().to_rfc3339(), "2026-11-01T00:00:00+00:00");
        assert_eq!(q.until.unwrap().to_rfc3339(), "2026-12-01T00:00:00+00:00");
        assert_eq!(q.before, Some(AuditId(42)));
        assert_eq!(q.limit, 10);
        let op: ActorFilter = "operator".parse().unwrap();
        assert!(op.matches(ActorKind::Operator, ""));
        assert!(!op.matches(ActorKind::Key, ""));
    }

    #[test]
    fn bad_input_names_the_parameter() {
        let err = |a, o, s, u, c, l| AuditQuery::parse(a, o, s, u, c, l).unwrap_err().to_string();
        assert_eq!(
            err(Some("x y"), None, None, None, None, None),
            "invalid actor: x y"
        );
        assert_eq!(
            err(None, Some("car:1"), None, None, None, None),
            "invalid object: car:1"
        );
        assert!(err(None, None, Some("yesterday"), None, None, None).starts_with("invalid since"));
        assert_eq!(
            err(
                None,
                None,
                Some("2026-11-03"),
                Some("2026-11-01"),
                None,
                None
            ),
            "since must be before until"
        );
        assert_eq!(
            err(None, None, None, None, Some("-1"), None),
            "invalid cursor"
        );
        assert!(err(None, None, None, None, None, Some("1001")).starts_with("invalid limit"));
        assert_eq!(
            AuditQuery::parse(Some(" "), None, None, None, None, None).unwrap(),
            AuditQuery::default()
        );
    }
}
