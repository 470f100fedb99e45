//! The dashboard's credentials in SQL: one-time tokens and sessions, and pruning those that ended; users' second factors and the workspaces requiring one.

use chrono::{DateTime, Utc};
use postgres::Row;
use qr_domain::dashboard::recovery::{RecoveryCodeHash, RecoveryCodeHashes};
use qr_domain::dashboard::session::{Session, SessionHash};
use qr_domain::dashboard::token::{OneTimeToken, TokenHash, TokenPurpose};
use qr_domain::dashboard::totp::TotpSecret;
use qr_domain::dashboard::two_factor::TwoFactor;
use qr_domain::ids::UserId;
use qr_domain::store::{CredentialReads, CredentialWrites};
use qr_domain::{AccountId, StoreError};

use crate::tx::{PgTx, corrupt, get};

/// Users' second factors and the workspaces requiring one (the lead numbers the migration at
/// merge). The TOTP secret is kept as its bytes: checking a code needs it (docs/api.md, "The
/// TOTP secret at rest"); the recovery codes are their SHA-256 hashes, 32 bytes each, one after
/// another.
pub(crate) const TWO_FACTOR_TABLES: &str = r"
CREATE TABLE two_factors (
    user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    totp_secret bytea NOT NULL,
    confirmed_at timestamptz,
    last_used_step bigint,
    recovery_codes bytea NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE TABLE two_factor_required (
    account_id uuid PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    since timestamptz NOT NULL
);
";

fn two_factor_from(r: &Row) -> Result<TwoFactor, StoreError> {
    let secret: &[u8] = get(r, 1, "totp_secret")?;
    let codes: &[u8] = get(r, 4, "recovery_codes")?;
    if !codes.len().is_multiple_of(32) {
        return Err(corrupt("recovery code hashes"));
    }
    Ok(TwoFactor {
        user_id: UserId::from_uuid(get(r, 0, "user_id")?),
        totp_secret: TotpSecret::from_bytes(secret.try_into().map_err(|_| corrupt("TOTP secret"))?),
        confirmed_at: get(r, 2, "confirmed_at")?,
        last_used_step: get::<Option<i64>>(r, 3, "last_used_step")?
            .map(|s| u64::try_from(s).map_err(|_| corrupt("TOTP step")))
            .transpose()?,
        recovery_codes: RecoveryCodeHashes::from_stored(
            codes
                .chunks_exact(32)
                .map(|c| RecoveryCodeHash(c.try_into().expect("chunks of 32")))
                .collect(),
        ),
        created_at: get(r, 5, "created_at")?,
    })
}

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

    fn two_factor(&self, user: UserId) -> Result<Option<TwoFactor>, StoreError> {
        self.one(
            "SELECT user_id, totp_secret, confirmed_at, last_used_step, recovery_codes, created_at
             FROM two_factors WHERE user_id = $1",
            &[&user.as_uuid()],
            two_factor_from,
        )
    }

    fn two_factor_required(&self, account: AccountId) -> Result<bool, StoreError> {
        Ok(self
            .one(
                "SELECT 1 FROM two_factor_required WHERE account_id = $1",
                &[&account.as_uuid()],
                |r| get::<i32>(r, 0, "one"),
            )?
            .is_some())
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

    fn put_two_factor(&mut self, f: &TwoFactor) -> Result<(), StoreError> {
        let codes: Vec<u8> = f.recovery_codes.stored().iter().flat_map(|h| h.0).collect();
        let step = f
            .last_used_step
            .map(|s| i64::try_from(s).unwrap_or(i64::MAX));
        self.exec(
            "INSERT INTO two_factors
             (user_id, totp_secret, confirmed_at, last_used_step, recovery_codes, created_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (user_id) DO UPDATE SET totp_secret = excluded.totp_secret,
                 confirmed_at = excluded.confirmed_at, last_used_step = excluded.last_used_step,
                 recovery_codes = excluded.recovery_codes, created_at = excluded.created_at",
            &[
                &f.user_id.as_uuid(),
                &&f.totp_secret.expose_bytes()[..],
                &f.confirmed_at,
                &step,
                &codes,
                &f.created_at,
            ],
        )?;
        Ok(())
    }

    fn delete_two_factor(&mut self, user: UserId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM two_factors WHERE user_id = $1",
            &[&user.as_uuid()],
        )? > 0)
    }

    fn require_two_factor(
        &mut self,
        account: AccountId,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO two_factor_required (account_id, since) VALUES ($1, $2)
             ON CONFLICT (account_id) DO NOTHING",
            &[&account.as_uuid(), &at],
        )?;
        Ok(())
    }

    fn stop_requiring_two_factor(&mut self, account: AccountId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM two_factor_required WHERE account_id = $1",
            &[&account.as_uuid()],
        )? > 0)
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
