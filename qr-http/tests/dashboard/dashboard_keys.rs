//! The keys page's access choice: a key created with scopes through the form (listed with them and with who made it, refused outside them by the API), no scope checked refused with the domain's message, and a key's settings changing its scopes, giving full access back, and keeping them when a form does not speak of them.

use qr_domain::{Endpoint, Plan};

use crate::common::web::{Client, attribute_after, customer, element_text, set_plan, start};
use crate::common::{Resp, TestServer};

const EMPTY_SCOPES: &str = "A key needs at least one scope; leave the scopes out for full access";
const NOT_AUTHORIZED: &str = "API key not authorized for this endpoint";

async fn post_link(s: &TestServer, secret: &str) -> Resp {
    s.send(
        "POST",
        "/api/links",
        &[("x-api-key", secret), ("content-type", "application/json")],
        r#"{"name":"L","targetUrl":"https://example.com/l"}"#,
    )
    .await
}

/// Posts the settings form of the key at `path` with every endpoint enabled and `fields`.
async fn save_settings(c: &mut Client, path: &str, fields: &[(&str, &str)]) -> Resp {
    let csrf = c.csrf(path).await;
    let mut all = vec![("csrf", csrf.as_str())];
    all.extend(Endpoint::ALL.iter().map(|e| ("endpoint", e.as_str())));
    all.extend_from_slice(fields);
    c.post(path, &all).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_is_created_with_scopes_listed_and_changed_in_its_settings() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "scopes@example.com").await;
    // Enterprise: 200 API requests a second, so the checks below are not rate limited.
    set_plan(&s, "scopes@example.com", Plan::Enterprise);

    // Scopes chosen but none checked: the domain's refusal, the form kept, no key made.
    let csrf = c.csrf("/dashboard/keys").await;
    let r = c
        .post(
            "/dashboard/keys",
            &[
                ("csrf", &csrf),
                ("name", "Reporting"),
                ("mode", "test"),
                ("access", "scoped"),
            ],
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text());
    let html = r.text();
    assert_eq!(
        element_text(&html, "key-scopes-error").as_deref(),
        Some(EMPTY_SCOPES)
    );
    assert!(
        html.contains("value=\"Reporting\""),
        "the name is kept: {html}"
    );
    assert!(html.contains("id=\"key-access-scoped\" name=\"access\" value=\"scoped\" checked"));
    assert!(html.contains("No keys yet."), "{html}");

    // Two scopes: the key is listed with them and the API holds it to them.
    let r = c
        .post(
            "/dashboard/keys",
            &[
                ("csrf", &csrf),
                ("name", "Reporting"),
                ("mode", "live"),
                ("access", "scoped"),
                ("scope", "generate"),
                ("scope", "links:read"),
            ],
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let html = r.text();
    let secret = element_text(&html, "new-api-key").unwrap();
    let id = attribute_after(&html, "action=\"/dashboard/keys/")
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let access = format!("key-{id}-access");
    assert_eq!(
        element_text(&html, &access).as_deref(),
        Some("links:read, generate")
    );
    assert_eq!(
        element_text(&html, &format!("key-{id}-creator")).as_deref(),
        Some("scopes@example.com"),
        "the list shows who made the key"
    );
    assert_eq!(s.get("/api/generate?data=x", &secret).await.status, 200);
    assert_eq!(s.get("/api/links", &secret).await.status, 200);
    post_link(&s, &secret)
        .await
        .assert_error(403, NOT_AUTHORIZED);

    // The settings page shows the scopes checked.
    let settings = format!("/dashboard/keys/{id}");
    let page = c.get(&settings).await.text();
    assert_eq!(
        element_text(&page, "key-access-summary").as_deref(),
        Some("links:read, generate")
    );
    assert!(
        page.contains("id=\"key-scope-links-read\" name=\"scope\" value=\"links:read\" checked")
    );
    assert!(page.contains("id=\"key-scope-links-write\" name=\"scope\" value=\"links:write\">"));

    // No scope checked in the settings: refused, the key unchanged.
    let r = save_settings(&mut c, &settings, &[("access", "scoped")]).await;
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(
        element_text(&r.text(), "key-scopes-error").as_deref(),
        Some(EMPTY_SCOPES)
    );
    let list = c.get("/dashboard/keys").await.text();
    assert_eq!(
        element_text(&list, &access).as_deref(),
        Some("links:read, generate")
    );

    // Other scopes replace them.
    let r = save_settings(
        &mut c,
        &settings,
        &[("access", "scoped"), ("scope", "links:write")],
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let list = c.get("/dashboard/keys").await.text();
    assert_eq!(element_text(&list, &access).as_deref(), Some("links:write"));
    assert_eq!(post_link(&s, &secret).await.status, 201);

    // A form without the access choice (a client posting only the restrictions) keeps them.
    assert_eq!(save_settings(&mut c, &settings, &[]).await.status, 303);
    let list = c.get("/dashboard/keys").await.text();
    assert_eq!(element_text(&list, &access).as_deref(), Some("links:write"));
    s.get("/api/generate?data=x", &secret)
        .await
        .assert_error(403, NOT_AUTHORIZED);

    // Full access again (boxes left checked do not matter once full access is chosen).
    let r = save_settings(&mut c, &settings, &[("access", "full"), ("scope", "batch")]).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let list = c.get("/dashboard/keys").await.text();
    assert_eq!(element_text(&list, &access).as_deref(), Some("Full access"));
    assert_eq!(s.get("/api/generate?data=x", &secret).await.status, 200);

    // The forms keep their CSRF check.
    let r = c
        .post(
            &settings,
            &[
                ("csrf", "forged"),
                ("access", "scoped"),
                ("scope", "generate"),
            ],
        )
        .await;
    assert_ne!(r.status, 303);
    let r = c
        .post(
            "/dashboard/keys",
            &[("csrf", "forged"), ("name", "Forged"), ("access", "full")],
        )
        .await;
    assert_ne!(r.status, 201);
    let list = c.get("/dashboard/keys").await.text();
    assert_eq!(element_text(&list, &access).as_deref(), Some("Full access"));
    assert!(!list.contains("Forged"));
    s.stop().await;
}
