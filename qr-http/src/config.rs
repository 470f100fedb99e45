//! The server's configuration, independent of any command-line parser.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use qr_domain::Plan;
use qr_store::Location;

/// Everything the server needs, independent of clap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The address to listen on (default `127.0.0.1:8080`; env `QR_LISTEN`).
    pub listen: SocketAddr,
    /// The database: an SQLite file path (default `./qr.db`) or a `postgres://` URL (env `QR_DB`).
    pub database: Location,
    /// A Redis URL (env `QR_REDIS_URL`): rate limits and monthly counts are then shared by every
    /// server using the same Redis. `None` keeps them in this server's memory.
    pub redis: Option<String>,
    /// The public base URL used in `shortUrl` and `Location`, without a trailing slash
    /// (default `http://{listen}`; env `QR_BASE_URL`).
    pub base_url: Option<String>,
    /// A MaxMind-format City database for scan locations (env `QR_GEOIP_DB`).
    pub geoip: Option<PathBuf>,
    /// Networks (CIDR or single addresses) of reverse proxies whose `X-Forwarded-For` is
    /// trusted (env `QR_TRUSTED_PROXIES`, comma-separated).
    pub trusted_proxies: Vec<String>,
    /// Allows logo URLs on loopback, private and other non-public addresses (tests and
    /// private deployments; env `QR_ALLOW_PRIVATE_LOGO_HOSTS`).
    pub allow_private_logo_hosts: bool,
    /// Allows single sign-on issuers on loopback, private and other non-public addresses (tests
    /// and providers inside a private network; env `QR_SSO_ALLOW_PRIVATE_ISSUERS`). Off, a
    /// workspace's issuer URL must be a public `https` host, checked again before connecting.
    pub sso_allow_private_issuers: bool,
    /// Caps the database file's size in bytes (env `QR_MAX_DB_SIZE`); writes beyond it are
    /// answered 503 as on a full disk. `None` (the default) leaves only the disk as the limit.
    pub max_database_bytes: Option<u64>,
    /// Whether visitors may sign up in the dashboard (env `QR_SIGNUP`: `open` or `closed`).
    pub signup_open: bool,
    /// Plans a customer may pick without approval; Free always (env `QR_SELF_SERVICE_PLANS`).
    /// Choosing another plan files a request the owner or an admin decides.
    pub self_service_plans: Vec<Plan>,
    /// The SMTP server for the dashboard's mail, `smtp://user:pass@host:587?tls=required` or
    /// `smtps://host:465` (env `QR_SMTP_URL`); without it mails are written to the log.
    pub smtp_url: Option<String>,
    /// The sender of the dashboard's mail (env `QR_MAIL_FROM`; default
    /// `QR Platform <noreply@qr-platform.local>`).
    pub mail_from: Option<String>,
    /// The format of log lines on standard error (env `QR_LOG_FORMAT`): text (the default) or
    /// JSON, one object per line.
    pub log_format: LogFormat,
    /// A second address serving `/metrics`, `/livez` and `/readyz` only, without a token (env
    /// `QR_METRICS_LISTEN`); keep it private.
    pub metrics_listen: Option<SocketAddr>,
    /// The operator's token for `/metrics` on the main port, sent as `Authorization: Bearer`
    /// (env `QR_METRICS_TOKEN`). Without it (and without `metrics_listen`) the main port has
    /// no `/metrics`.
    pub metrics_token: Option<OperatorToken>,
    /// Timeouts and size limits.
    pub limits: Limits,
    /// Webhook deliveries.
    pub webhooks: WebhookConfig,
    /// Customers' domains: how their DNS is checked.
    pub domains: DomainsConfig,
}

/// How customers' domains are checked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DomainsConfig {
    /// The nameserver asked (env `QR_DNS_SERVER`); `None` uses the system's (`/etc/resolv.conf`).
    pub dns_server: Option<SocketAddr>,
    /// What a domain's address records should lead to (env `QR_DOMAIN_TARGET`); `None` uses the
    /// base URL's host.
    pub target: Option<String>,
    /// One DNS try's time limit (two tries at most per question).
    pub dns_timeout: Option<Duration>,
}

/// How webhooks are delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebhookConfig {
    /// Allows endpoints on loopback, private and other non-public addresses (tests and private
    /// deployments; env `QR_WEBHOOKS_ALLOW_PRIVATE`). Off, such endpoints are refused at
    /// registration when the URL writes the address (or `localhost`), and before connecting when
    /// a name resolves to one, with the logo fetcher's address rules.
    pub allow_private: bool,
    /// The first retry's delay, doubled for each further one up to an hour (30 s; env
    /// `QR_WEBHOOK_BACKOFF_BASE`; tests use a fraction of a second).
    pub backoff_base: Duration,
    /// Time for one delivery, connecting included (10 s; env `QR_WEBHOOK_TIMEOUT`). Claimed
    /// deliveries are leased for three times this, so a crashed server's are sent again then.
    pub timeout: Duration,
    /// Most bytes of an endpoint's answer read (64 KiB); the rest is dropped unread.
    pub max_response_bytes: usize,
}

