//! The accounts aggregate: accounts and their API keys, per-key access rules, plans, and the quotas and rate limits a plan grants, and the storage traits of accounts and keys.

pub mod access;
pub mod account;
pub mod key;
pub(crate) mod key_store;
pub mod limit_state;
pub mod limits;
pub mod plan;
pub(crate) mod store;
