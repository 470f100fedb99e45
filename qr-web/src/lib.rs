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
pub mod reference;
mod request;
mod response;

use std::sync::Arc;

use qr_domain::passkeys::PasskeyVerifier;
use qr_domain::sso::{IdentityProvider, IssuerAddresses, RedirectUri};
use qr_domain::{Clock, Service, Store};

pub use mail::{MailConfig, MailError, Outbox};
pub use request::WebRequest;
pub use response::WebResponse;

use response::Cookies;

/// What the dashboard needs to know about the server that mounts it.
#[derive(Debug, Clone)]
pub struct WebConfig {
    /// The public base URL (`https://…` makes cookies `Secure` with the `__Host-` prefix).
    pub base_url: String,
    /// The largest logo accepted, in bytes (the API's bound).
    pub max_logo_bytes: usize,
    /// The API reference page's content, from the server's OpenAPI document.
    pub api_reference: reference::ApiReference,
    /// Single sign-on's OpenID Connect client and the issuer hosts it may reach.
    pub sso: SsoClient,
    /// The WebAuthn relying party of the base URL (qr-passkey's in the server), or `None` when
    /// the base URL cannot be one (an IP address: browsers offer passkeys only on domain
    /// names); the pages then say so instead of offering passkeys.
    pub passkeys: Option<Arc<dyn PasskeyVerifier>>,
}

/// The OpenID Connect client single sign-on talks to providers through (qr-oidc's in the
/// server), and which issuer hosts workspaces' settings may name.
#[derive(Clone)]
pub struct SsoClient {
    /// The client.
    pub provider: Arc<dyn IdentityProvider>,
    /// Public issuers only (the default), or any (tests and private deployments).
    pub addresses: IssuerAddresses,
}

impl std::fmt::Debug for SsoClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoClient")
            .field("addresses", &self.addresses)
            .finish_non_exhaustive()
    }
}

/// The dashboard over a service `Service<S, C>`.
pub struct Web<S: Store, C: Clock> {
    service: Arc<Service<S, C>>,
    outbox: Outbox,
    base_url: String,
    cookies: Cookies,
    designer: Vec<designer::Field>,
    max_logo_bytes: usize,
    api_reference: reference::ApiReference,
    sso: SsoClient,
    /// `{base_url}/dashboard/login/sso/callback`, registered at every workspace's provider.
    sso_redirect: Option<RedirectUri>,
    passkeys: Option<Arc<dyn PasskeyVerifier>>,
}

impl<S: Store, C: Clock> Web<S, C> {
    /// The dashboard over `service`, sending mail through `outbox`.
    pub fn new(service: Arc<Service<S, C>>, config: WebConfig, outbox: Outbox) -> Self {
        let base_url = config.base_url.trim_end_matches('/').to_owned();
        let sso_redirect =
            RedirectUri::parse(&format!("{base_url}{}", pages::SSO_CALLBACK_PATH)).ok();
        Self {
            cookies: Cookies {
                secure: base_url.starts_with("https://"),
            },
            designer: designer::fields(),
            service,
            outbox,
            base_url,
            max_logo_bytes: config.max_logo_bytes,
            api_reference: config.api_reference,
            sso: config.sso,
            sso_redirect,
            passkeys: config.passkeys,
        }
    }

    /// Whether a path belongs to the dashboard: `/`, `/dashboard`, `/dashboard/…`, `/static/…`,
    /// `/favicon.ico` and the API reference (`/docs/api`).
    pub fn owns_path(path: &str) -> bool {
        path == "/"
            || path == "/favicon.ico"
            || path == pages::REFERENCE_PATH
            || path == "/dashboard"
            || path.starts_with("/dashboard/")
            || path.starts_with("/static/")
    }

    /// Whether a path's forms carry file uploads (the designer's logo, the Links page's import
    /// of another service's export), so the server reads them with its larger body bound.
    pub fn takes_uploads(path: &str) -> bool {
        path.starts_with("/dashboard/design") || path == "/dashboard/links/import"
    }

    /// Whether a path only serves compiled-in files, so the server may answer it without a
    /// blocking thread (nothing there touches the store).
    pub fn is_static(path: &str) -> bool {
        path.starts_with("/static/") || path == "/favicon.ico"
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
