//! The single scan writer: one thread that commits queued scans in groups (group commit).
//!
//! Callers queue a scan with an acknowledgement callback; the writer takes
//! everything queued (up to a batch limit), stores it with one
//! [`Store::record_scans`] call, i.e. one transaction, and then runs each
//! callback. An acknowledged scan is therefore committed.

use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::error::StoreError;
use crate::scans::scan::{NewScan, ScanFate};
use crate::stats::WriterStats;
use crate::store::Store;
use crate::webhooks::service::Subscriptions;

/// Called once the scan's transaction has committed with what became of the scan (stored, or
/// left out because its link was deleted or had reached its cap), or failed.
pub type ScanAck = Box<dyn FnOnce(Result<ScanFate, StoreError>) + Send>;

/// Most scans committed in one transaction.
pub const MAX_BATCH: usize = 4_096;
/// Most scans waiting in the queue; submitting beyond this blocks (back-pressure).
pub const QUEUE_CAPACITY: usize = 65_536;

/// The result of [`ScanWriter::try_submit`].
// `Yes` is the common answer; a full queue hands the scan back by value, as it came (a move of
// about 240 bytes, where a box would allocate on the path that is already behind).
#[allow(clippy::large_enum_variant)]
pub enum Queued {
    /// The scan is queued; its callback will run after the commit.
    Yes,
    /// The queue is full: the scan and its callback, for a blocking [`ScanWriter::submit`].
    Full(NewScan, ScanAck),
}

impl std::fmt::Debug for Queued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Queued::Yes => f.write_str("Yes"),
            Queued::Full(scan, _) => f.debug_tuple("Full").field(scan).finish(),
        }
    }
}

/// Handle to the writer thread. Dropping it drains the queue and joins the thread.
pub struct ScanWriter {
    sender: Mutex<Option<SyncSender<Job>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    stats: Arc<WriterStats>,
    room: Arc<Room>,
}

/// What the writer calls each time it takes a batch out of the queue, with the number of places
/// that freed: callers waiting for room (without blocking a thread) learn of it there.
type RoomHook = Box<dyn Fn(usize) + Send + Sync>;

/// The hook set by [`ScanWriter::on_room`], shared with the writer thread.
#[derive(Default)]
struct Room {
    hook: RwLock<Option<RoomHook>>,
}

impl Room {
    fn freed(&self, places: usize) {
        if let Some(hook) = self
            .hook
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            hook(places);
        }
    }
}

struct Job {
    scan: NewScan,
    ack: ScanAck,
}

impl ScanWriter {
    /// Starts the writer thread over `store`, writing no webhook events.
    pub fn spawn<S: Store>(store: Arc<S>) -> std::io::Result<Self> {
        Self::start(store, Arc::new(WriterStats::default()), None)
    }

    /// Starts the writer thread over `store`, counting its work in `stats`; each batch's scans
    /// of accounts subscribed to `scan.recorded` (in `subscriptions`) write their events in the
    /// batch's transaction.
    pub(crate) fn spawn_with_events<S: Store>(
        store: Arc<S>,
        stats: Arc<WriterStats>,
        subscriptions: Arc<Subscriptions>,
    ) -> std::io::Result<Self> {
        Self::start(store, stats, Some(subscriptions))
    }

    fn start<S: Store>(
        store: Arc<S>,
        stats: Arc<WriterStats>,
        subscriptions: Option<Arc<Subscriptions>>,
    ) -> std::io::Result<Self> {
        let (sender, receiver) = mpsc::sync_channel(QUEUE_CAPACITY);
        stats.set_alive(true);
        let counted = Arc::clone(&stats);
        let room = Arc::new(Room::default());
        let freed = Arc::clone(&room);
        let thread = std::thread::Builder::new()
            .name("qr-scan-writer".to_owned())
            .spawn(move || {
                // Marks the writer stopped however the thread ends, a panicking callback included.
                let _alive = Alive(&counted);
                run(
                    &*store,
                    &receiver,
                    &counted,
                    &freed,
                    subscriptions.as_deref(),
                );
            });
        let thread = thread.inspect_err(|_| stats.set_alive(false))?;
        Ok(Self {
            sender: Mutex::new(Some(sender)),
            thread: Mutex::new(Some(thread)),
            stats,
            room,
        })
    }

    /// Sets what the writer calls, on its thread, each time it takes scans out of the queue,
    /// with how many: an async caller whose [`ScanWriter::try_submit`] found the queue full
    /// waits for it instead of blocking a thread. It must return at once.
    pub fn on_room(&self, hook: impl Fn(usize) + Send + Sync + 'static) {
        *self
            .room
            .hook
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(Box::new(hook));
    }

