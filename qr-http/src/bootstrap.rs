//! The composition root: opens the database (SQLite or PostgreSQL), the shared limits (Redis) and the GeoIP database, builds the service and creates the owner on first start; the only file of qr-http that names a storage engine.

use qr_dns::{DnsClient, QueryTimeout};
use qr_domain::domains::dns::DnsResolver;
use qr_domain::domains::service::DomainConfig;
use std::sync::Arc;

use qr_domain::accounts::limit_state::{LimitState, MemoryLimits};
use qr_domain::passkeys::PasskeyVerifier;
use qr_domain::service::{AccountError, AdminError, WebhookSettings};
use qr_domain::sso::IssuerAddresses;
use qr_domain::webhooks::webhook::EndpointAddresses;
use qr_domain::{
    ApiKeySecret, GeoLocator, KeyMode, NoGeoLocator, Service, SignupPolicy, Store, StoreError,
    TokenPurpose,
};
use qr_oidc::{OidcClient, OidcConfig};
use qr_passkey::WebauthnVerifier;
use qr_redis::RedisLimits;
use qr_store::{Database, Engine};
use qr_web::{MailConfig, Outbox, SsoClient, Web, WebConfig};
use thiserror::Error;

use crate::app::{App, AppParts, SharedClock};
use crate::client_ip::TrustedProxies;
use crate::config::{DEFAULT_MAIL_FROM, ServerConfig};
use crate::logo::LogoFetcher;
use crate::ops::MetricsToken;

/// The service as the server embeds it: the database (SQLite or PostgreSQL) and a shareable clock.
pub type AppService = Service<Database, SharedClock>;

/// The dashboard over that service.
pub type AppWeb = Web<Database, SharedClock>;

/// What the first start on an empty database made: the owner's API key and the link that sets
/// the owner's dashboard password (valid for 24 hours). Neither is available again.
#[derive(Debug)]
pub struct FirstStart {
    /// The owner account's first API key.
    pub key: ApiKeySecret,
    /// `{base_url}/dashboard/reset?token=…`.
    pub password_link: String,
}

/// The e-mail address of the owner account created on first start.
const OWNER_EMAIL: &str = "owner@qr-platform.local";

/// Shortest metrics token accepted: 16 characters, so a token cannot be guessed over the network.
const MIN_METRICS_TOKEN_CHARS: usize = 16;

