//! `GET /api/analytics/export` through the real server: every scan of the range once (25,000
//! scans, many pages), CSV and NDJSON, the plan's retention, the range, HEAD, counting, the
//! key's analytics switch, another account's link, and the 400s of bad parameters.

use crate::common;

use std::collections::HashSet;

use common::{TestServer, at, seed_scans as seed};
use qr_domain::chrono::Duration;
use qr_domain::{Endpoint, KeySettings, LinkId, Plan, ScanId};
use serde_json::{Value, json};

async fn create_link(s: &TestServer, key: &str) -> Value {
    let r = s
        .send(
            "POST",
            "/api/links",
            &[("x-api-key", key), ("content-type", "application/json")],
            json!({"name": "Poster", "targetUrl": "https://example.com/p"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

fn link_id(link: &Value) -> LinkId {
    link["id"].as_str().unwrap().parse().unwrap()
}

fn counted(r: &common::Resp) -> i64 {
    let limit: i64 = r.header("x-ratelimit-limit").unwrap().parse().unwrap();
    let remaining: i64 = r.header("x-ratelimit-remaining").unwrap().parse().unwrap();
    limit - remaining
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_scan_of_many_pages_is_exported_once_newest_first() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Pro);
    let link = create_link(&s, &key).await;
    let id = link_id(&link);
    let code = link["shortCode"].as_str().unwrap();
    let total = 25_000;
    let seeded: HashSet<ScanId> = seed(&s, id, at("2024-05-15T12:00:01Z"), total)
        .into_iter()
        .collect();
    assert_eq!(seeded.len(), total);
    s.clock.advance(Duration::minutes(10));

    let path = format!("/api/analytics/export?linkId={id}");
    let r = s.get(&path, &key).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("text/csv; charset=utf-8"));
    assert_eq!(
        r.header("content-disposition"),
        Some(format!("attachment; filename=\"scans-{code}.csv\"").as_str())
    );
    assert_eq!(
        r.header("content-length"),
        None,
        "streamed, not built whole"
    );
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    assert_eq!(counted(&r), 2, "creating the link, then one export");
    let text = r.text();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("id,timestamp,country,city,device,browser,os,referrer,variant,rule")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), total);
    let mut seen = HashSet::new();
    let mut previous: Option<(String, i64)> = None;
    for row in &rows {
        let id: i64 = row.split(',').next().unwrap().parse().unwrap();
        assert!(seen.insert(ScanId(id)), "scan {id} twice");
        let timestamp = row.split(',').nth(1).unwrap().to_owned();
        if let Some(p) = &previous {
            assert!(
                (p.0.as_str(), p.1) > (timestamp.as_str(), id),
                "newest first"
            );
        }
        previous = Some((timestamp, id));
    }
    assert_eq!(seen, seeded);
    assert!(
        text.contains(",\"Köln, Altstadt\",mobile,Safari,iOS,"),
        "quoted cells"
    );

    let r = s.get(&format!("{path}&format=ndjson"), &key).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/x-ndjson"));
    assert_eq!(
        r.header("content-disposition"),
        Some(format!("attachment; filename=\"scans-{code}.ndjson\"").as_str())
    );
    let objects: Vec<Value> = r
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objects.len(), total);
    let ids: HashSet<ScanId> = objects
        .iter()
        .map(|o| ScanId(o["id"].as_str().unwrap().parse().unwrap()))
        .collect();
    assert_eq!(ids, seeded);
    let first = &objects[0];
    for member in [
        "id",
        "timestamp",
        "country",
        "city",
        "device",
        "browser",
        "os",
        "referrer",
        "variant",
        "rule",
    ] {
        assert!(first.get(member).is_some(), "{member} in {first}");
    }

    // HEAD: the GET's status and headers, no body, counted like the GET.
    let head = s.send("HEAD", &path, &[("x-api-key", &key)], "").await;
    assert_eq!((head.status, head.body.len()), (200, 0));
    assert_eq!(head.header("content-type"), Some("text/csv; charset=utf-8"));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_range_and_the_plans_retention_bound_the_export() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Free);
    let link = create_link(&s, &key).await;
    let id = link_id(&link);
    // Three days of 10 scans: the link's creation day, 20 days later, 40 days later.
    let day0 = seed(&s, id, at("2024-05-15T13:00:00Z"), 10);
    let day20 = seed(&s, id, at("2024-06-04T13:00:00Z"), 10);
    let day40 = seed(&s, id, at("2024-06-24T13:00:00Z"), 10);
    s.clock.set(at("2024-06-24T18:00:00Z"));
    let ids = |r: &common::Resp| -> HashSet<ScanId> {
        assert_eq!(r.status, 200, "{}", r.text());
        r.text()
            .lines()
            .skip(1)
            .map(|l| ScanId(l.split(',').next().unwrap().parse().unwrap()))
            .collect()
    };
    let base = format!("/api/analytics/export?linkId={id}");
    // Free keeps 30 days: the creation day's scans are gone from the export.
    let all = ids(&s.get(&base, &key).await);
    let expected: HashSet<ScanId> = day20.iter().chain(&day40).copied().collect();
    assert_eq!(all, expected);
    assert!(day0.iter().all(|i| !all.contains(i)));
    // Free allows 2 requests a second.
    s.clock.advance(Duration::seconds(1));
    let range = ids(&s
        .get(
            &format!("{base}&startDate=2024-06-01&endDate=2024-06-10"),
            &key,
        )
        .await);
    assert_eq!(range, day20.iter().copied().collect());
    // A range wholly outside the retention: the header line only.
    s.clock.advance(Duration::seconds(1));
    let r = s.get(&format!("{base}&endDate=2024-05-20"), &key).await;
    assert_eq!(
        r.text(),
        "id,timestamp,country,city,device,browser,os,referrer,variant,rule\n"
    );
    s.clock.advance(Duration::seconds(1));
    let r = s
        .get(&format!("{base}&format=ndjson&endDate=2024-05-20"), &key)
        .await;
    assert_eq!((r.status, r.body.len()), (200, 0));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_parameters_other_accounts_and_disabled_keys_are_refused() {
    let s = TestServer::start(|_| {}).await;
    let (_, ann_key, ann) = s.account(Plan::Pro);
    let (_, _, bob) = s.account(Plan::Pro);
    let link = create_link(&s, &ann).await;
    let id = link_id(&link);
    let base = format!("/api/analytics/export?linkId={id}");
    s.get("/api/analytics/export", &ann)
        .await
        .assert_error(400, "linkId parameter required");
    s.get(&format!("{base}&format=xlsx"), &ann)
        .await
        .assert_error(400, "Invalid format \"xlsx\": use csv or ndjson");
    s.get(&format!("{base}&startDate=yesterday"), &ann).await.assert_error(
        400,
        "Invalid startDate \"yesterday\": use YYYY-MM-DD or an ISO 8601 date-time such as 2024-05-01T00:00:00Z",
    );
    s.get(
        &format!("{base}&startDate=2024-06-02&endDate=2024-06-01"),
        &ann,
    )
    .await
    .assert_error(400, "startDate must not be after endDate");
    // The format is checked before the id, like the dates.
    s.get("/api/analytics/export?linkId=nope&format=xml", &ann)
        .await
        .assert_error(400, "Invalid format \"xml\": use csv or ndjson");
    s.get("/api/analytics/export?linkId=nope", &ann)
        .await
        .assert_error(404, "Link not found");
    // limit belongs to GET /api/analytics; the export ignores it.
    assert_eq!(s.get(&format!("{base}&limit=0"), &ann).await.status, 200);
    s.get(&base, &bob).await.assert_error(404, "Link not found");
    s.get(&base, "qr_live_nope")
        .await
        .assert_error(401, "Invalid API key");
    let mut settings = KeySettings::default();
    settings.disabled_endpoints.insert(Endpoint::Analytics);
    s.handle
        .app()
        .service()
        .update_key_settings(ann_key.id, settings)
        .unwrap();
    s.clock.advance(Duration::seconds(1));
    s.get(&base, &ann)
        .await
        .assert_error(403, "API key not authorized for this endpoint");
    s.stop().await;
}
