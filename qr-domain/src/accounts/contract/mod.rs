//! Contract checks of the accounts aggregate: accounts with their plans and limits, users and
//! their memberships, and API keys with authentication.

pub mod accounts;
pub mod keys;
pub mod users;
