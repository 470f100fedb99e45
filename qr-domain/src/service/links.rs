//! Dynamic links: creation within the plan's limit, reads, updates, deletion, and short-code resolution with the redirect cache.

use std::time::{Duration, Instant};

use super::Service;
use crate::account::Account;
use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::{AccountId, LinkId};
use crate::link::{Link, LinkError, LinkName, LinkUpdate, TargetUrl};
use crate::plan::Limit;
use crate::shortcode::ShortCode;
use crate::store::Store;
use crate::webhook::{EventKind, link_event};

/// What a presented short code stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// A live link: redirect to its target.
    Live(Link),
    /// The code belonged to a link that was deleted; it is never issued again.
    Gone,
    /// The code is malformed or was never issued.
    Unknown,
}

/// Which page of a link list: numbered from 1, of `size` links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkPage {
    /// The page number, from 1.
    pub number: usize,
    /// Links per page.
    pub size: usize,
}

/// How long a cached link is used. Changes made through this service show at once; changes
/// made by another process (the CLI) show within this time.
pub const LINK_CACHE_TTL: Duration = Duration::from_secs(1);
/// Short codes drawn per new link; one free code among them is practically certain with 40
/// random bits per code.
const CODE_ATTEMPTS: usize = 16;

impl<S: Store, C: Clock> Service<S, C> {
    /// Creates a link for `account`, enforcing the plan's link limit.
    pub fn create_link(
        &self,
        account: &Account,
        name: &str,
        target_url: &str,
    ) -> Result<Link, LinkError> {
        let name = LinkName::parse(name)?;
        let target_url = TargetUrl::parse(target_url)?;
        let now = self.clock.now();
        let limits = account.limits();
        let candidates = (0..CODE_ATTEMPTS)
            .map(|_| ShortCode::generate())
            .collect::<Result<Vec<_>, _>>()?;
        self.store.write(|tx| {
            let current = tx.account(account.id)?.ok_or(LinkError::NotFound)?;
            let limit = current.limits().links.min_with(limits.links);
            if let Limit::Max(max) = limit
                && tx.count_links(account.id)? >= max
            {
                return Err(LinkError::LimitReached {
                    plan: current.plan.to_string(),
                    limit: max,
                });
            }
            let mut code = None;
            for c in &candidates {
                if !tx.code_taken(c)? {
                    code = Some(*c);
                    break;
                }
            }
            let link = Link {
                id: LinkId::random(),
                account_id: account.id,
                name,
                short_code: code.ok_or(LinkError::CodeSpace)?,
                target_url,
                scan_count: 0,
                created_at: now,
                updated_at: now,
            };
            tx.insert_link(&link)?;
            tx.enqueue_webhook_event(account.id, &link_event(EventKind::LinkCreated, &link, now))?;
            Ok(link)
        })
    }

    /// One of the account's links. An unknown id and another account's id are both "not found".
    pub fn link(&self, account: AccountId, id: LinkId) -> Result<Link, LinkError> {
        self.store
            .read(|tx| tx.link(account, id))?
            .ok_or(LinkError::NotFound)
    }

    /// The account's links, oldest first.
    pub fn links(&self, account: AccountId) -> Result<Vec<Link>, StoreError> {
        self.store.read(|tx| tx.links_of(account))
    }

    /// How many links the account holds (one count, not the links themselves).
    pub fn count_links(&self, account: AccountId) -> Result<u64, StoreError> {
        self.store.read(|tx| tx.count_links(account))
    }

    /// One page of the account's links, newest first, whose name, target URL or short code
    /// contains `text` (ignoring case; empty matches all), with the number of matches.
    pub fn search_links(
        &self,
        account: AccountId,
        text: &str,
        page: LinkPage,
    ) -> Result<(Vec<Link>, usize), StoreError> {
        let needle = text.trim().to_lowercase();
        let mut found: Vec<Link> = self
            .links(account)?
            .into_iter()
            .filter(|l| {
                needle.is_empty()
                    || l.name.as_str().to_lowercase().contains(&needle)
                    || l.target_url.as_str().to_lowercase().contains(&needle)
                    || l.short_code.as_str().to_lowercase().contains(&needle)
            })
            .collect();
        found.reverse();
        let total = found.len();
        let start = page.number.saturating_sub(1).saturating_mul(page.size);
        Ok((
            found.into_iter().skip(start).take(page.size).collect(),
            total,
        ))
    }

