//! Scoped API keys through real requests: a key of each scope against a representative request of every area of the API (allowed ones answer as for a full key, the others 403 with the spec's message, before their body is read), full-access keys made before scopes reaching everything, the export kept for full keys, and label sheets of links needing `links:read` as well as `batch`.

use qr_domain::accounts::permissions::{Scope, ScopeSet};
use qr_domain::{KeyMode, Plan};
use serde_json::{Value, json};

use crate::common::{Resp, TestServer};

const NOT_AUTHORIZED: &str = "API key not authorized for this endpoint";

/// One representative request of an area: method, path, JSON body ("" for none), the status a
/// key allowed to make it gets, and the scopes allowed, written out by name (every other scope
/// gets 403).
struct Probe {
    method: &'static str,
    path: String,
    body: String,
    status: u16,
    scopes: &'static [&'static str],
}

const READERS_OF_LINKS: &[&str] = &["read-only", "links:read", "links:write"];
const EVERY_SCOPE: &[&str] = &[
    "read-only",
    "links:read",
    "links:write",
    "analytics:read",
    "generate",
    "batch",
    "domains",
    "designs",
    "webhooks",
];

fn probe(
    method: &'static str,
    path: &str,
    body: Value,
    status: u16,
    scopes: &'static [&'static str],
) -> Probe {
    Probe {
        method,
        path: path.to_owned(),
        body: if body.is_null() {
            String::new()
        } else {
            body.to_string()
        },
        status,
        scopes,
    }
}

/// The requests, one or two per area, against `link` (a link of the account) and `domain` (one of
/// its domains).
fn probes(link: &str, domain: &str) -> Vec<Probe> {
    let none = Value::Null;
    vec![
        probe("GET", "/api/links", none.clone(), 200, READERS_OF_LINKS),
        probe(
            "POST",
            "/api/links",
            json!({"name": "Scoped", "targetUrl": "https://example.com/scoped"}),
            201,
            &["links:write"],
        ),
        probe(
            "POST",
            "/api/links/bulk",
            json!({"links": [{"name": "Bulk", "targetUrl": "https://example.com/bulk"}]}),
            200,
            &["links:write"],
        ),
        probe(
            "GET",
            &format!("/api/links/qr?id={link}"),
            none.clone(),
            200,
            READERS_OF_LINKS,
        ),
        probe(
            "GET",
            &format!("/api/analytics?linkId={link}"),
            none.clone(),
            200,
            &["read-only", "analytics:read"],
        ),
        probe(
            "GET",
            &format!("/api/analytics/export?linkId={link}"),
            none.clone(),
            200,
            &["read-only", "analytics:read"],
        ),
        probe(
            "GET",
            "/api/generate?data=scoped",
            none.clone(),
            200,
            &["generate"],
        ),
        probe(
            "POST",
            "/api/batch",
            json!({"items": [{"data": "one"}]}),
            200,
            &["batch"],
        ),
        probe(
            "POST",
            "/api/print",
            json!({"items": [{"data": "one"}]}),
            200,
            &["batch"],
        ),
        probe(
            "GET",
            "/api/designs",
            none.clone(),
            200,
            &["read-only", "designs"],
        ),
        probe(
            "POST",
            "/api/designs",
            json!({"name": "Scoped"}),
            201,
            &["designs"],
        ),
        probe(
            "GET",
            "/api/domains",
            none.clone(),
            200,
            &["read-only", "domains"],
        ),
        probe(
            "GET",
            &format!("/api/domains/visits?id={domain}"),
            none.clone(),
            200,
            &["read-only", "domains"],
        ),
        probe(
            "PUT",
            &format!("/api/domains?id={domain}"),
            json!({"rootUrl": "https://example.com/"}),
            200,
            &["domains"],
        ),
        probe(
            "GET",
            "/api/webhooks",
            none.clone(),
            200,
            &["read-only", "webhooks"],
        ),
        probe(
            "DELETE",
            "/api/webhooks?id=00000000-0000-4000-8000-000000000000",
            none.clone(),
            404,
            &["webhooks"],
        ),
        probe(
            "GET",
            "/api/dashboard?action=usage",
            none.clone(),
            200,
            EVERY_SCOPE,
        ),
        probe("GET", "/api/health", none.clone(), 200, EVERY_SCOPE),
        probe("GET", "/api/account/export", none, 200, &[]),
    ]
}

async fn call(s: &TestServer, key: &str, p: &Probe) -> Resp {
    s.send(
        p.method,
        &p.path,
        &[("x-api-key", key), ("content-type", "application/json")],
        p.body.clone(),
    )
    .await
}

async fn post(s: &TestServer, key: &str, path: &str, body: Value) -> Value {
    let r = s
        .send(
            "POST",
            path,
            &[("x-api-key", key), ("content-type", "application/json")],
            body.to_string(),
        )
        .await;
    assert_eq!(r.status, 201, "{path}: {}", r.text());
    r.json()
}

