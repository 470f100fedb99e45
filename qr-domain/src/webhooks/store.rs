//! The storage traits of webhooks: the endpoints, their outbox of events, and the quota thresholds whose events are sent once a month.

use chrono::{DateTime, Utc};

use crate::accounts::limits::UsageMonth;
use crate::error::StoreError;
use crate::ids::AccountId;
use crate::webhooks::outbox::{NewEvent, OutboxEvent};
use crate::webhooks::webhook::{Webhook, WebhookId};

/// Webhook reads, available in every transaction.
pub trait WebhookReads {
    /// Every webhook, oldest first.
    fn webhooks(&self) -> Result<Vec<Webhook>, StoreError>;
    /// The webhooks of an account, oldest first.
    fn webhooks_of(&self, account: AccountId) -> Result<Vec<Webhook>, StoreError>;
    /// A webhook's pending outbox events due at `now` (`next_attempt_at <= now`), earliest due
    /// first (by next attempt time, then by the order they were written), at most `limit`. New
    /// events are due when they happen, so among them this is oldest first.
    fn due_webhook_events(
        &self,
        webhook: WebhookId,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<OutboxEvent>, StoreError>;
    /// The outbox events of an account's webhooks in any state, newest first, at most `limit`.
    fn webhook_events_of(
        &self,
        account: AccountId,
        limit: usize,
    ) -> Result<Vec<OutboxEvent>, StoreError>;
}

/// Webhook writes, available in write transactions.
pub trait WebhookWrites {
    /// Adds a webhook. The account must exist ([`StoreError::Conflict`] otherwise). Adding or
    /// deleting a webhook changes the config version (servers keep the subscribed accounts).
    fn insert_webhook(&mut self, webhook: &Webhook) -> Result<(), StoreError>;
    /// Deletes a webhook of `account` with its outbox events; `false` if absent.
    fn delete_webhook(&mut self, account: AccountId, id: WebhookId) -> Result<bool, StoreError>;
    /// Writes `event` to the outbox once for each webhook of `account` whose events include its
    /// kind ([`OutboxEvent::new`]: pending, due at once); returns how many rows were written.
    fn enqueue_webhook_event(
        &mut self,
        account: AccountId,
        event: &NewEvent,
    ) -> Result<u64, StoreError>;
    /// Replaces the attempts, next attempt time, state and last error of outbox rows, found by
    /// webhook and event id; rows that no longer exist are skipped.
    fn update_webhook_events(&mut self, events: &[OutboxEvent]) -> Result<(), StoreError>;
    /// Records that `account` reached `percent` of its quota in `month`; `false` if that was
    /// already recorded (the event is sent once per month).
    fn claim_usage_threshold(
        &mut self,
        account: AccountId,
        month: UsageMonth,
        percent: u8,
    ) -> Result<bool, StoreError>;
    /// Deletes delivered and failed outbox events created before `before`; returns how many.
    fn prune_webhook_events(&mut self, before: DateTime<Utc>) -> Result<u64, StoreError>;
}
