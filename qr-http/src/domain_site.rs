//! Requests on a customer's domain (`https://go.brand.com/...`): its codes at the root and under `/r/`, its root address, its app association files, orphan visits and the not-found address; and `GET /domains/tls-check`, which tells the reverse proxy whether a name may get a certificate.

use std::net::SocketAddr;

use bytes::Bytes;
use hyper::body::Body;
use hyper::header::{CACHE_CONTROL, HOST, HeaderValue, LOCATION};
use hyper::http::request::Parts;
use hyper::{Method as HttpMethod, StatusCode};
use qr_domain::domains::domain::{AppFile, Domain};
use serde_json::json;

use crate::app::App;
use crate::error::ApiError;
use crate::pages;
use crate::redirect;
use crate::request::Query;
use crate::respond::{HttpResponse, empty, json, respond};
use crate::routes::Method;

/// Apple's association file, at the path its devices fetch.
const APPLE_FILE: &str = "/.well-known/apple-app-site-association";
/// Android's asset links, at the path its devices fetch.
const ANDROID_FILE: &str = "/.well-known/assetlinks.json";
/// The TLS check's path (outside `/api`: no key, the reverse proxy asks it).
pub(crate) const TLS_CHECK_PATH: &str = "/domains/tls-check";

/// The host a request was sent to, lower-cased, without its port: HTTP/1.1's `Host` header, or
/// the authority of an absolute URI (HTTP/2, proxies).
pub(crate) fn request_host(parts: &Parts) -> Option<String> {
    let raw = parts
        .uri
        .host()
        .map(str::to_owned)
        .or_else(|| parts.headers.get(HOST)?.to_str().ok().map(str::to_owned))?;
    Some(host_without_port(&raw).to_ascii_lowercase())
}

/// `go.brand.com:443` → `go.brand.com`; an IPv6 literal keeps its brackets' content whole.
fn host_without_port(raw: &str) -> &str {
    let raw = raw.trim();
    if let Some(rest) = raw.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match raw.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => raw,
    }
}

impl App {
    /// The customer's domain a request for `host` is for, if it serves requests: from memory
    /// when read within the last second, else from the store on a blocking thread. The
    /// service's own host is never one, without a lookup.
    pub(crate) async fn customer_domain(&self, host: &str) -> Result<Option<Domain>, ApiError> {
        if host.is_empty() || host.eq_ignore_ascii_case(self.service().service_host()) {
            return Ok(None);
        }
        if let Some(cached) = self.service().cached_serving_domain(host) {
            return Ok(cached);
        }
        let host = host.to_owned();
        Ok(self
            .blocking(move |svc| svc.serving_domain(&host))
            .await??)
    }
}

/// Answers a request on a customer's domain: its codes (at `/<code>` and `/r/<code>`), its root
/// (`rootUrl` or a neutral page), its app association files, and nothing else (the API and
/// the dashboard live on the service's own address only).
pub(crate) async fn handle<B>(
    app: &App,
    domain: Domain,
    parts: Parts,
    body: B,
    peer: SocketAddr,
    page_for: &mut Option<String>,
) -> Result<HttpResponse, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let path = parts.uri.path();
    let method =
        Method::from_http(&parts.method).filter(|m| *m != Method::Put && *m != Method::Delete);
    match path {
        "/" | APPLE_FILE | ANDROID_FILE => {
            if !matches!(method, Some(Method::Get | Method::Head)) {
                return Ok(method_not_allowed("GET, HEAD"));
            }
            Ok(match path {
                "/" => match &domain.settings.root_url {
                    Some(url) => found(url.as_str()),
                    None => pages::domain_home(),
                },
                APPLE_FILE => app_file(domain.settings.apple_app_site_association.as_ref()),
                _ => app_file(domain.settings.assetlinks.as_ref()),
            })
        }
        _ => {
            let code = path.strip_prefix("/r/").unwrap_or(&path[1..]);
            if code.is_empty() || code.contains('/') {
                return Ok(pages::domain_not_found());
            }
            let Some(method) = method else {
                return Ok(method_not_allowed("GET, HEAD, POST"));
            };
            *page_for = Some(code.to_owned());
            let query = parts.uri.query();
            redirect::handle(
                app,
                Some(&domain),
                code,
                method,
                &parts.headers,
                query,
                body,
                peer,
            )
            .await
        }
    }
}

