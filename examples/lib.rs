//! Runnable examples live beside this file; run one with `cargo run -p qr-examples --example NAME`.

/// The library snippet of the workspace's `README.md`, compiled and run as a doctest so that it
/// stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct WorkspaceReadme;
