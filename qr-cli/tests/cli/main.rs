//! Integration tests that run the real `qr` binary.

mod admin;
mod batch;
mod common;
mod deploy;
mod generate;
mod json;
mod ops;
mod postgres;
mod server;
