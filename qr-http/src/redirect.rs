//! `GET|HEAD|POST /r/<code>`: the public redirect. The domain's visit use case answers it (from memory on the async worker when it can, else on the blocking pool); this file reads the request, waits for the scan's commit and renders the redirect or the page.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use hyper::StatusCode;
use hyper::body::Body;
use hyper::header::{
    ACCEPT_LANGUAGE, CACHE_CONTROL, HeaderMap, HeaderValue, LOCATION, REFERER, USER_AGENT,
};
use qr_domain::StoreError;
use qr_domain::domains::domain::Domain;
use qr_domain::links::link::LinkError;
use qr_domain::scans::geo::GeoHint;
use qr_domain::scans::scan::ScanFate;
use qr_domain::scans::writer::ScanAck;
use qr_domain::service::{
    InMemoryVisit, Opening, PageKind, PasswordPrompt, PendingScan, Recording, Visit, VisitFacts,
    VisitOutcome,
};
use tokio::sync::oneshot;

use crate::app::App;
use crate::domain_site;
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
type AckReceiver = oneshot::Receiver<Result<ScanFate, StoreError>>;

/// A visit as the request brings it; the domain copies what it needs of the headers.
struct Request<'a> {
    app: &'a App,
    method: Method,
    headers: &'a HeaderMap,
    query: Option<&'a str>,
    peer: SocketAddr,
    /// The password of the form's POST.
    password: Option<String>,
}

/// 302 to the target (recording GET scans of people; a POST, the password form's, gets 303); an
/// unknown, deleted, paused, expired or unreachable link is an error that the pipeline renders as
/// a page. `site` is the customer's domain the request arrived on (`None`: the service's own
/// address): the code is looked up there only, and an unknown one is its orphan visit.
#[allow(clippy::too_many_arguments)] // The request's parts, each typed; a struct would only rename them.
pub(crate) async fn handle<B>(
    app: &App,
    site: Option<&Domain>,
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
    let password = if method == Method::Post {
        let limits = app.limits();
        let body = read_body(body, MAX_FORM_BODY_BYTES, limits.body_read_timeout).await?;
        Some(form_password(&body))
    } else {
        None
    };
    let request = Request {
        app,
        method,
        headers,
        query,
        peer,
        password,
    };
    let domain = site.map(|d| &d.name);
    let outcome = match app
        .service()
        .visit_in_memory(domain, code, &request, ack_channel)
    {
        InMemoryVisit::Ready(outcome) => outcome,
        InMemoryVisit::NeedsStore => {
            let owned = code.to_owned();
            let opening = request.opening().into_owned();
            let domain = domain.cloned();
            app.blocking(move |svc| svc.visit(domain.as_ref(), &owned, &opening, ack_channel))
                .await??
        }
    };
    let status = if method == Method::Post {
        StatusCode::SEE_OTHER
    } else {
        StatusCode::FOUND
    };
    // A redirect waits for its scan's commit; a capped link's scan the store refused (its cap
    // reached through other servers) turns the visit into the link's expired answer.
    let outcome = match outcome {
        VisitOutcome::Redirect {
            target,
            scan,
            capped,
        } => {
            let fate = await_commit(app, scan).await;
            match capped.filter(|_| fate == Some(ScanFate::OverCap)) {
                Some(capped) => capped.outcome(),
                None => return redirect_to(status, code, &target),
            }
        }
        settled => settled,
    };
    match outcome {
        VisitOutcome::Redirect { target, .. } => redirect_to(status, code, &target),
        // A form's POST is sent on with 303 as a redirect to the target is: the browser GETs it.
        VisitOutcome::ExpiredUrl(url) => redirect_to(status, code, &url),
        // The form asked for the first time is a page, not a failure.
        VisitOutcome::Page(kind @ PageKind::Password(PasswordPrompt::Ask)) => {
            Ok(pages::page_of(kind, StatusCode::OK, code))
        }
        VisitOutcome::Page(PageKind::Unknown | PageKind::Gone) if let Some(site) = site => {
            domain_site::unknown_code(app, site, code, method, request.visit().into_owned()).await
        }
        VisitOutcome::Page(kind) => Err(page_error(kind)),
    }
}

