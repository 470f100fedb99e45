//! SSRF-safe logo fetching: public addresses only, checked before connecting, bounded in time and size, cached.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use http_body_util::{BodyExt, Empty};
use hyper::header::{ACCEPT, CONTENT_LENGTH, HOST, LOCATION, USER_AGENT};
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use qr_core::Logo;
use qr_domain::public_address::is_public;
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};
use url::{Host, Url};

use crate::config::Limits;
use crate::metrics::LogoOutcome;

/// Most redirects followed.
pub(crate) const MAX_REDIRECTS: usize = 3;
/// Longest logo URL accepted, in bytes.
const MAX_URL_BYTES: usize = 2048;
/// Most decoded pixel bytes (RGBA) kept in the cache.
const CACHE_PIXEL_BUDGET: u64 = 256 * 1024 * 1024;

/// Why a logo could not be used (HTTP 400); `Display` is the API's message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum LogoFetchError {
    /// The URL does not parse or is too long.
    #[error("Invalid logo URL")]
    InvalidUrl,
    /// A scheme other than http or https.
    #[error("Invalid logo URL: only http and https are allowed")]
    Scheme,
    /// The host is or resolves to a non-public address.
    #[error("Logo host not allowed: {0} is not a public address")]
    Forbidden(String),
    /// The host name does not resolve.
    #[error("Logo host could not be resolved: {0}")]
    Resolve(String),
    /// No connection or no valid HTTP exchange with the host.
    #[error("Logo could not be fetched: {0}")]
    Fetch(String),
    /// The whole fetch took too long.
    #[error("Logo could not be fetched within {0} seconds")]
    Timeout(u64),
    /// More than three redirects.
    #[error("Logo could not be fetched: more than 3 redirects")]
    TooManyRedirects,
    /// The final response was not a success.
    #[error("Logo could not be fetched: the server answered HTTP {0}")]
    Status(u16),
    /// The image is larger than allowed.
    #[error("Logo too large: at most {0} bytes allowed")]
    TooLarge(usize),
    /// The bytes are not a PNG or JPEG image.
    #[error("Logo must be a PNG or JPEG image")]
    NotAnImage,
    /// The image could not be decoded or is too large in pixels.
    #[error("Invalid logo: {0}")]
    Decode(String),
}

impl LogoFetchError {
    /// The failure's kind, for metrics.
    pub(crate) fn outcome(&self) -> LogoOutcome {
        match self {
            LogoFetchError::InvalidUrl | LogoFetchError::Scheme | LogoFetchError::Forbidden(_) => {
                LogoOutcome::Refused
            }
            LogoFetchError::Resolve(_)
            | LogoFetchError::Fetch(_)
            | LogoFetchError::Timeout(_)
            | LogoFetchError::TooManyRedirects
            | LogoFetchError::Status(_) => LogoOutcome::Failed,
            LogoFetchError::TooLarge(_)
            | LogoFetchError::NotAnImage
            | LogoFetchError::Decode(_) => LogoOutcome::Invalid,
        }
    }
}

/// Fetches logos and caches them by URL.
pub(crate) struct LogoFetcher {
    allow_private: bool,
    timeout: Duration,
    max_bytes: usize,
    ttl: Duration,
    capacity: usize,
    tls: TlsConnector,
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    entries: HashMap<String, Entry>,
    tick: u64,
    pixel_bytes: u64,
}

struct Entry {
    logo: Logo,
    fetched: Instant,
    used: u64,
    cost: u64,
}

impl LogoFetcher {
    /// A fetcher with the server's limits.
    pub(crate) fn new(limits: &Limits, allow_private: bool) -> Result<Self, String> {
        Ok(Self {
            allow_private,
            timeout: limits.logo_timeout,
            max_bytes: limits.max_logo_bytes,
            ttl: limits.logo_cache_ttl,
            capacity: limits.logo_cache_entries,
            tls: tls_connector()?,
            cache: Mutex::new(Cache::default()),
        })
    }

