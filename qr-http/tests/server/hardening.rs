//! Defects found by outside testers, each pinned by a request that failed before its fix: text that is not UTF-8, `null` fields, caching of private answers, HEAD.

use crate::common;

use common::TestServer;
use qr_domain::Plan;
use serde_json::json;

#[tokio::test]
async fn query_text_that_is_not_utf8_is_refused() {
    let s = TestServer::start(|_| {}).await;
    // "café" in Latin-1: the é is the single byte E9.
    let r = s.get("/api/generate?data=caf%E9", &s.owner_key).await;
    r.assert_error(
        400,
        "Invalid query string: parameter \"data\" is not UTF-8 text; percent-encode its UTF-8 bytes",
    );
    let r = s.get("/api/generate?data=caf%C3%A9", &s.owner_key).await;
    assert_eq!(r.status, 200);
    assert_eq!(common::decode_png(&r.body), "café");
    // Every parameter, not only data.
    let r = s.get("/api/links?id=%FF%FE", &s.owner_key).await;
    assert_eq!(r.status, 400, "{}", r.text());
    s.stop().await;
}

#[tokio::test]
async fn null_is_refused_for_fields_that_are_not_nullable() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Pro);
    let headers = [
        ("x-api-key", key.as_str()),
        ("content-type", "application/json"),
    ];
    let created = s
        .send(
            "POST",
            "/api/links",
            &headers,
            json!({"name": "Menu", "targetUrl": "https://example.com/menu"}).to_string(),
        )
        .await;
    assert_eq!(created.status, 201);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let path = format!("/api/links?id={id}");
    let r = s
        .send(
            "PUT",
            &path,
            &headers,
            json!({"targetUrl": null}).to_string(),
        )
        .await;
    r.assert_error(400, "targetUrl must be a string");
    let r = s
        .send("PUT", &path, &headers, json!({"name": null}).to_string())
        .await;
    r.assert_error(400, "name must be a string");
    let r = s
        .send(
            "POST",
            "/api/links",
            &headers,
            json!({"name": null, "targetUrl": "https://example.com"}).to_string(),
        )
        .await;
    r.assert_error(400, "name must be a string");
    // The link is unchanged.
    let link = s.get(&path, &key).await.json();
    assert_eq!(link["targetUrl"], "https://example.com/menu");
    assert_eq!(link["name"], "Menu");
    s.stop().await;
}

#[tokio::test]
async fn private_answers_are_not_cached() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Pro);
    let created = s
        .send(
            "POST",
            "/api/links",
            &[("x-api-key", key.as_str())],
            json!({"name": "A", "targetUrl": "https://example.com"}).to_string(),
        )
        .await;
    let id = created.json()["id"].as_str().unwrap().to_owned();
    for path in [
        "/api/links".to_owned(),
        format!("/api/links?id={id}"),
        format!("/api/analytics?linkId={id}"),
        "/api/dashboard?action=usage".to_owned(),
        "/api/health".to_owned(),
    ] {
        let r = s.get(&path, &key).await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(
            r.header("cache-control"),
            Some("private, no-store"),
            "{path}"
        );
    }
    assert_eq!(created.header("cache-control"), Some("private, no-store"));
    let refused = s
        .get("/api/links", "qrapi_live_wrongwrongwrongwrongwrongwrongwr")
        .await;
    assert_eq!(refused.status, 401);
    assert_eq!(refused.header("cache-control"), Some("private, no-store"));
    // Images keep their revalidating policy with an ETag.
    let image = s.get("/api/generate?data=x", &key).await;
    assert_eq!(image.header("cache-control"), Some("private, no-cache"));
    s.stop().await;
}

#[tokio::test]
async fn head_answers_like_get_without_the_body_and_counts_like_get() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Pro);
    let usage = |r: &common::Resp| r.json()["usage"]["current"].as_u64().unwrap();
    let before = usage(&s.get("/api/dashboard?action=usage", &key).await);
    for path in [
        "/api/health",
        "/api/links",
        "/api/generate?data=head&size=200",
        "/api/dashboard?action=usage",
        "/api/openapi.json",
    ] {
        let get = s.get(path, &key).await;
        let head = s
            .send("HEAD", path, &[("x-api-key", key.as_str())], "")
            .await;
        assert_eq!(head.status, get.status, "{path}");
        assert!(head.body.is_empty(), "{path}");
        assert_eq!(
            head.header("content-length").map(str::to_owned),
            Some(get.body.len().to_string()),
            "{path}"
        );
        assert_eq!(
            head.header("content-type"),
            get.header("content-type"),
            "{path}"
        );
        if path != "/api/openapi.json" {
            assert!(head.header("x-ratelimit-remaining").is_some(), "{path}");
        }
    }
    // Four keyed GETs and four keyed HEADs, plus the usage read itself.
    let after = usage(&s.get("/api/dashboard?action=usage", &key).await);
    assert_eq!(after - before, 9);
    // A HEAD is refused like the GET it stands for.
    let head = s.send("HEAD", "/api/health", &[], "").await;
    assert_eq!(head.status, 401);
    assert!(head.body.is_empty());
    s.stop().await;
}

