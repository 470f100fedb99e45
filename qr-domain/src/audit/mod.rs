//! The audit log: every change to a workspace appended in the transaction that makes it (who, what, on which object, the changed fields without secrets, the client's network), read newest first by owners and admins, kept for the plan's retention.

#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;
pub mod entry;
pub mod query;
pub mod service;
pub mod store;
pub mod summary;
