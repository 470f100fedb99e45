//! The in-memory store's domains: by id, by name and by when they are due for a check, and their orphan visits (daily counts and the latest visits).

use std::collections::{BTreeMap, VecDeque};

use chrono::{DateTime, Duration, NaiveDate, Utc};

use super::Data;
use crate::domains::domain::Domain;
use crate::domains::name::DomainName;
use crate::domains::orphan::{
    ORPHAN_DAYS_KEPT, ORPHAN_VISITS_KEPT, OrphanDay, OrphanReport, OrphanVisit,
};
use crate::domains::store::{DomainReads, DomainWrites};
use crate::error::StoreError;
use crate::ids::{AccountId, DomainId};

/// A domain's orphan visits as the in-memory store keeps them.
#[derive(Debug, Clone, Default)]
pub(super) struct Orphans {
    days: BTreeMap<NaiveDate, u64>,
    /// Oldest first.
    recent: VecDeque<OrphanVisit>,
}

impl DomainReads for Data {
    fn domain(&self, account: AccountId, id: DomainId) -> Result<Option<Domain>, StoreError> {
        Ok(self
            .domains
            .get(&id)
            .filter(|d| d.account_id == account)
            .cloned())
    }

    fn domains_of(&self, account: AccountId) -> Result<Vec<Domain>, StoreError> {
        let mut domains: Vec<Domain> = self
            .domains
            .values()
            .filter(|d| d.account_id == account)
            .cloned()
            .collect();
        domains.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(domains)
    }

    fn domain_by_name(&self, name: &DomainName) -> Result<Option<Domain>, StoreError> {
        Ok(self.domains.values().find(|d| &d.name == name).cloned())
    }

    fn count_domains(&self, account: AccountId) -> Result<u64, StoreError> {
        Ok(self
            .domains
            .values()
            .filter(|d| d.account_id == account)
            .count() as u64)
    }

    fn count_domain_links(&self, name: &DomainName) -> Result<u64, StoreError> {
        Ok(self
            .links
            .values()
            .filter(|l| l.domain.as_ref() == Some(name))
            .count() as u64)
    }

    fn domains_due(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<Domain>, StoreError> {
        let mut due: Vec<Domain> = self
            .domains
            .values()
            .filter(|d| d.verification.next_check_at.is_some_and(|at| at <= now))
            .cloned()
            .collect();
        due.sort_by_key(|d| (d.verification.next_check_at, d.id));
        due.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        Ok(due)
    }

    fn orphan_visits(
        &self,
        domain: DomainId,
        since: NaiveDate,
    ) -> Result<OrphanReport, StoreError> {
        let Some(orphans) = self.orphans.get(&domain) else {
            return Ok(OrphanReport::default());
        };
        Ok(OrphanReport {
            daily: orphans
                .days
                .range(since..)
                .map(|(date, visits)| OrphanDay {
                    date: *date,
                    visits: *visits,
                })
                .collect(),
            recent: orphans.recent.iter().rev().cloned().collect(),
        })
    }
}

impl DomainWrites for Data {
    fn insert_domain(&mut self, domain: &Domain) -> Result<(), StoreError> {
        if !self.accounts.contains_key(&domain.account_id) {
            return Err(StoreError::Conflict(format!(
                "account {} does not exist",
                domain.account_id
            )));
        }
        if self.domains.contains_key(&domain.id) || self.domain_by_name(&domain.name)?.is_some() {
            return Err(StoreError::Conflict(format!(
                "domain {} is already registered",
                domain.name
            )));
        }
        self.domains.insert(domain.id, domain.clone());
        Ok(())
    }

    fn update_domain(&mut self, domain: &Domain) -> Result<bool, StoreError> {
        let Some(slot) = self
            .domains
            .get_mut(&domain.id)
            .filter(|d| d.account_id == domain.account_id)
        else {
            return Ok(false);
        };
        slot.verification = domain.verification.clone();
        slot.settings = domain.settings.clone();
        Ok(true)
    }

    fn delete_domain(&mut self, account: AccountId, id: DomainId) -> Result<bool, StoreError> {
        if self
            .domains
            .get(&id)
            .is_none_or(|d| d.account_id != account)
        {
            return Ok(false);
        }
        self.domains.remove(&id);
        self.orphans.remove(&id);
        Ok(true)
    }

    fn record_orphan_visit(
        &mut self,
        domain: DomainId,
        visit: &OrphanVisit,
    ) -> Result<(), StoreError> {
        if !self.domains.contains_key(&domain) {
            return Ok(());
        }
        let orphans = self.orphans.entry(domain).or_default();
        let day = visit.at.date_naive();
        *orphans.days.entry(day).or_default() += 1;
        let oldest_kept = day - Duration::days(ORPHAN_DAYS_KEPT);
        orphans.days.retain(|date, _| *date >= oldest_kept);
        orphans.recent.push_back(visit.clone());
        while orphans.recent.len() > ORPHAN_VISITS_KEPT {
            orphans.recent.pop_front();
        }
        Ok(())
    }
}

/// Drops the domains of a deleted account with their orphan visits.
pub(super) fn forget_account(data: &mut Data, account: AccountId) {
    let gone: Vec<DomainId> = data
        .domains
        .values()
        .filter(|d| d.account_id == account)
        .map(|d| d.id)
        .collect();
    for id in gone {
        data.domains.remove(&id);
        data.orphans.remove(&id);
    }
}
