//! The configuration version: a thread that `LISTEN`s for `qr_config` notifications and keeps the latest version in an atomic that request threads read for free.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator as _;
use postgres::{Client, Config, NoTls};
use qr_domain::StoreError;

/// How long the listener waits for a notification before checking whether it should stop.
const WAIT: Duration = Duration::from_millis(100);
/// How often the listener reads the version row itself, in case a notification was missed.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// How long the listener waits between attempts to reconnect.
const RECONNECT: Duration = Duration::from_millis(200);

/// What the listener thread shares with the store.
#[derive(Debug, Default)]
pub(crate) struct ConfigVersion {
    version: AtomicU64,
    /// Whether the listener is connected: while it is not, changes may go unseen.
    listening: AtomicBool,
    stop: AtomicBool,
}

impl ConfigVersion {
    /// The latest version seen, or an error while the listener is reconnecting.
    pub(crate) fn get(&self) -> Result<u64, StoreError> {
        if self.listening.load(Ordering::Acquire) {
            Ok(self.version.load(Ordering::Acquire))
        } else {
            Err(StoreError::Unreachable(
                "the listener for configuration changes is reconnecting".to_owned(),
            ))
        }
    }

    /// Notes a version read or announced; versions only move forward.
    pub(crate) fn saw(&self, version: u64) {
        self.version.fetch_max(version, Ordering::AcqRel);
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
    // Read after LISTEN, so no change falls between the two.
    read_version(&mut client, shared)?;
    shared.listening.store(true, Ordering::Release);
    if let Some(ready) = ready.take() {
        let _ = ready.send(Ok(()));
    }
    let mut last_read = Instant::now();
    loop {
        if shared.stop.load(Ordering::Acquire) {
            return Ok(());
        }
        {
            let mut notifications = client.notifications();
            let mut pending = notifications.timeout_iter(WAIT);
            while let Some(notification) = pending.next()? {
                if let Ok(version) = notification.payload().parse::<u64>() {
                    shared.saw(version);
                }
            }
        }
        // A server that went away ends the connection: fail now, not at the next heartbeat.
        client.check_connection()?;
        if last_read.elapsed() >= HEARTBEAT {
            read_version(&mut client, shared)?;
            last_read = Instant::now();
        }
    }
}

/// Reads the version row (also a check that the connection works).
pub(crate) fn read_version(
    client: &mut Client,
    shared: &ConfigVersion,
) -> Result<(), postgres::Error> {
    let row = client.query_one("SELECT value FROM meta WHERE key = 'config_version'", &[])?;
    shared.saw(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0));
    Ok(())
}
