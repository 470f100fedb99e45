//! `/api/webhooks` over real HTTP: validation and its messages, the secret shown once, isolation between accounts, the per-account limit, non-public endpoint addresses refused at registration unless the operator allows private addresses, and the deliverer refusing one that only turns out to be non-public when it connects.

use crate::common;

use std::time::{Duration, Instant};

use common::TestServer;
use qr_domain::webhooks::webhook::{EventSet, Webhook, WebhookId, WebhookSecret, WebhookUrl};
use qr_domain::{Clock, Plan, Store};
use qr_sqlite::SqliteStore;
use serde_json::{Value, json};

async fn post(s: &TestServer, key: &str, body: Value) -> common::Resp {
    s.send(
        "POST",
        "/api/webhooks",
        &[("x-api-key", key), ("content-type", "application/json")],
        body.to_string(),
    )
    .await
}

#[tokio::test]
async fn webhooks_are_validated_listed_without_secrets_isolated_and_limited() {
    let s = TestServer::start(|_| {}).await;
    // Enterprise: 200 requests a second, so the checks are not rate limited.
    let (_, _, a) = s.account(Plan::Enterprise);
    let (_, _, b) = s.account(Plan::Enterprise);
    post(&s, &a, json!({"events": ["link.created"]}))
        .await
        .assert_error(400, "url field required");
    post(&s, &a, json!({"url": "https://h.example/"}))
        .await
        .assert_error(400, "events field required");
    post(
        &s,
        &a,
        json!({"url": "https://h.example/", "events": "link.created"}),
    )
    .await
    .assert_error(400, "events must be an array of at most 16 strings");
    let r = post(
        &s,
        &a,
        json!({"url": "ftp://h.example/", "events": ["link.created"]}),
    )
    .await;
    assert_eq!(r.status, 400);
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid url: ")
    );
    let r = post(
        &s,
        &a,
        json!({"url": "https://h.example/", "events": ["link.exploded"]}),
    )
    .await;
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid events: ")
    );
    post(
        &s,
        &a,
        json!({"url": "https://h.example/", "events": ["link.created"], "secret": "short"}),
    )
    .await
    .assert_error(
        400,
        "Invalid secret: it must be 16 to 128 printable ASCII characters without spaces",
    );

    let created = post(
        &s,
        &a,
        json!({"url": "https://h.example/in", "events": ["scan.recorded", "link.created"]}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.text());
    let hook = created.json();
    let secret = hook["secret"].as_str().unwrap();
    assert!(secret.starts_with("whsec_") && secret.len() == 70);
    assert_eq!(hook["events"], json!(["link.created", "scan.recorded"]));
    let listed = s.get("/api/webhooks", &a).await;
    assert_eq!(listed.status, 200);
    assert!(
        !listed.text().contains(secret),
        "the secret is never listed"
    );
    assert_eq!(listed.json()["webhooks"][0]["id"], hook["id"]);
    assert_eq!(
        s.get("/api/webhooks", &b).await.json(),
        json!({"webhooks": []})
    );

    let id = hook["id"].as_str().unwrap();
    let delete = |key: String, id: String| {
        let s = &s;
        async move {
            s.send(
                "DELETE",
                &format!("/api/webhooks?id={id}"),
                &[("x-api-key", &key)],
                "",
            )
            .await
        }
    };
    delete(b.clone(), id.to_owned())
        .await
        .assert_error(404, "Webhook not found");
    delete(a.clone(), "nonsense".into())
        .await
        .assert_error(404, "Webhook not found");
    s.send("DELETE", "/api/webhooks", &[("x-api-key", &a)], "")
        .await
        .assert_error(400, "id parameter required");
    assert_eq!(delete(a.clone(), id.to_owned()).await.status, 204);
    assert_eq!(delete(a.clone(), id.to_owned()).await.status, 404);

    for i in 0..10 {
        let r = post(
            &s,
            &b,
            json!({"url": format!("https://h.example/{i}"), "events": ["link.created"]}),
        )
        .await;
        assert_eq!(r.status, 201);
    }
    post(
        &s,
        &b,
        json!({"url": "https://h.example/11", "events": ["link.created"]}),
    )
    .await
    .assert_error(
        403,
        "Webhook limit reached: an account may register at most 10 webhooks; delete one first",
    );
    s.stop().await;
}

