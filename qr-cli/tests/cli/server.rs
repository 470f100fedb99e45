//! `qr serve` with the administration commands changing the same database while it runs.

use predicates::prelude::*;
use serde_json::Value;

use crate::common::{Server, Workspace, decode_image, qr};

fn key_id(ws: &Workspace, email: &str) -> String {
    let keys: Value =
        serde_json::from_str(&ws.ok(&["keys", "list", "--email", email, "--json"])).unwrap();
    keys[0]["id"].as_str().unwrap().to_owned()
}

#[test]
fn a_key_created_by_the_shell_works_against_the_running_server() {
    let ws = Workspace::new();
    let server = Server::start(&ws);
    // Exactly what an operator types: the key is the whole output of the command substitution.
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg("KEY=$(\"$QR\" keys create --email a@example.com --plan pro) && printf '%s' \"$KEY\"")
        .env("QR", env!("CARGO_BIN_EXE_qr"))
        .env("QR_DB", ws.db())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let key = String::from_utf8(output.stdout).unwrap();
    assert!(key.starts_with("qrapi_live_") && key.len() == 43, "{key:?}");

    let health = server.get("/api/health", &key);
    assert_eq!(health.status, 200);
    let image = server.get("/api/generate?data=made%20by%20the%20server&size=200", &key);
    assert_eq!(image.status, 200);
    assert_eq!(decode_image(&image.body), "made by the server");
    let usage: Value =
        serde_json::from_slice(&server.get("/api/dashboard?action=usage", &key).body).unwrap();
    assert_eq!(usage["plan"], "pro");
    server.stop();
}

#[test]
fn regenerate_makes_the_old_key_fail_at_once() {
    let ws = Workspace::new();
    let old = ws.create_key("a@example.com", "pro");
    let server = Server::start(&ws);
    assert_eq!(server.get("/api/health", &old).status, 200);

    let new = ws.ok(&["keys", "regenerate", &key_id(&ws, "a@example.com")]);
    let new = new.trim_end();
    let refused = server.get("/api/health", &old);
    assert_eq!(refused.status, 401);
    let body: Value = serde_json::from_slice(&refused.body).unwrap();
    assert_eq!(body["message"], "Invalid API key");
    assert_eq!(server.get("/api/health", new).status, 200);
    server.stop();
}

#[test]
fn settings_plans_and_revocation_apply_on_the_next_request() {
    let ws = Workspace::new();
    let key = ws.create_key("a@example.com", "pro");
    let id = key_id(&ws, "a@example.com");
    let server = Server::start(&ws);
    assert_eq!(server.get("/api/generate?data=x", &key).status, 200);

    ws.ok(&["keys", "set", &id, "--disable-endpoint", "generate"]);
    assert_eq!(server.get("/api/generate?data=x", &key).status, 403);
    assert_eq!(server.get("/api/health", &key).status, 200);
    ws.ok(&["keys", "set", &id, "--enable-all-endpoints"]);
    assert_eq!(server.get("/api/generate?data=x", &key).status, 200);

    // A link made with the CLI redirects on the server, and its scan shows in analytics.
    let link: Value = serde_json::from_str(&ws.ok(&[
        "links",
        "create",
        "--email",
        "a@example.com",
        "--name",
        "Site",
        "--url",
        "https://example.com/landing",
        "--json",
    ]))
    .unwrap();
    let code = link["shortCode"].as_str().unwrap();
    let redirect = server.get(&format!("/r/{code}"), &key);
    assert!((300..400).contains(&redirect.status), "{}", redirect.status);
    let report: Value =
        serde_json::from_str(&ws.ok(&["analytics", link["id"].as_str().unwrap(), "--json"]))
            .unwrap();
    assert_eq!(report["analytics"]["totalScans"], 1);
    assert_eq!(report["recentScans"][0]["browser"], "Firefox");

    ws.ok(&["keys", "revoke", &id]);
    assert_eq!(server.get("/api/health", &key).status, 401);
    server.stop();
}

#[test]
fn a_stopped_server_has_saved_usage_and_last_use() {
    let ws = Workspace::new();
    let key = ws.create_key("a@example.com", "starter");
    let server = Server::start(&ws);
    for _ in 0..3 {
        assert_eq!(server.get("/api/health", &key).status, 200);
    }
    server.stop();
    let usage: Value =
        serde_json::from_str(&ws.ok(&["usage", "--email", "a@example.com", "--json"])).unwrap();
    assert_eq!(usage["usage"]["current"], 3);
    let keys: Value = serde_json::from_str(&ws.ok(&["keys", "list", "--json"])).unwrap();
    assert!(keys[0]["lastUsedAt"].is_string(), "{keys}");
}

#[test]
fn serve_rejects_bad_options() {
    let ws = Workspace::new();
    qr().args(["serve", "--listen", "localhost"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--listen"));
    qr().args(["serve", "--idle-timeout", "forever"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("duration"));
    qr().args([
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--base-url",
        "ftp://example.com",
    ])
    .env("QR_DB", ws.db())
    .env("RUST_LOG", "off")
    .assert()
    .code(2)
    .stderr(predicate::str::contains("base URL"));
}

#[test]
fn a_busy_port_is_reported_once_with_its_cause() {
    let ws = Workspace::new();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let output = ws
        .qr(&["serve", "--listen", &addr])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("qr: error:"))
        .unwrap_or_else(|| panic!("no error line in {stderr:?}"));
    assert!(line.contains(&format!("cannot listen on {addr}")), "{line}");
    assert_eq!(line.matches("Address already in use").count(), 1, "{line}");
    drop(taken);
}
