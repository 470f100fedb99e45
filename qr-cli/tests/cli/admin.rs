//! Administration on the database: accounts, keys, links, analytics, usage, completions and the manual.

use std::io::Read;
use std::process::Stdio;
use std::sync::Arc;

use predicates::prelude::*;
use qr_domain::scans::geo::GeoHint;
use qr_domain::service::Visit;
use qr_domain::{KeyMode, NoGeoLocator, Service, SystemClock};
use qr_sqlite::SqliteStore;
use serde_json::Value;

use crate::common::{Workspace, qr};

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn keys_create_prints_the_key_alone_and_creates_the_account() {
    let ws = Workspace::new();
    let key = ws.ok(&[
        "keys",
        "create",
        "--email",
        "a@example.com",
        "--plan",
        "pro",
    ]);
    assert!(key.ends_with('\n') && key.lines().count() == 1, "{key:?}");
    let key = key.trim_end();
    assert!(key.starts_with("qrapi_live_"), "{key}");
    assert_eq!(key.len(), "qrapi_live_".len() + 32);
    assert!(
        key["qrapi_live_".len()..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric())
    );

    // A second key for the same account, a test key this time; the plan is not repeated.
    let test_key = ws.ok(&["keys", "create", "--email", "A@example.com", "--test"]);
    assert!(test_key.starts_with("qrapi_test_"));
    let accounts = json(&ws.ok(&["accounts", "list", "--json"]));
    assert_eq!(accounts.as_array().unwrap().len(), 1);
    assert_eq!(accounts[0]["email"], "a@example.com");
    assert_eq!(accounts[0]["plan"], "pro");
    assert_eq!(accounts[0]["keys"], 2);

    // Asking for another plan than the account's fails instead of changing it.
    ws.qr(&[
        "keys",
        "create",
        "--email",
        "a@example.com",
        "--plan",
        "free",
    ])
    .assert()
    .code(1)
    .stdout("")
    .stderr(predicate::str::contains("is on the pro plan, not free"));
}

#[test]
fn keys_list_never_shows_a_secret() {
    let ws = Workspace::new();
    let a = ws.create_key("a@example.com", "free");
    let b = ws.create_key("b@example.com", "starter");
    let table = ws.ok(&["keys", "list"]);
    let listed = ws.ok(&["keys", "list", "--json"]);
    for key in [&a, &b] {
        let secret = &key["qrapi_live_".len()..];
        assert!(!table.contains(secret) && !listed.contains(secret));
        assert!(table.contains(&key[..15]), "display prefix in {table}");
    }
    let header: Vec<&str> = table
        .lines()
        .next()
        .unwrap()
        .split("  ")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(
        header,
        [
            "ID",
            "E-MAIL",
            "PREFIX",
            "MODE",
            "CREATED",
            "CREATED BY",
            "LAST USED",
            "ACCESS"
        ]
    );
    assert!(table.contains("full"), "keys made without scopes: {table}");
    assert!(table.contains("never"));
    let keys = json(&listed);
    assert_eq!(keys.as_array().unwrap().len(), 2);
    assert_eq!(keys[0]["email"], "a@example.com");
    assert_eq!(keys[0]["mode"], "live");
    assert_eq!(keys[0]["displayPrefix"], &a[..15]);
    assert_eq!(keys[0]["lastUsedAt"], Value::Null);
    assert_eq!(keys[0]["createdBy"], "operator", "the command made it");
    let only_b = json(&ws.ok(&["keys", "list", "--email", "b@example.com", "--json"]));
    assert_eq!(only_b.as_array().unwrap().len(), 1);
    assert_eq!(only_b[0]["email"], "b@example.com");
}

