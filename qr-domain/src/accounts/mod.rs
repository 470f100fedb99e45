//! The accounts aggregate: accounts and their API keys, per-key access rules, plans, and the quotas and rate limits a plan grants.

pub mod access;
pub mod account;
pub mod key;
pub mod limit_state;
pub mod limits;
pub mod plan;
