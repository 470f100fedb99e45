//! `GET|HEAD|POST /r/<code>`: the public redirect, from memory when the link is cached, recording people's scans by group commit; links with campaign settings answer through the domain's `Landing` (paused, expired, password form, rules, variants).

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use hyper::StatusCode;
use hyper::body::Body;
use hyper::header::{
    ACCEPT_LANGUAGE, CACHE_CONTROL, HeaderMap, HeaderValue, LOCATION, REFERER, USER_AGENT,
};
use qr_domain::geo::GeoHint;
use qr_domain::link::LinkError;
use qr_domain::service::{Landing, Opening, PreparedScan, Resolution, Visit};
use qr_domain::writer::{Queued, ScanAck};
use qr_domain::{Link, ScanId, StoreError};
use tokio::sync::oneshot;

use crate::app::App;
use crate::bootstrap::AppService;
use crate::error::ApiError;
use crate::pages;
use crate::request::{header_text, read_body};
use crate::respond::{HttpResponse, empty};
use crate::routes::Method;

/// How long a redirect waits for its scan to be committed before answering anyway.
const SCAN_ACK_TIMEOUT: Duration = Duration::from_secs(5);
/// Longest User-Agent kept for a scan, in bytes.
const MAX_USER_AGENT_BYTES: usize = 512;
/// Longest Referer kept for a scan, in bytes (longer ones are reduced to their origin later).
const MAX_REFERER_BYTES: usize = 4096;
/// Longest `Accept-Language` read for rules, in bytes.
const MAX_ACCEPT_LANGUAGE_BYTES: usize = 256;
/// Largest password form body (a password has at most 128 characters, 512 bytes in UTF-8,
/// three times that percent-encoded).
const MAX_FORM_BODY_BYTES: usize = 4096;

/// The commit acknowledgement of a queued scan.
type AckReceiver = oneshot::Receiver<Result<Option<ScanId>, StoreError>>;

/// Where a code leads.
enum Resolved {
    /// A redirect: its target, and the acknowledgement of the scan queued for this visit.
    Found {
        target: String,
        ack: Option<AckReceiver>,
    },
    /// A deleted link (410).
    Gone,
    /// A code that never named a link (404).
    Unknown,
    /// A link with campaign settings that answers something else than a redirect.
    Other(Landing),
}

/// A visit as the request brings it.
struct Request<'a> {
    code: &'a str,
    method: Method,
    headers: &'a HeaderMap,
    query: Option<&'a str>,
    peer: SocketAddr,
}

/// 302 to the target (recording GET scans of people; a POST, the password form's, gets 303); an
/// unknown, deleted, paused, expired or unreachable link is an error that the pipeline renders as
/// a page.
pub(crate) async fn handle<B>(
    app: &App,
    code: &str,
    method: Method,
    headers: &HeaderMap,
    query: Option<&str>,
    body: B,
    peer: SocketAddr,
) -> Result<HttpResponse, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let request = Request {
        code,
        method,
        headers,
        query,
        peer,
    };
    let password = if method == Method::Post {
        let limits = app.limits();
        let body = read_body(body, MAX_FORM_BODY_BYTES, limits.body_read_timeout).await?;
        Some(form_password(&body))
    } else {
        None
    };
    let resolved = match password {
        Some(_) => None,
        None => resolve_in_memory(app, &request),
    };
    let resolved = match resolved {
        Some(found) => found,
        None => {
            let owned = code.to_owned();
            let opening = opening(app, &request, password);
            let visit = (method == Method::Get).then(|| visit(app, &request));
            app.blocking(move |svc| resolve_and_queue(svc, &owned, visit, opening))
                .await??
        }
    };
    let (target, ack) = match resolved {
        Resolved::Found { target, ack } => (target, ack),
        Resolved::Gone => return Err(ApiError::LinkGone),
        Resolved::Unknown => return Err(ApiError::Link(LinkError::NotFound)),
        Resolved::Other(landing) => return answer(code, landing),
    };
    if let Some(ack) = ack {
        // The visitor is redirected whatever happens to the scan; failures are logged.
        match tokio::time::timeout(SCAN_ACK_TIMEOUT, ack).await {
            Ok(Ok(Ok(_))) => {}
            Ok(Ok(Err(e))) => tracing::warn!(error = %e, "scan not recorded"),
            Ok(Err(_)) | Err(_) => tracing::warn!("scan not confirmed in time"),
        }
    }
    let status = if method == Method::Post {
        StatusCode::SEE_OTHER
    } else {
        StatusCode::FOUND
    };
    redirect_to(status, code, &target)
}