/// Queues a scan that found the writer's queue full as soon as the writer frees room: the
/// redirect waits (the database is slower than the traffic: redirects slow down, no scan is
/// dropped), holding no thread and no store permit, so API requests and redirects that record
/// nothing go on being answered. The wait is bounded by the server's connection limit (each
/// waiting visit is one connection) and by the client, who may leave; a scan whose visitor left
/// was never acknowledged.
async fn wait_for_room(
    app: &App,
    mut pending: PendingScan<AckReceiver>,
) -> Result<AckReceiver, StoreError> {
    let waiter = app.scan_queue_room().wait();
    loop {
        let room = waiter.notified();
        tokio::pin!(room);
        // Registered before retrying, so room freed between the retry and the wait still wakes it.
        room.as_mut().enable();
        match app.service().retry_queue(pending) {
            Ok(queued) => return queued,
            Err(still) => pending = still,
        }
        room.await;
    }
}

/// Waits for room in a full queue (see [`wait_for_room`]), then up to [`SCAN_ACK_TIMEOUT`] for
/// the scan's commit, and says what became of the scan when the writer answered: the visitor is
/// redirected whatever happens to the scan (but a capped link's refused scan), so failures are
/// logged. A scan not committed in time stays queued and is committed later.
async fn await_commit(app: &App, scan: Recording<AckReceiver>) -> Option<ScanFate> {
    let ack = match scan {
        Recording::Queued(ack) => ack,
        Recording::WaitingForRoom(pending) => match wait_for_room(app, pending).await {
            Ok(ack) => ack,
            Err(e) => {
                tracing::warn!(error = %e, "scan not queued");
                return None;
            }
        },
        Recording::Nothing => return None,
        Recording::NotPrepared(e) => {
            tracing::warn!(error = %e, "scan not prepared");
            return None;
        }
        Recording::NotQueued(e) => {
            tracing::warn!(error = %e, "scan not queued");
            return None;
        }
    };
    match tokio::time::timeout(SCAN_ACK_TIMEOUT, ack).await {
        Ok(Ok(Ok(fate))) => return Some(fate),
        Ok(Ok(Err(e))) => tracing::warn!(error = %e, "scan not recorded"),
        Ok(Err(_)) | Err(_) => tracing::warn!("scan not confirmed in time"),
    }
    None
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

/// The failure a page stands for: its status and message are decided with every other
/// failure's, and the pipeline renders it as the page of the code.
fn page_error(kind: PageKind) -> ApiError {
    match kind {
        PageKind::Unknown => ApiError::Link(LinkError::NotFound),
        PageKind::Gone => ApiError::LinkGone,
        PageKind::Paused => ApiError::LinkPaused,
        PageKind::NotYetActive => ApiError::LinkNotYetActive,
        PageKind::Expired => ApiError::LinkExpired,
        PageKind::Password(prompt) => ApiError::LinkPassword(prompt),
    }
}

/// The `password` field of a form body (`application/x-www-form-urlencoded`); empty when absent.
fn form_password(body: &[u8]) -> String {
    url::form_urlencoded::parse(body)
        .find(|(k, _)| k == "password")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

impl VisitFacts for Request<'_> {
    fn records(&self) -> bool {
        // A HEAD is a link checker; a GET or the form's POST is a person.
        self.method != Method::Head
    }

    fn sends_password(&self) -> bool {
        self.password.is_some()
    }

    fn visit(&self) -> Cow<'_, Visit> {
        Cow::Owned(Visit {
            ip: self.app.client_ip(self.peer, self.headers),
            user_agent: header_text(self.headers, &USER_AGENT, MAX_USER_AGENT_BYTES),
            referer: header_text(self.headers, &REFERER, MAX_REFERER_BYTES),
            hint: GeoHint::default(),
        })
    }

    fn opening(&self) -> Cow<'_, Opening> {
        Cow::Owned(Opening {
            visit: self.visit().into_owned(),
            record: self.records(),
            accept_language: header_text(self.headers, &ACCEPT_LANGUAGE, MAX_ACCEPT_LANGUAGE_BYTES),
            query: self.query.map(str::to_owned),
            password: self.password.clone(),
        })
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
