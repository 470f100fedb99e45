//! The document as strict as the server, case by case (the mismatches an outside fuzzer found): for each value, the document's own schema and the server's answer agree on whether it is accepted.

use crate::common;

use common::TestServer;
use qr_domain::Plan;
use serde_json::{Value, json};

/// Whether `value` is valid by the schema at `pointer` of the served `document`.
fn valid(document: &Value, pointer: &str, value: &Value) -> bool {
    let schema = document
        .pointer(pointer)
        .unwrap_or_else(|| panic!("no schema at {pointer}"));
    let wrapped = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": document["components"],
        "allOf": [schema],
    });
    jsonschema::options()
        .should_validate_formats(true)
        .build(&wrapped)
        .unwrap()
        .is_valid(value)
}

/// The schema of query parameter `name` of `GET path`.
fn parameter(path: &str, name: &str) -> String {
    let document = qr_http::openapi::document("http://localhost");
    let parameters = document["paths"][path]["get"]["parameters"]
        .as_array()
        .unwrap();
    let index = parameters.iter().position(|p| p["name"] == name).unwrap();
    format!(
        "/paths/{}/get/parameters/{index}/schema",
        path.replace('/', "~1")
    )
}

async fn post(s: &TestServer, key: &str, path: &str, body: &Value) -> common::Resp {
    s.send(
        "POST",
        path,
        &[("x-api-key", key), ("content-type", "application/json")],
        body.to_string(),
    )
    .await
}

#[tokio::test]
async fn analytics_dates_are_documented_as_the_dates_the_server_reads() {
    let s = TestServer::start(|_| {}).await;
    let document = qr_http::openapi::document("http://localhost");
    let key = s.owner_key.clone();
    let link = post(
        &s,
        &key,
        "/api/links",
        &json!({"name": "a", "targetUrl": "https://example.com"}),
    )
    .await
    .json();
    let id = link["id"].as_str().unwrap();
    let start = parameter("/api/analytics", "startDate");
    for (date, accepted) in [
        ("8877-21-95T00:70:85", false),
        ("2023-02-29", false),
        ("2024-05-01T10:00Z", false),
        ("2024-02-29", true),
        ("2024-05-01T10:00", true),
        ("2024-05-01T10:00:00.5+02:00", true),
    ] {
        assert_eq!(valid(&document, &start, &json!(date)), accepted, "{date}");
        let path = format!(
            "/api/analytics?{}",
            common::query(&[("linkId", id), ("startDate", date)])
        );
        let status = s.get(&path, &key).await.status;
        assert_eq!(status == 200, accepted, "{date}: {status}");
    }
    s.stop().await;
}

#[tokio::test]
async fn link_fields_are_documented_as_the_server_reads_them() {
    let s = TestServer::start(|_| {}).await;
    let document = qr_http::openapi::document("http://localhost");
    let key = s.owner_key.clone();
    let base = json!({"name": "a", "targetUrl": "https://example.com"});
    let with = |member: &str, value: Value| {
        let mut body = base.clone();
        body[member] = value;
        body
    };
    for (body, accepted) in [
        (with("validUntil", json!("2031-02-29T00:00:00Z")), false),
        (with("validUntil", json!("2031-02-28T00:00:00Z")), true),
        (with("tags", json!(["a\u{7}b"])), false),
        (
            with("tags", json!([format!("  {}  ", "t".repeat(50))])),
            true,
        ),
        (
            with("utm", json!({"source": "poster", "term": null})),
            false,
        ),
        (with("maxScans", json!(5.0)), true),
        (with("name", json!(format!(" {} ", "n".repeat(200)))), true),
        (with("name", json!("n".repeat(201))), false),
    ] {
        let documented = valid(&document, "/components/schemas/NewLink", &body);
        let r = post(&s, &key, "/api/links", &body).await;
        assert_eq!(documented, accepted, "{body}");
        assert_eq!(r.status == 201, accepted, "{body}: {}", r.text());
    }
    // An empty update is a valid one that changes nothing.
    let link = post(&s, &key, "/api/links", &base).await.json();
    let path = format!("/api/links?id={}", link["id"].as_str().unwrap());
    let r = s
        .send(
            "PUT",
            &path,
            &[("x-api-key", &key), ("content-type", "application/json")],
            "{}",
        )
        .await;
    assert!(valid(
        &document,
        "/components/schemas/LinkUpdate",
        &json!({})
    ));
    assert_eq!(r.status, 200, "{}", r.text());
    s.stop().await;
}

#[tokio::test]
async fn batch_items_of_any_kind_fail_alone_as_documented() {
    let s = TestServer::start(|_| {}).await;
    let document = qr_http::openapi::document("http://localhost");
    let (_, _, key) = s.account(Plan::Enterprise);
    let body = json!({"items": [[null, null], {"data": "https://example.com"}]});
    assert!(valid(&document, "/components/schemas/BatchRequest", &body));
    let r = post(&s, &key, "/api/batch", &body).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let bulk = json!({"links": [7, {"name": "a", "targetUrl": "https://example.com"}]});
    assert!(valid(
        &document,
        "/components/schemas/BulkLinksRequest",
        &bulk
    ));
    let r = post(&s, &key, "/api/links/bulk", &bulk).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"][0]["index"], 0);
    // A gradient needs color2, in the document as at the server.
    let qrcodes = json!({"links": [{"name": "b", "targetUrl": "https://example.com"}],
                         "qrcodes": {"gradient": "linear"}});
    assert!(!valid(
        &document,
        "/components/schemas/BulkLinksRequest",
        &qrcodes
    ));
    assert_eq!(
        post(&s, &key, "/api/links/bulk", &qrcodes).await.status,
        400
    );
    s.stop().await;
}

#[tokio::test]
async fn webhook_urls_and_generate_rules_are_documented() {
    let s = TestServer::start(|_| {}).await;
    let document = qr_http::openapi::document("http://localhost");
    let key = s.owner_key.clone();
    // The longest URL the document allows is accepted: normalising adds its `/`.
    let host = vec!["a".repeat(63); 32].join(".");
    let url = format!("https://{host}");
    let url = format!("{}.example", &url[..2047 - ".example".len()]);
    assert_eq!(url.chars().count(), 2047);
    let body = json!({"url": url, "events": ["link.created"]});
    assert!(valid(&document, "/components/schemas/NewWebhook", &body));
    let r = post(&s, &key, "/api/webhooks", &body).await;
    assert_eq!(r.status, 201, "{}", r.text());
    let fragment = json!({"url": "https://hooks.example.com/a#b", "events": ["link.created"]});
    assert!(!valid(
        &document,
        "/components/schemas/NewWebhook",
        &fragment
    ));
    assert_eq!(post(&s, &key, "/api/webhooks", &fragment).await.status, 400);
    // data and type exclude each other: said on both parameters, and refused.
    let parameters = document["paths"]["/api/generate"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let excludes =
        |name: &str| parameters.iter().find(|p| p["name"] == name).unwrap()["x-excludes"].clone();
    assert_eq!(excludes("data"), json!(["type"]));
    assert_eq!(excludes("type"), json!(["data"]));
    let r = s.get("/api/generate?data=x&type=wifi&ssid=a", &key).await;
    assert_eq!(r.status, 400);
    s.stop().await;
}
