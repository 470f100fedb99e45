//! Accounts in SQL: the account records (found by id or by e-mail address), their pending plan requests, their persisted usage per month and per day, and deleting an account with everything it owns.

use chrono::NaiveDate;
use postgres::Row;
use qr_domain::accounts::account::PlanRequest;
use qr_domain::accounts::config_change::ConfigChange;
use qr_domain::accounts::limits::UsageMonth;
use qr_domain::store::{AccountReads, AccountWrites};
use qr_domain::{Account, AccountId, Email, StoreError};
use uuid::Uuid;

use crate::tx::{PgTx, corrupt, count, get, json, signed, to_json};

const ACCOUNT_COLS: &str = "id, email, plan, overrides, created_at, status";

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
        status: get::<&str>(r, 5, "status")?
            .parse()
            .map_err(|_| corrupt("status"))?,
    })
}

/// A month as stored: months since year 0 (`UsageMonth::index`).
fn month_index(month: UsageMonth) -> i32 {
    i32::try_from(month.index()).unwrap_or(i32::MAX)
}

impl AccountReads for PgTx<'_> {
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
        // `Email::lookup_key` does, and is the expression of the index.
        let sql = format!(
            "SELECT {ACCOUNT_COLS} FROM accounts WHERE lower(email COLLATE \"C\") = lower($1 COLLATE \"C\")
             ORDER BY created_at, id LIMIT 1"
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
        self.all(
            "SELECT account_id, plan, created_at FROM plan_requests ORDER BY created_at, account_id",
            &[],
            |r| {
                Ok(PlanRequest {
                    account_id: AccountId::from_uuid(get(r, 0, "account_id")?),
                    plan: get::<&str>(r, 1, "plan")?
                        .parse()
                        .map_err(|_| corrupt("plan"))?,
                    created_at: get(r, 2, "created_at")?,
                })
            },
        )
    }

    fn daily_usage(
        &self,
        account: AccountId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        self.all(
            "SELECT day, count FROM daily_usage WHERE account_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day",
            &[&account.as_uuid(), &first, &last],
            |r| Ok((get(r, 0, "day")?, count(get(r, 1, "count")?))),
        )
    }
}

impl AccountWrites for PgTx<'_> {
    fn insert_account(&mut self, a: &Account) -> Result<(), StoreError> {
        self.config_write_of(ConfigChange::Account(a.id));
        self.exec(
            "INSERT INTO accounts (id, email, plan, overrides, created_at, status)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &a.id.as_uuid(),
                &a.email.as_str(),
                &a.plan.as_str(),
                &to_json(&a.overrides)?,
                &a.created_at,
                &a.status.as_str(),
            ],
        )?;
        Ok(())
    }

    fn update_account(&mut self, a: &Account) -> Result<bool, StoreError> {
        self.config_write_of(ConfigChange::Account(a.id));
        let n = self.exec(
            "UPDATE accounts SET email = $2, plan = $3, overrides = $4, status = $5 WHERE id = $1",
            &[
                &a.id.as_uuid(),
                &a.email.as_str(),
                &a.plan.as_str(),
                &to_json(&a.overrides)?,
                &a.status.as_str(),
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

    fn delete_account(&mut self, account: AccountId) -> Result<bool, StoreError> {
        // The accounts and keys triggers move the configuration version: caches must drop the
        // account's keys on every server.
        self.config_write_of(ConfigChange::Account(account));
        let id = account.as_uuid();
        self.exec(
            "INSERT INTO tombstones (short_code) SELECT short_code FROM links WHERE account_id = $1
             ON CONFLICT DO NOTHING",
            &[&id],
        )?;
        // The links go first: each deletion waits for the scan batches holding its link (`FOR
        // KEY SHARE`) and later batches skip it, so the statements below see every scan row
        // there will ever be, and never hold a row a waiting batch needs (no deadlock).
        let links: Vec<Uuid> = self.all(
            "DELETE FROM links WHERE account_id = $1 RETURNING id",
            &[&id],
            |r| get(r, 0, "id"),
        )?;
        // Scans, rollups, visitors and counts name their link without a foreign key (schema
        // version 2 dropped them from the scan tables: a lookup per inserted scan), so they go
        // by hand.
        for table in ["visitors", "scans", "daily", "daily_dims", "scan_counts"] {
            self.exec(
                &format!("DELETE FROM {table} WHERE link_id = ANY($1::uuid[])"),
                &[&links],
            )?;
        }
        // Keys, usage, daily usage, memberships and the plan request go with the account (ON
        // DELETE CASCADE); sessions showing it show none (ON DELETE SET NULL).
        Ok(self.exec("DELETE FROM accounts WHERE id = $1", &[&id])? > 0)
    }

    fn add_daily_usage(
        &mut self,
        day: NaiveDate,
        added: &[(AccountId, u64)],
    ) -> Result<(), StoreError> {
        if added.is_empty() {
            return Ok(());
        }
        let (ids, values): (Vec<Uuid>, Vec<i64>) = added
            .iter()
            .map(|(id, n)| (id.as_uuid(), signed(*n)))
            .unzip();
        // One statement for every account. An account named twice is added up first (an upsert may
        // touch a row once per statement); accounts deleted meanwhile are skipped.
        self.exec(
            "INSERT INTO daily_usage (account_id, day, count)
             SELECT u.id, $1, sum(u.n)::bigint FROM unnest($2::uuid[], $3::bigint[]) AS u(id, n)
             WHERE EXISTS (SELECT 1 FROM accounts WHERE accounts.id = u.id)
             GROUP BY u.id ORDER BY u.id
             ON CONFLICT (account_id, day) DO UPDATE SET count = daily_usage.count + excluded.count",
            &[&day, &ids, &values],
        )?;
        Ok(())
    }

    fn put_plan_request(&mut self, r: &PlanRequest) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO plan_requests (account_id, plan, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (account_id) DO UPDATE SET plan = excluded.plan, created_at = excluded.created_at",
            &[&r.account_id.as_uuid(), &r.plan.as_str(), &r.created_at],
        )?;
        Ok(())
    }

    fn delete_plan_request(&mut self, account: AccountId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM plan_requests WHERE account_id = $1",
            &[&account.as_uuid()],
        )? > 0)
    }
}
