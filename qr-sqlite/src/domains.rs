//! Customers' domains in SQL: the domains table with its verification and settings as JSON, the orphan visits (daily counts and the latest visits), and the links' domain column.

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
