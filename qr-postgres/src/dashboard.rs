//! The dashboard's records in SQL: one-time tokens, sessions, plan requests, requests per day, deleting an account and pruning ended credentials.

use chrono::{DateTime, NaiveDate, Utc};
use postgres::Row;
use qr_domain::account::PlanRequest;
use qr_domain::session::{Session, SessionHash};
use qr_domain::store::{CredentialReads, CredentialWrites};
use qr_domain::token::{OneTimeToken, TokenHash, TokenPurpose};
use qr_domain::{AccountId, StoreError};
use uuid::Uuid;

use crate::tx::{PgTx, corrupt, count, get, signed};

const SESSION_COLS: &str = "hash, account_id, created_at, last_seen_at, user_agent";

fn session_from(r: &Row) -> Result<Session, StoreError> {
    let hash: &[u8] = get(r, 0, "session hash")?;
    Ok(Session {
        hash: SessionHash(hash.try_into().map_err(|_| corrupt("session hash"))?),
        account_id: AccountId::from_uuid(get(r, 1, "account_id")?),
        created_at: get(r, 2, "created_at")?,
        last_seen_at: get(r, 3, "last_seen_at")?,
        user_agent: get(r, 4, "user_agent")?,
    })
}

pub(crate) fn plan_requests(tx: &PgTx<'_>) -> Result<Vec<PlanRequest>, StoreError> {
    tx.all(
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

pub(crate) fn daily_usage(
    tx: &PgTx<'_>,
    account: AccountId,
    first: NaiveDate,
    last: NaiveDate,
) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
    tx.all(
        "SELECT day, count FROM daily_usage WHERE account_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day",
        &[&account.as_uuid(), &first, &last],
        |r| Ok((get(r, 0, "day")?, count(get(r, 1, "count")?))),
    )
}

pub(crate) fn put_plan_request(tx: &PgTx<'_>, r: &PlanRequest) -> Result<(), StoreError> {
    tx.exec(
        "INSERT INTO plan_requests (account_id, plan, created_at) VALUES ($1, $2, $3)
         ON CONFLICT (account_id) DO UPDATE SET plan = excluded.plan, created_at = excluded.created_at",
        &[&r.account_id.as_uuid(), &r.plan.as_str(), &r.created_at],
    )?;
    Ok(())
}

pub(crate) fn delete_plan_request(tx: &PgTx<'_>, account: AccountId) -> Result<bool, StoreError> {
    Ok(tx.exec(
        "DELETE FROM plan_requests WHERE account_id = $1",
        &[&account.as_uuid()],
    )? > 0)
}

pub(crate) fn add_daily_usage(
    tx: &PgTx<'_>,
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
    tx.exec(
        "INSERT INTO daily_usage (account_id, day, count)
         SELECT u.id, $1, sum(u.n)::bigint FROM unnest($2::uuid[], $3::bigint[]) AS u(id, n)
         WHERE EXISTS (SELECT 1 FROM accounts WHERE accounts.id = u.id)
         GROUP BY u.id ORDER BY u.id
         ON CONFLICT (account_id, day) DO UPDATE SET count = daily_usage.count + excluded.count",
        &[&day, &ids, &values],
    )?;
    Ok(())
}

pub(crate) fn delete_account(tx: &PgTx<'_>, account: AccountId) -> Result<bool, StoreError> {
    // The accounts and keys triggers move the configuration version: caches must drop the
    // account's keys on every server.
    tx.config_write();
    let id = account.as_uuid();
    tx.exec(
        "INSERT INTO tombstones (short_code) SELECT short_code FROM links WHERE account_id = $1
         ON CONFLICT DO NOTHING",
        &[&id],
    )?;
    // Scans, rollups and visitors name their link without a foreign key (schema version 2
    // dropped them from the scan tables: a lookup per inserted scan), so they go by hand.
    for table in ["visitors", "scans", "daily", "daily_dims"] {
        tx.exec(
            &format!(
                "DELETE FROM {table} WHERE link_id IN (SELECT id FROM links WHERE account_id = $1)"
            ),
            &[&id],
        )?;
    }
    // Keys, links, usage, daily usage, sessions, tokens and the plan request go with the
    // account (ON DELETE CASCADE).
    Ok(tx.exec("DELETE FROM accounts WHERE id = $1", &[&id])? > 0)
}

impl CredentialReads for PgTx<'_> {
    fn session(&self, hash: &SessionHash) -> Result<Option<Session>, StoreError> {
        let sql = format!("SELECT {SESSION_COLS} FROM sessions WHERE hash = $1");
        self.one(&sql, &[&&hash.0[..]], session_from)
    }

    fn sessions_of(&self, account: AccountId) -> Result<Vec<Session>, StoreError> {
        // `bytea` compares byte by byte, as SQLite compares blobs: both stores list ties alike.
        let sql = format!(
            "SELECT {SESSION_COLS} FROM sessions WHERE account_id = $1 ORDER BY created_at, hash"
        );
        self.all(&sql, &[&account.as_uuid()], session_from)
    }
}

