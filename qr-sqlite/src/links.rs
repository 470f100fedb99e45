//! Links in SQL: lookups by id or code key, inserting and updating a link with its code key, tags and options, listing with filters and a cursor, searching, and deleting with a tombstone.

use qr_domain::domains::name::DomainName;
use qr_domain::links::listing::LinkQuery;
use qr_domain::links::shortcode::{scoped_key, split_scoped};
use qr_domain::store::{LinkReads, LinkWrites};
use qr_domain::{AccountId, DesignId, Link, LinkId, Options, ShortCode, StoreError};
use rusqlite::{Row, params};

use crate::tx::{SqlTx, corrupt, count, get, json, micros, signed, time, to_json, uuid};

const LINK_COLS: &str = "id, account_id, name, short_code, target_url, scan_count, created_at, updated_at, tags, options, domain, design_id";

fn link_from(r: &Row<'_>) -> Result<Link, StoreError> {
    Ok(Link {
        id: LinkId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        account_id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
        name: get::<String>(r, 2)?
            .try_into()
            .map_err(|_| corrupt("name"))?,
        short_code: split_scoped(&get::<String>(r, 3)?)
            .1
            .to_owned()
            .try_into()
            .map_err(|_| corrupt("short_code"))?,
        domain: get::<Option<String>>(r, 10)?
            .map(DomainName::try_from)
            .transpose()
            .map_err(|_| corrupt("domain"))?,
        design: get::<Option<Vec<u8>>>(r, 11)?
            .map(|b| uuid(&b).map(DesignId::from_uuid))
            .transpose()?,
        target_url: get::<String>(r, 4)?
            .try_into()
            .map_err(|_| corrupt("target_url"))?,
        scan_count: count(get(r, 5)?),
        created_at: time(get(r, 6)?)?,
        updated_at: time(get(r, 7)?)?,
        tags: json(&get::<String>(r, 8)?, "tags")?,
        options: Options::from_stored(get::<Option<String>>(r, 9)?.as_deref())?,
    })
}

