//! The links aggregate: dynamic links and their short codes, campaign settings and routing, listing, and bulk creation with idempotency keys, and their storage traits.

pub mod bulk;
pub mod campaign;
pub(crate) mod idempotency_store;
pub mod link;
pub mod listing;
pub mod routing;
pub mod shortcode;
pub(crate) mod store;