    /// The logo at `raw_url`, from the cache or fetched and decoded, with where it came from.
    pub(crate) async fn fetch(&self, raw_url: &str) -> Result<(Logo, LogoOutcome), LogoFetchError> {
        if raw_url.len() > MAX_URL_BYTES {
            return Err(LogoFetchError::InvalidUrl);
        }
        let url = Url::parse(raw_url.trim()).map_err(|_| LogoFetchError::InvalidUrl)?;
        check_scheme(&url)?;
        let key = url.as_str().to_owned();
        if let Some(logo) = self.cached(&key) {
            return Ok((logo, LogoOutcome::Cached));
        }
        let bytes = tokio::time::timeout(self.timeout, self.download(url))
            .await
            .map_err(|_| LogoFetchError::Timeout(self.timeout.as_secs().max(1)))??;
        let logo = tokio::task::spawn_blocking(move || Logo::decode(bytes.to_vec()))
            .await
            .map_err(|e| LogoFetchError::Decode(e.to_string()))?
            .map_err(|e| LogoFetchError::Decode(e.to_string()))?;
        self.store(key, logo.clone());
        Ok((logo, LogoOutcome::Fetched))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn cached(&self, key: &str) -> Option<Logo> {
        let mut cache = self.lock();
        cache.tick += 1;
        let tick = cache.tick;
        let expired = match cache.entries.get_mut(key) {
            Some(e) if e.fetched.elapsed() < self.ttl => {
                e.used = tick;
                return Some(e.logo.clone());
            }
            Some(_) => true,
            None => false,
        };
        if expired && let Some(e) = cache.entries.remove(key) {
            cache.pixel_bytes -= e.cost;
        }
        None
    }

    fn store(&self, key: String, logo: Logo) {
        let cost = u64::from(logo.width()) * u64::from(logo.height()) * 4;
        if self.capacity == 0 || cost > CACHE_PIXEL_BUDGET {
            return;
        }
        let mut cache = self.lock();
        if let Some(old) = cache.entries.remove(&key) {
            cache.pixel_bytes -= old.cost;
        }
        while cache.entries.len() >= self.capacity || cache.pixel_bytes + cost > CACHE_PIXEL_BUDGET
        {
            let Some(oldest) = cache
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(e) = cache.entries.remove(&oldest) {
                cache.pixel_bytes -= e.cost;
            }
        }
        cache.tick += 1;
        let used = cache.tick;
        cache.pixel_bytes += cost;
        cache.entries.insert(
            key,
            Entry {
                logo,
                fetched: Instant::now(),
                used,
                cost,
            },
        );
    }

    /// Follows up to three redirects, checking every hop's addresses before connecting.
    async fn download(&self, mut url: Url) -> Result<Bytes, LogoFetchError> {
        for _ in 0..=MAX_REDIRECTS {
            check_scheme(&url)?;
            let addrs = resolve(&url, self.allow_private).await?;
            match self.get(&url, &addrs).await? {
                Hop::Done(bytes) => return check_magic(bytes),
                Hop::Redirect(location) => {
                    url = url
                        .join(&location)
                        .map_err(|_| LogoFetchError::Fetch("invalid redirect location".into()))?;
                }
            }
        }
        Err(LogoFetchError::TooManyRedirects)
    }

    /// One GET to the first address that accepts a connection.
    async fn get(&self, url: &Url, addrs: &[SocketAddr]) -> Result<Hop, LogoFetchError> {
        let mut last = String::from("no address");
        for addr in addrs {
            let tcp = match TcpStream::connect(addr).await {
                Ok(s) => s,
                Err(e) => {
                    last = e.to_string();
                    continue;
                }
            };
            if url.scheme() == "https" {
                let name = server_name(url)?;
                let tls = self
                    .tls
                    .connect(name, tcp)
                    .await
                    .map_err(|e| LogoFetchError::Fetch(format!("TLS: {e}")))?;
                return self.exchange(tls, url).await;
            }
            return self.exchange(tcp, url).await;
        }
        Err(LogoFetchError::Fetch(last))
    }

    async fn exchange<S>(&self, stream: S, url: &Url) -> Result<Hop, LogoFetchError>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let fetch = |e: hyper::Error| LogoFetchError::Fetch(e.to_string());
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(fetch)?;
        // The connection task ends with the exchange; its error, if any, surfaces in the response.
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let (host, path) = host_and_path(url);
        let request = Request::get(path)
            .header(HOST, host)
            .header(
                USER_AGENT,
                concat!("qr-platform/", env!("CARGO_PKG_VERSION"), " logo fetcher"),
            )
            .header(ACCEPT, "image/png, image/jpeg")
            .body(Empty::<Bytes>::new())
            .map_err(|_| LogoFetchError::InvalidUrl)?;
        let response = sender.send_request(request).await.map_err(fetch)?;
        let status = response.status();
        if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| LogoFetchError::Fetch("redirect without Location".into()))?;
            return Ok(Hop::Redirect(location.to_owned()));
        }
        if !status.is_success() {
            return Err(LogoFetchError::Status(status.as_u16()));
        }
        let declared = response
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.max_bytes as u64) {
            return Err(LogoFetchError::TooLarge(self.max_bytes));
        }
        let mut body = response.into_body();
        let mut bytes = BytesMut::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(fetch)?;
            if let Some(data) = frame.data_ref() {
                if bytes.len() + data.len() > self.max_bytes {
                    return Err(LogoFetchError::TooLarge(self.max_bytes));
                }
                bytes.extend_from_slice(data);
            }
        }
        Ok(Hop::Done(bytes.freeze()))
    }
}

