//! The composition's choice of storage engine: a database given as a path is SQLite, one given as a `postgres://` URL is PostgreSQL; both behind one `Store`.
//!
//! The two composition roots (qr-http's `bootstrap.rs` and qr-cli's `db.rs`) open a
//! [`Database`] from a [`Location`] and never name an engine themselves. [`Database`] implements
//! [`qr_domain::Store`] by delegating to the engine's adapter (one `match` per call).
//! [`copy::copy`] moves a deployment from SQLite to PostgreSQL, verified table by table.
#![forbid(unsafe_code)]

pub mod backup;
pub mod copy;
mod database;
mod location;

pub use database::{Database, DiskUsage, Engine, OpenError};
pub use location::Location;
