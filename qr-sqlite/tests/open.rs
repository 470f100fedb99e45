//! Opening databases: creation, reopening, and refusal of files that must not be touched.

use std::fs;
use std::path::Path;

use qr_sqlite::{OpenError, SCHEMA_VERSION, SqliteStore};
use rusqlite::Connection;

fn refuse(path: &Path) -> OpenError {
    let before = fs::read(path).expect("the file exists");
    let err = SqliteStore::open(path).expect_err("the file must be refused");
    assert_eq!(
        fs::read(path).expect("the file still exists"),
        before,
        "a refused file is not modified"
    );
    err
}

#[test]
fn creates_a_missing_file_and_reopens_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    let store = SqliteStore::open(&path).unwrap();
    assert!(path.exists());
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.path(), path);
    let conn = Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!((version, mode.as_str()), (SCHEMA_VERSION, "wal"));
}

#[test]
fn refuses_a_garbage_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("garbage.db");
    fs::write(
        &path,
        b"this is not a database, just some text that is long enough to have a header".repeat(100),
    )
    .unwrap();
    let err = refuse(&path);
    assert!(matches!(err, OpenError::NotADatabase { .. }), "{err}");
    assert!(err.to_string().contains("not an SQLite database"), "{err}");
}

#[test]
fn refuses_a_newer_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("newer.db");
    drop(SqliteStore::open(&path).unwrap());
    {
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
    }
    let err = refuse(&path);
    assert!(
        matches!(err, OpenError::NewerSchema { found, supported, .. } if found == SCHEMA_VERSION + 1 && supported == SCHEMA_VERSION),
        "{err}"
    );
}

#[test]
fn refuses_another_applications_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');")
            .unwrap();
    }
    let err = refuse(&path);
    assert!(matches!(err, OpenError::ForeignDatabase { .. }), "{err}");
}

#[test]
fn reports_a_corrupt_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("corrupt.db");
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA page_size = 1024; CREATE TABLE t (x); INSERT INTO t VALUES (randomblob(50000));")
            .unwrap();
    }
    // Keep the valid 100-byte header, wreck the schema page and the rest.
    let mut bytes = fs::read(&path).unwrap();
    for b in bytes.iter_mut().skip(100) {
        *b = 0xA5;
    }
    fs::write(&path, &bytes).unwrap();
    let err = refuse(&path);
    assert!(
        matches!(
            err,
            OpenError::Corrupt { .. } | OpenError::NotADatabase { .. }
        ),
        "a clear corruption error, got {err}"
    );
}

#[test]
fn processes_opening_a_new_file_at_once_migrate_it_once() {
    // A server and a CLI started together on a fresh path: each open must succeed, whichever
    // migrates first. Threads open independent connections, as separate processes would.
    for round in 0..20 {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(format!("race-{round}.db"));
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
        let openers: Vec<_> = (0..4)
            .map(|_| {
                let path = path.clone();
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    SqliteStore::open(&path).map(|_| ())
                })
            })
            .collect();
        for opener in openers {
            let result = opener.join().expect("opener thread");
            assert!(result.is_ok(), "round {round}: {result:?}");
        }
        let conn = Connection::open(&path).expect("opens");
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("version");
        assert_eq!(version, SCHEMA_VERSION);
    }
}

