//! Webhooks: registering endpoints, the outbox events of link changes and quota thresholds, the accounts subscribed to scans (kept in memory, following the config version), and the delivery rules: which rows go out together, leases, exponential backoff with jitter, giving up after 3 days.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::accounts::caller::Caller;
use crate::accounts::limits::UsageMonth;
use crate::accounts::permissions::Operation;
use crate::accounts::plan::Limit;
use crate::audit::entry::{AuditAction, AuditObject, ObjectKind};
use crate::audit::service::record;
use crate::audit::summary;
use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::AccountId;
use crate::random;
use crate::service::Service;
use crate::store::{Store, WriteTx};
use crate::webhooks::outbox::{
    DeliveryState, OutboxEvent, bounded_error, delivery_body, signature_header, usage_event,
};
use crate::webhooks::webhook::{
    EndpointAddresses, EventKind, EventSet, MAX_SCANS_PER_DELIVERY, MAX_WEBHOOKS_PER_ACCOUNT,
    Webhook, WebhookError, WebhookId, WebhookSecret, WebhookUrl,
};

/// The quota percentages that send a `usage.threshold` event, once each per month.
pub const USAGE_THRESHOLDS: [u8; 2] = [80, 100];

/// The delivery rules' timings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebhookSettings {
    /// The first retry's delay; each further retry doubles it (30 s).
    pub backoff_base: Duration,
    /// The longest delay between two attempts (1 hour).
    pub backoff_cap: Duration,
    /// How long an event is retried before it is marked failed (3 days).
    pub give_up_after: Duration,
    /// How long claimed rows are hidden from other workers while being delivered (60 s; longer
    /// than a delivery's timeout, so only a worker that died leaves rows to be claimed again).
    pub lease: Duration,
    /// The shortest time between two `scan.recorded` deliveries to one endpoint (1 s).
    pub scan_interval: Duration,
    /// How long delivered and failed events stay listed before pruning removes them (30 days).
    pub keep_finished: Duration,
    /// Which endpoint hosts registration accepts (public ones only).
    pub endpoints: EndpointAddresses,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        Self {
            backoff_base: Duration::from_secs(30),
            backoff_cap: Duration::from_secs(3600),
            give_up_after: Duration::from_secs(3 * 24 * 3600),
            lease: Duration::from_secs(60),
            scan_interval: Duration::from_secs(1),
            keep_finished: Duration::from_secs(30 * 24 * 3600),
            endpoints: EndpointAddresses::PublicOnly,
        }
    }
}

/// One request to make: the events it carries, its body and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The endpoint.
    pub webhook_id: WebhookId,
    /// Where to POST.
    pub url: WebhookUrl,
    /// The signing secret.
    pub secret: WebhookSecret,
    /// The JSON body ([`delivery_body`]).
    pub body: String,
    /// The outbox rows it carries (one, or up to 1,000 scans).
    pub events: Vec<OutboxEvent>,
}

impl Delivery {
    /// The `Qr-Signature` header for sending it at `unix_seconds`.
    pub fn signature(&self, unix_seconds: i64) -> String {
        signature_header(&self.secret, unix_seconds, &self.body)
    }
}

/// The accounts that want scan and quota events, as of a config version.
#[derive(Debug, Default)]
pub(crate) struct Subscribed {
    /// Accounts with a webhook wanting `scan.recorded`.
    pub(crate) scans: HashSet<AccountId>,
    /// Accounts with a webhook wanting `usage.threshold`.
    pub(crate) usage: HashSet<AccountId>,
}

/// [`Subscribed`], reloaded when the store's config version moves (webhooks change it).
#[derive(Debug, Default)]
pub(crate) struct Subscriptions {
    current: Mutex<Option<(u64, Arc<Subscribed>)>>,
}

