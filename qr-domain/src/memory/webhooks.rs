//! The in-memory store's webhooks, outbox and quota thresholds.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::Data;
use crate::accounts::limits::UsageMonth;
use crate::error::StoreError;
use crate::ids::AccountId;
use crate::store::{WebhookReads, WebhookWrites};
use crate::webhooks::outbox::{DeliveryState, NewEvent, OutboxEvent};
use crate::webhooks::webhook::{Webhook, WebhookId};

/// The webhooks of `account` (every account when `None`), oldest first.
fn webhooks(d: &Data, account: Option<AccountId>) -> Vec<Webhook> {
    let mut found: Vec<Webhook> = d
        .webhooks
        .values()
        .filter(|w| account.is_none_or(|a| w.account_id == a))
        .cloned()
        .collect();
    found.sort_by_key(|w| (w.created_at, w.id));
    found
}

impl WebhookReads for Data {
    fn webhooks(&self) -> Result<Vec<Webhook>, StoreError> {
        Ok(webhooks(self, None))
    }

    fn webhooks_of(&self, account: AccountId) -> Result<Vec<Webhook>, StoreError> {
        Ok(webhooks(self, Some(account)))
    }

    /// Pending rows of a webhook due at `now`, earliest due first (the outbox is kept in write order).
    fn due_webhook_events(
        &self,
        webhook: WebhookId,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<OutboxEvent>, StoreError> {
        let mut found: Vec<&OutboxEvent> = self
            .outbox
            .iter()
            .filter(|e| {
                e.webhook_id == webhook
                    && e.state == DeliveryState::Pending
                    && e.next_attempt_at <= now
            })
            .collect();
        // A stable sort keeps write order among events due at the same instant.
        found.sort_by_key(|e| e.next_attempt_at);
        Ok(found.into_iter().take(limit).cloned().collect())
    }

    /// An account's rows, newest first.
    fn webhook_events_of(
        &self,
        account: AccountId,
        limit: usize,
    ) -> Result<Vec<OutboxEvent>, StoreError> {
        let mut found: Vec<&OutboxEvent> = self
            .outbox
            .iter()
            .rev()
            .filter(|e| e.account_id == account)
            .collect();
        found.sort_by_key(|e| std::cmp::Reverse(e.created_at));
        Ok(found.into_iter().take(limit).cloned().collect())
    }
}

impl WebhookWrites for Data {
    fn insert_webhook(&mut self, webhook: &Webhook) -> Result<(), StoreError> {
        self.require_account(webhook.account_id)?;
        if self.webhooks.contains_key(&webhook.id) {
            return Err(StoreError::Conflict(format!(
                "webhook {} already exists",
                webhook.id
            )));
        }
        self.webhooks.insert(webhook.id, webhook.clone());
        self.config_changed = true;
        Ok(())
    }

    fn delete_webhook(&mut self, account: AccountId, id: WebhookId) -> Result<bool, StoreError> {
        if self
            .webhooks
            .get(&id)
            .is_none_or(|w| w.account_id != account)
        {
            return Ok(false);
        }
        self.webhooks.remove(&id);
        Arc::make_mut(&mut self.outbox).retain(|e| e.webhook_id != id);
        self.config_changed = true;
        Ok(true)
    }

    fn enqueue_webhook_event(
        &mut self,
        account: AccountId,
        event: &NewEvent,
    ) -> Result<u64, StoreError> {
        Ok(enqueue(self, account, event))
    }

    fn update_webhook_events(&mut self, events: &[OutboxEvent]) -> Result<(), StoreError> {
        let outbox = Arc::make_mut(&mut self.outbox);
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
        Ok(())
    }

    fn claim_usage_threshold(
        &mut self,
        account: AccountId,
        month: UsageMonth,
        percent: u8,
    ) -> Result<bool, StoreError> {
        self.require_account(account)?;
        Ok(self.thresholds.insert((account, month, percent)))
    }

    fn prune_webhook_events(&mut self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        let outbox = Arc::make_mut(&mut self.outbox);
        let n = outbox.len();
        outbox.retain(|e| e.state == DeliveryState::Pending || e.created_at >= before);
        Ok((n - outbox.len()) as u64)
    }
}

/// Writes `event` for each of the account's webhooks that want it (also from scan batches,
/// which cannot fail); returns how many rows were written.
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

/// Removes everything webhook-related of a deleted account.
pub(super) fn forget_account(d: &mut Data, account: AccountId) {
    d.webhooks.retain(|_, w| w.account_id != account);
    Arc::make_mut(&mut d.outbox).retain(|e| e.account_id != account);
    d.thresholds.retain(|(a, _, _)| *a != account);
}
