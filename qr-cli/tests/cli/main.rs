//! Integration tests that run the real `qr` binary.

mod admin;
mod batch;
mod campaign;
mod common;
mod content;
mod deploy;
mod designs;
mod domains;
mod export;
mod foreign_import;
mod generate;
mod geoip;
mod import;
mod json;
mod members;
mod ops;
mod postgres;
mod print;
mod server;
mod webhooks;
