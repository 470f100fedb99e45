//! Single sign-on in SQL: a workspace's settings (the client secret stored as given, since the provider must be shown it), the sign-in attempts taken out by `DELETE … RETURNING` so each completes once whichever server reads it, and the identity links going with their user.

use chrono::{DateTime, Utc};
use postgres::Row;
use qr_domain::ids::UserId;
use qr_domain::sso::store::{SsoReads, SsoWrites, StoredSsoSettings};
use qr_domain::sso::{Nonce, PkceVerifier, SsoAttempt, SsoSettingsInput, StateToken};
use qr_domain::{AccountId, StoreError};

use crate::tx::{PgTx, corrupt, get};

/// Version 17 (15 on this branch; the lead numbers it at merge): single sign-on, as SQLite's
/// version 15 (columns in the same order, so `qr db copy` moves rows unchanged). A domain is
/// found with `strpos` on ` domain ` in the space-separated list; only workspaces with single
/// sign-on have a row. Two servers taking one attempt at once: the row lock lets one
/// `DELETE` return it and the other nothing.
pub(crate) const V17_SSO: &str = r"
CREATE TABLE sso_settings (
    account_id uuid PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    enabled smallint NOT NULL,
    issuer text NOT NULL,
    client_id text NOT NULL,
    client_secret text NOT NULL,
    allowed_domains text NOT NULL,
    default_role text NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE TABLE sso_attempts (
    state text PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    nonce text NOT NULL,
    verifier text NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX sso_attempts_by_time ON sso_attempts (created_at);
CREATE TABLE sso_identities (
    issuer text NOT NULL,
    subject text NOT NULL,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (issuer, subject)
);
CREATE INDEX sso_identities_by_user ON sso_identities (user_id);
";

const SETTINGS_COLS: &str = "account_id, enabled, issuer, client_id, client_secret, allowed_domains, default_role, updated_at";

fn settings_from(r: &Row) -> Result<StoredSsoSettings, StoreError> {
    let issuer: String = get(r, 2, "issuer")?;
    let client_id: String = get(r, 3, "client_id")?;
    let client_secret: String = get(r, 4, "client_secret")?;
    let domains: String = get(r, 5, "allowed_domains")?;
    let role: String = get(r, 6, "default_role")?;
    StoredSsoSettings::from_columns(
        AccountId::from_uuid(get(r, 0, "account_id")?),
        get::<i16>(r, 1, "enabled")? != 0,
        SsoSettingsInput {
            issuer: &issuer,
            client_id: &client_id,
            client_secret: &client_secret,
            allowed_domains: &domains,
            default_role: &role,
        },
        get(r, 7, "updated_at")?,
    )
}

fn attempt_from(r: &Row) -> Result<SsoAttempt, StoreError> {
    let state: String = get(r, 0, "state")?;
    let nonce: String = get(r, 2, "nonce")?;
    let verifier: String = get(r, 3, "verifier")?;
    Ok(SsoAttempt::restore(
        AccountId::from_uuid(get(r, 1, "account_id")?),
        StateToken::from_stored(&state).ok_or_else(|| corrupt("state"))?,
        Nonce::from_stored(&nonce).ok_or_else(|| corrupt("nonce"))?,
        PkceVerifier::from_stored(&verifier).ok_or_else(|| corrupt("verifier"))?,
        get(r, 4, "created_at")?,
    ))
}

impl SsoReads for PgTx<'_> {
    fn sso_settings(&self, account: AccountId) -> Result<Option<StoredSsoSettings>, StoreError> {
        self.one(
            &format!("SELECT {SETTINGS_COLS} FROM sso_settings WHERE account_id = $1"),
            &[&account.as_uuid()],
            settings_from,
        )
    }

    fn sso_settings_for_domain(&self, domain: &str) -> Result<Vec<StoredSsoSettings>, StoreError> {
        self.all(
            &format!(
                "SELECT {SETTINGS_COLS} FROM sso_settings
                 WHERE enabled = 1 AND strpos(' ' || allowed_domains || ' ', ' ' || $1 || ' ') > 0
                 ORDER BY account_id"
            ),
            &[&domain],
            settings_from,
        )
    }

    fn sso_identity(&self, issuer: &str, subject: &str) -> Result<Option<UserId>, StoreError> {
        self.one(
            "SELECT user_id FROM sso_identities WHERE issuer = $1 AND subject = $2",
            &[&issuer, &subject],
            |r| Ok(UserId::from_uuid(get(r, 0, "user_id")?)),
        )
    }
}

impl SsoWrites for PgTx<'_> {
    fn put_sso_settings(&mut self, s: &StoredSsoSettings) -> Result<(), StoreError> {
        self.exec(
            &format!(
                "INSERT INTO sso_settings ({SETTINGS_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                 ON CONFLICT (account_id) DO UPDATE SET enabled = excluded.enabled,
                     issuer = excluded.issuer, client_id = excluded.client_id,
                     client_secret = excluded.client_secret,
                     allowed_domains = excluded.allowed_domains,
                     default_role = excluded.default_role, updated_at = excluded.updated_at"
            ),
            &[
                &s.account_id.as_uuid(),
                &i16::from(s.enabled),
                &s.settings.issuer.as_str(),
                &s.settings.client_id.as_str(),
                &s.settings.client_secret.reveal_to_provider(),
                &s.domains_text(),
                &s.settings.default_role.role().as_str(),
                &s.updated_at,
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
            "DELETE FROM sso_attempts WHERE created_at < $1",
            &[&expired_before],
        )?;
        self.exec(
            "INSERT INTO sso_attempts (state, account_id, nonce, verifier, created_at)
             VALUES ($1, $2, $3, $4, $5)",
            &[
                &attempt.state().as_str(),
                &attempt.workspace().as_uuid(),
                &attempt.nonce().as_str(),
                &attempt.verifier().as_str(),
                &attempt.created(),
            ],
        )
        .map(drop)
    }

    fn take_sso_attempt(&mut self, state: &StateToken) -> Result<Option<SsoAttempt>, StoreError> {
        self.one(
            "DELETE FROM sso_attempts WHERE state = $1
             RETURNING state, account_id, nonce, verifier, created_at",
            &[&state.as_str()],
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
             VALUES ($1, $2, $3, $4)",
            &[&issuer, &subject, &user.as_uuid(), &at],
        )
        .map(drop)
    }
}
