//! The configuration version and its changes: a thread that `LISTEN`s for `qr_config` notifications and keeps the latest version in an atomic that request threads read for free, and the changes the notifications name in a log they read under a short lock.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, NoTls, Notification};
use qr_domain::StoreError;
use qr_domain::accounts::config_change::{ChangeLog, ConfigChange, ConfigChanges};

use crate::config_changes::{Notice, parse};

/// How long the listener waits for a notification before checking whether it should stop.
const WAIT: Duration = Duration::from_millis(100);
/// How often the listener reads the version row itself, in case a notification was missed. A
/// version read that is ahead of the notifications is only believed one heartbeat later (the
/// notifications of a commit may arrive just after a read sees it); then the changes between
/// count as unknown, and each server's key cache is emptied once.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// How long the listener waits between attempts to reconnect.
const RECONNECT: Duration = Duration::from_millis(200);

/// What the listener thread shares with the store.
#[derive(Debug, Default)]
pub(crate) struct ConfigVersion {
    /// The latest version seen (announced, read, or written by this server).
    version: AtomicU64,
    /// The changes of the versions announced (or written by this server).
    log: Mutex<ChangeLog>,
    /// Whether the listener is connected: while it is not, changes may go unseen.
    listening: AtomicBool,
    stop: AtomicBool,
}

/// A write transaction's own configuration changes, known to its server at commit.
pub(crate) struct OwnChanges {
    /// The version before the transaction's first change (`None` if it could not be read).
    pub(crate) after: Option<u64>,
    /// The version at its commit.
    pub(crate) version: u64,
    /// The accounts and keys it changed.
    pub(crate) changes: Vec<ConfigChange>,
}

impl ConfigVersion {
    /// The latest version seen, or an error while the listener is reconnecting.
    pub(crate) fn get(&self) -> Result<u64, StoreError> {
        self.ensure_listening()?;
        Ok(self.version.load(Ordering::Acquire))
    }

    /// The changes after `since`, or an error while the listener is reconnecting.
    pub(crate) fn changes_since(&self, since: u64) -> Result<ConfigChanges, StoreError> {
        self.ensure_listening()?;
        Ok(self.log().since(since))
    }

    fn ensure_listening(&self) -> Result<(), StoreError> {
        if self.listening.load(Ordering::Acquire) {
            Ok(())
        } else {
            Err(StoreError::Unreachable(
                "the listener for configuration changes is reconnecting".to_owned(),
            ))
        }
    }

    fn log(&self) -> MutexGuard<'_, ChangeLog> {
        // Every change of the log is complete under the lock; a panic cannot leave half of one.
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes a version read or announced; versions only move forward.
    fn saw(&self, version: u64) {
        self.version.fetch_max(version, Ordering::AcqRel);
    }

    /// Notes a notification.
    fn heard(&self, notice: Notice) {
        let version = {
            let mut log = self.log();
            match notice {
                Notice::Version(version) => log.record(version, []),
                Notice::Change(version, change) => log.record(version, [change]),
                Notice::Unreadable(version) => log.skip_to(version),
            }
            log.latest()
        };
        self.saw(version);
    }

    /// Notes this server's own committed changes, before their notifications arrive.
    pub(crate) fn wrote(&self, own: OwnChanges) {
        if let Some(after) = own.after {
            self.log().record_span(after, own.version, own.changes);
        }
        self.saw(own.version);
    }

    /// Notes that the versions up to `version` went by unheard.
    fn missed(&self, version: u64) {
        self.log().skip_to(version);
        self.saw(version);
    }

    /// The latest version whose changes are known.
    fn heard_through(&self) -> u64 {
        self.log().latest()
    }
}

/// The running listener; dropping it stops the thread.
pub(crate) struct Listener {
    shared: Arc<ConfigVersion>,
    thread: Option<JoinHandle<()>>,
}

impl Listener {
    /// Starts listening and waits until the first version is read (or connecting failed).
    pub(crate) fn start(
        config: Config,
        shared: Arc<ConfigVersion>,
    ) -> Result<Listener, postgres::Error> {
        let (ready, started) = mpsc::channel();
        let for_thread = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("qr-pg-listener".to_owned())
            .spawn(move || run(&config, &for_thread, Some(ready)))
            .map_err(|_| ())
            .ok();
        let listener = Listener { shared, thread };
        match started.recv() {
            Ok(Err(e)) => Err(e),
            // A thread that could not start, or ended, left `listening` false: requests then
            // get `Unreachable` until a store is opened again.
            Ok(Ok(())) | Err(_) => Ok(listener),
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            // The thread checks the flag every `WAIT`; it never panics.
            let _ = thread.join();
        }
    }
}

/// The listener's loop: connect, `LISTEN`, read the version, then follow notifications;
/// reconnect whenever the connection fails.
fn run(
    config: &Config,
    shared: &ConfigVersion,
    mut ready: Option<mpsc::Sender<Result<(), postgres::Error>>>,
) {
    while !shared.stop.load(Ordering::Acquire) {
        match listen(config, shared, &mut ready) {
            Ok(()) => return,
            Err(e) => {
                shared.listening.store(false, Ordering::Release);
                if let Some(ready) = ready.take() {
                    let _ = ready.send(Err(e));
                    return;
                }
                std::thread::sleep(RECONNECT);
            }
        }
    }
}

/// One connection's life; returns `Ok` when asked to stop.
fn listen(
    config: &Config,
    shared: &ConfigVersion,
    ready: &mut Option<mpsc::Sender<Result<(), postgres::Error>>>,
) -> Result<(), postgres::Error> {
    let mut client = config.connect(NoTls)?;
    client.batch_execute("LISTEN qr_config")?;
    // Read after LISTEN, so no change falls between the two; what came before it (at the first
    // connection, or while disconnected) went by unheard.
    let version = read_version(&mut client)?;
    if version > shared.heard_through() {
        shared.missed(version);
    }
    shared.listening.store(true, Ordering::Release);
    if let Some(ready) = ready.take() {
        let _ = ready.send(Ok(()));
    }
    let mut last_read = Instant::now();
    // A version the last heartbeat read before its notifications arrived.
    let mut ahead: Option<u64> = None;
    loop {
        if shared.stop.load(Ordering::Acquire) {
            return Ok(());
        }
        hear(shared, client.notifications().timeout_iter(WAIT))?;
        // A server that went away ends the connection: fail now, not at the next heartbeat.
        client.check_connection()?;
        if last_read.elapsed() >= HEARTBEAT {
            let version = read_version(&mut client)?;
            // Notifications that came with the answer.
            hear(shared, client.notifications().iter())?;
            if let Some(unheard) = ahead.take()
                && shared.heard_through() < unheard
            {
                shared.missed(unheard);
            }
            // Not noted as seen yet: the version a request compares its cache with stays one
            // whose changes are known, so no server serves a key its log has not caught up on.
            ahead = (version > shared.heard_through()).then_some(version);
            last_read = Instant::now();
        }
    }
}

/// Notes every notification `pending` gives.
fn hear(
    shared: &ConfigVersion,
    mut pending: impl FallibleIterator<Item = Notification, Error = postgres::Error>,
) -> Result<(), postgres::Error> {
    while let Some(notification) = pending.next()? {
        if let Some(notice) = parse(notification.payload()) {
            shared.heard(notice);
        }
    }
    Ok(())
}

/// Reads the version row (also a check that the connection works).
pub(crate) fn read_version(client: &mut Client) -> Result<u64, postgres::Error> {
    let row = client.query_one("SELECT value FROM meta WHERE key = 'config_version'", &[])?;
    Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0))
}
