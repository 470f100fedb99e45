//! Listing an account's links: the filters (search text, tag), the page size and the cursor of stable paging, newest first.

use std::fmt;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::ids::LinkId;
use crate::links::campaign::{FieldRule, Tag};
use crate::links::link::Link;

/// Most links on one page of `GET /api/links?limit=`.
pub const MAX_PAGE_LINKS: u32 = 1_000;
/// Links answered without `limit`: every link of every plan's default limit but Enterprise's
/// (500 on Pro), so a spec client sees its whole list, while an account of a million links gets
/// a bounded answer and a cursor to the rest.
pub const UNPAGED_LINKS: u32 = 10_000;
/// Longest search text, in characters.
pub const MAX_SEARCH_CHARS: usize = 200;

/// Where a page starts: after the link created at `created_at` with id `id` in the order
/// newest first (creation time, then id, both descending), so pages never skip or repeat a
/// link however many are created meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkCursor {
    /// The creation time of the last link of the previous page.
    pub created_at: DateTime<Utc>,
    /// Its id.
    pub id: LinkId,
}

/// What a store lists: the account's links matching every filter given, newest first, after
/// the cursor, at most `limit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkQuery {
    /// Text the name, target URL or short code contains, ignoring the case of ASCII letters
    /// (already in lower case).
    pub search: Option<String>,
    /// A tag the link has (exactly as written).
    pub tag: Option<Tag>,
    /// Where to start.
    pub after: Option<LinkCursor>,
    /// The most links to return.
    pub limit: u32,
}

/// `GET /api/links`'s parameters, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkListQuery {
    /// The store query (its limit is the page size).
    pub query: LinkQuery,
}

/// One page of links and the cursor to the next, if there are more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkPageResult {
    /// The links, newest first.
    pub links: Vec<Link>,
    /// Where the next page starts; `None` on the last page.
    pub next_cursor: Option<LinkCursor>,
}

/// A parameter of a link list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListParam {
    /// `search`.
    Search,
    /// `tag`.
    Tag,
    /// `limit`.
    Limit,
    /// `cursor`.
    Cursor,
}

/// What a list parameter must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListRule {
    /// Search text longer than [`MAX_SEARCH_CHARS`].
    SearchLength,
    /// A tag's rule.
    Tag(FieldRule),
    /// A page size outside 1 to [`MAX_PAGE_LINKS`].
    Limit,
    /// Not a cursor this service wrote.
    Cursor,
}

/// A refused list parameter; its `Display` is `invalid <param>: <rule>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {param}: {rule}")]
pub struct ListQueryError {
    /// The parameter.
    pub param: ListParam,
    /// What it must be.
    pub rule: ListRule,
}

impl fmt::Display for ListParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ListParam::Search => "search",
            ListParam::Tag => "tag",
            ListParam::Limit => "limit",
            ListParam::Cursor => "cursor",
        })
    }
}

impl fmt::Display for ListRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListRule::SearchLength => {
                write!(f, "it must have at most {MAX_SEARCH_CHARS} characters")
            }
            ListRule::Tag(rule) => rule.fmt(f),
            ListRule::Limit => write!(f, "it must be an integer from 1 to {MAX_PAGE_LINKS}"),
            ListRule::Cursor => f.write_str("use the nextCursor of the previous answer"),
        }
    }
}

fn invalid(param: ListParam, rule: ListRule) -> ListQueryError {
    ListQueryError { param, rule }
}

