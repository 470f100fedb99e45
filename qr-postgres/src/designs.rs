//! Saved designs in SQL: the designs table with its look as JSON and its logo as bytea, the account's default as a flag at most one row per account holds, and the links' design column.

use postgres::Row;
use qr_domain::designs::design::{Design, DesignLogo, LogoType};
use qr_domain::designs::look::Look;
use qr_domain::designs::store::{DesignReads, DesignWrites};
use qr_domain::ids::DesignId;
use qr_domain::{AccountId, StoreError};

use crate::tx::{PgTx, corrupt, count, get, json, to_json};

/// Version 10: saved designs, as SQLite's version 10. The look is the JSON text of its generate
/// parameters, the logo its bytes with their media type (both NULL without one), `is_default`
/// 1 on the account's default (a smallint, as SQLite's integer, so `qr db copy` moves it
/// unchanged; a partial unique index keeps it to one row per account). A
/// link's `design_id` names one of its account's designs (NULL: the account's default).
pub(crate) const V10_DESIGNS: &str = r"
CREATE TABLE designs (
    id uuid PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name text NOT NULL,
    look text NOT NULL,
    logo bytea,
    logo_type text,
    is_default smallint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX designs_by_account ON designs (account_id);
CREATE UNIQUE INDEX designs_default ON designs (account_id) WHERE is_default = 1;
ALTER TABLE links ADD COLUMN design_id uuid REFERENCES designs(id) ON DELETE SET NULL;
CREATE INDEX links_by_design ON links (design_id) WHERE design_id IS NOT NULL;
";

const DESIGN_COLS: &str =
    "id, account_id, name, look, logo, logo_type, is_default, created_at, updated_at";

fn design_from(r: &Row) -> Result<Design, StoreError> {
    let logo = match (
        get::<Option<Vec<u8>>>(r, 4, "logo")?,
        get::<Option<String>>(r, 5, "logo_type")?,
    ) {
        (Some(bytes), Some(kind)) => Some(DesignLogo::from_stored(
            LogoType::from_media_type(&kind).ok_or_else(|| corrupt("logo_type"))?,
            bytes,
        )),
        (None, None) => None,
        _ => return Err(corrupt("logo")),
    };
    Ok(Design {
        id: DesignId::from_uuid(get(r, 0, "id")?),
        account_id: AccountId::from_uuid(get(r, 1, "account_id")?),
        name: get::<String>(r, 2, "name")?
            .try_into()
            .map_err(|_| corrupt("name"))?,
        look: Look::from_stored(json(get(r, 3, "look")?, "look")?),
        logo,
        is_default: get::<i16>(r, 6, "is_default")? != 0,
        created_at: get(r, 7, "created_at")?,
        updated_at: get(r, 8, "updated_at")?,
    })
}

impl DesignReads for PgTx<'_> {
    fn design(&self, account: AccountId, id: DesignId) -> Result<Option<Design>, StoreError> {
        self.one(
            &format!("SELECT {DESIGN_COLS} FROM designs WHERE id = $1 AND account_id = $2"),
            &[&id.as_uuid(), &account.as_uuid()],
            design_from,
        )
    }

    fn designs_of(&self, account: AccountId) -> Result<Vec<Design>, StoreError> {
        // The "C" collation orders names bytewise, as SQLite and the memory store do.
        self.all(
            &format!(
                r#"SELECT {DESIGN_COLS} FROM designs WHERE account_id = $1
                   ORDER BY name COLLATE "C", id"#
            ),
            &[&account.as_uuid()],
            design_from,
        )
    }

    fn default_design(&self, account: AccountId) -> Result<Option<Design>, StoreError> {
        self.one(
            &format!("SELECT {DESIGN_COLS} FROM designs WHERE account_id = $1 AND is_default = 1"),
            &[&account.as_uuid()],
            design_from,
        )
    }

    fn count_designs(&self, account: AccountId) -> Result<u64, StoreError> {
        let n = self.one(
            "SELECT count(*) FROM designs WHERE account_id = $1",
            &[&account.as_uuid()],
            |r| get::<i64>(r, 0, "count"),
        )?;
        Ok(count(n.unwrap_or(0)))
    }

    fn count_design_links(&self, account: AccountId, id: DesignId) -> Result<u64, StoreError> {
        let n = self.one(
            "SELECT count(*) FROM links WHERE design_id = $1 AND account_id = $2",
            &[&id.as_uuid(), &account.as_uuid()],
            |r| get::<i64>(r, 0, "count"),
        )?;
        Ok(count(n.unwrap_or(0)))
    }
}

impl DesignWrites for PgTx<'_> {
    fn insert_design(&mut self, d: &Design) -> Result<(), StoreError> {
        self.exec(
            &format!(
                "INSERT INTO designs ({DESIGN_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
            ),
            &[
                &d.id.as_uuid(),
                &d.account_id.as_uuid(),
                &d.name.as_str(),
                &to_json(&d.look)?,
                &d.logo.as_ref().map(DesignLogo::bytes),
                &d.logo.as_ref().map(|l| l.kind().media_type()),
                &i16::from(d.is_default),
                &d.created_at,
                &d.updated_at,
            ],
        )?;
        Ok(())
    }

    fn update_design(&mut self, d: &Design) -> Result<bool, StoreError> {
        let n = self.exec(
            "UPDATE designs SET name = $3, look = $4, logo = $5, logo_type = $6, is_default = $7,
                                updated_at = $8
             WHERE id = $1 AND account_id = $2",
            &[
                &d.id.as_uuid(),
                &d.account_id.as_uuid(),
                &d.name.as_str(),
                &to_json(&d.look)?,
                &d.logo.as_ref().map(DesignLogo::bytes),
                &d.logo.as_ref().map(|l| l.kind().media_type()),
                &i16::from(d.is_default),
                &d.updated_at,
            ],
        )?;
        Ok(n > 0)
    }

    fn delete_design(&mut self, account: AccountId, id: DesignId) -> Result<bool, StoreError> {
        let n = self.exec(
            "DELETE FROM designs WHERE id = $1 AND account_id = $2",
            &[&id.as_uuid(), &account.as_uuid()],
        )?;
        Ok(n > 0)
    }

    fn clear_default_design(&mut self, account: AccountId) -> Result<(), StoreError> {
        self.exec(
            "UPDATE designs SET is_default = 0 WHERE account_id = $1 AND is_default = 1",
            &[&account.as_uuid()],
        )?;
        Ok(())
    }
}
