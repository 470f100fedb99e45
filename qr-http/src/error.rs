//! Every failure of a request, the API's and the redirect's alike, mapped to its status and message in one place and rendered as JSON or as a page.

use hyper::StatusCode;
use hyper::header::{ALLOW, HeaderValue, RETRY_AFTER};
use qr_domain::accounts::access::AccessError;
use qr_domain::audit::query::{AuditError, AuditQueryError};
use qr_domain::designs::link_code::LinkCodeError;
use qr_domain::designs::service::DesignError;
use qr_domain::domains::service::DomainError;
use qr_domain::links::bulk::BulkError;
use qr_domain::links::link::LinkError;
use qr_domain::links::listing::ListQueryError;
use qr_domain::print::PrintError;
use qr_domain::scans::analytics::{AnalyticsError, QueryError};
use qr_domain::service::{AuthError, PasswordPrompt};
use qr_domain::webhooks::webhook::WebhookError;
use qr_domain::{Rejection, StoreError};
use qr_generate::batch::BatchError;
use qr_generate::{GenerateError, ImageError};
use serde::Serialize;

use crate::api::link_body::BodyError;
use crate::logo::LogoFetchError;
use crate::pages;
use crate::respond::{HttpResponse, respond};
use crate::routes::RouteSpec;

/// A failed request. [`ApiError::status_and_message`] is the only place that decides a failure's
/// status and message; [`ApiError::into_response`] renders it as the API's JSON error body and
/// [`ApiError::into_page`] as the page a person sees after scanning a code.
#[derive(Debug)]
pub(crate) enum ApiError {
    /// The key failed authentication (401), or failed once more from an address over its budget
    /// of failures (429).
    Auth(AuthError),
    /// The key's restrictions or the plan refuse the endpoint or a feature it uses.
    Access(AccessError),
    /// A rate limit or quota was hit.
    RateLimited(Rejection),
    /// A generate parameter is invalid or the code cannot be rendered.
    Generate(GenerateError),
    /// The batch request is invalid.
    Batch(BatchError),
    /// A link operation failed (and an unknown short code: "Link not found").
    Link(LinkError),
    /// The parameters of a link list are invalid.
    LinkList(ListQueryError),
    /// A bulk link request was refused as a whole.
    Bulk(BulkError),
    /// The short code belonged to a link that was deleted.
    LinkGone,
    /// The link is paused by its owner.
    LinkPaused,
    /// The link's validity has not begun.
    LinkNotYetActive,
    /// The link's validity has ended or it reached its scan cap, and it has no `expiredUrl`.
    LinkExpired,
    /// A wrong link password, or too many of them.
    LinkPassword(PasswordPrompt),
    /// The analytics parameters are invalid.
    AnalyticsQuery(QueryError),
    /// An analytics query failed.
    Analytics(AnalyticsError),
    /// The logo could not be fetched or decoded.
    Logo(LogoFetchError),
    /// A webhook operation failed.
    Webhook(WebhookError),
    /// A domain operation failed.
    Domain(DomainError),
    /// A design operation failed.
    Design(DesignError),
    /// The audit log's parameters are invalid.
    AuditQuery(AuditQueryError),
    /// The audit log could not be read (a key never may).
    Audit(AuditError),
    /// Any other invalid input, with its message.
    BadRequest(String),
    /// The body is larger than the endpoint's limit (bytes).
    BodyTooLarge(usize),
    /// The body did not arrive in time.
    BodyTimeout,
    /// No such path.
    NotFound,
    /// The path exists but not with this method.
    MethodNotAllowed(&'static RouteSpec),
    /// An operator's path (`/livez`, `/readyz`, `/metrics`) with a method other than GET or HEAD.
    OpsMethodNotAllowed,
    /// `/metrics` on the main port without the operator's token.
    MetricsToken,
    /// The account's export would exceed the download cap (bytes).
    ExportTooLarge(u64),
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
            ApiError::Auth(AuthError::Store(e)) | ApiError::Store(e) => store_status(e),
            // An address over its budget of failed keys is told to wait; the domain words both.
            ApiError::Auth(e @ AuthError::Throttled { .. }) => {
                (S::TOO_MANY_REQUESTS, e.to_string())
            }
            ApiError::Auth(e) => (S::UNAUTHORIZED, e.to_string()),
            ApiError::Access(e) => (S::FORBIDDEN, e.to_string()),
            ApiError::RateLimited(_) => (S::TOO_MANY_REQUESTS, text("Rate limit exceeded")),
            ApiError::Generate(GenerateError::Image(ImageError::Encoding(_))) => {
                (S::INTERNAL_SERVER_ERROR, text("Internal server error"))
            }
            ApiError::Generate(e @ GenerateError::Image(ImageError::Unreadable(_))) => {
                (S::UNPROCESSABLE_ENTITY, e.to_string())
            }
            ApiError::Generate(e) => (S::BAD_REQUEST, e.to_string()),
            ApiError::Batch(BatchError::Archive(_)) => {
                (S::INTERNAL_SERVER_ERROR, text("Internal server error"))
            }
            ApiError::Batch(e) => (S::BAD_REQUEST, e.to_string()),
            ApiError::Link(e) => match e {
                LinkError::Store(e) => store_status(e),
                LinkError::LimitReached { .. } | LinkError::PlanRequired { .. } => {
                    (S::FORBIDDEN, link_message(e))
                }
                LinkError::CodeTaken(_) => (S::CONFLICT, link_message(e)),
                LinkError::NotFound => (S::NOT_FOUND, link_message(e)),
                LinkError::NotPermitted(_) => (S::FORBIDDEN, link_message(e)),
                LinkError::Hash(_) => (S::INTERNAL_SERVER_ERROR, link_message(e)),
                LinkError::CodeSpace | LinkError::Random(_) => {
                    (S::SERVICE_UNAVAILABLE, link_message(e))
                }
                LinkError::Name(_)
                | LinkError::TargetUrl(_)
                | LinkError::Field(_)
                | LinkError::DesignNotFound => (S::BAD_REQUEST, link_message(e)),
            },
            ApiError::Design(e) => match e {
                DesignError::Name(_)
                | DesignError::NameRequired
                | DesignError::Look(_)
                | DesignError::Logo(_) => (S::BAD_REQUEST, e.to_string()),
                DesignError::LogoRequiresPlan(_) | DesignError::LimitReached => {
                    (S::FORBIDDEN, e.to_string())
                }
                DesignError::NotFound => (S::NOT_FOUND, e.to_string()),
                DesignError::InUse { .. } => (S::CONFLICT, e.to_string()),
                DesignError::Store(e) => store_status(e),
                DesignError::NotPermitted(_) => (S::FORBIDDEN, e.to_string()),
            },
            ApiError::AuditQuery(e) => (S::BAD_REQUEST, e.to_string()),
            ApiError::Audit(e) => match e {
                AuditError::NotPermitted(_) => (S::FORBIDDEN, e.to_string()),
                AuditError::Store(e) => store_status(e),
            },
            ApiError::LinkList(e) => (S::BAD_REQUEST, format!("Invalid {}: {}", e.param, e.rule)),
            ApiError::Bulk(e) => match e {
                BulkError::LinksRequired | BulkError::TooMany(_) | BulkError::InvalidKey => {
                    (S::BAD_REQUEST, e.to_string())
                }
                BulkError::PlanRequired(_) | BulkError::NotPermitted(_) => {
                    (S::FORBIDDEN, e.to_string())
                }
                BulkError::KeyReused => (S::UNPROCESSABLE_ENTITY, e.to_string()),
                // The key's account was deleted while the request ran.
                BulkError::AccountNotFound => (S::UNAUTHORIZED, text("Invalid API key")),
                BulkError::Store(e) => store_status(e),
                BulkError::Corrupt(_) => (S::INTERNAL_SERVER_ERROR, text("Internal server error")),
            },
            ApiError::LinkGone => (S::GONE, text("Link no longer active")),
            ApiError::LinkPaused => (S::NOT_FOUND, text("Link paused")),
            ApiError::LinkNotYetActive => (S::NOT_FOUND, text("Link not active yet")),
            ApiError::LinkExpired => (S::GONE, text("Link expired")),
            ApiError::LinkPassword(PasswordPrompt::Throttled(secs)) => (
                S::TOO_MANY_REQUESTS,
                format!("Too many wrong passwords; try again in {secs} seconds"),
            ),
            ApiError::LinkPassword(_) => (S::FORBIDDEN, text("The password is not correct")),
            ApiError::AnalyticsQuery(e) => (S::BAD_REQUEST, query_message(e)),
            ApiError::Analytics(e) => match e {
                AnalyticsError::LinkNotFound => (S::NOT_FOUND, text("Link not found")),
                AnalyticsError::Store(e) => store_status(e),
            },
            ApiError::Logo(e) => (S::BAD_REQUEST, e.to_string()),
            ApiError::Webhook(e) => match e {
                WebhookError::InvalidUrl(_)
                | WebhookError::NonPublicHost { .. }
                | WebhookError::InvalidEvents(_)
                | WebhookError::InvalidSecret => (S::BAD_REQUEST, e.to_string()),
                WebhookError::LimitReached(_) | WebhookError::NotPermitted(_) => {
                    (S::FORBIDDEN, e.to_string())
                }
                WebhookError::NotFound => (S::NOT_FOUND, e.to_string()),
                WebhookError::Store(e) => store_status(e),
                WebhookError::Random(_) => (
                    S::SERVICE_UNAVAILABLE,
                    text("Could not create the webhook; retry the request"),
                ),
            },
            ApiError::Domain(e) => match e {
                DomainError::Name(_)
                | DomainError::Url { .. }
                | DomainError::AppFile { .. }
                | DomainError::AppSchemes(_) => (S::BAD_REQUEST, e.to_string()),
                DomainError::LimitReached { .. } | DomainError::NotPermitted(_) => {
                    (S::FORBIDDEN, e.to_string())
                }
                DomainError::Taken(_) | DomainError::InUse { .. } => (S::CONFLICT, e.to_string()),
                DomainError::NotFound => (S::NOT_FOUND, e.to_string()),
                DomainError::DnsUnavailable => (S::SERVICE_UNAVAILABLE, e.to_string()),
                DomainError::Store(e) => store_status(e),
                DomainError::Random(_) => (
                    S::SERVICE_UNAVAILABLE,
                    text("Could not add the domain; retry the request"),
                ),
            },
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
            ApiError::MethodNotAllowed(_) | ApiError::OpsMethodNotAllowed => {
                (S::METHOD_NOT_ALLOWED, text("Method not allowed"))
            }
            ApiError::MetricsToken => (S::UNAUTHORIZED, text("Invalid metrics token")),
            ApiError::ExportTooLarge(cap) => (
                S::UNPROCESSABLE_ENTITY,
                qr_export::DownloadError::too_large_message(*cap),
            ),
            ApiError::Internal(_) => (S::INTERNAL_SERVER_ERROR, text("Internal server error")),
        }
    }

    /// The JSON error response, with `Retry-After` on 429 and 503 and `Allow` on 405.
    pub(crate) fn into_response(self) -> HttpResponse {
        let (status, message) = self.status_and_message();
        let body = ErrorBody {
            error: true,
            message: &message,
            retry_after: self
                .retry_after(status)
                .filter(|_| status == StatusCode::TOO_MANY_REQUESTS),
        };
        let json = serde_json::to_vec(&body)
            .unwrap_or_else(|_| br#"{"error":true,"message":"Internal server error"}"#.to_vec());
        self.finish(respond(status, Some("application/json"), json))
    }

    /// The same failure as the HTML page a person sees after scanning the code `code`: the
    /// password form again after a wrong password, else the page of the status (paused, not
    /// yet active and expired links have their own).
    pub(crate) fn into_page(self, code: &str) -> HttpResponse {
        let (status, message) = self.status_and_message();
        let page = match &self {
            ApiError::LinkPassword(_) => pages::password_form(status, code, Some(&message)),
            ApiError::LinkPaused => pages::page_of(pages::PageKind::Paused, status, code),
            ApiError::LinkNotYetActive => {
                pages::page_of(pages::PageKind::NotYetActive, status, code)
            }
            ApiError::LinkExpired => pages::page_of(pages::PageKind::Expired, status, code),
            _ => pages::page(status, code),
        };
        self.finish(page)
    }

    /// Logs server errors and adds `Retry-After` and `Allow` to either rendering.
    fn finish(self, mut response: HttpResponse) -> HttpResponse {
        let status = response.status();
        match &self {
            ApiError::Internal(detail) => tracing::error!(detail = %detail, "request failed"),
            _ if status.is_server_error() => tracing::error!(error = ?self, "request failed"),
            _ => {}
        }
        let headers = response.headers_mut();
        if let Some(secs) = self.retry_after(status) {
            headers.insert(RETRY_AFTER, HeaderValue::from(secs));
        }
        if let ApiError::MethodNotAllowed(spec) = &self
            && let Ok(value) = HeaderValue::from_str(&crate::routes::allow_header(spec))
        {
            headers.insert(ALLOW, value);
        }
        if let ApiError::OpsMethodNotAllowed = &self {
            headers.insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        }
        response
    }

    /// Seconds a client should wait: a 429's own figure, longer for storage an operator must fix.
    fn retry_after(&self, status: StatusCode) -> Option<u64> {
        match self {
            ApiError::RateLimited(r) => Some(r.retry_after_secs),
            ApiError::LinkPassword(PasswordPrompt::Throttled(secs)) => Some(*secs),
            ApiError::Auth(AuthError::Throttled { retry_after_secs }) => Some(*retry_after_secs),
            _ if status == StatusCode::SERVICE_UNAVAILABLE
                && matches!(self.store_error(), Some(StoreError::Unreachable(_))) =>
            {
                Some(UNREACHABLE_RETRY_AFTER_SECS)
            }
            _ if status == StatusCode::SERVICE_UNAVAILABLE && self.storage_unavailable() => {
                Some(STORAGE_RETRY_AFTER_SECS)
            }
            _ if status == StatusCode::SERVICE_UNAVAILABLE => Some(1),
            _ => None,
        }
    }
}