impl Subscriptions {
    /// The subscribed accounts; when the store cannot say whether they changed, the last known.
    pub(crate) fn current<S: Store>(&self, store: &S) -> Arc<Subscribed> {
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        let Ok(version) = store.config_version() else {
            return current
                .as_ref()
                .map(|(_, s)| Arc::clone(s))
                .unwrap_or_default();
        };
        if let Some((seen, subscribed)) = current.as_ref()
            && *seen == version
        {
            return Arc::clone(subscribed);
        }
        let Ok(hooks) = store.read(|tx| tx.webhooks()) else {
            return current
                .as_ref()
                .map(|(_, s)| Arc::clone(s))
                .unwrap_or_default();
        };
        let mut subscribed = Subscribed::default();
        for hook in hooks {
            if hook.events.contains(EventKind::ScanRecorded) {
                subscribed.scans.insert(hook.account_id);
            }
            if hook.events.contains(EventKind::UsageThreshold) {
                subscribed.usage.insert(hook.account_id);
            }
        }
        let subscribed = Arc::new(subscribed);
        *current = Some((version, Arc::clone(&subscribed)));
        subscribed
    }
}

/// The service's webhook state: settings, subscriptions, and what this process already did.
#[derive(Debug, Default)]
pub(crate) struct WebhookState {
    pub(crate) settings: WebhookSettings,
    pub(crate) subscriptions: Arc<Subscriptions>,
    /// When this process last claimed a scan batch for each endpoint.
    scan_claimed: Mutex<HashMap<WebhookId, DateTime<Utc>>>,
    /// Thresholds this process knows are recorded, so a flush does not ask again.
    thresholds: Mutex<HashSet<(AccountId, UsageMonth, u8)>>,
}

impl<S: Store, C: Clock> Service<S, C> {
    /// The service with other delivery timings (tests shorten the backoff).
    pub fn with_webhook_settings(mut self, settings: WebhookSettings) -> Self {
        self.webhooks.settings = settings;
        self
    }

    /// The delivery timings in force.
    pub fn webhook_settings(&self) -> WebhookSettings {
        self.webhooks.settings
    }

    /// Registers an endpoint for `account`: the URL is checked first (its form, then its host
    /// against [`WebhookSettings::endpoints`]), then the events, then a chosen secret (without
    /// one a secret is generated). The secret is only ever shown in the answer to this call and
    /// in deliveries' signatures, never in the audit entry. The caller needs
    /// [`Operation::WriteWebhooks`].
    pub fn create_webhook(
        &self,
        caller: &Caller,
        url: &str,
        events: &[&str],
        secret: Option<&str>,
    ) -> Result<Webhook, WebhookError> {
        caller.require(Operation::WriteWebhooks)?;
        let account = caller.account;
        let url = WebhookUrl::parse(url)?;
        self.webhooks.settings.endpoints.admit(&url)?;
        let events = EventSet::parse(events.iter().copied())?;
        let secret = match secret {
            Some(s) => WebhookSecret::parse(s)?,
            None => WebhookSecret::generate()?,
        };
        let webhook = Webhook {
            id: WebhookId::random(),
            account_id: account,
            url,
            events,
            secret,
            created_at: self.clock.now(),
        };
        self.store.write(|tx| {
            if tx.account(account)?.is_none() {
                return Err(WebhookError::NotFound);
            }
            if tx.webhooks_of(account)?.len() >= MAX_WEBHOOKS_PER_ACCOUNT {
                return Err(WebhookError::LimitReached(MAX_WEBHOOKS_PER_ACCOUNT));
            }
            tx.insert_webhook(&webhook)?;
            record(
                tx,
                caller,
                webhook.created_at,
                AuditAction::WebhookCreated,
                AuditObject::new(ObjectKind::Webhook, webhook.id),
                summary::webhook_created(&webhook),
            )?;
            Ok(webhook.clone())
        })
    }

    /// The account's endpoints, oldest first.
    pub fn webhooks(&self, account: AccountId) -> Result<Vec<Webhook>, StoreError> {
        self.store.read(|tx| tx.webhooks_of(account))
    }

    /// Deletes an endpoint and its undelivered events. Another account's is "not found". The
    /// caller needs [`Operation::WriteWebhooks`]; the audit entry keeps its URL and events.
    pub fn delete_webhook(&self, caller: &Caller, id: WebhookId) -> Result<(), WebhookError> {
        caller.require(Operation::WriteWebhooks)?;
        let account = caller.account;
        let now = self.clock.now();
        self.store.write(|tx| {
            let webhook = tx
                .webhooks_of(account)?
                .into_iter()
                .find(|w| w.id == id)
                .ok_or(WebhookError::NotFound)?;
            if !tx.delete_webhook(account, id)? {
                return Err(WebhookError::NotFound);
            }
            record(
                tx,
                caller,
                now,
                AuditAction::WebhookDeleted,
                AuditObject::new(ObjectKind::Webhook, id),
                summary::webhook_deleted(&webhook),
            )?;
            Ok(())
        })
    }