/// The TLS client of outgoing fetches (logos, webhooks): Mozilla's roots compiled in.
pub(crate) fn tls_connector() -> Result<TlsConnector, String> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS setup failed: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}

/// The host's addresses, all of them public unless private hosts are allowed: checked before
/// connecting, and the caller connects to these addresses (no second resolution to rebind).
pub(crate) async fn resolve(
    url: &Url,
    allow_private: bool,
) -> Result<Vec<SocketAddr>, LogoFetchError> {
    let port = url
        .port_or_known_default()
        .ok_or(LogoFetchError::InvalidUrl)?;
    let (name, ips): (String, Vec<IpAddr>) = match url.host() {
        Some(Host::Ipv4(ip)) => (ip.to_string(), vec![IpAddr::V4(ip)]),
        Some(Host::Ipv6(ip)) => (format!("[{ip}]"), vec![IpAddr::V6(ip)]),
        Some(Host::Domain(domain)) => {
            let found = tokio::net::lookup_host((domain, port))
                .await
                .map_err(|_| LogoFetchError::Resolve(domain.to_owned()))?;
            (domain.to_owned(), found.map(|a| a.ip()).collect())
        }
        None => return Err(LogoFetchError::InvalidUrl),
    };
    if ips.is_empty() {
        return Err(LogoFetchError::Resolve(name));
    }
    if !allow_private && ips.iter().any(|ip| !is_public(*ip)) {
        return Err(LogoFetchError::Forbidden(name));
    }
    Ok(ips
        .into_iter()
        .map(|ip| SocketAddr::new(ip, port))
        .collect())
}

/// The `Host` header and the request target (path and query) of a URL.
pub(crate) fn host_and_path(url: &Url) -> (String, String) {
    let host = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    };
    let path = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    };
    (host, path)
}

/// The TLS server name of the URL's host (SNI and certificate check).
pub(crate) fn server_name(url: &Url) -> Result<ServerName<'static>, LogoFetchError> {
    match url.host() {
        Some(Host::Domain(d)) => {
            ServerName::try_from(d.to_owned()).map_err(|_| LogoFetchError::InvalidUrl)
        }
        Some(Host::Ipv4(ip)) => Ok(ServerName::from(IpAddr::V4(ip))),
        Some(Host::Ipv6(ip)) => Ok(ServerName::from(IpAddr::V6(ip))),
        None => Err(LogoFetchError::InvalidUrl),
    }
}

enum Hop {
    Done(Bytes),
    Redirect(String),
}

fn check_scheme(url: &Url) -> Result<(), LogoFetchError> {
    match url.scheme() {
        "http" | "https" => Ok(()),
        _ => Err(LogoFetchError::Scheme),
    }
}

fn check_magic(bytes: Bytes) -> Result<Bytes, LogoFetchError> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") || bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Ok(bytes)
    } else {
        Err(LogoFetchError::NotAnImage)
    }
}
