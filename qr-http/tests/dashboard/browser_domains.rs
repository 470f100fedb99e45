//! The browser journey's domain part, on the journey's Pro account: add a domain, see the TXT record to create with its copy buttons, press Check before and after the record exists on a real DNS server (dnsmasq on the loopback), see a visit to an unknown code, put a link on the domain and decode its code to `https://<domain>/<code>`.

use fantoccini::{Client, Locator};
use qr_test_support::servers::dnsmasq::{DnsZone, DnsmasqServer};
use serde_json::Value;

use crate::browser::{Camera, expect_text, fill, submit};
use crate::common::{self, TestServer};

const DOMAIN: &str = "go.journey.test";

pub(crate) async fn journey(
    browser: &Client,
    camera: &Camera,
    s: &TestServer,
    base: &str,
    dns: &DnsmasqServer,
) {
    browser
        .goto(&format!("{base}/dashboard/domains"))
        .await
        .unwrap();
    expect_text(browser, "h1", "Domains").await;
    expect_text(browser, "main", "No domains yet.").await;
    camera.snap(browser, "domains-empty").await;

    fill(browser, "domain-name", DOMAIN).await;
    submit(browser, "/dashboard/domains").await;
    expect_text(browser, "#domain-txt-name", "_qr-verify.go.journey.test").await;
    let value = expect_text(browser, "#domain-txt-value", "qr-verify=").await;
    for id in ["domain-txt-name", "domain-txt-value"] {
        let copy = browser
            .find(Locator::Css(&format!("[data-copy='{id}']")))
            .await
            .unwrap();
        assert!(
            copy.is_displayed().await.unwrap(),
            "the script shows the copy button"
        );
    }
    assert!(value.len() > 30, "{value}");
    camera.snap(browser, "domain-new").await;
    let page = browser.current_url().await.unwrap();
    let path = page.path().to_owned();

    browser
        .find(Locator::Id("domain-check"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // No record yet: the check says so and how to fix it.
    expect_text(browser, "#domain-status", "pending").await;
    expect_text(browser, "main", "NXDOMAIN").await;
    camera.snap(browser, "domain-check-missing").await;

    // The customer creates the record; the next check finds it.
    dns.serve(&DnsZone::new().txt("_qr-verify.go.journey.test", &[value.trim()]));
    browser
        .find(Locator::Id("domain-check"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    expect_text(browser, "#domain-status", "verified").await;

    // A misprinted code scanned on the domain is an orphan visit.
    let scan = s
        .send(
            "GET",
            "/MISPRNT",
            &[("host", DOMAIN), ("user-agent", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36")],
            "",
        )
        .await;
    assert_eq!(scan.status, 404);
    browser.goto(&format!("{base}{path}")).await.unwrap();
    expect_text(browser, "#domain-status", "verified").await;
    expect_text(browser, "#orphan-visits", "/MISPRNT").await;
    camera.snap(browser, "domain-verified").await;
    browser
        .goto(&format!("{base}/dashboard/domains"))
        .await
        .unwrap();
    expect_text(browser, "#domains", "verified").await;
    camera.snap(browser, "domains").await;

    // A link on the domain: its short URL and its code are on the domain.
    browser
        .goto(&format!("{base}/dashboard/links"))
        .await
        .unwrap();
    fill(browser, "link-name", "Journey box").await;
    fill(browser, "link-target", "https://shop.example/box").await;
    browser
        .find(Locator::Css(&format!(
            "#link-domain option[value='{DOMAIN}']"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    camera.snap(browser, "links-domain-form").await;
    submit(browser, "/dashboard/links").await;
    let short = expect_text(browser, "code.short", "https://go.journey.test/").await;
    camera.snap(browser, "links-domain").await;
    let image = browser
        .find(Locator::Css(&format!("img[alt='QR code of {short}']")))
        .await
        .unwrap();
    let svg = image.attr("src").await.unwrap().unwrap();
    let png = svg.replace("qr.svg", "qr.png");
    let bytes = browser
        .execute_async(
            "const done = arguments[arguments.length - 1];
             fetch(arguments[0]).then(r => r.arrayBuffer())
               .then(b => done(Array.from(new Uint8Array(b))));",
            vec![Value::String(png)],
        )
        .await
        .unwrap();
    let bytes: Vec<u8> = serde_json::from_value(bytes).unwrap();
    assert_eq!(
        common::decode_png(&bytes),
        short,
        "the code holds the domain's URL"
    );
}
