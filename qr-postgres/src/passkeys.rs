//! Passkeys in SQL: users' registered credentials (unique by credential id, going with their user) and the ceremonies in flight, taken out by `DELETE … RETURNING` so each finishes once whichever server reads it.

use chrono::{DateTime, Utc};
use postgres::Row;
use qr_domain::StoreError;
use qr_domain::dashboard::token::TokenHash;
use qr_domain::ids::UserId;
use qr_domain::passkeys::{
    Ceremony, CeremonyPurpose, CeremonyState, CredentialId, Passkey, PasskeyData, PasskeyName,
};
use qr_domain::store::{PasskeyReads, PasskeyWrites};

use crate::tx::{PgTx, corrupt, get};

/// Version 19: passkeys and their ceremonies. The credential record and the ceremony state are
/// the verifier's serializations (JSON text), kept as given; a credential record holds a public
/// key, nothing secret.
pub(crate) const V19_PASSKEYS: &str = r"
CREATE TABLE passkeys (
    credential_id bytea PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name text NOT NULL,
    data text NOT NULL,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz
);
CREATE INDEX passkeys_by_user ON passkeys (user_id, created_at);
CREATE TABLE passkey_ceremonies (
    hash bytea PRIMARY KEY,
    purpose text NOT NULL,
    user_id uuid REFERENCES users(id) ON DELETE CASCADE,
    state text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX passkey_ceremonies_by_expiry ON passkey_ceremonies (expires_at);
";

const PASSKEY_COLS: &str = "credential_id, user_id, name, data, created_at, last_used_at";

fn passkey_from(r: &Row) -> Result<Passkey, StoreError> {
    let id: Vec<u8> = get(r, 0, "credential_id")?;
    let name: &str = get(r, 2, "name")?;
    Ok(Passkey {
        credential_id: CredentialId::new(id).map_err(|_| corrupt("credential id"))?,
        user_id: UserId::from_uuid(get(r, 1, "user_id")?),
        name: PasskeyName::parse(name).map_err(|_| corrupt("passkey name"))?,
        data: PasskeyData::new(get(r, 3, "data")?),
        created_at: get(r, 4, "created_at")?,
        last_used_at: get(r, 5, "last_used_at")?,
    })
}

fn ceremony_from(r: &Row) -> Result<Ceremony, StoreError> {
    let hash: &[u8] = get(r, 0, "hash")?;
    let purpose: &str = get(r, 1, "purpose")?;
    Ok(Ceremony {
        hash: TokenHash(hash.try_into().map_err(|_| corrupt("ceremony hash"))?),
        purpose: CeremonyPurpose::parse(purpose).ok_or_else(|| corrupt("ceremony purpose"))?,
        user_id: get::<Option<uuid::Uuid>>(r, 2, "user_id")?.map(UserId::from_uuid),
        state: CeremonyState::new(get(r, 3, "state")?),
        created_at: get(r, 4, "created_at")?,
        expires_at: get(r, 5, "expires_at")?,
    })
}

impl PasskeyReads for PgTx<'_> {
    fn passkeys_of(&self, user: UserId) -> Result<Vec<Passkey>, StoreError> {
        let sql = format!(
            "SELECT {PASSKEY_COLS} FROM passkeys WHERE user_id = $1
             ORDER BY created_at, credential_id"
        );
        self.all(&sql, &[&user.as_uuid()], passkey_from)
    }

    fn passkey(&self, id: &CredentialId) -> Result<Option<Passkey>, StoreError> {
        let sql = format!("SELECT {PASSKEY_COLS} FROM passkeys WHERE credential_id = $1");
        self.one(&sql, &[&id.as_bytes()], passkey_from)
    }
}

impl PasskeyWrites for PgTx<'_> {
    fn insert_passkey(&mut self, p: &Passkey) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO passkeys (credential_id, user_id, name, data, created_at, last_used_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &p.credential_id.as_bytes(),
                &p.user_id.as_uuid(),
                &p.name.as_str(),
                &p.data.as_str(),
                &p.created_at,
                &p.last_used_at,
            ],
        )?;
        Ok(())
    }

    fn record_passkey_use(
        &mut self,
        id: &CredentialId,
        data: &PasskeyData,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        Ok(self.exec(
            "UPDATE passkeys SET data = $2, last_used_at = $3 WHERE credential_id = $1",
            &[&id.as_bytes(), &data.as_str(), &at],
        )? > 0)
    }

    fn delete_passkey(&mut self, user: UserId, id: &CredentialId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM passkeys WHERE credential_id = $1 AND user_id = $2",
            &[&id.as_bytes(), &user.as_uuid()],
        )? > 0)
    }

    fn insert_ceremony(&mut self, c: &Ceremony) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO passkey_ceremonies (hash, purpose, user_id, state, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &&c.hash.0[..],
                &c.purpose.as_str(),
                &c.user_id.map(|u| u.as_uuid()),
                &c.state.as_str(),
                &c.created_at,
                &c.expires_at,
            ],
        )?;
        Ok(())
    }

    fn take_ceremony(&mut self, hash: &TokenHash) -> Result<Option<Ceremony>, StoreError> {
        self.one(
            "DELETE FROM passkey_ceremonies WHERE hash = $1
             RETURNING hash, purpose, user_id, state, created_at, expires_at",
            &[&&hash.0[..]],
            ceremony_from,
        )
    }

    fn prune_ceremonies(&mut self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        self.exec(
            "DELETE FROM passkey_ceremonies WHERE expires_at < $1",
            &[&now],
        )
    }
}