impl LinkListQuery {
    /// Validates the parameters; absent or empty ones filter nothing.
    pub fn parse(
        search: Option<&str>,
        tag: Option<&str>,
        limit: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Self, ListQueryError> {
        let search = search.map(str::trim).filter(|s| !s.is_empty());
        if let Some(s) = search
            && s.chars().count() > MAX_SEARCH_CHARS
        {
            return Err(invalid(ListParam::Search, ListRule::SearchLength));
        }
        let tag = tag
            .filter(|t| !t.trim().is_empty())
            .map(|t| Tag::parse(t).map_err(|r| invalid(ListParam::Tag, ListRule::Tag(r))))
            .transpose()?;
        let limit = match limit {
            None => UNPAGED_LINKS,
            Some(raw) => raw
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=MAX_PAGE_LINKS).contains(n))
                .ok_or_else(|| invalid(ListParam::Limit, ListRule::Limit))?,
        };
        let after = cursor
            .filter(|c| !c.is_empty())
            .map(|c| {
                LinkCursor::parse(c).ok_or_else(|| invalid(ListParam::Cursor, ListRule::Cursor))
            })
            .transpose()?;
        Ok(Self {
            query: LinkQuery {
                search: search.map(str::to_ascii_lowercase),
                tag,
                after,
                limit,
            },
        })
    }
}

impl LinkQuery {
    /// Whether a link passes the filters and comes after the cursor (the memory store's and
    /// the tests' reading of the query).
    pub fn admits(&self, link: &Link) -> bool {
        let contains = |s: &str, needle: &str| s.to_ascii_lowercase().contains(needle);
        self.search.as_deref().is_none_or(|n| {
            contains(link.name.as_str(), n)
                || contains(link.target_url.as_str(), n)
                || contains(link.short_code.as_str(), n)
        }) && self.tag.as_ref().is_none_or(|t| link.tags.contains(t))
            && self.after.is_none_or(|c| {
                (link.created_at, link.id.as_uuid()) < (c.created_at, c.id.as_uuid())
            })
    }
}

impl LinkCursor {
    /// The cursor after `link`.
    pub fn after(link: &Link) -> Self {
        Self {
            created_at: link.created_at,
            id: link.id,
        }
    }

    /// Reads a cursor as [`fmt::Display`] writes it: microseconds, `.`, the id's 32 hex digits.
    pub fn parse(raw: &str) -> Option<Self> {
        let (micros, id) = raw.trim().split_once('.')?;
        let created_at = DateTime::from_timestamp_micros(micros.parse().ok()?)?;
        if id.len() != 32 {
            return None;
        }
        let id = LinkId::from_uuid(Uuid::try_parse(id).ok()?);
        Some(Self { created_at, id })
    }
}

impl fmt::Display for LinkCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{}",
            self.created_at.timestamp_micros(),
            self.id.as_uuid().simple()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(e: ListQueryError) -> String {
        e.to_string()
    }

    #[test]
    fn parameters() {
        let q = LinkListQuery::parse(Some(" Flyer "), Some("spring"), Some("50"), None)
            .unwrap()
            .query;
        assert_eq!(q.search.as_deref(), Some("flyer"));
        assert_eq!(q.tag.as_ref().map(Tag::as_str), Some("spring"));
        assert_eq!(q.limit, 50);
        let all = LinkListQuery::parse(None, Some(""), None, Some(""))
            .unwrap()
            .query;
        assert_eq!(
            (all.search, all.tag, all.after, all.limit),
            (None, None, None, UNPAGED_LINKS)
        );
        assert_eq!(
            message(LinkListQuery::parse(None, None, Some("0"), None).unwrap_err()),
            "invalid limit: it must be an integer from 1 to 1000"
        );
        assert_eq!(
            message(LinkListQuery::parse(None, None, Some("1001"), None).unwrap_err()),
            "invalid limit: it must be an integer from 1 to 1000"
        );
        assert_eq!(
            message(LinkListQuery::parse(None, None, None, Some("abc")).unwrap_err()),
            "invalid cursor: use the nextCursor of the previous answer"
        );
        assert!(LinkListQuery::parse(Some(&"x".repeat(201)), None, None, None).is_err());
    }

    #[test]
    fn cursors_roundtrip() {
        let c = LinkCursor {
            created_at: "2024-05-01T10:00:00.123456Z".parse().unwrap(),
            id: LinkId::random(),
        };
        assert_eq!(LinkCursor::parse(&c.to_string()), Some(c));
        assert_eq!(LinkCursor::parse("12.34"), None);
        assert_eq!(
            LinkCursor::parse(&format!("x.{}", c.id.as_uuid().simple())),
            None
        );
    }
}
