//! Integration tests that run the real `qr` binary.

mod admin;
mod batch;
mod common;
mod deploy;
mod generate;
mod json;
mod postgres;
mod server;
mod webhooks;
