//! The transaction type every aggregate's SQL runs on (statements on one connection), and the column conversions they share.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use qr_domain::ids::UserId;
use qr_domain::{AccountId, StoreError};
use rusqlite::{Connection, Params, Row};
use uuid::Uuid;

use crate::error::store_err;

/// A transaction (or snapshot) on one connection.
pub(crate) struct SqlTx<'c> {
    pub(crate) conn: &'c Connection,
}

pub(crate) fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("unreadable {what} column"))
}

pub(crate) fn micros(t: DateTime<Utc>) -> i64 {
    t.timestamp_micros()
}

pub(crate) fn time(v: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_micros(v).ok_or_else(|| corrupt("timestamp"))
}

pub(crate) fn day_num(d: NaiveDate) -> i64 {
    i64::from(d.num_days_from_ce())
}

pub(crate) fn day(v: i64) -> Result<NaiveDate, StoreError> {
    i32::try_from(v)
        .ok()
        .and_then(NaiveDate::from_num_days_from_ce_opt)
        .ok_or_else(|| corrupt("day"))
}

/// An account id as stored.
pub(crate) fn id_bytes(id: AccountId) -> [u8; 16] {
    id.as_uuid().into_bytes()
}

/// A user id as stored.
pub(crate) fn user_bytes(id: UserId) -> [u8; 16] {
    id.as_uuid().into_bytes()
}

pub(crate) fn uuid(v: &[u8]) -> Result<Uuid, StoreError> {
    Uuid::from_slice(v).map_err(|_| corrupt("id"))
}

pub(crate) fn count(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

pub(crate) fn signed(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

pub(crate) fn get<T: rusqlite::types::FromSql>(r: &Row<'_>, i: usize) -> Result<T, StoreError> {
    r.get(i).map_err(store_err)
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

impl SqlTx<'_> {
    pub(crate) fn all<T>(
        &self,
        sql: &str,
        params: impl Params,
        f: impl Fn(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(store_err)?;
        let mut rows = stmt.query(params).map_err(store_err)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(store_err)? {
            out.push(f(row)?);
        }
        Ok(out)
    }

    pub(crate) fn one<T>(
        &self,
        sql: &str,
        params: impl Params,
        f: impl Fn(&Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(store_err)?;
        let mut rows = stmt.query(params).map_err(store_err)?;
        rows.next().map_err(store_err)?.map(f).transpose()
    }

    pub(crate) fn exec(&self, sql: &str, params: impl Params) -> Result<usize, StoreError> {
        self.conn
            .prepare_cached(sql)
            .and_then(|mut s| s.execute(params))
            .map_err(store_err)
    }
}
