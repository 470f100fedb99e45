//! The operator's endpoints beside the API: `GET /livez` (the process answers), `GET /readyz` (the database takes writes and the scan writer runs) and `GET /metrics` (on the main port only with the operator token; on `--metrics-listen` without one). No key, no quota, not in the route table.

use std::time::Duration;

use hyper::header::{AUTHORIZATION, CACHE_CONTROL, HeaderMap, HeaderValue};
use hyper::{Method, StatusCode};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::app::App;
use crate::error::ApiError;
use crate::metrics::{RouteId, Scrape};
use crate::respond::{HttpResponse, json, respond};

/// How long `/readyz` waits for the write transaction (SQLite waits up to 5 s for a lock held
/// by another process; a probe should answer well within a balancer's usual 5 s timeout).
const READY_TIMEOUT: Duration = Duration::from_secs(2);

/// The operator's paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpsRoute {
    /// `/livez`.
    Livez,
    /// `/readyz`.
    Readyz,
    /// `/metrics`.
    Metrics,
}

impl OpsRoute {
    /// The operator's path `path` is, if any.
    pub(crate) fn of(path: &str) -> Option<OpsRoute> {
        match path {
            "/livez" => Some(OpsRoute::Livez),
            "/readyz" => Some(OpsRoute::Readyz),
            "/metrics" => Some(OpsRoute::Metrics),
            _ => None,
        }
    }

    /// Its label in metrics and logs.
    pub(crate) fn route_id(self) -> RouteId {
        match self {
            OpsRoute::Livez => RouteId::LIVEZ,
            OpsRoute::Readyz => RouteId::READYZ,
            OpsRoute::Metrics => RouteId::METRICS,
        }
    }
}

/// The SHA-256 of the operator's metrics token: the token itself is not kept in memory.
#[derive(Clone)]
pub(crate) struct MetricsToken([u8; 32]);

impl MetricsToken {
    pub(crate) fn new(token: &str) -> Self {
        Self(Sha256::digest(token.as_bytes()).into())
    }

    /// Whether `Authorization: Bearer <token>` carries the token (compared in constant time).
    fn admits(&self, headers: &HeaderMap) -> bool {
        let presented = headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        presented.is_some_and(|token| {
            qr_domain::random::constant_time_eq(&Sha256::digest(token.as_bytes()), &self.0)
        })
    }
}

impl std::fmt::Debug for MetricsToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MetricsToken(..)")
    }
}

/// Where an operator's request arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Port {
    /// The public port: `/metrics` needs the token, and without one configured does not exist.
    Main,
    /// `--metrics-listen`: an address the operator keeps private.
    Metrics,
}

/// Answers an operator's request.
pub(crate) async fn handle(
    app: &App,
    route: OpsRoute,
    method: &Method,
    headers: &HeaderMap,
    port: Port,
) -> Result<HttpResponse, ApiError> {
    if route == OpsRoute::Metrics && port == Port::Main {
        match app.metrics_token() {
            None => return Err(ApiError::NotFound),
            Some(token) if !token.admits(headers) => return Err(ApiError::MetricsToken),
            Some(_) => {}
        }
    }
    if method != Method::GET && method != Method::HEAD {
        return Err(ApiError::OpsMethodNotAllowed);
    }
    let mut response = match route {
        OpsRoute::Livez => json(StatusCode::OK, &json!({"status": "alive"})),
        OpsRoute::Readyz => readyz(app).await,
        OpsRoute::Metrics => respond(
            StatusCode::OK,
            Some(prometheus_client::encoding::prometheus_text::CONTENT_TYPE),
            Scrape {
                metrics: app.metrics(),
                service: app.service().stats(),
                disk: app.disk_usage(),
                engine: app.engine(),
            }
            .render(),
        ),
    };
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

/// 200 `{"status":"ready"}`, or 503 `{"status":"unavailable","reason":…}`.
async fn readyz(app: &App) -> HttpResponse {
    let check = tokio::time::timeout(READY_TIMEOUT, app.blocking(|svc| svc.check_ready())).await;
    let reason = match check {
        Ok(Ok(Ok(()))) => return json(StatusCode::OK, &json!({"status": "ready"})),
        Ok(Ok(Err(not_ready))) => not_ready.to_string(),
        Ok(Err(e)) => e.status_and_message().1,
        Err(_) => format!(
            "the database did not take a write transaction within {} seconds",
            READY_TIMEOUT.as_secs()
        ),
    };
    tracing::warn!(reason = %reason, "not ready");
    json(
        StatusCode::SERVICE_UNAVAILABLE,
        &json!({"status": "unavailable", "reason": reason}),
    )
}
