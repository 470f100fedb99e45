//! The GeoIP database in force, reloaded without a restart when its file changes or on SIGHUP.
//!
//! Lookups read the current database with one atomic load (`arc-swap`): a reload opens and
//! verifies the new file on the reloader's thread and then swaps it in whole, so a scan sees
//! either the old database or the new one, never a mix, and never waits for a reload. A file
//! that cannot be opened, is corrupt or is not a City database leaves the old one in force.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime};

use arc_swap::ArcSwap;
use qr_domain::scans::geo::GeoError;
use qr_domain::{GeoLocator, Location, MaxMindLocator};

/// How often the reloader wakes: the SIGHUP flag is checked every tick, so a signal takes
/// effect within a quarter of a second, and the thread ends within one tick of the server.
const TICK: Duration = Duration::from_millis(250);
/// How often the file's identity is compared (every 8 ticks: 2 s). A `stat` every 2 s costs
/// nothing, and a downloaded update is live within 2 s of its rename.
const POLL_TICKS: u32 = 8;

/// A City database that follows its file.
pub(crate) struct ReloadingLocator {
    path: PathBuf,
    current: ArcSwap<MaxMindLocator>,
}

/// What identifies one version of the file: a rename (a new inode), a rewrite in place (size or
/// modification time) or a touch all change it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileIdentity {
    modified: Option<SystemTime>,
    len: u64,
    inode: (u64, u64),
}

impl FileIdentity {
    fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let inode = (0, 0);
        Some(Self {
            modified: meta.modified().ok(),
            len: meta.len(),
            inode,
        })
    }
}

impl ReloadingLocator {
    /// Opens the database at `path` (an error stops the server's start, as before) and starts
    /// the thread that reloads it when the file changes or the process gets SIGHUP. The thread
    /// ends when the locator is dropped.
    pub(crate) fn start(path: &Path) -> Result<Arc<Self>, GeoError> {
        let identity = FileIdentity::of(path);
        let first = MaxMindLocator::open(path)?;
        log_loaded(path, &first, "opened");
        let locator = Arc::new(Self {
            path: path.to_owned(),
            current: ArcSwap::from_pointee(first),
        });
        let hangup = Arc::new(AtomicBool::new(false));
        let signal = register_hangup(&hangup);
        let weak = Arc::downgrade(&locator);
        let spawned = std::thread::Builder::new()
            .name("qr-geoip-reload".to_owned())
            .spawn(move || watch(weak, identity, &hangup, signal));
        if let Err(e) = spawned {
            // The database is open; only automatic reloads are lost, which a restart restores.
            tracing::error!(error = %e, "cannot start the GeoIP reloader thread: the database will not be reloaded until a restart");
        }
        Ok(locator)
    }

    /// Opens the file again and swaps it in; on failure the old database stays and the error is
    /// logged. Returns whether the new database is in force.
    fn reload(&self, why: &str) -> bool {
        match MaxMindLocator::open(&self.path) {
            Ok(fresh) => {
                log_loaded(&self.path, &fresh, why);
                self.current.store(Arc::new(fresh));
                true
            }
            Err(e) => {
                tracing::error!(error = %e, reason = why, "GeoIP database not reloaded: the previous database stays in force");
                false
            }
        }
    }
}

impl GeoLocator for ReloadingLocator {
    fn locate(&self, ip: IpAddr) -> Location {
        self.current.load().locate(ip)
    }
}

/// The reloader's loop: SIGHUP reloads at once, a changed file at the next poll. A failed
/// attempt is not retried until the file changes again (or SIGHUP), so a broken file logs one
/// error, not one every poll.
fn watch(
    locator: Weak<ReloadingLocator>,
    mut seen: Option<FileIdentity>,
    hangup: &AtomicBool,
    signal: Option<signal_hook::SigId>,
) {
    let mut ticks = 0u32;
    loop {
        std::thread::sleep(TICK);
        let Some(locator) = locator.upgrade() else {
            break;
        };
        ticks += 1;
        if hangup.swap(false, Ordering::Relaxed) {
            seen = FileIdentity::of(&locator.path);
            locator.reload("SIGHUP");
            ticks = 0;
        } else if ticks >= POLL_TICKS {
            ticks = 0;
            let now = FileIdentity::of(&locator.path);
            if now.is_some() && now != seen {
                seen = now;
                locator.reload("the file changed");
            }
        }
    }
    if let Some(id) = signal {
        signal_hook::low_level::unregister(id);
    }
}

/// Sets `flag` on SIGHUP. Without Unix signals (or when registering fails) only file changes
/// reload.
fn register_hangup(flag: &Arc<AtomicBool>) -> Option<signal_hook::SigId> {
    #[cfg(unix)]
    {
        match signal_hook::flag::register(signal_hook::consts::SIGHUP, Arc::clone(flag)) {
            Ok(id) => Some(id),
            Err(e) => {
                tracing::error!(error = %e, "cannot handle SIGHUP: the GeoIP database reloads only when its file changes");
                None
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = flag;
        None
    }
}

/// The one line an operator looks for after an update: which database is now in force.
fn log_loaded(path: &Path, db: &MaxMindLocator, why: &str) {
    let built = db
        .built_at()
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| "unknown".to_owned());
    tracing::info!(
        path = %path.display(),
        database_type = db.database_type(),
        built = %built,
        reason = why,
        "GeoIP database loaded"
    );
}
