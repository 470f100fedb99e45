//! Webhooks in SQL (schema version 5): endpoints, the outbox (`webhook_events`, one row per event and endpoint), quota thresholds reached, and the scan events written in a scan batch's transaction.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use qr_domain::accounts::limits::UsageMonth;

use qr_domain::scans::scan::{NewScan, ScanFate};
use qr_domain::store::{WebhookReads, WebhookWrites};
use qr_domain::webhooks::outbox::{DeliveryState, NewEvent, OutboxEvent, scan_event};
use qr_domain::webhooks::webhook::{
    EventId, EventKind, EventSet, Webhook, WebhookId, WebhookSecret, WebhookUrl,
};
use qr_domain::{AccountId, LinkId, StoreError};
use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::store_err;
use crate::tx::{SqlTx, corrupt, get, micros, signed, time, uuid};

/// Version 5's tables. Deleting an account or a webhook deletes its rows through the foreign
/// keys; adding or deleting a webhook moves the config version, so every process reloads the
/// accounts subscribed to scans.
pub(crate) const V5_WEBHOOKS: &str = r"
CREATE TABLE webhooks (
    id BLOB PRIMARY KEY,
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    events INTEGER NOT NULL,
    secret TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX webhooks_by_account ON webhooks(account_id, created_at);
CREATE TABLE webhook_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id BLOB NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    account_id BLOB NOT NULL,
    event_id BLOB NOT NULL,
    kind INTEGER NOT NULL,
    data TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    state INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_events_due ON webhook_events(webhook_id, state, next_attempt_at);
CREATE INDEX webhook_events_by_account ON webhook_events(account_id, created_at);
CREATE TABLE usage_thresholds (
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    month INTEGER NOT NULL,
    percent INTEGER NOT NULL,
    PRIMARY KEY (account_id, month, percent)
) WITHOUT ROWID;
CREATE TRIGGER webhooks_insert AFTER INSERT ON webhooks
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'config_version'; END;
CREATE TRIGGER webhooks_delete AFTER DELETE ON webhooks
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'config_version'; END;
";

const HOOK_COLS: &str = "id, account_id, url, events, secret, created_at";
const EVENT_COLS: &str = "webhook_id, account_id, event_id, kind, data, created_at, attempts, next_attempt_at, state, last_error";

/// Writes one event for every webhook of the account wanting its kind (one statement).
const ENQUEUE: &str = "INSERT INTO webhook_events (webhook_id, account_id, event_id, kind, data, created_at, next_attempt_at)
     SELECT id, account_id, ?2, ?3, ?4, ?5, ?5 FROM webhooks
     WHERE account_id = ?1 AND (events & ?6) != 0 ORDER BY created_at, id";

fn bytes(id: uuid::Uuid) -> [u8; 16] {
    id.into_bytes()
}

fn hook_from(r: &Row<'_>) -> Result<Webhook, StoreError> {
    Ok(Webhook {
        id: WebhookId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        account_id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
        url: WebhookUrl::from_stored(get(r, 2)?)?,
        events: EventSet::from_bits(get(r, 3)?)?,
        secret: WebhookSecret::from_stored(get(r, 4)?),
        created_at: time(get(r, 5)?)?,
    })
}

fn kind_from(code: i64) -> Result<EventKind, StoreError> {
    EventKind::ALL
        .into_iter()
        .find(|k| i64::from(k.bit()) == code)
        .ok_or_else(|| corrupt("event kind"))
}

fn event_from(r: &Row<'_>) -> Result<OutboxEvent, StoreError> {
    Ok(OutboxEvent {
        webhook_id: WebhookId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        account_id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
        id: EventId::from_uuid(uuid(&get::<Vec<u8>>(r, 2)?)?),
        kind: kind_from(get(r, 3)?)?,
        data: get(r, 4)?,
        created_at: time(get(r, 5)?)?,
        attempts: u32::try_from(get::<i64>(r, 6)?).map_err(|_| corrupt("attempts"))?,
        next_attempt_at: time(get(r, 7)?)?,
        state: DeliveryState::from_code(get(r, 8)?)?,
        last_error: get(r, 9)?,
    })
}

impl WebhookReads for SqlTx<'_> {
    fn webhooks(&self) -> Result<Vec<Webhook>, StoreError> {
        self.all(
            &format!("SELECT {HOOK_COLS} FROM webhooks ORDER BY created_at, id"),
            [],
            hook_from,
        )
    }

    fn webhooks_of(&self, account: AccountId) -> Result<Vec<Webhook>, StoreError> {
        self.all(
            &format!(
                "SELECT {HOOK_COLS} FROM webhooks WHERE account_id = ?1 ORDER BY created_at, id"
            ),
            [&bytes(account.as_uuid())[..]],
            hook_from,
        )
    }

    fn due_webhook_events(
        &self,
        webhook: WebhookId,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<OutboxEvent>, StoreError> {
        self.all(
            &format!(
                "SELECT {EVENT_COLS} FROM webhook_events
                 WHERE webhook_id = ?1 AND state = 0 AND next_attempt_at <= ?2
                 ORDER BY next_attempt_at, seq LIMIT ?3"
            ),
            params![
                &bytes(webhook.as_uuid())[..],
                micros(now),
                signed(limit as u64)
            ],
            event_from,
        )
    }

    fn webhook_events_of(
        &self,
        account: AccountId,
        limit: usize,
    ) -> Result<Vec<OutboxEvent>, StoreError> {
        self.all(
            &format!(
                "SELECT {EVENT_COLS} FROM webhook_events WHERE account_id = ?1
                 ORDER BY created_at DESC, seq DESC LIMIT ?2"
            ),
            params![&bytes(account.as_uuid())[..], signed(limit as u64)],
            event_from,
        )
    }
}

impl WebhookWrites for SqlTx<'_> {
    fn insert_webhook(&mut self, h: &Webhook) -> Result<(), StoreError> {
        self.exec(
            &format!("INSERT INTO webhooks ({HOOK_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
            params![
                &bytes(h.id.as_uuid())[..],
                &bytes(h.account_id.as_uuid())[..],
                h.url.as_str(),
                i64::from(h.events.bits()),
                h.secret.expose(),
                micros(h.created_at)
            ],
        )
        .map(drop)
    }

    fn delete_webhook(&mut self, account: AccountId, id: WebhookId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM webhooks WHERE id = ?1 AND account_id = ?2",
            params![&bytes(id.as_uuid())[..], &bytes(account.as_uuid())[..]],
        )? > 0)
    }

    fn enqueue_webhook_event(
        &mut self,
        account: AccountId,
        event: &NewEvent,
    ) -> Result<u64, StoreError> {
        enqueue(self.conn, account, event)
    }

    fn update_webhook_events(&mut self, events: &[OutboxEvent]) -> Result<(), StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "UPDATE webhook_events SET attempts = ?3, next_attempt_at = ?4, state = ?5, last_error = ?6
                 WHERE webhook_id = ?1 AND event_id = ?2",
            )
            .map_err(store_err)?;
        for e in events {
            stmt.execute(params![
                &bytes(e.webhook_id.as_uuid())[..],
                &bytes(e.id.as_uuid())[..],
                i64::from(e.attempts),
                micros(e.next_attempt_at),
                e.state.code(),
                e.last_error
            ])
            .map_err(store_err)?;
        }
        Ok(())
    }

    fn claim_usage_threshold(
        &mut self,
        account: AccountId,
        month: UsageMonth,
        percent: u8,
    ) -> Result<bool, StoreError> {
        Ok(self.exec(
            "INSERT INTO usage_thresholds (account_id, month, percent) VALUES (?1, ?2, ?3)
             ON CONFLICT DO NOTHING",
            params![
                &bytes(account.as_uuid())[..],
                month.index(),
                i64::from(percent)
            ],
        )? > 0)
    }

    fn prune_webhook_events(&mut self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        Ok(self.exec(
            "DELETE FROM webhook_events WHERE state != 0 AND created_at < ?1",
            [micros(before)],
        )? as u64)
    }
}

