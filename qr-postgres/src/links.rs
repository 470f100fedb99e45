//! Links' SQL beyond single lookups: inserting and updating a link with its code key, tags and options, and listing with filters and a cursor.

use qr_domain::listing::LinkQuery;
use qr_domain::{AccountId, Link, ReadTx, StoreError};

use crate::tx::{LINK_COLS, PgTx, get, link_from, signed, to_json};

/// Adds a link. A live link's code key is refused by the unique index, a tombstoned one here:
/// one statement, one round trip.
pub(crate) fn insert(tx: &PgTx<'_>, l: &Link) -> Result<(), StoreError> {
    let inserted = tx.exec(
        "INSERT INTO links (id, account_id, name, short_code, target_url, scan_count, created_at,
                            updated_at, code_key, tags, options)
         SELECT $1::uuid, $2::uuid, $3::text, $4::text, $5::text, $6::bigint, $7::timestamptz,
                $8::timestamptz, $9::text, $10::text, $11::text
         WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE short_code = $9)",
        &[
            &l.id.as_uuid(),
            &l.account_id.as_uuid(),
            &l.name.as_str(),
            &l.short_code.as_str(),
            &l.target_url.as_str(),
            &signed(l.scan_count),
            &l.created_at,
            &l.updated_at,
            &l.short_code.key(),
            &to_json(&l.tags)?,
            &l.options.to_stored(),
        ],
    )?;
    if inserted == 0 {
        return Err(StoreError::Conflict(format!(
            "short code {} was already issued",
            l.short_code
        )));
    }
    Ok(())
}

/// Replaces a link's fields; a new code's key must be free, and the old key is tombstoned.
pub(crate) fn update(tx: &PgTx<'_>, l: &Link) -> Result<bool, StoreError> {
    let Some(old_key) = tx.one(
        "SELECT code_key FROM links WHERE id = $1 AND account_id = $2",
        &[&l.id.as_uuid(), &l.account_id.as_uuid()],
        |r| get::<String>(r, 0, "code_key"),
    )?
    else {
        return Ok(false);
    };
    if old_key != l.short_code.key() {
        if tx.code_taken(&l.short_code)? {
            return Err(StoreError::Conflict(format!(
                "short code {} was already issued",
                l.short_code
            )));
        }
        tx.exec(
            "INSERT INTO tombstones (short_code) VALUES ($1) ON CONFLICT DO NOTHING",
            &[&old_key],
        )?;
    }
    let n = tx.exec(
        "UPDATE links SET name = $3, target_url = $4, updated_at = $5, short_code = $6,
                          code_key = $7, tags = $8, options = $9
         WHERE id = $1 AND account_id = $2",
        &[
            &l.id.as_uuid(),
            &l.account_id.as_uuid(),
            &l.name.as_str(),
            &l.target_url.as_str(),
            &l.updated_at,
            &l.short_code.as_str(),
            &l.short_code.key(),
            &to_json(&l.tags)?,
            &l.options.to_stored(),
        ],
    )?;
    Ok(n > 0)
}

/// The account's links matching the query, newest first. `lower` under the C collation folds
/// ASCII letters only, as the query's search text is folded (and as SQLite's `lower` does).
pub(crate) fn list(
    tx: &PgTx<'_>,
    account: AccountId,
    query: &LinkQuery,
) -> Result<Vec<Link>, StoreError> {
    let sql = format!(
        r#"SELECT {LINK_COLS} FROM links
         WHERE account_id = $1
           AND ($2::text IS NULL OR strpos(lower(name COLLATE "C"), $2) > 0
                OR strpos(lower(target_url COLLATE "C"), $2) > 0
                OR strpos(lower(short_code COLLATE "C"), $2) > 0)
           AND ($3::text IS NULL OR tags::jsonb ? $3)
           AND ($4::timestamptz IS NULL OR (created_at, id) < ($4, $5::uuid))
         ORDER BY created_at DESC, id DESC
         LIMIT $6"#
    );
    tx.all(
        &sql,
        &[
            &account.as_uuid(),
            &query.search.as_deref(),
            &query.tag.as_ref().map(|t| t.as_str()),
            &query.after.map(|c| c.created_at),
            &query.after.map(|c| c.id.as_uuid()),
            &i64::from(query.limit),
        ],
        link_from,
    )
}
