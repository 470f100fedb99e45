//! The storage traits of accounts: the account records, their pending plan requests and their persisted API usage (per month and per day).

use chrono::NaiveDate;

use crate::accounts::account::{Account, Email, PlanRequest};
use crate::accounts::limits::UsageMonth;
use crate::error::StoreError;
use crate::ids::AccountId;

/// Account reads, available in every transaction.
pub trait AccountReads {
    /// The account with this id.
    fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError>;
    /// All accounts, oldest first.
    fn accounts(&self) -> Result<Vec<Account>, StoreError>;
    /// The oldest account whose workspace address is this one, compared by
    /// [`Email::lookup_key`] (several may share an address; the operator's commands name a
    /// workspace by it).
    fn account_by_email(&self, email: &Email) -> Result<Option<Account>, StoreError>;
    /// The persisted usage counts of a month.
    fn usage(&self, month: UsageMonth) -> Result<Vec<(AccountId, u64)>, StoreError>;
    /// An account's persisted API requests per UTC day over `first..=last`, days without
    /// requests left out, ascending.
    fn daily_usage(
        &self,
        account: AccountId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<Vec<(NaiveDate, u64)>, StoreError>;
    /// Every pending plan request, oldest first.
    fn plan_requests(&self) -> Result<Vec<PlanRequest>, StoreError>;
}

/// Account writes, available in write transactions.
pub trait AccountWrites {
    /// Adds an account.
    fn insert_account(&mut self, account: &Account) -> Result<(), StoreError>;
    /// Replaces an account's address, plan, overrides and status (everything but its id and
    /// creation time); `false` if there is no such account.
    fn update_account(&mut self, account: &Account) -> Result<bool, StoreError>;
    /// Deletes an account and everything it owns: keys, links (their short codes tombstoned)
    /// with their scans, rollups and visitors, usage and daily usage, memberships, its plan
    /// request, and its webhooks with their outbox events and quota thresholds; sessions that
    /// showed it show none (their users stay); `false` if there is no such account.
    fn delete_account(&mut self, account: AccountId) -> Result<bool, StoreError>;
    /// Stores usage counts of a month; a stored count is never lowered.
    fn save_usage(
        &mut self,
        month: UsageMonth,
        counts: &[(AccountId, u64)],
    ) -> Result<(), StoreError>;
    /// Adds API requests to the accounts' counts of a UTC day (counts of deleted accounts are
    /// dropped).
    fn add_daily_usage(
        &mut self,
        day: NaiveDate,
        added: &[(AccountId, u64)],
    ) -> Result<(), StoreError>;
    /// Stores an account's pending plan request, replacing an earlier one. The account must exist
    /// ([`StoreError::Conflict`] otherwise).
    fn put_plan_request(&mut self, request: &PlanRequest) -> Result<(), StoreError>;
    /// Removes an account's pending plan request; `false` if there was none.
    fn delete_plan_request(&mut self, account: AccountId) -> Result<bool, StoreError>;
}
