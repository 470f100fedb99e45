//! The in-memory store's accounts, their plan requests and their persisted usage; deleting an account deletes everything it owns.

use chrono::NaiveDate;

use super::{Data, idempotency, oldest_first, webhooks};
use crate::accounts::account::{Account, Email, PlanRequest};
use crate::accounts::config_change::ConfigChange;
use crate::accounts::limits::UsageMonth;
use crate::error::StoreError;
use crate::ids::{AccountId, LinkId};
use crate::store::{AccountReads, AccountWrites, LinkWrites};

impl AccountReads for Data {
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
        let key = email.lookup_key();
        Ok(self
            .accounts
            .values()
            .filter(|a| a.email.lookup_key() == key)
            .min_by_key(|a| (a.created_at, a.id.as_uuid()))
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

    fn plan_requests(&self) -> Result<Vec<PlanRequest>, StoreError> {
        let mut v: Vec<PlanRequest> = self.plan_requests.values().copied().collect();
        v.sort_by_key(|r| (r.created_at, r.account_id));
        Ok(v)
    }
}

impl AccountWrites for Data {
    fn insert_account(&mut self, account: &Account) -> Result<(), StoreError> {
        if self.accounts.contains_key(&account.id) {
            return Err(StoreError::Conflict(format!(
                "account {} exists",
                account.id
            )));
        }
        self.accounts.insert(account.id, account.clone());
        self.config_changed_by(ConfigChange::Account(account.id));
        Ok(())
    }

    fn update_account(&mut self, account: &Account) -> Result<bool, StoreError> {
        if !self.accounts.contains_key(&account.id) {
            return Ok(false);
        }
        if let Some(slot) = self.accounts.get_mut(&account.id) {
            *slot = Account {
                id: slot.id,
                created_at: slot.created_at,
                ..account.clone()
            };
        }
        self.config_changed_by(ConfigChange::Account(account.id));
        Ok(true)
    }

    fn delete_account(&mut self, account: AccountId) -> Result<bool, StoreError> {
        if self.accounts.remove(&account).is_none() {
            return Ok(false);
        }
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
        self.memberships.retain(|(a, _), _| *a != account);
        self.invitations.retain(|_, i| i.account_id != account);
        for session in self.sessions.values_mut() {
            if session.account_id == Some(account) {
                session.account_id = None;
            }
        }
        self.plan_requests.remove(&account);
        self.two_factor_required.remove(&account);
        webhooks::forget_account(self, account);
        idempotency::forget_account(self, account);
        super::domains::forget_account(self, account);
        super::designs::forget_account(self, account);
        super::audit::forget_account(self, account);
        super::sso::forget_account(self, account);
        self.config_changed_by(ConfigChange::Account(account));
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

    fn put_plan_request(&mut self, request: &PlanRequest) -> Result<(), StoreError> {
        self.require_account(request.account_id)?;
        self.plan_requests.insert(request.account_id, *request);
        Ok(())
    }

    fn delete_plan_request(&mut self, account: AccountId) -> Result<bool, StoreError> {
        Ok(self.plan_requests.remove(&account).is_some())
    }
}