impl LinkReads for SqlTx<'_> {
    fn link(&self, account: AccountId, id: LinkId) -> Result<Option<Link>, StoreError> {
        let sql = format!("SELECT {LINK_COLS} FROM links WHERE id = ?1 AND account_id = ?2");
        self.one(
            &sql,
            [
                &id.as_uuid().as_bytes()[..],
                &account.as_uuid().as_bytes()[..],
            ],
            link_from,
        )
    }

    fn link_by_code(
        &self,
        domain: Option<&DomainName>,
        code: &ShortCode,
    ) -> Result<Option<Link>, StoreError> {
        let sql = format!("SELECT {LINK_COLS} FROM links WHERE code_key = ?1");
        self.one(&sql, [scoped_key(domain, code)], link_from)
    }

    fn links_of(&self, account: AccountId) -> Result<Vec<Link>, StoreError> {
        let sql =
            format!("SELECT {LINK_COLS} FROM links WHERE account_id = ?1 ORDER BY created_at, id");
        self.all(&sql, [&account.as_uuid().as_bytes()[..]], link_from)
    }

    fn search_links(
        &self,
        account: AccountId,
        needle: &str,
        offset: u64,
        limit: u32,
    ) -> Result<(Vec<Link>, u64), StoreError> {
        // SQLite's lower() folds ASCII letters only, as the domain's needle is folded.
        const MATCHES: &str = "account_id = ?1 AND (?2 = '' OR instr(lower(name), ?2) > 0 \
             OR instr(lower(target_url), ?2) > 0 OR instr(lower(short_code), ?2) > 0)";
        let account = account.as_uuid();
        let account = &account.as_bytes()[..];
        let sql = format!(
            "SELECT {LINK_COLS} FROM links WHERE {MATCHES} \
             ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4"
        );
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        let links = self.all(
            &sql,
            rusqlite::params![account, needle, i64::from(limit), offset],
            link_from,
        )?;
        let total = self.one(
            &format!("SELECT count(*) FROM links WHERE {MATCHES}"),
            rusqlite::params![account, needle],
            |r| get::<i64>(r, 0),
        )?;
        Ok((links, count(total.unwrap_or(0))))
    }

    fn count_links(&self, account: AccountId) -> Result<u64, StoreError> {
        let n = self.one(
            "SELECT count(*) FROM links WHERE account_id = ?1",
            [&account.as_uuid().as_bytes()[..]],
            |r| get::<i64>(r, 0),
        )?;
        Ok(count(n.unwrap_or(0)))
    }

    fn code_taken(
        &self,
        domain: Option<&DomainName>,
        code: &ShortCode,
    ) -> Result<bool, StoreError> {
        let found = self.one(
            "SELECT 1 FROM links WHERE code_key = ?1 UNION ALL SELECT 1 FROM tombstones WHERE short_code = ?1",
            [scoped_key(domain, code)],
            |_| Ok(()),
        )?;
        Ok(found.is_some())
    }

    /// The account's links matching the query, newest first. `lower` folds ASCII letters only
    /// (SQLite without ICU), as the query's search text is folded.
    fn list_links(&self, account: AccountId, query: &LinkQuery) -> Result<Vec<Link>, StoreError> {
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
        self.all(
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
}

impl LinkWrites for SqlTx<'_> {
    /// Adds a link; its code's key must be free on its domain (live or tombstoned).
    fn insert_link(&mut self, l: &Link) -> Result<(), StoreError> {
        if self.code_taken(l.domain.as_ref(), &l.short_code)? {
            return Err(StoreError::Conflict(format!(
                "short code {} was already issued",
                l.short_code
            )));
        }
        self.exec(
            "INSERT INTO links (id, account_id, name, short_code, target_url, scan_count, created_at,
                                updated_at, code_key, tags, options, domain, design_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                &l.id.as_uuid().as_bytes()[..],
                &l.account_id.as_uuid().as_bytes()[..],
                l.name.as_str(),
                l.stored_code(),
                l.target_url.as_str(),
                signed(l.scan_count),
                micros(l.created_at),
                micros(l.updated_at),
                l.code_key(),
                to_json(&l.tags)?,
                l.options.to_stored(),
                l.domain.as_ref().map(DomainName::as_str),
                l.design.map(|d| d.as_uuid().into_bytes().to_vec()),
            ],
        )?;
        Ok(())
    }

    /// Replaces a link's fields; a new code's key must be free, and the old key is tombstoned.
    fn update_link(&mut self, l: &Link) -> Result<bool, StoreError> {
        let id = l.id.as_uuid().into_bytes();
        let account = l.account_id.as_uuid().into_bytes();
        let Some(old_key) = self.one(
            "SELECT code_key FROM links WHERE id = ?1 AND account_id = ?2",
            [&id[..], &account[..]],
            |r| get::<String>(r, 0),
        )?
        else {
            return Ok(false);
        };
        if old_key != l.code_key() {
            if self.code_taken(l.domain.as_ref(), &l.short_code)? {
                return Err(StoreError::Conflict(format!(
                    "short code {} was already issued",
                    l.short_code
                )));
            }
            self.exec(
                "INSERT OR IGNORE INTO tombstones (short_code) VALUES (?1)",
                [&old_key],
            )?;
        }
        let n = self.exec(
            "UPDATE links SET name = ?3, target_url = ?4, updated_at = ?5, short_code = ?6,
                              code_key = ?7, tags = ?8, options = ?9, domain = ?10,
                              design_id = ?11
             WHERE id = ?1 AND account_id = ?2",
            params![
                &id[..],
                &account[..],
                l.name.as_str(),
                l.target_url.as_str(),
                micros(l.updated_at),
                l.stored_code(),
                l.code_key(),
                to_json(&l.tags)?,
                l.options.to_stored(),
                l.domain.as_ref().map(DomainName::as_str),
                l.design.map(|d| d.as_uuid().into_bytes().to_vec()),
            ],
        )?;
        Ok(n > 0)
    }

    fn delete_link(&mut self, account: AccountId, id: LinkId) -> Result<bool, StoreError> {
        let lid_bytes = id.as_uuid().into_bytes();
        let lid = &lid_bytes[..];
        let code = self.one(
            "SELECT code_key FROM links WHERE id = ?1 AND account_id = ?2",
            [lid, &account.as_uuid().as_bytes()[..]],
            |r| get::<String>(r, 0),
        )?;
        let Some(code) = code else {
            return Ok(false);
        };
        self.exec(
            "INSERT OR IGNORE INTO tombstones (short_code) VALUES (?1)",
            [&code],
        )?;
        self.exec("DELETE FROM visitors WHERE link_id = ?1", [lid])?;
        // Scans and rollups go with the link (ON DELETE CASCADE).
        self.exec("DELETE FROM links WHERE id = ?1", [lid])?;
        Ok(true)
    }
}
