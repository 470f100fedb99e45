//! The outbox: the events written for each subscribed endpoint in the same transaction as the
//! change they describe, their delivery state, the JSON bodies a delivery sends and its
//! Stripe-style signature.

use chrono::{DateTime, SecondsFormat, Utc};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::accounts::limits::UsageMonth;
use crate::error::StoreError;
use crate::ids::{AccountId, ScanId};
use crate::links::link::Link;
use crate::random::{self};
use crate::scans::scan::NewScan;
use crate::webhooks::webhook::{
    EventId, EventKind, MAX_ERROR_CHARS, Webhook, WebhookId, WebhookSecret,
};

/// A delivery as lists show it: `{webhookId, eventId, type, createdAt, state, attempts,
/// nextAttemptAt, lastError}` (`nextAttemptAt` only while pending).
impl serde::Serialize for OutboxEvent {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("Delivery", 8)?;
        s.serialize_field("webhookId", &self.webhook_id.to_string())?;
        s.serialize_field("eventId", &self.id.to_string())?;
        s.serialize_field("type", self.kind.as_str())?;
        s.serialize_field("createdAt", &timestamp(self.created_at))?;
        s.serialize_field("state", self.state.as_str())?;
        s.serialize_field("attempts", &self.attempts)?;
        let next = (self.state == DeliveryState::Pending).then(|| timestamp(self.next_attempt_at));
        s.serialize_field("nextAttemptAt", &next)?;
        s.serialize_field("lastError", &self.last_error)?;
        s.end()
    }
}

/// An event about to be written to the outbox (fanned out to the account's endpoints that want it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    /// The de-duplication id.
    pub id: EventId,
    /// What happened.
    pub kind: EventKind,
    /// The event's `data` object as JSON text.
    pub data: String,
    /// When it happened.
    pub at: DateTime<Utc>,
}

/// Where an outbox row stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryState {
    /// Not delivered yet; tried again at `next_attempt_at`.
    Pending,
    /// The endpoint answered 2xx.
    Delivered,
    /// Not delivered within [`crate::service::WebhookSettings::give_up_after`] (3 days).
    Failed,
}

impl DeliveryState {
    /// The stored number.
    pub fn code(self) -> i64 {
        match self {
            DeliveryState::Pending => 0,
            DeliveryState::Delivered => 1,
            DeliveryState::Failed => 2,
        }
    }

    /// The state of a stored number.
    pub fn from_code(code: i64) -> Result<Self, StoreError> {
        Ok(match code {
            0 => DeliveryState::Pending,
            1 => DeliveryState::Delivered,
            2 => DeliveryState::Failed,
            _ => return Err(StoreError::Corrupt(format!("delivery state {code}"))),
        })
    }

    /// The name lists show.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Failed => "failed",
        }
    }
}

/// One event for one endpoint in the outbox, with its delivery state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxEvent {
    /// The endpoint.
    pub webhook_id: WebhookId,
    /// The endpoint's account.
    pub account_id: AccountId,
    /// The event.
    pub id: EventId,
    /// What happened.
    pub kind: EventKind,
    /// The event's `data` object as JSON text.
    pub data: String,
    /// When it happened.
    pub created_at: DateTime<Utc>,
    /// Delivery attempts made so far.
    pub attempts: u32,
    /// When the next attempt is due (while pending; also the end of a worker's lease).
    pub next_attempt_at: DateTime<Utc>,
    /// Where the delivery stands.
    pub state: DeliveryState,
    /// Why the last attempt failed (at most [`MAX_ERROR_CHARS`]).
    pub last_error: Option<String>,
}

impl OutboxEvent {
    /// The pending row of `event` for `webhook`, due at once.
    pub fn new(webhook: &Webhook, event: &NewEvent) -> Self {
        Self {
            webhook_id: webhook.id,
            account_id: webhook.account_id,
            id: event.id,
            kind: event.kind,
            data: event.data.clone(),
            created_at: event.at,
            attempts: 0,
            next_attempt_at: event.at,
            state: DeliveryState::Pending,
            last_error: None,
        }
    }
}

/// The event of a link change; `data` is `{"link": Link}` (the link as it is after the change, or
/// as it was before a deletion).
pub fn link_event(kind: EventKind, link: &Link, at: DateTime<Utc>) -> NewEvent {
    event(kind, json!({ "link": link }), at)
}

/// The event of one recorded scan; `data` is the scan as analytics report it, with its link.
pub fn scan_event(scan: &NewScan, id: ScanId) -> NewEvent {
    let data = json!({
        "scanId": id,
        "linkId": scan.link_id,
        "timestamp": timestamp(scan.at),
        "country": scan.country,
        "city": scan.city,
        "device": scan.device.as_str(),
        "browser": scan.browser,
        "os": scan.os,
        "referrer": scan.referrer,
    });
    event(EventKind::ScanRecorded, data, scan.at)
}

