//! The dashboard's credentials in SQL: one-time tokens and sessions, and pruning those that ended; users' second factors and the workspaces requiring one.

use chrono::{DateTime, Utc};
use qr_domain::dashboard::recovery::{RecoveryCodeHash, RecoveryCodeHashes};
use qr_domain::dashboard::session::{Session, SessionHash};
use qr_domain::dashboard::token::{OneTimeToken, TokenHash, TokenPurpose};
use qr_domain::dashboard::totp::TotpSecret;
use qr_domain::dashboard::two_factor::TwoFactor;
use qr_domain::ids::UserId;
use qr_domain::store::{CredentialReads, CredentialWrites};
use qr_domain::{AccountId, StoreError};
use rusqlite::{Row, params};

use crate::tx::{SqlTx, corrupt, get, id_bytes, micros, signed, time, user_bytes, uuid};

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

/// Users' second factors and the workspaces requiring one (the lead numbers the migration at
/// merge). The TOTP secret is kept as its bytes: checking a code needs it (docs/api.md, "The
/// TOTP secret at rest"); the recovery codes are their SHA-256 hashes, 32 bytes each, one after
/// another.
pub(crate) const TWO_FACTOR_TABLES: &str = r"
CREATE TABLE two_factors (
    user_id BLOB PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    totp_secret BLOB NOT NULL,
    confirmed_at INTEGER,
    last_used_step INTEGER,
    recovery_codes BLOB NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE two_factor_required (
    account_id BLOB PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    since INTEGER NOT NULL
) WITHOUT ROWID;
";

fn two_factor_from(r: &Row<'_>) -> Result<TwoFactor, StoreError> {
    let secret: Vec<u8> = get(r, 1)?;
    let codes: Vec<u8> = get(r, 4)?;
    if !codes.len().is_multiple_of(32) {
        return Err(corrupt("recovery code hashes"));
    }
    Ok(TwoFactor {
        user_id: UserId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        totp_secret: TotpSecret::from_bytes(secret.try_into().map_err(|_| corrupt("TOTP secret"))?),
        confirmed_at: get::<Option<i64>>(r, 2)?.map(time).transpose()?,
        last_used_step: get::<Option<i64>>(r, 3)?
            .map(|s| u64::try_from(s).map_err(|_| corrupt("TOTP step")))
            .transpose()?,
        recovery_codes: RecoveryCodeHashes::from_stored(
            codes
                .chunks_exact(32)
                .map(|c| RecoveryCodeHash(c.try_into().expect("chunks of 32")))
                .collect(),
        ),
        created_at: time(get(r, 5)?)?,
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

    fn two_factor(&self, user: UserId) -> Result<Option<TwoFactor>, StoreError> {
        self.one(
            "SELECT user_id, totp_secret, confirmed_at, last_used_step, recovery_codes, created_at
             FROM two_factors WHERE user_id = ?1",
            [&user_bytes(user)[..]],
            two_factor_from,
        )
    }

    fn two_factor_required(&self, account: AccountId) -> Result<bool, StoreError> {
        Ok(self
            .one(
                "SELECT 1 FROM two_factor_required WHERE account_id = ?1",
                [&id_bytes(account)[..]],
                |r| get::<i64>(r, 0),
            )?
            .is_some())
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

    fn put_two_factor(&mut self, f: &TwoFactor) -> Result<(), StoreError> {
        let codes: Vec<u8> = f.recovery_codes.stored().iter().flat_map(|h| h.0).collect();
        self.exec(
            "INSERT INTO two_factors
             (user_id, totp_secret, confirmed_at, last_used_step, recovery_codes, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (user_id) DO UPDATE SET totp_secret = excluded.totp_secret,
             confirmed_at = excluded.confirmed_at, last_used_step = excluded.last_used_step,
             recovery_codes = excluded.recovery_codes, created_at = excluded.created_at",
            params![
                &user_bytes(f.user_id)[..],
                &f.totp_secret.expose_bytes()[..],
                f.confirmed_at.map(micros),
                f.last_used_step.map(signed),
                codes,
                micros(f.created_at)
            ],
        )?;
        Ok(())
    }

    fn delete_two_factor(&mut self, user: UserId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM two_factors WHERE user_id = ?1",
            [&user_bytes(user)[..]],
        )? > 0)
    }

    fn require_two_factor(
        &mut self,
        account: AccountId,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO two_factor_required (account_id, since) VALUES (?1, ?2)
             ON CONFLICT (account_id) DO NOTHING",
            params![&id_bytes(account)[..], micros(at)],
        )?;
        Ok(())
    }

    fn stop_requiring_two_factor(&mut self, account: AccountId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM two_factor_required WHERE account_id = ?1",
            [&id_bytes(account)[..]],
        )? > 0)
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
