//! The HTTP API of the QR platform on hyper 1.x: every endpoint of the service specification, hardened.
//!
//! A request is parsed into a typed route ([`routes`]), then goes through the
//! fixed pipeline of [`App::handle`]: authentication (401), key restrictions
//! and plan features (403), rate limits (429), and only then the request's own
//! validation (400) and the operation. Every failure becomes a response in one
//! place, `error::ApiError::into_response`. [`start`] and [`run`] add the
//! network side: HTTP/1.1 and cleartext HTTP/2, timeouts, limits, and a
//! graceful shutdown that flushes counters and scans.
//!
//! ```no_run
//! let config = qr_http::ServerConfig::default();
//! qr_http::run(config)?;
//! # Ok::<(), qr_http::ServerError>(())
//! ```
#![forbid(unsafe_code)]

mod api;
mod app;
mod body;
mod bootstrap;
mod client_ip;
mod config;
mod connection;
mod domain_site;
mod error;
mod geoip;
mod logo;
mod metrics;
mod op;
pub mod openapi;
mod ops;
mod pages;
mod pipeline;
mod redirect;
mod request;
mod request_id;
mod respond;
pub mod routes;
mod server;
mod web;
mod webhook_worker;

pub use api::link_body::{BodyError, CAMPAIGN_FIELDS, Shape, bulk_data, bulk_item, campaign_field};
pub use app::{App, SharedClock};
pub use body::ResponseBody;
pub use bootstrap::{AppService, AppWeb, FirstStart, ServerError};
pub use config::{
    DEFAULT_MAIL_FROM, DomainsConfig, Limits, LogFormat, OperatorToken, ServerConfig, WebhookConfig,
};
pub use server::{ServerHandle, run, start, start_with};
pub use webhook_worker::SIGNATURE_HEADER;
