//! `PgStore`: opening, the `Store` implementation, and closing connections off async threads.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use postgres::Config;
use qr_domain::ids::ScanId;
use qr_domain::scan::NewScan;
use qr_domain::{ReadTx, Store, StoreError, WriteTx};

use crate::error::{OpenError, redact};
use crate::listener::{ConfigVersion, Listener};
use crate::pool::{Conn, Pool, Pooled};
use crate::scans;
use crate::schema;
use crate::tx::PgTx;

/// Connections for reads and configuration writes: at most this many statements of one server
/// run at once (scan batches and the change listener have a connection each besides). Eight
/// keeps a 2-core server's blocking threads busy while each waits a network round trip, and
/// three servers stay far below PostgreSQL's default `max_connections` of 100.
pub const POOL_SIZE: usize = 8;

/// How long opening a connection may take before the database counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The advisory lock every write transaction takes: writes that read before they write (the
/// plan's link limit, a free short code, e-mail uniqueness) run one at a time across every
/// server, as on SQLite's single writer. Scan batches do not take it: they lock their links.
const WRITE_LOCK: i64 = 0x5152_504C_0002;

/// The PostgreSQL store: a pool of connections, one connection for scan batches, and a thread
/// that listens for configuration changes.
pub struct PgStore {
    url: String,
    config: Config,
    pool: Pool,
    scans: Mutex<Option<Conn>>,
    version: Arc<ConfigVersion>,
    listener: Option<Listener>,
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/database`, or a
    /// Unix socket directory as the host), checks and migrates its schema, and starts listening
    /// for configuration changes.
    ///
    /// Refuses, without writing to it, a database holding other tables and one migrated by a
    /// newer version. Must not be called from an async task (the client blocks).
    pub fn open(url: &str) -> Result<Self, OpenError> {
        let shown = redact(url);
        let mut config: Config =
            url.parse()
                .map_err(|e: postgres::Error| OpenError::InvalidUrl {
                    url: shown.clone(),
                    message: e.to_string(),
                })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("qr");
        }
        // A server that vanished without closing the connection is noticed within a minute.
        config.keepalives_idle(Duration::from_secs(30));
        let mut first = Conn::connect(&config).map_err(|source| OpenError::Connect {
            url: shown.clone(),
            source,
        })?;
        // Everything up to here only reads, so a refused database stays untouched.
        let version = schema::check(first.client(), &shown)?;
        schema::migrate(first.client(), version, &shown)?;
        let config_version = Arc::new(ConfigVersion::default());
        let listener =
            Listener::start(config.clone(), Arc::clone(&config_version)).map_err(|source| {
                OpenError::Connect {
                    url: shown.clone(),
                    source,
                }
            })?;
        let store = PgStore {
            url: shown,
            pool: Pool::new(config.clone(), POOL_SIZE),
            config,
            scans: Mutex::new(None),
            version: config_version,
            listener: Some(listener),
        };
        close_off_thread(vec![first]);
        Ok(store)
    }

    /// The database's URL, without its password.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Store for PgStore {
    fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn ReadTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut conn = self.pool.get()?;
        conn.begin(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
            self.pool.config(),
        )?;
        let result = f(&PgTx::new(&mut conn));
        match result {
            Ok(value) => {
                conn.commit()?;
                Ok(value)
            }
            Err(e) => {
                conn.rollback();
                Err(e)
            }
        }
    }

    fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut dyn WriteTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut conn = self.pool.get()?;
        conn.begin(
            &format!("BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK})"),
            self.pool.config(),
        )?;
        let result = {
            let mut tx = PgTx::new(&mut conn);
            f(&mut tx).and_then(|value| {
                // The triggers moved the version in this transaction: read it, so this server
                // refuses an old key at once, without waiting for its own notification.
                let changed = tx
                    .config_changed
                    .get()
                    .then(|| tx.config_version())
                    .transpose()?;
                Ok((value, changed))
            })
        };
        match result {
            Ok((value, changed)) => {
                conn.commit()?;
                if let Some(version) = changed {
                    self.version.saw(version);
                }
                Ok(value)
            }
            Err(e) => {
                conn.rollback();
                Err(e)
            }
        }
    }

    fn record_scans(&self, scans: &[NewScan]) -> Result<Vec<Option<ScanId>>, StoreError> {
        let slot = self.scans.lock().unwrap_or_else(PoisonError::into_inner);
        let mut conn = Pooled::ready(slot, &self.config)?;
        conn.begin("BEGIN", &self.config)?;
        match scans::insert_scans(&mut conn, scans) {
            Ok(ids) => {
                conn.commit()?;
                Ok(ids)
            }
            Err(e) => {
                conn.rollback();
                Err(e)
            }
        }
    }

    /// The version the listener last saw (or this server last wrote): an atomic read. While the
    /// listener is reconnecting, changes made elsewhere could go unseen, so this fails with
    /// [`StoreError::Unreachable`] and keys are not served from memory.
    fn config_version(&self) -> Result<u64, StoreError> {
        self.version.get()
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        drop(self.listener.take());
        let mut conns = self.pool.drain();
        conns.extend(
            self.scans
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
        close_off_thread(conns);
    }
}

/// Closes connections on a thread of their own: the client blocks on its own runtime when
/// closing, which would panic on an async worker thread (where the last `Arc` of a server's
/// store may be dropped).
fn close_off_thread(conns: Vec<Conn>) {
    if conns.is_empty() {
        return;
    }
    let closer = std::thread::Builder::new()
        .name("qr-pg-close".to_owned())
        .spawn(move || drop(conns));
    if let Ok(closer) = closer {
        // Closing sends one message per connection; waiting keeps a test's database free of
        // sessions once its store is gone.
        let _ = closer.join();
    }
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}