/// What a visit to a code the domain does not have (unknown, or deleted) gets: counted as an
/// orphan visit (unless it is a link checker's HEAD), then `notFoundUrl` or a neutral 404 page.
pub(crate) async fn unknown_code(
    app: &App,
    domain: &Domain,
    code: &str,
    method: Method,
    visit: qr_domain::service::Visit,
) -> Result<HttpResponse, ApiError> {
    if method != Method::Head {
        let id = domain.id;
        let path = format!("/{code}");
        app.blocking(move |svc| svc.record_orphan_visit(id, &path, &visit))
            .await??;
    }
    Ok(match &domain.settings.not_found_url {
        Some(url) => found(url.as_str()),
        None => pages::page_of(pages::PageKind::Unknown, StatusCode::NOT_FOUND, code),
    })
}

/// A 302 to a URL the domain validated.
fn found(url: &str) -> HttpResponse {
    let mut response = empty(StatusCode::FOUND);
    if let Ok(location) = HeaderValue::from_str(url) {
        response.headers_mut().insert(LOCATION, location);
    }
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// An app association file as stored (validated JSON), or the neutral 404.
fn app_file(file: Option<&AppFile>) -> HttpResponse {
    match file {
        Some(file) => {
            let mut response = respond(
                StatusCode::OK,
                Some("application/json"),
                file.as_str().to_owned(),
            );
            // Apple's CDN and Android's verifier fetch it on install; an hour keeps edits quick.
            response.headers_mut().insert(
                CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            );
            response
        }
        None => pages::domain_not_found(),
    }
}

fn method_not_allowed(allow: &'static str) -> HttpResponse {
    let mut response = pages::domain_not_found();
    *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
    response
        .headers_mut()
        .insert(hyper::header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// `GET /domains/tls-check?domain=NAME`: 200 when `NAME` is a customer's domain that serves
/// requests (Caddy's on-demand TLS then gets it a certificate), 404 otherwise. Answered only to
/// the loopback and `--trusted-proxies` (anyone else gets 404, as if the path did not exist):
/// it tells which names are customers'.
pub(crate) async fn tls_check(
    app: &App,
    method: &HttpMethod,
    query: Option<&str>,
    peer: SocketAddr,
) -> Result<HttpResponse, ApiError> {
    let ip = qr_domain::accounts::access::canonical(peer.ip());
    if !(ip.is_loopback() || app.trusts_peer(ip)) {
        return Err(ApiError::NotFound);
    }
    if method != HttpMethod::GET && method != HttpMethod::HEAD {
        return Err(ApiError::OpsMethodNotAllowed);
    }
    let query = Query::parse(query);
    let Some(name) = query.get("domain").filter(|d| !d.is_empty()) else {
        return Err(ApiError::BadRequest("domain parameter required".into()));
    };
    let name = host_without_port(name).to_ascii_lowercase();
    match app.customer_domain(&name).await? {
        Some(domain) => Ok(json(StatusCode::OK, &json!({ "domain": domain.name }))),
        None => Err(ApiError::NotFound),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_cut_from_hosts() {
        assert_eq!(host_without_port("go.brand.com:443"), "go.brand.com");
        assert_eq!(host_without_port("go.brand.com"), "go.brand.com");
        assert_eq!(host_without_port("[::1]:8080"), "::1");
        assert_eq!(host_without_port("127.0.0.1:80"), "127.0.0.1");
    }
}