/// A key of the account limited to `scopes`.
fn scoped_key(s: &TestServer, account: qr_domain::AccountId, scopes: &[Scope]) -> String {
    let scopes = ScopeSet::new(scopes.iter().copied()).unwrap();
    let (_, secret) = s
        .handle
        .app()
        .service()
        .create_key_with_scopes(account, KeyMode::Live, Some(scopes))
        .unwrap();
    secret.expose_secret().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_scope_reaches_its_areas_and_gets_403_elsewhere() {
    let s = TestServer::start(|_| {}).await;
    // Enterprise: every feature, and 200 requests a second.
    let (account, _, full) = s.account(Plan::Enterprise);
    let link = post(
        &s,
        &full,
        "/api/links",
        json!({"name": "Menu", "targetUrl": "https://example.com/menu"}),
    )
    .await;
    let domain = post(
        &s,
        &full,
        "/api/domains",
        json!({"domain": "go.scopes.test"}),
    )
    .await;
    let probes = probes(link["id"].as_str().unwrap(), domain["id"].as_str().unwrap());

    // The full-access key (made as every key before scopes was) reaches every area.
    for p in probes.iter() {
        let r = call(&s, &full, p).await;
        assert_eq!(
            r.status,
            p.status,
            "full key: {} {}: {}",
            p.method,
            p.path,
            r.text()
        );
    }

    for scope in Scope::ALL {
        let key = scoped_key(&s, account, &[scope]);
        for p in &probes {
            let r = call(&s, &key, p).await;
            if p.scopes.contains(&scope.as_str()) {
                assert_eq!(
                    r.status,
                    p.status,
                    "{scope}: {} {}: {}",
                    p.method,
                    p.path,
                    r.text()
                );
            } else {
                r.assert_error(403, NOT_AUTHORIZED);
                assert!(
                    r.header("x-ratelimit-limit").is_some(),
                    "{scope}: {} {}: a refused key still learns its limits",
                    p.method,
                    p.path
                );
            }
        }
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_write_reads_links_and_read_only_writes_nothing() {
    let s = TestServer::start(|_| {}).await;
    let (account, _, _) = s.account(Plan::Pro);
    let writer = scoped_key(&s, account, &[Scope::LinksWrite]);
    let reader = scoped_key(&s, account, &[Scope::ReadOnly]);
    let created = post(
        &s,
        &writer,
        "/api/links",
        json!({"name": "Flyer", "targetUrl": "https://example.com/flyer"}),
    )
    .await;
    let listed = s.get("/api/links", &writer).await;
    assert_eq!(listed.status, 200, "{}", listed.text());
    assert_eq!(listed.json()["links"][0]["id"], created["id"]);

    let listed = s.get("/api/links", &reader).await;
    assert_eq!(listed.status, 200, "{}", listed.text());
    let id = created["id"].as_str().unwrap();
    for (method, path, body) in [
        (
            "POST",
            "/api/links".to_owned(),
            json!({"name": "No", "targetUrl": "https://example.com/no"}),
        ),
        (
            "PUT",
            format!("/api/links?id={id}"),
            json!({"name": "Renamed"}),
        ),
        ("DELETE", format!("/api/links?id={id}"), Value::Null),
        ("POST", "/api/designs".to_owned(), json!({"name": "No"})),
    ] {
        s.send(
            method,
            &path,
            &[("x-api-key", &reader), ("content-type", "application/json")],
            body.to_string(),
        )
        .await
        .assert_error(403, NOT_AUTHORIZED);
    }
    // The refusal comes before the body is read: a malformed body still gets the 403.
    s.send("POST", "/api/links", &[("x-api-key", &reader)], "{not json")
        .await
        .assert_error(403, NOT_AUTHORIZED);
    let kept = s.get(&format!("/api/links?id={id}"), &reader).await;
    assert_eq!(kept.json()["name"], "Flyer");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_export_needs_a_full_access_key_and_sheets_of_links_need_links_read() {
    let s = TestServer::start(|_| {}).await;
    let (account, _, full) = s.account(Plan::Pro);
    post(
        &s,
        &full,
        "/api/links",
        json!({"name": "Menu", "targetUrl": "https://example.com/menu"}),
    )
    .await;
    let every_scope = scoped_key(&s, account, &Scope::ALL);
    s.get("/api/account/export", &every_scope)
        .await
        .assert_error(403, NOT_AUTHORIZED);
    let r = s.get("/api/account/export", &full).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/zip"));

    let sheet = |key: String| {
        let s = &s;
        async move {
            s.send(
                "POST",
                "/api/print",
                &[("x-api-key", &key), ("content-type", "application/json")],
                json!({"allLinks": true}).to_string(),
            )
            .await
        }
    };
    sheet(scoped_key(&s, account, &[Scope::Batch]))
        .await
        .assert_error(403, NOT_AUTHORIZED);
    let r = sheet(scoped_key(&s, account, &[Scope::Batch, Scope::LinksRead])).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/pdf"));
    s.stop().await;
}
