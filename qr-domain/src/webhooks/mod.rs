//! The webhooks aggregate: registered endpoints, their events, and the outbox that carries those events until delivered.

pub mod webhook;
