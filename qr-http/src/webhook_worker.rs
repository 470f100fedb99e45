//! The webhook deliverer: a task that claims due deliveries from the service, POSTs each signed body to its endpoint (public addresses only, checked before connecting as the logo fetcher checks them, unless the operator allows private ones), within a timeout and a response size cap, and reports each outcome.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::header::{CONTENT_TYPE, HOST, USER_AGENT};
use hyper_util::rt::TokioIo;
use qr_domain::service::Delivery;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_rustls::TlsConnector;
use url::Url;

use crate::app::App;
use crate::config::WebhookConfig;
use crate::logo::{self, LogoFetchError};

/// Most deliveries claimed (and sent at once) per round.
const MAX_PER_ROUND: usize = 64;
/// How often the outbox is polled when the last round found nothing due.
const IDLE_POLL: Duration = Duration::from_millis(500);

/// The header carrying the signature.
pub const SIGNATURE_HEADER: &str = "Qr-Signature";

/// Sends deliveries over HTTP.
struct Sender {
    config: WebhookConfig,
    tls: TlsConnector,
}

/// Runs the deliverer until the server stops: rows being delivered then stay leased and are
/// delivered again after the lease (by this server's next start or another server), so none is
/// lost.
pub(crate) async fn run(app: App, config: WebhookConfig, mut stopped: watch::Receiver<bool>) {
    let sender = match logo::tls_connector() {
        Ok(tls) => Arc::new(Sender { config, tls }),
        Err(e) => {
            tracing::error!(error = %e, "webhook deliveries cannot start");
            return;
        }
    };
    loop {
        if *stopped.borrow() {
            return;
        }
        let claimed = app
            .blocking(|svc| svc.claim_webhook_deliveries(MAX_PER_ROUND))
            .await;
        let deliveries = match claimed {
            Ok(Ok(deliveries)) => deliveries,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "cannot read the webhook outbox");
                Vec::new()
            }
            Err(e) => {
                tracing::warn!(error = ?e, "cannot read the webhook outbox");
                Vec::new()
            }
        };
        if deliveries.is_empty() {
            tokio::select! {
                _ = stopped.changed() => return,
                () = tokio::time::sleep(IDLE_POLL) => {}
            }
            continue;
        }
        let mut sending = JoinSet::new();
        for delivery in deliveries {
            let sender = Arc::clone(&sender);
            sending.spawn(async move {
                let outcome = sender.send(&delivery).await;
                (delivery, outcome)
            });
        }
        while let Some(done) = sending.join_next().await {
            let Ok((delivery, outcome)) = done else {
                continue;
            };
            match &outcome {
                Ok(()) => {
                    tracing::debug!(webhook = %delivery.webhook_id, events = delivery.events.len(), "webhook delivered")
                }
                Err(e) => {
                    tracing::warn!(webhook = %delivery.webhook_id, events = delivery.events.len(), error = %e, "webhook delivery failed; it will be retried")
                }
            }
            let finished = app
                .blocking(move |svc| svc.finish_webhook_delivery(&delivery, outcome))
                .await;
            if !matches!(finished, Ok(Ok(()))) {
                tracing::warn!("cannot record a webhook delivery's outcome; it will be sent again");
            }
        }
    }
}

impl Sender {
    /// One POST within the timeout: `Ok` on a 2xx answer, else why not.
    async fn send(&self, delivery: &Delivery) -> Result<(), String> {
        let timeout = self.config.timeout;
        match tokio::time::timeout(timeout, self.post(delivery)).await {
            Ok(result) => result,
            Err(_) => Err(format!("no answer within {} ms", timeout.as_millis())),
        }
    }

    async fn post(&self, delivery: &Delivery) -> Result<(), String> {
        let url = Url::parse(delivery.url.as_str()).map_err(|e| format!("invalid URL: {e}"))?;
        let addrs = logo::resolve(&url, self.config.allow_private)
            .await
            .map_err(|e| match e {
                LogoFetchError::Forbidden(host) => format!("host {host} is not a public address"),
                LogoFetchError::Resolve(host) => format!("host {host} could not be resolved"),
                _ => "invalid URL".to_owned(),
            })?;
        let tcp = connect(&addrs).await?;
        if url.scheme() == "https" {
            let name = logo::server_name(&url).map_err(|_| "invalid URL".to_owned())?;
            let tls = self
                .tls
                .connect(name, tcp)
                .await
                .map_err(|e| format!("TLS: {e}"))?;
            self.exchange(tls, &url, delivery).await
        } else {
            self.exchange(tcp, &url, delivery).await
        }
    }

    async fn exchange<S>(&self, stream: S, url: &Url, delivery: &Delivery) -> Result<(), String>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        // The connection task ends with the exchange.
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let (host, path) = logo::host_and_path(url);
        let first = &delivery.events[0];
        let unix = qr_domain::chrono::Utc::now().timestamp();
        let request = Request::post(path)
            .header(HOST, host)
            .header(
                USER_AGENT,
                concat!("qr-platform/", env!("CARGO_PKG_VERSION"), " webhooks"),
            )
            .header(CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, delivery.signature(unix))
            .header("Qr-Event-Type", first.kind.as_str())
            .body(Full::new(Bytes::from(delivery.body.clone())))
            .map_err(|e| e.to_string())?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        // The answer is read (so the connection ends cleanly) up to the cap, and otherwise ignored.
        let mut body = response.into_body();
        let mut read = 0usize;
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else { break };
            if let Some(data) = frame.data_ref() {
                read += data.len();
                if read > self.config.max_response_bytes {
                    break;
                }
            }
        }
        if status.is_success() {
            Ok(())
        } else if status.is_redirection() {
            Err(format!(
                "HTTP {} (redirects are not followed)",
                status.as_u16()
            ))
        } else {
            Err(format!("HTTP {}", status.as_u16()))
        }
    }
}

/// A connection to the first checked address that accepts one.
async fn connect(addrs: &[SocketAddr]) -> Result<TcpStream, String> {
    let mut last = String::from("no address");
    for addr in addrs {
        match TcpStream::connect(addr).await {
            Ok(s) => return Ok(s),
            Err(e) => last = format!("cannot connect to {addr}: {e}"),
        }
    }
    Err(last)
}
