//! `qr serve`: the HTTP server with every option of `qr_http::ServerConfig` as a flag and an environment variable.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use clap::Args;
use qr_domain::Plan;
use qr_http::{
    DEFAULT_MAIL_FROM, DomainsConfig, Limits, LogFormat, OperatorToken, ServerConfig, ServerError,
    WebhookConfig,
};

use crate::accounts::plan_parser;
use crate::db::DbArgs;

/// `qr serve`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
On the first start on an empty database the server creates an owner account (enterprise plan)
and prints its API key once on standard output, with a link (valid 24 hours) that sets the
owner's dashboard password. The dashboard is at http://LISTEN/ (sign-up, keys, links, analytics). Logs go to standard error; RUST_LOG filters
them (default info), --log-format json writes one JSON object per line. /livez and /readyz are
the probes; /metrics needs --metrics-listen or --metrics-token (docs/operations.md). SIGINT or SIGTERM stops the server: requests in flight finish within the
shutdown grace, queued scans are committed and usage counters saved.

The administration commands (qr accounts, qr keys, ...) may run on the same database while the
server runs; their changes apply from the server's next request (link changes within a second).

Several servers run as one service on one PostgreSQL database (--db postgres://...) and one
Redis (--redis redis://...), behind a load balancer: see docs/deploy.md.

Durations take a unit: 500ms, 10s, 5m, 1h (a bare number is seconds). Sizes take KiB or MiB
(a bare number is bytes).")]
pub struct ServeArgs {
    /// The address and port to listen on.
    #[arg(
        long,
        env = "QR_LISTEN",
        default_value = "127.0.0.1:8080",
        value_name = "ADDR:PORT"
    )]
    listen: SocketAddr,
    #[command(flatten)]
    db: DbArgs,
    /// A Redis (or Valkey) URL, redis://host:port/: the per-second rate of each key, the batch
    /// rate and the monthly quota of each account are then shared by every server using it.
    /// Without it they are counted in this server's memory (right for a single server).
    #[arg(long, env = "QR_REDIS_URL", value_name = "URL")]
    redis: Option<String>,
    /// The public address of the service, used in short URLs and redirects
    /// [default: http://LISTEN].
    #[arg(long, env = "QR_BASE_URL", value_name = "URL")]
    base_url: Option<String>,
    /// A MaxMind-format City database (GeoLite2-City.mmdb) for the country and city of scans;
    /// without it they are unknown unless a trusted proxy says.
    #[arg(long, env = "QR_GEOIP_DB", value_name = "FILE")]
    geoip_db: Option<PathBuf>,
    /// Reverse proxies (addresses or CIDR networks, comma-separated or repeated) whose
    /// X-Forwarded-For header gives the client address.
    #[arg(
        long,
        env = "QR_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_name = "CIDR"
    )]
    trusted_proxies: Vec<String>,
    /// Let logo URLs point at loopback, private and other non-public addresses (for tests and
    /// private deployments; leave off on a public server).
    #[arg(
        long,
        env = "QR_ALLOW_PRIVATE_LOGO_HOSTS",
        value_parser = clap::builder::BoolishValueParser::new(),
        action = clap::ArgAction::SetTrue
    )]
    allow_private_logo_hosts: bool,
    /// Let workspaces' single sign-on issuers be on loopback, private and other non-public
    /// addresses (for tests and providers inside a private network).
    #[arg(
        long,
        env = "QR_SSO_ALLOW_PRIVATE_ISSUERS",
        value_parser = clap::builder::BoolishValueParser::new(),
        action = clap::ArgAction::SetTrue
    )]
    sso_allow_private_issuers: bool,
    /// Caps the database file's size (for example 10GiB); writes beyond it get 503 as on a full disk.
    #[arg(long, env = "QR_MAX_DB_SIZE", value_name = "SIZE")]
    max_db_size: Option<Bytes>,
    #[command(flatten)]
    dashboard: DashboardArgs,
    #[command(flatten)]
    operations: OperationsArgs,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    webhooks: WebhookArgs,
    #[command(flatten)]
    domains: DomainArgs,
}

