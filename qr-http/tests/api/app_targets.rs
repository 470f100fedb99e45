//! Rule targets that open apps over real HTTP: a domain's `appSchemes` set and read back through `PUT`/`GET /api/domains`, links whose rules send phones to `brandapp://…` and `tel:` (302 with that `Location` through the domain's Host), a custom scheme refused on the service's own address and on a domain without it, in creations, updates and bulk items, and `javascript:` refused everywhere.

use qr_domain::domains::name::DomainName;
use qr_domain::{Clock, Plan, Store};
use qr_sqlite::SqliteStore;
use serde_json::{Value, json};

use crate::common::{Resp, TestServer};

const PHONE: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const DESKTOP: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

async fn send_json(s: &TestServer, method: &str, path: &str, key: &str, body: &Value) -> Resp {
    s.send(
        method,
        path,
        &[("x-api-key", key), ("content-type", "application/json")],
        body.to_string(),
    )
    .await
}

/// Marks the domain verified in the server's database, as a successful DNS check does.
fn verify(s: &TestServer, name: &str) {
    let store = SqliteStore::open(&s.db).unwrap();
    let name = DomainName::parse_any(name).unwrap();
    store
        .write(|tx| {
            let mut domain = tx.domain_by_name(&name)?.unwrap();
            domain.verification.verified_at = Some(s.clock.now());
            tx.update_domain(&domain)
        })
        .unwrap();
}

/// A link whose phone visitors go to `target`, on `domain` (`None`: the service's address).
fn phone_link(code: &str, domain: Option<&str>, target: &str) -> Value {
    json!({
        "name": code,
        "targetUrl": "https://brand.test/",
        "shortCode": code,
        "domain": domain,
        "rules": [{"when": {"device": "mobile"}, "targetUrl": target}],
    })
}

async fn visit(s: &TestServer, host: &str, path: &str, agent: &str) -> Resp {
    s.send("GET", path, &[("host", host), ("user-agent", agent)], "")
        .await
}

