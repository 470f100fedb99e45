//! The network side: accepting connections (HTTP/1.1 and h2c), timeouts and limits, maintenance tasks, graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use qr_domain::service::Flusher;
use qr_domain::{ApiKeySecret, Clock};

use crate::bootstrap::FirstStart;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::app::{App, SharedClock};
use crate::bootstrap::ServerError;
use crate::config::{Limits, LogFormat, ServerConfig};
use crate::connection::{Admit, ConnectionTable, serve_connection};
use crate::ops::Port;

/// How often the usage counters are persisted.
/// How often the background checker looks for domains due a DNS check: the schedule's finest
/// step is a minute (a new domain is checked every minute for an hour), so half of it.
const DOMAIN_CHECK_INTERVAL: Duration = Duration::from_secs(30);
const FLUSH_PERIOD: Duration = Duration::from_secs(1);
/// While every connection slot is taken, how often the idlest connection is asked to give way.
const EVICT_RETRY: Duration = Duration::from_millis(20);

/// A running server.
pub struct ServerHandle {
    addr: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    app: App,
    first_start: Option<FirstStart>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<Result<(), ServerError>>,
}

/// Runs the server until SIGINT/SIGTERM, then drains and flushes; builds its own tokio runtime.
///
/// On the first start on an empty database the owner account's key is printed once on
/// standard output. Logs go to standard error (`RUST_LOG` filters them; default `info`).
pub fn run(config: ServerConfig) -> Result<(), ServerError> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Lines go through a background thread that writes whatever has queued up in one system
    // call; it never drops a line (a full queue makes the logging thread wait), and the guard
    // flushes the rest when `run` returns.
    let (writer, _flush_on_exit) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("qr-log-writer")
        .finish(std::io::BufWriter::with_capacity(
            64 * 1024,
            std::io::stderr(),
        ));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    // Embedders that installed their own subscriber keep it (`try_init`).
    let _ = match config.log_format {
        // Colour codes only for a terminal: a log file or journal gets plain text.
        LogFormat::Text => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init(),
        // One object per line, the event's fields at the top level and the request's id in
        // `span` (every line logged while a request is handled carries it).
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("qr-http")
        .build()?;
    runtime.block_on(async move {
        let addr = config.listen;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServerError::Bind { addr, source })?;
        let handle = start(config, listener).await?;
        if let Some(first) = &handle.first_start {
            println!("Created the owner account (enterprise plan) with this API key:");
            println!();
            println!("    {}", first.key.expose_secret());
            println!();
            println!("It is shown only this once: store it now. Create more keys with `qr keys create`.");
            println!();
            println!("Set the owner's dashboard password (owner@qr-platform.local) within 24 hours at:");
            println!();
            println!("    {}", first.password_link);
            println!();
            println!("Later, `qr accounts reset-link --email owner@qr-platform.local` makes a new link.");
        }
        // One stable line on stdout, so a script that asked for port 0 learns the real address.
        println!("Listening on http://{}", handle.local_addr());
        if let Some(addr) = handle.metrics_addr() {
            println!("Metrics on http://{addr}/metrics");
            tracing::info!(address = %addr, "metrics listening");
        }
        tracing::info!(address = %handle.local_addr(), base_url = handle.app().base_url(), "listening");
        wait_for_signal().await?;
        tracing::info!("shutting down: finishing requests in flight");
        handle.shutdown().await?;
        tracing::info!("stopped");
        Ok(())
    })
}

/// Starts the server on an already bound listener with the system clock.
pub async fn start(
    config: ServerConfig,
    listener: TcpListener,
) -> Result<ServerHandle, ServerError> {
    start_with(config, listener, Arc::new(qr_domain::SystemClock)).await
}

/// Starts the server on an already bound listener with the given clock (tests pass a
/// [`qr_domain::TestClock`]).
pub async fn start_with(
    mut config: ServerConfig,
    listener: TcpListener,
    clock: Arc<dyn Clock>,
) -> Result<ServerHandle, ServerError> {
    let addr = listener.local_addr()?;
    config.listen = addr;
    let limits = config.limits;
    let metrics_listener =
        match config.metrics_listen {
            Some(metrics_addr) => Some(TcpListener::bind(metrics_addr).await.map_err(
                |source| ServerError::Bind {
                    addr: metrics_addr,
                    source,
                },
            )?),
            None => None,
        };
    let metrics_addr = match &metrics_listener {
        Some(l) => Some(l.local_addr()?),
        None => None,
    };
    let config_webhooks = config.webhooks;
    let (app, first_start) =
        tokio::task::spawn_blocking(move || App::open(&config, SharedClock::new(clock)))
            .await
            .map_err(|e| ServerError::Io(std::io::Error::other(e.to_string())))??;
    let flusher = Flusher::spawn(Arc::clone(app.service()), FLUSH_PERIOD)?;
    let (stop, stopped) = watch::channel(false);
    if let Some(listener) = metrics_listener {
        tokio::spawn(serve_metrics(listener, app.clone(), stopped.clone()));
    }
    tokio::spawn(crate::webhook_worker::run(
        app.clone(),
        config_webhooks,
        stopped.clone(),
    ));
    let task = tokio::spawn(serve(listener, app.clone(), limits, stopped, flusher));
    Ok(ServerHandle {
        addr,
        metrics_addr,
        app,
        first_start,
        stop,
        task,
    })
}

impl ServerHandle {
    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address of the metrics listener, when one is configured.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// The application (and through it the service), for embedders and tests.
    pub fn app(&self) -> &App {
        &self.app
    }

    /// The owner key created on first start, if this start created it.
    pub fn initial_key(&self) -> Option<&ApiKeySecret> {
        self.first_start.as_ref().map(|f| &f.key)
    }

