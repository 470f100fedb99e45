//! Bulk link creation (`POST /api/links/bulk`, `qr links import`): the request's items, the per-index failures in `errors.json`'s shape, and idempotency keys with their stored answers.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::campaign::FieldError;
use crate::error::StoreError;
use crate::ids::{AccountId, LinkId};
use crate::link::{Link, LinkError, LinkUpdate};
use crate::plan::Plan;

/// The most links one call creates, whoever calls: the largest default plan size (Enterprise's
/// 10,000), which bounds one call's memory and its write transaction (about 1 s on SQLite).
pub const MAX_BULK_LINKS: usize = crate::plan::ENTERPRISE_BULK_LINKS as usize;
/// How long an idempotency key's answer is kept: a day, as Stripe keeps its keys.
pub const IDEMPOTENCY_TTL_HOURS: i64 = 24;
/// The longest idempotency key, in characters (Stripe's bound).
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 255;

/// A bulk request: each item's fields (or why they were refused), each item's `data` for
/// the failures, and the fingerprint an idempotency key is bound to.
#[derive(Debug, Clone)]
pub struct BulkRequest {
    /// The items in order, parsed as `POST /api/links` parses its body.
    pub items: Vec<Result<LinkUpdate, LinkError>>,
    /// Each item's `targetUrl` as given (empty when absent or not a string): the `data` of its
    /// failure, as a batch item's `data` is its content.
    pub data: Vec<String>,
    /// SHA-256 of the whole body's JSON (object members sorted), so a retry that differs in
    /// anything is told apart from a retry of the same request.
    pub fingerprint: [u8; 32],
}

/// One failed item, the shape of a batch's `errors.json` entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulkFailure {
    /// The item's position in `links`, from 0.
    pub index: usize,
    /// The item's `targetUrl` as given (empty when it had none).
    pub data: String,
    /// Why it failed: the message `POST /api/links` answers for the same body.
    pub error: String,
}

/// What a bulk request did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkOutcome {
    /// The links created with their item's index, in item order (on a replay: those that still
    /// exist, as they are now).
    pub created: Vec<(usize, Link)>,
    /// The failed items, by index.
    pub failures: Vec<BulkFailure>,
    /// Whether this is the stored answer of an earlier request with the same idempotency key.
    pub replayed: bool,
}

/// Why a bulk request was refused as a whole.
#[derive(Debug, Error)]
pub enum BulkError {
    /// The body has no non-empty `links` array.
    #[error("links array required")]
    LinksRequired,
    /// More items than the plan allows in one request.
    #[error("Maximum {0} links allowed")]
    TooMany(usize),
    /// The plan has no bulk creation (the API refuses it earlier, at authorization).
    #[error("Bulk link creation requires {} plan", .0.title())]
    PlanRequired(Plan),
    /// The idempotency key is malformed.
    #[error(
        "Invalid Idempotency-Key: it must be 1 to {MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters"
    )]
    InvalidKey,
    /// The idempotency key was used in the last 24 hours with another request body.
    #[error(
        "Idempotency-Key was already used with a different request body; use a new key for a new request"
    )]
    KeyReused,
    /// The account does not exist (any more).
    #[error("account not found")]
    AccountNotFound,
    /// A stored answer could not be read back.
    #[error("stored idempotent answer is unreadable: {0}")]
    Corrupt(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An `Idempotency-Key` as stored: the SHA-256 of the key as sent, never the key itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IdempotencyKey([u8; 32]);

/// A stored answer to an idempotent request, found by account and key hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyRecord {
    /// The account that sent the request (keys are per account).
    pub account_id: AccountId,
    /// The key's hash.
    pub key: IdempotencyKey,
    /// The request's fingerprint ([`BulkRequest::fingerprint`]).
    pub fingerprint: [u8; 32],
    /// The answer as the domain's JSON (`StoredAnswer`): created ids and failures.
    pub answer: String,
    /// When it was stored.
    pub created_at: DateTime<Utc>,
    /// When it stops counting (and may be pruned).
    pub expires_at: DateTime<Utc>,
}

/// The answer kept for a key: the ids of the links created and the failures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StoredAnswer {
    pub(crate) created: Vec<(usize, LinkId)>,
    pub(crate) failures: Vec<BulkFailure>,
}

impl BulkRequest {
    /// A request from its JSON body `{"links": [ {…}, … ]}` (other members, such as `qrcodes`,
    /// are the adapter's, but count in the fingerprint).
    pub fn from_json(body: &Value) -> Result<Self, BulkError> {
        let Some(Value::Array(items)) = body.get("links") else {
            return Err(BulkError::LinksRequired);
        };
        let mut request = Self::from_items(items);
        request.fingerprint = fingerprint(body);
        Ok(request)
    }

