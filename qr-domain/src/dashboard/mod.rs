//! The dashboard aggregate: browser sessions, one-time e-mail tokens, and the passwords dashboard users sign in with; the storage traits of sessions and tokens; and the `Service` methods for sign-up, e-mailed tokens, passwords, logins and sessions.

#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;
pub(crate) mod customers;
pub mod password;
pub mod recovery;
pub mod session;
pub(crate) mod sessions;
pub(crate) mod store;
pub mod token;
pub mod totp;
