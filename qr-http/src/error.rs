//! Every failure of a request mapped to its status and body in one place, and the server's own errors.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{ALLOW, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use hyper::{Response, StatusCode};
use qr_domain::access::AccessError;
use qr_domain::analytics::{AnalyticsError, QueryError};
use qr_domain::link::LinkError;
use qr_domain::service::{AdminError, AuthError};
use qr_domain::{Rejection, StoreError};
use qr_generate::batch::BatchError;
use qr_generate::params::GenerateError;
use serde::Serialize;
use thiserror::Error;

use crate::logo::LogoFetchError;
use crate::routes::Method;

/// Why the server could not start or stop cleanly.
#[derive(Debug, Error)]
pub enum ServerError {
    /// The database could not be opened.
    #[error(transparent)]
    Open(#[from] qr_sqlite::OpenError),
    /// The GeoIP database could not be opened.
    #[error(transparent)]
    Geo(#[from] qr_domain::geo::GeoError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Creating the owner account or key on first start failed.
    #[error("cannot create the owner account: {0}")]
    Bootstrap(#[from] AdminError),
    /// A configuration value is invalid.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The listen address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Another I/O failure (runtime, threads, signals).
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// A failed request. [`ApiError::into_response`] is the only place that turns failures into responses.
#[derive(Debug)]
pub(crate) enum ApiError {
    /// No key was sent.
    MissingKey,
    /// The key failed authentication.
    Auth(AuthError),
    /// The key's restrictions or the plan refuse the endpoint or a feature it uses.
    Access(AccessError),
    /// A rate limit or quota was hit.
    RateLimited(Rejection),
    /// A generate parameter is invalid or the code cannot be rendered.
    Generate(GenerateError),
    /// The batch request is invalid.
    Batch(BatchError),
    /// A link operation failed.
    Link(LinkError),
    /// The analytics parameters are invalid.
    AnalyticsQuery(QueryError),
    /// An analytics query failed.
    Analytics(AnalyticsError),
    /// The logo could not be fetched or decoded.
    Logo(LogoFetchError),
    /// Any other invalid input, with its message.
    BadRequest(String),
    /// The body is larger than the endpoint's limit (bytes).
    BodyTooLarge(usize),
    /// The body did not arrive in time.
    BodyTimeout,
    /// No such path.
    NotFound,
    /// The path exists but not with this method.
    MethodNotAllowed(&'static [Method]),
    /// The store failed.
    Store(StoreError),
    /// A bug or an unexpected failure; the detail is logged, not sent.
    Internal(String),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ErrorBody<'a> {
    error: bool,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after: Option<u64>,
}

impl ApiError {
    /// The status and the message of the error body.
    pub(crate) fn status_and_message(&self) -> (StatusCode, String) {
        use StatusCode as S;
        let text = |s: &str| s.to_owned();
        match self {
            ApiError::MissingKey => (S::UNAUTHORIZED, text("Invalid API key")),
            ApiError::Auth(AuthError::Store(e)) | ApiError::Store(e) => store_status(e),
            ApiError::Auth(_) => (S::UNAUTHORIZED, text("Invalid API key")),
            ApiError::Access(e) => (S::FORBIDDEN, e.to_string()),
            ApiError::RateLimited(_) => (S::TOO_MANY_REQUESTS, text("Rate limit exceeded")),
            ApiError::Generate(GenerateError::Encoding(_)) => {
                (S::INTERNAL_SERVER_ERROR, text("Internal server error"))
            }
            ApiError::Generate(e) => (S::BAD_REQUEST, e.to_string()),
            ApiError::Batch(BatchError::Archive(_)) => {
                (S::INTERNAL_SERVER_ERROR, text("Internal server error"))
            }
            ApiError::Batch(e) => (S::BAD_REQUEST, e.to_string()),
            ApiError::Link(e) => match e {
                LinkError::Name(e) => (S::BAD_REQUEST, format!("Invalid name: {e}")),
                LinkError::TargetUrl(e) => (S::BAD_REQUEST, format!("Invalid targetUrl: {e}")),
                LinkError::LimitReached { plan, limit } => (
                    S::FORBIDDEN,
                    format!(
                        "Link limit reached: the {plan} plan allows {limit} links; delete a link or upgrade the plan"
                    ),
                ),
                LinkError::NotFound => (S::NOT_FOUND, text("Link not found")),
                LinkError::Store(e) => store_status(e),
                LinkError::CodeSpace | LinkError::Random(_) => (
                    S::SERVICE_UNAVAILABLE,
                    text("Could not create the link; retry the request"),
                ),
            },
            ApiError::AnalyticsQuery(e) => (S::BAD_REQUEST, capitalize_invalid(e.to_string())),
            ApiError::Analytics(e) => match e {
                AnalyticsError::LinkNotFound => (S::NOT_FOUND, text("Link not found")),
                AnalyticsError::Store(e) => store_status(e),
            },
            ApiError::Logo(e) => (S::BAD_REQUEST, e.to_string()),
            ApiError::BadRequest(message) => (S::BAD_REQUEST, message.clone()),
            ApiError::BodyTooLarge(limit) => (
                S::PAYLOAD_TOO_LARGE,
                format!("Request body too large: at most {limit} bytes allowed"),
            ),
            ApiError::BodyTimeout => (
                S::REQUEST_TIMEOUT,
                text("Request body not received in time"),
            ),
            ApiError::NotFound => (S::NOT_FOUND, text("Not found")),
            ApiError::MethodNotAllowed(_) => (S::METHOD_NOT_ALLOWED, text("Method not allowed")),
            ApiError::Internal(_) => (S::INTERNAL_SERVER_ERROR, text("Internal server error")),
        }
    }

    /// The JSON error response, with `Retry-After` on 429 and 503 and `Allow` on 405.
    pub(crate) fn into_response(self) -> Response<Full<Bytes>> {
        let (status, message) = self.status_and_message();
        match &self {
            ApiError::Internal(detail) => tracing::error!(detail = %detail, "request failed"),
            _ if status.is_server_error() => tracing::error!(error = ?self, "request failed"),
            _ => {}
        }
        let retry_after = match &self {
            ApiError::RateLimited(r) => Some(r.retry_after_secs),
            _ if status == StatusCode::SERVICE_UNAVAILABLE && self.storage_unavailable() => {
                Some(STORAGE_RETRY_AFTER_SECS)
            }
            _ if status == StatusCode::SERVICE_UNAVAILABLE => Some(1),
            _ => None,
        };
        let body = ErrorBody {
            error: true,
            message: &message,
            retry_after: retry_after.filter(|_| status == StatusCode::TOO_MANY_REQUESTS),
        };
        let json = serde_json::to_vec(&body)
            .unwrap_or_else(|_| br#"{"error":true,"message":"Internal server error"}"#.to_vec());
        let mut response = Response::new(Full::new(Bytes::from(json)));
        *response.status_mut() = status;
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(secs) = retry_after {
            headers.insert(RETRY_AFTER, HeaderValue::from(secs));
        }
        if let ApiError::MethodNotAllowed(methods) = &self
            && let Ok(value) = HeaderValue::from_str(&crate::routes::allow_header(methods))
        {
            headers.insert(ALLOW, value);
        }
        response
    }
}

/// The `Retry-After` of a 503 caused by a full, read-only or failing disk: an operator has to act,
/// so clients should not hammer the server every second.
const STORAGE_RETRY_AFTER_SECS: u64 = 10;

impl ApiError {
    /// Whether the error is the storage refusing writes (full, read-only or failing disk).
    fn storage_unavailable(&self) -> bool {
        let store = match self {
            ApiError::Store(e)
            | ApiError::Auth(AuthError::Store(e))
            | ApiError::Link(LinkError::Store(e))
            | ApiError::Analytics(AnalyticsError::Store(e)) => e,
            _ => return false,
        };
        store.is_unavailable()
    }
}

fn store_status(e: &StoreError) -> (StatusCode, String) {
    let unavailable = |what: &str| {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("Storage unavailable ({what}): the request was not stored; retry later"),
        )
    };
    match e {
        StoreError::Busy => (
            StatusCode::SERVICE_UNAVAILABLE,
            "Service busy; retry the request".to_owned(),
        ),
        StoreError::Full => unavailable("disk full"),
        StoreError::ReadOnly => unavailable("read-only"),
        StoreError::Io(_) => unavailable("I/O error"),
        _ => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal server error".to_owned(),
        ),
    }
}

/// The domain's "invalid …" messages in the API's "Invalid …" style; parameter names keep their case.
fn capitalize_invalid(message: String) -> String {
    match message.strip_prefix("invalid ") {
        Some(rest) => format!("Invalid {rest}"),
        None => message,
    }
}

macro_rules! from_error {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        $(impl From<$ty> for ApiError {
            fn from(e: $ty) -> Self {
                ApiError::$variant(e)
            }
        })*
    };
}

from_error!(
    Auth(AuthError),
    Access(AccessError),
    RateLimited(Rejection),
    Generate(GenerateError),
    Batch(BatchError),
    Link(LinkError),
    AnalyticsQuery(QueryError),
    Analytics(AnalyticsError),
    Logo(LogoFetchError),
    Store(StoreError),
);
