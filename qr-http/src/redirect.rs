//! `GET|HEAD /r/<code>`: the public redirect, from memory when the link is cached, recording people's scans by group commit.

use std::net::SocketAddr;
use std::time::Duration;

use hyper::StatusCode;
use hyper::header::{CACHE_CONTROL, HeaderMap, HeaderValue, LOCATION, REFERER, USER_AGENT};
use qr_domain::geo::GeoHint;
use qr_domain::link::LinkError;
use qr_domain::service::{PreparedScan, Resolution, Visit};
use qr_domain::writer::{Queued, ScanAck};
use qr_domain::{ScanId, StoreError};
use tokio::sync::oneshot;

use crate::app::App;
use crate::bootstrap::AppService;
use crate::error::ApiError;
use crate::request::header_text;
use crate::respond::{HttpResponse, empty};
use crate::routes::Method;

/// How long a redirect waits for its scan to be committed before answering anyway.
const SCAN_ACK_TIMEOUT: Duration = Duration::from_secs(5);
/// Longest User-Agent kept for a scan, in bytes.
const MAX_USER_AGENT_BYTES: usize = 512;
/// Longest Referer kept for a scan, in bytes (longer ones are reduced to their origin later).
const MAX_REFERER_BYTES: usize = 4096;

/// The commit acknowledgement of a queued scan.
type AckReceiver = oneshot::Receiver<Result<Option<ScanId>, StoreError>>;

/// Where a code leads.
enum Resolved {
    /// A live link: its target, and the acknowledgement of the scan queued for this visit.
    Found {
        target: String,
        ack: Option<AckReceiver>,
    },
    /// A deleted link (410).
    Gone,
    /// A code that never named a link (404).
    Unknown,
}

/// 302 to the target (recording GET scans of people); an unknown, deleted or unreachable link is
/// an error that the pipeline renders as a page.
pub(crate) async fn handle(
    app: &App,
    code: &str,
    method: Method,
    headers: &HeaderMap,
    peer: SocketAddr,
) -> Result<HttpResponse, ApiError> {
    // Only a GET is a scan (a HEAD is a link checker); the domain decides which GETs count.
    let visit = (method == Method::Get).then(|| Visit {
        ip: app.client_ip(peer, headers),
        user_agent: header_text(headers, &USER_AGENT, MAX_USER_AGENT_BYTES),
        referer: header_text(headers, &REFERER, MAX_REFERER_BYTES),
        hint: GeoHint::default(),
    });
    let resolved = match resolve_in_memory(app.service(), code, visit) {
        Ok(found) => found,
        Err(visit) => {
            let owned = code.to_owned();
            app.blocking(move |svc| resolve_and_queue(svc, &owned, visit))
                .await??
        }
    };
    let (target, ack) = match resolved {
        Resolved::Found { target, ack } => (target, ack),
        Resolved::Gone => return Err(ApiError::LinkGone),
        Resolved::Unknown => return Err(ApiError::Link(LinkError::NotFound)),
    };
    if let Some(ack) = ack {
        // The visitor is redirected whatever happens to the scan; failures are logged.
        match tokio::time::timeout(SCAN_ACK_TIMEOUT, ack).await {
            Ok(Ok(Ok(_))) => {}
            Ok(Ok(Err(e))) => tracing::warn!(error = %e, "scan not recorded"),
            Ok(Err(_)) | Err(_) => tracing::warn!("scan not confirmed in time"),
        }
    }
    let location = HeaderValue::from_str(&target)
        .map_err(|_| ApiError::Internal(format!("target of {code} is not a header value")))?;
    let mut response = empty(StatusCode::FOUND);
    let h = response.headers_mut();
    h.insert(LOCATION, location);
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
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
/// person's GET, a scan prepared and queued without touching the store. Hands the visit back
/// when the store is needed (link not cached, first scan of the day, writer queue full).
fn resolve_in_memory(
    svc: &AppService,
    code: &str,
    visit: Option<Visit>,
) -> Result<Resolved, Option<Visit>> {
    let Some(link) = svc.cached_link(code) else {
        return Err(visit);
    };
    let ack = match visit {
        None => None,
        Some(visit) => match svc.prepare_scan_in_memory(&link, &visit) {
            None => return Err(Some(visit)),
            Some(PreparedScan::Skip(_)) => None,
            Some(PreparedScan::Record(scan)) => {
                let (ack, rx) = ack_channel();
                match svc.try_submit_scan(scan, ack) {
                    Ok(Queued::Yes) => Some(rx),
                    Ok(Queued::Full(..)) => return Err(Some(visit)),
                    Err(e) => {
                        tracing::warn!(error = %e, "scan not queued");
                        None
                    }
                }
            }
        },
    };
    Ok(Resolved::Found {
        target: link.target_url.to_string(),
        ack,
    })
}

/// Resolves a code and, for a person's GET, queues the scan; the receiver reports its commit.
fn resolve_and_queue(
    svc: &AppService,
    code: &str,
    visit: Option<Visit>,
) -> Result<Resolved, StoreError> {
    let link = match svc.resolve(code)? {
        Resolution::Live(link) => link,
        Resolution::Gone => return Ok(Resolved::Gone),
        Resolution::Unknown => return Ok(Resolved::Unknown),
    };
    let ack = match visit.map(|v| svc.prepare_scan(&link, &v)) {
        Some(Ok(PreparedScan::Record(scan))) => {
            let (ack, rx) = ack_channel();
            match svc.submit_scan(scan, ack) {
                Ok(()) => Some(rx),
                Err(e) => {
                    tracing::warn!(error = %e, "scan not queued");
                    None
                }
            }
        }
        Some(Err(e)) => {
            tracing::warn!(error = %e, "scan not prepared");
            None
        }
        Some(Ok(PreparedScan::Skip(_))) | None => None,
    };
    Ok(Resolved::Found {
        target: link.target_url.to_string(),
        ack,
    })
}
