//! Links in SQL: lookups by id or code key, inserting and updating a link with its code key, tags and options, listing with filters and a cursor, searching, and deleting with a tombstone.

use postgres::Row;
use qr_domain::domains::name::DomainName;
use qr_domain::links::listing::LinkQuery;
use qr_domain::links::shortcode::{scoped_key, split_scoped};
use qr_domain::store::{LinkReads, LinkWrites};
use qr_domain::{AccountId, DesignId, Link, LinkId, Options, ShortCode, StoreError};

use crate::tx::{PgTx, corrupt, count, get, json, signed, to_json};
use crate::writers::link_scan_count;

const LINK_COLS: &str = concat!(
    "id, account_id, name, short_code, target_url, ",
    link_scan_count!(),
    ", created_at, updated_at, tags, options, domain, design_id"
);

fn link_from(r: &Row) -> Result<Link, StoreError> {
    Ok(Link {
        id: LinkId::from_uuid(get(r, 0, "id")?),
        account_id: AccountId::from_uuid(get(r, 1, "account_id")?),
        name: get::<String>(r, 2, "name")?
            .try_into()
            .map_err(|_| corrupt("name"))?,
        short_code: split_scoped(get::<&str>(r, 3, "short_code")?)
            .1
            .to_owned()
            .try_into()
            .map_err(|_| corrupt("short_code"))?,
        domain: get::<Option<String>>(r, 10, "domain")?
            .map(DomainName::try_from)
            .transpose()
            .map_err(|_| corrupt("domain"))?,
        design: get::<Option<uuid::Uuid>>(r, 11, "design_id")?.map(DesignId::from_uuid),
        target_url: get::<String>(r, 4, "target_url")?
            .try_into()
            .map_err(|_| corrupt("target_url"))?,
        scan_count: count(get(r, 5, "scan_count")?),
        created_at: get(r, 6, "created_at")?,
        updated_at: get(r, 7, "updated_at")?,
        tags: json(get(r, 8, "tags")?, "tags")?,
        options: Options::from_stored(get::<Option<&str>>(r, 9, "options")?)?,
    })
}

