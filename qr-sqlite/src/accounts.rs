//! Accounts in SQL: the account records (found by id or by e-mail address), their pending plan requests, their persisted usage per month and per day, and deleting an account with everything it owns.

use chrono::NaiveDate;
use qr_domain::accounts::account::PlanRequest;
use qr_domain::accounts::limits::UsageMonth;
use qr_domain::store::{AccountReads, AccountWrites};
use qr_domain::{Account, AccountId, Email, StoreError};
use rusqlite::{Row, params};

use crate::tx::{
    SqlTx, corrupt, count, day, day_num, get, id_bytes, json, micros, signed, time, to_json, uuid,
};

const ACCOUNT_COLS: &str = "id, email, plan, overrides, created_at, status";

fn account_from(r: &Row<'_>) -> Result<Account, StoreError> {
    Ok(Account {
        id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        email: get::<String>(r, 1)?
            .try_into()
            .map_err(|_| corrupt("email"))?,
        plan: get::<String>(r, 2)?.parse().map_err(|_| corrupt("plan"))?,
        overrides: json(&get::<String>(r, 3)?, "overrides")?,
        created_at: time(get(r, 4)?)?,
        status: get::<String>(r, 5)?
            .parse()
            .map_err(|_| corrupt("status"))?,
    })
}

impl AccountReads for SqlTx<'_> {
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
        // collation of the index `accounts_by_email`, so the lookup uses it.
        let sql = format!(
            "SELECT {ACCOUNT_COLS} FROM accounts WHERE email = ?1 COLLATE NOCASE ORDER BY created_at, id LIMIT 1"
        );
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
        self.all(
            "SELECT account_id, plan, created_at FROM plan_requests ORDER BY created_at, account_id",
            [],
            |r| {
                Ok(PlanRequest {
                    account_id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
                    plan: get::<String>(r, 1)?.parse().map_err(|_| corrupt("plan"))?,
                    created_at: time(get(r, 2)?)?,
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
            "SELECT day, count FROM daily_usage WHERE account_id = ?1 AND day BETWEEN ?2 AND ?3 ORDER BY day",
            params![&id_bytes(account)[..], day_num(first), day_num(last)],
            |r| Ok((day(get(r, 0)?)?, count(get(r, 1)?))),
        )
    }
}

impl AccountWrites for SqlTx<'_> {
    fn insert_account(&mut self, a: &Account) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO accounts (id, email, plan, overrides, created_at, status)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                &a.id.as_uuid().as_bytes()[..],
                a.email.as_str(),
                a.plan.as_str(),
                to_json(&a.overrides)?,
                micros(a.created_at),
                a.status.as_str()
            ],
        )?;
        Ok(())
    }

    fn update_account(&mut self, a: &Account) -> Result<bool, StoreError> {
        let n = self.exec(
            "UPDATE accounts SET email = ?2, plan = ?3, overrides = ?4, status = ?5 WHERE id = ?1",
            params![
                &a.id.as_uuid().as_bytes()[..],
                a.email.as_str(),
                a.plan.as_str(),
                to_json(&a.overrides)?,
                a.status.as_str()
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

    fn delete_account(&mut self, account: AccountId) -> Result<bool, StoreError> {
        let id = id_bytes(account);
        let id = &id[..];
        self.exec(
            "INSERT OR IGNORE INTO tombstones (short_code) SELECT short_code FROM links WHERE account_id = ?1",
            [id],
        )?;
        self.exec(
            "DELETE FROM visitors WHERE link_id IN (SELECT id FROM links WHERE account_id = ?1)",
            [id],
        )?;
        // Keys, links (with their scans and rollups), usage, daily usage, memberships,
        // invitations and the plan request go with the account (ON DELETE CASCADE); sessions
        // showing it show none (ON DELETE SET NULL).
        Ok(self.exec("DELETE FROM accounts WHERE id = ?1", [id])? > 0)
    }

    fn add_daily_usage(
        &mut self,
        d: NaiveDate,
        added: &[(AccountId, u64)],
    ) -> Result<(), StoreError> {
        for (account, n) in added {
            self.exec(
                "INSERT INTO daily_usage (account_id, day, count) SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM accounts WHERE id = ?1)
                 ON CONFLICT (account_id, day) DO UPDATE SET count = count + excluded.count",
                params![&id_bytes(*account)[..], day_num(d), signed(*n)],
            )?;
        }
        Ok(())
    }

    fn put_plan_request(&mut self, r: &PlanRequest) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO plan_requests (account_id, plan, created_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (account_id) DO UPDATE SET plan = excluded.plan, created_at = excluded.created_at",
            params![
                &id_bytes(r.account_id)[..],
                r.plan.as_str(),
                micros(r.created_at)
            ],
        )?;
        Ok(())
    }

    fn delete_plan_request(&mut self, account: AccountId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM plan_requests WHERE account_id = ?1",
            [&id_bytes(account)[..]],
        )? > 0)
    }
}
