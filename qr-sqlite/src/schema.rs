//! The schema and its versioned migrations (`PRAGMA user_version`).

use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::Connection;
use uuid::Uuid;

use crate::error::{OpenError, SharedEmail};

/// `PRAGMA application_id` of qr-platform databases ("QRPL").
pub const APPLICATION_ID: i32 = 0x5152_504C;

/// Reads the data under a step's write lock and refuses the step, before anything is written,
/// when the data cannot take it.
type Precondition = fn(&Connection, &Path) -> Result<(), OpenError>;

/// One step of the schema.
struct Migration {
    /// The statements of the step.
    sql: &'static str,
    /// A check of the data that must pass first.
    precondition: Option<Precondition>,
    /// Work the statements cannot express, done after them in the same transaction.
    backfill: Option<Precondition>,
}

/// Migrations in order; migration `i` brings the schema to version `i + 1`.
const MIGRATIONS: &[Migration] = &[
    Migration {
        sql: V1_TABLES,
        precondition: None,
        backfill: None,
    },
    // Version 2: one account per e-mail address. NOCASE folds ASCII letters only, which is
    // `Email::lookup_key`'s comparison.
    Migration {
        sql: "CREATE UNIQUE INDEX accounts_by_email ON accounts(email COLLATE NOCASE);",
        precondition: Some(no_shared_emails),
        backfill: None,
    },
    // Version 3: the dashboard. Accounts gain a password, a verification time, a status and a
    // role; keys a name and their last four characters; and tables for one-time tokens,
    // sessions, plan requests and requests per day. Sessions have no config-version trigger:
    // a login must not empty every server's key cache.
    Migration {
        sql: V3_DASHBOARD,
        precondition: None,
        backfill: None,
    },
    // Version 4: links' campaign fields. `code_key` makes codes unique without regard to case
    // (`ShortCode::key`; a generated code is its own key, and so is every tombstone before
    // this version); `tags` is a JSON array, `options` the JSON of the campaign settings (NULL
    // for a link without any); a scan keeps the variant and the rule it was sent to.
    Migration {
        sql: V4_CAMPAIGNS,
        precondition: None,
        backfill: None,
    },
    // Version 5: webhooks, their outbox and the quota thresholds reached (`webhooks.rs`).
    Migration {
        sql: crate::webhooks::V5_WEBHOOKS,
        precondition: None,
        backfill: None,
    },
    // Version 6: the rollups keep OS, referrer, city, variant and rule too (`Dimension`); the
    // scans already stored are counted into them, so the breakdowns cover their days.
    Migration {
        sql: "",
        precondition: None,
        backfill: Some(crate::backfill::breakdowns),
    },
    // Version 7: idempotency keys of bulk link requests (`idempotency.rs`).
    Migration {
        sql: crate::idempotency::V7_IDEMPOTENCY,
        precondition: None,
        backfill: None,
    },
    // Version 8: the log of account and key changes, so a change drops only the cached keys it
    // concerns in every process (`config_changes.rs`).
    Migration {
        sql: crate::config_changes::V8_CONFIG_CHANGES,
        precondition: None,
        backfill: None,
    },
    // Version 9: customers' domains, the links' domain and orphan visits (`domains.rs`).
    Migration {
        sql: crate::domains::V9_DOMAINS,
        precondition: None,
        backfill: None,
    },
    // Version 10: saved designs, and the design a link names (`designs.rs`).
    Migration {
        sql: crate::designs::V10_DESIGNS,
        precondition: None,
        backfill: None,
    },
    // Version 11: users and their memberships of workspaces (`users.rs`). Every account becomes
    // a user with the same id owning it; tokens and sessions move to users.
    Migration {
        sql: crate::users::V11_USERS,
        precondition: None,
        backfill: None,
    },
    // Version 12: the audit log (`audit.rs`).
    Migration {
        sql: crate::audit::V12_AUDIT,
        precondition: None,
        backfill: None,
    },
    // Version 13: who made each key (`keys.rs`).
    Migration {
        sql: crate::keys::V13_KEY_CREATORS,
        precondition: None,
        backfill: None,
    },
    // Version 14: invitations to workspaces (`invitations.rs`).
    Migration {
        sql: crate::invitations::V14_INVITATIONS,
        precondition: None,
        backfill: None,
    },
    // Version 15: single sign-on's settings, attempts and identity links (`sso.rs`).
    Migration {
        sql: crate::sso::V15_SSO,
        precondition: None,
        backfill: None,
    },
    // Version 16: users' second factors and the workspaces requiring one (`credentials.rs`).
    Migration {
        sql: crate::credentials::TWO_FACTOR_TABLES,
        precondition: None,
        backfill: None,
    },
    // Version 17: passkeys and their ceremonies (`passkeys.rs`).
    Migration {
        sql: crate::passkeys::V17_PASSKEYS,
        precondition: None,
        backfill: None,
    },
];