    /// The account's recent outbox events in every state, newest first.
    pub fn webhook_deliveries(
        &self,
        account: AccountId,
        limit: usize,
    ) -> Result<Vec<OutboxEvent>, StoreError> {
        self.store.read(|tx| tx.webhook_events_of(account, limit))
    }

    /// Claims up to `max` requests to make now: each endpoint's due events, one request per
    /// event, but its scans together (up to 1,000, at most one such request per endpoint and
    /// [`WebhookSettings::scan_interval`]). The claimed rows are leased for
    /// [`WebhookSettings::lease`], so other workers (other servers) leave them alone meanwhile;
    /// report each outcome with [`Service::finish_webhook_delivery`].
    pub fn claim_webhook_deliveries(&self, max: usize) -> Result<Vec<Delivery>, StoreError> {
        let now = self.clock.now();
        let settings = self.webhooks.settings;
        let lease_until = now + chrono_duration(settings.lease);
        let mut scan_claimed = self
            .webhooks
            .scan_claimed
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (deliveries, scans_sent) = self.store.write(|tx| {
            let mut out: Vec<Delivery> = Vec::new();
            let mut scans_sent = Vec::new();
            for hook in tx.webhooks()? {
                if out.len() >= max {
                    break;
                }
                let due = tx.due_webhook_events(hook.id, now, MAX_SCANS_PER_DELIVERY)?;
                let scan_allowed = scan_claimed.get(&hook.id).is_none_or(|last| {
                    now.signed_duration_since(*last) >= chrono_duration(settings.scan_interval)
                });
                let (scans, others): (Vec<_>, Vec<_>) = due
                    .into_iter()
                    .partition(|e| e.kind == EventKind::ScanRecorded);
                for event in others {
                    if out.len() < max {
                        out.push(delivery(&hook, vec![event]));
                    }
                }
                if !scans.is_empty() && scan_allowed && out.len() < max {
                    scans_sent.push(hook.id);
                    out.push(delivery(&hook, scans));
                }
            }
            let leased: Vec<OutboxEvent> = out
                .iter()
                .flat_map(|d| d.events.iter())
                .map(|e| OutboxEvent {
                    next_attempt_at: lease_until,
                    ..e.clone()
                })
                .collect();
            tx.update_webhook_events(&leased)?;
            Ok::<_, StoreError>((out, scans_sent))
        })?;
        for id in scans_sent {
            scan_claimed.insert(id, now);
        }
        // Endpoints deleted meanwhile need no entry.
        if scan_claimed.len() > 4 * MAX_WEBHOOKS_PER_ACCOUNT * 1024 {
            scan_claimed.clear();
        }
        Ok(deliveries)
    }

    /// Records a claimed delivery's outcome: delivered, or retried after an exponential
    /// backoff with jitter (`base × 2^(attempts−1)`, at most the cap, each delay drawn from its
    /// upper half), or failed once the events are older than
    /// [`WebhookSettings::give_up_after`]. `error` is kept (cut to 300 characters) for the lists.
    pub fn finish_webhook_delivery(
        &self,
        delivery: &Delivery,
        outcome: Result<(), String>,
    ) -> Result<(), StoreError> {
        let now = self.clock.now();
        let settings = self.webhooks.settings;
        let rows: Vec<OutboxEvent> = delivery
            .events
            .iter()
            .map(|e| {
                let mut row = e.clone();
                row.attempts = row.attempts.saturating_add(1);
                match &outcome {
                    Ok(()) => {
                        row.state = DeliveryState::Delivered;
                        row.next_attempt_at = now;
                        row.last_error = None;
                    }
                    Err(message) => {
                        row.last_error = Some(bounded_error(message));
                        let age = now.signed_duration_since(row.created_at);
                        if age >= chrono_duration(settings.give_up_after) {
                            row.state = DeliveryState::Failed;
                            row.next_attempt_at = now;
                        } else {
                            row.next_attempt_at =
                                now + chrono_duration(backoff(&settings, row.attempts));
                        }
                    }
                }
                row
            })
            .collect();
        self.store.write(|tx| tx.update_webhook_events(&rows))
    }