/// Creates a link for `key` and returns (id, short code).
async fn link(s: &TestServer, key: &str) -> (String, String) {
    let created = s
        .send(
            "POST",
            "/api/links",
            &[("x-api-key", key)],
            json!({"name": "Poster", "targetUrl": "https://example.com/poster"}).to_string(),
        )
        .await;
    assert_eq!(created.status, 201);
    let v = created.json();
    (
        v["id"].as_str().unwrap().to_owned(),
        v["shortCode"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn an_analytics_window_from_year_1_is_bounded_by_the_links_age() {
    let s = TestServer::start(|_| {}).await;
    let (id, _) = link(&s, &s.owner_key).await;
    let r = s
        .get(
            &format!("/api/analytics?linkId={id}&startDate=0001-01-01"),
            &s.owner_key,
        )
        .await;
    assert_eq!(r.status, 200);
    // The link was made today: one day, not 739,943 zero-filled ones.
    assert_eq!(
        r.json()["analytics"]["scansByDay"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert!(r.body.len() < 2_000, "{} bytes", r.body.len());
    s.stop().await;
}

#[tokio::test]
async fn replays_and_programmatic_clients_are_redirected_but_not_all_counted() {
    let s = TestServer::start(|_| {}).await;
    let (id, code) = link(&s, &s.owner_key).await;
    let phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    for _ in 0..25 {
        let r = s
            .send("GET", &format!("/r/{code}"), &[("user-agent", phone)], "")
            .await;
        assert_eq!(r.status, 302);
    }
    for agent in [
        "Python-urllib/3.11",
        "node-fetch/1.0",
        "Java/17.0.9",
        "HTTPie/3.2.2",
    ] {
        let r = s
            .send("GET", &format!("/r/{code}"), &[("user-agent", agent)], "")
            .await;
        assert_eq!(r.status, 302, "{agent}");
    }
    let link = s
        .get(&format!("/api/links?id={id}"), &s.owner_key)
        .await
        .json();
    assert_eq!(
        link["scanCount"],
        u64::from(qr_domain::service::MAX_SCANS_PER_VISITOR_MINUTE)
    );
    s.stop().await;
}

#[tokio::test]
async fn repeated_failed_authentication_is_throttled_per_address_but_valid_keys_are_served() {
    let s = TestServer::start(|_| {}).await;
    // The owner's key is known to the server before the failures.
    assert_eq!(s.get("/api/health", &s.owner_key).await.status, 200);
    let wrong = "qrapi_live_00000000000000000000000000000000";
    for _ in 0..qr_domain::service::AUTH_FAILURE_BURST {
        let r = s.get("/api/health", wrong).await;
        r.assert_error(401, "Invalid API key");
        assert_eq!(r.header("retry-after"), None);
    }
    // Past the budget the address's failures are told to wait: 429 with `retryAfter`.
    let r = s.get("/api/health", wrong).await;
    r.assert_error(429, "Rate limit exceeded");
    let wait: u64 = r
        .header("retry-after")
        .expect("Retry-After once throttled")
        .parse()
        .unwrap();
    assert!((1..=3).contains(&wait), "{wait}");
    assert_eq!(r.json()["retryAfter"], json!(wait));
    // A request without a key costs no lookup: it keeps its plain 401, without a wait.
    let r = s.send("GET", "/api/health", &[], "").await;
    r.assert_error(401, "Invalid API key");
    assert_eq!(r.header("retry-after"), None);
    // Another account's key is regenerated (this used to empty the whole key cache) ...
    let (_, other, _) = s.account(Plan::Pro);
    s.handle.app().service().regenerate_key(other.id).unwrap();
    // ... and valid keys from the throttled address are served, retried too: the one the
    // server knew, and one it never saw.
    let (_, _, fresh) = s.account(Plan::Pro);
    for _ in 0..3 {
        for key in [&s.owner_key, &fresh] {
            let r = s.get("/api/health", key).await;
            assert_eq!(r.status, 200, "{}", r.text());
        }
    }
    // Serving them did not lift the wait for wrong keys.
    s.get("/api/health", wrong)
        .await
        .assert_error(429, "Rate limit exceeded");
    s.stop().await;
}