    /// The writer's counters.
    pub fn stats(&self) -> &WriterStats {
        &self.stats
    }

    /// Queues a scan; `ack` runs on the writer thread after the commit. Blocks while the queue is full.
    pub fn submit(&self, scan: NewScan, ack: ScanAck) -> Result<(), StoreError> {
        let sender = self.sender()?;
        let job = Job { scan, ack };
        // Counted before sending, so the writer never takes a scan the depth does not include.
        self.stats.queued();
        let sent = match sender.try_send(job) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(job)) => sender.send(job).map_err(|_| StoreError::WriterStopped),
            Err(TrySendError::Disconnected(_)) => Err(StoreError::WriterStopped),
        };
        if sent.is_err() {
            self.stats.taken(1);
        }
        sent
    }

    /// Queues a scan without blocking; a full queue hands the scan and its callback back.
    pub fn try_submit(&self, scan: NewScan, ack: ScanAck) -> Result<Queued, StoreError> {
        let sender = self.sender()?;
        self.stats.queued();
        let sent = sender.try_send(Job { scan, ack });
        if sent.is_err() {
            self.stats.taken(1);
        }
        match sent {
            Ok(()) => Ok(Queued::Yes),
            Err(TrySendError::Full(job)) => Ok(Queued::Full(job.scan, job.ack)),
            Err(TrySendError::Disconnected(_)) => Err(StoreError::WriterStopped),
        }
    }

    /// Queues a scan and waits for its commit.
    pub fn record(&self, scan: NewScan) -> Result<ScanFate, StoreError> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.submit(
            scan,
            Box::new(move |result| {
                // The receiver only disappears if the caller is gone, and then nobody needs the answer.
                let _ = tx.send(result);
            }),
        )?;
        rx.recv().map_err(|_| StoreError::WriterStopped)?
    }

    /// The queue's sending end, unless the writer was shut down.
    fn sender(&self) -> Result<SyncSender<Job>, StoreError> {
        self.sender
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or(StoreError::WriterStopped)
    }

    /// Stops accepting scans, commits everything queued, and waits for the thread to end.
    pub fn shutdown(&self) {
        drop(
            self.sender
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
        if let Some(thread) = self
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            // A panic on the writer thread (only possible inside a caller's ack) has already been reported.
            let _ = thread.join();
        }
    }
}

impl Drop for ScanWriter {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl std::fmt::Debug for ScanWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanWriter").finish_non_exhaustive()
    }
}

/// Clears the writer's alive flag when the thread ends.
struct Alive<'a>(&'a WriterStats);

impl Drop for Alive<'_> {
    fn drop(&mut self) {
        self.0.set_alive(false);
    }
}

fn run<S: Store>(
    store: &S,
    receiver: &Receiver<Job>,
    stats: &WriterStats,
    room: &Room,
    subscriptions: Option<&Subscriptions>,
) {
    let mut scans = Vec::with_capacity(MAX_BATCH);
    let mut acks = Vec::with_capacity(MAX_BATCH);
    while let Ok(first) = receiver.recv() {
        scans.push(first.scan);
        acks.push(first.ack);
        while scans.len() < MAX_BATCH {
            match receiver.try_recv() {
                Ok(job) => {
                    scans.push(job.scan);
                    acks.push(job.ack);
                }
                Err(_) => break,
            }
        }
        stats.taken(scans.len());
        room.freed(scans.len());
        // One atomic read of the config version per batch; the set is reloaded only when a
        // webhook (or an account or key) changed.
        let subscribed = subscriptions.map(|s| s.current(store));
        let started = Instant::now();
        let result = match subscribed {
            Some(s) if !s.scans.is_empty() => store.record_scans_with_events(&scans, &s.scans),
            _ => store.record_scans(&scans),
        };
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        match &result {
            Ok(fates) => stats.committed(
                scans.len(),
                fates.iter().filter(|f| f.id().is_some()).count() as u64,
                micros,
            ),
            Err(_) => stats.failed(scans.len(), micros),
        }
        scans.clear();
        match result {
            Ok(fates) => {
                for (ack, fate) in acks.drain(..).zip(fates) {
                    ack(Ok(fate));
                }
            }
            Err(e) => {
                for ack in acks.drain(..) {
                    ack(Err(e.clone()));
                }
            }
        }
    }
}
