//! The dashboard aggregate: browser sessions, one-time e-mail tokens, and the passwords dashboard users sign in with.

pub mod password;
pub mod session;
pub mod token;
