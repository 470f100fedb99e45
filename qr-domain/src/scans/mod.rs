//! The scans aggregate: what each visit records (bots, geolocation), the single scan writer, and the analytics built from daily breakdowns, and their storage traits.

pub mod analytics;
pub mod bots;
pub mod breakdown;
pub mod geo;
pub mod scan;
pub(crate) mod store;
pub mod writer;
