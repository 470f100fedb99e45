//! The in-memory store adapter, for tests and for embedding without a database file.
//!
//! A write transaction works on a copy of the state and swaps it in on success, so a
//! failing closure leaves nothing behind. Scans, rollups and visitor sets sit behind
//! `Arc`s so that copy stays cheap; scan batches are applied in place under the lock.

mod credentials;
mod idempotency;
mod keys;
mod links;
mod scans;
mod webhooks;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, NaiveDate, Utc};

use crate::account::{Account, Email, PlanRequest};
use crate::analytics::{DayCount, StatsRows};
use crate::breakdown::{DIMENSIONS, Dimension};
use crate::bulk::{IdempotencyKey, IdempotencyRecord};
use crate::error::StoreError;
use crate::ids::{AccountId, KeyId, LinkId, ScanId};
use crate::key::{ApiKey, KeyHash};
use crate::limits::UsageMonth;
use crate::link::Link;
use crate::listing::LinkQuery;
use crate::scan::{Device, NewScan, ScanRecord};
use crate::session::{Session, SessionHash};
use crate::shortcode::ShortCode;
use crate::store::{ReadTx, Store, WriteTx};
use crate::token::{OneTimeToken, TokenHash};
use crate::webhook::{OutboxEvent, Webhook, WebhookId};

/// A store that keeps everything in memory.
#[derive(Debug, Default)]
pub struct MemoryStore {
    data: Mutex<Data>,
}

#[derive(Debug, Clone, Default)]
struct Data {
    accounts: HashMap<AccountId, Account>,
    /// Account ids by [`Email::lookup_key`]: the unique index on e-mail addresses.
    emails: HashMap<String, AccountId>,
    keys: HashMap<KeyId, ApiKey>,
    links: HashMap<LinkId, Link>,
    codes: HashMap<ShortCode, LinkId>,
    tombstones: HashSet<ShortCode>,
    usage: HashMap<(AccountId, UsageMonth), u64>,
    salts: BTreeMap<NaiveDate, [u8; 32]>,
    visitors: Arc<HashSet<(LinkId, NaiveDate, [u8; 16])>>,
    scans: HashMap<LinkId, Arc<Vec<StoredScan>>>,
    rollups: HashMap<LinkId, Arc<BTreeMap<NaiveDate, DayRollup>>>,
    tokens: HashMap<TokenHash, OneTimeToken>,
    sessions: HashMap<SessionHash, Session>,
    plan_requests: HashMap<AccountId, PlanRequest>,
    daily_usage: BTreeMap<(AccountId, NaiveDate), u64>,
    webhooks: HashMap<WebhookId, Webhook>,
    /// Outbox rows in write order.
    outbox: Arc<Vec<OutboxEvent>>,
    /// Quota thresholds reached: (account, month, percent).
    thresholds: HashSet<(AccountId, UsageMonth, u8)>,
    idempotency: HashMap<(AccountId, IdempotencyKey), IdempotencyRecord>,
    next_scan: i64,
    config_version: u64,
    config_changed: bool,
}

#[derive(Debug, Clone)]
struct StoredScan {
    id: ScanId,
    at: DateTime<Utc>,
    visitor: [u8; 16],
    country: String,
    city: String,
    device: Device,
    browser: String,
    os: String,
    referrer: Option<String>,
    variant: Option<u8>,
    rule: Option<u8>,
}

#[derive(Debug, Clone, Default)]
struct DayRollup {
    scans: u64,
    uniques: u64,
    dims: [BTreeMap<String, u64>; DIMENSIONS],
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Data> {
        self.data.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Store for MemoryStore {
    fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn ReadTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let guard = self.lock();
        f(&*guard)
    }

    fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut dyn WriteTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut guard = self.lock();
        let mut work = guard.clone();
        work.config_changed = false;
        let value = f(&mut work)?;
        if work.config_changed {
            work.config_version += 1;
            work.config_changed = false;
        }
        *guard = work;
        Ok(value)
    }

    fn record_scans(&self, scans: &[NewScan]) -> Result<Vec<Option<ScanId>>, StoreError> {
        Ok(self.lock().record_scans(scans, None))
    }

    fn record_scans_with_events(
        &self,
        scans: &[NewScan],
        subscribed: &HashSet<AccountId>,
    ) -> Result<Vec<Option<ScanId>>, StoreError> {
        Ok(self.lock().record_scans(scans, Some(subscribed)))
    }

    fn config_version(&self) -> Result<u64, StoreError> {
        Ok(self.lock().config_version)
    }
}

fn oldest_first<T>(mut v: Vec<T>, key: impl Fn(&T) -> (DateTime<Utc>, uuid::Uuid)) -> Vec<T> {
    v.sort_by_key(key);
    v
}

impl Data {
    /// Refuses a record of an account that does not exist (the stores' foreign keys).
    fn require_account(&self, account: AccountId) -> Result<(), StoreError> {
        if self.accounts.contains_key(&account) {
            Ok(())
        } else {
            Err(StoreError::Conflict(format!(
                "account {account} does not exist"
            )))
        }
    }

