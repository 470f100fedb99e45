//! The storage error shared by every store adapter and the operations built on them.

use thiserror::Error;

/// A failure of the storage layer, independent of the adapter behind it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    /// The database stayed locked by another process for longer than the busy timeout.
    #[error("the database is busy (locked by another process); retry the operation")]
    Busy,
    /// The stored data violates an invariant (for example a malformed value in a column).
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// A uniqueness rule of the store was violated (for example a duplicate id or short code).
    #[error("conflicting record: {0}")]
    Conflict(String),
    /// Any other failure reported by the storage backend.
    #[error("storage backend failure: {0}")]
    Backend(String),
    /// The background scan writer has stopped, so no scan can be recorded any more.
    #[error("the scan writer has shut down; scans can no longer be recorded")]
    WriterStopped,
}
