//! Contract checks of the accounts aggregate: accounts with their plans and limits, and API keys
//! with authentication.

pub mod accounts;
pub mod keys;