/// A redirect response.
fn redirect_to(status: StatusCode, code: &str, target: &str) -> Result<HttpResponse, ApiError> {
    let location = HeaderValue::from_str(target)
        .map_err(|_| ApiError::Internal(format!("target of {code} is not a header value")))?;
    let mut response = empty(status);
    let h = response.headers_mut();
    h.insert(LOCATION, location);
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

/// The answer of a campaign link that does not redirect to a target.
fn answer(code: &str, landing: Landing) -> Result<HttpResponse, ApiError> {
    match landing {
        Landing::Paused => Err(ApiError::LinkPaused),
        Landing::NotYetActive => Err(ApiError::LinkNotYetActive),
        Landing::Expired {
            expired_url: Some(url),
        } => redirect_to(StatusCode::FOUND, code, &url),
        Landing::Expired { expired_url: None } => Err(ApiError::LinkExpired),
        Landing::Password(qr_domain::service::PasswordPrompt::Ask) => {
            Ok(pages::password_form(StatusCode::OK, code, None))
        }
        Landing::Password(prompt) => Err(ApiError::LinkPassword(prompt)),
        // Redirects are answered by the caller.
        Landing::Redirect { target, .. } => redirect_to(StatusCode::FOUND, code, &target),
    }
}

/// The `password` field of a form body (`application/x-www-form-urlencoded`); empty when absent.
fn form_password(body: &[u8]) -> String {
    url::form_urlencoded::parse(body)
        .find(|(k, _)| k == "password")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

fn visit(app: &App, r: &Request<'_>) -> Visit {
    Visit {
        ip: app.client_ip(r.peer, r.headers),
        user_agent: header_text(r.headers, &USER_AGENT, MAX_USER_AGENT_BYTES),
        referer: header_text(r.headers, &REFERER, MAX_REFERER_BYTES),
        hint: GeoHint::default(),
    }
}

/// What the domain needs to answer a visit to a link with campaign settings.
fn opening(app: &App, r: &Request<'_>, password: Option<String>) -> Opening {
    Opening {
        visit: visit(app, r),
        // A HEAD is a link checker; a GET or the form's POST is a person.
        record: r.method != Method::Head,
        accept_language: header_text(r.headers, &ACCEPT_LANGUAGE, MAX_ACCEPT_LANGUAGE_BYTES),
        query: r.query.map(str::to_owned),
        password,
    }
}

/// A oneshot pair whose sender is the writer's acknowledgement callback.
fn ack_channel() -> (ScanAck, AckReceiver) {
    let (tx, rx) = oneshot::channel();
    let ack: ScanAck = Box::new(move |result| {
        // The receiver is gone only if the request was abandoned.
        let _ = tx.send(result);
    });
    (ack, rx)
}

/// The redirect fast path, run on the async worker: a link cached by an earlier redirect and, for a
/// person's GET, a scan prepared and queued without touching the store. `None` when the store
/// is needed (link not cached, first scan of the day, writer queue full).
fn resolve_in_memory(app: &App, r: &Request<'_>) -> Option<Resolved> {
    let svc = app.service();
    let link = svc.cached_link(r.code)?;
    if link.options.get().is_some() {
        let landing = svc.open_in_memory(&link, &opening(app, r, None))?;
        return queue_landing(svc, landing, true);
    }
    let ack = match (r.method == Method::Get).then(|| visit(app, r)) {
        None => None,
        Some(visit) => match svc.prepare_scan_in_memory(&link, &visit)? {
            PreparedScan::Skip(_) => None,
            scan => queue(svc, scan, true)?,
        },
    };
    Some(Resolved::Found {
        target: link.target_url.to_string(),
        ack,
    })
}

/// A campaign link's answer, its scan queued; `None` when the writer's queue is full on the
/// async thread (the caller retries on the blocking pool, where it may wait).
fn queue_landing(svc: &AppService, landing: Landing, in_memory: bool) -> Option<Resolved> {
    match landing {
        Landing::Redirect { target, scan } => {
            let ack = match scan {
                Some(scan) => queue(svc, scan, in_memory)?,
                None => None,
            };
            Some(Resolved::Found { target, ack })
        }
        other => Some(Resolved::Other(other)),
    }
}

/// Queues a prepared scan; the receiver reports its commit. `None` when the queue is full and
/// `in_memory` (an async thread must not wait for room).
fn queue(svc: &AppService, scan: PreparedScan, in_memory: bool) -> Option<Option<AckReceiver>> {
    let PreparedScan::Record(scan) = scan else {
        return Some(None);
    };
    let (ack, rx) = ack_channel();
    let queued = if in_memory {
        match svc.try_submit_scan(scan, ack) {
            Ok(Queued::Yes) => Ok(()),
            Ok(Queued::Full(..)) => return None,
            Err(e) => Err(e),
        }
    } else {
        svc.submit_scan(scan, ack)
    };
    Some(match queued {
        Ok(()) => Some(rx),
        Err(e) => {
            tracing::warn!(error = %e, "scan not queued");
            None
        }
    })
}

/// Resolves a code and answers the visit (a person's GET queues the scan; the receiver reports
/// its commit).
fn resolve_and_queue(
    svc: &AppService,
    code: &str,
    visit: Option<Visit>,
    opening: Opening,
) -> Result<Resolved, StoreError> {
    let link: Link = match svc.resolve(code)? {
        Resolution::Live(link) => link,
        Resolution::Gone => return Ok(Resolved::Gone),
        Resolution::Unknown => return Ok(Resolved::Unknown),
    };
    if link.options.get().is_some() || opening.password.is_some() {
        return Ok(match svc.open(&link, &opening) {
            Ok(landing) => queue_landing(svc, landing, false).unwrap_or(Resolved::Unknown),
            Err(e) => {
                tracing::warn!(error = %e, "scan not prepared");
                Resolved::Found {
                    target: link.target_url.to_string(),
                    ack: None,
                }
            }
        });
    }
    let ack = match visit.map(|v| svc.prepare_scan(&link, &v)) {
        Some(Ok(scan)) => queue(svc, scan, false).flatten(),
        Some(Err(e)) => {
            tracing::warn!(error = %e, "scan not prepared");
            None
        }
        None => None,
    };
    Ok(Resolved::Found {
        target: link.target_url.to_string(),
        ack,
    })
}
