//! The transaction type implementing the domain's `ReadTx` and `WriteTx` with SQL.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use qr_domain::account::PlanRequest;
use qr_domain::analytics::{DayCount, StatsRows};
use qr_domain::breakdown::{Breakdowns, DIMENSIONS, Dimension, Facets};
use qr_domain::ids::ScanId;
use qr_domain::key::KeyHash;
use qr_domain::limits::UsageMonth;
use qr_domain::listing::LinkQuery;
use qr_domain::scan::ScanRecord;
use qr_domain::{
    Account, AccountId, ApiKey, Email, KeyId, KeyMode, Link, LinkId, Options, PasswordHash, ReadTx,
    ShortCode, StoreError, WriteTx,
};
use rusqlite::{Connection, Params, Row, params};
use uuid::Uuid;

use crate::dashboard;
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

fn account_from(r: &Row<'_>) -> Result<Account, StoreError> {
    Ok(Account {
        id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        email: get::<String>(r, 1)?
            .try_into()
            .map_err(|_| corrupt("email"))?,
        plan: get::<String>(r, 2)?.parse().map_err(|_| corrupt("plan"))?,
        overrides: json(&get::<String>(r, 3)?, "overrides")?,
        created_at: time(get(r, 4)?)?,
        password_hash: get::<Option<String>>(r, 5)?
            .map(|h| PasswordHash::parse(&h).map_err(|_| corrupt("password_hash")))
            .transpose()?,
        email_verified_at: get::<Option<i64>>(r, 6)?.map(time).transpose()?,
        status: get::<String>(r, 7)?
            .parse()
            .map_err(|_| corrupt("status"))?,
        role: get::<String>(r, 8)?.parse().map_err(|_| corrupt("role"))?,
    })
}

const ACCOUNT_COLS: &str =
    "id, email, plan, overrides, created_at, password_hash, email_verified_at, status, role";

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

impl ReadTx for SqlTx<'_> {
    fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLS} FROM accounts WHERE id = ?1");
        self.one(&sql, [&id.as_uuid().as_bytes()[..]], account_from)
    }

    fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLS} FROM accounts ORDER BY created_at, id");
        self.all(&sql, [], account_from)
    }

    fn account_by_email(&self, email: &Email) -> Result<Option<Account>, StoreError> {
        // NOCASE folds ASCII letters only, exactly as `Email::lookup_key` does, and matches the
        // collation of the unique index `accounts_by_email`, so the lookup uses it.
        let sql = format!("SELECT {ACCOUNT_COLS} FROM accounts WHERE email = ?1 COLLATE NOCASE");
        self.one(&sql, [email.as_str()], account_from)
    }

    fn usage(&self, month: UsageMonth) -> Result<Vec<(AccountId, u64)>, StoreError> {
        self.all(
            "SELECT account_id, count FROM usage WHERE month = ?1",
            [month.index()],
            |r| {
                Ok((
                    AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
                    count(get(r, 1)?),
                ))
            },
        )
    }

    fn plan_requests(&self) -> Result<Vec<PlanRequest>, StoreError> {
        dashboard::plan_requests(self)
    }

    fn daily_usage(
        &self,
        account: AccountId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        dashboard::daily_usage(self, account, first, last)
    }
}

impl WriteTx for SqlTx<'_> {
    fn insert_account(&mut self, a: &Account) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO accounts (id, email, plan, overrides, created_at, password_hash, email_verified_at, status, role)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                &a.id.as_uuid().as_bytes()[..],
                a.email.as_str(),
                a.plan.as_str(),
                to_json(&a.overrides)?,
                micros(a.created_at),
                a.password_hash.as_ref().map(PasswordHash::as_str),
                a.email_verified_at.map(micros),
                a.status.as_str(),
                a.role.as_str()
            ],
        )?;
        Ok(())
    }

    fn update_account(&mut self, a: &Account) -> Result<bool, StoreError> {
        let n = self.exec(
            "UPDATE accounts SET email = ?2, plan = ?3, overrides = ?4, password_hash = ?5,
             email_verified_at = ?6, status = ?7, role = ?8 WHERE id = ?1",
            params![
                &a.id.as_uuid().as_bytes()[..],
                a.email.as_str(),
                a.plan.as_str(),
                to_json(&a.overrides)?,
                a.password_hash.as_ref().map(PasswordHash::as_str),
                a.email_verified_at.map(micros),
                a.status.as_str(),
                a.role.as_str()
            ],
        )?;
        Ok(n > 0)
    }

    fn save_usage(
        &mut self,
        month: UsageMonth,
        counts: &[(AccountId, u64)],
    ) -> Result<(), StoreError> {
        for (account, n) in counts {
            self.exec(
                "INSERT INTO usage (account_id, month, count) SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM accounts WHERE id = ?1)
                 ON CONFLICT (account_id, month) DO UPDATE SET count = max(count, excluded.count)",
                params![&account.as_uuid().as_bytes()[..], month.index(), signed(*n)],
            )?;
        }
        Ok(())
    }

    fn put_plan_request(&mut self, request: &PlanRequest) -> Result<(), StoreError> {
        dashboard::put_plan_request(self, request)
    }

    fn delete_plan_request(&mut self, account: AccountId) -> Result<bool, StoreError> {
        dashboard::delete_plan_request(self, account)
    }

    fn add_daily_usage(
        &mut self,
        day: NaiveDate,
        added: &[(AccountId, u64)],
    ) -> Result<(), StoreError> {
        dashboard::add_daily_usage(self, day, added)
    }

    fn delete_account(&mut self, account: AccountId) -> Result<bool, StoreError> {
        dashboard::delete_account(self, account)
    }
}
