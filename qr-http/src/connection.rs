//! One connection's life: serving it, its timeouts (header deadline from accept, idle, drain), and the table that lets idle connections give way when slots run low.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{Notify, watch};

use crate::app::App;
use crate::config::Limits;

/// How long an idle connection that was asked to close may take before it is dropped.
const CLOSE_GRACE: Duration = Duration::from_secs(5);
/// At shutdown, a connection with nothing in flight is closed once it has been quiet this long.
const DRAIN_QUIET: Duration = Duration::from_millis(50);
/// How often a connection checks whether it may close during the shutdown drain.
const DRAIN_POLL: Duration = Duration::from_millis(5);
/// How often a connection checks its header deadline and idle timeout.
const TICK: Duration = Duration::from_millis(250);
/// Most concurrent HTTP/2 streams per connection.
const MAX_H2_STREAMS: u32 = 100;

/// Traffic and requests of one connection, for the timeouts and for eviction.
struct Activity {
    start: Instant,
    peer: IpAddr,
    last_ms: AtomicU64,
    in_flight: AtomicUsize,
    /// Whether a request head has arrived; until then the header deadline runs from accept.
    requested: AtomicBool,
    /// Woken when the connection must give its slot to a new one.
    evict: Notify,
}

impl Activity {
    fn new(peer: IpAddr) -> Self {
        Self {
            start: Instant::now(),
            peer,
            last_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            requested: AtomicBool::new(false),
            evict: Notify::new(),
        }
    }

    fn touch(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(ms, Ordering::Relaxed);
    }

    fn idle_for(&self) -> Duration {
        let now = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(now.saturating_sub(self.last_ms.load(Ordering::Relaxed)))
    }

    /// No request in flight and quiet for a moment: closing it loses nothing.
    fn evictable(&self) -> bool {
        self.in_flight.load(Ordering::Relaxed) == 0 && self.idle_for() >= DRAIN_QUIET
    }
}

/// The open connections, so that idle ones can be told to give way to new ones.
///
/// Without it, a client that opens as many silent sockets as there are slots (1,024 by default)
/// holds them until its sockets time out and every other client waits. With it, a new
/// connection arriving while fewer than an eighth of the slots are free closes the connection
/// that has been idle longest, and one address may hold at most its share of the slots.
#[derive(Default)]
pub(crate) struct ConnectionTable {
    next_id: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Activity>>>,
}

/// What the accept loop does with a new connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admit {
    /// Serve it.
    Serve,
    /// Close it at once: its address holds its share of slots, all of them busy.
    Refuse,
}

/// Removes a connection from the table when its task ends, however it ends.
pub(crate) struct Registration {
    table: Arc<ConnectionTable>,
    id: u64,
    activity: Arc<Activity>,
}

impl ConnectionTable {
    /// Decides about a connection from `peer` arriving while `free` of the `slots` are free:
    /// makes room by evicting idle connections where needed.
    pub(crate) fn admit(
        &self,
        peer: IpAddr,
        per_ip_cap: Option<usize>,
        free: usize,
        slots: usize,
    ) -> Admit {
        let open = self.lock();
        if let Some(cap) = per_ip_cap {
            let mine = open.values().filter(|a| a.peer == peer);
            if mine.clone().count() >= cap {
                return match idlest(mine) {
                    Some(victim) => {
                        victim.evict.notify_one();
                        Admit::Serve
                    }
                    None => Admit::Refuse,
                };
            }
        }
        if free <= slots / 8 + 1 {
            evict_idlest(&open);
        }
        Admit::Serve
    }

    /// Asks the connection idle longest to give way, if one is idle.
    pub(crate) fn make_room(&self) {
        evict_idlest(&self.lock());
    }

    fn register(self: &Arc<Self>, peer: IpAddr) -> Registration {
        let activity = Arc::new(Activity::new(peer));
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(id, Arc::clone(&activity));
        Registration {
            table: Arc::clone(self),
            id,
            activity,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Activity>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn evict_idlest(open: &HashMap<u64, Arc<Activity>>) {
    if let Some(victim) = idlest(open.values()) {
        victim.evict.notify_one();
    }
}

/// The evictable connection that has been idle longest.
fn idlest<'a>(candidates: impl Iterator<Item = &'a Arc<Activity>>) -> Option<&'a Arc<Activity>> {
    candidates
        .filter(|a| a.evictable())
        .max_by_key(|a| a.idle_for())
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.table.lock().remove(&self.id);
    }
}

/// Marks a request in flight until dropped (also when the connection goes away mid-request).
struct InFlight(Arc<Activity>);

impl InFlight {
    fn new(activity: &Arc<Activity>) -> Self {
        activity.requested.store(true, Ordering::Relaxed);
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

/// Counts the connection as open for metrics while it lives.
struct OpenConnection(App);

impl OpenConnection {
    fn new(app: &App) -> Self {
        app.metrics().connection(true);
        Self(app.clone())
    }
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.metrics().connection(false);
    }
}

/// Serves one connection until the client leaves, a timeout or eviction closes it, or the
/// shutdown drain does.
pub(crate) async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: App,
    limits: Limits,
    table: Arc<ConnectionTable>,
    mut stopped: watch::Receiver<bool>,
) {
    // Small responses go out at once instead of waiting for Nagle's algorithm.
    let _ = stream.set_nodelay(true);
    let _open = OpenConnection::new(&app);
    let registration = table.register(peer.ip());
    let activity = Arc::clone(&registration.activity);
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
    let mut tick = tokio::time::interval(TICK);
    let mut drain_tick = tokio::time::interval(DRAIN_POLL);
    // When the connection was asked to close; it is dropped if it has not closed CLOSE_GRACE later.
    let mut closing: Option<Instant> = None;
    let mut draining = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, %peer, "connection ended with an error");
                }
                return;
            }
            () = activity.evict.notified(), if closing.is_none() => {
                // A connection that never sent a request has nothing to finish.
                if !activity.requested.load(Ordering::Relaxed) {
                    tracing::debug!(%peer, "silent connection closed to make room");
                    return;
                }
                connection.as_mut().graceful_shutdown();
                closing = Some(Instant::now());
            }
            changed = stopped.changed(), if closing.is_none() && !draining => {
                // A closed channel means the server is gone: close as well.
                let _ = changed;
                draining = true;
            }
            _ = drain_tick.tick(), if draining && closing.is_none() => {
                // Closing a keep-alive connection that looks idle would drop a request whose
                // bytes are already on their way; so close it only after a quiet moment, or as
                // soon as a request is in flight (it is answered with `Connection: close`).
                if activity.in_flight.load(Ordering::Relaxed) > 0
                    || activity.idle_for() >= DRAIN_QUIET
                {
                    connection.as_mut().graceful_shutdown();
                    closing = Some(Instant::now());
                }
            }
            _ = tick.tick() => {
                // The header deadline runs from accept: a socket that sends no complete request
                // head in time is dropped, whatever hyper's own timer (which starts only with
                // the first byte) would do.
                if !activity.requested.load(Ordering::Relaxed)
                    && activity.start.elapsed() >= limits.header_read_timeout
                {
                    tracing::debug!(%peer, "no request head in time: connection closed");
                    return;
                }
                if activity.in_flight.load(Ordering::Relaxed) > 0 {
                    continue;
                }
                match closing {
                    None if activity.idle_for() >= limits.idle_timeout => {
                        connection.as_mut().graceful_shutdown();
                        closing = Some(Instant::now());
                    }
                    Some(since) if since.elapsed() >= CLOSE_GRACE => return,
                    _ => {}
                }
            }
        }
    }
}
