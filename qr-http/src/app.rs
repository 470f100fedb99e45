//! The application: one request in, one response out, without sockets (the server and the fuzz target share it).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use chrono::{DateTime, Utc};
use http_body_util::{BodyExt, Full};
use hyper::body::Body;
use hyper::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ALLOW, AUTHORIZATION, CACHE_CONTROL,
    CONTENT_DISPOSITION, CONTENT_SECURITY_POLICY, CONTENT_TYPE, ETAG, HeaderMap, HeaderName,
    HeaderValue, IF_NONE_MATCH, LOCATION, ORIGIN, REFERER, USER_AGENT, VARY,
    X_CONTENT_TYPE_OPTIONS,
};
use hyper::{Request, Response, StatusCode, Uri};
use qr_core::Format;
use qr_domain::access::{AccessError, AccessRequest};
use qr_domain::geo::GeoHint;
use qr_domain::link::parse_link_id;
use qr_domain::service::{AuthContext, AuthError, PreparedScan, Resolution, Visit};
use qr_domain::writer::{Queued, ScanAck};
use qr_domain::{
    AnalyticsQuery, ApiKeySecret, Clock, Endpoint, Feature, GeoLocator, KeyId, KeyMode, Link,
    LinkUpdate, MaxMindLocator, NoGeoLocator, Plan, RateLimitStatus, Service, Store, StoreError,
};
use qr_generate::batch::{BatchRequest, build_archive};
use qr_generate::params::{self as generate, GenerateParams};
use qr_sqlite::SqliteStore;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::oneshot;

use crate::client_ip::TrustedProxies;
use crate::config::{Limits, ServerConfig};
use crate::error::{ApiError, ServerError};
use crate::logo::LogoFetcher;
use crate::pages;
use crate::routes::{self, Kind, Method, RouteSpec};

/// The service as the server embeds it: SQLite storage and a shareable clock.
pub type AppService = Service<SqliteStore, SharedClock>;

/// A clock behind an `Arc<dyn Clock>`, so tests can inject a [`qr_domain::TestClock`].
#[derive(Clone)]
pub struct SharedClock(Arc<dyn Clock>);

/// The application: routing, the request pipeline and the endpoints. Cheap to clone.
#[derive(Clone)]
pub struct App {
    inner: Arc<Inner>,
}

struct Inner {
    service: Arc<AppService>,
    /// Permits for short blocking work (store access); waiting requests queue in order.
    store_permits: Arc<tokio::sync::Semaphore>,
    /// Permits for long CPU-bound work (large images, batches), one per core.
    heavy_permits: Arc<tokio::sync::Semaphore>,
    base_url: String,
    proxies: TrustedProxies,
    limits: Limits,
    logos: LogoFetcher,
}

/// The e-mail address of the owner account created on first start.
pub const OWNER_EMAIL: &str = "owner@qr-platform.local";
/// Headers a browser may read from API responses.
const EXPOSED_HEADERS: &str = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag, Location, Content-Disposition";
/// Headers a browser may send (preflight answer).
const ALLOWED_HEADERS: &str = "Authorization, X-API-Key, Content-Type, If-None-Match";
/// Most store operations running at once (the store has this many read connections).
const STORE_CONCURRENCY: usize = qr_sqlite::READ_CONNECTIONS;
/// How long a redirect waits for its scan to be committed before answering anyway.
const SCAN_ACK_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest data, in bytes, of a generate request rendered on the async worker thread.
const INLINE_RENDER_MAX_BYTES: usize = 256;
/// Largest image side, in pixels, of a generate request rendered on the async worker thread
/// (without a logo); such a render takes well under 100 µs.
const INLINE_RENDER_MAX_SIZE: u32 = 512;
/// Longest User-Agent kept for a scan, in bytes.
const MAX_USER_AGENT_BYTES: usize = 512;
/// Longest Referer kept for a scan, in bytes (longer ones are reduced to their origin later).
const MAX_REFERER_BYTES: usize = 4096;
/// Longest path logged, in characters.
const MAX_LOGGED_PATH: usize = 300;
/// Most bytes read and discarded after a body went over its limit, so the client can read the 413.
const MAX_DRAIN_BYTES: usize = 16 * 1024 * 1024;

