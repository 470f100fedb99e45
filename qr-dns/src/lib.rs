//! The DNS client behind qr-domain's `DnsResolver` seam: TXT and address lookups through hickory-resolver, against the system's nameservers or one named nameserver, each call bounded in time and never answered from a cache.
//!
//! hickory is asynchronous; the service calls the seam from blocking threads (its blocking pool,
//! possibly inside a tokio runtime's `spawn_blocking`, or a background thread). So a
//! [`DnsClient`] owns a runtime of its own with one worker thread: a call spawns its query there
//! and waits on a channel for the answer. It never calls `block_on`, so it cannot collide with a
//! caller's runtime, and dropping the client anywhere (even on an async worker) shuts the runtime
//! down in the background instead of blocking.
//!
//! Time: every query has a per-try timeout ([`QueryTimeout`], 5 s by default) and at most
//! [`MAX_TRIES`] tries; on top of hickory's own limits each whole call (the A and AAAA queries of
//! [`DnsResolver::host`] run together, and a CNAME walk included) is cut at `timeout × MAX_TRIES`,
//! so a dead nameserver answers [`DnsFailure::Timeout`] within 10 s by default, never hangs.
//!
//! Cache: none. A customer who has just created the `_qr-verify` record and presses "check" must
//! see it, and one who removed it must see it gone; hickory's response cache is sized to zero
//! entries and every answer's time to live clamped to zero, so each call asks the nameserver.

mod answers;

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::mpsc;
use std::time::Duration;

use hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolveHosts, ResolverConfig, ResolverOpts,
};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::{TokioResolver, system_conf};
use qr_domain::domains::dns::{DnsFailure, DnsResolver, HostRecords};

/// The most tries of one query (the first and one retry): with the per-try timeout, the bound on
/// how long a dead nameserver can hold a call.
pub const MAX_TRIES: u32 = 2;

/// How long one try of a query waits for the nameserver: 5 s by default, as the system's
/// resolver (`resolv.conf(5)`'s `timeout`) does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryTimeout(Duration);

impl QueryTimeout {
    /// The default, 5 s.
    pub const DEFAULT: QueryTimeout = QueryTimeout(Duration::from_secs(5));
    /// The shortest accepted, 10 ms: less cannot cover a round trip even on loopback.
    pub const MIN: Duration = Duration::from_millis(10);
    /// The longest accepted, 60 s: a check button held longer than two minutes is broken.
    pub const MAX: Duration = Duration::from_secs(60);

    /// A timeout between [`QueryTimeout::MIN`] and [`QueryTimeout::MAX`]; `None` outside.
    pub fn new(timeout: Duration) -> Option<QueryTimeout> {
        (Self::MIN..=Self::MAX)
            .contains(&timeout)
            .then_some(QueryTimeout(timeout))
    }

    /// The time of one try.
    pub fn per_try(self) -> Duration {
        self.0
    }

    /// The most time one call can take: every try timing out.
    pub fn per_call(self) -> Duration {
        self.0 * MAX_TRIES
    }
}

impl Default for QueryTimeout {
    fn default() -> Self {
        QueryTimeout::DEFAULT
    }
}

/// A DNS client implementing [`DnsResolver`] (see the module documentation for its threads, time
/// bounds and absent cache).
pub struct DnsClient {
    resolver: TokioResolver,
    /// `Some` until dropped; taken by `Drop` to shut it down without blocking.
    runtime: Option<tokio::runtime::Runtime>,
    timeout: QueryTimeout,
    /// Where the client asks, for `Debug` and logs.
    nameservers: String,
}