/// The API's message for a link failure, chosen by its variant (a storage failure's is
/// [`store_status`]'s).
pub(crate) fn link_message(e: &LinkError) -> String {
    match e {
        LinkError::Name(e) => format!("Invalid name: {e}"),
        LinkError::TargetUrl(e) => format!("Invalid targetUrl: {e}"),
        LinkError::Field(e) => format!("Invalid {}: {}", e.field, e.rule),
        LinkError::LimitReached { plan, limit } => limit_message(plan, *limit),
        LinkError::PlanRequired { .. } | LinkError::CodeTaken(_) => e.to_string(),
        LinkError::NotFound => "Link not found".to_owned(),
        LinkError::NotPermitted(e) => e.to_string(),
        LinkError::DesignNotFound => e.to_string(),
        LinkError::CodeSpace | LinkError::Random(_) => RETRY_CREATION.to_owned(),
        LinkError::Hash(_) => INTERNAL.to_owned(),
        LinkError::Store(e) => store_status(e).1,
    }
}

/// The API's message for a plan's full link limit.
pub(crate) fn limit_message(plan: &str, limit: u64) -> String {
    format!(
        "Link limit reached: the {plan} plan allows {limit} links; delete a link or upgrade the plan"
    )
}

/// The API's message when a link could not be created for a reason a retry may cure.
pub(crate) const RETRY_CREATION: &str = "Could not create the link; retry the request";

