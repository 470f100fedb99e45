//! The accounts aggregate: accounts and their API keys, users, members and invitations, per-key access rules, plans, and the quotas and rate limits a plan grants; the storage traits of accounts and keys; and the `Service` methods for accounts, keys and the request path (authentication, authorization, admission) and the operator's administration.

pub mod access;
pub mod account;
pub(crate) mod admin;
pub(crate) mod auth;
pub mod caller;
pub mod config_change;
#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;

pub(crate) mod invitation_store;
pub mod invitations;
pub mod key;
pub(crate) mod key_store;
pub mod limit_state;
pub mod limits;
pub mod members;
pub mod permissions;
pub mod plan;
pub(crate) mod service;
pub(crate) mod store;
pub mod user;
pub(crate) mod user_store;
