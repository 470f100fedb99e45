//! The dashboard's credentials in SQL: one-time tokens and sessions, and pruning those that ended.

use chrono::{DateTime, Utc};
use qr_domain::dashboard::session::{Session, SessionHash};
use qr_domain::dashboard::token::{OneTimeToken, TokenHash, TokenPurpose};
use qr_domain::ids::UserId;
use qr_domain::store::{CredentialReads, CredentialWrites};
use qr_domain::{AccountId, StoreError};
use rusqlite::{Row, params};

use crate::tx::{SqlTx, corrupt, get, id_bytes, micros, time, user_bytes, uuid};

fn session_from(r: &Row<'_>) -> Result<Session, StoreError> {
    let hash: Vec<u8> = get(r, 0)?;
    Ok(Session {
        hash: SessionHash(hash.try_into().map_err(|_| corrupt("session hash"))?),
        user_id: UserId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
        account_id: get::<Option<Vec<u8>>>(r, 2)?
            .map(|b| uuid(&b).map(AccountId::from_uuid))
            .transpose()?,
        created_at: time(get(r, 3)?)?,
        last_seen_at: time(get(r, 4)?)?,
        user_agent: get(r, 5)?,
    })
}

const SESSION_COLS: &str = "hash, user_id, account_id, created_at, last_seen_at, user_agent";

impl CredentialReads for SqlTx<'_> {
    fn session(&self, hash: &SessionHash) -> Result<Option<Session>, StoreError> {
        let sql = format!("SELECT {SESSION_COLS} FROM sessions WHERE hash = ?1");
        self.one(&sql, [&hash.0[..]], session_from)
    }

    fn sessions_of(&self, user: UserId) -> Result<Vec<Session>, StoreError> {
        let sql = format!(
            "SELECT {SESSION_COLS} FROM sessions WHERE user_id = ?1 ORDER BY created_at, hash"
        );
        self.all(&sql, [&user_bytes(user)[..]], session_from)
    }
}

impl CredentialWrites for SqlTx<'_> {
    fn insert_token(&mut self, t: &OneTimeToken) -> Result<(), StoreError> {
        let user = user_bytes(t.user_id);
        self.exec(
            "DELETE FROM tokens WHERE user_id = ?1 AND purpose = ?2",
            params![&user[..], t.purpose.as_str()],
        )?;
        self.exec(
            "INSERT INTO tokens (hash, user_id, purpose, new_email, created_at, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                &t.hash.0[..],
                &user[..],
                t.purpose.as_str(),
                t.new_email.as_ref().map(|e| e.as_str()),
                micros(t.created_at),
                micros(t.expires_at)
            ],
        )?;
        Ok(())
    }

    fn take_token(&mut self, hash: &TokenHash) -> Result<Option<OneTimeToken>, StoreError> {
        let found = self.one(
            "SELECT user_id, purpose, new_email, created_at, expires_at FROM tokens WHERE hash = ?1",
            [&hash.0[..]],
            |r| {
                Ok(OneTimeToken {
                    hash: *hash,
                    user_id: UserId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
                    purpose: TokenPurpose::parse(&get::<String>(r, 1)?)
                        .ok_or_else(|| corrupt("token purpose"))?,
                    new_email: get::<Option<String>>(r, 2)?
                        .map(|e| e.try_into().map_err(|_| corrupt("token e-mail")))
                        .transpose()?,
                    created_at: time(get(r, 3)?)?,
                    expires_at: time(get(r, 4)?)?,
                })
            },
        )?;
        if found.is_some() {
            self.exec("DELETE FROM tokens WHERE hash = ?1", [&hash.0[..]])?;
        }
        Ok(found)
    }

    fn save_session(&mut self, s: &Session) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO sessions (hash, user_id, account_id, created_at, last_seen_at, user_agent)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (hash) DO UPDATE SET last_seen_at = excluded.last_seen_at,
             account_id = excluded.account_id",
            params![
                &s.hash.0[..],
                &user_bytes(s.user_id)[..],
                s.account_id.map(id_bytes).as_ref().map(|b| &b[..]),
                micros(s.created_at),
                micros(s.last_seen_at),
                s.user_agent
            ],
        )?;
        Ok(())
    }

    fn delete_session(&mut self, hash: &SessionHash) -> Result<bool, StoreError> {
        Ok(self.exec("DELETE FROM sessions WHERE hash = ?1", [&hash.0[..]])? > 0)
    }

    fn delete_sessions_of(
        &mut self,
        user: UserId,
        keep: Option<&SessionHash>,
    ) -> Result<u64, StoreError> {
        // An all-zero hash matches no session: SHA-256 never gives it in practice.
        let keep = keep.map_or([0u8; 32], |h| h.0);
        let n = self.exec(
            "DELETE FROM sessions WHERE user_id = ?1 AND hash <> ?2",
            params![&user_bytes(user)[..], &keep[..]],
        )?;
        Ok(n as u64)
    }

    fn prune_credentials(
        &mut self,
        now: DateTime<Utc>,
        seen_before: DateTime<Utc>,
        created_before: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let tokens = self.exec("DELETE FROM tokens WHERE expires_at < ?1", [micros(now)])?;
        let sessions = self.exec(
            "DELETE FROM sessions WHERE last_seen_at < ?1 OR created_at < ?2",
            params![micros(seen_before), micros(created_before)],
        )?;
        Ok((tokens + sessions) as u64)
    }
}
