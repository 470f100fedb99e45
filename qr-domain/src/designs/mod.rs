//! Saved designs: an account's named looks of codes (generate parameters and an uploaded logo), its default design, and how links name one.

#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;
pub mod design;
pub mod link_code;
pub mod look;
pub mod service;
pub mod store;
