//! `--db postgres://…` for the administration commands, `qr db migrate`, and `qr db copy` from an SQLite file into PostgreSQL (on a throwaway cluster).

use predicates::prelude::*;
use qr_test_support::servers::postgres::PgCluster;

use crate::common::{Workspace, qr};

const SUITE: &str = "the qr db and --db postgres:// tests";

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn administration_commands_run_on_postgres() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let url = cluster.create_database();
    let migrate = |url: &str| {
        qr().args(["db", "migrate", "--db", url, "--json"])
            .output()
            .unwrap()
    };
    let first = migrate(&url);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(
        json(&String::from_utf8_lossy(&first.stdout)),
        serde_json::json!({"engine": "PostgreSQL", "schemaVersion": 2})
    );
    assert!(
        migrate(&url).status.success(),
        "migrating twice changes nothing"
    );

    let on_pg = |args: &[&str]| {
        let output = qr().env("QR_DB", &url).args(args).output().unwrap();
        assert!(
            output.status.success(),
            "qr {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let key = on_pg(&[
        "keys",
        "create",
        "--email",
        "pg@example.com",
        "--plan",
        "pro",
    ]);
    assert!(key.starts_with("qrapi_live_"));
    on_pg(&[
        "links",
        "create",
        "--email",
        "pg@example.com",
        "--name",
        "Menu",
        "--url",
        "https://example.com/menu",
    ]);
    let accounts = json(&on_pg(&["accounts", "list", "--json"]));
    assert_eq!(accounts[0]["email"], "pg@example.com");
    assert_eq!(accounts[0]["keys"], 1);
    let links = json(&on_pg(&[
        "links",
        "list",
        "--email",
        "pg@example.com",
        "--json",
    ]));
    assert_eq!(links["links"][0]["targetUrl"], "https://example.com/menu");
}

#[test]
fn an_sqlite_deployment_is_copied_into_postgres_and_checked() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let ws = Workspace::new();
    ws.create_key("a@example.com", "pro");
    ws.create_key("b@example.com", "free");
    ws.ok(&[
        "links",
        "create",
        "--email",
        "a@example.com",
        "--name",
        "Poster",
        "--url",
        "https://example.com/p",
    ]);
    let url = cluster.create_database();
    let db = ws.db();
    let copied = ws.ok(&["db", "copy", "--from", db.to_str().unwrap(), "--to", &url]);
    assert!(copied.contains("copied "), "{copied}");
    assert!(
        copied.contains("every table's count and checksum match"),
        "{copied}"
    );
    let accounts_row = copied
        .lines()
        .find(|l| l.starts_with("accounts "))
        .unwrap_or_else(|| panic!("no accounts row in {copied}"));
    assert_eq!(accounts_row.split_whitespace().nth(1), Some("2"));

    let listed = qr()
        .args(["accounts", "list", "--json", "--db", &url])
        .output()
        .unwrap();
    let accounts = json(&String::from_utf8_lossy(&listed.stdout));
    assert_eq!(accounts.as_array().unwrap().len(), 2);

    // Into a database that already holds data: refused, exit 1, nothing changed.
    ws.qr(&["db", "copy", "--from", db.to_str().unwrap(), "--to", &url])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("already holds data"));
    // Only SQLite into PostgreSQL: anything else is a usage error.
    ws.qr(&["db", "copy", "--from", &url, "--to", "back.db"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("copies an SQLite file"));
}
