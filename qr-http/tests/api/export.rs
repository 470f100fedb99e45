//! `GET /api/account/export` and the dashboard's "Download my data" through the real server: the archive holds the account's links and analytics, never a key's secret or hash, only the caller's own account, one counted request, and the dashboard's form needs its CSRF token.

use crate::common;

use std::io::{Cursor, Read};

use common::TestServer;
use common::web::{Client, create_key, csrf_in, customer, start};
use qr_domain::chrono::Duration;
use qr_domain::{Endpoint, KeySettings, Plan};
use serde_json::{Value, json};

/// Every entry of a ZIP archive: (name, text).
fn entries(zip: &[u8]) -> Vec<(String, String)> {
    let mut archive = zip::ZipArchive::new(Cursor::new(zip)).expect("a ZIP archive");
    (0..archive.len())
        .map(|i| {
            let mut file = archive.by_index(i).unwrap();
            let mut text = String::new();
            file.read_to_string(&mut text).unwrap();
            (file.name().unwrap().into_owned(), text)
        })
        .collect()
}

fn entry<'a>(entries: &'a [(String, String)], name: &str) -> &'a str {
    entries
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, t)| t.as_str())
        .unwrap_or_else(|| {
            panic!(
                "no {name} in {:?}",
                entries.iter().map(|e| &e.0).collect::<Vec<_>>()
            )
        })
}