#[test]
fn accounts_sharing_an_address_stop_the_upgrade_until_an_operator_separates_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.db");
    drop(SqliteStore::open(&path).unwrap());
    // A version-1 database, which did not keep addresses unique: two accounts share one.
    let ids = [uuid::Uuid::new_v4(), uuid::Uuid::new_v4()];
    {
        let conn = Connection::open(&path).unwrap();
        // Undo versions 17 to 2 (6 changed no table), so the file is what version 1 made (version 8's
        // triggers of the same names write the change log; version 1's only count).
        conn.execute_batch(
            "DROP TABLE passkey_ceremonies; DROP TABLE passkeys;
             DROP TABLE two_factor_required; DROP TABLE two_factors;
             ALTER TABLE api_keys DROP COLUMN created_by;
             DROP TABLE sso_identities; DROP TABLE sso_attempts; DROP TABLE sso_settings;
             DROP TABLE invitations; DROP TABLE audit_log;
             DROP TABLE memberships; DROP TABLE sessions; DROP TABLE tokens; DROP TABLE users;
             ALTER TABLE accounts ADD COLUMN password_hash TEXT;
             ALTER TABLE accounts ADD COLUMN email_verified_at INTEGER;
             ALTER TABLE accounts ADD COLUMN role TEXT NOT NULL DEFAULT 'customer';",
        )
        .unwrap();
        let mut undo_v8 = String::from("DROP TABLE config_changes;");
        for (name, event) in [
            ("accounts_insert", "INSERT ON accounts"),
            ("accounts_update", "UPDATE ON accounts"),
            ("accounts_delete", "DELETE ON accounts"),
            ("api_keys_insert", "INSERT ON api_keys"),
            (
                "api_keys_update",
                "UPDATE OF account_id, mode, hash, display_prefix, settings ON api_keys",
            ),
            ("api_keys_delete", "DELETE ON api_keys"),
        ] {
            undo_v8.push_str(&format!(
                "DROP TRIGGER {name}; CREATE TRIGGER {name} AFTER {event}
                 BEGIN UPDATE meta SET value = value + 1 WHERE key = 'config_version'; END;"
            ));
        }
        conn.execute_batch(&undo_v8).unwrap();
        conn.execute_batch(
            "DROP INDEX links_by_design; ALTER TABLE links DROP COLUMN design_id; DROP TABLE designs;
             DROP TABLE orphan_visits; DROP TABLE orphan_days; DROP TABLE domains;
             DROP INDEX links_by_domain; ALTER TABLE links DROP COLUMN domain;
             DROP TABLE idempotency_keys;
             DROP TABLE webhook_events; DROP TABLE webhooks; DROP TABLE usage_thresholds;
             DROP INDEX links_by_code_key; ALTER TABLE links DROP COLUMN code_key;
             ALTER TABLE links DROP COLUMN tags; ALTER TABLE links DROP COLUMN options;
             ALTER TABLE scans DROP COLUMN variant; ALTER TABLE scans DROP COLUMN rule;
             DROP TABLE plan_requests; DROP TABLE daily_usage;
             ALTER TABLE accounts DROP COLUMN password_hash; ALTER TABLE accounts DROP COLUMN email_verified_at;
             ALTER TABLE accounts DROP COLUMN status; ALTER TABLE accounts DROP COLUMN role;
             ALTER TABLE api_keys DROP COLUMN name; ALTER TABLE api_keys DROP COLUMN last_four;
             DROP INDEX accounts_by_email; PRAGMA user_version = 1;",
        )
        .unwrap();
        for (i, (id, email)) in ids
            .iter()
            .zip(["ops@example.com", "Ops@Example.com"])
            .enumerate()
        {
            conn.execute(
                "INSERT INTO accounts (id, email, plan, overrides, created_at) VALUES (?1, ?2, 'free', '{}', ?3)",
                rusqlite::params![&id.as_bytes()[..], email, i64::try_from(i).unwrap()],
            )
            .unwrap();
        }
    }
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(err, OpenError::SharedEmails { .. }), "{err}");
    let message = err.to_string();
    assert!(message.contains("ops@example.com"), "{message}");
    assert!(message.contains(&ids[1].to_string()), "{message}");
    let fix = format!(
        "UPDATE accounts SET email = 'new@example.com' WHERE id = X'{}'",
        ids[1].simple()
    );
    assert!(
        message.contains(&fix),
        "the message shows the fix: {message}"
    );
    {
        let conn = Connection::open(&path).unwrap();
        let kept: i64 = conn
            .query_row("SELECT count(*) FROM accounts", [], |r| r.get(0))
            .unwrap();
        assert_eq!(kept, 2, "no account was removed or merged");
        conn.execute_batch(&fix).unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    let conn = Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    drop(store);
}

/// The database and its write-ahead files hold e-mails, key hashes and analytics: owner only.
#[cfg(unix)]
#[test]
fn a_new_database_and_its_log_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("qr.db");
    let store = SqliteStore::open(&path).unwrap();
    // A write makes SQLite create the -wal and -shm files.
    qr_domain::Store::write(&store, |tx| {
        tx.put_salt(qr_domain::chrono::NaiveDate::MIN, [7; 32])?;
        Ok::<_, qr_domain::StoreError>(())
    })
    .unwrap();
    for name in ["qr.db", "qr.db-wal", "qr.db-shm"] {
        let mode = std::fs::metadata(dir.path().join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{name} has mode {:o}", mode & 0o777);
    }
    drop(store);
}