#[test]
fn keys_are_created_and_changed_with_scopes() {
    let ws = Workspace::new();
    ws.ok(&[
        "keys",
        "create",
        "--email",
        "s@example.com",
        "--plan",
        "pro",
        "--scope",
        "generate",
        "--scope",
        "links:read",
    ]);
    let key = &json(&ws.ok(&["keys", "list", "--json"]))[0];
    assert_eq!(
        key["settings"]["scopes"],
        serde_json::json!(["links:read", "generate"])
    );
    let id = key["id"].as_str().unwrap().to_owned();
    let shown = ws.ok(&["keys", "show", &id]);
    assert!(
        shown.contains("access:              links:read,generate"),
        "{shown}"
    );
    let table = ws.ok(&["keys", "list"]);
    assert!(table.contains("links:read,generate"), "{table}");

    let key = json(&ws.ok(&["keys", "set", &id, "--scope", "webhooks", "--json"]));
    assert_eq!(key["settings"]["scopes"], serde_json::json!(["webhooks"]));
    // Other settings leave the scopes alone.
    let key = json(&ws.ok(&["keys", "set", &id, "--rate", "5", "--json"]));
    assert_eq!(key["settings"]["scopes"], serde_json::json!(["webhooks"]));
    // Full access: no `scopes` member at all.
    let key = json(&ws.ok(&["keys", "set", &id, "--full-access", "--json"]));
    assert!(key["settings"].get("scopes").is_none(), "{key}");
    assert!(
        ws.ok(&["keys", "show", &id])
            .contains("access:              full")
    );

    for args in [
        &["keys", "set", id.as_str(), "--scope", "links:admin"][..],
        &[
            "keys",
            "set",
            id.as_str(),
            "--scope",
            "batch",
            "--full-access",
        ][..],
        &[
            "keys",
            "create",
            "--email",
            "s@example.com",
            "--scope",
            "everything",
        ][..],
    ] {
        ws.qr(args).assert().code(2).stdout("");
    }
    // The help lists every scope with what it reaches.
    let help = ws.ok(&["keys", "create", "--help"]);
    for name in [
        "read-only",
        "links:read",
        "links:write",
        "analytics:read",
        "generate",
        "batch",
        "domains",
        "designs",
        "webhooks",
    ] {
        assert!(help.contains(name), "{name} in {help}");
    }
    assert!(help.contains("Create, change and delete links"), "{help}");
}

