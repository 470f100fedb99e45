//! Saved designs in SQL: the designs table with its look as JSON and its logo as a blob, the account's default as a flag at most one row per account holds, and the links' design column.

use qr_domain::designs::design::{Design, DesignLogo, LogoType};
use qr_domain::designs::look::Look;
use qr_domain::designs::store::{DesignReads, DesignWrites};
use qr_domain::ids::DesignId;
use qr_domain::{AccountId, StoreError};
use rusqlite::{Row, params};

use crate::tx::{SqlTx, corrupt, count, get, json, micros, time, to_json, uuid};

/// Version 10: saved designs. The look is the JSON object of its generate parameters (`Look`),
/// the logo its image bytes with their media type (both NULL without one), `is_default` 1 on
/// the account's default (a partial unique index keeps it to one row per account). A link's
/// `design_id` names one of its account's designs (NULL: the account's default). It has no
/// foreign key: SQLite cannot drop a column a foreign key uses (the upgrade tests take a file
/// back to version 1), and the service keeps it true: a link names a design of its own account,
/// a design links name is not deleted, and an account's deletion takes both.
pub(crate) const V10_DESIGNS: &str = r"
CREATE TABLE designs (
    id BLOB PRIMARY KEY,
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    look TEXT NOT NULL,
    logo BLOB,
    logo_type TEXT,
    is_default INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX designs_by_account ON designs(account_id, name, id);
CREATE UNIQUE INDEX designs_default ON designs(account_id) WHERE is_default = 1;
ALTER TABLE links ADD COLUMN design_id BLOB;
CREATE INDEX links_by_design ON links(design_id) WHERE design_id IS NOT NULL;
";

const DESIGN_COLS: &str =
    "id, account_id, name, look, logo, logo_type, is_default, created_at, updated_at";

fn design_from(r: &Row<'_>) -> Result<Design, StoreError> {
    let logo = match (get::<Option<Vec<u8>>>(r, 4)?, get::<Option<String>>(r, 5)?) {
        (Some(bytes), Some(kind)) => Some(DesignLogo::from_stored(
            LogoType::from_media_type(&kind).ok_or_else(|| corrupt("logo_type"))?,
            bytes,
        )),
        (None, None) => None,
        _ => return Err(corrupt("logo")),
    };
    Ok(Design {
        id: DesignId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        account_id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
        name: get::<String>(r, 2)?
            .try_into()
            .map_err(|_| corrupt("name"))?,
        look: Look::from_stored(json(&get::<String>(r, 3)?, "look")?),
        logo,
        is_default: get::<i64>(r, 6)? != 0,
        created_at: time(get(r, 7)?)?,
        updated_at: time(get(r, 8)?)?,
    })
}

fn bytes(id: uuid::Uuid) -> [u8; 16] {
    id.into_bytes()
}

impl DesignReads for SqlTx<'_> {
    fn design(&self, account: AccountId, id: DesignId) -> Result<Option<Design>, StoreError> {
        self.one(
            &format!("SELECT {DESIGN_COLS} FROM designs WHERE id = ?1 AND account_id = ?2"),
            [&bytes(id.as_uuid())[..], &bytes(account.as_uuid())[..]],
            design_from,
        )
    }

    fn designs_of(&self, account: AccountId) -> Result<Vec<Design>, StoreError> {
        self.all(
            &format!("SELECT {DESIGN_COLS} FROM designs WHERE account_id = ?1 ORDER BY name, id"),
            [&bytes(account.as_uuid())[..]],
            design_from,
        )
    }

    fn default_design(&self, account: AccountId) -> Result<Option<Design>, StoreError> {
        self.one(
            &format!("SELECT {DESIGN_COLS} FROM designs WHERE account_id = ?1 AND is_default = 1"),
            [&bytes(account.as_uuid())[..]],
            design_from,
        )
    }

    fn count_designs(&self, account: AccountId) -> Result<u64, StoreError> {
        let n = self.one(
            "SELECT count(*) FROM designs WHERE account_id = ?1",
            [&bytes(account.as_uuid())[..]],
            |r| get::<i64>(r, 0),
        )?;
        Ok(count(n.unwrap_or(0)))
    }

    fn count_design_links(&self, account: AccountId, id: DesignId) -> Result<u64, StoreError> {
        let n = self.one(
            "SELECT count(*) FROM links WHERE design_id = ?1 AND account_id = ?2",
            [&bytes(id.as_uuid())[..], &bytes(account.as_uuid())[..]],
            |r| get::<i64>(r, 0),
        )?;
        Ok(count(n.unwrap_or(0)))
    }
}

impl DesignWrites for SqlTx<'_> {
    fn insert_design(&mut self, d: &Design) -> Result<(), StoreError> {
        self.exec(
            &format!(
                "INSERT INTO designs ({DESIGN_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
            ),
            params![
                &bytes(d.id.as_uuid())[..],
                &bytes(d.account_id.as_uuid())[..],
                d.name.as_str(),
                to_json(&d.look)?,
                d.logo.as_ref().map(DesignLogo::bytes),
                d.logo.as_ref().map(|l| l.kind().media_type()),
                i64::from(d.is_default),
                micros(d.created_at),
                micros(d.updated_at),
            ],
        )?;
        Ok(())
    }

    fn update_design(&mut self, d: &Design) -> Result<bool, StoreError> {
        let n = self.exec(
            "UPDATE designs SET name = ?3, look = ?4, logo = ?5, logo_type = ?6, is_default = ?7,
                                updated_at = ?8
             WHERE id = ?1 AND account_id = ?2",
            params![
                &bytes(d.id.as_uuid())[..],
                &bytes(d.account_id.as_uuid())[..],
                d.name.as_str(),
                to_json(&d.look)?,
                d.logo.as_ref().map(DesignLogo::bytes),
                d.logo.as_ref().map(|l| l.kind().media_type()),
                i64::from(d.is_default),
                micros(d.updated_at),
            ],
        )?;
        Ok(n > 0)
    }

    fn delete_design(&mut self, account: AccountId, id: DesignId) -> Result<bool, StoreError> {
        let n = self.exec(
            "DELETE FROM designs WHERE id = ?1 AND account_id = ?2",
            [&bytes(id.as_uuid())[..], &bytes(account.as_uuid())[..]],
        )?;
        Ok(n > 0)
    }

    fn clear_default_design(&mut self, account: AccountId) -> Result<(), StoreError> {
        self.exec(
            "UPDATE designs SET is_default = 0 WHERE account_id = ?1 AND is_default = 1",
            [&bytes(account.as_uuid())[..]],
        )?;
        Ok(())
    }
}
