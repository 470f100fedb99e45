//! The PostgreSQL adapter of the `qr-domain` storage traits: one database shared by several servers.
//!
//! [`PgStore::open`] connects to a `postgres://` URL, refuses a database holding another
//! application's tables or a newer schema (without writing to it), and applies the versioned
//! migrations of [`SCHEMA_VERSION`], each in its own transaction under an advisory lock, so
//! servers starting together migrate once. Connections come from a small pool opened on demand
//! ([`POOL_SIZE`]); [`SCAN_CONNECTIONS`] more are kept for scan batches, each adding to rollup
//! and count rows of its own so that batches on one link never wait for each other, and one only listens
//! (`LISTEN qr_config`): triggers on accounts and keys bump a version row and `NOTIFY` it with
//! the account or key that changed, so every server drops just that account's or key's cached
//! entries within milliseconds of a change committed anywhere, and
//! [`qr_domain::Store::config_version`] and [`qr_domain::Store::config_changes`] are reads of
//! memory that never touch the network.
//!
//! The client is the synchronous `postgres` crate: it must not be called from an async task
//! (it blocks on its own runtime), which is why the stores' calls run on blocking threads.
#![forbid(unsafe_code)]

mod accounts;
mod audit;
mod backfill;
mod config_changes;
mod credentials;
mod designs;
mod domains;
mod error;
mod idempotency;
mod invitations;
mod keys;
mod links;
mod listener;
mod partitions;
mod passkeys;
mod pool;
mod scans;
mod schema;
mod sso;
mod store;
mod tx;
mod users;
mod webhooks;
mod writers;

pub use error::{OpenError, redact};
pub use partitions::{DayTable, create_day_partitions};
pub use schema::SCHEMA_VERSION;
pub use store::{POOL_SIZE, PgStore, SCAN_CONNECTIONS};