    /// The link that sets the owner's dashboard password, if this start created the owner.
    pub fn owner_password_link(&self) -> Option<&str> {
        self.first_start.as_ref().map(|f| f.password_link.as_str())
    }

    /// Stops accepting, lets requests in flight finish within the grace period, then commits
    /// queued scans and flushes the usage counters.
    pub async fn shutdown(self) -> Result<(), ServerError> {
        // The receiver lives in the server task; if it already ended, there is nothing to stop.
        let _ = self.stop.send(true);
        self.task
            .await
            .map_err(|e| ServerError::Io(std::io::Error::other(e.to_string())))?
    }
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHandle")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

async fn wait_for_signal() -> Result<(), ServerError> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate())?;
        tokio::select! {
            result = tokio::signal::ctrl_c() => result?,
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    tokio::signal::ctrl_c().await?;
    Ok(())
}

/// Most connections the metrics listener serves at once (scrapers and probes: a handful).
const METRICS_CONNECTIONS: usize = 16;

/// Serves `/metrics`, `/livez` and `/readyz` on the operator's private address until the stop.
async fn serve_metrics(listener: TcpListener, app: App, mut stopped: watch::Receiver<bool>) {
    let permits = Arc::new(Semaphore::new(METRICS_CONNECTIONS));
    loop {
        let permit = tokio::select! {
            _ = stopped.changed() => return,
            permit = Arc::clone(&permits).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => return,
            },
        };
        let (stream, peer) = tokio::select! {
            _ = stopped.changed() => return,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(error = %e, "metrics accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let app = app.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let app = app.clone();
                async move {
                    Ok::<_, std::convert::Infallible>(
                        app.handle_on(request, peer, Port::Metrics).await,
                    )
                }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(io, service);
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, %peer, "metrics connection ended with an error");
            }
            drop(permit);
        });
    }
}

async fn serve(
    listener: TcpListener,
    app: App,
    limits: Limits,
    mut stopped: watch::Receiver<bool>,
    flusher: Flusher,
) -> Result<(), ServerError> {
    let slots = limits.max_connections.max(1);
    let permits = Arc::new(Semaphore::new(slots));
    let table = Arc::new(ConnectionTable::default());
    let mut connections = JoinSet::new();
    let mut prune = tokio::time::interval(limits.prune_interval.max(Duration::from_secs(1)));
    prune.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut domain_checks = tokio::time::interval(DOMAIN_CHECK_INTERVAL);
    domain_checks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let checking = Arc::new(std::sync::atomic::AtomicBool::new(false));
    loop {
        while connections.try_join_next().is_some() {}
        tokio::select! {
            _ = stopped.changed() => break,
            _ = domain_checks.tick() => {
                // One round at a time: a round of slow nameservers may outlast the interval.
                if !checking.swap(true, std::sync::atomic::Ordering::AcqRel) {
                    let service = Arc::clone(app.service());
                    let checking = Arc::clone(&checking);
                    tokio::task::spawn_blocking(move || {
                        match service.check_due_domains() {
                            Ok(0) => {}
                            Ok(checked) => tracing::info!(checked, "checked customers' domains"),
                            Err(e) => tracing::warn!(error = %e, "checking domains failed"),
                        }
                        checking.store(false, std::sync::atomic::Ordering::Release);
                    });
                }
            }
            _ = prune.tick() => {
                let service = Arc::clone(app.service());
                tokio::task::spawn_blocking(move || match service.prune() {
                    Ok(report) => tracing::info!(scans_deleted = report.scans_deleted, "pruned expired scans"),
                    Err(e) => tracing::warn!(error = %e, "pruning failed"),
                });
            }
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Typically too many open files: back off instead of spinning.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                // A reverse proxy carries many clients on its connections: it gets no share cap.
                let cap = (!app.trusts_peer(peer.ip())).then_some(limits.max_connections_per_ip);
                if table.admit(peer.ip(), cap, permits.available_permits(), slots) == Admit::Refuse {
                    tracing::debug!(%peer, "connection refused: the address holds its share of slots, all busy");
                    continue;
                }
                // Every slot taken: wait for one, asking the idlest connection to give way
                // again every few milliseconds (one that has just connected becomes evictable
                // once quiet). The listen backlog holds further clients meanwhile.
                let permit = loop {
                    tokio::select! {
                        _ = stopped.changed() => break None,
                        permit = Arc::clone(&permits).acquire_owned() => break permit.ok(),
                        () = tokio::time::sleep(EVICT_RETRY) => table.make_room(),
                    }
                };
                let Some(permit) = permit else { break };
                let app = app.clone();
                let stopped = stopped.clone();
                let table = Arc::clone(&table);
                connections.spawn(async move {
                    serve_connection(stream, peer, app, limits, table, stopped).await;
                    drop(permit);
                });
            }
        }
    }
    drop(listener);
    let deadline = tokio::time::sleep(limits.shutdown_grace);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            next = connections.join_next() => if next.is_none() { break },
            _ = &mut deadline => {
                tracing::warn!(remaining = connections.len(), "grace period over: closing remaining connections");
                connections.abort_all();
                while connections.join_next().await.is_some() {}
                break;
            }
        }
    }
    let service = Arc::clone(app.service());
    let read_only = app.read_only();
    let result = tokio::task::spawn_blocking(move || {
        flusher.stop();
        service.shutdown()
    })
    .await
    .map_err(|e| ServerError::Io(std::io::Error::other(e.to_string())))?;
    match result {
        // A read-only database was announced at start: nothing could be written, by design.
        Err(e) if read_only && e == qr_domain::StoreError::ReadOnly => {
            tracing::warn!("usage counters of this run were not saved: the database is read-only");
            Ok(())
        }
        other => Ok(other?),
    }
}
