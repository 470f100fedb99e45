//! Passkeys in SQL: users' registered credentials (unique by credential id, going with their user) and the ceremonies in flight, taken out by `DELETE … RETURNING` so each finishes once whichever process reads it.

use chrono::{DateTime, Utc};
use qr_domain::StoreError;
use qr_domain::dashboard::token::TokenHash;
use qr_domain::ids::UserId;
use qr_domain::passkeys::{
    Ceremony, CeremonyPurpose, CeremonyState, CredentialId, Passkey, PasskeyData, PasskeyName,
};
use qr_domain::store::{PasskeyReads, PasskeyWrites};
use rusqlite::{Row, params};

use crate::tx::{SqlTx, corrupt, get, micros, time, user_bytes, uuid};

/// Version 17: passkeys and their ceremonies. The credential record and the ceremony state are
/// the verifier's serializations (JSON text), kept as given; a credential record holds a public
/// key, nothing secret.
pub(crate) const V17_PASSKEYS: &str = r"
CREATE TABLE passkeys (
    credential_id BLOB PRIMARY KEY,
    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER
) WITHOUT ROWID;
CREATE INDEX passkeys_by_user ON passkeys (user_id, created_at);
CREATE TABLE passkey_ceremonies (
    hash BLOB PRIMARY KEY,
    purpose TEXT NOT NULL,
    user_id BLOB REFERENCES users(id) ON DELETE CASCADE,
    state TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX passkey_ceremonies_by_expiry ON passkey_ceremonies (expires_at);
";

const PASSKEY_COLS: &str = "credential_id, user_id, name, data, created_at, last_used_at";

fn passkey_from(r: &Row<'_>) -> Result<Passkey, StoreError> {
    Ok(Passkey {
        credential_id: CredentialId::new(get(r, 0)?).map_err(|_| corrupt("credential id"))?,
        user_id: UserId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
        name: PasskeyName::parse(&get::<String>(r, 2)?).map_err(|_| corrupt("passkey name"))?,
        data: PasskeyData::new(get(r, 3)?),
        created_at: time(get(r, 4)?)?,
        last_used_at: get::<Option<i64>>(r, 5)?.map(time).transpose()?,
    })
}

fn ceremony_from(r: &Row<'_>) -> Result<Ceremony, StoreError> {
    let hash: Vec<u8> = get(r, 0)?;
    Ok(Ceremony {
        hash: TokenHash(hash.try_into().map_err(|_| corrupt("ceremony hash"))?),
        purpose: CeremonyPurpose::parse(&get::<String>(r, 1)?)
            .ok_or_else(|| corrupt("ceremony purpose"))?,
        user_id: get::<Option<Vec<u8>>>(r, 2)?
            .map(|b| uuid(&b).map(UserId::from_uuid))
            .transpose()?,
        state: CeremonyState::new(get(r, 3)?),
        created_at: time(get(r, 4)?)?,
        expires_at: time(get(r, 5)?)?,
    })
}

impl PasskeyReads for SqlTx<'_> {
    fn passkeys_of(&self, user: UserId) -> Result<Vec<Passkey>, StoreError> {
        let sql = format!(
            "SELECT {PASSKEY_COLS} FROM passkeys WHERE user_id = ?1
             ORDER BY created_at, credential_id"
        );
        self.all(&sql, [&user_bytes(user)[..]], passkey_from)
    }

    fn passkey(&self, id: &CredentialId) -> Result<Option<Passkey>, StoreError> {
        let sql = format!("SELECT {PASSKEY_COLS} FROM passkeys WHERE credential_id = ?1");
        self.one(&sql, [id.as_bytes()], passkey_from)
    }
}

impl PasskeyWrites for SqlTx<'_> {
    fn insert_passkey(&mut self, p: &Passkey) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO passkeys (credential_id, user_id, name, data, created_at, last_used_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                p.credential_id.as_bytes(),
                &user_bytes(p.user_id)[..],
                p.name.as_str(),
                p.data.as_str(),
                micros(p.created_at),
                p.last_used_at.map(micros)
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
            "UPDATE passkeys SET data = ?2, last_used_at = ?3 WHERE credential_id = ?1",
            params![id.as_bytes(), data.as_str(), micros(at)],
        )? > 0)
    }

    fn delete_passkey(&mut self, user: UserId, id: &CredentialId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM passkeys WHERE credential_id = ?1 AND user_id = ?2",
            params![id.as_bytes(), &user_bytes(user)[..]],
        )? > 0)
    }

    fn insert_ceremony(&mut self, c: &Ceremony) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO passkey_ceremonies (hash, purpose, user_id, state, created_at, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                &c.hash.0[..],
                c.purpose.as_str(),
                c.user_id.map(|u| user_bytes(u).to_vec()),
                c.state.as_str(),
                micros(c.created_at),
                micros(c.expires_at)
            ],
        )?;
        Ok(())
    }

    fn take_ceremony(&mut self, hash: &TokenHash) -> Result<Option<Ceremony>, StoreError> {
        self.one(
            "DELETE FROM passkey_ceremonies WHERE hash = ?1
             RETURNING hash, purpose, user_id, state, created_at, expires_at",
            [&hash.0[..]],
            ceremony_from,
        )
    }

    fn prune_ceremonies(&mut self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        Ok(self.exec(
            "DELETE FROM passkey_ceremonies WHERE expires_at < ?1",
            [micros(now)],
        )? as u64)
    }
}