/// The API's message for a failure whose detail is only logged.
pub(crate) const INTERNAL: &str = "Internal server error";

/// The API's message for invalid analytics parameters, chosen by the variant.
fn query_message(e: &QueryError) -> String {
    match e {
        QueryError::InvalidStartDate(raw) => format!(
            "Invalid startDate {raw:?}: use YYYY-MM-DD or an ISO 8601 date-time such as 2024-05-01T00:00:00Z"
        ),
        QueryError::InvalidEndDate(raw) => format!(
            "Invalid endDate {raw:?}: use YYYY-MM-DD or an ISO 8601 date-time such as 2024-05-31T23:59:59Z"
        ),
        QueryError::InvalidLimit(raw) => {
            format!("Invalid limit {raw:?}: use a whole number from 1 to 1000")
        }
        QueryError::StartAfterEnd => e.to_string(),
    }
}

/// The `Retry-After` of a 503 caused by a full, read-only or failing disk: an operator has to act,
/// so clients should not hammer the server every second.
const STORAGE_RETRY_AFTER_SECS: u64 = 10;

/// The `Retry-After` of a 503 because the database server cannot be reached: a restart or a
/// fail-over takes seconds, and the request is worth repeating soon.
const UNREACHABLE_RETRY_AFTER_SECS: u64 = 2;

