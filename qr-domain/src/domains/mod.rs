//! Customers' own domains: names, ownership proved by a DNS TXT record, where a domain points, its settings and orphan visits, and how links live on it.

pub mod check;
#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;
pub mod dns;
pub mod domain;
pub mod name;
pub mod orphan;
pub mod service;
pub mod store;
