//! Customers' domains in SQL: the domains table with its verification and settings as JSON, the orphan visits (daily counts and the latest visits), and the links' domain column.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use qr_domain::domains::domain::{Domain, VerificationToken};
use qr_domain::domains::name::DomainName;
use qr_domain::domains::orphan::{
    ORPHAN_DAYS_KEPT, ORPHAN_VISITS_KEPT, OrphanDay, OrphanReport, OrphanVisit,
};
use qr_domain::domains::store::{DomainReads, DomainWrites};
use qr_domain::ids::DomainId;
use qr_domain::scans::scan::Device;
use qr_domain::{AccountId, StoreError};
use rusqlite::{Row, params};

use crate::tx::{
    SqlTx, corrupt, count, day, day_num, get, json, micros, signed, time, to_json, uuid,
};

/// Version 9: customers' domains. A link's `domain` is the ASCII name of the domain it lives on
/// (NULL: the service's own address); its `short_code` and `code_key` then carry the domain too
/// (`go.brand.com/SUMMER`, `qr_domain::links::shortcode::scoped_key`), because version 1 made
/// `short_code` unique across all links and SQLite cannot drop that without rebuilding the
/// table the scans reference; tombstones take the same form. A domain's verification and
/// settings are JSON (`Verification`, `DomainSettings`), `next_check_at` a column of its own for
/// the background checker's index. Orphan visits: a count per UTC day (days as the scan
/// tables keep them) and the latest visits, in insertion order.
pub(crate) const V9_DOMAINS: &str = r"
ALTER TABLE links ADD COLUMN domain TEXT;
CREATE INDEX links_by_domain ON links(domain) WHERE domain IS NOT NULL;
CREATE TABLE domains (
    id BLOB PRIMARY KEY,
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL UNIQUE,
    token TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    next_check_at INTEGER,
    verification TEXT NOT NULL,
    settings TEXT NOT NULL
);
CREATE INDEX domains_by_account ON domains(account_id, name);
CREATE INDEX domains_due ON domains(next_check_at) WHERE next_check_at IS NOT NULL;
CREATE TABLE orphan_days (
    domain_id BLOB NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    day INTEGER NOT NULL,
    visits INTEGER NOT NULL,
    PRIMARY KEY (domain_id, day)
) WITHOUT ROWID;
CREATE TABLE orphan_visits (
    seq INTEGER PRIMARY KEY,
    domain_id BLOB NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    at INTEGER NOT NULL,
    path TEXT NOT NULL,
    country TEXT,
    device TEXT NOT NULL
);
CREATE INDEX orphan_visits_by_domain ON orphan_visits(domain_id, seq);
";

const DOMAIN_COLS: &str = "id, account_id, name, token, created_at, verification, settings";

fn domain_from(r: &Row<'_>) -> Result<Domain, StoreError> {
    Ok(Domain {
        id: DomainId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        account_id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
        name: DomainName::try_from(get::<String>(r, 2)?).map_err(|_| corrupt("name"))?,
        token: VerificationToken::from_stored(get(r, 3)?),
        created_at: time(get(r, 4)?)?,
        verification: json(&get::<String>(r, 5)?, "verification")?,
        settings: json(&get::<String>(r, 6)?, "settings")?,
    })
}

fn visit_from(r: &Row<'_>) -> Result<OrphanVisit, StoreError> {
    Ok(OrphanVisit {
        at: time(get(r, 0)?)?,
        path: get(r, 1)?,
        country: get(r, 2)?,
        device: get::<String>(r, 3)?
            .parse::<Device>()
            .map_err(|_| corrupt("device"))?,
    })
}

fn bytes(id: uuid::Uuid) -> [u8; 16] {
    id.into_bytes()
}

fn taken(name: &DomainName) -> StoreError {
    // Without whose: one account must not learn which names another holds.
    StoreError::Conflict(format!("domain {name} is already registered"))
}