/// How customers' domains are checked.
#[derive(Debug, Args)]
#[command(next_help_heading = "Domains")]
struct DomainArgs {
    /// The DNS server asked for customers' domains' records (their TXT ownership record and
    /// where they point) [default: the system's, from /etc/resolv.conf].
    #[arg(long, env = "QR_DNS_SERVER", value_name = "ADDR:PORT")]
    dns_server: Option<SocketAddr>,
    /// The host customers' domains should point at (a CNAME to it, or its addresses), reported
    /// beside each domain [default: the base URL's host].
    #[arg(long, env = "QR_DOMAIN_TARGET", value_name = "HOST")]
    domain_target: Option<String>,
    /// Time for one DNS try (two tries at most per question), 10ms to 60s.
    #[arg(
        long,
        env = "QR_DNS_TIMEOUT",
        value_name = "DURATION",
        default_value = "5s"
    )]
    dns_timeout: Span,
}

/// How webhooks are delivered.
#[derive(Debug, Args)]
#[command(next_help_heading = "Webhooks")]
struct WebhookArgs {
    /// Let webhook endpoints be loopback, private and other non-public addresses (for tests and
    /// private deployments; leave off on a public server).
    #[arg(
        long,
        env = "QR_WEBHOOKS_ALLOW_PRIVATE",
        value_parser = clap::builder::BoolishValueParser::new(),
        action = clap::ArgAction::SetTrue
    )]
    webhooks_allow_private: bool,
    /// The first retry's delay after a failed delivery; each further retry doubles it, up to an hour.
    #[arg(long, env = "QR_WEBHOOK_BACKOFF_BASE", value_name = "DURATION",
          default_value_t = Span(WebhookConfig::default().backoff_base))]
    webhook_backoff_base: Span,
    /// Time for one delivery, connecting included.
    #[arg(long, env = "QR_WEBHOOK_TIMEOUT", value_name = "DURATION",
          default_value_t = Span(WebhookConfig::default().timeout))]
    webhook_timeout: Span,
    /// Most bytes of an endpoint's answer read.
    #[arg(long, env = "QR_MAX_WEBHOOK_RESPONSE_BYTES", value_name = "SIZE",
          default_value_t = Bytes(WebhookConfig::default().max_response_bytes))]
    max_webhook_response_bytes: Bytes,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LogFormatArg {
    /// Human-readable lines (tracing's format).
    Text,
    /// One JSON object per line, for log shippers.
    Json,
}

/// Logs and metrics: what the operator watches.
#[derive(Debug, Args)]
#[command(next_help_heading = "Operations")]
struct OperationsArgs {
    /// The format of log lines on standard error.
    #[arg(long, env = "QR_LOG_FORMAT", value_enum, default_value_t = LogFormatArg::Text)]
    log_format: LogFormatArg,
    /// A second address serving /metrics (Prometheus text format), /livez and /readyz without
    /// a token; keep it private (loopback or an internal network).
    #[arg(long, env = "QR_METRICS_LISTEN", value_name = "ADDR:PORT")]
    metrics_listen: Option<SocketAddr>,
    /// A token (at least 16 characters) that opens /metrics on the main port to
    /// `Authorization: Bearer TOKEN`; without it (or --metrics-listen) /metrics does not exist.
    #[arg(
        long,
        env = "QR_METRICS_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    metrics_token: Option<String>,
}

/// Whether visitors may create accounts in the dashboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Signup {
    /// Anyone may sign up.
    Open,
    /// Only the operator creates accounts (`qr accounts create`).
    Closed,
}

