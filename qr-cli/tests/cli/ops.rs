//! Operating `qr serve`: JSON access logs with request ids and no secrets, and `qr backup`/`qr restore` of a database a running server is writing to.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Server, Workspace};

fn json(body: &[u8]) -> Value {
    serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(body)))
}

#[test]
fn json_access_lines_carry_the_route_request_id_and_account_and_no_secret() {
    let ws = Workspace::new();
    let key = ws.create_key("a@example.com", "pro");
    let server = Server::start_with(&ws, &["--log-format", "json"], &[("RUST_LOG", "info")]);
    let created = server.post_json(
        "/api/links",
        &key,
        r#"{"name":"Site","targetUrl":"https://example.com/landing"}"#,
    );
    assert_eq!(created.status, 201);
    let link = json(&created.body);
    let code = link["shortCode"].as_str().unwrap();
    let redirect = server.get(&format!("/r/{code}"), "");
    assert_eq!(redirect.status, 302);
    let refused = server.get("/api/health", "qrapi_live_wrongwrongwrongwrongwrongwrongwr");
    assert_eq!(refused.status, 401);
    let log = server.stop();

    let lines: Vec<Value> = log
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let access = |id: &str| {
        lines
            .iter()
            .find(|l| l["target"] == "qr_http::access" && l["request_id"] == id)
            .unwrap_or_else(|| panic!("no access line for {id} in {log}"))
    };
    let line = access(redirect.header("x-request-id").unwrap());
    assert_eq!(line["method"], "GET");
    assert_eq!(line["route"], "/r/{shortCode}", "{line}");
    assert_eq!(line["status"], 302);
    assert_eq!(line["client"], "127.0.0.0/24");
    assert_eq!(line["account_id"], "-");
    assert!(
        line["duration_ms"].as_str().unwrap().parse::<f64>().is_ok(),
        "{line}"
    );

    let line = access(created.header("x-request-id").unwrap());
    assert_eq!(
        (line["method"].as_str(), line["status"].as_u64()),
        (Some("POST"), Some(201))
    );
    assert_eq!(line["route"], "/api/links");
    assert!(line["bytes"].as_u64().unwrap() > 100, "{line}");
    let account = line["account_id"].as_str().unwrap();
    assert_eq!(account.len(), 36, "an account id: {line}");

    let line = access(refused.header("x-request-id").unwrap());
    assert_eq!(line["status"], 401);
    // Neither the key, nor the wrong one, nor the link's short code appears in any line.
    for secret in [&key[11..], "wrongwrongwrong", code] {
        assert!(!log.contains(secret), "{secret} logged: {log}");
    }
}

/// Writes that a client saw acknowledged, with when.
#[derive(Default)]
struct Acked {
    links: Mutex<Vec<(Instant, String)>>,
    scans: Mutex<Vec<Instant>>,
}

