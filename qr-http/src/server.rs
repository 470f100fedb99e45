//! The network side: accepting connections (HTTP/1.1 and h2c), timeouts and limits, maintenance tasks, graceful shutdown.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use qr_domain::service::Flusher;
use qr_domain::{ApiKeySecret, Clock};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::app::{App, SharedClock};
use crate::bootstrap::ServerError;
use crate::config::{Limits, ServerConfig};

/// How often the usage counters are persisted.
const FLUSH_PERIOD: Duration = Duration::from_secs(1);
/// How long an idle connection that was asked to close may take before it is dropped.
const CLOSE_GRACE: Duration = Duration::from_secs(5);
/// At shutdown, a connection with nothing in flight is closed once it has been quiet this long.
const DRAIN_QUIET: Duration = Duration::from_millis(50);
/// How often a connection checks whether it may close during the shutdown drain.
const DRAIN_POLL: Duration = Duration::from_millis(5);
/// Most concurrent HTTP/2 streams per connection.
const MAX_H2_STREAMS: u32 = 100;

/// A running server.
pub struct ServerHandle {
    addr: SocketAddr,
    app: App,
    initial_key: Option<ApiKeySecret>,
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
    // Embedders that installed their own subscriber keep it.
    // Colour codes only for a terminal: a log file or journal gets plain text.
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
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
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
        if let Some(secret) = handle.initial_key() {
            println!("Created the owner account (enterprise plan) with this API key:");
            println!();
            println!("    {}", secret.expose_secret());
            println!();
            println!("It is shown only this once: store it now. Create more keys with `qr keys create`.");
        }
        // One stable line on stdout, so a script that asked for port 0 learns the real address.
        println!("Listening on http://{}", handle.local_addr());
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
    let (app, initial_key) =
        tokio::task::spawn_blocking(move || App::open(&config, SharedClock::new(clock)))
            .await
            .map_err(|e| ServerError::Io(std::io::Error::other(e.to_string())))??;
    let flusher = Flusher::spawn(Arc::clone(app.service()), FLUSH_PERIOD)?;
    let (stop, stopped) = watch::channel(false);
    let task = tokio::spawn(serve(listener, app.clone(), limits, stopped, flusher));
    Ok(ServerHandle {
        addr,
        app,
        initial_key,
        stop,
        task,
    })
}

impl ServerHandle {
    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The application (and through it the service), for embedders and tests.
    pub fn app(&self) -> &App {
        &self.app
    }

    /// The owner key created on first start, if this start created it.
    pub fn initial_key(&self) -> Option<&ApiKeySecret> {
        self.initial_key.as_ref()
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

async fn serve(
    listener: TcpListener,
    app: App,
    limits: Limits,
    mut stopped: watch::Receiver<bool>,
    flusher: Flusher,
) -> Result<(), ServerError> {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut connections = JoinSet::new();
    let mut prune = tokio::time::interval(limits.prune_interval.max(Duration::from_secs(1)));
    prune.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        while connections.try_join_next().is_some() {}
        tokio::select! {
            _ = stopped.changed() => break,
            _ = prune.tick() => {
                let service = Arc::clone(app.service());
                tokio::task::spawn_blocking(move || match service.prune() {
                    Ok(report) => tracing::info!(scans_deleted = report.scans_deleted, "pruned expired scans"),
                    Err(e) => tracing::warn!(error = %e, "pruning failed"),
                });
            }
            permit = Arc::clone(&permits).acquire_owned() => {
                let Ok(permit) = permit else { break };
                let accepted = tokio::select! {
                    _ = stopped.changed() => break,
                    accepted = listener.accept() => accepted,
                };
                match accepted {
                    Ok((stream, peer)) => {
                        let app = app.clone();
                        let stopped = stopped.clone();
                        connections.spawn(async move {
                            serve_connection(stream, peer, app, limits, stopped).await;
                            drop(permit);
                        });
                    }
                    Err(e) => {
                        // Typically too many open files: back off instead of spinning.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
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

/// Traffic and requests of one connection, for the idle timeout.
struct Activity {
    start: Instant,
    last_ms: AtomicU64,
    in_flight: AtomicUsize,
}

impl Activity {
    fn touch(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(ms, Ordering::Relaxed);
    }

    fn idle_for(&self) -> Duration {
        let now = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(now.saturating_sub(self.last_ms.load(Ordering::Relaxed)))
    }
}

/// Marks a request in flight until dropped (also when the connection goes away mid-request).
struct InFlight(Arc<Activity>);

impl InFlight {
    fn new(activity: &Arc<Activity>) -> Self {
        activity.in_flight.fetch_add(1, Ordering::Relaxed);
        Self(Arc::clone(activity))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
        self.0.touch();
    }
}

/// A TCP stream that notes the time of its last successful read or write.
struct Tracked {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        result
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write(cx, buf);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        result
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: App,
    limits: Limits,
    mut stopped: watch::Receiver<bool>,
) {
    // Small responses go out at once instead of waiting for Nagle's algorithm.
    let _ = stream.set_nodelay(true);
    let activity = Arc::new(Activity {
        start: Instant::now(),
        last_ms: AtomicU64::new(0),
        in_flight: AtomicUsize::new(0),
    });
    let io = TokioIo::new(Tracked {
        stream,
        activity: Arc::clone(&activity),
    });
    let service_activity = Arc::clone(&activity);
    let service = service_fn(move |request| {
        let app = app.clone();
        let guard = InFlight::new(&service_activity);
        async move {
            let response = app.handle(request, peer).await;
            drop(guard);
            Ok::<_, Infallible>(response)
        }
    });
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .max_buf_size(limits.max_header_bytes.max(8192))
        .max_headers(100)
        .keep_alive(true);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_header_list_size(u32::try_from(limits.max_header_bytes).unwrap_or(u32::MAX))
        .max_concurrent_streams(MAX_H2_STREAMS)
        .keep_alive_interval(Some(limits.idle_timeout / 2))
        .keep_alive_timeout(Duration::from_secs(20));
    let connection = builder.serve_connection(io, service);
    tokio::pin!(connection);
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let mut drain_tick = tokio::time::interval(DRAIN_POLL);
    let mut closing = false;
    let mut draining = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, %peer, "connection ended with an error");
                }
                return;
            }
            changed = stopped.changed(), if !closing && !draining => {
                // A closed channel means the server is gone: close as well.
                let _ = changed;
                draining = true;
            }
            _ = drain_tick.tick(), if draining && !closing => {
                // Closing a keep-alive connection that looks idle would drop a request whose
                // bytes are already on their way; so close it only after a quiet moment, or as
                // soon as a request is in flight (it is answered with `Connection: close`).
                if activity.in_flight.load(Ordering::Relaxed) > 0
                    || activity.idle_for() >= DRAIN_QUIET
                {
                    connection.as_mut().graceful_shutdown();
                    closing = true;
                }
            }
            _ = tick.tick() => {
                if activity.in_flight.load(Ordering::Relaxed) > 0 {
                    continue;
                }
                let idle = activity.idle_for();
                if !closing && idle >= limits.idle_timeout {
                    connection.as_mut().graceful_shutdown();
                    closing = true;
                } else if closing && idle >= limits.idle_timeout + CLOSE_GRACE {
                    return;
                }
            }
        }
    }
}