/// Version 4: links' campaign columns and the scans' variant and rule.
const V4_CAMPAIGNS: &str = r"
ALTER TABLE links ADD COLUMN code_key TEXT;
UPDATE links SET code_key = short_code;
CREATE UNIQUE INDEX links_by_code_key ON links(code_key);
ALTER TABLE links ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE links ADD COLUMN options TEXT;
ALTER TABLE scans ADD COLUMN variant INTEGER;
ALTER TABLE scans ADD COLUMN rule INTEGER;
";

/// Version 3: the dashboard's columns and tables.
const V3_DASHBOARD: &str = r"
ALTER TABLE accounts ADD COLUMN password_hash TEXT;
ALTER TABLE accounts ADD COLUMN email_verified_at INTEGER;
ALTER TABLE accounts ADD COLUMN status TEXT NOT NULL DEFAULT 'active';
ALTER TABLE accounts ADD COLUMN role TEXT NOT NULL DEFAULT 'customer';
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT 'Default key';
ALTER TABLE api_keys ADD COLUMN last_four TEXT NOT NULL DEFAULT '';
CREATE TABLE tokens (
    hash BLOB PRIMARY KEY,
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    purpose TEXT NOT NULL,
    new_email TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE UNIQUE INDEX tokens_by_account ON tokens(account_id, purpose);
CREATE TABLE sessions (
    hash BLOB PRIMARY KEY,
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    user_agent TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_by_account ON sessions(account_id, created_at);
CREATE TABLE plan_requests (
    account_id BLOB PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    plan TEXT NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE daily_usage (
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    day INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (account_id, day)
) WITHOUT ROWID;
";

/// Version 1: every table, and the triggers that move the config version.
const V1_TABLES: &str = r"
CREATE TABLE accounts (
    id BLOB PRIMARY KEY,
    email TEXT NOT NULL,
    plan TEXT NOT NULL,
    overrides TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE api_keys (
    id BLOB PRIMARY KEY,
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    mode TEXT NOT NULL,
    hash BLOB NOT NULL UNIQUE,
    display_prefix TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    settings TEXT NOT NULL
);
CREATE INDEX api_keys_by_account ON api_keys(account_id, created_at);
CREATE TABLE links (
    id BLOB PRIMARY KEY,
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    short_code TEXT NOT NULL UNIQUE,
    target_url TEXT NOT NULL,
    scan_count INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX links_by_account ON links(account_id, created_at);
CREATE TABLE tombstones (short_code TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE scans (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    link_id BLOB NOT NULL REFERENCES links(id) ON DELETE CASCADE,
    at INTEGER NOT NULL,
    day INTEGER NOT NULL,
    visitor BLOB NOT NULL,
    country TEXT NOT NULL,
    city TEXT NOT NULL,
    device TEXT NOT NULL,
    browser TEXT NOT NULL,
    os TEXT NOT NULL,
    referrer TEXT
);
CREATE INDEX scans_by_link_time ON scans(link_id, at);
CREATE TABLE daily (
    link_id BLOB NOT NULL REFERENCES links(id) ON DELETE CASCADE,
    day INTEGER NOT NULL,
    scans INTEGER NOT NULL,
    uniques INTEGER NOT NULL,
    PRIMARY KEY (link_id, day)
) WITHOUT ROWID;
CREATE TABLE daily_dims (
    link_id BLOB NOT NULL REFERENCES links(id) ON DELETE CASCADE,
    day INTEGER NOT NULL,
    dim INTEGER NOT NULL,
    value TEXT NOT NULL,
    scans INTEGER NOT NULL,
    PRIMARY KEY (link_id, day, dim, value)
) WITHOUT ROWID;
CREATE TABLE visitors (
    link_id BLOB NOT NULL,
    day INTEGER NOT NULL,
    visitor BLOB NOT NULL,
    PRIMARY KEY (link_id, day, visitor)
) WITHOUT ROWID;
CREATE INDEX visitors_by_day ON visitors(day);
CREATE TABLE usage (
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    month INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (account_id, month)
) WITHOUT ROWID;
CREATE TABLE salts (day INTEGER PRIMARY KEY, salt BLOB NOT NULL);
CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO meta (key, value) VALUES ('config_version', 0);
CREATE TRIGGER accounts_insert AFTER INSERT ON accounts
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'config_version'; END;
CREATE TRIGGER accounts_update AFTER UPDATE ON accounts
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'config_version'; END;
CREATE TRIGGER accounts_delete AFTER DELETE ON accounts
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'config_version'; END;
CREATE TRIGGER api_keys_insert AFTER INSERT ON api_keys
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'config_version'; END;
CREATE TRIGGER api_keys_update AFTER UPDATE OF account_id, mode, hash, display_prefix, settings ON api_keys
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'config_version'; END;
CREATE TRIGGER api_keys_delete AFTER DELETE ON api_keys
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'config_version'; END;
";

/// The schema version this build creates and understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Checks that `conn` is a qr-platform database this build can use, reading only.
pub(crate) fn check(conn: &Connection, path: &Path) -> Result<i64, OpenError> {
    let err = |e| OpenError::from_sqlite(path, e);
    // One read transaction, so the version and the table count come from the same snapshot even
    // when another process commits a migration between the two reads.
    let snapshot = conn.unchecked_transaction().map_err(err)?;
    let conn = &*snapshot;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(err)?;
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(err)?;
    if version > SCHEMA_VERSION {
        return Err(OpenError::NewerSchema {
            path: path.to_owned(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
        .map_err(err)?;
    if (version > 0 && app != APPLICATION_ID) || (version == 0 && tables > 0) {
        return Err(OpenError::ForeignDatabase {
            path: path.to_owned(),
        });
    }
    snapshot.commit().map_err(err)?;
    Ok(version)
}

/// Applies the migrations after `from`, each in its own transaction with its version bump.
///
/// Each step takes the write lock first (`BEGIN IMMEDIATE`) and re-reads the version under it, so
/// two processes opening a new file at once (a server and a CLI) migrate it once between them: the
/// second finds the step done and skips it. A step whose precondition fails is rolled back whole:
/// the file stays at the version before it.
pub(crate) fn migrate(conn: &mut Connection, from: i64, path: &Path) -> Result<(), OpenError> {
    apply(conn, MIGRATIONS, from, path)
}

fn apply(
    conn: &mut Connection,
    migrations: &[Migration],
    from: i64,
    path: &Path,
) -> Result<(), OpenError> {
    let err = |e| OpenError::from_sqlite(path, e);
    for (i, step) in migrations
        .iter()
        .enumerate()
        .skip(usize::try_from(from).unwrap_or(0))
    {
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let current: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(err)?;
        if current > i as i64 {
            // Another process applied this step after we looked.
            continue;
        }
        if let Some(precondition) = step.precondition {
            precondition(&tx, path)?;
        }
        tx.execute_batch(step.sql).map_err(err)?;
        if let Some(backfill) = step.backfill {
            backfill(&tx, path)?;
        }
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(err)?;
        tx.pragma_update(None, "user_version", i as i64 + 1)
            .map_err(err)?;
        tx.commit().map_err(err)?;
    }
    Ok(())
}

/// Refuses version 2 while accounts share an e-mail address (compared without regard to ASCII
/// case), naming every such address and its accounts, oldest first. Which account keeps an
/// address is the operator's decision, so nothing is renamed.
fn no_shared_emails(conn: &Connection, path: &Path) -> Result<(), OpenError> {
    let err = |e| OpenError::from_sqlite(path, e);
    let mut stmt = conn
        .prepare("SELECT email, id FROM accounts ORDER BY created_at, id")
        .map_err(err)?;
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
        })
        .map_err(err)?;
    let mut by_address: BTreeMap<String, SharedEmail> = BTreeMap::new();
    for row in rows {
        let (email, id) = row.map_err(err)?;
        // Ids are UUIDs, shown as `qr accounts list` shows them; anything else as plain hex.
        let id = Uuid::from_slice(&id).map_or_else(
            |_| id.iter().map(|b| format!("{b:02x}")).collect(),
            |u| u.to_string(),
        );
        by_address
            .entry(email.to_ascii_lowercase())
            .or_insert_with(|| SharedEmail {
                email: email.clone(),
                accounts: Vec::new(),
            })
            .accounts
            .push(id);
    }
    let shared: Vec<SharedEmail> = by_address
        .into_values()
        .filter(|s| s.accounts.len() > 1)
        .collect();
    if shared.is_empty() {
        Ok(())
    } else {
        Err(OpenError::SharedEmails {
            path: path.to_owned(),
            shared,
        })
    }
}

#[cfg(test)]
mod tests {
    use qr_domain::scans::breakdown::Dimension;

    use super::*;

    /// A version-1 database holding `emails`, one account each.
    fn version_1_with(path: &Path, emails: &[&str]) {
        let mut conn = Connection::open(path).unwrap();
        apply(&mut conn, &MIGRATIONS[..1], 0, path).unwrap();
        for (i, email) in emails.iter().enumerate() {
            conn.execute(
                "INSERT INTO accounts (id, email, plan, overrides, created_at) VALUES (?1, ?2, 'free', '{}', ?3)",
                rusqlite::params![&Uuid::new_v4().as_bytes()[..], email, i64::try_from(i).unwrap()],
            )
            .unwrap();
        }
    }

    fn version(conn: &Connection) -> i64 {
        conn.query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn shared_addresses_stop_the_migration_and_nothing_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        version_1_with(
            &path,
            &[
                "a@example.com",
                "b@example.com",
                "A@Example.com",
                "a@EXAMPLE.com",
            ],
        );
        let mut conn = Connection::open(&path).unwrap();
        let error = migrate(&mut conn, 1, &path).unwrap_err();
        let OpenError::SharedEmails { shared, .. } = &error else {
            panic!("unexpected error: {error}");
        };
        assert_eq!(shared.len(), 1);
        assert_eq!(
            shared[0].email, "a@example.com",
            "named as the oldest account has it"
        );
        assert_eq!(shared[0].accounts.len(), 3);
        let message = error.to_string();
        for needle in [
            "a@example.com",
            &shared[0].accounts[1],
            "UPDATE accounts",
            "nothing was changed",
        ] {
            assert!(
                message.contains(needle),
                "{needle:?} missing from: {message}"
            );
        }
        assert_eq!(version(&conn), 1, "the step was rolled back");
        let accounts: i64 = conn
            .query_row("SELECT count(*) FROM accounts", [], |r| r.get(0))
            .unwrap();
        assert_eq!(accounts, 4);
    }

    #[test]
    fn distinct_addresses_migrate_and_become_unique() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        version_1_with(&path, &["a@example.com", "b@example.com"]);
        let mut conn = Connection::open(&path).unwrap();
        migrate(&mut conn, 1, &path).unwrap();
        assert_eq!(version(&conn), SCHEMA_VERSION);
        let duplicate = conn.execute(
            "INSERT INTO users (id, email, created_at) VALUES (X'00', 'B@EXAMPLE.COM', 9)",
            [],
        );
        assert!(
            duplicate.is_err(),
            "the users' unique index refuses a case variant"
        );
    }

    #[test]
    fn version_2_accounts_and_keys_get_the_dashboard_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v2.db");
        let mut conn = Connection::open(&path).unwrap();
        apply(&mut conn, &MIGRATIONS[..2], 0, &path).unwrap();
        conn.execute_batch(
            "INSERT INTO accounts (id, email, plan, overrides, created_at) VALUES (X'01', 'a@example.com', 'free', '{}', 1);
             INSERT INTO api_keys (id, account_id, mode, hash, display_prefix, created_at, settings)
             VALUES (X'02', X'01', 'live', X'03', 'qrapi_live_AbCd', 1, '{}');",
        )
        .unwrap();
        migrate(&mut conn, 2, &path).unwrap();
        assert_eq!(version(&conn), SCHEMA_VERSION);
        let (status, role, hash): (String, String, Option<String>) = conn
            .query_row(
                "SELECT a.status, u.role, u.password_hash FROM accounts a JOIN users u ON u.id = a.id",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(
            (status.as_str(), role.as_str(), hash),
            ("active", "customer", None)
        );
        let (name, last_four): (String, String) = conn
            .query_row("SELECT name, last_four FROM api_keys", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((name.as_str(), last_four.as_str()), ("Default key", ""));
    }

    #[test]
    fn version_10_accounts_become_users_owning_their_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v10.db");
        let mut conn = Connection::open(&path).unwrap();
        apply(&mut conn, &MIGRATIONS[..10], 0, &path).unwrap();
        conn.execute_batch(
            "INSERT INTO accounts (id, email, plan, overrides, created_at, password_hash, email_verified_at, status, role)
             VALUES (X'01', 'Ann@example.com', 'pro', '{}', 5, 'hash-a', 6, 'active', 'owner'),
                    (X'02', 'bob@example.com', 'free', '{}', 7, NULL, NULL, 'disabled', 'customer');
             INSERT INTO sessions (hash, account_id, created_at, last_seen_at, user_agent)
             VALUES (X'AA', X'01', 8, 9, 'Firefox on Linux');
             INSERT INTO tokens (hash, account_id, purpose, new_email, created_at, expires_at)
             VALUES (X'BB', X'02', 'verify', NULL, 8, 99);",
        )
        .unwrap();
        migrate(&mut conn, 10, &path).unwrap();
        assert_eq!(version(&conn), SCHEMA_VERSION);
        /// id, email, password hash, verification time, role, creation time.
        type UserRow = (Vec<u8>, String, Option<String>, Option<i64>, String, i64);
        let users: Vec<UserRow> = conn
            .prepare("SELECT id, email, password_hash, email_verified_at, role, created_at FROM users ORDER BY id")
            .unwrap()
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            users,
            vec![
                (
                    vec![1],
                    "Ann@example.com".into(),
                    Some("hash-a".into()),
                    Some(6),
                    "owner".into(),
                    5
                ),
                (
                    vec![2],
                    "bob@example.com".into(),
                    None,
                    None,
                    "customer".into(),
                    7
                ),
            ]
        );
        let members: Vec<(Vec<u8>, Vec<u8>, String)> = conn
            .prepare("SELECT account_id, user_id, role FROM memberships ORDER BY account_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            members,
            vec![
                (vec![1], vec![1], "owner".into()),
                (vec![2], vec![2], "owner".into())
            ]
        );
        let session: (Vec<u8>, Option<Vec<u8>>, String) = conn
            .query_row(
                "SELECT user_id, account_id, user_agent FROM sessions",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(session, (vec![1], Some(vec![1]), "Firefox on Linux".into()));
        let token: Vec<u8> = conn
            .query_row("SELECT user_id FROM tokens", [], |r| r.get(0))
            .unwrap();
        assert_eq!(token, vec![2]);
        let status: String = conn
            .query_row("SELECT status FROM accounts WHERE id = X'02'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(status, "disabled");
        conn.execute(
            "INSERT INTO accounts (id, email, plan, overrides, created_at) VALUES (X'03', 'ann@EXAMPLE.com', 'free', '{}', 9)",
            [],
        )
        .expect("workspaces may share an address");
    }

    #[test]
    fn version_3_links_get_their_code_key_and_no_campaign_fields() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v3.db");
        let mut conn = Connection::open(&path).unwrap();
        apply(&mut conn, &MIGRATIONS[..3], 0, &path).unwrap();
        conn.execute_batch(
            "INSERT INTO accounts (id, email, plan, overrides, created_at) VALUES (X'01', 'a@example.com', 'free', '{}', 1);
             INSERT INTO links (id, account_id, name, short_code, target_url, created_at, updated_at)
             VALUES (X'02', X'01', 'L', 'ABCDEFGH', 'https://example.com/', 1, 1);",
        )
        .unwrap();
        migrate(&mut conn, 3, &path).unwrap();
        assert_eq!(version(&conn), SCHEMA_VERSION);
        let (key, tags, options): (String, String, Option<String>) = conn
            .query_row("SELECT code_key, tags, options FROM links", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap();
        assert_eq!(
            (key.as_str(), tags.as_str(), options),
            ("ABCDEFGH", "[]", None)
        );
        let duplicate = conn.execute(
            "INSERT INTO links (id, account_id, name, short_code, target_url, created_at, updated_at, code_key)
             VALUES (X'03', X'01', 'M', 'abcdefgh', 'https://example.com/', 1, 1, 'ABCDEFGH')",
            [],
        );
        assert!(duplicate.is_err(), "the code key is unique");
    }

    #[test]
    fn version_5_scans_are_counted_into_the_new_breakdowns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v5.db");
        let mut conn = Connection::open(&path).unwrap();
        apply(&mut conn, &MIGRATIONS[..5], 0, &path).unwrap();
        conn.execute_batch(
            "INSERT INTO accounts (id, email, plan, overrides, created_at) VALUES (X'01', 'a@example.com', 'free', '{}', 1);
             INSERT INTO links (id, account_id, name, short_code, target_url, created_at, updated_at)
             VALUES (X'02', X'01', 'L', 'ABCDEFGH', 'https://example.com/', 1, 1),
                    (X'03', X'01', 'M', 'ABCDEFGJ', 'https://example.com/', 1, 1);
             INSERT INTO scans (link_id, at, day, visitor, country, city, device, browser, os, referrer, variant, rule)
             VALUES (X'02', 1, 100, X'AA', 'FR', 'Paris', 'mobile', 'Safari', 'iOS', 'https://news.example/a', 1, NULL),
                    (X'02', 2, 100, X'AB', 'FR', 'Paris', 'mobile', 'Safari', 'iOS', 'https://news.example/b', 1, 0),
                    (X'02', 3, 100, X'AC', 'US', 'Paris', 'desktop', 'Firefox', 'Linux', NULL, NULL, NULL),
                    (X'02', 4, 101, X'AA', 'FR', 'Lyon', 'mobile', 'Safari', 'iOS', NULL, 0, NULL),
                    (X'03', 5, 100, X'AA', 'DE', 'Berlin', 'mobile', 'Chrome', 'Android', NULL, NULL, NULL);",
        )
        .unwrap();
        migrate(&mut conn, 5, &path).unwrap();
        assert_eq!(version(&conn), SCHEMA_VERSION);
        let rows: Vec<(Vec<u8>, i64, i64, String, i64)> = conn
            .prepare("SELECT link_id, day, dim, value, scans FROM daily_dims ORDER BY link_id, day, dim, value")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let row = |l: u8, d, dim: Dimension, v: &str, n| {
            (vec![l], d, i64::from(dim.code()), v.to_owned(), n)
        };
        use qr_domain::scans::breakdown::Dimension::{City, Os, Referrer, Rule, Variant};
        assert_eq!(
            rows,
            vec![
                row(2, 100, Os, "Linux", 1),
                row(2, 100, Os, "iOS", 2),
                row(2, 100, Referrer, "", 1),
                row(2, 100, Referrer, "news.example", 2),
                row(2, 100, City, "FR/Paris", 2),
                row(2, 100, City, "US/Paris", 1),
                row(2, 100, Variant, "1", 2),
                row(2, 100, Rule, "0", 1),
                row(2, 101, Os, "iOS", 1),
                row(2, 101, Referrer, "", 1),
                row(2, 101, City, "FR/Lyon", 1),
                row(2, 101, Variant, "0", 1),
                row(3, 100, Os, "Android", 1),
                row(3, 100, Referrer, "", 1),
                row(3, 100, City, "DE/Berlin", 1),
            ]
        );
    }
}