static X_RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
static X_RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
static X_RATELIMIT_RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");
static X_API_KEY: HeaderName = HeaderName::from_static("x-api-key");

type HttpResponse = Response<Full<Bytes>>;

/// What the pipeline learned about a request, applied to whatever response it gets.
#[derive(Default)]
struct Meta {
    key_id: Option<KeyId>,
    rate: Option<RateLimitStatus>,
    origin: Option<HeaderValue>,
    cors_denied: bool,
}

/// The decoded query string; the first occurrence of a name wins.
struct Query(Vec<(String, String)>);

enum Resolved {
    Found {
        target: String,
        ack: Option<oneshot::Receiver<Result<Option<qr_domain::ScanId>, StoreError>>>,
    },
    Gone,
    Unknown,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LinkJson<'a> {
    #[serde(flatten)]
    link: &'a Link,
    short_url: String,
}

impl SharedClock {
    /// Wraps a clock.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self(clock)
    }

    /// The system clock.
    pub fn system() -> Self {
        Self(Arc::new(qr_domain::SystemClock))
    }
}

impl Clock for SharedClock {
    fn now(&self) -> DateTime<Utc> {
        self.0.now()
    }
}

impl std::fmt::Debug for SharedClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SharedClock").field(&self.0.now()).finish()
    }
}

