//! The storage traits of links: an account's dynamic links, found by id, by short code or by listing, and the short codes issued (live or tombstoned).

use crate::domains::name::DomainName;
use crate::error::StoreError;
use crate::ids::{AccountId, LinkId};
use crate::links::link::Link;
use crate::links::listing::LinkQuery;
use crate::links::shortcode::ShortCode;

/// Link reads, available in every transaction.
pub trait LinkReads {
    /// The link `id` if it belongs to `account`.
    fn link(&self, account: AccountId, id: LinkId) -> Result<Option<Link>, StoreError>;
    /// The live link with this short code on `domain` (`None`: the service's own address),
    /// compared by [`crate::links::shortcode::scoped_key`], whoever owns it (for redirects).
    fn link_by_code(
        &self,
        domain: Option<&DomainName>,
        code: &ShortCode,
    ) -> Result<Option<Link>, StoreError>;
    /// The links of an account, oldest first.
    fn links_of(&self, account: AccountId) -> Result<Vec<Link>, StoreError>;
    /// One page of an account's links, newest first (by creation time, then id): those whose
    /// name, target URL or short code contains `needle` after ASCII lower-casing (`needle` is
    /// given lower-cased; empty matches every link), `limit` of them after skipping `offset`,
    /// with the number of matches. Paged in the store, so a page costs the same for an account
    /// with a million links as for one with twenty.
    fn search_links(
        &self,
        account: AccountId,
        needle: &str,
        offset: u64,
        limit: u32,
    ) -> Result<(Vec<Link>, u64), StoreError>;
    /// The account's links that [`LinkQuery::admits`], newest first (creation time, then id,
    /// both descending), at most `query.limit`.
    fn list_links(&self, account: AccountId, query: &LinkQuery) -> Result<Vec<Link>, StoreError>;
    /// How many links an account holds.
    fn count_links(&self, account: AccountId) -> Result<u64, StoreError>;
    /// Whether a code on `domain` (its [`crate::links::shortcode::scoped_key`]) is used by a live
    /// link or tombstoned by a deleted one or by a link whose code or domain changed.
    fn code_taken(&self, domain: Option<&DomainName>, code: &ShortCode)
    -> Result<bool, StoreError>;
}

/// Link writes, available in write transactions.
pub trait LinkWrites {
    /// Adds a link with its tags and options; its short code must not be taken on its domain
    /// ([`StoreError::Conflict`]).
    fn insert_link(&mut self, link: &Link) -> Result<(), StoreError>;
    /// Replaces the name, target URL, short code, domain, tags, options and updatedAt of a link
    /// of `link.account_id`; `false` if absent. A new short code or domain must leave the code
    /// free where it lands ([`StoreError::Conflict`]), and the old code is tombstoned where it was.
    fn update_link(&mut self, link: &Link) -> Result<bool, StoreError>;
    /// Deletes a link of `account` with its scans and rollups, tombstoning its code; `false` if absent.
    fn delete_link(&mut self, account: AccountId, id: LinkId) -> Result<bool, StoreError>;
}
