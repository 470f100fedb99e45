//! The webhooks aggregate: registered endpoints, their events, and the outbox that carries those events until delivered; their storage traits; and the `Service` methods that manage endpoints and deliver events.

#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;
pub mod outbox;
pub(crate) mod service;
pub(crate) mod store;
pub mod webhook;
