//! The operator's side through real HTTP: `/livez` and `/readyz`, `X-Request-Id` on every kind of answer, and `/metrics` (token, separate listener, and its text checked by Prometheus's own `promtool check metrics`).

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use bytes::Bytes;
use common::{Resp, TestServer, send};
use qr_domain::Plan;
use qr_http::OperatorToken;

const TOKEN: &str = "operator-token-0123456789";

#[tokio::test]
async fn probes_answer_without_a_key_and_are_not_counted() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Free);
    let before = s.get("/api/dashboard?action=usage", &key).await.json();
    let live = s.send("GET", "/livez", &[], Bytes::new()).await;
    assert_eq!(live.status, 200);
    assert_eq!(live.json()["status"], "alive");
    for _ in 0..20 {
        let ready = s
            .send("GET", "/readyz", &[("x-api-key", &key)], Bytes::new())
            .await;
        assert_eq!(ready.status, 200, "{}", ready.text());
        assert_eq!(ready.json()["status"], "ready");
        assert_eq!(ready.header("cache-control"), Some("no-store"));
        assert_eq!(
            ready.header("x-ratelimit-limit"),
            None,
            "not a keyed answer"
        );
    }
    let head = s.send("HEAD", "/readyz", &[], Bytes::new()).await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    let post = s.send("POST", "/livez", &[], Bytes::new()).await;
    post.assert_error(405, "Method not allowed");
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
    let after = s.get("/api/dashboard?action=usage", &key).await.json();
    // The second usage request is the only one counted between the two readings.
    assert_eq!(
        after["usage"]["current"].as_u64().unwrap(),
        before["usage"]["current"].as_u64().unwrap() + 1
    );
    // `/api/health` keeps its keyed answer.
    s.send("GET", "/api/health", &[], Bytes::new())
        .await
        .assert_error(401, "Invalid API key");
    s.stop().await;
}

#[tokio::test]
async fn readyz_is_503_with_a_reason_once_the_scan_writer_stopped() {
    let s = TestServer::start(|_| {}).await;
    let service = std::sync::Arc::clone(s.handle.app().service());
    tokio::task::spawn_blocking(move || service.shutdown())
        .await
        .unwrap()
        .unwrap();
    let ready = s.send("GET", "/readyz", &[], Bytes::new()).await;
    assert_eq!(ready.status, 503);
    assert_eq!(ready.json()["status"], "unavailable");
    assert_eq!(ready.json()["reason"], "the scan writer has stopped");
    // The process still answers.
    assert_eq!(s.send("GET", "/livez", &[], Bytes::new()).await.status, 200);
}

async fn create_link(s: &TestServer, key: &str) -> Resp {
    s.send(
        "POST",
        "/api/links",
        &[("x-api-key", key)],
        r#"{"name":"a","targetUrl":"https://example.com/"}"#,
    )
    .await
}

fn request_id(r: &Resp) -> &str {
    r.header("x-request-id")
        .expect("every answer has an X-Request-Id")
}

#[tokio::test]
async fn every_answer_has_a_request_id_and_only_a_trusted_proxy_chooses_it() {
    let s = TestServer::start(|c| c.trusted_proxies = vec!["127.0.0.1".into()]).await;
    let (_, _, key) = s.account(Plan::Pro);
    let link = create_link(&s, &key).await;
    let code = link.json()["shortCode"].as_str().unwrap().to_owned();
    let answers = [
        link,
        s.get("/api/generate?data=hi", &key).await,
        s.get("/api/generate?data=hi", "wrong").await,
        s.get("/nowhere", "").await,
        s.send("GET", &format!("/r/{code}"), &[], Bytes::new())
            .await,
        s.send("GET", "/r/unknown1", &[], Bytes::new()).await,
        s.send("GET", "/dashboard/login", &[], Bytes::new()).await,
        s.send("GET", "/api/openapi.json", &[], Bytes::new()).await,
        s.send("OPTIONS", "/api/links", &[], Bytes::new()).await,
    ];
    let statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [201, 200, 401, 404, 302, 404, 200, 200, 204]);
    let ids: std::collections::HashSet<&str> = answers.iter().map(request_id).collect();
    assert_eq!(ids.len(), answers.len(), "ids are unique: {ids:?}");
    // From a trusted proxy a plain token is kept; anything else is replaced.
    let kept = s
        .send(
            "GET",
            "/livez",
            &[("x-request-id", "edge-7f3a.b_c")],
            Bytes::new(),
        )
        .await;
    assert_eq!(request_id(&kept), "edge-7f3a.b_c");
    for bad in ["has space", "x".repeat(65).as_str(), "semi;colon"] {
        let replaced = s
            .send("GET", "/livez", &[("x-request-id", bad)], Bytes::new())
            .await;
        assert_ne!(request_id(&replaced), bad);
    }
    s.stop().await;

    let untrusted = TestServer::start(|_| {}).await;
    let replaced = untrusted
        .send(
            "GET",
            "/livez",
            &[("x-request-id", "edge-7f3a")],
            Bytes::new(),
        )
        .await;
    assert_ne!(request_id(&replaced), "edge-7f3a");
    untrusted.stop().await;
}