impl App {
    /// Opens the database and the GeoIP database and builds the service. On an empty database
    /// it creates the owner account (Enterprise) with one live key and returns that key's
    /// secret, which is never available again.
    pub fn open(
        config: &ServerConfig,
        clock: SharedClock,
    ) -> Result<(App, Option<ApiKeySecret>), ServerError> {
        let base_url = config.effective_base_url();
        let parsed = url::Url::parse(&base_url)
            .map_err(|e| ServerError::Config(format!("base URL {base_url:?}: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(ServerError::Config(format!(
                "base URL {base_url:?} must be an http or https URL with a host"
            )));
        }
        let proxies =
            TrustedProxies::parse(&config.trusted_proxies).map_err(ServerError::Config)?;
        let logos = LogoFetcher::new(&config.limits, config.allow_private_logo_hosts)
            .map_err(ServerError::Config)?;
        let geo: Arc<dyn GeoLocator> = match &config.geoip {
            Some(path) => Arc::new(MaxMindLocator::open(path)?),
            None => Arc::new(NoGeoLocator),
        };
        let store = Arc::new(SqliteStore::open(&config.database)?);
        if store.is_read_only() {
            tracing::warn!(
                path = %config.database.display(),
                "the database is on a read-only file system: serving redirects (without recording scans), generation and reads; writes get 503"
            );
        }
        if let Some(bytes) = config.max_database_bytes {
            let in_force = store.limit_size(bytes)?;
            tracing::info!(bytes = in_force, "database size capped");
        }
        let service = Arc::new(Service::new(store, clock, geo)?);
        let mut initial_key = None;
        if service.accounts()?.is_empty() {
            let account = service.create_account(OWNER_EMAIL, Plan::Enterprise)?;
            let (key, secret) = service.create_key(account.id, KeyMode::Live)?;
            tracing::info!(account = %account.id, key_id = %key.id, "created the owner account and its first key");
            initial_key = Some(secret);
        }
        let app = App {
            inner: Arc::new(Inner {
                service,
                store_permits: Arc::new(tokio::sync::Semaphore::new(STORE_CONCURRENCY)),
                heavy_permits: Arc::new(tokio::sync::Semaphore::new(
                    std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get),
                )),
                base_url,
                proxies,
                limits: config.limits,
                logos,
            }),
        };
        Ok((app, initial_key))
    }

    /// The service, for embedders and tests (accounts, keys, flushing).
    pub fn service(&self) -> &Arc<AppService> {
        &self.inner.service
    }

    /// Whether the database was opened read-only (on a read-only file system): scans are not
    /// recorded and writes are answered 503.
    pub fn read_only(&self) -> bool {
        self.inner.service.read_only()
    }

    /// The public base URL.
    pub fn base_url(&self) -> &str {
        &self.inner.base_url
    }

    /// Answers one request from `peer`: the whole pipeline, ending in one log line.
    pub async fn handle<B>(&self, request: Request<B>, peer: SocketAddr) -> HttpResponse
    where
        B: Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let started = Instant::now();
        let method = request.method().clone();
        let path = redact(request.uri());
        let mut meta = Meta::default();
        let response = match self.dispatch(request, peer, &mut meta).await {
            Ok(response) => response,
            Err(error) => {
                if matches!(error, ApiError::Access(AccessError::OriginNotAllowed)) {
                    meta.cors_denied = true;
                }
                error.into_response()
            }
        };
        let key_id = meta.key_id;
        let response = meta.finish(response);
        tracing::info!(
            target: "qr_http::access",
            method = %method,
            path = %path,
            status = response.status().as_u16(),
            // Microsecond resolution is plenty for a log line, and keeps it short.
            duration_ms = format_args!("{:.3}", started.elapsed().as_secs_f64() * 1000.0),
            key_id = %key_id.map_or_else(|| "-".to_owned(), |k| k.to_string()),
            "request"
        );
        response
    }

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
        meta.origin = parts.headers.get(ORIGIN).cloned();
        let matched = routes::match_path(parts.uri.path()).ok_or(ApiError::NotFound)?;
        let spec = matched.spec;
        if parts.method == hyper::Method::OPTIONS && spec.kind != Kind::Redirect {
            return Ok(preflight(spec));
        }
        let method = Method::from_http(&parts.method)
            .filter(|m| spec.methods.contains(m))
            .ok_or(ApiError::MethodNotAllowed(spec.methods))?;
        match spec.kind {
            Kind::OpenApi => Ok(json_response(StatusCode::OK, &crate::openapi::document())),
            Kind::Redirect => {
                let code = matched.code.unwrap_or_default();
                Ok(self.redirect(&code, method, &parts.headers, peer).await)
            }
            kind => {
                let query = Query::parse(parts.uri.query());
                self.api(kind, method, &parts.headers, &query, body, peer, meta)
                    .await
            }
        }
    }

    /// Authentication, authorization and admission, then the endpoint.
    #[allow(clippy::too_many_arguments)]
    async fn api<B>(
        &self,
        kind: Kind,
        method: Method,
        headers: &HeaderMap,
        query: &Query,
        body: B,
        peer: SocketAddr,
        meta: &mut Meta,
    ) -> Result<HttpResponse, ApiError>
    where
        B: Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let endpoint = kind.endpoint().ok_or(ApiError::NotFound)?;
        let key = api_key(headers, query).ok_or(ApiError::MissingKey)?;
        let client_ip = self.inner.proxies.client_ip(peer, headers);
        // An Origin that is not visible ASCII cannot match any allowed origin.
        let origin = meta
            .origin
            .as_ref()
            .map(|v| v.to_str().unwrap_or("null").to_owned());
        let wants_logo = kind == Kind::Generate && query.get("logo").is_some_and(|v| !v.is_empty());
        // A key already in memory is checked right here; an unseen key needs a store lookup,
        // which runs on the blocking pool.
        let (seen, admitted) = match self.inner.service.authenticate_cached(&key) {
            Some(auth) => front_after_auth(
                &self.inner.service,
                auth,
                endpoint,
                client_ip,
                origin.as_deref(),
                wants_logo,
            ),
            None => {
                self.blocking(move |svc| {
                    front_after_auth(
                        svc,
                        svc.authenticate(&key),
                        endpoint,
                        client_ip,
                        origin.as_deref(),
                        wants_logo,
                    )
                })
                .await?
            }
        };
        if let Some((key_id, status)) = seen {
            meta.key_id = Some(key_id);
            meta.rate = Some(status);
        }
        let ctx = admitted?;
        match kind {
            Kind::Generate => self.generate(query, headers).await,
            Kind::Batch => self.batch(&ctx, body).await,
            Kind::Links => self.links(&ctx, method, query, body).await,
            Kind::Analytics => self.analytics(&ctx, query).await,
            Kind::Dashboard => dashboard(&self.inner.service, &ctx, query),
            Kind::Health => self.health().await,
            Kind::OpenApi | Kind::Redirect => Err(ApiError::NotFound),
        }
    }

    async fn generate(&self, query: &Query, headers: &HeaderMap) -> Result<HttpResponse, ApiError> {
        let params = GenerateParams::from_pairs(query.0.iter().map(|(k, v)| (k, v.clone())));
        let (data, mut options) = params.parse()?;
        if let Some(url) = query.get("logo").filter(|u| !u.is_empty()) {
            options.logo = Some(self.inner.logos.fetch(url).await?);
        }
        let format = options.format;
        // A small image takes well under 100 µs: render it here rather than pay two thread
        // switches; larger ones (up to milliseconds) go to the blocking pool.
        let image = if data.len() <= INLINE_RENDER_MAX_BYTES
            && options.size.pixels() <= INLINE_RENDER_MAX_SIZE
            && options.logo.is_none()
        {
            generate::render(&data, &options)?
        } else {
            self.blocking_heavy(move |_| generate::render(&data, &options))
                .await??
        };
        let etag = format!("\"{}\"", hex(&Sha256::digest(&image)[..16]));
        let mut response = if if_none_match(headers, &etag) {
            let mut r = Response::new(Full::new(Bytes::new()));
            *r.status_mut() = StatusCode::NOT_MODIFIED;
            r
        } else {
            let mut r = Response::new(Full::new(Bytes::from(image)));
            r.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static(format.content_type()),
            );
            r
        };
        let h = response.headers_mut();
        if let Ok(value) = HeaderValue::from_str(&etag) {
            h.insert(ETAG, value);
        }
        h.insert(CACHE_CONTROL, HeaderValue::from_static("private, no-cache"));
        if format == Format::Svg {
            h.insert(
                CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(
                    "default-src 'none'; img-src data:; style-src 'unsafe-inline'",
                ),
            );
        }
        Ok(response)
    }

    async fn batch<B>(&self, ctx: &AuthContext, body: B) -> Result<HttpResponse, ApiError>
    where
        B: Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let max_items = ctx.limits().batch.map_or(0, |b| b.max_items);
        let limits = &self.inner.limits;
        let body = read_body(body, limits.max_batch_body_bytes, limits.body_read_timeout).await?;
        let archive = self
            .blocking_heavy(move |_| {
                let request = BatchRequest::from_json(&body)?;
                request.validate(max_items)?;
                build_archive(&request)
            })
            .await??;
        if !archive.errors.is_empty() {
            tracing::debug!(
                failed = archive.errors.len(),
                succeeded = archive.succeeded,
                "batch items failed"
            );
        }
        let mut response = Response::new(Full::new(Bytes::from(archive.zip)));
        let h = response.headers_mut();
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/zip"));
        h.insert(
            CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment; filename=qrcodes.zip"),
        );
        Ok(response)
    }

    async fn links<B>(
        &self,
        ctx: &AuthContext,
        method: Method,
        query: &Query,
        body: B,
    ) -> Result<HttpResponse, ApiError>
    where
        B: Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let account = ctx.account.clone();
        let id = query.get("id").map(str::to_owned);
        let limits = &self.inner.limits;
        match method {
            Method::Get => match id {
                None => {
                    let mut links = self.blocking(move |svc| svc.links(account.id)).await??;
                    links.reverse();
                    let links: Vec<LinkJson<'_>> =
                        links.iter().map(|l| self.link_json(l)).collect();
                    Ok(json_response(
                        StatusCode::OK,
                        &serde_json::json!({ "links": links }),
                    ))
                }
                Some(id) => {
                    let id = parse_link_id(&id)?;
                    let link = self.blocking(move |svc| svc.link(account.id, id)).await??;
                    Ok(json_response(StatusCode::OK, &self.link_json(&link)))
                }
            },
            Method::Post => {
                let body =
                    read_body(body, limits.max_json_body_bytes, limits.body_read_timeout).await?;
                let fields = json_object(&body)?;
                let name = string_field(&fields, "name")?
                    .ok_or_else(|| ApiError::BadRequest("name field required".into()))?;
                let target = string_field(&fields, "targetUrl")?
                    .ok_or_else(|| ApiError::BadRequest("targetUrl field required".into()))?;
                let link = self
                    .blocking(move |svc| svc.create_link(&account, &name, &target))
                    .await??;
                let mut response = json_response(StatusCode::CREATED, &self.link_json(&link));
                let location = format!("{}/api/links?id={}", self.inner.base_url, link.id);
                if let Ok(value) = HeaderValue::from_str(&location) {
                    response.headers_mut().insert(LOCATION, value);
                }
                Ok(response)
            }
            Method::Put => {
                let id = id.ok_or_else(|| ApiError::BadRequest("id parameter required".into()))?;
                let body =
                    read_body(body, limits.max_json_body_bytes, limits.body_read_timeout).await?;
                let fields = json_object(&body)?;
                let update = LinkUpdate::parse(
                    string_field(&fields, "name")?.as_deref(),
                    string_field(&fields, "targetUrl")?.as_deref(),
                )?;
                let id = parse_link_id(&id)?;
                let link = self
                    .blocking(move |svc| svc.update_link(account.id, id, &update))
                    .await??;
                Ok(json_response(StatusCode::OK, &self.link_json(&link)))
            }
            Method::Delete => {
                let id = id.ok_or_else(|| ApiError::BadRequest("id parameter required".into()))?;
                let id = parse_link_id(&id)?;
                self.blocking(move |svc| svc.delete_link(account.id, id))
                    .await??;
                let mut response = Response::new(Full::new(Bytes::new()));
                *response.status_mut() = StatusCode::NO_CONTENT;
                Ok(response)
            }
            Method::Head => Err(ApiError::MethodNotAllowed(
                routes::ROUTES
                    .iter()
                    .find(|r| r.kind == Kind::Links)
                    .map_or(&[], |r| r.methods),
            )),
        }
    }

    async fn analytics(&self, ctx: &AuthContext, query: &Query) -> Result<HttpResponse, ApiError> {
        let link_id = query
            .get("linkId")
            .filter(|s| !s.is_empty())
            .ok_or_else(|| ApiError::BadRequest("linkId parameter required".into()))?;
        let parsed = AnalyticsQuery::parse(
            query.get("startDate"),
            query.get("endDate"),
            query.get("limit"),
        )?;
        let id = parse_link_id(link_id)?;
        let account = ctx.account.clone();
        let report = self
            .blocking(move |svc| svc.analytics(&account, id, &parsed))
            .await??;
        Ok(json_response(StatusCode::OK, &report))
    }

    async fn health(&self) -> Result<HttpResponse, ApiError> {
        self.blocking(|svc| svc.check_store()).await??;
        Ok(json_response(
            StatusCode::OK,
            &serde_json::json!({
                "status": "ok",
                "version": env!("CARGO_PKG_VERSION"),
                "database": "ok",
            }),
        ))
    }

    /// `GET|HEAD /r/<code>`: 302 to the target (recording GET scans of people), or a page.
    async fn redirect(
        &self,
        code: &str,
        method: Method,
        headers: &HeaderMap,
        peer: SocketAddr,
    ) -> HttpResponse {
        // A read-only database cannot take scans; the start-up log said so once.
        let visit = (method == Method::Get && !self.read_only()).then(|| Visit {
            ip: self.inner.proxies.client_ip(peer, headers),
            user_agent: header_text(headers, &USER_AGENT, MAX_USER_AGENT_BYTES),
            referer: header_text(headers, &REFERER, MAX_REFERER_BYTES),
            hint: GeoHint::default(),
        });
        let resolved = match resolve_in_memory(&self.inner.service, code, visit) {
            Ok(found) => Ok(Ok(found)),
            Err(visit) => {
                let owned = code.to_owned();
                self.blocking(move |svc| resolve_and_queue(svc, &owned, visit))
                    .await
            }
        };
        match resolved {
            Ok(Ok(Resolved::Found { target, ack })) => {
                if let Some(ack) = ack {
                    // The visitor is redirected whatever happens to the scan; failures are logged.
                    match tokio::time::timeout(SCAN_ACK_TIMEOUT, ack).await {
                        Ok(Ok(Ok(_))) => {}
                        Ok(Ok(Err(e))) => tracing::warn!(error = %e, "scan not recorded"),
                        Ok(Err(_)) | Err(_) => tracing::warn!("scan not confirmed in time"),
                    }
                }
                let mut response = Response::new(Full::new(Bytes::new()));
                *response.status_mut() = StatusCode::FOUND;
                let h = response.headers_mut();
                match HeaderValue::from_str(&target) {
                    Ok(value) => {
                        h.insert(LOCATION, value);
                    }
                    Err(_) => return pages::page(StatusCode::INTERNAL_SERVER_ERROR, code),
                }
                h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
                response
            }
            Ok(Ok(Resolved::Gone)) => pages::page(StatusCode::GONE, code),
            Ok(Ok(Resolved::Unknown)) => pages::page(StatusCode::NOT_FOUND, code),
            Ok(Err(e)) if e == StoreError::Busy || e.is_unavailable() => {
                tracing::warn!(error = %e, "redirect not served");
                pages::page(StatusCode::SERVICE_UNAVAILABLE, code)
            }
            Ok(Err(e)) => {
                tracing::error!(error = %e, "redirect failed");
                pages::page(StatusCode::INTERNAL_SERVER_ERROR, code)
            }
            Err(e) => {
                tracing::error!(error = ?e, "redirect failed");
                pages::page(StatusCode::INTERNAL_SERVER_ERROR, code)
            }
        }
    }

    fn link_json<'a>(&self, link: &'a Link) -> LinkJson<'a> {
        LinkJson {
            link,
            short_url: format!("{}/r/{}", self.inner.base_url, link.short_code),
        }
    }

    /// Runs short blocking service work (store access) off the async worker threads. At most
    /// [`STORE_CONCURRENCY`] run at once and the others wait their turn in order: a few threads
    /// sharing the cores finish each request sooner than dozens time-slicing them, which keeps
    /// the slowest answers close to the typical one under load.
    async fn blocking<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        F: FnOnce(&AppService) -> T + Send + 'static,
        T: Send + 'static,
    {
        self.run_blocking(&self.inner.store_permits, f).await
    }

    /// Runs long CPU-bound work (large images, batches) off the async worker threads, one task
    /// per core at a time, without holding up store access.
    async fn blocking_heavy<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        F: FnOnce(&AppService) -> T + Send + 'static,
        T: Send + 'static,
    {
        self.run_blocking(&self.inner.heavy_permits, f).await
    }

    async fn run_blocking<T, F>(
        &self,
        permits: &Arc<tokio::sync::Semaphore>,
        f: F,
    ) -> Result<T, ApiError>
    where
        F: FnOnce(&AppService) -> T + Send + 'static,
        T: Send + 'static,
    {
        let permit = Arc::clone(permits)
            .acquire_owned()
            .await
            .map_err(|e| ApiError::Internal(format!("blocking permits closed: {e}")))?;
        let service = Arc::clone(&self.inner.service);
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            f(&service)
        })
        .await
        .map_err(|e| ApiError::Internal(format!("blocking task failed: {e}")))
    }
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("base_url", &self.inner.base_url)
            .finish_non_exhaustive()
    }
}