#[test]
fn a_backup_under_write_load_restores_every_write_acknowledged_before_it_began() {
    let ws = Workspace::new();
    let key = ws.create_key("load@example.com", "enterprise");
    // Loopback is a trusted proxy, so each scan comes from its own visitor address and counts.
    let server = Server::start_with(
        &ws,
        &["--trusted-proxies", "127.0.0.1"],
        &[("RUST_LOG", "warn")],
    );
    let scanned = json(
        &server
            .post_json(
                "/api/links",
                &key,
                r#"{"name":"Scanned","targetUrl":"https://example.com/scan"}"#,
            )
            .body,
    );
    let code = scanned["shortCode"].as_str().unwrap().to_owned();
    let acked = Acked::default();
    let stop = AtomicBool::new(false);
    let visitor = AtomicU32::new(1);
    let backup = ws.path("backup.db");
    let mut began = None;
    std::thread::scope(|s| {
        for writer in 0..2 {
            let (server, key, acked, stop) = (&server, &key, &acked, &stop);
            s.spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let body = format!(
                        r#"{{"name":"w{writer}-{n}","targetUrl":"https://example.com/{n}"}}"#
                    );
                    let answer = server.post_json("/api/links", key, &body);
                    if answer.status == 201 {
                        let id = json(&answer.body)["id"].as_str().unwrap().to_owned();
                        acked.links.lock().unwrap().push((Instant::now(), id));
                    }
                }
            });
        }
        let (server, code, acked, stop, visitor) = (&server, &code, &acked, &stop, &visitor);
        s.spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let n = visitor.fetch_add(1, Ordering::Relaxed);
                let from = format!("10.{}.{}.{}", n >> 16 & 255, n >> 8 & 255, n & 255);
                if server.get_from(&format!("/r/{code}"), &from).status == 302 {
                    acked.scans.lock().unwrap().push(Instant::now());
                }
            }
        });
        std::thread::sleep(Duration::from_millis(500));
        began = Some(Instant::now());
        ws.ok(&["backup", backup.to_str().unwrap()]);
        std::thread::sleep(Duration::from_millis(300));
        stop.store(true, Ordering::Relaxed);
    });
    let began = began.unwrap();
    server.stop();

    let links = acked.links.into_inner().unwrap();
    let scans = acked.scans.into_inner().unwrap();
    let links_before: Vec<&String> = links
        .iter()
        .filter(|(t, _)| *t < began)
        .map(|(_, id)| id)
        .collect();
    let scans_before = scans.iter().filter(|t| **t < began).count();
    assert!(
        !links_before.is_empty() && scans_before > 0,
        "no load before the backup"
    );
    assert!(
        links.iter().any(|(t, _)| *t > began) && scans.iter().any(|t| *t > began),
        "the load went on during and after the backup"
    );

    let restored = ws.path("restored.db");
    let report = ws.ok(&[
        "restore",
        "--db",
        restored.to_str().unwrap(),
        backup.to_str().unwrap(),
        "--json",
    ]);
    let report = json(report.as_bytes());
    assert_eq!(report["integrity"], "ok", "{report}");
    assert_eq!(report["applicationId"], "0x5152504c");
    let list = json(
        ws.ok(&[
            "links",
            "list",
            "--db",
            restored.to_str().unwrap(),
            "--email",
            "load@example.com",
            "--json",
        ])
        .as_bytes(),
    );
    let ids: std::collections::HashSet<&str> = list["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    for id in &links_before {
        assert!(
            ids.contains(id.as_str()),
            "link {id}, acknowledged before the backup, is missing"
        );
    }
    assert_eq!(
        report["counts"]["links"].as_u64().unwrap() as usize,
        ids.len()
    );
    let analytics = json(
        ws.ok(&[
            "analytics",
            "--db",
            restored.to_str().unwrap(),
            scanned["id"].as_str().unwrap(),
            "--json",
        ])
        .as_bytes(),
    );
    let total = analytics["analytics"]["totalScans"].as_u64().unwrap() as usize;
    assert!(
        total >= scans_before,
        "{total} scans restored, {scans_before} acknowledged before the backup"
    );
}

#[test]
fn restore_checks_the_backup_and_never_replaces_a_database_in_use() {
    let ws = Workspace::new();
    let key = ws.create_key("a@example.com", "pro");
    let server = Server::start(&ws);
    let created = server.post_json(
        "/api/links",
        &key,
        r#"{"name":"Kept","targetUrl":"https://example.com/kept"}"#,
    );
    let code = json(&created.body)["shortCode"]
        .as_str()
        .unwrap()
        .to_owned();
    let backup = ws.path("b.db");
    let out = ws.ok(&["backup", backup.to_str().unwrap()]);
    assert!(
        out.contains("integrity ok") && out.contains("links"),
        "{out}"
    );
    // A backup never overwrites.
    let again = ws
        .qr(&["backup", backup.to_str().unwrap()])
        .assert()
        .code(1);
    assert!(String::from_utf8_lossy(&again.get_output().stderr).contains("exists"));
    // The database the server has open is never replaced, with --force either.
    let in_use = ws
        .qr(&["restore", "--force", backup.to_str().unwrap()])
        .assert()
        .code(1);
    assert!(
        String::from_utf8_lossy(&in_use.get_output().stderr).contains("open in another process"),
        "{:?}",
        in_use.get_output()
    );
    server.stop();
    // Stopped: an existing database needs --force.
    let exists = ws
        .qr(&["restore", backup.to_str().unwrap()])
        .assert()
        .code(1);
    assert!(String::from_utf8_lossy(&exists.get_output().stderr).contains("--force"));
    // A file that is not a QR platform database is refused.
    let junk = ws.path("junk.db");
    std::fs::write(&junk, b"not a database at all, just text").unwrap();
    ws.qr(&[
        "restore",
        "--db",
        ws.path("x.db").to_str().unwrap(),
        junk.to_str().unwrap(),
    ])
    .assert()
    .code(1);
    // PostgreSQL is pg_dump's job: a usage error that says so.
    let pg = ws
        .qr(&[
            "backup",
            "--db",
            "postgres://qr@localhost/qr",
            ws.path("pg.db").to_str().unwrap(),
        ])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&pg.get_output().stderr).contains("pg_dump"));

    // Delete the link, restore the backup, and the server redirects it again.
    ws.ok(&[
        "links",
        "delete",
        json(&created.body)["id"].as_str().unwrap(),
    ]);
    ws.ok(&["restore", "--force", backup.to_str().unwrap()]);
    let server = Server::start(&ws);
    assert_eq!(server.get(&format!("/r/{code}"), "").status, 302);
    server.stop();
}
