//! Links' campaign fields over real HTTP: every field on POST and PUT with its bounds, plans and conflicts; the password form; paused, scheduled and capped links; rules by User-Agent, Accept-Language and country; sticky variants; UTM and forwarded queries; listing with search, tag and cursors.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::{Resp, TestServer, geoip_db};
use qr_domain::Plan;
use serde_json::{Value, json};

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const ANDROID: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const DESKTOP: &str =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0";

async fn post(s: &TestServer, key: &str, body: Value) -> Resp {
    s.send(
        "POST",
        "/api/links",
        &[("x-api-key", key), ("content-type", "application/json")],
        body.to_string(),
    )
    .await
}

async fn put(s: &TestServer, key: &str, id: &str, body: Value) -> Resp {
    s.send(
        "PUT",
        &format!("/api/links?id={id}"),
        &[("x-api-key", key), ("content-type", "application/json")],
        body.to_string(),
    )
    .await
}

/// Creates a link with `extra` fields and returns it.
async fn link(s: &TestServer, key: &str, extra: Value) -> Value {
    let mut body = json!({"name": "Campaign", "targetUrl": "https://example.com/landing"});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let r = post(s, key, body).await;
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

async fn visit(s: &TestServer, code: &str, headers: &[(&str, &str)]) -> Resp {
    s.send("GET", &format!("/r/{code}"), headers, "").await
}

fn code(link: &Value) -> String {
    link["shortCode"].as_str().unwrap().to_owned()
}

async fn scan_count(s: &TestServer, key: &str, link: &Value) -> u64 {
    let r = s
        .get(
            &format!("/api/links?id={}", link["id"].as_str().unwrap()),
            key,
        )
        .await;
    r.json()["scanCount"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_field_is_returned_updated_and_cleared() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Pro);
    // A link without the new fields has every one at its default.
    let plain = link(&s, &key, json!({})).await;
    for (field, default) in [
        ("tags", json!([])),
        ("validFrom", Value::Null),
        ("validUntil", Value::Null),
        ("maxScans", Value::Null),
        ("expiredUrl", Value::Null),
        ("disabled", json!(false)),
        ("hasPassword", json!(false)),
        ("rules", json!([])),
        ("variants", json!([])),
        ("utm", Value::Null),
        ("forwardQuery", json!(false)),
    ] {
        assert_eq!(plain[field], default, "{field}");
    }
    assert_eq!(plain["shortCode"].as_str().unwrap().len(), 8);
    let full = link(
        &s,
        &key,
        json!({
            "shortCode": "Spring-Sale",
            "tags": ["spring", "print"],
            "validFrom": "2024-05-01T00:00:00Z",
            "validUntil": "2024-06-01T00:00:00Z",
            "maxScans": 1000,
            "expiredUrl": "https://example.com/over",
            "password": "open sesame",
            "rules": [{"when": {"device": "mobile", "os": "ios"}, "targetUrl": "https://apps.example/ios"}],
            "variants": [{"targetUrl": "https://a.example/", "weight": 1}, {"targetUrl": "https://b.example/", "weight": 3}],
            "utm": {"source": "poster", "medium": "print"},
            "forwardQuery": true
        }),
    )
    .await;
    assert_eq!(full["shortCode"], "Spring-Sale");
    assert!(
        full["shortUrl"]
            .as_str()
            .unwrap()
            .ends_with("/r/Spring-Sale")
    );
    assert_eq!(full["tags"], json!(["spring", "print"]));
    assert_eq!(full["validFrom"], "2024-05-01T00:00:00Z");
    assert_eq!(full["validUntil"], "2024-06-01T00:00:00Z");
    assert_eq!(full["maxScans"], 1000);
    assert_eq!(full["expiredUrl"], "https://example.com/over");
    assert_eq!(full["hasPassword"], true);
    assert!(full.get("password").is_none(), "the password is write-only");
    assert!(!full.to_string().contains("argon2"), "no hash either");
    assert_eq!(
        full["rules"],
        json!([{"when": {"device": "mobile", "os": "ios"}, "targetUrl": "https://apps.example/ios"}])
    );
    assert_eq!(
        full["variants"][1],
        json!({"targetUrl": "https://b.example/", "weight": 3})
    );
    assert_eq!(full["utm"], json!({"source": "poster", "medium": "print"}));
    assert_eq!(full["forwardQuery"], true);
    let id = full["id"].as_str().unwrap();
    let got = s.get(&format!("/api/links?id={id}"), &key).await.json();
    assert_eq!(got, full);
    // Only the fields given change; null and [] clear.
    let r = put(
        &s,
        &key,
        id,
        json!({"tags": [], "password": null, "rules": [], "validUntil": null, "utm": null, "disabled": true}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["tags"], json!([]));
    assert_eq!(v["hasPassword"], false);
    assert_eq!(v["rules"], json!([]));
    assert_eq!(v["validUntil"], Value::Null);
    assert_eq!(v["utm"], Value::Null);
    assert_eq!(v["disabled"], true);
    assert_eq!(v["maxScans"], 1000);
    assert_eq!(v["variants"].as_array().unwrap().len(), 2);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bounds_are_400_with_the_field_named() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Pro);
    let base = |extra: Value| {
        let mut body = json!({"name": "L", "targetUrl": "https://example.com"});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let rule = json!({"when": {"country": "DE"}, "targetUrl": "https://de.example"});
    let variant = json!({"targetUrl": "https://a.example", "weight": 1});
    let long_url = format!("https://example.com/{}", "a".repeat(2100));
    let tags: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    for (extra, message) in [
        (
            json!({"tags": tags}),
            "Invalid tags: at most 20 tags are allowed (got 21)",
        ),
        (
            json!({"tags": ["x".repeat(51)]}),
            "Invalid tags[0]: a tag must have 1 to 50 characters (got 51)",
        ),
        (
            json!({"tags": "spring"}),
            "Invalid tags: it must be an array of strings",
        ),
        (
            json!({"rules": vec![rule.clone(); 21]}),
            "Invalid rules: at most 20 rules are allowed (got 21)",
        ),
        (
            json!({"variants": vec![variant.clone(); 11]}),
            "Invalid variants: a split has 2 to 10 variants (got 11); [] removes it",
        ),
        (
            json!({"rules": [{"when": {"os": "beos"}, "targetUrl": "https://x.example"}]}),
            "Invalid rules[0].when.os: it must be one of ios, android, windows, macos, linux, chromeos",
        ),
        (
            json!({"rules": [{"when": {"device": "mobile"}, "targetUrl": "javascript:alert(1)"}]}),
            "Invalid rules[0].targetUrl: the URL must not use javascript: it runs script in the page that opens it",
        ),
        (
            json!({"variants": [variant.clone(), {"targetUrl": "ftp://b.example/", "weight": 1}]}),
            "Invalid variants[1].targetUrl: the URL must use http or https, not ftp",
        ),
        (
            json!({"variants": [variant.clone(), {"targetUrl": "https://b.example", "weight": 1001}]}),
            "Invalid variants[1].weight: it must be an integer from 1 to 1000",
        ),
        (
            json!({"expiredUrl": long_url}),
            "Invalid expiredUrl: the URL must be at most 2048 characters (got 2120)",
        ),
        (
            json!({"validFrom": "tomorrow"}),
            "Invalid validFrom: it must be an ISO 8601 UTC timestamp such as 2025-06-01T00:00:00Z",
        ),
        (
            json!({"validFrom": "2024-06-01T00:00:00Z", "validUntil": "2024-05-01T00:00:00Z"}),
            "Invalid validUntil: it must be after validFrom",
        ),
        (
            json!({"maxScans": -1}),
            "Invalid maxScans: it must be an integer from 1 to 1000000000000",
        ),
        (
            json!({"maxScans": 1.5}),
            "Invalid maxScans: it must be an integer from 1 to 1000000000000",
        ),
        (
            json!({"disabled": "yes"}),
            "Invalid disabled: it must be true or false",
        ),
        (
            json!({"password": "abc"}),
            "Invalid password: it must have 4 to 128 characters (got 3)",
        ),
        (
            json!({"utm": {"source": "x".repeat(201)}}),
            "Invalid utm.source: it must have 1 to 200 characters (got 201)",
        ),
        (
            json!({"utm": {"sorce": "x"}}),
            "Invalid utm: unknown member \"sorce\"; expected source, medium, campaign, term, content",
        ),
        (
            json!({"shortCode": "ab"}),
            "Invalid shortCode: it must be 3 to 64 characters of letters A-Z, digits, - and _",
        ),
        (
            json!({"shortCode": "with space"}),
            "Invalid shortCode: it must be 3 to 64 characters of letters A-Z, digits, - and _",
        ),
        (
            json!({"shortCode": "API"}),
            "Invalid shortCode: \"api\" is reserved; choose another code",
        ),
        (
            json!({"shortCode": 7}),
            "Invalid shortCode: it must be a string",
        ),
    ] {
        post(&s, &key, base(extra.clone()))
            .await
            .assert_error(400, message);
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_gate_fields_and_codes_are_unique_for_ever() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, free) = s.account(Plan::Free);
    let (_, _, starter) = s.account(Plan::Starter);
    let (_, _, pro) = s.account(Plan::Pro);
    let body = |extra: Value| {
        let mut body = json!({"name": "L", "targetUrl": "https://example.com"});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    // Free allows 2 requests a second: the test clock moves on between them.
    s.clock.advance(qr_domain::chrono::Duration::seconds(1));
    post(&s, &free, body(json!({"shortCode": "mine"})))
        .await
        .assert_error(403, "shortCode requires Starter plan");
    s.clock.advance(qr_domain::chrono::Duration::seconds(1));
    post(
        &s,
        &free,
        body(json!({"validUntil": "2030-01-01T00:00:00Z"})),
    )
    .await
    .assert_error(403, "validUntil requires Starter plan");
    post(&s, &starter, body(json!({"password": "open sesame"})))
        .await
        .assert_error(403, "password requires Pro plan");
    post(&s, &starter, body(json!({"variants": [
        {"targetUrl": "https://a.example", "weight": 1}, {"targetUrl": "https://b.example", "weight": 1}
    ]})))
    .await
    .assert_error(403, "variants requires Pro plan");
    // Free keeps tags, pausing, UTM and query forwarding.
    s.clock.advance(qr_domain::chrono::Duration::seconds(1));
    let r = post(
        &s,
        &free,
        body(
            json!({"tags": ["a"], "disabled": false, "utm": {"source": "x"}, "forwardQuery": true}),
        ),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    // A code is unique without regard to case, and never reissued.
    let taken = post(&s, &starter, body(json!({"shortCode": "Summer"}))).await;
    assert_eq!(taken.status, 201);
    post(&s, &pro, body(json!({"shortCode": "SUMMER"})))
        .await
        .assert_error(409, "shortCode SUMMER is already taken; choose another");
    let id = taken.json()["id"].as_str().unwrap().to_owned();
    let r = s
        .send(
            "DELETE",
            &format!("/api/links?id={id}"),
            &[("x-api-key", &starter)],
            "",
        )
        .await;
    assert_eq!(r.status, 204);
    post(&s, &pro, body(json!({"shortCode": "summer"})))
        .await
        .assert_error(409, "shortCode summer is already taken; choose another");
    assert_eq!(visit(&s, "SUMMER", &[]).await.status, 410);
    // A custom code redirects in any case; changing it retires the old one (410).
    let mine = link(&s, &pro, json!({"shortCode": "Autumn_2024"})).await;
    let r = visit(&s, "autumn_2024", &[]).await;
    assert_eq!(
        (r.status, r.header("location")),
        (302, Some("https://example.com/landing"))
    );
    let id = mine["id"].as_str().unwrap();
    let r = put(&s, &pro, id, json!({"shortCode": "winter"})).await;
    assert_eq!(r.json()["shortCode"], "winter");
    assert_eq!(visit(&s, "Autumn_2024", &[]).await.status, 410);
    assert_eq!(visit(&s, "winter", &[]).await.status, 302);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_password_form_redirects_once_and_throttles_guesses() {
    let s = TestServer::start(|c| c.trusted_proxies = vec!["127.0.0.0/8".into()]).await;
    let (_, _, key) = s.account(Plan::Pro);
    let l = link(
        &s,
        &key,
        json!({"password": "open sesame", "forwardQuery": true}),
    )
    .await;
    let path = format!("/r/{}?table=4", code(&l));
    let form = s
        .send("GET", &path, &[("x-forwarded-for", "192.0.2.1")], "")
        .await;
    assert_eq!(form.status, 200);
    assert_eq!(
        form.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(form.header("cache-control"), Some("no-store"));
    assert!(
        form.header("content-security-policy")
            .unwrap()
            .contains("form-action 'self'")
    );
    let html = form.text();
    assert!(html.contains("<form method=\"post\">"), "{html}");
    assert!(
        html.contains("name=\"password\" type=\"password\""),
        "{html}"
    );
    let send = |ip: &'static str, password: &'static str| {
        let path = path.clone();
        let s = &s;
        async move {
            s.send(
                "POST",
                &path,
                &[
                    ("x-forwarded-for", ip),
                    ("content-type", "application/x-www-form-urlencoded"),
                ],
                format!("password={}", password.replace(' ', "+")),
            )
            .await
        }
    };
    for _ in 0..qr_domain::service::LINK_PASSWORD_BURST {
        let r = send("192.0.2.1", "guess").await;
        assert_eq!(r.status, 403);
        assert!(
            r.text().contains("The password is not correct"),
            "{}",
            r.text()
        );
        assert!(r.text().contains("<form method=\"post\">"));
    }
    let r = send("192.0.2.1", "open sesame").await;
    assert_eq!(r.status, 429, "throttled whatever the password");
    assert!(r.header("retry-after").is_some());
    assert!(
        r.text().contains("Too many wrong passwords"),
        "{}",
        r.text()
    );
    assert_eq!(scan_count(&s, &key, &l).await, 0, "nothing recorded yet");
    // Another client with the right password: redirected (the query forwarded), counted once.
    let r = send("192.0.2.2", "open sesame").await;
    assert_eq!(r.status, 303, "{}", r.text());
    assert_eq!(
        r.header("location"),
        Some("https://example.com/landing?table=4")
    );
    assert_eq!(scan_count(&s, &key, &l).await, 1);
    // The GET still asks, and records nothing.
    assert_eq!(s.send("GET", &path, &[], "").await.status, 200);
    assert_eq!(scan_count(&s, &key, &l).await, 1);
    // A POST to a link without a password opens it like a GET, with 303.
    let plain = link(&s, &key, json!({})).await;
    let r = s
        .send("POST", &format!("/r/{}", code(&plain)), &[], "")
        .await;
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("https://example.com/landing"))
    );
    // A POST to an ended link with an expiredUrl is sent there with 303 too (the browser
    // follows with a GET), as the OpenAPI document says.
    let ended = link(
        &s,
        &key,
        json!({"validUntil": "2024-01-01T00:00:00Z", "expiredUrl": "https://example.com/over"}),
    )
    .await;
    let r = s
        .send("POST", &format!("/r/{}", code(&ended)), &[], "")
        .await;
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("https://example.com/over"))
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paused_scheduled_and_capped_links_answer_their_pages() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Pro);
    // The test clock reads 2024-05-15T12:00:00Z.
    let paused = link(&s, &key, json!({"disabled": true})).await;
    let r = visit(&s, &code(&paused), &[]).await;
    assert_eq!(r.status, 404);
    assert!(r.text().contains("Link paused"), "{}", r.text());
    assert_eq!(scan_count(&s, &key, &paused).await, 0);
    let early = link(&s, &key, json!({"validFrom": "2024-06-01T00:00:00Z"})).await;
    let r = visit(&s, &code(&early), &[]).await;
    assert_eq!(r.status, 404);
    assert!(r.text().contains("Link not active yet"));
    let over = link(&s, &key, json!({"validUntil": "2024-05-15T12:00:00Z"})).await;
    let r = visit(&s, &code(&over), &[]).await;
    assert_eq!(r.status, 410);
    assert!(r.text().contains("Link expired"));
    let elsewhere = link(
        &s,
        &key,
        json!({"validUntil": "2024-05-01T00:00:00Z", "expiredUrl": "https://example.com/sold-out"}),
    )
    .await;
    let r = visit(&s, &code(&elsewhere), &[]).await;
    assert_eq!(
        (r.status, r.header("location")),
        (302, Some("https://example.com/sold-out"))
    );
    assert_eq!(scan_count(&s, &key, &elsewhere).await, 0);
    // Two scans, then expired: each from its own visitor, the second from memory.
    let capped = link(&s, &key, json!({"maxScans": 2})).await;
    for ua in [IPHONE, ANDROID] {
        assert_eq!(
            visit(&s, &code(&capped), &[("user-agent", ua)])
                .await
                .status,
            302
        );
    }
    assert_eq!(
        visit(&s, &code(&capped), &[("user-agent", DESKTOP)])
            .await
            .status,
        410
    );
    assert_eq!(scan_count(&s, &key, &capped).await, 2);
    // Unpaused, the link redirects again.
    let id = paused["id"].as_str().unwrap();
    assert_eq!(
        put(&s, &key, id, json!({"disabled": false})).await.status,
        200
    );
    assert_eq!(visit(&s, &code(&paused), &[]).await.status, 302);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_follow_user_agent_language_and_country() {
    let s = TestServer::start(|c| {
        c.geoip = Some(geoip_db());
        c.trusted_proxies = vec!["127.0.0.0/8".into()];
    })
    .await;
    let (_, _, key) = s.account(Plan::Pro);
    let l = link(
        &s,
        &key,
        json!({"rules": [
            {"when": {"os": "ios"}, "targetUrl": "https://apps.apple.example/app"},
            {"when": {"os": "android", "language": "de"}, "targetUrl": "https://play.example/de"},
            {"when": {"country": "GB"}, "targetUrl": "https://example.co.uk/"}
        ]}),
    )
    .await;
    let c = code(&l);
    let cases: [(&[(&str, &str)], &str); 5] = [
        (&[("user-agent", IPHONE)], "https://apps.apple.example/app"),
        (
            &[
                ("user-agent", ANDROID),
                ("accept-language", "de-DE,de;q=0.9,en;q=0.8"),
            ],
            "https://play.example/de",
        ),
        (
            &[
                ("user-agent", ANDROID),
                ("accept-language", "en-US,de;q=0.5"),
            ],
            "https://example.com/landing",
        ),
        (
            &[("user-agent", DESKTOP), ("x-forwarded-for", "81.2.69.142")],
            "https://example.co.uk/",
        ),
        (
            &[
                ("user-agent", DESKTOP),
                ("x-forwarded-for", "216.160.83.56"),
            ],
            "https://example.com/landing",
        ),
    ];
    for (headers, target) in cases {
        // Twice: from the store, then from memory.
        for _ in 0..2 {
            let r = visit(&s, &c, headers).await;
            assert_eq!(
                (r.status, r.header("location")),
                (302, Some(target)),
                "{headers:?}"
            );
        }
    }
    let a = s
        .get(
            &format!("/api/analytics?linkId={}", l["id"].as_str().unwrap()),
            &key,
        )
        .await
        .json();
    let rules: BTreeMap<String, usize> =
        a["recentScans"]
            .as_array()
            .unwrap()
            .iter()
            .fold(BTreeMap::new(), |mut m, scan| {
                *m.entry(scan["rule"].to_string()).or_default() += 1;
                m
            });
    assert_eq!(
        rules,
        BTreeMap::from([
            ("0".into(), 2),
            ("1".into(), 2),
            ("2".into(), 2),
            ("null".into(), 4)
        ])
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn variants_split_visitors_and_stick_for_the_day() {
    let s = TestServer::start(|c| c.trusted_proxies = vec!["127.0.0.0/8".into()]).await;
    let (_, _, key) = s.account(Plan::Pro);
    let l = link(
        &s,
        &key,
        json!({"variants": [
            {"targetUrl": "https://a.example/", "weight": 1},
            {"targetUrl": "https://b.example/", "weight": 1}
        ]}),
    )
    .await;
    let c = code(&l);
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    for i in 0..40 {
        let ip = format!("198.51.100.{i}");
        let first = visit(&s, &c, &[("x-forwarded-for", &ip)]).await;
        let again = visit(&s, &c, &[("x-forwarded-for", &ip)]).await;
        let target = first.header("location").unwrap().to_owned();
        assert_eq!(
            again.header("location"),
            Some(target.as_str()),
            "sticky for {ip}"
        );
        *counts.entry(target).or_default() += 1;
    }
    assert_eq!(counts.len(), 2, "{counts:?}");
    assert!(
        counts.values().all(|n| *n >= 8),
        "an even split: {counts:?}"
    );
    let a = s
        .get(
            &format!(
                "/api/analytics?linkId={}&limit=1000",
                l["id"].as_str().unwrap()
            ),
            &key,
        )
        .await
        .json();
    let variants: BTreeSet<String> = a["recentScans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|scan| scan["variant"].to_string())
        .collect();
    assert_eq!(variants, BTreeSet::from(["0".to_owned(), "1".to_owned()]));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn utm_and_the_scan_query_are_added_once() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Free);
    let l = link(
        &s,
        &key,
        json!({"targetUrl": "https://example.com/p?utm_source=site&id=1",
               "utm": {"source": "poster", "medium": "print", "campaign": "spring sale"},
               "forwardQuery": true}),
    )
    .await;
    let r = visit(
        &s,
        &format!("{}?id=2&table=7&utm_medium=other", code(&l)),
        &[],
    )
    .await;
    assert_eq!(
        r.header("location"),
        Some(
            "https://example.com/p?utm_source=site&id=1&utm_medium=print&utm_campaign=spring+sale&table=7"
        )
    );
    // Without forwardQuery the scan's query is ignored, as before.
    let plain = link(&s, &key, json!({"utm": {"campaign": "c"}})).await;
    let r = visit(&s, &format!("{}?x=1", code(&plain)), &[]).await;
    assert_eq!(
        r.header("location"),
        Some("https://example.com/landing?utm_campaign=c")
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_searches_filters_and_pages_newest_first() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Pro);
    let mut ids = Vec::new();
    for i in 0..7 {
        s.clock.advance(qr_domain::chrono::Duration::seconds(1));
        let tags = if i % 2 == 0 {
            json!(["even"])
        } else {
            json!([])
        };
        let l = link(
            &s,
            &key,
            json!({"name": format!("Flyer {i}"), "tags": tags}),
        )
        .await;
        ids.push(l["id"].as_str().unwrap().to_owned());
    }
    ids.reverse();
    let list = |q: &str| {
        let s = &s;
        let key = key.clone();
        let q = q.to_owned();
        async move { s.get(&format!("/api/links{q}"), &key).await }
    };
    let all = list("").await.json();
    assert!(
        all.get("nextCursor").is_none(),
        "a whole list has the spec's shape"
    );
    let got: Vec<&str> = all["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(got, ids);
    let even = list("?tag=even").await.json();
    assert_eq!(even["links"].as_array().unwrap().len(), 4);
    let found = list("?search=FLYER%203").await.json();
    assert_eq!(found["links"][0]["name"], "Flyer 3");
    assert_eq!(found["links"].as_array().unwrap().len(), 1);
    let mut paged = Vec::new();
    let mut query = "?limit=3".to_owned();
    loop {
        let page = list(&query).await.json();
        paged.extend(
            page["links"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["id"].as_str().unwrap().to_owned()),
        );
        match page["nextCursor"].as_str() {
            Some(cursor) => query = format!("?limit=3&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(paged, ids);
    list("?limit=0")
        .await
        .assert_error(400, "Invalid limit: it must be an integer from 1 to 1000");
    list("?cursor=nope").await.assert_error(
        400,
        "Invalid cursor: use the nextCursor of the previous answer",
    );
    s.stop().await;
}
