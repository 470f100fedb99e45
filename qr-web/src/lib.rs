//! The customer dashboard: server-rendered pages for sign-up, login, keys, links, analytics, a QR designer, the account and administration, every rule decided by `qr_domain::Service`.
//!
//! The crate is an adapter like the HTTP API and the CLI: it parses forms, calls the service and
//! renders askama templates (compile-time checked, HTML-escaped by default). It knows no HTTP
//! server and no storage engine: the server that mounts it (qr-http) reads a bounded body, passes
//! a [`WebRequest`] with the client address to [`Web::handle`] on a blocking thread, and writes
//! the [`WebResponse`]. Pages work without JavaScript; one small script adds a copy button and the
//! designer's live preview. Every page carries a strict Content-Security-Policy (no inline script
//! or style); every state-changing form carries a CSRF token bound to the session (or, before
//! login, to a form cookie); nothing changes on GET.
#![forbid(unsafe_code)]

mod assets;
mod charts;
mod designer;
mod mail;
mod pages;
mod request;
mod response;

use std::sync::Arc;

use qr_domain::{Clock, Service, Store};

pub use mail::{MailConfig, MailError, Outbox};
pub use request::WebRequest;
pub use response::WebResponse;

use response::Cookies;

/// Largest body of the dashboard's forms, in bytes: every field of every form fits many times.
pub const MAX_FORM_BODY_BYTES: usize = 64 * 1024;
/// Largest body of the designer's forms, which carry a logo upload: the API's 1 MiB logo plus
/// the other fields and the multipart framing.
pub const MAX_UPLOAD_BODY_BYTES: usize = 2 * 1024 * 1024;

/// What the dashboard needs to know about the server that mounts it.
#[derive(Debug, Clone)]
pub struct WebConfig {
    /// The public base URL (`https://…` makes cookies `Secure` with the `__Host-` prefix).
    pub base_url: String,
    /// The API's generate parameters as its OpenAPI document lists them: the designer's fields.
    pub generate_parameters: Vec<serde_json::Value>,
    /// The largest logo accepted, in bytes (the API's bound).
    pub max_logo_bytes: usize,
}

/// The dashboard over a service `Service<S, C>`.
pub struct Web<S: Store, C: Clock> {
    service: Arc<Service<S, C>>,
    outbox: Outbox,
    base_url: String,
    cookies: Cookies,
    designer: Vec<designer::Field>,
    max_logo_bytes: usize,
}

impl<S: Store, C: Clock> Web<S, C> {
    /// The dashboard over `service`, sending mail through `outbox`.
    pub fn new(service: Arc<Service<S, C>>, config: WebConfig, outbox: Outbox) -> Self {
        let base_url = config.base_url.trim_end_matches('/').to_owned();
        Self {
            cookies: Cookies {
                secure: base_url.starts_with("https://"),
            },
            designer: designer::fields(&config.generate_parameters),
            service,
            outbox,
            base_url,
            max_logo_bytes: config.max_logo_bytes,
        }
    }

    /// Whether a path belongs to the dashboard: `/`, `/dashboard`, `/dashboard/…` and `/static/…`.
    pub fn owns_path(path: &str) -> bool {
        path == "/"
            || path == "/dashboard"
            || path.starts_with("/dashboard/")
            || path.starts_with("/static/")
    }

    /// The body bound of a path's forms: the designer's take a logo upload.
    pub fn max_body_bytes(path: &str) -> usize {
        if path.starts_with("/dashboard/design") {
            MAX_UPLOAD_BODY_BYTES
        } else {
            MAX_FORM_BODY_BYTES
        }
    }

    /// Answers one request. Runs the service's blocking work (store access, password hashing):
    /// call it off the async threads.
    pub fn handle(&self, request: &WebRequest) -> WebResponse {
        pages::handle(self, request)
    }

    /// The page shown for a failure the server decided before the dashboard saw the request (a
    /// body too large or too slow), with the server's status and message.
    pub fn failure_page(status: http::StatusCode, message: &str) -> WebResponse {
        pages::failure_page(status, message)
    }
}

impl<S: Store, C: Clock> std::fmt::Debug for Web<S, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Web")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}
