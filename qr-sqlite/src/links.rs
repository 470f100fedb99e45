//! Links' SQL beyond single lookups: inserting and updating a link with its code key, tags and options, and listing with filters and a cursor.

use qr_domain::listing::LinkQuery;
use qr_domain::{AccountId, Link, ReadTx, StoreError};
use rusqlite::params;

use crate::tx::{LINK_COLS, SqlTx, get, link_from, micros, signed, to_json};

/// Adds a link; its code's key must be free (live or tombstoned).
pub(crate) fn insert(tx: &SqlTx<'_>, l: &Link) -> Result<(), StoreError> {
    if tx.code_taken(&l.short_code)? {
        return Err(StoreError::Conflict(format!(
            "short code {} was already issued",
            l.short_code
        )));
    }
    tx.exec(
        "INSERT INTO links (id, account_id, name, short_code, target_url, scan_count, created_at,
                            updated_at, code_key, tags, options)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            &l.id.as_uuid().as_bytes()[..],
            &l.account_id.as_uuid().as_bytes()[..],
            l.name.as_str(),
            l.short_code.as_str(),
            l.target_url.as_str(),
            signed(l.scan_count),
            micros(l.created_at),
            micros(l.updated_at),
            l.short_code.key(),
            to_json(&l.tags)?,
            l.options.to_stored(),
        ],
    )?;
    Ok(())
}

/// Replaces a link's fields; a new code's key must be free, and the old key is tombstoned.
pub(crate) fn update(tx: &SqlTx<'_>, l: &Link) -> Result<bool, StoreError> {
    let id = l.id.as_uuid().into_bytes();
    let account = l.account_id.as_uuid().into_bytes();
    let Some(old_key) = tx.one(
        "SELECT code_key FROM links WHERE id = ?1 AND account_id = ?2",
        [&id[..], &account[..]],
        |r| get::<String>(r, 0),
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
            "INSERT OR IGNORE INTO tombstones (short_code) VALUES (?1)",
            [&old_key],
        )?;
    }
    let n = tx.exec(
        "UPDATE links SET name = ?3, target_url = ?4, updated_at = ?5, short_code = ?6,
                          code_key = ?7, tags = ?8, options = ?9
         WHERE id = ?1 AND account_id = ?2",
        params![
            &id[..],
            &account[..],
            l.name.as_str(),
            l.target_url.as_str(),
            micros(l.updated_at),
            l.short_code.as_str(),
            l.short_code.key(),
            to_json(&l.tags)?,
            l.options.to_stored(),
        ],
    )?;
    Ok(n > 0)
}

/// The account's links matching the query, newest first. `lower` folds ASCII letters only
/// (SQLite without ICU), as the query's search text is folded.
pub(crate) fn list(
    tx: &SqlTx<'_>,
    account: AccountId,
    query: &LinkQuery,
) -> Result<Vec<Link>, StoreError> {
    let sql = format!(
        "SELECT {LINK_COLS} FROM links
         WHERE account_id = ?1
           AND (?2 IS NULL OR instr(lower(name), ?2) > 0 OR instr(lower(target_url), ?2) > 0
                OR instr(lower(short_code), ?2) > 0)
           AND (?3 IS NULL OR EXISTS (SELECT 1 FROM json_each(links.tags) AS t WHERE t.value = ?3))
           AND (?4 IS NULL OR created_at < ?4 OR (created_at = ?4 AND id < ?5))
         ORDER BY created_at DESC, id DESC
         LIMIT ?6"
    );
    let after_id = query.after.map(|c| c.id.as_uuid().into_bytes());
    tx.all(
        &sql,
        params![
            &account.as_uuid().as_bytes()[..],
            query.search.as_deref(),
            query.tag.as_ref().map(|t| t.as_str()),
            query.after.map(|c| micros(c.created_at)),
            after_id.as_ref().map(|b| &b[..]),
            i64::from(query.limit),
        ],
        link_from,
    )
}
