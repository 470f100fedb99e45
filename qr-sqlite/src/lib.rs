//! The SQLite adapter of the `qr-domain` storage traits: the embedded default store.
//!
//! [`SqliteStore::open`] creates the file if missing, refuses files that are not
//! databases or come from a newer schema (without writing to them), switches to
//! WAL with `synchronous=FULL`, a busy timeout and foreign keys, and migrates via
//! `PRAGMA user_version`. One connection writes (configuration changes and scan
//! batches from the scan writer), [`READ_CONNECTIONS`] (four) read-only connections
//! serve reads, and one more read-only connection only watches for changes; other
//! processes (the CLI) may open the same file at the same time.
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
mod passkeys;
mod scans;
mod schema;
mod sso;
mod store;
mod tx;
mod users;
mod webhooks;

pub use error::{OpenError, SharedEmail};
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
pub use store::{READ_CONNECTIONS, SqliteStore};
