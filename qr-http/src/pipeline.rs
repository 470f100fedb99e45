//! The request pipeline: route (404/405), key, authenticate (401), authorize (403), admit (429), then one `match` calling the handler; every failure leaves through one error path.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use hyper::body::Body;
use hyper::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ALLOW, AUTHORIZATION, CACHE_CONTROL,
    CONTENT_LENGTH, HeaderMap, HeaderName, HeaderValue, ORIGIN, VARY, X_CONTENT_TYPE_OPTIONS,
};
use hyper::{Request, StatusCode};
use qr_domain::accounts::access::{AccessError, AccessRequest};
use qr_domain::accounts::permissions::Operation;
use qr_domain::service::{AuthContext, AuthError};
use qr_domain::{AccountId, Endpoint, Feature, KeyId, RateLimitStatus};
use tracing::Instrument;

use crate::api;
use crate::app::App;
use crate::body::ResponseBody;
use crate::bootstrap::{AppService, AppWeb};
use crate::domain_site;
use crate::error::ApiError;
use crate::metrics::RouteId;
use crate::op::{self, ApiOp};
use crate::ops::{self, OpsRoute, Port};
use crate::redirect;
use crate::request::Query;
use crate::request_id::X_REQUEST_ID;
use crate::respond::{HttpResponse, empty, json, set_header};
use crate::routes::{self, Kind, Method, RouteSpec};

/// Headers a browser may read from API responses.
const EXPOSED_HEADERS: &str = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag, Location, Content-Disposition, Idempotent-Replayed";
/// Headers a browser may send (preflight answer).
const ALLOWED_HEADERS: &str =
    "Authorization, X-API-Key, Content-Type, If-None-Match, Idempotency-Key";

static X_RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
static X_RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
static X_RATELIMIT_RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");
static X_API_KEY: HeaderName = HeaderName::from_static("x-api-key");

/// What the pipeline learned about a request, applied to whatever response it gets.
#[derive(Default)]
struct Meta {
    /// The route, for metrics and the access log (`None`: nothing matched).
    route: Option<RouteId>,
    key_id: Option<KeyId>,
    account_id: Option<AccountId>,
    rate: Option<RateLimitStatus>,
    origin: Option<HeaderValue>,
    cors_denied: bool,
    /// The short code of a redirect: its failures are pages for people, not JSON.
    page_for: Option<String>,
    /// A keyed `/api` request: its answer is private to the key's owner.
    keyed: bool,
}

/// A keyed API request once routed: everything the front checks and the handlers need.
struct ApiRequest<'a, B> {
    kind: Kind,
    method: Method,
    headers: &'a HeaderMap,
    query: Query,
    body: B,
    peer: SocketAddr,
}

/// What the caller's key is (for headers and logs) and whether the request may proceed.
type Front = (
    Option<(KeyId, AccountId, RateLimitStatus)>,
    Result<Arc<AuthContext>, ApiError>,
);