/// What the caller's key is (for headers and logs) and whether the request may proceed.
type Front = (
    Option<(KeyId, RateLimitStatus)>,
    Result<Arc<AuthContext>, ApiError>,
);

/// After authentication (401): the key's restrictions and plan features (403), then the limits (429).
fn front_after_auth(
    svc: &AppService,
    auth: Result<Arc<AuthContext>, AuthError>,
    endpoint: Endpoint,
    client_ip: Option<IpAddr>,
    origin: Option<&str>,
    wants_logo: bool,
) -> Front {
    let ctx = match auth {
        Ok(ctx) => ctx,
        Err(e) => return (None, Err(e.into())),
    };
    let access = AccessRequest {
        client_ip,
        origin,
        features: if wants_logo { &[Feature::Logo] } else { &[] },
    };
    if let Err(e) = svc.authorize(&ctx, endpoint, access) {
        return (
            Some((ctx.key.id, svc.rate_limit_status(&ctx))),
            Err(e.into()),
        );
    }
    match svc.admit(&ctx, endpoint == Endpoint::Batch) {
        Ok(admission) => (Some((ctx.key.id, admission.status)), Ok(ctx)),
        Err(rejection) => (Some((ctx.key.id, rejection.status)), Err(rejection.into())),
    }
}

fn dashboard(svc: &AppService, ctx: &AuthContext, query: &Query) -> Result<HttpResponse, ApiError> {
    match query.get("action") {
        None | Some("") => Err(ApiError::BadRequest("action parameter required".into())),
        Some("usage") => Ok(json_response(StatusCode::OK, &svc.usage(ctx))),
        Some(_) => Err(ApiError::BadRequest(
            "Invalid action: the only action is usage".into(),
        )),
    }
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
            Some(PreparedScan::Bot) => None,
            Some(PreparedScan::Record(scan)) => {
                let (tx, rx) = oneshot::channel();
                let ack: ScanAck = Box::new(move |result| {
                    // The receiver is gone only if the request was abandoned.
                    let _ = tx.send(result);
                });
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
            let (tx, rx) = oneshot::channel();
            let queued = svc.submit_scan(
                scan,
                Box::new(move |result| {
                    // The receiver is gone only if the request was abandoned.
                    let _ = tx.send(result);
                }),
            );
            match queued {
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
        Some(Ok(PreparedScan::Bot)) | None => None,
    };
    Ok(Resolved::Found {
        target: link.target_url.to_string(),
        ack,
    })
}

impl Meta {
    /// Adds the rate-limit, CORS and safety headers every response carries.
    fn finish(self, mut response: HttpResponse) -> HttpResponse {
        let h = response.headers_mut();
        if let Some(status) = self.rate {
            let (limit, remaining, reset) = status.header_values();
            for (name, value) in [
                (&X_RATELIMIT_LIMIT, limit),
                (&X_RATELIMIT_REMAINING, remaining),
                (&X_RATELIMIT_RESET, reset),
            ] {
                if let Ok(value) = HeaderValue::from_str(&value) {
                    h.insert(name.clone(), value);
                }
            }
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

impl Query {
    fn parse(query: Option<&str>) -> Self {
        Self(
            url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
                .into_owned()
                .collect(),
        )
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
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
    query.get("api_key").map(str::to_owned)
}

fn preflight(spec: &RouteSpec) -> HttpResponse {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::NO_CONTENT;
    let methods: Vec<&str> = spec.methods.iter().map(|m| m.as_str()).collect();
    let h = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&methods.join(", ")) {
        h.insert(ACCESS_CONTROL_ALLOW_METHODS, value);
    }
    if let Ok(value) = HeaderValue::from_str(&routes::allow_header(spec.methods)) {
        h.insert(ALLOW, value);
    }
    h.insert(
        ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(ALLOWED_HEADERS),
    );
    h.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    response
}

fn json_response(status: StatusCode, value: &impl Serialize) -> HttpResponse {
    match serde_json::to_vec(value) {
        Ok(json) => {
            let mut response = Response::new(Full::new(Bytes::from(json)));
            *response.status_mut() = status;
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
        Err(e) => ApiError::Internal(format!("JSON encoding failed: {e}")).into_response(),
    }
}

/// Reads a body of at most `limit` bytes within `timeout`. A larger body is read on and
/// discarded (up to 16 MiB) so that the client is not cut off before it can read the 413.
async fn read_body<B>(body: B, limit: usize, timeout: Duration) -> Result<Bytes, ApiError>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let declared = body.size_hint().lower();
    if declared > MAX_DRAIN_BYTES as u64 {
        return Err(ApiError::BodyTooLarge(limit));
    }
    let read = async move {
        let mut body = std::pin::pin!(body);
        let mut bytes = BytesMut::new();
        let mut seen = 0usize;
        while let Some(frame) = body.as_mut().frame().await {
            let frame = frame.map_err(|e| {
                ApiError::BadRequest(format!("Could not read the request body: {e}"))
            })?;
            if let Some(data) = frame.data_ref() {
                seen = seen.saturating_add(data.len());
                if seen <= limit {
                    bytes.extend_from_slice(data);
                } else if seen > MAX_DRAIN_BYTES {
                    break;
                }
            }
        }
        if seen > limit {
            Err(ApiError::BodyTooLarge(limit))
        } else {
            Ok(bytes.freeze())
        }
    };
    tokio::time::timeout(timeout, read)
        .await
        .map_err(|_| ApiError::BodyTimeout)?
}

fn json_object(body: &[u8]) -> Result<serde_json::Map<String, Value>, ApiError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::BadRequest(
            "Request body must be a JSON object".into(),
        )),
        Err(e) => Err(ApiError::BadRequest(format!("Invalid JSON body: {e}"))),
    }
}

fn string_field(
    fields: &serde_json::Map<String, Value>,
    name: &str,
) -> Result<Option<String>, ApiError> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ApiError::BadRequest(format!("{name} must be a string"))),
    }
}

