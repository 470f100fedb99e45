//! The server's integration tests in one binary (each binary links the whole server): the server as a whole (`server`), connection slots, hardening against hostile input, and the operator's probes and metrics, one module each.

// The helpers every binary shares; each binary uses a part of them.
#[path = "../common/mod.rs"]
mod common;

mod connections;
mod hardening;
mod ops;
mod server;
mod tls_domains;
