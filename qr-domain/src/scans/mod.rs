//! The scans aggregate: what each visit records (bots, geolocation), the single scan writer, and the analytics built from daily breakdowns; their storage traits; and the `Service` methods that record scans, report analytics and export scans.

pub mod analytics;
pub(crate) mod analytics_service;
pub mod bots;
pub mod breakdown;
#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;
pub mod geo;
pub mod scan;
pub(crate) mod scan_export;
pub(crate) mod service;
pub(crate) mod store;
pub mod writer;