impl CredentialWrites for PgTx<'_> {
    fn insert_token(&mut self, t: &OneTimeToken) -> Result<(), StoreError> {
        // One statement: the account's earlier token of this purpose becomes the new one, so only
        // the newest e-mailed link works. A missing account fails the foreign key (a conflict).
        self.exec(
            "INSERT INTO tokens (hash, account_id, purpose, new_email, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (account_id, purpose) DO UPDATE SET hash = excluded.hash,
                 new_email = excluded.new_email, created_at = excluded.created_at,
                 expires_at = excluded.expires_at",
            &[
                &&t.hash.0[..],
                &t.account_id.as_uuid(),
                &t.purpose.as_str(),
                &t.new_email.as_ref().map(|e| e.as_str()),
                &t.created_at,
                &t.expires_at,
            ],
        )?;
        Ok(())
    }

    fn take_token(&mut self, hash: &TokenHash) -> Result<Option<OneTimeToken>, StoreError> {
        self.one(
            "DELETE FROM tokens WHERE hash = $1
             RETURNING account_id, purpose, new_email, created_at, expires_at",
            &[&&hash.0[..]],
            |r| {
                Ok(OneTimeToken {
                    hash: *hash,
                    account_id: AccountId::from_uuid(get(r, 0, "account_id")?),
                    purpose: TokenPurpose::parse(get(r, 1, "purpose")?)
                        .ok_or_else(|| corrupt("token purpose"))?,
                    new_email: get::<Option<String>>(r, 2, "new_email")?
                        .map(|e| e.try_into().map_err(|_| corrupt("token e-mail")))
                        .transpose()?,
                    created_at: get(r, 3, "created_at")?,
                    expires_at: get(r, 4, "expires_at")?,
                })
            },
        )
    }

    fn save_session(&mut self, s: &Session) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO sessions (hash, account_id, created_at, last_seen_at, user_agent)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (hash) DO UPDATE SET last_seen_at = excluded.last_seen_at",
            &[
                &&s.hash.0[..],
                &s.account_id.as_uuid(),
                &s.created_at,
                &s.last_seen_at,
                &s.user_agent,
            ],
        )?;
        Ok(())
    }

    fn delete_session(&mut self, hash: &SessionHash) -> Result<bool, StoreError> {
        Ok(self.exec("DELETE FROM sessions WHERE hash = $1", &[&&hash.0[..]])? > 0)
    }

    fn delete_sessions_of(
        &mut self,
        account: AccountId,
        keep: Option<&SessionHash>,
    ) -> Result<u64, StoreError> {
        // `IS DISTINCT FROM NULL` holds for every session: `None` keeps none.
        self.exec(
            "DELETE FROM sessions WHERE account_id = $1 AND hash IS DISTINCT FROM $2",
            &[&account.as_uuid(), &keep.map(|h| &h.0[..])],
        )
    }

    fn prune_credentials(
        &mut self,
        now: DateTime<Utc>,
        seen_before: DateTime<Utc>,
        created_before: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let tokens = self.exec("DELETE FROM tokens WHERE expires_at < $1", &[&now])?;
        let sessions = self.exec(
            "DELETE FROM sessions WHERE last_seen_at < $1 OR created_at < $2",
            &[&seen_before, &created_before],
        )?;
        Ok(tokens + sessions)
    }
}