    /// A request from its items (JSON objects; anything else fails as its index), as a file
    /// import builds them.
    pub fn from_items(items: &[Value]) -> Self {
        let parsed = items
            .iter()
            .map(|item| match item {
                Value::Object(fields) => LinkUpdate::for_creation(fields),
                _ => Err(LinkError::Field(FieldError::new(
                    "link",
                    "it must be a JSON object",
                ))),
            })
            .collect();
        let data = items
            .iter()
            .map(|item| {
                item.get("targetUrl")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect();
        Self {
            items: parsed,
            data,
            fingerprint: fingerprint(&Value::Array(items.to_vec())),
        }
    }
}

/// SHA-256 of a JSON value's text; serde_json keeps object members sorted (no
/// `preserve_order`), so member order and whitespace do not change it.
fn fingerprint(value: &Value) -> [u8; 32] {
    let text = serde_json::to_vec(value).unwrap_or_default();
    Sha256::digest(&text).into()
}

impl IdempotencyKey {
    /// Checks a key as sent (1 to 255 visible ASCII characters) and hashes it.
    pub fn parse(raw: &str) -> Result<Self, BulkError> {
        let ok = (1..=MAX_IDEMPOTENCY_KEY_CHARS).contains(&raw.len())
            && raw.bytes().all(|b| b.is_ascii_graphic());
        if !ok {
            return Err(BulkError::InvalidKey);
        }
        Ok(Self(Sha256::digest(raw.as_bytes()).into()))
    }

    /// A stored hash.
    pub fn from_hash(hash: [u8; 32]) -> Self {
        Self(hash)
    }

    /// The hash.
    pub fn hash(&self) -> &[u8; 32] {
        &self.0
    }
}

impl IdempotencyRecord {
    /// Whether the record still answers at `now`.
    pub fn is_live(&self, now: DateTime<Utc>) -> bool {
        now < self.expires_at
    }
}

/// When a record stored at `now` expires.
pub(crate) fn expiry(now: DateTime<Utc>) -> DateTime<Utc> {
    now + Duration::hours(IDEMPOTENCY_TTL_HOURS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_bounded_visible_ascii() {
        assert!(IdempotencyKey::parse("order-2026-11-26").is_ok());
        assert!(IdempotencyKey::parse(&"k".repeat(255)).is_ok());
        for bad in ["", "with space", "é", "tab\t"] {
            assert!(IdempotencyKey::parse(bad).is_err(), "{bad:?}");
        }
        assert!(IdempotencyKey::parse(&"k".repeat(256)).is_err());
        assert_ne!(
            IdempotencyKey::parse("a").unwrap(),
            IdempotencyKey::parse("b").unwrap()
        );
    }

    #[test]
    fn items_parse_like_post_and_keep_their_target_as_data() {
        let body = serde_json::json!({"links": [
            {"name": "A", "targetUrl": "https://example.com/a"},
            {"targetUrl": "https://example.com/b"},
            {"name": "C", "targetUrl": 7},
            "nope",
        ]});
        let r = BulkRequest::from_json(&body).unwrap();
        assert!(r.items[0].is_ok());
        assert!(matches!(r.items[1], Err(LinkError::Missing("name"))));
        assert!(matches!(r.items[2], Err(LinkError::NotString("targetUrl"))));
        assert!(matches!(r.items[3], Err(LinkError::Field(_))));
        assert_eq!(
            r.data,
            ["https://example.com/a", "https://example.com/b", "", ""]
        );
        assert!(matches!(
            BulkRequest::from_json(&serde_json::json!({"items": []})),
            Err(BulkError::LinksRequired)
        ));
    }

    #[test]
    fn fingerprint_ignores_member_order_but_not_content() {
        let a: Value =
            serde_json::from_str(r#"{"links":[{"name":"A","targetUrl":"https://e.com"}]}"#)
                .unwrap();
        let b: Value = serde_json::from_str(
            r#"{ "links" : [ { "targetUrl":"https://e.com", "name":"A" } ] }"#,
        )
        .unwrap();
        let c: Value =
            serde_json::from_str(r#"{"links":[{"name":"B","targetUrl":"https://e.com"}]}"#)
                .unwrap();
        let f = |v: &Value| BulkRequest::from_json(v).unwrap().fingerprint;
        assert_eq!(f(&a), f(&b));
        assert_ne!(f(&a), f(&c));
    }
}