#[tokio::test]
async fn non_public_endpoints_are_refused_at_registration_unless_allowed() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Enterprise);
    for (url, message) in [
        ("http://127.0.0.1:9/hook", "127.0.0.1 is a loopback address"),
        (
            "http://169.254.169.254/latest/hook",
            "169.254.169.254 is a cloud metadata address",
        ),
        ("http://[::1]:9/hook", "[::1] is a loopback address"),
        (
            "http://[::ffff:127.0.0.1]/hook",
            "[::ffff:7f00:1] is a loopback address",
        ),
        ("http://localhost:9/hook", "localhost is a loopback address"),
        ("http://0.0.0.0:9/hook", "0.0.0.0 is an unspecified address"),
        ("https://10.0.0.7/hook", "10.0.0.7 is a private address"),
        (
            "https://192.168.1.20/hook",
            "192.168.1.20 is a private address",
        ),
        ("https://[fd00::7]/hook", "[fd00::7] is a private address"),
        (
            "https://[fe80::1]/hook",
            "[fe80::1] is a link-local address",
        ),
        (
            "https://100.64.1.1/hook",
            "100.64.1.1 is a carrier-grade NAT (shared) address",
        ),
    ] {
        post(&s, &key, json!({"url": url, "events": ["link.created"]}))
            .await
            .assert_error(
                400,
                &format!("Invalid url: {message}; webhooks are only delivered to public addresses"),
            );
    }
    assert_eq!(
        s.get("/api/webhooks", &key).await.json(),
        json!({"webhooks": []}),
        "nothing was registered"
    );
    s.stop().await;

    // The operator's --webhooks-allow-private lets them register (and be delivered to).
    let s = TestServer::start(|c| c.webhooks.allow_private = true).await;
    let (_, _, key) = s.account(Plan::Free);
    let r = post(
        &s,
        &key,
        json!({"url": "http://127.0.0.1:9/hook", "events": ["link.created"]}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    s.stop().await;
}

#[tokio::test]
async fn delivery_refuses_an_endpoint_that_is_not_public_when_it_connects() {
    let s = TestServer::start(|_| {}).await;
    let (account, _, key) = s.account(Plan::Free);
    // An endpoint the registration check did not see as loopback: one registered before the
    // check existed, or under a name that has resolved to 127.0.0.1 since. Written to the
    // database directly, as no request can.
    let hook = Webhook {
        id: WebhookId::random(),
        account_id: account,
        url: WebhookUrl::parse("http://127.0.0.1:9/hook").unwrap(),
        events: EventSet::parse(["link.created"]).unwrap(),
        secret: WebhookSecret::generate().unwrap(),
        created_at: s.clock.now(),
    };
    SqliteStore::open(&s.db)
        .unwrap()
        .write(|tx| tx.insert_webhook(&hook))
        .unwrap();
    let r = s
        .send(
            "POST",
            "/api/links",
            &[("x-api-key", &key), ("content-type", "application/json")],
            json!({"name": "Flyer", "targetUrl": "https://example.com/"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 201);
    let service = std::sync::Arc::clone(s.handle.app().service());
    let started = Instant::now();
    loop {
        let svc = std::sync::Arc::clone(&service);
        let list = tokio::task::spawn_blocking(move || svc.webhook_deliveries(account, 10))
            .await
            .unwrap()
            .unwrap();
        if let Some(error) = list.first().and_then(|d| d.last_error.clone()) {
            assert_eq!(error, "host 127.0.0.1 is not a public address");
            assert_eq!(list[0].attempts, 1);
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no attempt made"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    s.stop().await;
}
