//! Connections: a pool opened on demand, each connection with its prepared statements, and transactions begun and ended by hand.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

use postgres::types::ToSql;
use postgres::{Client, Config, NoTls, Row, Statement};
use qr_domain::StoreError;

use crate::error::store_err;

/// Parameters of a statement.
pub(crate) type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// One connection and the statements prepared on it.
pub(crate) struct Conn {
    client: Client,
    statements: HashMap<String, Statement>,
    /// Whether a transaction is open (left open only if a caller's closure panicked).
    in_transaction: bool,
    /// The scan writer number this connection holds, once it wrote a scan batch
    /// (`writers.rs`).
    pub(crate) writer: Option<i16>,
}

impl Conn {
    /// Opens a connection.
    pub(crate) fn connect(config: &Config) -> Result<Conn, postgres::Error> {
        Ok(Conn {
            client: config.connect(NoTls)?,
            statements: HashMap::new(),
            in_transaction: false,
            writer: None,
        })
    }

    /// The client, for what the statement cache does not cover (LISTEN, COPY, scripts).
    pub(crate) fn client(&mut self) -> &mut Client {
        &mut self.client
    }

    /// `sql`, prepared once per connection.
    fn statement(&mut self, sql: &str) -> Result<Statement, StoreError> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql).map_err(|e| store_err(&e))?;
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    /// Runs a query and returns its rows.
    pub(crate) fn query(&mut self, sql: &str, params: Params<'_>) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql)?;
        self.client
            .query(&statement, params)
            .map_err(|e| store_err(&e))
    }

    /// Runs a statement and returns the rows it changed.
    pub(crate) fn execute(&mut self, sql: &str, params: Params<'_>) -> Result<u64, StoreError> {
        let statement = self.statement(sql)?;
        self.client
            .execute(&statement, params)
            .map_err(|e| store_err(&e))
    }

    /// Begins a transaction with `begin` (a `BEGIN …` statement, possibly followed by others).
    pub(crate) fn begin(&mut self, begin: &str) -> Result<(), StoreError> {
        self.client
            .batch_execute(begin)
            .map_err(|e| store_err(&e))?;
        self.in_transaction = true;
        Ok(())
    }

    /// Commits the open transaction.
    pub(crate) fn commit(&mut self) -> Result<(), StoreError> {
        let result = self.client.batch_execute("COMMIT");
        self.in_transaction = false;
        result.map_err(|e| store_err(&e))
    }

    /// Rolls the open transaction back; a connection that cannot do it is broken and will be
    /// replaced, which ends the transaction on the server too.
    pub(crate) fn rollback(&mut self) {
        if self.client.batch_execute("ROLLBACK").is_ok() {
            self.in_transaction = false;
        }
    }

    /// Replaces the connection by a new one.
    fn reconnect(&mut self, config: &Config) -> Result<(), StoreError> {
        *self = Conn::connect(config).map_err(|e| store_err(&e))?;
        Ok(())
    }

    /// Whether the connection can be used: open, and not left inside a transaction.
    fn usable(&mut self) -> bool {
        if self.in_transaction {
            self.rollback();
        }
        !self.in_transaction && !self.client.is_closed()
    }
}

/// Connections opened on demand, up to a fixed number; a broken one is replaced when next taken.
pub(crate) struct Pool {
    config: Config,
    slots: Vec<Mutex<Option<Conn>>>,
    next: AtomicUsize,
}

/// A connection taken from the pool; it goes back when dropped.
pub(crate) struct Pooled<'p> {
    slot: MutexGuard<'p, Option<Conn>>,
}

impl Pool {
    /// A pool of at most `size` connections to `config`, none opened yet.
    pub(crate) fn new(config: Config, size: usize) -> Pool {
        Pool {
            config,
            slots: (0..size.max(1)).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// The connection settings.
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// A free connection if there is one, else the next one in turn (waiting for it); opened or
    /// reopened if needed.
    pub(crate) fn get(&self) -> Result<Pooled<'_>, StoreError> {
        let n = self.slots.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let mut taken = None;
        for i in 0..n {
            match self.slots[(start + i) % n].try_lock() {
                Ok(guard) => {
                    taken = Some(guard);
                    break;
                }
                Err(TryLockError::Poisoned(p)) => {
                    taken = Some(p.into_inner());
                    break;
                }
                Err(TryLockError::WouldBlock) => {}
            }
        }
        let slot = match taken {
            Some(slot) => slot,
            None => self.slots[start % n]
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        };
        Pooled::ready(slot, &self.config)
    }

    /// Takes every connection out (to close them on a thread of the caller's choosing).
    pub(crate) fn drain(&self) -> Vec<Conn> {
        self.slots
            .iter()
            .filter_map(|slot| slot.lock().unwrap_or_else(PoisonError::into_inner).take())
            .collect()
    }
}

impl<'p> Pooled<'p> {
    /// The slot's connection, (re)connecting when it is missing or broken.
    pub(crate) fn ready(
        mut slot: MutexGuard<'p, Option<Conn>>,
        config: &Config,
    ) -> Result<Pooled<'p>, StoreError> {
        if !slot.as_mut().is_some_and(Conn::usable) {
            *slot = None;
            *slot = Some(Conn::connect(config).map_err(|e| store_err(&e))?);
        }
        Ok(Pooled { slot })
    }
}

impl Pooled<'_> {
    /// Begins a transaction with `begin`. A connection the server closed while it sat idle (a
    /// restart, an administrator's kill) only shows it now: nothing has been done yet, so the
    /// transaction begins again on a new connection.
    pub(crate) fn begin(&mut self, begin: &str, config: &Config) -> Result<(), StoreError> {
        match Conn::begin(self, begin) {
            Err(StoreError::Unreachable(_)) => {
                self.reconnect(config)?;
                Conn::begin(self, begin)
            }
            other => other,
        }
    }
}

impl std::ops::Deref for Pooled<'_> {
    type Target = Conn;

    fn deref(&self) -> &Conn {
        self.slot
            .as_ref()
            .unwrap_or_else(|| unreachable!("a pooled slot always holds a connection"))
    }
}

impl std::ops::DerefMut for Pooled<'_> {
    fn deref_mut(&mut self) -> &mut Conn {
        self.slot
            .as_mut()
            .unwrap_or_else(|| unreachable!("a pooled slot always holds a connection"))
    }
}