impl DnsClient {
    /// A client asking the system's nameservers (`/etc/resolv.conf`'s `nameserver` lines, UDP
    /// with TCP fallback). Its `options timeout:`/`attempts:` are replaced by `timeout` and
    /// [`MAX_TRIES`]; its `search` and `domain` never apply, as every name asked is absolute.
    pub fn system(timeout: QueryTimeout) -> std::io::Result<DnsClient> {
        let (config, _options) = system_conf::read_system_conf().map_err(|e| {
            std::io::Error::other(format!("reading the system's DNS configuration: {e}"))
        })?;
        if config.name_servers().is_empty() {
            return Err(std::io::Error::other(
                "the system's DNS configuration names no nameserver",
            ));
        }
        let nameservers = config
            .name_servers()
            .iter()
            .map(|server| server.ip.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        DnsClient::with_config(config, timeout, format!("system ({nameservers})"))
    }

    /// A client asking the one nameserver at `address` (what `--dns-server ADDR:PORT` names):
    /// UDP, and TCP when an answer comes back truncated.
    pub fn nameserver(address: SocketAddr, timeout: QueryTimeout) -> std::io::Result<DnsClient> {
        let connection = |mut connection: ConnectionConfig| {
            connection.port = address.port();
            connection
        };
        let server = NameServerConfig::new(
            address.ip(),
            true,
            vec![
                connection(ConnectionConfig::udp()),
                connection(ConnectionConfig::tcp()),
            ],
        );
        let config = ResolverConfig::from_parts(None, vec![], vec![server]);
        DnsClient::with_config(config, timeout, address.to_string())
    }

    fn with_config(
        config: ResolverConfig,
        timeout: QueryTimeout,
        nameservers: String,
    ) -> std::io::Result<DnsClient> {
        // One worker: a check asks a handful of queries at a time, and hickory multiplexes them.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("qr-dns")
            .enable_io()
            .enable_time()
            .build()?;
        let _context = runtime.enter();
        let resolver = TokioResolver::builder_with_config(config, TokioRuntimeProvider::new())
            .with_options(options(timeout))
            .build()
            .map_err(|e| std::io::Error::other(format!("building the DNS resolver: {e}")))?;
        Ok(DnsClient {
            resolver,
            runtime: Some(runtime),
            timeout,
            nameservers,
        })
    }

    /// The per-try timeout this client was built with.
    pub fn timeout(&self) -> QueryTimeout {
        self.timeout
    }

    /// Runs `query` on the client's runtime, cut at the per-call bound, and waits for its answer.
    fn run<T, F>(&self, query: F) -> Result<T, DnsFailure>
    where
        T: Send + 'static,
        F: Future<Output = Result<T, DnsFailure>> + Send + 'static,
    {
        let Some(runtime) = &self.runtime else {
            return Err(stopped());
        };
        let limit = self.timeout.per_call();
        let (sender, receiver) = mpsc::sync_channel(1);
        runtime.spawn(async move {
            let answer = tokio::time::timeout(limit, query)
                .await
                .unwrap_or(Err(DnsFailure::Timeout));
            // The caller may have given up (below); then nobody needs the answer.
            let _ = sender.send(answer);
        });
        // The task answers within `limit`; a second's grace covers a busy worker, and past it
        // the caller still gets an answer rather than waiting forever.
        match receiver.recv_timeout(limit + Duration::from_secs(1)) {
            Ok(answer) => answer,
            Err(mpsc::RecvTimeoutError::Timeout) => Err(DnsFailure::Timeout),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(stopped()),
        }
    }
}

/// hickory's options: the caller's timeout, [`MAX_TRIES`], no cache, no hosts file.
fn options(timeout: QueryTimeout) -> ResolverOpts {
    let mut options = ResolverOpts::default();
    options.timeout = timeout.per_try();
    // hickory counts retries after the first try.
    options.attempts = (MAX_TRIES - 1) as usize;
    // No cache (the module documentation says why): zero entries, and should an entry live
    // until the next call anyway, a time to live of zero makes it stale by then.
    options.cache_size = 0;
    options.positive_max_ttl = Some(Duration::ZERO);
    options.negative_max_ttl = Some(Duration::ZERO);
    // Ownership and where a domain points are the public DNS's answers; a line in this
    // machine's /etc/hosts must not fake them.
    options.use_hosts_file = ResolveHosts::Never;
    // The CNAME records of a chain stay in the answer: `host` reports them.
    options.preserve_intermediates = true;
    options
}

/// The failure of a call made after the client's runtime stopped.
fn stopped() -> DnsFailure {
    DnsFailure::Failed("the DNS client stopped".to_owned())
}

impl DnsResolver for DnsClient {
    fn txt(&self, name: &str) -> Result<Vec<String>, DnsFailure> {
        let name = answers::absolute_name(name)?;
        let resolver = self.resolver.clone();
        self.run(async move { answers::txt(&resolver, name).await })
    }

    fn host(&self, name: &str) -> Result<HostRecords, DnsFailure> {
        let name = answers::absolute_name(name)?;
        let resolver = self.resolver.clone();
        self.run(async move { answers::host(&resolver, name).await })
    }
}

impl fmt::Debug for DnsClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DnsClient")
            .field("nameservers", &self.nameservers)
            .field("timeout", &self.timeout.per_try())
            .finish_non_exhaustive()
    }
}

impl Drop for DnsClient {
    fn drop(&mut self) {
        // `Runtime`'s own drop waits for its worker, which panics on an async worker thread (a
        // service's state dropped at the end of a `#[tokio::test]`); the background shutdown
        // does not wait.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
