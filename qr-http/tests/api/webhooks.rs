//! `/api/webhooks` over real HTTP: validation and its messages, the secret shown once, isolation between accounts, the per-account limit, and the deliverer refusing a loopback endpoint unless the operator allows private addresses.

use crate::common;

use std::time::{Duration, Instant};

use common::TestServer;
use qr_domain::Plan;
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
async fn loopback_endpoints_are_refused_unless_allowed() {
    let s = TestServer::start(|_| {}).await;
    let (account, _, key) = s.account(Plan::Free);
    let r = post(
        &s,
        &key,
        json!({"url": "http://127.0.0.1:9/hook", "events": ["link.created"]}),
    )
    .await;
    assert_eq!(
        r.status, 201,
        "registration does not resolve: delivery checks the address"
    );
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
