//! The webhooks aggregate: registered endpoints, their events, and the outbox that carries those events until delivered, and their storage traits.

pub(crate) mod store;
pub mod webhook;