/// The dashboard's settings: sign-up and mail.
#[derive(Debug, Args)]
#[command(next_help_heading = "Dashboard")]
struct DashboardArgs {
    /// Whether visitors may sign up in the dashboard.
    #[arg(long, env = "QR_SIGNUP", value_enum, default_value_t = Signup::Open)]
    signup: Signup,
    /// Plans a customer may pick at sign-up without approval (comma-separated; free always);
    /// any other plan becomes a request the owner or an admin approves.
    #[arg(
        long,
        env = "QR_SELF_SERVICE_PLANS",
        value_delimiter = ',',
        value_name = "PLAN",
        default_value = "free",
        value_parser = plan_parser()
    )]
    self_service_plans: Vec<Plan>,
    /// The SMTP server for verification and password-reset mail: smtp://user:pass@host:587
    /// (add ?tls=required for STARTTLS) or smtps://user:pass@host:465. Without it the links are
    /// written to the log.
    #[arg(long, env = "QR_SMTP_URL", value_name = "URL")]
    smtp_url: Option<String>,
    /// The sender of the dashboard's mail, an address or `Name <address>`.
    #[arg(long, env = "QR_MAIL_FROM", value_name = "ADDRESS", default_value = DEFAULT_MAIL_FROM)]
    mail_from: String,
}

/// The timeouts and size limits of the server; the defaults are `qr_http::Limits::default()`.
#[derive(Debug, Args)]
#[command(next_help_heading = "Limits")]
struct LimitArgs {
    /// Most connections served at once; when few are free, the longest-idle one gives way.
    #[arg(long, env = "QR_MAX_CONNECTIONS", value_name = "N", value_parser = positive,
          default_value_t = Limits::default().max_connections)]
    max_connections: usize,
    /// Most connections one client address may hold (trusted proxies are exempt).
    #[arg(long, env = "QR_MAX_CONNECTIONS_PER_IP", value_name = "N", value_parser = positive,
          default_value_t = Limits::default().max_connections_per_ip)]
    max_connections_per_ip: usize,
    /// Time allowed to receive a request's headers (HTTP/1.1), from accept for the first request.
    #[arg(long, env = "QR_HEADER_READ_TIMEOUT", value_name = "DURATION",
          default_value_t = Span(Limits::default().header_read_timeout))]
    header_read_timeout: Span,
    /// A connection idle for this long is closed.
    #[arg(long, env = "QR_IDLE_TIMEOUT", value_name = "DURATION",
          default_value_t = Span(Limits::default().idle_timeout))]
    idle_timeout: Span,
    /// Time allowed to receive a request body.
    #[arg(long, env = "QR_BODY_READ_TIMEOUT", value_name = "DURATION",
          default_value_t = Span(Limits::default().body_read_timeout))]
    body_read_timeout: Span,
    /// Largest request head (request line and headers).
    #[arg(long, env = "QR_MAX_HEADER_BYTES", value_name = "SIZE",
          default_value_t = Bytes(Limits::default().max_header_bytes))]
    max_header_bytes: Bytes,
    /// Largest JSON body of the links endpoints.
    #[arg(long, env = "QR_MAX_JSON_BODY_BYTES", value_name = "SIZE",
          default_value_t = Bytes(Limits::default().max_json_body_bytes))]
    max_json_body_bytes: Bytes,
    /// Largest batch request body.
    #[arg(long, env = "QR_MAX_BATCH_BODY_BYTES", value_name = "SIZE",
          default_value_t = Bytes(Limits::default().max_batch_body_bytes))]
    max_batch_body_bytes: Bytes,
    /// Largest body of a dashboard form.
    #[arg(long, env = "QR_MAX_FORM_BODY_BYTES", value_name = "SIZE",
          default_value_t = Bytes(Limits::default().max_form_body_bytes))]
    max_form_body_bytes: Bytes,
    /// Largest body of a dashboard form with a logo upload (the designer).
    #[arg(long, env = "QR_MAX_UPLOAD_BODY_BYTES", value_name = "SIZE",
          default_value_t = Bytes(Limits::default().max_upload_body_bytes))]
    max_upload_body_bytes: Bytes,
    /// Time given to requests in flight when the server stops.
    #[arg(long, env = "QR_SHUTDOWN_GRACE", value_name = "DURATION",
          default_value_t = Span(Limits::default().shutdown_grace))]
    shutdown_grace: Span,
    /// Total time for fetching a logo, redirects included.
    #[arg(long, env = "QR_LOGO_TIMEOUT", value_name = "DURATION",
          default_value_t = Span(Limits::default().logo_timeout))]
    logo_timeout: Span,
    /// Largest logo download.
    #[arg(long, env = "QR_MAX_LOGO_BYTES", value_name = "SIZE",
          default_value_t = Bytes(Limits::default().max_logo_bytes))]
    max_logo_bytes: Bytes,
    /// Most fetched logos kept in memory.
    #[arg(long, env = "QR_LOGO_CACHE_ENTRIES", value_name = "N", value_parser = positive,
          default_value_t = Limits::default().logo_cache_entries)]
    logo_cache_entries: usize,
    /// How long a fetched logo is reused.
    #[arg(long, env = "QR_LOGO_CACHE_TTL", value_name = "DURATION",
          default_value_t = Span(Limits::default().logo_cache_ttl))]
    logo_cache_ttl: Span,
    /// How often scans older than each account's retention are deleted.
    #[arg(long, env = "QR_PRUNE_INTERVAL", value_name = "DURATION",
          default_value_t = Span(Limits::default().prune_interval))]
    prune_interval: Span,
}

