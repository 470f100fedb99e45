//! The transaction type implementing the domain's `ReadTx` and `WriteTx` with SQL on one pooled connection.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use postgres::Row;
use postgres::types::FromSql;
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
use uuid::Uuid;

use crate::dashboard;
use crate::pool::{Conn, Params};

/// A transaction on one connection. The connection sits in a `RefCell` because reads take
/// `&self` while the client needs `&mut` for every statement.
pub(crate) struct PgTx<'c> {
    conn: RefCell<&'c mut Conn>,
    /// Whether an account or key was written, so the configuration version moved.
    pub(crate) config_changed: Cell<bool>,
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

/// A month as stored: months since year 0 (`UsageMonth::index`).
fn month_index(month: UsageMonth) -> i32 {
    i32::try_from(month.index()).unwrap_or(i32::MAX)
}

const ACCOUNT_COLS: &str =
    "id, email, plan, overrides, created_at, password_hash, email_verified_at, status, role";

fn account_from(r: &Row) -> Result<Account, StoreError> {
    Ok(Account {
        id: AccountId::from_uuid(get(r, 0, "id")?),
        email: get::<String>(r, 1, "email")?
            .try_into()
            .map_err(|_| corrupt("email"))?,
        plan: get::<&str>(r, 2, "plan")?
            .parse()
            .map_err(|_| corrupt("plan"))?,
        overrides: json(get(r, 3, "overrides")?, "overrides")?,
        created_at: get(r, 4, "created_at")?,
        password_hash: get::<Option<&str>>(r, 5, "password_hash")?
            .map(|h| PasswordHash::parse(h).map_err(|_| corrupt("password_hash")))
            .transpose()?,
        email_verified_at: get(r, 6, "email_verified_at")?,
        status: get::<&str>(r, 7, "status")?
            .parse()
            .map_err(|_| corrupt("status"))?,
        role: get::<&str>(r, 8, "role")?
            .parse()
            .map_err(|_| corrupt("role"))?,
    })
}

impl<'c> PgTx<'c> {
    pub(crate) fn new(conn: &'c mut Conn) -> Self {
        PgTx {
            conn: RefCell::new(conn),
            config_changed: Cell::new(false),
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

    /// Marks the configuration (accounts, keys) as changed by this transaction.
    pub(crate) fn config_write(&self) {
        self.config_changed.set(true);
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

/// Adds `(name, count)` pairs of one dimension.
impl ReadTx for PgTx<'_> {
    fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLS} FROM accounts WHERE id = $1");
        self.one(&sql, &[&id.as_uuid()], account_from)
    }

    fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLS} FROM accounts ORDER BY created_at, id");
        self.all(&sql, &[], account_from)
    }

    fn account_by_email(&self, email: &Email) -> Result<Option<Account>, StoreError> {
        // `lower` under the C collation folds ASCII letters only, exactly as
        // `Email::lookup_key` does, and is the expression of the unique index.
        let sql = format!(
            "SELECT {ACCOUNT_COLS} FROM accounts WHERE lower(email COLLATE \"C\") = lower($1 COLLATE \"C\")"
        );
        self.one(&sql, &[&email.as_str()], account_from)
    }

    fn usage(&self, month: UsageMonth) -> Result<Vec<(AccountId, u64)>, StoreError> {
        self.all(
            "SELECT account_id, count FROM usage WHERE month = $1",
            &[&month_index(month)],
            |r| {
                Ok((
                    AccountId::from_uuid(get(r, 0, "account_id")?),
                    count(get(r, 1, "count")?),
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

impl WriteTx for PgTx<'_> {
    fn insert_account(&mut self, a: &Account) -> Result<(), StoreError> {
        self.config_write();
        self.exec(
            "INSERT INTO accounts (id, email, plan, overrides, created_at, password_hash, email_verified_at, status, role)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[
                &a.id.as_uuid(),
                &a.email.as_str(),
                &a.plan.as_str(),
                &to_json(&a.overrides)?,
                &a.created_at,
                &a.password_hash.as_ref().map(PasswordHash::as_str),
                &a.email_verified_at,
                &a.status.as_str(),
                &a.role.as_str(),
            ],
        )?;
        Ok(())
    }

    fn update_account(&mut self, a: &Account) -> Result<bool, StoreError> {
        self.config_write();
        let n = self.exec(
            "UPDATE accounts SET email = $2, plan = $3, overrides = $4, password_hash = $5,
             email_verified_at = $6, status = $7, role = $8 WHERE id = $1",
            &[
                &a.id.as_uuid(),
                &a.email.as_str(),
                &a.plan.as_str(),
                &to_json(&a.overrides)?,
                &a.password_hash.as_ref().map(PasswordHash::as_str),
                &a.email_verified_at,
                &a.status.as_str(),
                &a.role.as_str(),
            ],
        )?;
        Ok(n > 0)
    }

    fn save_usage(
        &mut self,
        month: UsageMonth,
        counts: &[(AccountId, u64)],
    ) -> Result<(), StoreError> {
        if counts.is_empty() {
            return Ok(());
        }
        let (ids, values): (Vec<Uuid>, Vec<i64>) = counts
            .iter()
            .map(|(id, n)| (id.as_uuid(), signed(*n)))
            .unzip();
        // Accounts deleted meanwhile are skipped; a stored count is never lowered.
        self.exec(
            "INSERT INTO usage (account_id, month, count)
             SELECT u.id, $1, u.n FROM unnest($2::uuid[], $3::bigint[]) AS u(id, n)
             WHERE EXISTS (SELECT 1 FROM accounts WHERE accounts.id = u.id)
             ORDER BY u.id
             ON CONFLICT (account_id, month) DO UPDATE SET count = greatest(usage.count, excluded.count)",
            &[&month_index(month), &ids, &values],
        )?;
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