impl App {
    /// Answers one request from `peer`: the whole pipeline, ending in one access-log line.
    pub async fn handle<B>(&self, request: Request<B>, peer: SocketAddr) -> HttpResponse
    where
        B: Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        self.handle_on(request, peer, Port::Main).await
    }

    /// [`App::handle`] for a request that arrived on `port`.
    pub(crate) async fn handle_on<B>(
        &self,
        request: Request<B>,
        peer: SocketAddr,
        port: Port,
    ) -> HttpResponse
    where
        B: Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let started = Instant::now();
        let method = request.method().clone();
        let request_id = self
            .request_ids()
            .assign(self.trusts_peer(peer.ip()), request.headers());
        let id_text = request_id.to_str().unwrap_or("-").to_owned();
        let client = self.client_ip(peer, request.headers());
        let span = tracing::info_span!("request", id = %id_text);
        let mut meta = Meta::default();
        let response = self
            .respond(request, peer, port, &mut meta)
            .instrument(span)
            .await;
        let status = response.status().as_u16();
        let elapsed = started.elapsed();
        let (route, account_id, key_id) = (meta_route(&meta), meta.account_id, meta.key_id);
        let mut response = meta.finish(response);
        if method == hyper::Method::HEAD {
            without_body(&mut response);
        }
        response.headers_mut().insert(&X_REQUEST_ID, request_id);
        self.metrics().request(route, status, elapsed);
        tracing::info!(
            target: "qr_http::access",
            method = %method,
            route = route.template(),
            status,
            // Microsecond resolution is plenty for a log line, and keeps it short.
            duration_ms = format_args!("{:.3}", elapsed.as_secs_f64() * 1000.0),
            bytes = response.body().size_hint().exact().unwrap_or(0),
            request_id = %id_text,
            account_id = %account_id.map_or_else(|| "-".to_owned(), |a| a.to_string()),
            key_id = %key_id.map_or_else(|| "-".to_owned(), |k| k.to_string()),
            client = %ClientPrefix(client),
            "request"
        );
        response
    }

    /// The response to a request, whatever failed on the way.
    async fn respond<B>(
        &self,
        request: Request<B>,
        peer: SocketAddr,
        port: Port,
        meta: &mut Meta,
    ) -> HttpResponse
    where
        B: Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let result = match port {
            Port::Main => self.dispatch(request, peer, meta).await,
            Port::Metrics => self.dispatch_metrics_port(&request, meta).await,
        };
        match result {
            Ok(response) => response,
            Err(error) => {
                if matches!(error, ApiError::Access(AccessError::OriginNotAllowed)) {
                    meta.cors_denied = true;
                }
                if let ApiError::RateLimited(rejection) = &error {
                    self.metrics().limited(rejection.kind);
                }
                match meta.page_for.take() {
                    Some(code) => error.into_page(&code),
                    None => error.into_response(),
                }
            }
        }
    }

    /// The metrics listener: the operator's paths only.
    async fn dispatch_metrics_port<B>(
        &self,
        request: &Request<B>,
        meta: &mut Meta,
    ) -> Result<HttpResponse, ApiError> {
        let route = OpsRoute::of(request.uri().path()).ok_or(ApiError::NotFound)?;
        meta.route = Some(route.route_id());
        ops::handle(
            self,
            route,
            request.method(),
            request.headers(),
            Port::Metrics,
        )
        .await
    }

    /// Routes the request (404, 405, preflight) and hands it to the redirect or the keyed API.
    async fn dispatch<B>(
        &self,
        request: Request<B>,
        peer: SocketAddr,
        meta: &mut Meta,
    ) -> Result<HttpResponse, ApiError>
    where
        B: Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let (parts, body) = request.into_parts();
        // A customer's domain serves its codes, root and app files, and nothing else.
        if let Some(host) = domain_site::request_host(&parts)
            && let Some(domain) = self.customer_domain(&host).await?
        {
            meta.route = Some(RouteId::CUSTOMER_DOMAIN);
            return domain_site::handle(self, domain, parts, body, peer, &mut meta.page_for).await;
        }
        if parts.uri.path() == domain_site::TLS_CHECK_PATH {
            meta.route = Some(RouteId::TLS_CHECK);
            return domain_site::tls_check(self, &parts.method, parts.uri.query(), peer).await;
        }
        // The operator's probes and metrics: no key, no quota, no CORS.
        if let Some(route) = OpsRoute::of(parts.uri.path()) {
            meta.route = Some(route.route_id());
            return ops::handle(self, route, &parts.method, &parts.headers, Port::Main).await;
        }
        // The dashboard's pages: no CORS, their own failure pages.
        if AppWeb::owns_path(parts.uri.path()) {
            meta.route = Some(RouteId::of_dashboard(parts.uri.path()));
            return Ok(crate::web::handle(self, parts, body, peer).await);
        }
        meta.origin = parts.headers.get(ORIGIN).cloned();
        let matched = routes::match_path(parts.uri.path()).ok_or(ApiError::NotFound)?;
        let spec = matched.spec;
        meta.route = Some(RouteId::of(spec));
        if parts.method == hyper::Method::OPTIONS && spec.kind != Kind::Redirect {
            return Ok(preflight(spec));
        }
        let method = Method::from_http(&parts.method)
            .filter(|m| spec.methods.contains(m))
            .ok_or(ApiError::MethodNotAllowed(spec))?;
        match spec.kind {
            Kind::OpenApi => Ok(json(
                StatusCode::OK,
                &crate::openapi::document(self.base_url()),
            )),
            Kind::Redirect => {
                let code = matched.code.unwrap_or_default();
                meta.page_for = Some(code.clone());
                let query = parts.uri.query();
                redirect::handle(self, None, &code, method, &parts.headers, query, body, peer).await
            }
            kind => {
                let request = ApiRequest {
                    kind,
                    method,
                    headers: &parts.headers,
                    query: Query::parse(parts.uri.query()),
                    body,
                    peer,
                };
                self.api(request, meta).await
            }
        }
    }

    /// Authentication, authorization and admission, then the operation's handler.
    async fn api<B>(
        &self,
        request: ApiRequest<'_, B>,
        meta: &mut Meta,
    ) -> Result<HttpResponse, ApiError>
    where
        B: Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let ApiRequest {
            kind,
            method,
            headers,
            query,
            body,
            peer,
        } = request;
        let endpoint = kind.endpoint().ok_or(ApiError::NotFound)?;
        let operation = kind.operation(method);
        meta.keyed = true;
        let key = api_key(headers, &query);
        let client_ip = self.client_ip(peer, headers);
        // An Origin that is not visible ASCII cannot match any allowed origin.
        let origin = meta
            .origin
            .as_ref()
            .map(|v| v.to_str().unwrap_or("null").to_owned());
        let features = op::features(kind, &query);
        let batch = op::is_batch(kind);
        // A key already in memory is checked right here; an unseen key needs a store lookup,
        // which runs on the blocking pool.
        let (seen, admitted) = match self
            .service()
            .authenticate_cached(key.as_deref(), client_ip)
        {
            Some(auth) => front_after_auth(
                self.service(),
                auth,
                (endpoint, operation),
                client_ip,
                origin.as_deref(),
                (features, batch),
            ),
            None => {
                self.blocking(move |svc| {
                    front_after_auth(
                        svc,
                        svc.authenticate(key.as_deref(), client_ip),
                        (endpoint, operation),
                        client_ip,
                        origin.as_deref(),
                        (features, batch),
                    )
                })
                .await?
            }
        };
        if let Some((key_id, account_id, status)) = seen {
            meta.key_id = Some(key_id);
            meta.account_id = Some(account_id);
            meta.rate = Some(status);
        }
        let ctx = admitted?;
        match ApiOp::parse(kind, method, &query)? {
            ApiOp::Generate { code, logo_url } => {
                api::generate::handle(self, *code, logo_url, headers).await
            }
            ApiOp::Batch => api::batch::handle(self, &ctx, body).await,
            ApiOp::Print => api::print::handle(self, &ctx, body).await,
            ApiOp::Links(op) => api::links::handle(self, &ctx, client_ip, op, body).await,
            ApiOp::BulkLinks => api::bulk::handle(self, &ctx, client_ip, headers, body).await,
            ApiOp::Analytics(params) => api::analytics::handle(self, &ctx, params).await,
            ApiOp::AnalyticsExport(params, format) => {
                api::analytics_export::handle(self, &ctx, params, format).await
            }
            ApiOp::Usage => Ok(api::usage::usage(self, &ctx)),
            ApiOp::Health => api::usage::health(self).await,
            ApiOp::Webhooks(op) => api::webhooks::handle(self, &ctx, client_ip, op, body).await,
            ApiOp::Domains(op) => api::domains::handle(self, &ctx, client_ip, op, body).await,
            ApiOp::Designs(op) => api::designs::handle(self, &ctx, client_ip, op, body).await,
            ApiOp::LinkCode(params) => api::link_code::handle(self, &ctx, params, headers).await,
            ApiOp::Export => api::export::handle(self, &ctx).await,
            ApiOp::Audit(query) => api::audit::handle(self, &ctx, client_ip, query).await,
        }
    }
}