impl ApiError {
    /// The storage error behind this failure, if it is one.
    fn store_error(&self) -> Option<&StoreError> {
        match self {
            ApiError::Store(e)
            | ApiError::Auth(AuthError::Store(e))
            | ApiError::Link(LinkError::Store(e))
            | ApiError::Bulk(BulkError::Store(e))
            | ApiError::Analytics(AnalyticsError::Store(e)) => Some(e),
            _ => None,
        }
    }

    /// Whether the error is the storage refusing writes (full, read-only or failing disk, or
    /// an unreachable database server).
    fn storage_unavailable(&self) -> bool {
        self.store_error().is_some_and(StoreError::is_unavailable)
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
        StoreError::Unreachable(_) => unavailable("database unreachable"),
        _ => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal server error".to_owned(),
        ),
    }
}

/// A link body's JSON errors are bad requests; its rules' refusals are the link's.
impl From<BodyError> for ApiError {
    fn from(e: BodyError) -> Self {
        match e {
            BodyError::Link(e) => ApiError::Link(e),
            other => ApiError::BadRequest(other.to_string()),
        }
    }
}

/// A link's code fails as its link, its settings or the store fails; a stored logo that no
/// longer decodes is the server's fault (it was checked when stored).
impl From<LinkCodeError> for ApiError {
    fn from(e: LinkCodeError) -> Self {
        match e {
            LinkCodeError::Link(e) => ApiError::Link(e),
            LinkCodeError::Generate(e) => ApiError::Generate(e),
            LinkCodeError::Logo(e) => ApiError::Internal(e.to_string()),
            LinkCodeError::Store(e) => ApiError::Store(e),
        }
    }
}

/// A sheet fails as its plan (403), its links (404 for another account's), its request (400),
/// or the store; a code that passed its checks and still did not draw is the server's fault.
impl From<PrintError> for ApiError {
    fn from(e: PrintError) -> Self {
        match e {
            PrintError::Access(e) => ApiError::Access(e),
            PrintError::Request(e @ qr_generate::print::PrintError::Render(_)) => {
                ApiError::Internal(e.to_string())
            }
            PrintError::Request(e) => ApiError::BadRequest(e.to_string()),
            PrintError::Link(e) => ApiError::Link(e),
            PrintError::LinkCode(e) => e.into(),
            PrintError::Store(e) => ApiError::Store(e),
        }
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
    LinkList(ListQueryError),
    Bulk(BulkError),
    AnalyticsQuery(QueryError),
    Analytics(AnalyticsError),
    Logo(LogoFetchError),
    Webhook(WebhookError),
    Domain(DomainError),
    Design(DesignError),
    AuditQuery(AuditQueryError),
    Audit(AuditError),
    Store(StoreError),
);
