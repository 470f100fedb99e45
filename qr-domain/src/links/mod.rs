//! The links aggregate: dynamic links and their short codes, campaign settings and routing, listing, and bulk creation with idempotency keys; their storage traits; and the `Service` methods that create, list and resolve links, import them in bulk, and answer a visit to a short code.

pub mod bulk;
pub(crate) mod bulk_service;
pub mod campaign;
#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;
pub(crate) mod idempotency_store;
pub mod link;
pub mod listing;
pub(crate) mod opening;
pub mod routing;
pub(crate) mod service;
pub mod shortcode;
pub(crate) mod store;
pub(crate) mod visits;