    /// Records `account`'s e-mail address as its own, unless another account has it.
    fn claim_email(&mut self, account: &Account) -> Result<(), StoreError> {
        let key = account.email.lookup_key();
        match self.emails.get(&key) {
            Some(owner) if *owner != account.id => Err(StoreError::Conflict(format!(
                "the e-mail address {} belongs to account {owner}",
                account.email
            ))),
            _ => {
                self.emails.insert(key, account.id);
                Ok(())
            }
        }
    }
}

impl ReadTx for Data {
    fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError> {
        Ok(self.accounts.get(&id).cloned())
    }

    fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        Ok(oldest_first(
            self.accounts.values().cloned().collect(),
            |a| (a.created_at, a.id.as_uuid()),
        ))
    }

    fn account_by_email(&self, email: &Email) -> Result<Option<Account>, StoreError> {
        Ok(self
            .emails
            .get(&email.lookup_key())
            .and_then(|id| self.accounts.get(id))
            .cloned())
    }

    fn usage(&self, month: UsageMonth) -> Result<Vec<(AccountId, u64)>, StoreError> {
        Ok(self
            .usage
            .iter()
            .filter(|((_, m), _)| *m == month)
            .map(|((a, _), n)| (*a, *n))
            .collect())
    }

    fn plan_requests(&self) -> Result<Vec<PlanRequest>, StoreError> {
        let mut v: Vec<PlanRequest> = self.plan_requests.values().copied().collect();
        v.sort_by_key(|r| (r.created_at, r.account_id));
        Ok(v)
    }

    fn daily_usage(
        &self,
        account: AccountId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        Ok(self
            .daily_usage
            .range((account, first)..=(account, last))
            .map(|((_, day), n)| (*day, *n))
            .collect())
    }
}

impl WriteTx for Data {
    fn insert_account(&mut self, account: &Account) -> Result<(), StoreError> {
        if self.accounts.contains_key(&account.id) {
            return Err(StoreError::Conflict(format!(
                "account {} exists",
                account.id
            )));
        }
        self.claim_email(account)?;
        self.accounts.insert(account.id, account.clone());
        self.config_changed = true;
        Ok(())
    }

    fn update_account(&mut self, account: &Account) -> Result<bool, StoreError> {
        let Some(old) = self.accounts.get(&account.id).map(|a| a.email.lookup_key()) else {
            return Ok(false);
        };
        self.claim_email(account)?;
        if old != account.email.lookup_key() {
            self.emails.remove(&old);
        }
        if let Some(slot) = self.accounts.get_mut(&account.id) {
            *slot = Account {
                id: slot.id,
                created_at: slot.created_at,
                ..account.clone()
            };
        }
        self.config_changed = true;
        Ok(true)
    }

    fn save_usage(
        &mut self,
        month: UsageMonth,
        counts: &[(AccountId, u64)],
    ) -> Result<(), StoreError> {
        for (account, n) in counts {
            let slot = self.usage.entry((*account, month)).or_insert(0);
            *slot = (*slot).max(*n);
        }
        Ok(())
    }

    fn put_plan_request(&mut self, request: &PlanRequest) -> Result<(), StoreError> {
        self.require_account(request.account_id)?;
        self.plan_requests.insert(request.account_id, *request);
        Ok(())
    }

    fn delete_plan_request(&mut self, account: AccountId) -> Result<bool, StoreError> {
        Ok(self.plan_requests.remove(&account).is_some())
    }

    fn add_daily_usage(
        &mut self,
        day: NaiveDate,
        added: &[(AccountId, u64)],
    ) -> Result<(), StoreError> {
        for (account, n) in added {
            if self.accounts.contains_key(account) {
                *self.daily_usage.entry((*account, day)).or_insert(0) += n;
            }
        }
        Ok(())
    }

    fn delete_account(&mut self, account: AccountId) -> Result<bool, StoreError> {
        let Some(removed) = self.accounts.remove(&account) else {
            return Ok(false);
        };
        self.emails.remove(&removed.email.lookup_key());
        self.keys.retain(|_, k| k.account_id != account);
        let links: Vec<LinkId> = self
            .links
            .values()
            .filter(|l| l.account_id == account)
            .map(|l| l.id)
            .collect();
        for id in links {
            self.delete_link(account, id)?;
        }
        self.usage.retain(|(a, _), _| *a != account);
        self.daily_usage.retain(|(a, _), _| *a != account);
        self.sessions.retain(|_, s| s.account_id != account);
        self.tokens.retain(|_, t| t.account_id != account);
        self.plan_requests.remove(&account);
        webhooks::forget_account(self, account);
        idempotency::forget_account(self, account);
        self.config_changed = true;
        Ok(true)
    }
}

#[cfg(test)]
mod contract {
    crate::contract_suite!(|| ((), super::MemoryStore::new()));
}