#[tokio::test]
async fn metrics_on_the_main_port_need_the_token_and_do_not_exist_without_one() {
    let s = TestServer::start(|_| {}).await;
    s.send("GET", "/metrics", &[], Bytes::new())
        .await
        .assert_error(404, "Not found");
    s.stop().await;

    let s = TestServer::start(|c| c.metrics_token = Some(OperatorToken::new(TOKEN))).await;
    for auth in ["", "Bearer wrong-token-0123456789", "Basic b3BlcmF0b3I="] {
        s.send("GET", "/metrics", &[("authorization", auth)], Bytes::new())
            .await
            .assert_error(401, "Invalid metrics token");
    }
    let bearer = format!("Bearer {TOKEN}");
    let scrape = s
        .send(
            "GET",
            "/metrics",
            &[("authorization", &bearer)],
            Bytes::new(),
        )
        .await;
    assert_eq!(scrape.status, 200);
    assert!(
        scrape
            .header("content-type")
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    assert!(
        scrape.text().contains("qr_build_info{"),
        "{}",
        scrape.text()
    );
    s.stop().await;
}

#[tokio::test]
async fn metrics_count_the_traffic_and_pass_promtool() {
    let s = TestServer::start(|c| c.metrics_listen = Some("127.0.0.1:0".parse().unwrap())).await;
    let metrics_addr = s.handle.metrics_addr().expect("a metrics listener");
    let (_, _, key) = s.account(Plan::Free);
    let link = create_link(&s, &key).await;
    let code = link.json()["shortCode"].as_str().unwrap().to_owned();
    let ua = (
        "user-agent",
        "Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0",
    );
    for _ in 0..2 {
        let r = s
            .send("GET", &format!("/r/{code}"), &[ua], Bytes::new())
            .await;
        assert_eq!(r.status, 302);
    }
    s.get("/api/links", "qrapi_live_nothing").await;
    // The free plan's per-second rate: a burst of requests meets a 429.
    let mut limited = false;
    for _ in 0..200 {
        if s.get("/api/links", &key).await.status == 429 {
            limited = true;
            break;
        }
    }
    assert!(limited, "no 429 in 200 requests of a free key");
    let logo = s
        .get(
            "/api/generate?data=x&logo=ftp%3A%2F%2Fexample.com%2Fa.png",
            &s.owner_key,
        )
        .await;
    logo.assert_error(400, "Invalid logo URL: only http and https are allowed");

    let scrape = send(metrics_addr, "GET", "/metrics", &[], Bytes::new()).await;
    assert_eq!(scrape.status, 200);
    let text = scrape.text();
    for expected in [
        r#"qr_http_requests_total{route="/r/{shortCode}",status="302"} 2"#,
        r#"qr_http_requests_total{route="/api/links",status="201"} 1"#,
        r#"qr_http_requests_total{route="/api/links",status="401"} 1"#,
        r#"qr_rate_limited_total{reason="per_second"} 1"#,
        r#"qr_http_request_duration_seconds_count{route="/r/{shortCode}"} 2"#,
        "qr_scans_recorded_total 2",
        "qr_scan_writer_up 1",
        "qr_scan_queue_depth 0",
        r#"qr_cache_hits_total{cache="links"} 1"#,
        "qr_database_size_bytes ",
        "qr_database_wal_size_bytes ",
        r#"qr_build_info{version=""#,
    ] {
        assert!(text.contains(expected), "{expected} missing in\n{text}");
    }
    // The 429 itself, and the refused logo.
    assert!(text.contains(r#"qr_http_requests_total{route="/api/links",status="429"}"#));
    assert!(
        text.contains(r#"qr_logo_fetches_total{outcome="refused"} 1"#),
        "{text}"
    );
    assert!(text.contains(r#"qr_scan_commit_duration_seconds_bucket{le="0.0001"}"#));
    assert!(text.contains("qr_http_open_connections "));
    // The listener serves the probes too, and nothing else.
    assert_eq!(
        send(metrics_addr, "GET", "/readyz", &[], Bytes::new())
            .await
            .status,
        200
    );
    assert_eq!(
        send(metrics_addr, "GET", "/api/health", &[], Bytes::new())
            .await
            .status,
        404
    );
    // Without a token the main port still has no /metrics.
    assert_eq!(
        s.send("GET", "/metrics", &[], Bytes::new()).await.status,
        404
    );
    promtool_accepts(&text);
    s.stop().await;
}

/// `promtool check metrics` (Debian's `prometheus` package) parses and lints the exposition.
fn promtool_accepts(text: &str) {
    if !qr_test_support::have_program(
        "promtool",
        "the metrics format check",
        "apt-get install prometheus",
    ) {
        return;
    }
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool refused the metrics: {}{}\n{text}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