async fn create_link(addr: std::net::SocketAddr, key: &str, name: &str, url: &str) -> Value {
    let r = common::send(
        addr,
        "POST",
        "/api/links",
        &[("x-api-key", key), ("content-type", "application/json")],
        json!({"name": name, "targetUrl": url}).to_string().into(),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_exports_the_callers_own_account_without_secrets() {
    let s = TestServer::start(|_| {}).await;
    let (ann, ann_key, ann_secret) = s.account(Plan::Pro);
    let (bob, _, bob_secret) = s.account(Plan::Pro);
    let link = create_link(
        s.addr,
        &ann_secret,
        "Spring flyer",
        "https://example.com/spring",
    )
    .await;
    let code = link["shortCode"].as_str().unwrap().to_owned();
    s.clock.advance(Duration::seconds(1));
    let scan = s.send("GET", &format!("/r/{code}"), &[], "").await;
    assert_eq!(scan.status, 302);
    s.clock.advance(Duration::seconds(1));

    let r = s.get("/api/account/export", &ann_secret).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/zip"));
    assert_eq!(
        r.header("content-disposition"),
        Some(format!("attachment; filename=\"account-{ann}.zip\"").as_str())
    );
    // One counted request: the account's first besides creating the link.
    let limit: i64 = r.header("x-ratelimit-limit").unwrap().parse().unwrap();
    let remaining: i64 = r.header("x-ratelimit-remaining").unwrap().parse().unwrap();
    assert_eq!(limit - remaining, 2, "creating the link, then the export");

    let files = entries(&r.body);
    let links: Value = serde_json::from_str(entry(&files, "links.json")).unwrap();
    assert_eq!(links["links"][0]["id"], link["id"]);
    assert_eq!(links["links"][0]["targetUrl"], "https://example.com/spring");
    assert!(entry(&files, "links.csv").contains(&code));
    let scans = entry(&files, &format!("analytics/{code}/scans.csv"));
    assert_eq!(
        scans.lines().count(),
        2,
        "a header and the one scan: {scans}"
    );
    let keys: Value = serde_json::from_str(entry(&files, "keys.json")).unwrap();
    assert_eq!(keys["keys"][0]["id"], json!(ann_key.id.to_string()));
    let account: Value = serde_json::from_str(entry(&files, "account.json")).unwrap();
    assert_eq!(account["account"]["id"], json!(ann.to_string()));
    // Never a key's secret or its hash, in any file, in any usual spelling.
    let hash_hex: String = ann_key.hash.0.iter().map(|b| format!("{b:02x}")).collect();
    for (name, text) in &files {
        assert!(!text.contains(&ann_secret), "the secret in {name}");
        assert!(
            !text.to_lowercase().contains(&hash_hex),
            "the key hash in {name}"
        );
        assert!(
            !text.contains(&bob.to_string()),
            "another account in {name}"
        );
    }

    // Bob's key exports Bob, whatever the query names: never Ann's links.
    s.clock.advance(Duration::seconds(1));
    let other = s
        .get(&format!("/api/account/export?account={ann}"), &bob_secret)
        .await;
    assert_eq!(other.status, 200, "{}", other.text());
    assert_eq!(
        other.header("content-disposition"),
        Some(format!("attachment; filename=\"account-{bob}.zip\"").as_str())
    );
    let files = entries(&other.body);
    let links: Value = serde_json::from_str(entry(&files, "links.json")).unwrap();
    assert_eq!(links["links"], json!([]));
    for (name, text) in &files {
        assert!(!text.contains(&ann.to_string()), "Ann's account in {name}");
        assert!(!text.contains(&code), "Ann's link in {name}");
    }

    // HEAD answers like GET without the body; no key is 401; the export can be switched off.
    s.clock.advance(Duration::seconds(1));
    let head = s
        .send(
            "HEAD",
            "/api/account/export",
            &[("x-api-key", &ann_secret)],
            "",
        )
        .await;
    assert_eq!((head.status, head.body.len()), (200, 0));
    assert_eq!(head.header("content-type"), Some("application/zip"));
    s.send("GET", "/api/account/export", &[], "")
        .await
        .assert_error(401, "Invalid API key");
    let mut settings = KeySettings::default();
    settings.disabled_endpoints.insert(Endpoint::Export);
    s.handle
        .app()
        .service()
        .update_key_settings(ann_key.id, settings)
        .unwrap();
    s.clock.advance(Duration::seconds(1));
    s.get("/api/account/export", &ann_secret)
        .await
        .assert_error(403, "API key not authorized for this endpoint");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_downloads_my_data_with_its_csrf_token() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "ann@example.com").await;
    let (_, secret) = create_key(&mut c, "exporter").await;
    let link = create_link(s.addr, &secret, "Menu", "https://example.com/menu").await;

    let page = c.get("/dashboard/account").await;
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(html.contains("action=\"/dashboard/account/export\""));
    assert!(html.contains("Download my data"));
    let csrf = csrf_in(&html);

    let r = c.post("/dashboard/account/export", &[]).await;
    assert_eq!(r.status, 403, "no token: {}", r.text());
    let r = c
        .post(
            "/dashboard/account/export",
            &[("csrf", "0".repeat(64).as_str())],
        )
        .await;
    assert_eq!(r.status, 403, "a wrong token");
    let r = c.get("/dashboard/account/export").await;
    assert_eq!(r.status, 405, "a GET cannot start a download");

    let r = c
        .post("/dashboard/account/export", &[("csrf", &csrf)])
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/zip"));
    let disposition = r.header("content-disposition").unwrap();
    assert!(
        disposition.starts_with("attachment; filename=\"account-")
            && disposition.ends_with(".zip\""),
        "{disposition}"
    );
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    let files = entries(&r.body);
    let links: Value = serde_json::from_str(entry(&files, "links.json")).unwrap();
    assert_eq!(links["links"][0]["id"], link["id"]);
    let account: Value = serde_json::from_str(entry(&files, "account.json")).unwrap();
    assert_eq!(account["account"]["email"], "ann@example.com");
    let keys: Value = serde_json::from_str(entry(&files, "keys.json")).unwrap();
    assert_eq!(keys["keys"][0]["name"], "exporter");
    for (name, text) in &files {
        assert!(!text.contains(&secret), "the key's secret in {name}");
        assert!(!text.contains(&csrf), "the CSRF token in {name}");
    }

    // Another browser without a session is sent to log in, never given a download.
    let mut stranger = Client::new(s.addr);
    let r = stranger
        .post("/dashboard/account/export", &[("csrf", &csrf)])
        .await;
    assert_ne!(r.status, 200);
    assert_ne!(r.header("content-type"), Some("application/zip"));
    s.stop().await;
}
