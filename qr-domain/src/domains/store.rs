//! The storage traits of domains: an account's domains, found by id, by name (for requests on the domain) or by when they are due for a check, and their orphan visits.

use chrono::{DateTime, Utc};

use crate::domains::domain::Domain;
use crate::domains::name::DomainName;
use crate::domains::orphan::{OrphanReport, OrphanVisit};
use crate::error::StoreError;
use crate::ids::{AccountId, DomainId};

/// Domain reads, available in every transaction.
pub trait DomainReads {
    /// The domain `id` if it belongs to `account`.
    fn domain(&self, account: AccountId, id: DomainId) -> Result<Option<Domain>, StoreError>;
    /// The account's domains, by name.
    fn domains_of(&self, account: AccountId) -> Result<Vec<Domain>, StoreError>;
    /// The domain with this name, whoever owns it (requests arriving for it, and the rule that
    /// a name belongs to one account).
    fn domain_by_name(&self, name: &DomainName) -> Result<Option<Domain>, StoreError>;
    /// How many domains the account holds.
    fn count_domains(&self, account: AccountId) -> Result<u64, StoreError>;
    /// How many live links are on the domain `name`.
    fn count_domain_links(&self, name: &DomainName) -> Result<u64, StoreError>;
    /// The domains whose `verification.next_check_at` is at or before `now`, earliest first,
    /// at most `limit`.
    fn domains_due(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<Domain>, StoreError>;
    /// The domain's orphan visits: the daily counts since `since` (inclusive, oldest first) and
    /// the kept latest visits, newest first (empty for an unknown domain).
    fn orphan_visits(
        &self,
        domain: DomainId,
        since: chrono::NaiveDate,
    ) -> Result<OrphanReport, StoreError>;
}

/// Domain writes, available in write transactions.
pub trait DomainWrites {
    /// Adds a domain; its name must not be taken by any account ([`StoreError::Conflict`]).
    fn insert_domain(&mut self, domain: &Domain) -> Result<(), StoreError>;
    /// Replaces the verification and settings of a domain of `domain.account_id`; `false` if
    /// absent. Its id, account, name, token and creation time never change.
    fn update_domain(&mut self, domain: &Domain) -> Result<bool, StoreError>;
    /// Deletes a domain of `account` with its orphan visits; `false` if absent. Callers check
    /// first that no live link is on it. Short codes tombstoned on it stay tombstoned, so a
    /// printed code never leads to someone else's link if the name is added again.
    fn delete_domain(&mut self, account: AccountId, id: DomainId) -> Result<bool, StoreError>;
    /// Counts an orphan visit on its UTC day and keeps it among the domain's latest
    /// [`crate::domains::orphan::ORPHAN_VISITS_KEPT`] (dropping older ones), and drops daily
    /// counts older than [`crate::domains::orphan::ORPHAN_DAYS_KEPT`] days before the visit.
    /// Nothing happens for a domain that no longer exists.
    fn record_orphan_visit(
        &mut self,
        domain: DomainId,
        visit: &OrphanVisit,
    ) -> Result<(), StoreError>;
}
