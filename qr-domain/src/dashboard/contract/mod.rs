//! Contract checks of the dashboard: its stored credentials and records, then its rules on top.

pub mod credentials;
pub mod rules;
pub mod two_factor;
