//! Links, redirects with scan recording, analytics, and isolation between accounts, over real HTTP.

use crate::common;

use std::sync::Arc;

use common::{TestServer, geoip_db};
use qr_domain::{NoGeoLocator, Plan, Service, SystemClock};
use serde_json::{Value, json};

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

async fn create(s: &TestServer, key: &str, name: &str, url: &str) -> Value {
    let r = s
        .send(
            "POST",
            "/api/links",
            &[("x-api-key", key), ("content-type", "application/json")],
            json!({"name": name, "targetUrl": url}).to_string(),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let link = r.json();
    let location = format!(
        "{}/api/links?id={}",
        s.handle.app().base_url(),
        link["id"].as_str().unwrap()
    );
    assert_eq!(r.header("location"), Some(location.as_str()));
    link
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn link_lifecycle() {
    let s = TestServer::start(|c| c.base_url = Some("https://qr.example.com/".into())).await;
    let key = s.owner_key.clone();
    let first = create(&s, &key, "  Spring flyer ", "HTTPS://Example.COM/spring").await;
    assert_eq!(first["name"], "Spring flyer");
    assert_eq!(first["targetUrl"], "https://example.com/spring");
    assert_eq!(first["scanCount"], json!(0));
    assert_eq!(first["createdAt"], first["updatedAt"]);
    assert_eq!(first["createdAt"], "2024-05-15T12:00:00Z");
    let code = first["shortCode"].as_str().unwrap();
    assert_eq!(code.len(), 8);
    assert_eq!(
        first["shortUrl"],
        format!("https://qr.example.com/r/{code}")
    );
    assert!(
        first["id"]
            .as_str()
            .unwrap()
            .parse::<qr_domain::LinkId>()
            .is_ok()
    );
    s.clock.advance(qr_domain::chrono::Duration::seconds(5));
    let second = create(&s, &key, "Summer", "https://example.com/summer").await;

    let list = s.get("/api/links", &key).await;
    assert_eq!(list.status, 200);
    let links = list.json()["links"].as_array().unwrap().clone();
    assert_eq!(links, vec![second.clone(), first.clone()], "newest first");

    let id = first["id"].as_str().unwrap();
    let one = s.get(&format!("/api/links?id={id}"), &key).await;
    assert_eq!(one.status, 200);
    assert_eq!(one.json(), first);

    s.clock.advance(qr_domain::chrono::Duration::seconds(5));
    let put = |body: Value, id: String| {
        let key = key.clone();
        let s = &s;
        async move {
            s.send(
                "PUT",
                &format!("/api/links?id={id}"),
                &[("x-api-key", &key)],
                body.to_string(),
            )
            .await
        }
    };
    let r = put(
        json!({"targetUrl": "https://example.com/new"}),
        id.to_owned(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let updated = r.json();
    assert_eq!(updated["targetUrl"], "https://example.com/new");
    assert_eq!(updated["name"], "Spring flyer");
    assert_eq!(updated["shortCode"], first["shortCode"]);
    assert_eq!(updated["updatedAt"], "2024-05-15T12:00:10Z");
    let unchanged = put(json!({}), id.to_owned()).await;
    assert_eq!(unchanged.json(), updated);

    // Validation.
    let post = |body: &str| {
        let key = key.clone();
        let body = body.to_owned();
        let s = &s;
        async move {
            s.send("POST", "/api/links", &[("x-api-key", &key)], body)
                .await
        }
    };
    post(r#"{"targetUrl":"https://example.com"}"#)
        .await
        .assert_error(400, "name field required");
    post(r#"{"name":"x"}"#)
        .await
        .assert_error(400, "targetUrl field required");
    post(r#"{"name":5,"targetUrl":"https://example.com"}"#)
        .await
        .assert_error(400, "name must be a string");
    post(r#"{"name":"x","targetUrl":"ftp://example.com"}"#)
        .await
        .assert_error(
            400,
            "Invalid targetUrl: targetUrl must use http or https, not ftp",
        );
    post(r#"{"name":"a\nb","targetUrl":"https://example.com"}"#)
        .await
        .assert_error(
            400,
            "Invalid name: name must not contain control characters such as line breaks",
        );
    post("[1]")
        .await
        .assert_error(400, "Request body must be a JSON object");
    let r = post("{").await;
    assert_eq!(r.status, 400);
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid JSON body: ")
    );
    s.send("PUT", "/api/links", &[("x-api-key", &key)], "{}")
        .await
        .assert_error(400, "id parameter required");
    s.send("DELETE", "/api/links", &[("x-api-key", &key)], "")
        .await
        .assert_error(400, "id parameter required");
    s.get("/api/links?id=not-a-uuid", &key)
        .await
        .assert_error(404, "Link not found");

    // Deletion.
    let r = s
        .send(
            "DELETE",
            &format!("/api/links?id={id}"),
            &[("x-api-key", &key)],
            "",
        )
        .await;
    assert_eq!(r.status, 204);
    assert!(r.body.is_empty());
    s.get(&format!("/api/links?id={id}"), &key)
        .await
        .assert_error(404, "Link not found");
    s.send(
        "DELETE",
        &format!("/api/links?id={id}"),
        &[("x-api-key", &key)],
        "",
    )
    .await
    .assert_error(404, "Link not found");
    let gone = s.send("GET", &format!("/r/{code}"), &[], "").await;
    assert_eq!(gone.status, 410);
    assert!(
        gone.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    assert!(gone.text().contains("no longer active"));
    let unknown = s.send("GET", "/r/ZZZZZZZZ", &[], "").await;
    assert_eq!(unknown.status, 404);
    assert!(unknown.text().contains("Link not found"));
    let weird = s.send("GET", "/r/%3Cb%3E", &[], "").await;
    assert_eq!(weird.status, 404);
    assert!(!weird.text().contains("<b>"));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_link_limit() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, free) = s.account(Plan::Free);
    for i in 0..5 {
        create(&s, &free, &format!("link {i}"), "https://example.com").await;
        s.clock.advance(qr_domain::chrono::Duration::seconds(1));
    }
    s.send(
        "POST",
        "/api/links",
        &[("x-api-key", &free)],
        json!({"name": "sixth", "targetUrl": "https://example.com"}).to_string(),
    )
    .await
    .assert_error(
        403,
        "Link limit reached: the free plan allows 5 links; delete a link or upgrade the plan",
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_from_a_phone_shows_in_analytics() {
    let s = TestServer::start(|c| {
        c.geoip = Some(geoip_db());
        c.trusted_proxies = vec!["127.0.0.0/8".into()];
    })
    .await;
    let key = s.owner_key.clone();
    let link = create(&s, &key, "Menu", "https://example.com/menu?table=1").await;
    let code = link["shortCode"].as_str().unwrap();
    let id = link["id"].as_str().unwrap();

    let r = s
        .send(
            "GET",
            &format!("/r/{code}"),
            &[
                ("user-agent", IPHONE),
                ("x-forwarded-for", "81.2.69.142"),
                ("referer", "https://social.example/post?id=7#top"),
            ],
            "",
        )
        .await;
    assert_eq!(r.status, 302);
    assert_eq!(
        r.header("location"),
        Some("https://example.com/menu?table=1")
    );
    assert_eq!(r.header("cache-control"), Some("no-store"));
    // HEAD and bots are redirected without being counted.
    let head = s
        .send("HEAD", &format!("/r/{code}"), &[("user-agent", IPHONE)], "")
        .await;
    assert_eq!(head.status, 302);
    let bot = s
        .send(
            "GET",
            &format!("/r/{}", code.to_lowercase()),
            &[(
                "user-agent",
                "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            )],
            "",
        )
        .await;
    assert_eq!(bot.status, 302);

    let r = s.get(&format!("/api/analytics?linkId={id}"), &key).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let a = r.json();
    assert_eq!(a["link"]["id"], link["id"]);
    assert_eq!(a["link"]["scanCount"], json!(1));
    assert_eq!(a["analytics"]["totalScans"], json!(1));
    assert_eq!(a["analytics"]["uniqueScans"], json!(1));
    assert_eq!(
        a["analytics"]["scansByDay"],
        json!([{"date": "2024-05-15", "scans": 1}])
    );
    assert_eq!(
        a["analytics"]["scansByCountry"],
        json!([{"country": "GB", "scans": 1}])
    );
    assert_eq!(
        a["analytics"]["scansByDevice"],
        json!([{"device": "mobile", "scans": 1}])
    );
    assert_eq!(
        a["analytics"]["scansByBrowser"],
        json!([{"browser": "Safari", "scans": 1}])
    );
    assert_eq!(
        a["analytics"]["scansByOs"],
        json!([{"os": "iOS", "scans": 1}])
    );
    assert_eq!(
        a["analytics"]["scansByReferrer"],
        json!([{"referrer": "social.example", "scans": 1}])
    );
    assert_eq!(
        a["analytics"]["scansByCity"],
        json!([{"city": "London", "country": "GB", "scans": 1}])
    );
    assert_eq!(a["analytics"]["scansByRule"], json!([]));
    assert!(
        a["analytics"].get("scansByVariant").is_none(),
        "a link without variants has no variant breakdown"
    );
    let scan = &a["recentScans"][0];
    assert_eq!(scan["country"], "GB");
    assert_eq!(scan["city"], "London");
    assert_eq!(scan["device"], "mobile");
    assert_eq!(scan["os"], "iOS");
    assert_eq!(scan["referrer"], "https://social.example/post");
    assert_eq!(scan["timestamp"], "2024-05-15T12:00:00Z");
    assert!(scan["id"].is_string());
    let links = s.get("/api/links", &key).await.json();
    assert_eq!(links["links"][0]["scanCount"], json!(1));

    // Analytics errors.
    s.get("/api/analytics", &key)
        .await
        .assert_error(400, "linkId parameter required");
    let bad_date = s
        .get(
            &format!("/api/analytics?linkId={id}&startDate=yesterday"),
            &key,
        )
        .await;
    assert_eq!(bad_date.status, 400);
    assert!(
        bad_date.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid startDate")
    );
    let bad_limit = s
        .get(&format!("/api/analytics?linkId={id}&limit=0"), &key)
        .await;
    assert_eq!(bad_limit.status, 400);
    assert!(
        bad_limit.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid limit")
    );
    s.get(
        &format!("/api/analytics?linkId={id}&startDate=2024-05-20&endDate=2024-05-10"),
        &key,
    )
    .await
    .assert_error(400, "startDate must not be after endDate");
    let window = s
        .get(
            &format!("/api/analytics?linkId={id}&startDate=2024-05-16&endDate=2024-05-20"),
            &key,
        )
        .await;
    assert_eq!(window.json()["analytics"]["totalScans"], json!(0));
    s.get(
        "/api/analytics?linkId=00000000-0000-4000-8000-000000000000",
        &key,
    )
    .await
    .assert_error(404, "Link not found");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_never_see_each_others_links() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, alice) = s.account(Plan::Pro);
    let (_, _, bob) = s.account(Plan::Pro);
    let link = create(&s, &alice, "Alice's", "https://alice.example").await;
    let id = link["id"].as_str().unwrap();
    let by_id = format!("/api/links?id={id}");
    s.get(&by_id, &bob)
        .await
        .assert_error(404, "Link not found");
    s.send(
        "PUT",
        &by_id,
        &[("x-api-key", &bob)],
        r#"{"name":"mine now"}"#,
    )
    .await
    .assert_error(404, "Link not found");
    s.send("DELETE", &by_id, &[("x-api-key", &bob)], "")
        .await
        .assert_error(404, "Link not found");
    s.get(&format!("/api/analytics?linkId={id}"), &bob)
        .await
        .assert_error(404, "Link not found");
    assert_eq!(s.get("/api/links", &bob).await.json(), json!({"links": []}));
    assert_eq!(s.get(&by_id, &alice).await.json(), link);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_regenerated_by_another_process_fails_at_once() {
    let s = TestServer::start(|_| {}).await;
    let (_, key, old) = s.account(Plan::Pro);
    assert_eq!(s.get("/api/health", &old).await.status, 200);
    // The CLI's code path: its own store and service on the same database file.
    let store = Arc::new(qr_sqlite::SqliteStore::open(&s.db).unwrap());
    let cli = Service::new(store, SystemClock, Arc::new(NoGeoLocator)).unwrap();
    let (_, new) = cli.regenerate_key(key.id).unwrap();
    cli.shutdown().unwrap();
    s.get("/api/health", &old)
        .await
        .assert_error(401, "Invalid API key");
    assert_eq!(s.get("/api/health", new.expose_secret()).await.status, 200);
    s.stop().await;
}
