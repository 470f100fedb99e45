//! Bulk link creation (`POST /api/links/bulk`, `qr links import`): the request's items as the adapters read them, the per-index failures (typed, and in `errors.json`'s worded shape), and idempotency keys with their stored answers.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::accounts::plan::Plan;
use crate::error::StoreError;
use crate::ids::{AccountId, LinkId};
use crate::links::link::{Link, LinkError, LinkUpdate};

/// The most links one call creates, whoever calls: the largest default plan size (Enterprise's
/// 10,000), which bounds one call's memory and its write transaction (about 1 s on SQLite).
pub const MAX_BULK_LINKS: usize = crate::accounts::plan::ENTERPRISE_BULK_LINKS as usize;
/// How long an idempotency key's answer is kept: a day, as Stripe keeps its keys.
pub const IDEMPOTENCY_TTL_HOURS: i64 = 24;
/// The longest idempotency key, in characters (Stripe's bound).
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 255;

/// A bulk request: each item's fields (or why the adapter could not read them), each item's
/// `data` for the failures, and the fingerprint an idempotency key is bound to.
#[derive(Debug, Clone)]
pub struct BulkRequest {
    /// The items in order, read as `POST /api/links` reads its body.
    pub items: Vec<Result<LinkUpdate, ItemError>>,
    /// Each item's `targetUrl` as given (empty when absent or not text): the `data` of its
    /// failure, as a batch item's `data` is its content.
    pub data: Vec<String>,
    /// [`BulkRequest::fingerprint_of`] the whole request as sent, so a retry that differs in
    /// anything is told apart from a retry of the same request.
    pub fingerprint: [u8; 32],
}

/// Why one item was not created. Its `Display` is the domain's message; an adapter words it
/// by matching on the variant. It is stored with an idempotent answer, so it holds only data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Error)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ItemError {
    /// The adapter could not read the item's fields (its format, or a field's rule): its
    /// message, in the adapter's words.
    #[error("{message}")]
    Unread {
        /// The message.
        message: String,
    },
    /// A field is invalid once the fields are put together (the validity's end before its
    /// start): the field's path and the rule's message.
    #[error("invalid {field}: {rule}")]
    Field {
        /// The field's path (`validUntil`).
        field: String,
        /// The rule's message.
        rule: String,
    },
    /// A field the account's plan does not include.
    #[error("{field} requires {} plan", .plan.title())]
    PlanRequired {
        /// The field's name.
        field: String,
        /// The cheapest plan that includes it.
        plan: Plan,
    },
    /// The account holds as many links as its plan allows.
    #[error(
        "link limit reached: the {plan} plan allows {limit} links; delete a link or upgrade the plan"
    )]
    LimitReached {
        /// The plan's name.
        plan: String,
        /// Its link limit.
        limit: u64,
    },
    /// The custom code is used by another link or item, or was used by a deleted one.
    #[error("shortCode {code} is already taken; choose another")]
    CodeTaken {
        /// The code.
        code: String,
    },
    /// No unused code could be drawn, or the random source failed: a retry may succeed.
    #[error("could not allocate a unique short code; retry the request")]
    Unavailable,
    /// Hashing the item's password failed.
    #[error("could not hash the link password")]
    Hash,
}

impl From<LinkError> for ItemError {
    fn from(e: LinkError) -> Self {
        match e {
            LinkError::Name(e) => Self::Field {
                field: "name".to_owned(),
                rule: e.to_string(),
            },
            LinkError::TargetUrl(e) => Self::Field {
                field: "targetUrl".to_owned(),
                rule: e.to_string(),
            },
            LinkError::Field(e) => Self::Field {
                field: e.field.to_string(),
                rule: e.rule.to_string(),
            },
            LinkError::PlanRequired { field, plan } => Self::PlanRequired {
                field: field.to_owned(),
                plan,
            },
            LinkError::LimitReached { plan, limit } => Self::LimitReached { plan, limit },
            LinkError::CodeTaken(code) => Self::CodeTaken { code },
            LinkError::CodeSpace | LinkError::Random(_) => Self::Unavailable,
            LinkError::Hash(_) => Self::Hash,
            e @ LinkError::DesignNotFound => Self::Unread {
                message: e.to_string(),
            },
            // None reaches an item (a store failure fails the whole request; the permission is
            // checked once, before any item).
            e @ (LinkError::NotFound | LinkError::NotPermitted(_) | LinkError::Store(_)) => {
                Self::Unread {
                    message: e.to_string(),
                }
            }
        }
    }
}

/// One failed item, typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemFailure {
    /// The item's position in the request, from 0.
    pub index: usize,
    /// The item's `targetUrl` as given (empty when it had none).
    pub data: String,
    /// Why it failed.
    #[serde(deserialize_with = "stored_error")]
    pub error: ItemError,
}

/// One failed item as an adapter words it: the shape of a batch's `errors.json` entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulkFailure {
    /// The item's position in `links`, from 0.
    pub index: usize,
    /// The item's `targetUrl` as given (empty when it had none).
    pub data: String,
    /// Why it failed, in the adapter's words (the API's message for the same body).
    pub error: String,
}

/// What a bulk request did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkOutcome {
    /// The links created with their item's index, in item order (on a replay: those that still
    /// exist, as they are now).
    pub created: Vec<(usize, Link)>,
    /// The failed items, by index.
    pub failures: Vec<ItemFailure>,
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
    /// The caller may not create links.
    #[error(transparent)]
    NotPermitted(#[from] crate::accounts::permissions::NotPermitted),
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
    pub(crate) failures: Vec<ItemFailure>,
}

/// An item's error as stored: typed, or (in answers stored before errors were typed) the
/// message as the API answered it, kept as it was.
fn stored_error<'de, D: Deserializer<'de>>(d: D) -> Result<ItemError, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Typed(ItemError),
        Worded(String),
    }
    Ok(match Stored::deserialize(d)? {
        Stored::Typed(e) => e,
        Stored::Worded(message) => ItemError::Unread { message },
    })
}

impl BulkRequest {
    /// The fingerprint of a request's canonical bytes (for JSON: its text with object members
    /// sorted): their SHA-256.
    pub fn fingerprint_of(canonical: &[u8]) -> [u8; 32] {
        Sha256::digest(canonical).into()
    }
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
    fn stored_answers_read_typed_and_worded_errors() {
        let typed = ItemFailure {
            index: 2,
            data: "https://example.com/2".to_owned(),
            error: ItemError::LimitReached {
                plan: "free".to_owned(),
                limit: 5,
            },
        };
        let text = serde_json::to_string(&typed).unwrap();
        assert_eq!(serde_json::from_str::<ItemFailure>(&text).unwrap(), typed);
        let worded: ItemFailure =
            serde_json::from_str(r#"{"index":1,"data":"","error":"Invalid targetUrl: x"}"#)
                .unwrap();
        assert_eq!(
            worded.error,
            ItemError::Unread {
                message: "Invalid targetUrl: x".to_owned()
            }
        );
    }
}