/// Whether `If-None-Match` matches the strong `etag` (weak comparison, as for GET).
fn if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// A header as text, cut at `max` bytes on a character boundary.
fn header_text(headers: &HeaderMap, name: &HeaderName, max: usize) -> Option<String> {
    let text = String::from_utf8_lossy(headers.get(name)?.as_bytes()).into_owned();
    if text.len() <= max {
        return Some(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(text[..end].to_owned())
}

/// The path and query for logs, with the value of any `api_key` parameter replaced.
fn redact(uri: &Uri) -> String {
    let mut out = uri.path().to_owned();
    if let Some(query) = uri.query() {
        out.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| {
                let name = url::form_urlencoded::parse(pair.as_bytes())
                    .next()
                    .map(|(k, _)| k.into_owned());
                if name.as_deref() == Some("api_key") {
                    "api_key=REDACTED".to_owned()
                } else {
                    pair.to_owned()
                }
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    if out.chars().count() > MAX_LOGGED_PATH {
        out = out.chars().take(MAX_LOGGED_PATH).collect();
        out.push('…');
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction() {
        let uri: Uri = "/api/generate?data=x&api_key=qrapi_live_secret&api%5Fkey=again&b=1"
            .parse()
            .unwrap();
        assert_eq!(
            redact(&uri),
            "/api/generate?data=x&api_key=REDACTED&api_key=REDACTED&b=1"
        );
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

    #[test]
    fn etags_match_weakly() {
        let mut h = HeaderMap::new();
        h.insert(IF_NONE_MATCH, HeaderValue::from_static("\"a\", W/\"b\""));
        assert!(if_none_match(&h, "\"b\""));
        assert!(if_none_match(&h, "\"a\""));
        assert!(!if_none_match(&h, "\"c\""));
    }
}
