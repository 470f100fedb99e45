//! The links aggregate: dynamic links and their short codes, campaign settings and routing, listing, and bulk creation with idempotency keys.

pub mod bulk;
pub mod campaign;
pub mod link;
pub mod listing;
pub mod routing;
pub mod shortcode;