#[tokio::test]
async fn phones_are_sent_to_the_app_a_domain_declares_and_to_tel() {
    let s = TestServer::start(|c| c.base_url = Some("http://qr.example".to_owned())).await;
    let (_, _, key) = s.account(Plan::Pro);
    let added = send_json(
        &s,
        "POST",
        "/api/domains",
        &key,
        &json!({"domain": "go.brand.test"}),
    )
    .await;
    assert_eq!(added.status, 201, "{}", added.text());
    let id = added.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(added.json()["appSchemes"], json!([]));
    verify(&s, "go.brand.test");
    let domain = format!("/api/domains?id={id}");

    // Undeclared: refused, naming the scheme and where to declare it.
    send_json(
        &s,
        "POST",
        "/api/links",
        &key,
        &phone_link("BRANDAPP", Some("go.brand.test"), "brandapp://product/42"),
    )
    .await
    .assert_error(
        400,
        "Invalid rules[0].targetUrl: brandapp: is not an app scheme of go.brand.test; add brandapp to the domain's appSchemes (PUT /api/domains) first",
    );

    // Declared, in any case; read back lower case.
    let r = send_json(
        &s,
        "PUT",
        &domain,
        &key,
        &json!({"appSchemes": ["BrandApp", "brandapp"]}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["appSchemes"], json!(["brandapp"]));
    assert_eq!(
        s.get(&domain, &key).await.json()["appSchemes"],
        json!(["brandapp"])
    );
    for (body, message) in [
        (
            json!({"appSchemes": ["javascript"]}),
            "Invalid appSchemes[0]: javascript is refused: it runs script in the page that opens it",
        ),
        (
            json!({"appSchemes": ["https"]}),
            "Invalid appSchemes[0]: https is a web address, not an app scheme; rules accept web addresses already",
        ),
        (
            json!({"appSchemes": ["brand app"]}),
            "Invalid appSchemes[0]: an app scheme is a letter, then letters, digits, +, - or ., at most 32 characters (such as brandapp)",
        ),
        (
            json!({"appSchemes": "brandapp"}),
            "Invalid appSchemes: it must be an array of strings or null",
        ),
        (
            json!({"appSchemes": [1]}),
            "Invalid appSchemes: it must be an array of strings or null",
        ),
    ] {
        send_json(&s, "PUT", &domain, &key, &body)
            .await
            .assert_error(400, message);
    }
    assert_eq!(
        s.get(&domain, &key).await.json()["appSchemes"],
        json!(["brandapp"])
    );

    let app = send_json(
        &s,
        "POST",
        "/api/links",
        &key,
        &phone_link("BRANDAPP", Some("go.brand.test"), "BrandApp://product/42"),
    )
    .await;
    assert_eq!(app.status, 201, "{}", app.text());
    assert_eq!(app.json()["rules"][0]["targetUrl"], "brandapp://product/42");
    let tel = send_json(
        &s,
        "POST",
        "/api/links",
        &key,
        &phone_link("CALL", Some("go.brand.test"), "tel:+4930123"),
    )
    .await;
    assert_eq!(tel.status, 201, "{}", tel.text());

    // Through the domain's Host: phones to the app and to the number, desktops to the page.
    let r = visit(&s, "go.brand.test", "/BRANDAPP", PHONE).await;
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("location"), Some("brandapp://product/42"));
    let r = visit(&s, "go.brand.test", "/CALL", PHONE).await;
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("location"), Some("tel:+4930123"));
    let r = visit(&s, "go.brand.test", "/BRANDAPP", DESKTOP).await;
    assert_eq!(r.header("location"), Some("https://brand.test/"));
    let link_id = app.json()["id"].as_str().unwrap().to_owned();
    let analytics = s
        .get(&format!("/api/analytics?linkId={link_id}"), &key)
        .await;
    assert_eq!(analytics.status, 200, "{}", analytics.text());
    assert_eq!(
        analytics.json()["analytics"]["totalScans"],
        2,
        "{}",
        analytics.text()
    );

    // On the service's own address tel: works and a custom scheme does not.
    let r = send_json(
        &s,
        "POST",
        "/api/links",
        &key,
        &phone_link("BASETEL", None, "tel:+4930123"),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    send_json(
        &s,
        "POST",
        "/api/links",
        &key,
        &phone_link("BASEAPP", None, "brandapp://product/42"),
    )
    .await
    .assert_error(
        400,
        "Invalid rules[0].targetUrl: brandapp: is an app scheme, which only a link on a custom domain may use once the domain lists it in its appSchemes (PUT /api/domains); tel:, mailto:, sms: and geo: work on every link",
    );

    // The scheme removed: the printed code keeps opening the app; a new rule with it is refused.
    let r = send_json(&s, "PUT", &domain, &key, &json!({"appSchemes": null})).await;
    assert_eq!(r.json()["appSchemes"], json!([]));
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    let r = visit(&s, "go.brand.test", "/BRANDAPP", PHONE).await;
    assert_eq!(r.header("location"), Some("brandapp://product/42"));
    let link = format!("/api/links?id={link_id}");
    let r = send_json(&s, "PUT", &link, &key, &json!({"name": "Renamed"})).await;
    assert_eq!(r.status, 200, "{}", r.text());
    send_json(
        &s,
        "PUT",
        &link,
        &key,
        &json!({"rules": [{"when": {"os": "ios"}, "targetUrl": "brandapp://product/43"}]}),
    )
    .await
    .assert_error(
        400,
        "Invalid rules[0].targetUrl: brandapp: is not an app scheme of go.brand.test; add brandapp to the domain's appSchemes (PUT /api/domains) first",
    );

    // Bulk items follow the same rules, item by item.
    let r = send_json(
        &s,
        "POST",
        "/api/links/bulk",
        &key,
        &json!({"links": [
            phone_link("BULKTEL", None, "sms:+4930123?body=Hi"),
            phone_link("BULKAPP", None, "brandapp://x"),
        ]}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(
        body["links"][0]["rules"][0]["targetUrl"],
        "sms:+4930123?body=Hi"
    );
    assert_eq!(body["errors"][0]["index"], 1, "{body}");
}

#[tokio::test]
async fn javascript_and_its_kin_are_refused_everywhere() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Pro);
    let refused = "the URL must not use javascript: it runs script in the page that opens it";
    for target in [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "  javascript:alert(1)",
        "java\tscript:alert(1)",
        "java\nscript:alert(1)",
    ] {
        send_json(
            &s,
            "POST",
            "/api/links",
            &key,
            &phone_link("JSCRIPT", None, target),
        )
        .await
        .assert_error(400, &format!("Invalid rules[0].targetUrl: {refused}"));
    }
    send_json(&s, "POST", "/api/links", &key, &phone_link("JSCRIPT", None, "%6Aavascript:alert(1)"))
        .await
        .assert_error(
            400,
            "Invalid rules[0].targetUrl: the URL must be an absolute URL such as https://example.com/page",
        );
    for (body, message) in [
        (
            json!({"name": "x", "targetUrl": "tel:+4930123"}),
            "Invalid targetUrl: targetUrl must use http or https, not tel",
        ),
        (
            json!({"name": "x", "targetUrl": "javascript:alert(1)"}),
            "Invalid targetUrl: targetUrl must use http or https, not javascript",
        ),
        (
            json!({"name": "x", "targetUrl": "https://a.example", "expiredUrl": "tel:+4930123"}),
            "Invalid expiredUrl: the URL must use http or https, not tel",
        ),
        (
            json!({"name": "x", "targetUrl": "https://a.example", "variants": [
                {"targetUrl": "https://a.example", "weight": 1},
                {"targetUrl": "data:text/html,x", "weight": 1}]}),
            "Invalid variants[1].targetUrl: the URL must use http or https, not data",
        ),
        (
            json!({"name": "x", "targetUrl": "https://a.example", "rules": [
                {"when": {"os": "android"}, "targetUrl": "intent://scan/#Intent;end"}]}),
            "Invalid rules[0].targetUrl: the URL must not use intent: an Android intent can launch any activity of any installed app",
        ),
    ] {
        send_json(&s, "POST", "/api/links", &key, &body)
            .await
            .assert_error(400, message);
    }
}
