//! The in-memory store's link listings: the dashboard's search and the API's filtered pages (the trait methods of `memory.rs` delegate here).

use super::{Data, oldest_first};
use crate::ids::AccountId;
use crate::link::Link;
use crate::listing::LinkQuery;

/// One page of the account's links whose name, target or code contains `needle`, newest first,
/// with the number of matches.
pub(super) fn search(
    d: &Data,
    account: AccountId,
    needle: &str,
    offset: u64,
    limit: u32,
) -> (Vec<Link>, u64) {
    let contains = |s: &str| s.to_ascii_lowercase().contains(needle);
    let mut found = oldest_first(
        d.links
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
    (page, total)
}

/// The account's links the query admits, newest first, at most `query.limit`.
pub(super) fn list(d: &Data, account: AccountId, query: &LinkQuery) -> Vec<Link> {
    let mut links: Vec<Link> = d
        .links
        .values()
        .filter(|l| l.account_id == account && query.admits(l))
        .cloned()
        .collect();
    links.sort_by_key(|l| std::cmp::Reverse((l.created_at, l.id.as_uuid())));
    links.truncate(usize::try_from(query.limit).unwrap_or(usize::MAX));
    links
}