impl Default for WebhookConfig {
    fn default() -> Self {
        Self {
            allow_private: false,
            backoff_base: Duration::from_secs(30),
            timeout: Duration::from_secs(10),
            max_response_bytes: 64 * 1024,
        }
    }
}

/// The format of log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// `tracing`'s human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, for log shippers.
    Json,
}

/// A secret given by the operator; its `Debug` form does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct OperatorToken(String);

impl OperatorToken {
    /// Wraps a token.
    pub fn new(token: impl Into<String>) -> Self {
        Self(token.into())
    }

    /// The token itself.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for OperatorToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OperatorToken(REDACTED)")
    }
}

/// The sender when none is configured.
pub const DEFAULT_MAIL_FROM: &str = "QR Platform <noreply@qr-platform.local>";

/// Timeouts and size limits of the server, each with a safe default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most connections served at once (1024). When fewer than an eighth are free, a new
    /// connection closes the one idle longest; when all are busy with requests, further clients
    /// wait in the listen backlog.
    pub max_connections: usize,
    /// Most connections one client address may hold (256); at the cap, a new connection closes
    /// that address's idlest one, or is refused when none is idle. Trusted proxies are exempt.
    pub max_connections_per_ip: usize,
    /// Time allowed to receive a request's headers on HTTP/1.1, counted from accept for a
    /// connection's first request (10 s).
    pub header_read_timeout: Duration,
    /// A connection without a request in flight and without traffic for this long is closed (60 s).
    pub idle_timeout: Duration,
    /// Time allowed to receive a request body (30 s).
    pub body_read_timeout: Duration,
    /// Largest request head (request line and headers) accepted, in bytes (64 KiB; a generate
    /// URL with 2,953 percent-encoded characters needs up to about 36 KiB).
    pub max_header_bytes: usize,
    /// Largest JSON body of the links endpoints, in bytes (64 KiB).
    pub max_json_body_bytes: usize,
    /// Largest batch body, in bytes (8 MiB: 1,000 items of the longest data fit).
    pub max_batch_body_bytes: usize,
    /// Largest body of a dashboard form, in bytes (64 KiB: every field of every form fits many
    /// times).
    pub max_form_body_bytes: usize,
    /// Largest body of a dashboard form with an upload (the designer's logo), in bytes (2 MiB:
    /// a logo of the largest size, 1 MiB, plus the other fields and the multipart framing).
    pub max_upload_body_bytes: usize,
    /// Time given to requests in flight when the server stops (10 s).
    pub shutdown_grace: Duration,
    /// Total time for fetching a logo, redirects included (3 s).
    pub logo_timeout: Duration,
    /// Largest logo download, in bytes (1 MiB).
    pub max_logo_bytes: usize,
    /// Most logos kept in the cache (64).
    pub logo_cache_entries: usize,
    /// How long a fetched logo is reused (10 minutes).
    pub logo_cache_ttl: Duration,
    /// How often scans older than each account's retention are deleted (1 hour).
    pub prune_interval: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            database: Location::Sqlite(PathBuf::from("./qr.db")),
            redis: None,
            base_url: None,
            geoip: None,
            trusted_proxies: Vec::new(),
            allow_private_logo_hosts: false,
            sso_allow_private_issuers: false,
            max_database_bytes: None,
            signup_open: true,
            self_service_plans: vec![Plan::Free],
            smtp_url: None,
            mail_from: None,
            log_format: LogFormat::Text,
            metrics_listen: None,
            metrics_token: None,
            limits: Limits::default(),
            webhooks: WebhookConfig::default(),
            domains: DomainsConfig::default(),
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_connections: 1024,
            max_connections_per_ip: 256,
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            body_read_timeout: Duration::from_secs(30),
            max_header_bytes: 64 * 1024,
            max_json_body_bytes: 64 * 1024,
            max_batch_body_bytes: 8 * 1024 * 1024,
            max_form_body_bytes: 64 * 1024,
            max_upload_body_bytes: 2 * 1024 * 1024,
            shutdown_grace: Duration::from_secs(10),
            logo_timeout: Duration::from_secs(3),
            max_logo_bytes: 1024 * 1024,
            logo_cache_entries: 64,
            logo_cache_ttl: Duration::from_secs(600),
            prune_interval: Duration::from_secs(3600),
        }
    }
}

impl ServerConfig {
    /// The base URL in force: the configured one without a trailing slash, or `http://{listen}`.
    pub fn effective_base_url(&self) -> String {
        match &self.base_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None => format!("http://{}", self.listen),
        }
    }
}
