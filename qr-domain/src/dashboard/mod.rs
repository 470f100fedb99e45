//! The dashboard aggregate: browser sessions, one-time e-mail tokens, and the passwords dashboard users sign in with, and the storage traits of sessions and tokens.

pub mod password;
pub mod session;
pub(crate) mod store;
pub mod token;