/// After authentication (401): the key's scopes, restrictions and plan features (403), then
/// the limits (429).
fn front_after_auth(
    svc: &AppService,
    auth: Result<Arc<AuthContext>, AuthError>,
    (endpoint, operation): (Endpoint, Option<Operation>),
    client_ip: Option<IpAddr>,
    origin: Option<&str>,
    (features, batch): (&'static [Feature], bool),
) -> Front {
    let ctx = match auth {
        Ok(ctx) => ctx,
        Err(e) => return (None, Err(e.into())),
    };
    let access = AccessRequest {
        client_ip,
        origin,
        features,
    };
    if let Err(e) = svc.authorize(&ctx, endpoint, operation, access) {
        return (
            Some((ctx.key.id, ctx.key.account_id, svc.rate_limit_status(&ctx))),
            Err(e.into()),
        );
    }
    let (key, account) = (ctx.key.id, ctx.key.account_id);
    match svc.admit(&ctx, batch) {
        Ok(admission) => (Some((key, account, admission.status)), Ok(ctx)),
        Err(rejection) => (
            Some((key, account, rejection.status)),
            Err(rejection.into()),
        ),
    }
}

impl Meta {
    /// Adds the rate-limit, CORS and safety headers every response carries.
    fn finish(self, mut response: HttpResponse) -> HttpResponse {
        if let Some(status) = self.rate {
            let (limit, remaining, reset) = status.header_values();
            set_header(&mut response, X_RATELIMIT_LIMIT.clone(), &limit);
            set_header(&mut response, X_RATELIMIT_REMAINING.clone(), &remaining);
            set_header(&mut response, X_RATELIMIT_RESET.clone(), &reset);
        }
        let h = response.headers_mut();
        // Answers about an account (links, analytics, usage, and errors) must not be kept by
        // shared or browser caches; generate sets its own revalidating policy.
        if self.keyed && !h.contains_key(CACHE_CONTROL) {
            h.insert(CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
        }
        if let (Some(origin), false) = (self.origin, self.cors_denied) {
            h.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            h.insert(
                ACCESS_CONTROL_EXPOSE_HEADERS,
                HeaderValue::from_static(EXPOSED_HEADERS),
            );
        }
        h.append(VARY, HeaderValue::from_static("Origin"));
        h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        response
    }
}

/// A HEAD answer: the GET answer's headers, its `Content-Length` included, without the body.
fn without_body(response: &mut HttpResponse) {
    let length = response.body().size_hint().exact().unwrap_or(0);
    if length > 0 {
        response
            .headers_mut()
            .insert(CONTENT_LENGTH, HeaderValue::from(length));
    }
    *response.body_mut() = ResponseBody::full(Bytes::new());
}

/// The presented key: `Authorization: Bearer`, else `X-API-Key`, else `api_key`.
fn api_key(headers: &HeaderMap, query: &Query) -> Option<String> {
    if let Some(value) = headers.get(AUTHORIZATION) {
        let text = value.to_str().unwrap_or("");
        if let Some((scheme, token)) = text.trim().split_once(' ')
            && scheme.eq_ignore_ascii_case("bearer")
        {
            return Some(token.trim().to_owned());
        }
    }
    if let Some(value) = headers.get(&X_API_KEY) {
        return Some(value.to_str().unwrap_or("").trim().to_owned());
    }
    query.owned("api_key")
}

/// The answer to a CORS preflight: the route's methods and the headers a browser may send.
fn preflight(spec: &RouteSpec) -> HttpResponse {
    let mut response = empty(StatusCode::NO_CONTENT);
    let methods: Vec<&str> = spec.methods.iter().map(|m| m.as_str()).collect();
    set_header(
        &mut response,
        ACCESS_CONTROL_ALLOW_METHODS,
        &methods.join(", "),
    );
    set_header(&mut response, ALLOW, &routes::allow_header(spec));
    let h = response.headers_mut();
    h.insert(
        ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(ALLOWED_HEADERS),
    );
    h.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    response
}

/// The route of a request for metrics and logs: what matched, else `unmatched`.
fn meta_route(meta: &Meta) -> RouteId {
    meta.route.unwrap_or(RouteId::UNMATCHED)
}

/// A client address as logged: its network, never the address (an IPv4 /24, an IPv6 /48),
/// as the privacy rule for stored addresses requires; `-` when unknown.
struct ClientPrefix(Option<IpAddr>);

impl std::fmt::Display for ClientPrefix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            None => f.write_str("-"),
            Some(IpAddr::V4(ip)) => {
                let [a, b, c, _] = ip.octets();
                write!(f, "{a}.{b}.{c}.0/24")
            }
            Some(IpAddr::V6(ip)) => {
                let s = ip.segments();
                write!(
                    f,
                    "{}/48",
                    std::net::Ipv6Addr::new(s[0], s[1], s[2], 0, 0, 0, 0, 0)
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_addresses_are_logged_as_their_network() {
        let prefix = |ip: &str| ClientPrefix(Some(ip.parse().unwrap())).to_string();
        assert_eq!(prefix("203.0.113.77"), "203.0.113.0/24");
        assert_eq!(prefix("2001:db8:1:2:3:4:5:6"), "2001:db8:1::/48");
        assert_eq!(ClientPrefix(None).to_string(), "-");
    }

    #[test]
    fn key_precedence() {
        let mut h = HeaderMap::new();
        let q = Query::parse(Some("api_key=fromquery"));
        assert_eq!(api_key(&h, &q).as_deref(), Some("fromquery"));
        h.insert(&X_API_KEY, HeaderValue::from_static("fromheader"));
        assert_eq!(api_key(&h, &q).as_deref(), Some("fromheader"));
        h.insert(AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(api_key(&h, &q).as_deref(), Some("fromheader"));
        h.insert(
            AUTHORIZATION,
            HeaderValue::from_static("bearer  frombearer "),
        );
        assert_eq!(api_key(&h, &q).as_deref(), Some("frombearer"));
    }
}
