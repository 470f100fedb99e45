//! Contract checks of the accounts aggregate: accounts with their plans and limits, users and
//! their memberships, invitations, and API keys with authentication.

pub mod accounts;
pub mod invitations;
pub mod keys;
pub mod users;
