//! The in-memory store's webhooks, outbox and quota thresholds (the trait methods of `memory.rs` delegate here).

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::Data;
use crate::error::StoreError;
use crate::ids::AccountId;
use crate::limits::UsageMonth;
use crate::webhook::{DeliveryState, NewEvent, OutboxEvent, Webhook, WebhookId};

/// The webhooks of `account` (every account when `None`), oldest first.
pub(super) fn webhooks(d: &Data, account: Option<AccountId>) -> Vec<Webhook> {
    let mut found: Vec<Webhook> = d
        .webhooks
        .values()
        .filter(|w| account.is_none_or(|a| w.account_id == a))
        .cloned()
        .collect();
    found.sort_by_key(|w| (w.created_at, w.id));
    found
}

/// Pending rows of a webhook due at `now`, earliest due first (the outbox is kept in write order).
pub(super) fn due(
    d: &Data,
    webhook: WebhookId,
    now: DateTime<Utc>,
    limit: usize,
) -> Vec<OutboxEvent> {
    let mut found: Vec<&OutboxEvent> = d
        .outbox
        .iter()
        .filter(|e| {
            e.webhook_id == webhook && e.state == DeliveryState::Pending && e.next_attempt_at <= now
        })
        .collect();
    // A stable sort keeps write order among events due at the same instant.
    found.sort_by_key(|e| e.next_attempt_at);
    found.into_iter().take(limit).cloned().collect()
}

/// An account's rows, newest first.
pub(super) fn events_of(d: &Data, account: AccountId, limit: usize) -> Vec<OutboxEvent> {
    let mut found: Vec<&OutboxEvent> = d
        .outbox
        .iter()
        .rev()
        .filter(|e| e.account_id == account)
        .collect();
    found.sort_by_key(|e| std::cmp::Reverse(e.created_at));
    found.into_iter().take(limit).cloned().collect()
}

pub(super) fn insert(d: &mut Data, webhook: &Webhook) -> Result<(), StoreError> {
    d.require_account(webhook.account_id)?;
    if d.webhooks.contains_key(&webhook.id) {
        return Err(StoreError::Conflict(format!(
            "webhook {} already exists",
            webhook.id
        )));
    }
    d.webhooks.insert(webhook.id, webhook.clone());
    d.config_changed = true;
    Ok(())
}

pub(super) fn delete(d: &mut Data, account: AccountId, id: WebhookId) -> bool {
    if d.webhooks.get(&id).is_none_or(|w| w.account_id != account) {
        return false;
    }
    d.webhooks.remove(&id);
    Arc::make_mut(&mut d.outbox).retain(|e| e.webhook_id != id);
    d.config_changed = true;
    true
}

/// Removes everything webhook-related of a deleted account.
pub(super) fn forget_account(d: &mut Data, account: AccountId) {
    d.webhooks.retain(|_, w| w.account_id != account);
    Arc::make_mut(&mut d.outbox).retain(|e| e.account_id != account);
    d.thresholds.retain(|(a, _, _)| *a != account);
}

pub(super) fn enqueue(d: &mut Data, account: AccountId, event: &NewEvent) -> u64 {
    let rows: Vec<OutboxEvent> = webhooks(d, Some(account))
        .iter()
        .filter(|w| w.events.contains(event.kind))
        .map(|w| OutboxEvent::new(w, event))
        .collect();
    let n = rows.len() as u64;
    if n > 0 {
        Arc::make_mut(&mut d.outbox).extend(rows);
    }
    n
}

pub(super) fn update(d: &mut Data, events: &[OutboxEvent]) {
    let outbox = Arc::make_mut(&mut d.outbox);
    for new in events {
        if let Some(row) = outbox
            .iter_mut()
            .find(|e| e.webhook_id == new.webhook_id && e.id == new.id)
        {
            row.attempts = new.attempts;
            row.next_attempt_at = new.next_attempt_at;
            row.state = new.state;
            row.last_error.clone_from(&new.last_error);
        }
    }
}

pub(super) fn claim_threshold(
    d: &mut Data,
    account: AccountId,
    month: UsageMonth,
    percent: u8,
) -> Result<bool, StoreError> {
    d.require_account(account)?;
    Ok(d.thresholds.insert((account, month, percent)))
}

pub(super) fn prune(d: &mut Data, before: DateTime<Utc>) -> u64 {
    let outbox = Arc::make_mut(&mut d.outbox);
    let n = outbox.len();
    outbox.retain(|e| e.state == DeliveryState::Pending || e.created_at >= before);
    (n - outbox.len()) as u64
}
