//! Generation, batch, authentication, the 403 causes, rate limits, CORS and client addresses, over real HTTP.

use crate::common;

use common::{Resp, TestServer, at, decode_png, query, unzip};
use qr_domain::accounts::access::{IpRule, OriginPattern};
use qr_domain::chrono::Duration;
use qr_domain::{Endpoint, EnterpriseOverrides, KeySettings, Plan};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_png_and_svg_with_etag_and_rate_headers() {
    let s = TestServer::start(|_| {}).await;
    let path = format!("/api/generate?{}", query(&[("data", "hello world")]));
    let r = s.get(&path, &s.owner_key).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("image/png"));
    assert_eq!(decode_png(&r.body), "hello world");
    assert_eq!(r.header("x-ratelimit-limit"), Some("-1"));
    assert_eq!(r.header("x-ratelimit-remaining"), Some("-1"));
    assert_eq!(
        r.header("x-ratelimit-reset"),
        Some(at("2024-06-01T00:00:00Z").timestamp().to_string().as_str())
    );
    let etag = r.header("etag").unwrap().to_owned();
    let again = s
        .send(
            "GET",
            &path,
            &[("x-api-key", &s.owner_key), ("if-none-match", &etag)],
            "",
        )
        .await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    let other = s
        .send(
            "GET",
            &path,
            &[("x-api-key", &s.owner_key), ("if-none-match", "\"x\"")],
            "",
        )
        .await;
    assert_eq!(other.status, 200);

    let svg = s
        .get(
            &format!(
                "/api/generate?{}",
                query(&[
                    ("data", "x"),
                    ("format", "svg"),
                    ("size", "120"),
                    ("margin", "0")
                ])
            ),
            &s.owner_key,
        )
        .await;
    assert_eq!(svg.status, 200);
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    assert!(svg.text().contains("<svg"));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_reports_each_bad_parameter() {
    let s = TestServer::start(|_| {}).await;
    let cases: &[(&[(&str, &str)], &str)] = &[
        (&[], "data parameter required"),
        (&[("data", "")], "data parameter required"),
        (&[("data", "x"), ("size", "49")], "Invalid size"),
        (&[("data", "x"), ("size", "2001")], "Invalid size"),
        (&[("data", "x"), ("size", "big")], "Invalid size"),
        (&[("data", "x"), ("format", "gif")], "Invalid format"),
        (&[("data", "x"), ("color", "#000000")], "Invalid color"),
        (
            &[("data", "x"), ("background", "white")],
            "Invalid background",
        ),
        (
            &[("data", "x"), ("errorCorrection", "Z")],
            "Invalid errorCorrection",
        ),
        (&[("data", "x"), ("margin", "11")], "Invalid margin"),
        (&[("data", "x"), ("logoSize", "40")], "Invalid logoSize"),
    ];
    for (params, message) in cases {
        let r = s
            .get(&format!("/api/generate?{}", query(params)), &s.owner_key)
            .await;
        r.assert_error(400, message);
    }
    let long = "é".repeat(2000);
    s.get(
        &format!("/api/generate?{}", query(&[("data", &long)])),
        &s.owner_key,
    )
    .await
    .assert_error(
        400,
        "Data too long for error correction level M: at most 2331 bytes fit",
    );
    let too_many = "a".repeat(2954);
    s.get(
        &format!("/api/generate?{}", query(&[("data", &too_many)])),
        &s.owner_key,
    )
    .await
    .assert_error(400, "Data too long: 2954 characters, at most 2953 allowed");
    let r = s
        .get(
            &format!(
                "/api/generate?{}",
                query(&[("data", &"a".repeat(800)), ("size", "50")])
            ),
            &s.owner_key,
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Size too small for this code: use a size of at least "),
        "{}",
        r.text()
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn styled_codes_scan_or_are_refused() {
    let s = TestServer::start(|_| {}).await;
    let styled = [
        ("data", "https://qr.example.com/r/7K3M9QXZ"),
        ("style", "rounded"),
        ("finderStyle", "circle"),
        ("frame", "banner-bottom"),
        ("frameText", "SCAN ME"),
        ("verify", "true"),
    ];
    for (format, content_type) in [
        ("png", "image/png"),
        ("svg", "image/svg+xml"),
        ("pdf", "application/pdf"),
        ("eps", "application/postscript"),
    ] {
        let mut params = styled.to_vec();
        params.push(("format", format));
        let r = s
            .get(&format!("/api/generate?{}", query(&params)), &s.owner_key)
            .await;
        assert_eq!(r.status, 200, "{format}: {}", r.text());
        assert_eq!(r.header("content-type"), Some(content_type), "{format}");
    }
    let png = s
        .get(&format!("/api/generate?{}", query(&styled)), &s.owner_key)
        .await;
    assert_eq!(
        qr_test_support::decode_image(&png.body),
        "https://qr.example.com/r/7K3M9QXZ"
    );
    // Every image must scan: a pale colour is refused even without any style.
    s.get(
        &format!("/api/generate?{}", query(&[("data", "x"), ("color", "cccccc")])),
        &s.owner_key,
    )
    .await
    .assert_error(
        400,
        "Contrast too low: color on the background is 1.60:1, at least 3:1 is needed for the code to scan",
    );
    // 100 px hold 29 modules at 3 px each; dots need 4, so 116 px.
    s.get(
        &format!(
            "/api/generate?{}",
            query(&[("data", "x"), ("style", "dots"), ("size", "100")])
        ),
        &s.owner_key,
    )
    .await
    .assert_error(
        400,
        "Size too small for this style: 3 pixels per module, at least 4 are needed; use a size of at least 116",
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_ways_to_send_a_key_and_their_precedence() {
    let s = TestServer::start(|_| {}).await;
    let good = s.owner_key.clone();
    let bad = format!("qrapi_live_{}", "A".repeat(32));
    let path = "/api/health";
    let with_query = format!("{path}?api_key={good}");
    let bearer = format!("Bearer {good}");
    let bad_bearer = format!("Bearer {bad}");
    let ok = |r: Resp| assert_eq!(r.status, 200, "{}", r.text());
    s.send("GET", path, &[], "")
        .await
        .assert_error(401, "Invalid API key");
    ok(s.send("GET", path, &[("authorization", &bearer)], "").await);
    ok(s.send("GET", path, &[("x-api-key", &good)], "").await);
    ok(s.send("GET", &with_query, &[], "").await);
    // Authorization: Bearer wins over X-API-Key, which wins over api_key.
    s.send(
        "GET",
        path,
        &[("authorization", &bad_bearer), ("x-api-key", &good)],
        "",
    )
    .await
    .assert_error(401, "Invalid API key");
    ok(s.send(
        "GET",
        path,
        &[("authorization", &bearer), ("x-api-key", &bad)],
        "",
    )
    .await);
    s.send("GET", &with_query, &[("x-api-key", &bad)], "")
        .await
        .assert_error(401, "Invalid API key");
    // A non-Bearer Authorization header is not an API key.
    ok(s.send(
        "GET",
        path,
        &[
            ("authorization", "Basic dXNlcjpwdw=="),
            ("x-api-key", &good),
        ],
        "",
    )
    .await);
    s.send("GET", path, &[("x-api-key", "not-a-key")], "")
        .await
        .assert_error(401, "Invalid API key");
    let r = s.send("GET", path, &[("x-api-key", &bad)], "").await;
    r.assert_error(401, "Invalid API key");
    assert!(r.header("x-ratelimit-limit").is_none());
    let health = s.get(path, &good).await.json();
    assert_eq!(health["status"], "ok");
    assert_eq!(health["database"], "ok");
    assert_eq!(health["version"], env!("CARGO_PKG_VERSION"));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_cause_of_403() {
    let s = TestServer::start(|_| {}).await;
    let svc = s.handle.app().service().clone();
    let generate = format!("/api/generate?{}", query(&[("data", "x")]));
    const NOT_AUTHORIZED: &str = "API key not authorized for this endpoint";

    // An endpoint disabled in the key's settings.
    let (_, key, secret) = s.account(Plan::Pro);
    let mut settings = KeySettings::default();
    settings.disabled_endpoints.insert(Endpoint::Generate);
    svc.update_key_settings(key.id, settings).unwrap();
    let r = s.get(&generate, &secret).await;
    r.assert_error(403, NOT_AUTHORIZED);
    assert_eq!(r.header("x-ratelimit-limit"), Some("100000"));
    assert_eq!(
        r.header("x-ratelimit-remaining"),
        Some("100000"),
        "403s are not counted"
    );
    assert_eq!(s.get("/api/health", &secret).await.status, 200);

    // The IP allowlist (the client is 127.0.0.1).
    let (_, key, secret) = s.account(Plan::Pro);
    let settings = KeySettings {
        ip_allowlist: vec![IpRule::parse("203.0.113.0/24").unwrap()],
        ..KeySettings::default()
    };
    svc.update_key_settings(key.id, settings).unwrap();
    s.get(&generate, &secret)
        .await
        .assert_error(403, NOT_AUTHORIZED);

    // The allowed origins.
    let (_, key, secret) = s.account(Plan::Pro);
    let settings = KeySettings {
        allowed_origins: vec![OriginPattern::parse("*.example.com").unwrap()],
        ..KeySettings::default()
    };
    svc.update_key_settings(key.id, settings).unwrap();
    let r = s
        .send(
            "GET",
            &generate,
            &[("x-api-key", &secret), ("origin", "https://evil.test")],
            "",
        )
        .await;
    r.assert_error(403, NOT_AUTHORIZED);
    assert!(r.header("access-control-allow-origin").is_none());
    let r = s
        .send(
            "GET",
            &generate,
            &[
                ("x-api-key", &secret),
                ("origin", "https://app.example.com"),
            ],
            "",
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );
    assert!(
        r.header("access-control-expose-headers")
            .unwrap()
            .contains("X-RateLimit-Remaining")
    );
    // Without an Origin header the request is not a browser's and passes.
    assert_eq!(s.get(&generate, &secret).await.status, 200);

    // Plan features: a logo and batch below Pro. The 403 comes before any validation.
    let (_, _, free) = s.account(Plan::Free);
    let logo = format!(
        "/api/generate?{}",
        query(&[("data", "x"), ("logo", "http://127.0.0.1:9/logo.png")])
    );
    s.get(&logo, &free).await.assert_error(403, NOT_AUTHORIZED);
    let (_, _, starter) = s.account(Plan::Starter);
    s.send("POST", "/api/batch", &[("x-api-key", &starter)], "not json")
        .await
        .assert_error(403, "Batch generation requires Pro plan");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_second_limit_gives_429_before_validation() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, free) = s.account(Plan::Free);
    let generate = format!("/api/generate?{}", query(&[("data", "x")]));
    // The test clock stands still, so the free plan's 2 requests per second are used up at once.
    assert_eq!(s.get(&generate, &free).await.status, 200);
    let second = s.get(&generate, &free).await;
    assert_eq!(second.status, 200);
    assert_eq!(second.header("x-ratelimit-limit"), Some("1000"));
    assert_eq!(second.header("x-ratelimit-remaining"), Some("998"));
    let r = s.get("/api/generate", &free).await;
    r.assert_error(429, "Rate limit exceeded");
    assert_eq!(r.json()["retryAfter"], json!(1));
    assert_eq!(r.header("retry-after"), Some("1"));
    assert_eq!(r.header("x-ratelimit-remaining"), Some("998"));
    s.clock.advance(Duration::seconds(1));
    s.get("/api/generate", &free)
        .await
        .assert_error(400, "data parameter required");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn monthly_quota_and_month_rollover() {
    let s = TestServer::start(|_| {}).await;
    let (account, _, key) = s.account(Plan::Enterprise);
    let svc = s.handle.app().service().clone();
    svc.set_overrides(
        account,
        EnterpriseOverrides {
            monthly_requests: Some(2),
            ..EnterpriseOverrides::default()
        },
    )
    .unwrap();
    s.clock.set(at("2024-05-31T23:59:00Z"));
    assert_eq!(s.get("/api/health", &key).await.status, 200);
    let r = s.get("/api/dashboard?action=usage", &key).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json(),
        json!({"plan": "enterprise", "usage": {"current": 2, "limit": 2, "resetDate": "2024-06-01T00:00:00Z"}})
    );
    assert_eq!(r.header("x-ratelimit-remaining"), Some("0"));
    let r = s.get("/api/health", &key).await;
    r.assert_error(429, "Rate limit exceeded");
    assert_eq!(r.json()["retryAfter"], json!(60));
    assert_eq!(r.header("retry-after"), Some("60"));
    s.clock.set(at("2024-06-01T00:00:00Z"));
    let r = s.get("/api/health", &key).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("x-ratelimit-remaining"), Some("1"));
    assert_eq!(
        r.header("x-ratelimit-reset"),
        Some(at("2024-07-01T00:00:00Z").timestamp().to_string().as_str())
    );
    let usage = s.get("/api/dashboard?action=usage", &key).await.json();
    assert_eq!(usage["usage"]["current"], json!(2));
    assert_eq!(usage["usage"]["resetDate"], json!("2024-07-01T00:00:00Z"));
    s.get("/api/dashboard?action=usage", &key)
        .await
        .assert_error(429, "Rate limit exceeded");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_actions() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Starter);
    let usage = s.get("/api/dashboard?action=usage", &key).await.json();
    assert_eq!(usage["plan"], "starter");
    assert_eq!(usage["usage"]["limit"], json!(10000));
    assert_eq!(usage["usage"]["current"], json!(1));
    s.get("/api/dashboard", &key)
        .await
        .assert_error(400, "action parameter required");
    s.get("/api/dashboard?action=stats", &key)
        .await
        .assert_error(400, "Invalid action: the only action is usage");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_with_failing_items() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, pro) = s.account(Plan::Pro);
    let body = json!({
        "items": [
            {"data": "https://example.com/menu", "filename": "../menu"},
            {"data": "second"},
            {"data": "too small", "size": 10},
            {"filename": "nodata"},
            {"data": "vector", "format": "svg"},
            {"data": "third", "filename": "menu.png"}
        ],
        "defaults": {"size": 200, "errorCorrection": "Q"}
    });
    let r = s
        .send(
            "POST",
            "/api/batch",
            &[("authorization", &format!("Bearer {pro}"))],
            body.to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/zip"));
    assert_eq!(
        r.header("content-disposition"),
        Some("attachment; filename=qrcodes.zip")
    );
    let files = unzip(&r.body);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "_menu.png",
            "qr-002.png",
            "qr-005.svg",
            "menu.png",
            "errors.json"
        ]
    );
    assert_eq!(decode_png(&files[0].1), "https://example.com/menu");
    assert_eq!(decode_png(&files[1].1), "second");
    assert_eq!(decode_png(&files[3].1), "third");
    assert!(String::from_utf8_lossy(&files[2].1).contains("<svg"));
    let errors: Value = serde_json::from_slice(&files[4].1).unwrap();
    assert_eq!(
        errors,
        json!({"errors": [
            {"index": 2, "data": "too small", "error": "Invalid size"},
            {"index": 3, "data": "", "error": "data parameter required"}
        ]})
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_request_errors() {
    let s = TestServer::start(|c| c.limits.max_batch_body_bytes = 8 * 1024).await;
    let (_, _, pro) = s.account(Plan::Pro);
    let post = |body: String| {
        let pro = pro.clone();
        let s = &s;
        async move {
            s.send("POST", "/api/batch", &[("x-api-key", &pro)], body)
                .await
        }
    };
    post("{}".into())
        .await
        .assert_error(400, "items array required");
    post(r#"{"items":[]}"#.into())
        .await
        .assert_error(400, "items array required");
    let r = post("not json".into()).await;
    assert_eq!(r.status, 400);
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid JSON body: ")
    );
    let items: Vec<Value> = (0..101).map(|i| json!({"data": i.to_string()})).collect();
    post(json!({ "items": items }).to_string())
        .await
        .assert_error(400, "Maximum 100 items allowed");
    post(json!({"items": [{"data": "x"}], "defaults": {"format": "gif"}}).to_string())
        .await
        .assert_error(400, "Invalid defaults.format");
    let big = json!({"items": [{"data": "x".repeat(20_000)}]}).to_string();
    post(big)
        .await
        .assert_error(413, "Request body too large: at most 8192 bytes allowed");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_preflight_needs_no_key() {
    let s = TestServer::start(|_| {}).await;
    let r = s
        .send(
            "OPTIONS",
            "/api/links",
            &[
                ("origin", "https://app.example.com"),
                ("access-control-request-method", "POST"),
                (
                    "access-control-request-headers",
                    "authorization, content-type",
                ),
            ],
            "",
        )
        .await;
    assert_eq!(r.status, 204);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );
    assert_eq!(
        r.header("access-control-allow-methods"),
        Some("GET, HEAD, POST, PUT, DELETE")
    );
    let allowed = r.header("access-control-allow-headers").unwrap();
    assert!(allowed.contains("Authorization") && allowed.contains("X-API-Key"));
    assert!(r.header("x-ratelimit-limit").is_none());
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ip_allowlist_behind_a_trusted_proxy() {
    let s = TestServer::start(|c| c.trusted_proxies = vec!["127.0.0.1/32".into()]).await;
    let (_, key, secret) = s.account(Plan::Pro);
    let settings = KeySettings {
        ip_allowlist: vec![IpRule::parse("81.2.69.0/24").unwrap()],
        ..KeySettings::default()
    };
    s.handle
        .app()
        .service()
        .update_key_settings(key.id, settings)
        .unwrap();
    let call = |xff: &'static str| {
        let secret = secret.clone();
        let s = &s;
        async move {
            let mut headers = vec![("x-api-key", secret.as_str())];
            if !xff.is_empty() {
                headers.push(("x-forwarded-for", xff));
            }
            s.send("GET", "/api/health", &headers, "").await.status
        }
    };
    assert_eq!(call("81.2.69.142").await, 200);
    assert_eq!(call("6.6.6.6, 81.2.69.142").await, 200);
    assert_eq!(
        call("81.2.69.142, 127.0.0.1").await,
        200,
        "trusted hops are skipped"
    );
    assert_eq!(
        call("81.2.69.142, 6.6.6.6").await,
        403,
        "the right-most untrusted address counts"
    );
    assert_eq!(
        call("").await,
        403,
        "without the header the proxy itself is the client"
    );
    assert_eq!(call("junk").await, 403, "an unreadable chain fails closed");
    s.stop().await;

    // Without trusted proxies, X-Forwarded-For is ignored.
    let s = TestServer::start(|_| {}).await;
    let (_, key, secret) = s.account(Plan::Pro);
    let settings = KeySettings {
        ip_allowlist: vec![IpRule::parse("81.2.69.0/24").unwrap()],
        ..KeySettings::default()
    };
    s.handle
        .app()
        .service()
        .update_key_settings(key.id, settings)
        .unwrap();
    let r = s
        .send(
            "GET",
            "/api/health",
            &[("x-api-key", &secret), ("x-forwarded-for", "81.2.69.142")],
            "",
        )
        .await;
    assert_eq!(r.status, 403);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_paths_and_wrong_methods() {
    let s = TestServer::start(|_| {}).await;
    s.get("/api/nothing", &s.owner_key)
        .await
        .assert_error(404, "Not found");
    // `/` is the dashboard's landing page; other paths outside the API are not found.
    s.send("GET", "/elsewhere", &[], "")
        .await
        .assert_error(404, "Not found");
    s.send("GET", "/api/generate/", &[], "")
        .await
        .assert_error(404, "Not found");
    let r = s
        .send(
            "DELETE",
            "/api/generate",
            &[("x-api-key", &s.owner_key)],
            "",
        )
        .await;
    r.assert_error(405, "Method not allowed");
    assert_eq!(r.header("allow"), Some("GET, HEAD, OPTIONS"));
    let r = s.send("GET", "/api/batch", &[], "").await;
    r.assert_error(405, "Method not allowed");
    assert_eq!(r.header("allow"), Some("POST, OPTIONS"));
    // POST is the password form's (issue 14): an unknown code is the not-found page.
    let r = s.send("POST", "/r/ABCDEFGH", &[], "").await;
    assert_eq!(r.status, 404);
    let r = s.send("PUT", "/r/ABCDEFGH", &[], "").await;
    r.assert_error(405, "Method not allowed");
    assert_eq!(r.header("allow"), Some("GET, HEAD, POST"));
    s.stop().await;
}
