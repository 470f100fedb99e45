//! `POST /api/links/bulk` over real HTTP: per-index failures, the plans' gate and sizes, idempotent retries, the ZIP of codes decoded back, and isolation between accounts.

use crate::common;

use common::{Resp, TestServer, decode_png, unzip};
use qr_domain::Plan;
use serde_json::{Value, json};

async fn bulk(s: &TestServer, key: &str, extra: &[(&str, &str)], body: &Value) -> Resp {
    let auth = format!("Bearer {key}");
    let mut headers = vec![
        ("authorization", auth.as_str()),
        ("content-type", "application/json"),
    ];
    headers.extend_from_slice(extra);
    s.send("POST", "/api/links/bulk", &headers, body.to_string())
        .await
}

async fn save_design(s: &TestServer, key: &str, body: Value) -> Value {
    let auth = format!("Bearer {key}");
    let headers = [
        ("authorization", auth.as_str()),
        ("content-type", "application/json"),
    ];
    s.send("POST", "/api/designs", &headers, body.to_string())
        .await
        .json()
}

async fn link_count(s: &TestServer, key: &str) -> usize {
    let r = s.get("/api/links", key).await;
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["links"].as_array().unwrap().len()
}

fn items(n: usize, prefix: &str) -> Value {
    let links: Vec<Value> = (0..n)
        .map(|i| json!({"name": format!("{prefix} {i}"), "targetUrl": format!("https://example.com/{prefix}/{i}")}))
        .collect();
    json!({ "links": links })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creates_every_valid_link_and_lists_the_others_by_index() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, pro) = s.account(Plan::Pro);
    let body = json!({"links": [
        {"name": "Menu", "targetUrl": "https://example.com/menu", "tags": ["tables"]},
        {"name": "Old", "targetUrl": "ftp://example.com/old"},
        {"name": "Apps", "targetUrl": "https://example.com/apps", "shortCode": "get-the-app",
         "rules": [{"when": {"os": "ios"}, "targetUrl": "https://apps.example.com/ios"}]},
        {"targetUrl": "https://example.com/nameless"},
        {"name": "Again", "targetUrl": "https://example.com/again", "shortCode": "GET-THE-APP"},
        "not an object",
    ]});
    let r = bulk(&s, &pro, &[], &body).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("idempotent-replayed"), None);
    let answer = r.json();
    let links = answer["links"].as_array().unwrap();
    let names: Vec<&str> = links.iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Menu", "Apps"]);
    let base = s.handle.app().base_url().to_owned();
    for link in links {
        let code = link["shortCode"].as_str().unwrap();
        assert_eq!(link["shortUrl"], format!("{base}/r/{code}"));
        // The same Link as GET answers.
        let id = link["id"].as_str().unwrap();
        assert_eq!(
            &s.get(&format!("/api/links?id={id}"), &pro).await.json(),
            link
        );
    }
    assert_eq!(links[1]["shortCode"], "get-the-app");
    assert_eq!(links[0]["tags"], json!(["tables"]));
    let errors = answer["errors"].as_array().unwrap();
    let expected = [
        (1, "ftp://example.com/old", "Invalid targetUrl: "),
        (3, "https://example.com/nameless", "name field required"),
        (
            4,
            "https://example.com/again",
            "shortCode GET-THE-APP is already taken; choose another",
        ),
        (5, "", "Invalid link: it must be a JSON object"),
    ];
    assert_eq!(errors.len(), expected.len(), "{answer}");
    for (error, (index, data, message)) in errors.iter().zip(expected) {
        assert_eq!(error["index"], index, "{error}");
        assert_eq!(error["data"], data, "{error}");
        assert!(
            error["error"].as_str().unwrap().starts_with(message),
            "{error}"
        );
    }
    assert_eq!(link_count(&s, &pro).await, 2);
    // The new short URL redirects.
    let r = s.send("GET", "/r/get-the-app", &[], "").await;
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), Some("https://example.com/apps"));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_decide_who_may_and_how_many() {
    let s = TestServer::start(|_| {}).await;
    for plan in [Plan::Free, Plan::Starter] {
        let (_, _, key) = s.account(plan);
        bulk(&s, &key, &[], &items(1, "f"))
            .await
            .assert_error(403, "Bulk link creation requires Pro plan");
        assert_eq!(link_count(&s, &key).await, 0);
    }
    let (_, _, pro) = s.account(Plan::Pro);
    bulk(&s, &pro, &[], &items(101, "p"))
        .await
        .assert_error(400, "Maximum 100 links allowed");
    bulk(&s, &pro, &[], &json!({"links": []}))
        .await
        .assert_error(400, "links array required");
    bulk(&s, &pro, &[], &json!({"items": [{"name": "x"}]}))
        .await
        .assert_error(400, "links array required");
    bulk(&s, &pro, &[], &json!([1, 2]))
        .await
        .assert_error(400, "Request body must be a JSON object");
    let mut sized = items(2, "q");
    sized["qrcodes"] = json!({"size": 10});
    bulk(&s, &pro, &[], &sized)
        .await
        .assert_error(400, "Invalid qrcodes.size");
    sized["qrcodes"] = json!("png");
    bulk(&s, &pro, &[], &sized)
        .await
        .assert_error(400, "Invalid qrcodes: it must be an object");
    assert_eq!(
        link_count(&s, &pro).await,
        0,
        "a refused request creates nothing"
    );
    let r = bulk(&s, &pro, &[], &items(100, "p")).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["links"].as_array().unwrap().len(), 100);
    // Enterprise: the owner's key takes 1,000 at once (10,000 is the bound; benchmarks time it).
    let r = bulk(&s, &s.owner_key, &[], &items(1_000, "e")).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["links"].as_array().unwrap().len(), 1_000);
    bulk(&s, &s.owner_key, &[], &items(10_001, "e"))
        .await
        .assert_error(400, "Maximum 10000 links allowed");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_request_creates_nothing_twice() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, pro) = s.account(Plan::Pro);
    let (_, _, other) = s.account(Plan::Pro);
    let mut body = items(3, "retry");
    body["links"][2]["targetUrl"] = json!("javascript:alert(1)");
    let key = [("idempotency-key", "import-2024-05-15")];
    let first = bulk(&s, &pro, &key, &body).await;
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(first.json()["links"].as_array().unwrap().len(), 2);
    s.clock.advance(qr_domain::chrono::Duration::minutes(10));
    // The same body with its members reordered and spaced is the same request.
    let same: Value = serde_json::from_str(&serde_json::to_string_pretty(&body).unwrap()).unwrap();
    let again = bulk(&s, &pro, &key, &same).await;
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.json(), first.json());
    assert_eq!(link_count(&s, &pro).await, 2, "nothing created twice");
    bulk(&s, &pro, &key, &items(3, "other"))
        .await
        .assert_error(
            422,
            "Idempotency-Key was already used with a different request body; use a new key for a new request",
        );
    assert_eq!(link_count(&s, &pro).await, 2);
    // Keys are per account: another account's same key creates its own links.
    let theirs = bulk(&s, &other, &key, &body).await;
    assert_eq!(theirs.status, 200);
    assert_eq!(theirs.header("idempotent-replayed"), None);
    assert_eq!(link_count(&s, &other).await, 2);
    bulk(&s, &pro, &[("idempotency-key", "has space")], &body)
        .await
        .assert_error(
            400,
            "Invalid Idempotency-Key: it must be 1 to 255 visible ASCII characters",
        );
    // After 24 hours the key is free again.
    s.clock.advance(qr_domain::chrono::Duration::hours(24));
    let later = bulk(&s, &pro, &key, &body).await;
    assert_eq!(later.status, 200);
    assert_eq!(later.header("idempotent-replayed"), None);
    assert_eq!(link_count(&s, &pro).await, 4);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qrcodes_answer_a_zip_of_the_new_links_codes() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, pro) = s.account(Plan::Pro);
    let body = json!({
        "links": [
            {"name": "Table, one", "targetUrl": "https://example.com/t/1"},
            {"name": "Broken", "targetUrl": "notaurl"},
            {"name": "=Table 3", "targetUrl": "https://example.com/t/3", "shortCode": "table-3"},
        ],
        "qrcodes": {"format": "png", "size": 240, "errorCorrection": "Q"}
    });
    let key = [("idempotency-key", "zip-1")];
    let r = bulk(&s, &pro, &key, &body).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/zip"));
    assert_eq!(
        r.header("content-disposition"),
        Some("attachment; filename=links.zip")
    );
    let files = unzip(&r.body);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    assert_eq!(names[1], "table-3.png");
    assert_eq!(&names[2..], ["links.csv", "errors.json"]);
    let links = s.get("/api/links", &pro).await.json()["links"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(links.len(), 2);
    let base = s.handle.app().base_url().to_owned();
    for (name, png) in &files[..2] {
        let code = name.strip_suffix(".png").unwrap();
        assert_eq!(decode_png(png), format!("{base}/r/{code}"), "{name}");
        assert!(links.iter().any(|l| l["shortCode"] == code), "{name}");
    }
    let csv = String::from_utf8(files[2].1.clone()).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "id,name,shortCode,shortUrl,targetUrl");
    assert_eq!(lines.len(), 3);
    let first_code = names[0].strip_suffix(".png").unwrap();
    assert!(
        lines[1].contains(&format!(
            ",\"Table, one\",{first_code},{base}/r/{first_code},https://example.com/t/1"
        )),
        "{csv}"
    );
    // A name a spreadsheet would run as a formula is defused.
    assert!(
        lines[2].contains(&format!(",'=Table 3,table-3,{base}/r/table-3,")),
        "{csv}"
    );
    let errors: Value = serde_json::from_slice(&files[3].1).unwrap();
    assert_eq!(errors["errors"].as_array().unwrap().len(), 1, "{errors}");
    assert_eq!(errors["errors"][0]["index"], 1);
    assert_eq!(errors["errors"][0]["data"], "notaurl");
    assert!(
        errors["errors"][0]["error"]
            .as_str()
            .unwrap()
            .starts_with("Invalid targetUrl: ")
    );
    // The retry answers the same archive's contents and creates nothing.
    let again = bulk(&s, &pro, &key, &body).await;
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    let replayed = unzip(&again.body);
    assert_eq!(replayed, files);
    assert_eq!(
        s.get("/api/links", &pro).await.json()["links"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // Each code in its link's design: the one a link names, else the account's default;
    // `qrcodes` settings over the design's look.
    let design = |name: &str, color: &str, default: bool| json!({"name": name, "look": {"color": color, "style": "dots"}, "isDefault": default});
    let navy = save_design(&s, &pro, design("Navy", "1a237e", true)).await;
    let teal = save_design(&s, &pro, design("Teal", "004d40", false)).await;
    assert!(
        navy["id"].is_string() && teal["id"].is_string(),
        "{navy} {teal}"
    );
    let body = json!({
        "links": [
            {"name": "Default", "targetUrl": "https://example.com/d", "shortCode": "in-default"},
            {"name": "Teal", "targetUrl": "https://example.com/t", "shortCode": "in-teal",
             "design": teal["id"]},
        ],
        "qrcodes": {"format": "svg", "margin": 1}
    });
    let r = bulk(&s, &pro, &[], &body).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let files = unzip(&r.body);
    for (name, colour) in [("in-default.svg", "#1a237e"), ("in-teal.svg", "#004d40")] {
        let (_, svg) = files.iter().find(|(n, _)| n == name).expect(name);
        let text = String::from_utf8_lossy(svg).to_ascii_lowercase();
        assert!(text.contains(colour), "{name} in its design");
        let code = name.strip_suffix(".svg").unwrap();
        assert_eq!(
            qr_test_support::decode_image(svg),
            format!("{base}/r/{code}"),
            "{name}"
        );
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_see_only_their_own_bulk_links() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, alice) = s.account(Plan::Pro);
    let (_, _, bob) = s.account(Plan::Pro);
    let r = bulk(&s, &alice, &[], &items(3, "alice")).await;
    assert_eq!(r.status, 200);
    let ids: Vec<String> = r.json()["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(link_count(&s, &bob).await, 0);
    for id in &ids {
        s.get(&format!("/api/links?id={id}"), &bob)
            .await
            .assert_error(404, "Link not found");
    }
    // A key barred from links is barred from bulk creation too.
    let (_, key, secret) = s.account(Plan::Pro);
    let svc = s.handle.app().service();
    let mut settings = key.settings.clone();
    settings
        .disabled_endpoints
        .insert(qr_domain::Endpoint::Links);
    svc.update_key_settings(key.id, settings).unwrap();
    bulk(&s, &secret, &[], &items(1, "barred"))
        .await
        .assert_error(403, "API key not authorized for this endpoint");
    s.stop().await;
}

/// The target, 10,000 links (Enterprise) in one request, through a real server on
/// SQLite: JSON, then the same with `qrcodes` (10,000 PNGs). The times are printed for
/// docs/benchmarks.md (`--nocapture`), not asserted: this machine's load varies too much.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_links_in_one_request() {
    let s = TestServer::start(|_| {}).await;
    let started = std::time::Instant::now();
    let r = bulk(&s, &s.owner_key, &[], &items(10_000, "big")).await;
    let json_time = started.elapsed();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["links"].as_array().unwrap().len(), 10_000);
    let mut zipped = items(10_000, "zip");
    zipped["qrcodes"] = json!({"format": "png", "size": 300});
    let started = std::time::Instant::now();
    let r = bulk(&s, &s.owner_key, &[], &zipped).await;
    let zip_time = started.elapsed();
    assert_eq!(r.status, 200, "{}", r.text());
    let files = unzip(&r.body);
    assert_eq!(
        files.len(),
        10_002,
        "10,000 codes, links.csv and errors.json"
    );
    let (name, png) = &files[9_999];
    let code = name.strip_suffix(".png").unwrap();
    let base = s.handle.app().base_url().to_owned();
    assert_eq!(decode_png(png), format!("{base}/r/{code}"));
    eprintln!(
        "bulk: 10,000 links as JSON in {:.2} s; with 10,000 PNG codes in {:.2} s ({} bytes)",
        json_time.as_secs_f64(),
        zip_time.as_secs_f64(),
        r.body.len()
    );
    s.stop().await;
}