/// The event of an account reaching `percent` of its monthly quota.
pub fn usage_event(
    month: UsageMonth,
    percent: u8,
    used: u64,
    limit: u64,
    at: DateTime<Utc>,
) -> NewEvent {
    let data = json!({
        "month": month.to_string(),
        "percent": percent,
        "used": used,
        "limit": limit,
    });
    event(EventKind::UsageThreshold, data, at)
}

fn event(kind: EventKind, data: Value, at: DateTime<Utc>) -> NewEvent {
    NewEvent {
        id: EventId::random(),
        kind,
        data: data.to_string(),
        at,
    }
}

pub(crate) fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The JSON body of one delivery: `{"id", "type", "createdAt", "data"}`. A single event's `id`
/// is its event id. A `scan.recorded` delivery of several rows has `data: {"scans": [...]}`,
/// each scan with its own `eventId`, and an `id` derived from those event ids, so a retry of the
/// same scans carries the same id and a different group a different one.
pub fn delivery_body(events: &[OutboxEvent]) -> String {
    let Some(first) = events.first() else {
        return String::from("{}");
    };
    let parse = |e: &OutboxEvent| {
        serde_json::from_str::<Value>(&e.data).unwrap_or_else(|_| Value::String(e.data.clone()))
    };
    let (id, data) = if first.kind == EventKind::ScanRecorded {
        let mut hash = Sha256::new();
        let scans: Vec<Value> = events
            .iter()
            .map(|e| {
                hash.update(e.id.as_uuid().as_bytes());
                let mut item = Map::new();
                item.insert("eventId".into(), Value::String(e.id.to_string()));
                if let Value::Object(fields) = parse(e) {
                    item.extend(fields);
                }
                Value::Object(item)
            })
            .collect();
        let digest = hash.finalize();
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        let id = if events.len() == 1 {
            first.id
        } else {
            EventId::from_uuid(Uuid::from_bytes(bytes))
        };
        (id, json!({ "scans": scans }))
    } else {
        (first.id, parse(first))
    };
    json!({
        "id": id.to_string(),
        "type": first.kind.as_str(),
        "createdAt": timestamp(first.created_at),
        "data": data,
    })
    .to_string()
}

/// The `Qr-Signature` header of a body sent at `unix_seconds`:
/// `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, as Stripe signs.
pub fn signature_header(secret: &WebhookSecret, unix_seconds: i64, body: &str) -> String {
    format!(
        "t={unix_seconds},v1={}",
        signature(secret, unix_seconds, body)
    )
}

/// The hex HMAC-SHA256 of `"<t>.<body>"` under the secret.
pub fn signature(secret: &WebhookSecret, unix_seconds: i64, body: &str) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.expose().as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(unix_seconds.to_string().as_bytes());
    mac.update(b".");
    mac.update(body.as_bytes());
    random::hex(&mac.finalize().into_bytes())
}

/// An error message cut to [`MAX_ERROR_CHARS`] characters, for storage.
pub fn bounded_error(message: &str) -> String {
    message.chars().take(MAX_ERROR_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_matches_a_known_hmac() {
        // RFC 4231 test case 2 checks the HMAC itself; the server test checks the "<t>.<body>"
        // construction with Python's hmac module.
        let secret = WebhookSecret::from_stored("Jefe".into());
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"what do ya want for nothing?");
        assert_eq!(
            random::hex(&mac.finalize().into_bytes()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let header = signature_header(&secret, 1_700_000_000, "{}");
        assert_eq!(
            header,
            format!(
                "t=1700000000,v1={}",
                signature(&secret, 1_700_000_000, "{}")
            )
        );
        assert_ne!(
            signature(&secret, 1_700_000_000, "{}"),
            signature(&secret, 1_700_000_001, "{}")
        );
    }

    #[test]
    fn batch_ids_follow_their_events() {
        let at: DateTime<Utc> = "2024-05-01T10:00:00Z".parse().unwrap();
        let row = |data: &str| OutboxEvent {
            webhook_id: WebhookId::random(),
            account_id: AccountId::random(),
            id: EventId::random(),
            kind: EventKind::ScanRecorded,
            data: data.to_owned(),
            created_at: at,
            attempts: 0,
            next_attempt_at: at,
            state: DeliveryState::Pending,
            last_error: None,
        };
        let (a, b, c) = (
            row(r#"{"scanId":"1"}"#),
            row(r#"{"scanId":"2"}"#),
            row("{}"),
        );
        let ab: Value = serde_json::from_str(&delivery_body(&[a.clone(), b.clone()])).unwrap();
        let again: Value = serde_json::from_str(&delivery_body(&[a.clone(), b.clone()])).unwrap();
        let ac: Value = serde_json::from_str(&delivery_body(&[a.clone(), c])).unwrap();
        assert_eq!(ab, again);
        assert_ne!(ab["id"], ac["id"]);
        assert_eq!(ab["type"], "scan.recorded");
        assert_eq!(ab["data"]["scans"][1]["eventId"], b.id.to_string());
        assert_eq!(ab["data"]["scans"][1]["scanId"], "2");
        let single: Value = serde_json::from_str(&delivery_body(std::slice::from_ref(&a))).unwrap();
        assert_eq!(single["id"], a.id.to_string());
    }
}
