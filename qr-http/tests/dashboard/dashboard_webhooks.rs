//! The dashboard's webhook form through the real server: an endpoint on a public host is registered with its secret shown once, and one written as a loopback, private, link-local or metadata address is refused with the API's message unless the operator allows private addresses.

use crate::common;

use common::web::{Client, customer, element_text, start};

/// Posts the webhook form with `url` and one event.
async fn add(c: &mut Client, url: &str) -> common::Resp {
    let csrf = c.csrf("/dashboard/webhooks").await;
    c.post(
        "/dashboard/webhooks",
        &[("csrf", &csrf), ("url", url), ("events", "link.created")],
    )
    .await
}

#[tokio::test]
async fn the_webhook_form_refuses_non_public_addresses_unless_allowed() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "hooks@example.com").await;
    for (url, message) in [
        ("http://127.0.0.1:9/hook", "127.0.0.1 is a loopback address"),
        (
            "http://169.254.169.254/latest/hook",
            "169.254.169.254 is a cloud metadata address",
        ),
        ("http://[::1]/hook", "[::1] is a loopback address"),
        (
            "https://192.168.1.20/hook",
            "192.168.1.20 is a private address",
        ),
        (
            "https://[fe80::1]/hook",
            "[fe80::1] is a link-local address",
        ),
    ] {
        let r = add(&mut c, url).await;
        assert_eq!(r.status, 422, "{url}: {}", r.text());
        let html = r.text();
        assert!(
            html.contains(&format!(
                "Invalid url: {message}; webhooks are only delivered to public addresses"
            )),
            "{url}: {html}"
        );
        assert!(
            html.contains("No webhooks yet."),
            "{url}: nothing registered"
        );
        assert!(
            html.contains(&format!("value=\"{url}\"")),
            "{url}: the form keeps what was typed"
        );
    }
    let r = add(&mut c, "https://hooks.example.com/qr").await;
    assert_eq!(r.status, 201, "{}", r.text());
    let secret = element_text(&r.text(), "new-webhook-secret").unwrap();
    assert!(secret.starts_with("whsec_"));
    s.stop().await;

    // With --webhooks-allow-private the same form registers a loopback receiver.
    let (s, smtp) = start(|c| c.webhooks.allow_private = true).await;
    let mut c = customer(&s, &smtp, "private@example.com").await;
    let r = add(&mut c, "http://127.0.0.1:9/hook").await;
    assert_eq!(r.status, 201, "{}", r.text());
    s.stop().await;
}