    /// Changes the given fields; updatedAt is set whenever at least one field is given.
    /// An update without fields returns the link unchanged.
    pub fn update_link(
        &self,
        account: AccountId,
        id: LinkId,
        update: &LinkUpdate,
    ) -> Result<Link, LinkError> {
        let now = self.clock.now();
        self.store
            .write(|tx| {
                let mut link = tx.link(account, id)?.ok_or(LinkError::NotFound)?;
                if update.is_empty() {
                    return Ok(link);
                }
                if let Some(name) = &update.name {
                    link.name = name.clone();
                }
                if let Some(target) = &update.target_url {
                    link.target_url = target.clone();
                }
                link.updated_at = now.max(link.created_at);
                if !tx.update_link(&link)? {
                    return Err(LinkError::NotFound);
                }
                tx.enqueue_webhook_event(account, &link_event(EventKind::LinkUpdated, &link, now))?;
                Ok(link)
            })
            .inspect(|link| self.forget_link(link.id))
    }

    /// Deletes a link with all its scans; its code is never issued again.
    pub fn delete_link(&self, account: AccountId, id: LinkId) -> Result<(), LinkError> {
        let now = self.clock.now();
        let deleted = self.store.write(|tx| {
            let Some(link) = tx.link(account, id)? else {
                return Ok::<_, StoreError>(false);
            };
            let deleted = tx.delete_link(account, id)?;
            if deleted {
                tx.enqueue_webhook_event(account, &link_event(EventKind::LinkDeleted, &link, now))?;
            }
            Ok(deleted)
        })?;
        self.forget_link(id);
        if deleted {
            Ok(())
        } else {
            Err(LinkError::NotFound)
        }
    }

    /// What a presented short code stands for (lower case and aliases accepted). Always reads
    /// the store, in one transaction, and refreshes the redirect cache with what it read.
    pub fn resolve(&self, code: &str) -> Result<Resolution, StoreError> {
        let Ok(code) = ShortCode::parse(code) else {
            return Ok(Resolution::Unknown);
        };
        let seen = self.links.generation();
        let read = self.store.read(|tx| {
            Ok::<_, StoreError>(match tx.link_by_code(&code)? {
                Some(link) => Resolution::Live(link),
                None if tx.code_taken(&code)? => Resolution::Gone,
                None => Resolution::Unknown,
            })
        });
        let resolution = match read {
            Ok(resolution) => resolution,
            // The database cannot answer for now (a server restarting, say): a link this service
            // has read before keeps redirecting, however old the copy, until it can.
            Err(e) if e.is_unavailable() => {
                return self
                    .links
                    .read(&code, |(link, _)| Some(link.clone()))
                    .map(Resolution::Live)
                    .ok_or(e);
            }
            Err(e) => return Err(e),
        };
        match &resolution {
            Resolution::Live(link) => {
                self.links
                    .insert_since(seen, code, (link.clone(), Instant::now()));
            }
            Resolution::Gone | Resolution::Unknown => self.links.remove_since(seen, &code),
        }
        Ok(resolution)
    }

    /// The live link of a code from memory, if [`Service::resolve`] read it less than
    /// [`LINK_CACHE_TTL`] ago and it has not changed here since; never touches the store. Its
    /// `scan_count` may be behind.
    pub fn cached_link(&self, code: &str) -> Option<Link> {
        let code = ShortCode::parse(code).ok()?;
        self.links.read(&code, |(link, read_at)| {
            (read_at.elapsed() < LINK_CACHE_TTL).then(|| link.clone())
        })
    }

    /// Drops the cached link `id` after a local change.
    fn forget_link(&self, id: LinkId) {
        self.links.forget(|_, (link, _)| link.id == id);
    }
}