/// Why the server could not start or stop cleanly.
#[derive(Debug, Error)]
pub enum ServerError {
    /// The database could not be opened.
    #[error(transparent)]
    Open(#[from] qr_store::OpenError),
    /// The Redis URL is invalid.
    #[error(transparent)]
    Redis(#[from] qr_redis::OpenError),
    /// The GeoIP database could not be opened.
    #[error(transparent)]
    Geo(#[from] qr_domain::scans::geo::GeoError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Creating the owner account or key on first start failed.
    #[error("cannot create the owner account")]
    Bootstrap(#[from] AdminError),
    /// Creating the owner's password link on first start failed.
    #[error("cannot create the owner's password link")]
    OwnerLink(#[from] AccountError),
    /// A configuration value is invalid.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The listen address could not be bound.
    #[error("cannot listen on {addr}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Another I/O failure (runtime, threads, signals).
    #[error("I/O error")]
    Io(#[from] std::io::Error),
}

impl App {
    /// Opens the database and the GeoIP database and builds the service and the dashboard. On
    /// an empty database it creates the owner account (Enterprise, the owner role) with one live
    /// key and a link to set its dashboard password, returned once.
    pub fn open(
        config: &ServerConfig,
        clock: SharedClock,
    ) -> Result<(App, Option<FirstStart>), ServerError> {
        let base_url = Self::checked_base_url(config)?;
        Self::check_metrics_token(config)?;
        let proxies =
            TrustedProxies::parse(&config.trusted_proxies).map_err(ServerError::Config)?;
        let logos = LogoFetcher::new(&config.limits, config.allow_private_logo_hosts)
            .map_err(ServerError::Config)?;
        let geo = Self::open_geo(config)?;
        let store = Self::open_store(config)?;
        let limits = Self::open_limits(config, &store)?;
        let concurrency = store.concurrency();
        let domains = Self::domain_config(config, &base_url)?;
        let service = Self::open_service(config, Arc::clone(&store), clock, geo, limits, domains)?;
        let first_start = Self::first_start(&service, &base_url)?;
        let web = Self::open_web(config, &service, &base_url)?;
        let app = App::new(AppParts {
            service,
            web,
            store_concurrency: concurrency,
            base_url,
            proxies,
            limits: config.limits,
            logos,
            metrics_enabled: config.metrics_listen.is_some() || config.metrics_token.is_some(),
            metrics_token: config
                .metrics_token
                .as_ref()
                .map(|t| MetricsToken::new(t.expose())),
            store,
        });
        Ok((app, first_start))
    }

    /// The public base URL, refused unless it is an http or https URL with a host.
    fn checked_base_url(config: &ServerConfig) -> Result<String, ServerError> {
        let base_url = config.effective_base_url();
        let parsed = url::Url::parse(&base_url)
            .map_err(|e| ServerError::Config(format!("base URL {base_url:?}: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(ServerError::Config(format!(
                "base URL {base_url:?} must be an http or https URL with a host"
            )));
        }
        Ok(base_url)
    }

    /// Refuses a metrics token shorter than [`MIN_METRICS_TOKEN_CHARS`].
    fn check_metrics_token(config: &ServerConfig) -> Result<(), ServerError> {
        if let Some(token) = &config.metrics_token
            && token.expose().chars().count() < MIN_METRICS_TOKEN_CHARS
        {
            return Err(ServerError::Config(format!(
                "the metrics token must have at least {MIN_METRICS_TOKEN_CHARS} characters (try `openssl rand -hex 32`)"
            )));
        }
        Ok(())
    }

    /// The GeoIP database, reloaded when its file changes, or no geolocation without one.
    fn open_geo(config: &ServerConfig) -> Result<Arc<dyn GeoLocator>, ServerError> {
        Ok(match &config.geoip {
            Some(path) => crate::geoip::ReloadingLocator::start(path)?,
            None => Arc::new(NoGeoLocator),
        })
    }

    /// The database, with the operator's size cap (SQLite only); a read-only one is logged.
    fn open_store(config: &ServerConfig) -> Result<Arc<Database>, ServerError> {
        let store = Arc::new(Database::open(&config.database)?);
        if store.is_read_only() {
            tracing::warn!(
                database = %config.database,
                "the database is on a read-only file system: serving redirects (without recording scans), generation and reads; writes get 503"
            );
        }
        if let Some(bytes) = config.max_database_bytes {
            match store.limit_size(bytes) {
                Some(in_force) => tracing::info!(bytes = in_force?, "database size capped"),
                None => {
                    return Err(ServerError::Config(
                        "QR_MAX_DB_SIZE caps an SQLite file; a PostgreSQL database's space is managed by its server".to_owned(),
                    ));
                }
            }
        }
        Ok(store)
    }

    /// Where the rate limiters and quota counters live: Redis, shared by several servers, or this
    /// server's memory; logs the storage in use.
    fn open_limits(
        config: &ServerConfig,
        store: &Database,
    ) -> Result<Arc<dyn LimitState>, ServerError> {
        let limits: Arc<dyn LimitState> = match &config.redis {
            Some(url) => Arc::new(RedisLimits::open(url)?),
            None => Arc::new(MemoryLimits::new()),
        };
        tracing::info!(
            database = %config.database,
            engine = %store.engine(),
            limits = if config.redis.is_some() { "shared (Redis)" } else { "this server's memory" },
            "storage opened"
        );
        if store.engine() == Engine::Postgres && config.redis.is_none() {
            tracing::info!(
                "rate limits and quotas are counted in this server's memory: with several servers on this database, set QR_REDIS_URL so they share one budget"
            );
        }
        Ok(limits)
    }

    /// The service over the database, with the operator's sign-up and webhook settings.
    fn open_service(
        config: &ServerConfig,
        store: Arc<Database>,
        clock: SharedClock,
        geo: Arc<dyn GeoLocator>,
        limits: Arc<dyn LimitState>,
        domains: DomainConfig,
    ) -> Result<Arc<AppService>, ServerError> {
        let policy = SignupPolicy::new(config.signup_open, config.self_service_plans.clone());
        let webhooks = WebhookSettings {
            backoff_base: config.webhooks.backoff_base,
            lease: config.webhooks.timeout.saturating_mul(3),
            endpoints: if config.webhooks.allow_private {
                EndpointAddresses::Any
            } else {
                EndpointAddresses::PublicOnly
            },
            ..WebhookSettings::default()
        };
        Ok(Arc::new(
            Service::with_limit_state(store, clock, geo, limits)?
                .with_signup_policy(policy)
                .with_webhook_settings(webhooks)
                .with_domains(domains),
        ))
    }

    /// How customers' domains are checked: the base URL's host is the service's own (never a
    /// customer's domain) and, unless `--domain-target` names another, what domains point at;
    /// the DNS client asks `--dns-server` or the system's nameservers.
    fn domain_config(config: &ServerConfig, base_url: &str) -> Result<DomainConfig, ServerError> {
        let service_host = url::Url::parse(base_url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        let timeout = match config.domains.dns_timeout {
            None => QueryTimeout::DEFAULT,
            Some(t) => QueryTimeout::new(t).ok_or_else(|| {
                ServerError::Config(format!(
                    "the DNS timeout must be between {:?} and {:?}",
                    QueryTimeout::MIN,
                    QueryTimeout::MAX
                ))
            })?,
        };
        let client = match config.domains.dns_server {
            Some(address) => DnsClient::nameserver(address, timeout),
            None => DnsClient::system(timeout),
        };
        // Without a usable resolver (no resolv.conf in a container, say) the service still
        // runs; domain checks then answer that DNS is unavailable, and the log says why.
        let resolver: Option<Arc<dyn DnsResolver>> = match client {
            Ok(client) => Some(Arc::new(client)),
            Err(e) => {
                tracing::warn!(error = %e, "no DNS client: customers' domains cannot be checked");
                None
            }
        };
        Ok(DomainConfig {
            service_host,
            target: config.domains.target.clone(),
            resolver,
        })
    }

    /// On an empty database, the owner account with its first key and password link; on a
    /// database whose first account predates owners, that account made the owner.
    fn first_start(
        service: &AppService,
        base_url: &str,
    ) -> Result<Option<FirstStart>, ServerError> {
        if service.accounts()?.is_empty() {
            match service.create_owner(OWNER_EMAIL) {
                Ok((owner, account)) => {
                    let (key, secret) = service.create_key(account.id, KeyMode::Live)?;
                    let (_, token) = service.issue_token(owner.id, TokenPurpose::Reset)?;
                    tracing::info!(account = %account.id, key_id = %key.id, "created the owner account and its first key");
                    return Ok(Some(FirstStart {
                        key: secret,
                        password_link: format!(
                            "{base_url}/dashboard/reset?token={}",
                            token.expose()
                        ),
                    }));
                }
                // Another server on the same database started at the same moment and created
                // it: its key and password link were printed there.
                Err(AdminError::EmailTaken(_)) => {}
                Err(e) => return Err(e.into()),
            }
        } else if !service.read_only()
            && let Some(owner) = service.adopt_owner(OWNER_EMAIL)?
        {
            tracing::info!(user = %owner.id, "the first user of this database is now its owner");
        }
        Ok(None)
    }

    /// Single sign-on's OpenID Connect client, reaching public issuers only unless the operator
    /// allows others.
    fn sso_client(config: &ServerConfig) -> Result<SsoClient, ServerError> {
        let addresses = if config.sso_allow_private_issuers {
            IssuerAddresses::Any
        } else {
            IssuerAddresses::PublicOnly
        };
        let client = OidcClient::new(OidcConfig {
            addresses,
            ..OidcConfig::default()
        })
        .map_err(ServerError::Io)?;
        Ok(SsoClient {
            provider: Arc::new(client),
            addresses,
        })
    }

    /// The WebAuthn relying party of the base URL, or none (with the reason in the log) when
    /// the base URL cannot be one: passkeys are then not offered.
    fn passkey_verifier(base_url: &str) -> Option<Arc<dyn PasskeyVerifier>> {
        match WebauthnVerifier::for_base_url(base_url) {
            Ok(verifier) => Some(Arc::new(verifier)),
            Err(e) => {
                tracing::info!("passkeys are off: {e}");
                None
            }
        }
    }

    /// The dashboard, with its mail outbox (the log when SMTP is not configured).
    fn open_web(
        config: &ServerConfig,
        service: &Arc<AppService>,
        base_url: &str,
    ) -> Result<Arc<AppWeb>, ServerError> {
        let mail = MailConfig {
            smtp_url: config.smtp_url.clone(),
            from: config
                .mail_from
                .clone()
                .unwrap_or_else(|| DEFAULT_MAIL_FROM.to_owned()),
        };
        let outbox = Outbox::start(&mail).map_err(|e| match e {
            qr_web::MailError::Thread(io) => ServerError::Io(io),
            other => ServerError::Config(other.to_string()),
        })?;
        if outbox.logs_only() {
            tracing::info!(
                "SMTP is not configured (--smtp-url / QR_SMTP_URL): the dashboard's verification and password-reset links are written to this log instead of being mailed; `qr accounts verify --email ADDRESS` verifies an address by hand"
            );
        }
        let web = Arc::new(Web::new(
            Arc::clone(service),
            WebConfig {
                base_url: base_url.to_owned(),
                max_logo_bytes: config.limits.max_logo_bytes,
                api_reference: crate::openapi::api_reference(base_url),
                sso: Self::sso_client(config)?,
                passkeys: Self::passkey_verifier(base_url),
            },
            outbox,
        ));
        Ok(web)
    }
}
