//! The dashboard aggregate: browser sessions, one-time e-mail tokens, the passwords dashboard users sign in with and their second factors (TOTP, recovery codes); the storage traits of sessions and tokens; and the `Service` methods for sign-up, e-mailed tokens, passwords, two-step logins, sessions and two-factor enrolment.

#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;
pub(crate) mod customers;
pub mod password;
pub mod recovery;
pub mod second_factor;
pub mod session;
pub(crate) mod sessions;
pub(crate) mod store;
pub mod token;
pub mod totp;
pub mod two_factor;