/// A duration written as `500ms`, `10s`, `5m`, `1h` or a bare number of seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span(Duration);

/// A size written as `65536`, `64KiB` or `8MiB`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bytes(usize);

/// Runs `qr serve` until SIGINT or SIGTERM.
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let l = args.limits;
    let config = ServerConfig {
        listen: args.listen,
        database: args.db.db,
        redis: args.redis,
        base_url: args.base_url,
        geoip: args.geoip_db,
        trusted_proxies: args
            .trusted_proxies
            .into_iter()
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty())
            .collect(),
        allow_private_logo_hosts: args.allow_private_logo_hosts,
        sso_allow_private_issuers: args.sso_allow_private_issuers,
        max_database_bytes: args.max_db_size.map(|b| b.0 as u64),
        signup_open: args.dashboard.signup == Signup::Open,
        self_service_plans: args.dashboard.self_service_plans,
        smtp_url: args.dashboard.smtp_url,
        mail_from: Some(args.dashboard.mail_from),
        log_format: match args.operations.log_format {
            LogFormatArg::Text => LogFormat::Text,
            LogFormatArg::Json => LogFormat::Json,
        },
        metrics_listen: args.operations.metrics_listen,
        metrics_token: args.operations.metrics_token.map(OperatorToken::new),
        limits: Limits {
            max_connections: l.max_connections,
            max_connections_per_ip: l.max_connections_per_ip,
            header_read_timeout: l.header_read_timeout.0,
            idle_timeout: l.idle_timeout.0,
            body_read_timeout: l.body_read_timeout.0,
            max_header_bytes: l.max_header_bytes.0,
            max_json_body_bytes: l.max_json_body_bytes.0,
            max_batch_body_bytes: l.max_batch_body_bytes.0,
            max_form_body_bytes: l.max_form_body_bytes.0,
            max_upload_body_bytes: l.max_upload_body_bytes.0,
            shutdown_grace: l.shutdown_grace.0,
            logo_timeout: l.logo_timeout.0,
            max_logo_bytes: l.max_logo_bytes.0,
            logo_cache_entries: l.logo_cache_entries,
            logo_cache_ttl: l.logo_cache_ttl.0,
            prune_interval: l.prune_interval.0,
        },
        webhooks: WebhookConfig {
            allow_private: args.webhooks.webhooks_allow_private,
            backoff_base: args.webhooks.webhook_backoff_base.0,
            timeout: args.webhooks.webhook_timeout.0,
            max_response_bytes: args.webhooks.max_webhook_response_bytes.0,
        },
        domains: DomainsConfig {
            dns_server: args.domains.dns_server,
            target: args
                .domains
                .domain_target
                .map(|t| t.trim().trim_end_matches('.').to_ascii_lowercase())
                .filter(|t| !t.is_empty()),
            dns_timeout: Some(args.domains.dns_timeout.0),
        },
    };
    qr_http::run(config).map_err(|e| match e {
        // Configuration comes from the command line or the environment.
        ServerError::Config(_) => crate::error::usage(e.to_string()),
        other => anyhow::Error::new(other),
    })
}

