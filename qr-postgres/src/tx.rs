//! The transaction type every aggregate's SQL runs on (statements on one pooled connection, and whether the configuration changed), and the column conversions they share.

use std::cell::{Cell, RefCell};

use postgres::Row;
use postgres::types::FromSql;
use qr_domain::StoreError;
use qr_domain::accounts::config_change::ConfigChange;

use crate::pool::{Conn, Params};

/// A transaction on one connection. The connection sits in a `RefCell` because reads take
/// `&self` while the client needs `&mut` for every statement.
pub(crate) struct PgTx<'c> {
    conn: RefCell<&'c mut Conn>,
    /// Whether an account or key was written, so the configuration version moved.
    pub(crate) config_changed: Cell<bool>,
    /// The configuration version before this transaction's first change of it (`None` until
    /// then, or when it could not be read).
    pub(crate) version_before: Cell<Option<u64>>,
    /// The account and key changes of this transaction, which its notifications will name.
    pub(crate) changes: RefCell<Vec<ConfigChange>>,
}

pub(crate) fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("unreadable {what} column"))
}

pub(crate) fn get<'a, T: FromSql<'a>>(row: &'a Row, i: usize, what: &str) -> Result<T, StoreError> {
    row.try_get(i).map_err(|_| corrupt(what))
}

pub(crate) fn count(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

pub(crate) fn signed(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

pub(crate) fn json<T: serde::de::DeserializeOwned>(
    text: &str,
    what: &str,
) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("unreadable {what}: {e}")))
}

pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> Result<String, StoreError> {
    serde_json::to_string(v)
        .map_err(|e| StoreError::Backend(format!("cannot encode settings: {e}")))
}

impl<'c> PgTx<'c> {
    pub(crate) fn new(conn: &'c mut Conn) -> Self {
        PgTx {
            conn: RefCell::new(conn),
            config_changed: Cell::new(false),
            version_before: Cell::new(None),
            changes: RefCell::new(Vec::new()),
        }
    }

    pub(crate) fn all<T>(
        &self,
        sql: &str,
        params: Params<'_>,
        f: impl Fn(&Row) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let rows = self.conn.borrow_mut().query(sql, params)?;
        rows.iter().map(f).collect()
    }

    pub(crate) fn one<T>(
        &self,
        sql: &str,
        params: Params<'_>,
        f: impl Fn(&Row) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let rows = self.conn.borrow_mut().query(sql, params)?;
        rows.first().map(f).transpose()
    }

    pub(crate) fn exec(&self, sql: &str, params: Params<'_>) -> Result<u64, StoreError> {
        self.conn.borrow_mut().execute(sql, params)
    }

    /// Marks the configuration (accounts, keys, webhooks) as changed by this transaction; call
    /// it before the statement that changes it. The first time, notes the version before: the
    /// write lock every write transaction holds keeps other servers from moving it meanwhile,
    /// so the versions after it up to the one at commit are this transaction's.
    pub(crate) fn config_write(&self) {
        if !self.config_changed.replace(true) {
            // Unread, the transaction's changes reach this server's log by notification only.
            self.version_before.set(self.config_version().ok());
        }
    }

    /// [`PgTx::config_write`] for a change a key cache must hear of.
    pub(crate) fn config_write_of(&self, change: ConfigChange) {
        self.config_write();
        self.changes.borrow_mut().push(change);
    }

    /// The configuration version as this transaction sees it.
    pub(crate) fn config_version(&self) -> Result<u64, StoreError> {
        let v = self.one(
            "SELECT value FROM meta WHERE key = 'config_version'",
            &[],
            |r| get::<i64>(r, 0, "config_version"),
        )?;
        Ok(count(v.unwrap_or(0)))
    }
}