#[test]
fn key_settings_change_and_clear() {
    let ws = Workspace::new();
    ws.create_key("a@example.com", "pro");
    let id = json(&ws.ok(&["keys", "list", "--json"]))[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let key = json(&ws.ok(&[
        "keys",
        "set",
        &id,
        "--allow-origin",
        "https://app.example.com",
        "--allow-origin",
        "*.example.org",
        "--allow-ip",
        "10.0.0.0/8",
        "--rate",
        "5",
        "--disable-endpoint",
        "batch",
        "--disable-endpoint",
        "links",
        "--json",
    ]));
    let s = &key["settings"];
    assert_eq!(
        s["allowedOrigins"],
        serde_json::json!(["https://app.example.com", "*.example.org"])
    );
    assert_eq!(s["ipAllowlist"], serde_json::json!(["10.0.0.0/8"]));
    assert_eq!(s["ratePerSecond"], 5);
    assert_eq!(
        s["disabledEndpoints"],
        serde_json::json!(["batch", "links"])
    );

    let key = json(&ws.ok(&[
        "keys",
        "set",
        &id,
        "--remove-origin",
        "*.example.org",
        "--clear-ips",
        "--rate",
        "plan",
        "--enable-endpoint",
        "batch",
        "--json",
    ]));
    let s = &key["settings"];
    assert_eq!(
        s["allowedOrigins"],
        serde_json::json!(["https://app.example.com"])
    );
    assert_eq!(s["ipAllowlist"], serde_json::json!([]));
    assert_eq!(s["ratePerSecond"], Value::Null);
    assert_eq!(s["disabledEndpoints"], serde_json::json!(["links"]));

    let shown = ws.ok(&[
        "keys",
        "set",
        &id,
        "--clear-origins",
        "--enable-all-endpoints",
    ]);
    assert!(shown.contains("allowed origins:     any"), "{shown}");
    assert!(shown.contains("disabled endpoints:  -"), "{shown}");

    // A rate above the plan's depends on the data: a failure, not a usage error.
    ws.qr(&["keys", "set", &id, "--rate", "51"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("exceeds the plan's rate of 50/s"));
    // Malformed values are usage errors.
    for args in [
        &["keys", "set", id.as_str(), "--allow-ip", "10.0.0.300"][..],
        &["keys", "set", id.as_str(), "--allow-origin", "ftp://x"][..],
        &[
            "keys",
            "set",
            id.as_str(),
            "--disable-endpoint",
            "everything",
        ][..],
        &["keys", "set", id.as_str(), "--rate", "0"][..],
        &["keys", "set", "not-a-uuid"][..],
        &[
            "keys",
            "set",
            id.as_str(),
            "--disable-endpoint",
            "links",
            "--enable-endpoint",
            "links",
        ][..],
    ] {
        ws.qr(args).assert().code(2).stdout("");
    }
}

#[test]
fn regenerate_and_revoke() {
    let ws = Workspace::new();
    let old = ws.create_key("a@example.com", "free");
    let id = json(&ws.ok(&["keys", "list", "--json"]))[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let new = ws.ok(&["keys", "regenerate", &id]);
    let new = new.trim_end();
    assert!(new.starts_with("qrapi_live_") && new != old);
    let listed = json(&ws.ok(&["keys", "list", "--json"]));
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(listed[0]["displayPrefix"], &new[..15]);
    ws.qr(&["keys", "revoke", &id])
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains("revoked"));
    assert_eq!(
        json(&ws.ok(&["keys", "list", "--json"])),
        serde_json::json!([])
    );
    ws.qr(&["keys", "revoke", &id])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not found"));
}

#[test]
fn accounts_plans_and_enterprise_limits() {
    let ws = Workspace::new();
    let created = json(&ws.ok(&[
        "accounts",
        "create",
        "--email",
        "ops@example.com",
        "--plan",
        "starter",
        "--json",
    ]));
    assert_eq!(created["plan"], "starter");
    assert_eq!(created["limits"]["perSecond"], 10);
    ws.qr(&["accounts", "create", "--email", "OPS@example.com"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("already exists"));

    let shown = ws.ok(&[
        "accounts",
        "set-plan",
        "--email",
        "ops@example.com",
        "--plan",
        "enterprise",
    ]);
    assert!(
        shown.contains("plan:                 enterprise"),
        "{shown}"
    );
    assert!(shown.contains("monthly requests:     unlimited"), "{shown}");

    let limited = json(&ws.ok(&[
        "accounts",
        "set-limits",
        "--email",
        "ops@example.com",
        "--monthly-requests",
        "5000",
        "--per-second",
        "20",
        "--links",
        "3",
        "--json",
    ]));
    assert_eq!(limited["overrides"]["monthlyRequests"], 5000);
    assert_eq!(limited["limits"]["perSecond"], 20);
    assert_eq!(limited["limits"]["links"], 3);
    let reset = json(&ws.ok(&[
        "accounts",
        "set-limits",
        "--email",
        "ops@example.com",
        "--reset",
        "--links",
        "7",
        "--json",
    ]));
    assert_eq!(reset["overrides"]["monthlyRequests"], Value::Null);
    assert_eq!(reset["overrides"]["links"], 7);
    assert_eq!(reset["limits"]["perSecond"], 200);
    ws.qr(&[
        "accounts",
        "set-limits",
        "--email",
        "ops@example.com",
        "--batch-items",
        "0",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("batch items must be at least 1"));

    let moved = json(&ws.ok(&[
        "accounts",
        "set-email",
        "--email",
        "ops@example.com",
        "--new-email",
        "new@example.com",
        "--json",
    ]));
    assert_eq!(moved["email"], "new@example.com");
    ws.qr(&["accounts", "show", "--email", "ops@example.com"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "no account has the e-mail address ops@example.com",
        ));
    ws.ok(&["accounts", "create", "--email", "taken@example.com"]);
    ws.qr(&[
        "accounts",
        "set-email",
        "--email",
        "new@example.com",
        "--new-email",
        "TAKEN@example.com",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains(
        "another account already has the e-mail address TAKEN@example.com",
    ));
    for args in [
        &["accounts", "create", "--email", "not-an-address"][..],
        &[
            "accounts",
            "create",
            "--email",
            "a@example.com",
            "--plan",
            "gold",
        ][..],
        &[
            "accounts",
            "set-limits",
            "--email",
            "new@example.com",
            "--links",
            "many",
        ][..],
    ] {
        ws.qr(args).assert().code(2);
    }
}

#[test]
fn reading_commands_refuse_a_missing_database() {
    let ws = Workspace::new();
    ws.qr(&["accounts", "list"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no database at"));
    assert!(!ws.db().exists());
    let not_a_db = ws.path("notes.txt");
    std::fs::write(
        &not_a_db,
        "hello, I am not a database, just some text. ".repeat(100),
    )
    .unwrap();
    qr().args(["accounts", "list", "--db"])
        .arg(&not_a_db)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is not an SQLite database"));
}

#[test]
fn links_lifecycle() {
    let ws = Workspace::new();
    ws.ok(&[
        "accounts",
        "create",
        "--email",
        "a@example.com",
        "--plan",
        "free",
    ]);
    let link = json(&ws.ok(&[
        "links",
        "create",
        "--email",
        "a@example.com",
        "--name",
        "Menu",
        "--url",
        "https://example.com/menu",
        "--json",
    ]));
    let id = link["id"].as_str().unwrap().to_owned();
    assert_eq!(link["name"], "Menu");
    assert_eq!(link["scanCount"], 0);
    assert_eq!(link["createdAt"], link["updatedAt"]);
    let listed = json(&ws.ok(&["links", "list", "--email", "a@example.com", "--json"]));
    assert_eq!(listed["links"][0]["id"], id.as_str());

    let updated = json(&ws.ok(&[
        "links",
        "update",
        &id,
        "--url",
        "https://example.com/new-menu",
        "--json",
    ]));
    assert_eq!(updated["targetUrl"], "https://example.com/new-menu");
    assert_eq!(updated["shortCode"], link["shortCode"]);
    let shown = ws
        .qr(&["links", "show", &id, "--email", "a@example.com"])
        .env("QR_BASE_URL", "https://qr.example.com/")
        .output()
        .unwrap();
    let shown = String::from_utf8(shown.stdout).unwrap();
    let code = link["shortCode"].as_str().unwrap();
    assert!(
        shown.contains(&format!("https://qr.example.com/r/{code}")),
        "{shown}"
    );

    ws.qr(&["links", "update", &id]).assert().code(2);
    ws.qr(&[
        "links",
        "create",
        "--email",
        "a@example.com",
        "--name",
        "x",
        "--url",
        "ftp://x",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains("targetUrl"));
    ws.qr(&["links", "delete", &id])
        .assert()
        .success()
        .stdout("");
    ws.qr(&["links", "show", &id])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not found"));
}

/// Creates a link with the CLI and records scans through the domain, as the server would.
fn link_with_scans(ws: &Workspace) -> String {
    ws.ok(&[
        "accounts",
        "create",
        "--email",
        "a@example.com",
        "--plan",
        "pro",
    ]);
    let link = json(&ws.ok(&[
        "links",
        "create",
        "--email",
        "a@example.com",
        "--name",
        "Poster",
        "--url",
        "https://example.com/poster",
        "--json",
    ]));
    let id = link["id"].as_str().unwrap().to_owned();
    let store = Arc::new(SqliteStore::open(ws.db()).unwrap());
    let service = Service::new(store, SystemClock, Arc::new(NoGeoLocator)).unwrap();
    let account = service.accounts().unwrap().remove(0);
    let link = service.link(account.id, id.parse().unwrap()).unwrap();
    let agents = [
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
    ];
    for (i, agent) in agents.iter().enumerate() {
        let visit = Visit {
            ip: Some(format!("203.0.113.{}", i + 1).parse().unwrap()),
            user_agent: Some((*agent).to_owned()),
            referer: (i == 0).then(|| "https://news.example.org/story?id=1".to_owned()),
            hint: GeoHint {
                country: Some("DE".to_owned()),
                city: Some("Berlin".to_owned()),
            },
        };
        service.record_scan(&link, &visit).unwrap();
    }
    service.shutdown().unwrap();
    id
}

#[test]
fn analytics_in_all_three_formats() {
    let ws = Workspace::new();
    let id = link_with_scans(&ws);

    let report = json(&ws.ok(&["analytics", &id, "--format", "json"]));
    assert_eq!(report["link"]["id"], id.as_str());
    assert_eq!(report["link"]["scanCount"], 3);
    assert_eq!(report["analytics"]["totalScans"], 3);
    assert_eq!(report["analytics"]["uniqueScans"], 3);
    let by_day: u64 = report["analytics"]["scansByDay"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["scans"].as_u64().unwrap())
        .sum();
    assert_eq!(by_day, 3);
    assert_eq!(
        report["analytics"]["scansByCountry"],
        serde_json::json!([{"country": "DE", "scans": 3}])
    );
    assert_eq!(report["recentScans"].as_array().unwrap().len(), 3);
    assert_eq!(json(&ws.ok(&["analytics", &id, "--json"])), report);

    let csv = ws.ok(&["analytics", &id, "--format", "csv", "--limit", "2"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "id,timestamp,country,city,device,browser,os,referrer"
    );
    assert_eq!(lines.len(), 3, "header and two scans: {csv}");
    assert!(
        lines[1..].iter().all(|l| l.split(',').count() == 8),
        "{csv}"
    );
    assert!(csv.contains(",DE,Berlin,"), "{csv}");
    let full = ws.ok(&["analytics", &id, "--format", "csv"]);
    assert!(full.contains("https://news.example.org/story"), "{full}");

    let table = ws.ok(&["analytics", &id, "--email", "a@example.com"]);
    // The busiest day has the full bar; its line starts with the date and holds the count.
    let day_line = table
        .lines()
        .find(|l| l.ends_with(&"█".repeat(40)))
        .unwrap_or_else(|| panic!("a full bar in {table}"));
    let date = day_line.split_whitespace().next().unwrap();
    assert!(
        chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_ok(),
        "{day_line}"
    );
    assert_eq!(day_line.split_whitespace().nth(1), Some("3"), "{day_line}");
    assert!(table.contains("scans in range:  3"), "{table}");
    assert!(table.contains("Recent scans"), "{table}");

    ws.qr(&["analytics", &id, "--start", "2024-02-30"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid startDate"));
    ws.qr(&["analytics", &id, "--format", "xml"])
        .assert()
        .code(2);
    ws.qr(&["analytics", "00000000-0000-0000-0000-000000000000"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not found"));
}

#[test]
fn usage_shows_the_plan_and_limit() {
    let ws = Workspace::new();
    ws.ok(&[
        "accounts",
        "create",
        "--email",
        "a@example.com",
        "--plan",
        "starter",
    ]);
    let usage = json(&ws.ok(&["usage", "--email", "a@example.com", "--json"]));
    assert_eq!(usage["plan"], "starter");
    assert_eq!(usage["usage"]["current"], 0);
    assert_eq!(usage["usage"]["limit"], 10000);
    assert!(
        usage["usage"]["resetDate"]
            .as_str()
            .unwrap()
            .ends_with("T00:00:00Z")
    );
    let text = ws.ok(&["usage", "--email", "a@example.com"]);
    assert!(text.contains("monthly limit:        10000"), "{text}");
}

#[test]
fn a_closed_stdout_pipe_is_not_an_error() {
    let ws = Workspace::new();
    ws.ok(&[
        "accounts",
        "create",
        "--email",
        "a@example.com",
        "--plan",
        "pro",
    ]);
    // Enough keys that the listing is larger than a pipe's buffer, so the write must fail.
    {
        let store = Arc::new(SqliteStore::open(ws.db()).unwrap());
        let service = Service::new(store, SystemClock, Arc::new(NoGeoLocator)).unwrap();
        let account = service.accounts().unwrap().remove(0);
        for _ in 0..700 {
            service.create_key(account.id, KeyMode::Live).unwrap();
        }
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_qr"))
        .args(["keys", "list", "--db"])
        .arg(ws.db())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read the first line, as `head -1` would, then close the pipe.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 2];
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"ID");
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn completions_and_manual() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = qr().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("generate") && text.contains("regenerate"),
            "{shell}"
        );
    }
    qr().args(["completions", "tcsh"]).assert().code(2);
    qr().args(["man"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(".ie \\n(.g .ds Aq"))
        .stdout(predicate::str::contains(".TH qr 1"))
        .stdout(predicate::str::contains("QR_DB"));
    let dir = tempfile::tempdir().unwrap();
    qr().args(["man", "--out-dir"])
        .arg(dir.path())
        .assert()
        .success();
    for page in [
        "qr.1",
        "qr-generate.1",
        "qr-keys-create.1",
        "qr-analytics.1",
    ] {
        assert!(dir.path().join(page).exists(), "{page}");
    }
}

/// The dashboard's administration from the command line: verification by hand, password links,
/// plan requests, disabling and roles.
#[test]
fn dashboard_administration() {
    use std::sync::Arc;

    use qr_domain::{NoGeoLocator, Plan, Service, SystemClock};

    let ws = Workspace::new();
    ws.ok(&["accounts", "create", "--email", "a@example.com"]);
    let link = ws.ok(&[
        "accounts",
        "reset-link",
        "--email",
        "a@example.com",
        "--base-url",
        "https://qr.example.com/",
    ]);
    let token = link
        .trim()
        .strip_prefix("https://qr.example.com/dashboard/reset?token=")
        .unwrap_or_else(|| panic!("a reset link: {link}"));
    assert!(
        token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()),
        "{link}"
    );
    let shown = json(&ws.ok(&["accounts", "show", "--email", "a@example.com", "--json"]));
    assert_eq!(shown["emailVerifiedAt"], Value::Null);
    assert_eq!(
        (shown["status"].as_str(), shown["role"].as_str()),
        (Some("active"), Some("customer"))
    );
    let verified = json(&ws.ok(&["accounts", "verify", "--email", "a@example.com", "--json"]));
    assert!(verified["emailVerifiedAt"].is_string(), "{verified}");

    // A plan request, as the dashboard files it.
    {
        let store = qr_sqlite::SqliteStore::open(ws.db()).unwrap();
        let svc = Service::new(Arc::new(store), SystemClock, Arc::new(NoGeoLocator)).unwrap();
        let account = svc
            .account_by_email(&qr_domain::Email::parse("a@example.com").unwrap())
            .unwrap()
            .unwrap();
        svc.request_plan(
            &qr_domain::accounts::caller::Caller::operator(account.id),
            Plan::Pro,
        )
        .unwrap();
    }
    let pending = json(&ws.ok(&["accounts", "requests", "--json"]));
    assert_eq!(pending[0]["email"], "a@example.com");
    assert_eq!(
        (
            pending[0]["plan"].as_str(),
            pending[0]["requestedPlan"].as_str()
        ),
        (Some("free"), Some("pro"))
    );
    assert!(ws.ok(&["accounts", "requests"]).contains("a@example.com"));
    let approved = json(&ws.ok(&["accounts", "approve", "--email", "a@example.com", "--json"]));
    assert_eq!(approved["plan"], "pro");
    ws.qr(&["accounts", "decline", "--email", "a@example.com"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("has no pending plan request"));

    let disabled = json(&ws.ok(&["accounts", "disable", "--email", "a@example.com", "--json"]));
    assert_eq!(disabled["status"], "disabled");
    let enabled = json(&ws.ok(&["accounts", "enable", "--email", "a@example.com", "--json"]));
    assert_eq!(enabled["status"], "active");
    let admin = json(&ws.ok(&[
        "accounts",
        "set-role",
        "--email",
        "a@example.com",
        "--role",
        "admin",
        "--json",
    ]));
    assert_eq!(admin["role"], "admin");
    ws.qr(&[
        "accounts",
        "set-role",
        "--email",
        "a@example.com",
        "--role",
        "owner",
    ])
    .assert()
    .code(2);
}