impl LinkReads for PgTx<'_> {
    fn link(&self, account: AccountId, id: LinkId) -> Result<Option<Link>, StoreError> {
        let sql = format!("SELECT {LINK_COLS} FROM links WHERE id = $1 AND account_id = $2");
        self.one(&sql, &[&id.as_uuid(), &account.as_uuid()], link_from)
    }

    fn link_by_code(
        &self,
        domain: Option<&DomainName>,
        code: &ShortCode,
    ) -> Result<Option<Link>, StoreError> {
        let sql = format!("SELECT {LINK_COLS} FROM links WHERE code_key = $1");
        self.one(&sql, &[&scoped_key(domain, code)], link_from)
    }

    fn links_of(&self, account: AccountId) -> Result<Vec<Link>, StoreError> {
        let sql =
            format!("SELECT {LINK_COLS} FROM links WHERE account_id = $1 ORDER BY created_at, id");
        self.all(&sql, &[&account.as_uuid()], link_from)
    }

    fn search_links(
        &self,
        account: AccountId,
        needle: &str,
        offset: u64,
        limit: u32,
    ) -> Result<(Vec<Link>, u64), StoreError> {
        // Under the "C" collation lower() folds ASCII letters only, as the domain's needle is
        // folded and as SQLite's lower() does.
        const MATCHES: &str = r#"account_id = $1 AND ($2 = '' OR strpos(lower(name COLLATE "C"), $2) > 0
             OR strpos(lower(target_url COLLATE "C"), $2) > 0
             OR strpos(lower(short_code COLLATE "C"), $2) > 0)"#;
        let account = account.as_uuid();
        let sql = format!(
            "SELECT {LINK_COLS} FROM links WHERE {MATCHES} \
             ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4"
        );
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        let links = self.all(
            &sql,
            &[&account, &needle, &i64::from(limit), &offset],
            link_from,
        )?;
        let total = self.one(
            &format!("SELECT count(*) FROM links WHERE {MATCHES}"),
            &[&account, &needle],
            |r| get::<i64>(r, 0, "count"),
        )?;
        Ok((links, count(total.unwrap_or(0))))
    }

    fn count_links(&self, account: AccountId) -> Result<u64, StoreError> {
        let n = self.one(
            "SELECT count(*) FROM links WHERE account_id = $1",
            &[&account.as_uuid()],
            |r| get::<i64>(r, 0, "count"),
        )?;
        Ok(count(n.unwrap_or(0)))
    }

    fn code_taken(
        &self,
        domain: Option<&DomainName>,
        code: &ShortCode,
    ) -> Result<bool, StoreError> {
        let found = self.one(
            "SELECT 1 FROM links WHERE code_key = $1 UNION ALL SELECT 1 FROM tombstones WHERE short_code = $1",
            &[&scoped_key(domain, code)],
            |_| Ok(()),
        )?;
        Ok(found.is_some())
    }

    /// The account's links matching the query, newest first. `lower` under the C collation folds
    /// ASCII letters only, as the query's search text is folded (and as SQLite's `lower` does).
    fn list_links(&self, account: AccountId, query: &LinkQuery) -> Result<Vec<Link>, StoreError> {
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
        self.all(
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
}

impl LinkWrites for PgTx<'_> {
    /// Adds a link. A live link's code key is refused by the unique index, a tombstoned one here:
    /// one statement, one round trip.
    fn insert_link(&mut self, l: &Link) -> Result<(), StoreError> {
        let inserted = self.exec(
            "INSERT INTO links (id, account_id, name, short_code, target_url, scan_count, created_at,
                                updated_at, code_key, tags, options, domain, design_id)
             SELECT $1::uuid, $2::uuid, $3::text, $4::text, $5::text, $6::bigint, $7::timestamptz,
                    $8::timestamptz, $9::text, $10::text, $11::text, $12::text, $13::uuid
             WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE short_code = $9)",
            &[
                &l.id.as_uuid(),
                &l.account_id.as_uuid(),
                &l.name.as_str(),
                &l.stored_code(),
                &l.target_url.as_str(),
                &signed(l.scan_count),
                &l.created_at,
                &l.updated_at,
                &l.code_key(),
                &to_json(&l.tags)?,
                &l.options.to_stored(),
                &l.domain.as_ref().map(DomainName::as_str),
                &l.design.map(|d| d.as_uuid()),
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
    fn update_link(&mut self, l: &Link) -> Result<bool, StoreError> {
        let Some(old_key) = self.one(
            "SELECT code_key FROM links WHERE id = $1 AND account_id = $2",
            &[&l.id.as_uuid(), &l.account_id.as_uuid()],
            |r| get::<String>(r, 0, "code_key"),
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
                "INSERT INTO tombstones (short_code) VALUES ($1) ON CONFLICT DO NOTHING",
                &[&old_key],
            )?;
        }
        let n = self.exec(
            "UPDATE links SET name = $3, target_url = $4, updated_at = $5, short_code = $6,
                              code_key = $7, tags = $8, options = $9, domain = $10,
                              design_id = $11
             WHERE id = $1 AND account_id = $2",
            &[
                &l.id.as_uuid(),
                &l.account_id.as_uuid(),
                &l.name.as_str(),
                &l.target_url.as_str(),
                &l.updated_at,
                &l.stored_code(),
                &l.code_key(),
                &to_json(&l.tags)?,
                &l.options.to_stored(),
                &l.domain.as_ref().map(DomainName::as_str),
                &l.design.map(|d| d.as_uuid()),
            ],
        )?;
        Ok(n > 0)
    }

    fn delete_link(&mut self, account: AccountId, id: LinkId) -> Result<bool, StoreError> {
        let code = self.one(
            "DELETE FROM links WHERE id = $1 AND account_id = $2 RETURNING code_key",
            &[&id.as_uuid(), &account.as_uuid()],
            |r| get::<String>(r, 0, "code_key"),
        )?;
        let Some(code) = code else {
            return Ok(false);
        };
        self.exec(
            "INSERT INTO tombstones (short_code) VALUES ($1) ON CONFLICT DO NOTHING",
            &[&code],
        )?;
        // The scan tables have no foreign key to links (schema version 2). The link row went
        // first: its lock waited for any scan batch holding it, and later batches skip the link,
        // so these statements see every row there will ever be.
        for table in ["scans", "daily", "daily_dims", "visitors", "scan_counts"] {
            self.exec(
                &format!("DELETE FROM {table} WHERE link_id = $1"),
                &[&id.as_uuid()],
            )?;
        }
        Ok(true)
    }
}