fn positive(raw: &str) -> Result<usize, String> {
    match raw.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "expected a whole number of at least 1, got {raw:?}"
        )),
    }
}

impl FromStr for Span {
    type Err = String;

    fn from_str(raw: &str) -> Result<Self, String> {
        let s = raw.trim();
        let split = s
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(s.len());
        let (number, unit) = s.split_at(split);
        let value: f64 = number.parse().map_err(|_| {
            format!("expected a duration such as 500ms, 10s, 5m or 1h, got {raw:?}")
        })?;
        let seconds = match unit.trim() {
            "ms" => value / 1000.0,
            "" | "s" => value,
            "m" => value * 60.0,
            "h" => value * 3600.0,
            other => {
                return Err(format!(
                    "unknown duration unit {other:?}: use ms, s, m or h"
                ));
            }
        };
        match Duration::try_from_secs_f64(seconds) {
            Ok(d) if !d.is_zero() => Ok(Span(d)),
            _ => Err(format!("a duration must be more than zero, got {raw:?}")),
        }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        if ms.is_multiple_of(3_600_000) {
            write!(f, "{}h", ms / 3_600_000)
        } else if ms.is_multiple_of(60_000) {
            write!(f, "{}m", ms / 60_000)
        } else if ms.is_multiple_of(1000) {
            write!(f, "{}s", ms / 1000)
        } else {
            write!(f, "{ms}ms")
        }
    }
}

impl FromStr for Bytes {
    type Err = String;

    fn from_str(raw: &str) -> Result<Self, String> {
        let s = raw.trim();
        let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let (number, unit) = s.split_at(split);
        let value: usize = number
            .parse()
            .map_err(|_| format!("expected a size such as 65536, 64KiB or 8MiB, got {raw:?}"))?;
        let factor = match unit.trim() {
            "" | "B" => 1,
            "K" | "KiB" | "k" => 1024,
            "M" | "MiB" => 1024 * 1024,
            "G" | "GiB" => 1024 * 1024 * 1024,
            other => return Err(format!("unknown size unit {other:?}: use KiB, MiB or GiB")),
        };
        match value.checked_mul(factor) {
            Some(n) if n > 0 => Ok(Bytes(n)),
            _ => Err(format!(
                "a size must be more than zero and fit in memory, got {raw:?}"
            )),
        }
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MIB: usize = 1024 * 1024;
        const GIB: usize = 1024 * MIB;
        if self.0.is_multiple_of(GIB) {
            write!(f, "{}GiB", self.0 / GIB)
        } else if self.0.is_multiple_of(MIB) {
            write!(f, "{}MiB", self.0 / MIB)
        } else if self.0.is_multiple_of(1024) {
            write!(f, "{}KiB", self.0 / 1024)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_and_print_round() {
        let d = |s: &str| s.parse::<Span>().map(|s| s.0);
        assert_eq!(d("10"), Ok(Duration::from_secs(10)));
        assert_eq!(d("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(d("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(d("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(d("1h"), Ok(Duration::from_secs(3600)));
        assert!(d("0s").is_err() && d("5 days").is_err() && d("s").is_err());
        for text in ["10s", "1m", "1h", "250ms", "90s"] {
            assert_eq!(text.parse::<Span>().unwrap().to_string(), text);
        }
    }

    #[test]
    fn sizes_parse_and_print_round() {
        let b = |s: &str| s.parse::<Bytes>().map(|b| b.0);
        assert_eq!(b("65536"), Ok(65536));
        assert_eq!(b("64KiB"), Ok(65536));
        assert_eq!(b("8MiB"), Ok(8 << 20));
        assert_eq!(b("2GiB"), Ok(2 << 30));
        assert!(b("0").is_err() && b("1GB").is_err() && b("-1").is_err());
        for text in ["64KiB", "8MiB", "1000", "10GiB"] {
            assert_eq!(text.parse::<Bytes>().unwrap().to_string(), text);
        }
    }
}