/// Writes one event for every webhook of the account wanting its kind, on `conn`: from a
/// transaction or from a scan batch's transaction.
fn enqueue(conn: &Connection, account: AccountId, e: &NewEvent) -> Result<u64, StoreError> {
    let written = conn
        .prepare_cached(ENQUEUE)
        .and_then(|mut stmt| {
            stmt.execute(params![
                &bytes(account.as_uuid())[..],
                &bytes(e.id.as_uuid())[..],
                i64::from(e.kind.bit()),
                e.data,
                micros(e.at),
                i64::from(e.kind.bit())
            ])
        })
        .map_err(store_err)?;
    Ok(written as u64)
}

/// In a scan batch's transaction, after its scans are stored: the `scan.recorded` events of the
/// stored scans whose link belongs to a subscribed account (one account lookup per link).
pub(crate) fn scan_events(
    conn: &Connection,
    scans: &[NewScan],
    fates: &[ScanFate],
    subscribed: &HashSet<AccountId>,
) -> Result<(), StoreError> {
    let mut owner = conn
        .prepare_cached("SELECT account_id FROM links WHERE id = ?1")
        .map_err(store_err)?;
    let mut accounts: HashMap<LinkId, Option<AccountId>> = HashMap::new();
    for (scan, fate) in scans.iter().zip(fates) {
        let Some(id) = fate.id() else { continue };
        let account = match accounts.get(&scan.link_id) {
            Some(known) => *known,
            None => {
                let found: Option<Vec<u8>> = owner
                    .query_row([&bytes(scan.link_id.as_uuid())[..]], |r| r.get(0))
                    .optional()
                    .map_err(store_err)?;
                let found = found
                    .map(|b| uuid(&b).map(AccountId::from_uuid))
                    .transpose()?
                    .filter(|a| subscribed.contains(a));
                accounts.insert(scan.link_id, found);
                found
            }
        };
        if let Some(account) = account {
            enqueue(conn, account, &scan_event(scan, id))?;
        }
    }
    Ok(())
}