impl DomainReads for SqlTx<'_> {
    fn domain(&self, account: AccountId, id: DomainId) -> Result<Option<Domain>, StoreError> {
        self.one(
            &format!("SELECT {DOMAIN_COLS} FROM domains WHERE id = ?1 AND account_id = ?2"),
            [&bytes(id.as_uuid())[..], &bytes(account.as_uuid())[..]],
            domain_from,
        )
    }

    fn domains_of(&self, account: AccountId) -> Result<Vec<Domain>, StoreError> {
        self.all(
            &format!("SELECT {DOMAIN_COLS} FROM domains WHERE account_id = ?1 ORDER BY name"),
            [&bytes(account.as_uuid())[..]],
            domain_from,
        )
    }

    fn domain_by_name(&self, name: &DomainName) -> Result<Option<Domain>, StoreError> {
        self.one(
            &format!("SELECT {DOMAIN_COLS} FROM domains WHERE name = ?1"),
            [name.as_str()],
            domain_from,
        )
    }

    fn count_domains(&self, account: AccountId) -> Result<u64, StoreError> {
        let n = self.one(
            "SELECT count(*) FROM domains WHERE account_id = ?1",
            [&bytes(account.as_uuid())[..]],
            |r| get::<i64>(r, 0),
        )?;
        Ok(count(n.unwrap_or(0)))
    }

    fn count_domain_links(&self, name: &DomainName) -> Result<u64, StoreError> {
        // Deleted links leave the table (their codes live on as tombstones), so every row is live.
        let n = self.one(
            "SELECT count(*) FROM links WHERE domain = ?1",
            [name.as_str()],
            |r| get::<i64>(r, 0),
        )?;
        Ok(count(n.unwrap_or(0)))
    }

    fn domains_due(&self, now: DateTime<Utc>, limit: u32) -> Result<Vec<Domain>, StoreError> {
        self.all(
            &format!(
                "SELECT {DOMAIN_COLS} FROM domains WHERE next_check_at <= ?1
                 ORDER BY next_check_at, id LIMIT ?2"
            ),
            params![micros(now), i64::from(limit)],
            domain_from,
        )
    }

    fn orphan_visits(
        &self,
        domain: DomainId,
        since: NaiveDate,
    ) -> Result<OrphanReport, StoreError> {
        let id = bytes(domain.as_uuid());
        let daily = self.all(
            "SELECT day, visits FROM orphan_days WHERE domain_id = ?1 AND day >= ?2 ORDER BY day",
            params![&id[..], day_num(since)],
            |r| {
                Ok(OrphanDay {
                    date: day(get(r, 0)?)?,
                    visits: count(get(r, 1)?),
                })
            },
        )?;
        let recent = self.all(
            "SELECT at, path, country, device FROM orphan_visits WHERE domain_id = ?1
             ORDER BY seq DESC LIMIT ?2",
            params![&id[..], signed(ORPHAN_VISITS_KEPT as u64)],
            visit_from,
        )?;
        Ok(OrphanReport { daily, recent })
    }
}

impl DomainWrites for SqlTx<'_> {
    /// Adds a domain; a taken name is refused here, and by the unique index should a row slip
    /// in between (another process writing the same file).
    fn insert_domain(&mut self, d: &Domain) -> Result<(), StoreError> {
        if self.domain_by_name(&d.name)?.is_some() {
            return Err(taken(&d.name));
        }
        self.exec(
            &format!(
                "INSERT INTO domains ({DOMAIN_COLS}, next_check_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
            ),
            params![
                &bytes(d.id.as_uuid())[..],
                &bytes(d.account_id.as_uuid())[..],
                d.name.as_str(),
                d.token.as_str(),
                micros(d.created_at),
                to_json(&d.verification)?,
                to_json(&d.settings)?,
                d.verification.next_check_at.map(micros),
            ],
        )
        .map_err(|e| match e {
            StoreError::Conflict(_) if self.domain_by_name(&d.name).ok().flatten().is_some() => {
                taken(&d.name)
            }
            other => other,
        })?;
        Ok(())
    }

    fn update_domain(&mut self, d: &Domain) -> Result<bool, StoreError> {
        let n = self.exec(
            "UPDATE domains SET verification = ?3, settings = ?4, next_check_at = ?5
             WHERE id = ?1 AND account_id = ?2",
            params![
                &bytes(d.id.as_uuid())[..],
                &bytes(d.account_id.as_uuid())[..],
                to_json(&d.verification)?,
                to_json(&d.settings)?,
                d.verification.next_check_at.map(micros),
            ],
        )?;
        Ok(n > 0)
    }

    /// Deletes the domain; its orphan days and visits go with it (ON DELETE CASCADE, foreign
    /// keys being on for every connection of the store).
    fn delete_domain(&mut self, account: AccountId, id: DomainId) -> Result<bool, StoreError> {
        let n = self.exec(
            "DELETE FROM domains WHERE id = ?1 AND account_id = ?2",
            [&bytes(id.as_uuid())[..], &bytes(account.as_uuid())[..]],
        )?;
        Ok(n > 0)
    }

    fn record_orphan_visit(&mut self, domain: DomainId, v: &OrphanVisit) -> Result<(), StoreError> {
        let id = bytes(domain.as_uuid());
        let visit_day = v.at.date_naive();
        // The EXISTS makes a visit to a domain deleted meanwhile a no-op, in the same statement.
        let counted = self.exec(
            "INSERT INTO orphan_days (domain_id, day, visits)
             SELECT ?1, ?2, 1 WHERE EXISTS (SELECT 1 FROM domains WHERE id = ?1)
             ON CONFLICT (domain_id, day) DO UPDATE SET visits = visits + 1",
            params![&id[..], day_num(visit_day)],
        )?;
        if counted == 0 {
            return Ok(());
        }
        self.exec(
            "INSERT INTO orphan_visits (domain_id, at, path, country, device)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                &id[..],
                micros(v.at),
                v.path.as_str(),
                v.country.as_deref(),
                v.device.as_str(),
            ],
        )?;
        // Everything older than the ORPHAN_VISITS_KEPT-th newest visit goes (none while fewer).
        self.exec(
            "DELETE FROM orphan_visits WHERE domain_id = ?1 AND seq < (
                 SELECT seq FROM orphan_visits WHERE domain_id = ?1
                 ORDER BY seq DESC LIMIT 1 OFFSET ?2)",
            params![&id[..], signed(ORPHAN_VISITS_KEPT as u64 - 1)],
        )?;
        self.exec(
            "DELETE FROM orphan_days WHERE domain_id = ?1 AND day < ?2",
            params![
                &id[..],
                day_num(visit_day - Duration::days(ORPHAN_DAYS_KEPT))
            ],
        )?;
        Ok(())
    }
}
