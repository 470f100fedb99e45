//! The in-memory store's links: lookups, the dashboard's search and the API's filtered pages, and the short codes issued (live or tombstoned).

use std::sync::Arc;

use super::{Data, oldest_first};
use crate::domains::name::DomainName;
use crate::error::StoreError;
use crate::ids::{AccountId, LinkId};
use crate::links::link::Link;
use crate::links::listing::LinkQuery;
use crate::links::shortcode::{ShortCode, scoped_key};
use crate::store::{LinkReads, LinkWrites};

impl LinkReads for Data {
    fn link(&self, account: AccountId, id: LinkId) -> Result<Option<Link>, StoreError> {
        Ok(self
            .links
            .get(&id)
            .filter(|l| l.account_id == account)
            .cloned())
    }

    fn link_by_code(
        &self,
        domain: Option<&DomainName>,
        code: &ShortCode,
    ) -> Result<Option<Link>, StoreError> {
        Ok(self
            .codes
            .get(&scoped_key(domain, code))
            .and_then(|id| self.links.get(id))
            .cloned())
    }

    fn links_of(&self, account: AccountId) -> Result<Vec<Link>, StoreError> {
        let links = self
            .links
            .values()
            .filter(|l| l.account_id == account)
            .cloned()
            .collect();
        Ok(oldest_first(links, |l| (l.created_at, l.id.as_uuid())))
    }

    /// One page of the account's links whose name, target or code contains `needle`, newest
    /// first, with the number of matches.
    fn search_links(
        &self,
        account: AccountId,
        needle: &str,
        offset: u64,
        limit: u32,
    ) -> Result<(Vec<Link>, u64), StoreError> {
        let contains = |s: &str| s.to_ascii_lowercase().contains(needle);
        let mut found = oldest_first(
            self.links
                .values()
                .filter(|l| {
                    l.account_id == account
                        && (contains(l.name.as_str())
                            || contains(l.target_url.as_str())
                            || contains(l.short_code.as_str()))
                })
                .cloned()
                .collect(),
            |l| (l.created_at, l.id.as_uuid()),
        );
        found.reverse();
        let total = found.len() as u64;
        let page = found
            .into_iter()
            .skip(usize::try_from(offset).unwrap_or(usize::MAX))
            .take(limit as usize)
            .collect();
        Ok((page, total))
    }

    /// The account's links the query admits, newest first, at most `query.limit`.
    fn list_links(&self, account: AccountId, query: &LinkQuery) -> Result<Vec<Link>, StoreError> {
        let mut links: Vec<Link> = self
            .links
            .values()
            .filter(|l| l.account_id == account && query.admits(l))
            .cloned()
            .collect();
        links.sort_by_key(|l| std::cmp::Reverse((l.created_at, l.id.as_uuid())));
        links.truncate(usize::try_from(query.limit).unwrap_or(usize::MAX));
        Ok(links)
    }

    fn count_links(&self, account: AccountId) -> Result<u64, StoreError> {
        Ok(self
            .links
            .values()
            .filter(|l| l.account_id == account)
            .count() as u64)
    }

    fn code_taken(
        &self,
        domain: Option<&DomainName>,
        code: &ShortCode,
    ) -> Result<bool, StoreError> {
        let key = scoped_key(domain, code);
        Ok(self.codes.contains_key(&key) || self.tombstones.contains(&key))
    }
}

impl LinkWrites for Data {
    fn insert_link(&mut self, link: &Link) -> Result<(), StoreError> {
        if !self.accounts.contains_key(&link.account_id) {
            return Err(StoreError::Conflict(format!(
                "account {} does not exist",
                link.account_id
            )));
        }
        if self.links.contains_key(&link.id)
            || self.code_taken(link.domain.as_ref(), &link.short_code)?
        {
            return Err(StoreError::Conflict(format!(
                "link {} or its short code exists",
                link.id
            )));
        }
        self.codes.insert(link.code_key(), link.id);
        self.links.insert(link.id, link.clone());
        Ok(())
    }

    fn update_link(&mut self, link: &Link) -> Result<bool, StoreError> {
        let Some(old_key) = self
            .links
            .get(&link.id)
            .filter(|l| l.account_id == link.account_id)
            .map(Link::code_key)
        else {
            return Ok(false);
        };
        let new_key = link.code_key();
        if old_key != new_key {
            if self.code_taken(link.domain.as_ref(), &link.short_code)? {
                return Err(StoreError::Conflict(format!(
                    "short code {} was already issued",
                    link.short_code
                )));
            }
            self.codes.remove(&old_key);
            self.tombstones.insert(old_key);
        }
        // A code of the same key may change its case.
        self.codes.insert(new_key, link.id);
        if let Some(slot) = self.links.get_mut(&link.id) {
            slot.name = link.name.clone();
            slot.target_url = link.target_url.clone();
            slot.short_code = link.short_code;
            slot.domain = link.domain.clone();
            slot.design = link.design;
            slot.tags = link.tags.clone();
            slot.options = link.options.clone();
            slot.updated_at = link.updated_at;
        }
        Ok(true)
    }

    fn delete_link(&mut self, account: AccountId, id: LinkId) -> Result<bool, StoreError> {
        if self.links.get(&id).is_none_or(|l| l.account_id != account) {
            return Ok(false);
        }
        if let Some(link) = self.links.remove(&id) {
            let key = link.code_key();
            self.codes.remove(&key);
            self.tombstones.insert(key);
        }
        self.scans.remove(&id);
        self.rollups.remove(&id);
        Arc::make_mut(&mut self.visitors).retain(|(l, _, _)| *l != id);
        Ok(true)
    }
}
