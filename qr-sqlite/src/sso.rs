//! Single sign-on in SQL: a workspace's settings (the client secret stored as given, since the provider must be shown it), the sign-in attempts taken out by `DELETE … RETURNING` so each completes once whichever process reads it, and the identity links going with their user.

use chrono::{DateTime, Utc};
use qr_domain::ids::UserId;
use qr_domain::sso::store::{SsoReads, SsoWrites, StoredSsoSettings};
use qr_domain::sso::{Nonce, PkceVerifier, SsoAttempt, SsoSettingsInput, StateToken};
use qr_domain::{AccountId, StoreError};
use rusqlite::{Row, params};

use crate::tx::{SqlTx, corrupt, get, id_bytes, micros, time, user_bytes, uuid};

/// Version 15 (13 on this branch; the lead numbers it at merge): single sign-on. Settings, one
/// row per workspace (`allowed_domains` separated by single spaces, ASCII, so a domain is
/// found by `instr` on ` domain `; only workspaces with single sign-on have a row, so the scan
/// is short); attempts by state, with their creation time indexed for the pruning every new
/// attempt does; identity links by issuer and subject.
pub(crate) const V15_SSO: &str = r"
CREATE TABLE sso_settings (
    account_id BLOB PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    enabled INTEGER NOT NULL,
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    client_secret TEXT NOT NULL,
    allowed_domains TEXT NOT NULL,
    default_role TEXT NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE sso_attempts (
    state TEXT PRIMARY KEY,
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    nonce TEXT NOT NULL,
    verifier TEXT NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sso_attempts_by_time ON sso_attempts(created_at);
CREATE TABLE sso_identities (
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (issuer, subject)
) WITHOUT ROWID;
CREATE INDEX sso_identities_by_user ON sso_identities(user_id);
";

const SETTINGS_COLS: &str = "account_id, enabled, issuer, client_id, client_secret, allowed_domains, default_role, updated_at";

fn settings_from(r: &Row<'_>) -> Result<StoredSsoSettings, StoreError> {
    let (issuer, client_id, client_secret, domains, role): (
        String,
        String,
        String,
        String,
        String,
    ) = (get(r, 2)?, get(r, 3)?, get(r, 4)?, get(r, 5)?, get(r, 6)?);
    StoredSsoSettings::from_columns(
        AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        get::<i64>(r, 1)? != 0,
        SsoSettingsInput {
            issuer: &issuer,
            client_id: &client_id,
            client_secret: &client_secret,
            allowed_domains: &domains,
            default_role: &role,
        },
        time(get(r, 7)?)?,
    )
}

fn attempt_from(r: &Row<'_>) -> Result<SsoAttempt, StoreError> {
    let (state, nonce, verifier): (String, String, String) = (get(r, 0)?, get(r, 2)?, get(r, 3)?);
    Ok(SsoAttempt::restore(
        AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
        StateToken::from_stored(&state).ok_or_else(|| corrupt("state"))?,
        Nonce::from_stored(&nonce).ok_or_else(|| corrupt("nonce"))?,
        PkceVerifier::from_stored(&verifier).ok_or_else(|| corrupt("verifier"))?,
        time(get(r, 4)?)?,
    ))
}

impl SsoReads for SqlTx<'_> {
    fn sso_settings(&self, account: AccountId) -> Result<Option<StoredSsoSettings>, StoreError> {
        self.one(
            &format!("SELECT {SETTINGS_COLS} FROM sso_settings WHERE account_id = ?1"),
            params![&id_bytes(account)[..]],
            settings_from,
        )
    }

    fn sso_settings_for_domain(&self, domain: &str) -> Result<Vec<StoredSsoSettings>, StoreError> {
        self.all(
            &format!(
                "SELECT {SETTINGS_COLS} FROM sso_settings
                 WHERE enabled = 1 AND instr(' ' || allowed_domains || ' ', ' ' || ?1 || ' ') > 0
                 ORDER BY account_id"
            ),
            params![domain],
            settings_from,
        )
    }

    fn sso_identity(&self, issuer: &str, subject: &str) -> Result<Option<UserId>, StoreError> {
        self.one(
            "SELECT user_id FROM sso_identities WHERE issuer = ?1 AND subject = ?2",
            params![issuer, subject],
            |r| Ok(UserId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?)),
        )
    }
}

impl SsoWrites for SqlTx<'_> {
    fn put_sso_settings(&mut self, s: &StoredSsoSettings) -> Result<(), StoreError> {
        self.exec(
            &format!(
                "INSERT INTO sso_settings ({SETTINGS_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (account_id) DO UPDATE SET enabled = excluded.enabled,
                     issuer = excluded.issuer, client_id = excluded.client_id,
                     client_secret = excluded.client_secret,
                     allowed_domains = excluded.allowed_domains,
                     default_role = excluded.default_role, updated_at = excluded.updated_at"
            ),
            params![
                &id_bytes(s.account_id)[..],
                i64::from(s.enabled),
                s.settings.issuer.as_str(),
                s.settings.client_id.as_str(),
                s.settings.client_secret.reveal_to_provider(),
                s.domains_text(),
                s.settings.default_role.role().as_str(),
                micros(s.updated_at),
            ],
        )
        .map(drop)
    }

    fn insert_sso_attempt(
        &mut self,
        attempt: &SsoAttempt,
        expired_before: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.exec(
            "DELETE FROM sso_attempts WHERE created_at < ?1",
            params![micros(expired_before)],
        )?;
        self.exec(
            "INSERT INTO sso_attempts (state, account_id, nonce, verifier, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                attempt.state().as_str(),
                &id_bytes(attempt.workspace())[..],
                attempt.nonce().as_str(),
                attempt.verifier().as_str(),
                micros(attempt.created()),
            ],
        )
        .map(drop)
    }

    fn take_sso_attempt(&mut self, state: &StateToken) -> Result<Option<SsoAttempt>, StoreError> {
        self.one(
            "DELETE FROM sso_attempts WHERE state = ?1
             RETURNING state, account_id, nonce, verifier, created_at",
            params![state.as_str()],
            attempt_from,
        )
    }

    fn link_sso_identity(
        &mut self,
        issuer: &str,
        subject: &str,
        user: UserId,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO sso_identities (issuer, subject, user_id, created_at)
             VALUES (?1, ?2, ?3, ?4)",
            params![issuer, subject, &user_bytes(user)[..], micros(at)],
        )
        .map(drop)
    }
}
