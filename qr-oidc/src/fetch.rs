//! Bounded, SSRF-safe HTTP(S) to the provider: `http` and `https` only, every resolved address checked with qr-domain's public-address rules before connecting (and connected to as checked, so a second resolution cannot rebind it), one request per connection, no redirects followed, the whole exchange cut at the timeout and the body at a size limit.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::Request;
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, HOST, USER_AGENT};
use hyper_util::rt::TokioIo;
use qr_domain::public_address::NonPublic;
use qr_domain::sso::{IssuerAddresses, ProviderError, ProviderStep};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};
use url::{Host, Url};

/// The `User-Agent` of every request.
const AGENT: &str = concat!("qr-platform/", env!("CARGO_PKG_VERSION"), " OpenID client");

/// One request to make.
pub(crate) struct Outgoing<'a> {
    /// Which step it is, for errors.
    pub step: ProviderStep,
    /// The URL.
    pub url: &'a str,
    /// A form body to POST; `None` for a GET.
    pub form: Option<String>,
    /// An `Authorization` header value.
    pub authorization: Option<String>,
    /// The most body bytes read.
    pub max_bytes: usize,
}

/// An answer: status and body.
pub(crate) struct Answer {
    pub status: u16,
    pub body: Bytes,
}

/// What every request shares: the TLS client and the address policy.
pub(crate) struct Fetcher {
    tls: TlsConnector,
    addresses: IssuerAddresses,
    timeout: Duration,
}

impl Fetcher {
    pub(crate) fn new(addresses: IssuerAddresses, timeout: Duration) -> std::io::Result<Self> {
        Ok(Self {
            tls: tls_connector()?,
            addresses,
            timeout,
        })
    }

    /// Makes the request within the timeout.
    pub(crate) async fn fetch(&self, outgoing: Outgoing<'_>) -> Result<Answer, ProviderError> {
        let step = outgoing.step;
        tokio::time::timeout(self.timeout, self.exchange(outgoing))
            .await
            .unwrap_or(Err(ProviderError::Timeout {
                step,
                seconds: self.timeout.as_secs().max(1),
            }))
    }

    async fn exchange(&self, outgoing: Outgoing<'_>) -> Result<Answer, ProviderError> {
        let step = outgoing.step;
        let invalid = |detail: &str| ProviderError::Invalid {
            step,
            detail: detail.to_owned(),
        };
        let url = Url::parse(outgoing.url).map_err(|_| invalid("not a URL"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("only http and https URLs are fetched"));
        }
        let addresses = self.resolve(step, &url).await?;
        let mut last = String::from("no address");
        for address in addresses {
            let tcp = match TcpStream::connect(address).await {
                Ok(tcp) => tcp,
                Err(e) => {
                    last = format!("{address}: {e}");
                    continue;
                }
            };
            if url.scheme() == "https" {
                let name = server_name(&url).ok_or_else(|| invalid("no host"))?;
                let tls =
                    self.tls
                        .connect(name, tcp)
                        .await
                        .map_err(|e| ProviderError::Unreachable {
                            step,
                            detail: format!("TLS: {e}"),
                        })?;
                return send(tls, &url, outgoing).await;
            }
            return send(tcp, &url, outgoing).await;
        }
        Err(ProviderError::Unreachable { step, detail: last })
    }

    /// The host's addresses, every one public unless the policy allows any.
    async fn resolve(
        &self,
        step: ProviderStep,
        url: &Url,
    ) -> Result<Vec<SocketAddr>, ProviderError> {
        let port = url.port_or_known_default().unwrap_or(443);
        let (host, ips): (String, Vec<IpAddr>) = match url.host() {
            Some(Host::Ipv4(ip)) => (ip.to_string(), vec![IpAddr::V4(ip)]),
            Some(Host::Ipv6(ip)) => (format!("[{ip}]"), vec![IpAddr::V6(ip)]),
            Some(Host::Domain(name)) => {
                let found = tokio::net::lookup_host((name, port)).await.map_err(|e| {
                    ProviderError::Unreachable {
                        step,
                        detail: format!("{name} could not be resolved: {e}"),
                    }
                })?;
                (name.to_owned(), found.map(|a| a.ip()).collect())
            }
            None => {
                return Err(ProviderError::Invalid {
                    step,
                    detail: "a URL without a host".to_owned(),
                });
            }
        };
        if ips.is_empty() {
            return Err(ProviderError::Unreachable {
                step,
                detail: format!("{host} has no address"),
            });
        }
        if self.addresses == IssuerAddresses::PublicOnly
            && let Some(reason) = ips.iter().find_map(|ip| NonPublic::of(*ip))
        {
            return Err(ProviderError::AddressNotAllowed { host, reason });
        }
        Ok(ips
            .into_iter()
            .map(|ip| SocketAddr::new(ip, port))
            .collect())
    }
}

/// One HTTP/1.1 request on `stream`, the body read up to the limit.
async fn send<S>(stream: S, url: &Url, outgoing: Outgoing<'_>) -> Result<Answer, ProviderError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let step = outgoing.step;
    let broken = |e: hyper::Error| ProviderError::Unreachable {
        step,
        detail: e.to_string(),
    };
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(broken)?;
    // The connection task ends with the exchange; its error, if any, surfaces in the response.
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let host = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    };
    let target = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    };
    let mut request = Request::builder()
        .uri(target)
        .header(HOST, host)
        .header(USER_AGENT, AGENT)
        .header(ACCEPT, "application/json");
    if let Some(authorization) = &outgoing.authorization {
        request = request.header(AUTHORIZATION, authorization);
    }
    let body = match outgoing.form {
        Some(form) => {
            request = request
                .method("POST")
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded");
            Bytes::from(form)
        }
        None => Bytes::new(),
    };
    let request = request
        .body(Full::new(body))
        .map_err(|e| ProviderError::Invalid {
            step,
            detail: e.to_string(),
        })?;
    let response = sender.send_request(request).await.map_err(broken)?;
    let status = response.status().as_u16();
    let too_large = ProviderError::TooLarge {
        step,
        limit: outgoing.max_bytes,
    };
    let declared = response
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > outgoing.max_bytes as u64) {
        return Err(too_large);
    }
    let mut body = response.into_body();
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(broken)?;
        if let Some(data) = frame.data_ref() {
            if bytes.len() + data.len() > outgoing.max_bytes {
                return Err(too_large);
            }
            bytes.extend_from_slice(data);
        }
    }
    Ok(Answer {
        status,
        body: Bytes::from(bytes),
    })
}

/// The TLS client: Mozilla's roots compiled in, ring's cryptography (as qr-http's fetchers).
fn tls_connector() -> std::io::Result<TlsConnector> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| std::io::Error::other(format!("TLS setup failed: {e}")))?
            .with_root_certificates(roots)
            .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}

/// The TLS server name of the URL's host (SNI and the certificate check).
fn server_name(url: &Url) -> Option<ServerName<'static>> {
    match url.host()? {
        Host::Domain(name) => ServerName::try_from(name.to_owned()).ok(),
        Host::Ipv4(ip) => Some(ServerName::from(IpAddr::V4(ip))),
        Host::Ipv6(ip) => Some(ServerName::from(IpAddr::V6(ip))),
    }
}
