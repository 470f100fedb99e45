//! The server as a whole: the OpenAPI document against the router, HTTP/2 cleartext, first start, and restart after a graceful shutdown.

use crate::common;

use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;
use common::{Resp, send};
use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper_util::rt::{TokioExecutor, TokioIo};
use qr_domain::TestClock;
use qr_http::ServerConfig;
use qr_http::routes::ROUTES;
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_document_matches_the_router() {
    let s = common::TestServer::start(|_| {}).await;
    let r = s.send("GET", "/api/openapi.json", &[], "").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let doc = r.json();
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    let documented: BTreeSet<&str> = paths.keys().map(String::as_str).collect();
    let routed: BTreeSet<&str> = ROUTES.iter().map(|r| r.path).collect();
    assert_eq!(documented, routed);
    for route in ROUTES {
        let methods: BTreeSet<String> = paths[route.path]
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| {
                [
                    "get", "put", "post", "delete", "options", "head", "patch", "trace",
                ]
                .contains(&k.as_str())
            })
            .cloned()
            .collect();
        let expected: BTreeSet<String> = route
            .methods
            .iter()
            .map(|m| m.as_str().to_lowercase())
            .collect();
        assert_eq!(methods, expected, "{}", route.path);
        // Every answered method really is routed: an unlisted one gets 405, a listed one does not.
        for method in ["GET", "POST", "PUT", "DELETE"] {
            let path = route.path.replace("{shortCode}", "ABCDEFGH");
            let r = s.send(method, &path, &[], "").await;
            let listed = expected.contains(&method.to_lowercase());
            assert_eq!(r.status == 405, !listed, "{method} {path}: {}", r.status);
        }
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http2_with_prior_knowledge() {
    let s = common::TestServer::start(|_| {}).await;
    let stream = TcpStream::connect(s.addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(async move {
        let _ = conn.await;
    });
    for _ in 0..2 {
        let request = Request::get(format!("http://{}/api/health", s.addr))
            .header("x-api-key", &s.owner_key)
            .body(Empty::<Bytes>::new())
            .unwrap();
        let response = sender.send_request(request).await.unwrap();
        assert_eq!(response.version(), hyper::Version::HTTP_2);
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["x-ratelimit-limit"], "-1");
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["status"], "ok");
    }
    s.stop().await;
}

async fn boot(config: &ServerConfig, clock: &TestClock) -> qr_http::ServerHandle {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    qr_http::start_with(config.clone(), listener, Arc::new(clock.clone()))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_start_creates_the_owner_and_a_restart_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let config = ServerConfig {
        database: dir.path().join("qr.db").into(),
        ..ServerConfig::default()
    };
    let clock = TestClock::new(common::at("2024-05-15T12:00:00Z"));
    let server = boot(&config, &clock).await;
    let key = server.initial_key().unwrap().expose_secret().to_owned();
    assert!(key.starts_with("qrapi_live_") && key.len() == 43);
    let addr = server.local_addr();
    let get = |path: &str| {
        let key = key.clone();
        let path = path.to_owned();
        async move { send(addr, "GET", &path, &[("x-api-key", &key)], Bytes::new()).await }
    };
    let usage = get("/api/dashboard?action=usage").await.json();
    assert_eq!(usage["plan"], "enterprise");
    assert_eq!(usage["usage"]["limit"], json!(-1));
    let created = send(
        addr,
        "POST",
        "/api/links",
        &[("x-api-key", &key)],
        Bytes::from(json!({"name": "n", "targetUrl": "https://example.com"}).to_string()),
    )
    .await;
    assert_eq!(created.status, 201);
    let link = created.json();
    let code = link["shortCode"].as_str().unwrap().to_owned();
    let scan: Resp = send(
        addr,
        "GET",
        &format!("/r/{code}"),
        &[("user-agent", "Mozilla/5.0")],
        Bytes::new(),
    )
    .await;
    assert_eq!(scan.status, 302);
    server.shutdown().await.unwrap();

    // The counters and the scan were flushed; no second owner is created.
    let server = boot(&config, &clock).await;
    assert!(server.initial_key().is_none());
    let addr = server.local_addr();
    let get = |path: String| {
        let key = key.clone();
        async move { send(addr, "GET", &path, &[("x-api-key", &key)], Bytes::new()).await }
    };
    let usage = get("/api/dashboard?action=usage".into()).await.json();
    assert_eq!(usage["usage"]["current"], json!(3));
    let analytics = get(format!(
        "/api/analytics?linkId={}",
        link["id"].as_str().unwrap()
    ))
    .await
    .json();
    assert_eq!(analytics["analytics"]["totalScans"], json!(1));
    assert_eq!(analytics["link"]["scanCount"], json!(1));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn longest_data_fits_in_the_request_head() {
    let s = common::TestServer::start(|_| {}).await;
    let data = "\u{1F600}".repeat(2953);
    let path = format!(
        "/api/generate?{}",
        common::query(&[("data", &data), ("errorCorrection", "L")])
    );
    assert!(path.len() > 30_000);
    let r = s.get(&path, &s.owner_key).await;
    r.assert_error(
        400,
        "Data too long for error correction level L: at most 2953 bytes fit",
    );
    let ok = "a".repeat(2953);
    let path = format!(
        "/api/generate?{}",
        common::query(&[("data", &ok), ("errorCorrection", "L"), ("size", "800")])
    );
    let r = s.get(&path, &s.owner_key).await;
    assert_eq!(r.status, 200, "{}", r.text());
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_database_answers_503_for_writes_and_keeps_serving_reads() {
    let s = common::TestServer::start(|c| c.max_database_bytes = Some(1)).await;
    let key = s.owner_key.clone();
    let headers = [
        ("x-api-key", key.as_str()),
        ("content-type", "application/json"),
    ];
    let mut created = Vec::new();
    let refused = loop {
        let body = json!({"name": format!("flyer {} {}", created.len(), "n".repeat(150)), "targetUrl": "https://example.com/spring"});
        let r = s
            .send("POST", "/api/links", &headers, body.to_string())
            .await;
        if r.status != 201 {
            break r;
        }
        created.push(r.json());
        assert!(created.len() < 5_000, "the size cap was never reached");
    };
    assert_eq!(refused.status, 503, "{}", refused.text());
    assert_eq!(
        refused.json(),
        json!({"error": true, "message": "Storage unavailable (disk full): the request was not stored; retry later"})
    );
    assert_eq!(refused.header("retry-after"), Some("10"));

    // What was acknowledged is all there, redirects still work, and so does generating.
    let list = s.get("/api/links", &key).await;
    assert_eq!(list.status, 200);
    assert_eq!(
        list.json()["links"].as_array().unwrap().len(),
        created.len()
    );
    let code = created[0]["shortCode"].as_str().unwrap();
    let r = s
        .send("GET", &format!("/r/{code}"), &[], Bytes::new())
        .await;
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), Some("https://example.com/spring"));
    let r = s.get("/api/generate?data=hello&format=svg", &key).await;
    assert_eq!(r.status, 200);
    s.stop().await;
}
