//! The dashboard's credentials in SQL: one-time tokens and sessions, and pruning those that ended.

use chrono::{DateTime, Utc};
use postgres::Row;
use qr_domain::dashboard::session::{Session, SessionHash};
use qr_domain::dashboard::token::{OneTimeToken, TokenHash, TokenPurpose};
use qr_domain::ids::UserId;
use qr_domain::store::{CredentialReads, CredentialWrites};
use qr_domain::{AccountId, StoreError};

use crate::tx::{PgTx, corrupt, get};

const SESSION_COLS: &str = "hash, user_id, account_id, created_at, last_seen_at, user_agent";

fn session_from(r: &Row) -> Result<Session, StoreError> {
    let hash: &[u8] = get(r, 0, "session hash")?;
    Ok(Session {
        hash: SessionHash(hash.try_into().map_err(|_| corrupt("session hash"))?),
        user_id: UserId::from_uuid(get(r, 1, "user_id")?),
        account_id: get::<Option<uuid::Uuid>>(r, 2, "account_id")?.map(AccountId::from_uuid),
        created_at: get(r, 3, "created_at")?,
        last_seen_at: get(r, 4, "last_seen_at")?,
        user_agent: get(r, 5, "user_agent")?,
    })
}

impl CredentialReads for PgTx<'_> {
    fn session(&self, hash: &SessionHash) -> Result<Option<Session>, StoreError> {
        let sql = format!("SELECT {SESSION_COLS} FROM sessions WHERE hash = $1");
        self.one(&sql, &[&&hash.0[..]], session_from)
    }

    fn sessions_of(&self, user: UserId) -> Result<Vec<Session>, StoreError> {
        // `bytea` compares byte by byte, as SQLite compares blobs: both stores list ties alike.
        let sql = format!(
            "SELECT {SESSION_COLS} FROM sessions WHERE user_id = $1 ORDER BY created_at, hash"
        );
        self.all(&sql, &[&user.as_uuid()], session_from)
    }
}

impl CredentialWrites for PgTx<'_> {
    fn insert_token(&mut self, t: &OneTimeToken) -> Result<(), StoreError> {
        // One statement: the user's earlier token of this purpose becomes the new one, so only
        // the newest e-mailed link works. A missing user fails the foreign key (a conflict).
        self.exec(
            "INSERT INTO tokens (hash, user_id, purpose, new_email, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (user_id, purpose) DO UPDATE SET hash = excluded.hash,
                 new_email = excluded.new_email, created_at = excluded.created_at,
                 expires_at = excluded.expires_at",
            &[
                &&t.hash.0[..],
                &t.user_id.as_uuid(),
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
             RETURNING user_id, purpose, new_email, created_at, expires_at",
            &[&&hash.0[..]],
            |r| {
                Ok(OneTimeToken {
                    hash: *hash,
                    user_id: UserId::from_uuid(get(r, 0, "user_id")?),
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
            "INSERT INTO sessions (hash, user_id, account_id, created_at, last_seen_at, user_agent)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (hash) DO UPDATE SET last_seen_at = excluded.last_seen_at,
                 account_id = excluded.account_id",
            &[
                &&s.hash.0[..],
                &s.user_id.as_uuid(),
                &s.account_id.map(|a| a.as_uuid()),
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
        user: UserId,
        keep: Option<&SessionHash>,
    ) -> Result<u64, StoreError> {
        // `IS DISTINCT FROM NULL` holds for every session: `None` keeps none.
        self.exec(
            "DELETE FROM sessions WHERE user_id = $1 AND hash IS DISTINCT FROM $2",
            &[&user.as_uuid(), &keep.map(|h| &h.0[..])],
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