    /// In a flush's transaction: for accounts with a `usage.threshold` webhook whose saved
    /// count of the current month reached 80 % or 100 % of their quota, records the threshold
    /// and writes its event, once per account, month and threshold.
    pub(crate) fn usage_threshold_events(
        &self,
        tx: &mut dyn WriteTx,
        subscribed: &Subscribed,
        month: UsageMonth,
        counts: &[(AccountId, u64)],
        reached: &mut Vec<(AccountId, UsageMonth, u8)>,
    ) -> Result<(), StoreError> {
        let now = self.clock.now();
        if month != UsageMonth::of(now) {
            return Ok(());
        }
        if subscribed.usage.is_empty() {
            return Ok(());
        }
        let known = self
            .webhooks
            .thresholds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for &(account, used) in counts {
            if !subscribed.usage.contains(&account) {
                continue;
            }
            let pending: Vec<u8> = USAGE_THRESHOLDS
                .into_iter()
                .filter(|p| !known.contains(&(account, month, *p)))
                .collect();
            if pending.is_empty() {
                continue;
            }
            let Some(found) = tx.account(account)? else {
                continue;
            };
            let Limit::Max(limit) = found.limits().monthly_requests else {
                continue;
            };
            for percent in pending {
                if u128::from(used) * 100 < u128::from(limit) * u128::from(percent) {
                    continue;
                }
                if tx.claim_usage_threshold(account, month, percent)? {
                    tx.enqueue_webhook_event(
                        account,
                        &usage_event(month, percent, used, limit, now),
                    )?;
                }
                reached.push((account, month, percent));
            }
        }
        Ok(())
    }

    /// The accounts subscribed to scan and quota events now.
    pub(crate) fn usage_subscribed(&self) -> Arc<Subscribed> {
        self.webhooks.subscriptions.current(&*self.store)
    }

    /// Remembers thresholds recorded by a committed flush.
    pub(crate) fn thresholds_recorded(&self, reached: Vec<(AccountId, UsageMonth, u8)>) {
        if reached.is_empty() {
            return;
        }
        let month = UsageMonth::of(self.clock.now());
        let mut known = self
            .webhooks
            .thresholds
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        known.retain(|(_, m, _)| *m == month);
        known.extend(reached);
    }

    /// Deletes delivered and failed events older than [`WebhookSettings::keep_finished`].
    pub(crate) fn prune_webhook_events(&self) -> Result<u64, StoreError> {
        let before = self.clock.now() - chrono_duration(self.webhooks.settings.keep_finished);
        self.store.write(|tx| tx.prune_webhook_events(before))
    }
}

fn delivery(hook: &Webhook, events: Vec<OutboxEvent>) -> Delivery {
    Delivery {
        webhook_id: hook.id,
        url: hook.url.clone(),
        secret: hook.secret.clone(),
        body: delivery_body(&events),
        events,
    }
}

/// The delay after the `attempts`-th failed attempt: `base × 2^(attempts−1)` capped, then a
/// random point of its upper half (jitter, so endpoints coming back are not hit all at once).
fn backoff(settings: &WebhookSettings, attempts: u32) -> Duration {
    let doublings = attempts.saturating_sub(1).min(30);
    let full = settings
        .backoff_base
        .saturating_mul(1 << doublings)
        .min(settings.backoff_cap);
    let draw = random::bytes::<4>().map_or(u32::MAX, u32::from_le_bytes);
    let half = full / 2;
    half + half.mul_f64(f64::from(draw) / f64::from(u32::MAX))
}

fn chrono_duration(d: Duration) -> chrono::Duration {
    chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_its_cap_with_jitter() {
        let s = WebhookSettings::default();
        for attempts in 1..40 {
            let full = s
                .backoff_base
                .saturating_mul(1 << (attempts - 1).min(30))
                .min(s.backoff_cap);
            let d = backoff(&s, attempts);
            assert!(d >= full / 2 && d <= full, "{attempts}: {d:?} of {full:?}");
        }
        assert!(backoff(&s, 1) <= Duration::from_secs(30));
        assert!(backoff(&s, 20) >= Duration::from_secs(1800));
    }
}
