//! The customer's whole journey in a real browser (Debian's chromium driven through chromedriver by fantoccini): sign up, the verification mail on a loopback SMTP server, verify, log in, create a key, use it, regenerate it, create a link, scan it, see the scan in the analytics, set the link's campaign settings, and add a domain and put a link on it (`browser_domains`).
//!
//! Skips with one line when chromium or chromedriver is missing, and fails instead when
//! `QR_REQUIRE_SUITES` is set. With `QR_SCREENSHOT_DIR=DIR` it saves a screenshot of every page
//! at a desktop and a phone width into DIR.

use crate::common;
use qr_test_support::servers::dnsmasq::{DnsZone, DnsmasqServer};

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::TestServer;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use qr_test_support::SmtpServer;
use serde_json::json;

const PASSWORD: &str = "plum tree at dawn";
/// An ordinary desktop browser: a headless browser's own agent is a bot, whose scans are not
/// recorded.
const USER_AGENT: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

pub(crate) fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| PathBuf::from(dir).join(program))
        .find(|p| p.is_file())
}

/// chromedriver on a free loopback port, stopped when dropped.
pub(crate) struct Driver {
    child: Child,
    pub(crate) port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn start_driver(chromedriver: &PathBuf) -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .arg("--allowed-ips=127.0.0.1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    Driver { child, port }
}

/// A headless chromium session through its own chromedriver, with a throwaway profile and an
/// ordinary desktop browser's agent; the profile and the driver go when this is dropped.
pub(crate) struct Chromium {
    pub(crate) browser: Client,
    _profile: tempfile::TempDir,
    _driver: Driver,
}

/// Starts chromedriver and opens a chromium session through it.
pub(crate) async fn open_chromium(chromium: &PathBuf, chromedriver: &PathBuf) -> Chromium {
    let driver = start_driver(chromedriver);
    let profile = tempfile::tempdir().unwrap();
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,1000",
                format!("--user-data-dir={}", profile.path().display()),
                format!("--user-agent={USER_AGENT}"),
            ]
        }),
    );
    let browser = ClientBuilder::new(HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a chromium session");
    Chromium {
        browser,
        _profile: profile,
        _driver: driver,
    }
}

/// Saves screenshots of the current page at a desktop and a phone width when asked to.
pub(crate) struct Camera {
    pub(crate) dir: Option<PathBuf>,
}

impl Camera {
    pub(crate) async fn snap(&self, browser: &Client, name: &str) {
        let Some(dir) = &self.dir else { return };
        for (suffix, width, height) in [("desktop", 1280, 1600), ("phone", 390, 1600)] {
            browser.set_window_size(width, height).await.unwrap();
            // A full-page screenshot: the window as tall as the page.
            let tall = browser
                .execute("return document.documentElement.scrollHeight;", vec![])
                .await
                .unwrap()
                .as_u64()
                .unwrap_or(1600)
                .clamp(600, 6000);
            browser
                .set_window_size(width, tall as u32 + 140)
                .await
                .unwrap();
            let png = browser.screenshot().await.unwrap();
            std::fs::write(dir.join(format!("{name}-{suffix}.png")), png).unwrap();
        }
        browser.set_window_size(1280, 1000).await.unwrap();
    }
}

pub(crate) async fn fill(browser: &Client, id: &str, text: &str) {
    let field = match browser.wait().for_element(Locator::Id(id)).await {
        Ok(field) => field,
        Err(e) => panic!(
            "no #{id} ({e}) on {:?}: {}",
            browser.current_url().await,
            browser.source().await.unwrap_or_default()
        ),
    };
    field.clear().await.unwrap();
    field.send_keys(text).await.unwrap();
}

/// Waits up to 15 s for the designer's live preview (a `blob:` image) to show `want` in the middle
/// of the top-left finder's centre: (75, 75) of a 330 px version 2 code with a 4-module margin.
async fn finder_becomes(browser: &Client, want: [u8; 3]) {
    let script = "const img = document.getElementById('preview-image');
        if (!img.src.startsWith('blob:') || !img.complete || !img.naturalWidth) return null;
        const canvas = document.createElement('canvas');
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        const g = canvas.getContext('2d');
        g.drawImage(img, 0, 0);
        return Array.from(g.getImageData(75, 75, 1, 1).data.slice(0, 3));";
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let seen = browser.execute(script, vec![]).await.unwrap();
        if seen == json!(want) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the preview's finder is {seen}, not {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Clicks the element with `id` once it is there.
pub(crate) async fn click(browser: &Client, id: &str) {
    browser
        .wait()
        .for_element(Locator::Id(id))
        .await
        .unwrap_or_else(|e| panic!("no #{id}: {e}"))
        .click()
        .await
        .unwrap();
}

/// Logs in on the login page with a password, in a browser without cookies; lands wherever the
/// server sends it (the overview, or the second step).
pub(crate) async fn password_login(browser: &Client, base: &str, email: &str, password: &str) {
    browser.delete_all_cookies().await.unwrap();
    browser
        .goto(&format!("{base}/dashboard/login"))
        .await
        .unwrap();
    fill(browser, "email", email).await;
    fill(browser, "password", password).await;
    submit(browser, "/dashboard/login").await;
}

pub(crate) async fn submit(browser: &Client, form_action: &str) {
    browser
        .wait()
        .for_element(Locator::Css(&format!(
            "form[action='{form_action}'] button[type=submit]"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// The text of the first element matching `css` once it contains `want`, waiting up to 15 s
/// (a page being replaced by the next one makes elements stale meanwhile).
pub(crate) async fn expect_text(browser: &Client, css: &str, want: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Ok(element) = browser.find(Locator::Css(css)).await
            && let Ok(text) = element.text().await
            && text.contains(want)
        {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "no {css} with {want:?} on {:?}",
            browser.current_url().await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_customer_journey_in_a_real_browser() {
    let (Some(chromium), Some(chromedriver)) = (which("chromium"), which("chromedriver")) else {
        assert!(
            std::env::var_os("QR_REQUIRE_SUITES").is_none(),
            "the browser suite is required: apt-get install chromium chromium-driver"
        );
        eprintln!(
            "skipped: the browser journey needs chromium and chromedriver (apt-get install chromium chromium-driver)"
        );
        return;
    };
    let camera = Camera {
        dir: std::env::var_os("QR_SCREENSHOT_DIR").map(PathBuf::from),
    };
    if let Some(dir) = &camera.dir {
        std::fs::create_dir_all(dir).unwrap();
    }
    let smtp = SmtpServer::start();
    let smtp_url = smtp.url();
    // The domain part verifies its domain against a real DNS server on the loopback.
    let dns = DnsmasqServer::start("the browser journey's domains", &DnsZone::new());
    let dns_server = dns.as_ref().map(DnsmasqServer::address);
    let s = TestServer::start(move |c| {
        c.smtp_url = Some(smtp_url);
        if let Some(address) = dns_server {
            c.domains.dns_server = Some(address);
        }
    })
    .await;
    let base = format!("http://{}", s.addr);
    let chromium = open_chromium(&chromium, &chromedriver).await;
    let browser = chromium.browser.clone();

    // The landing page, then sign-up.
    browser.goto(&format!("{base}/")).await.unwrap();
    camera.snap(&browser, "landing").await;
    browser
        .find(Locator::LinkText("API reference"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    expect_text(&browser, "h1", "API reference").await;
    camera.snap(&browser, "api-reference").await;
    browser.back().await.unwrap();
    browser
        .find(Locator::LinkText("Create a free account"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    camera.snap(&browser, "signup").await;
    fill(&browser, "email", "journey@example.com").await;
    fill(&browser, "password", PASSWORD).await;
    submit(&browser, "/dashboard/signup").await;
    expect_text(&browser, "h1", "Check your inbox").await;

    // The verification mail reaches the SMTP server; its link verifies the address.
    let mail = smtp.wait_for(1, Duration::from_secs(15)).remove(0);
    assert_eq!(mail.to, vec!["journey@example.com"]);
    let link = mail
        .link_containing("/dashboard/verify?token=")
        .expect("a verification link");
    browser.goto(&link).await.unwrap();
    camera.snap(&browser, "verify").await;
    submit(&browser, "/dashboard/verify").await;
    expect_text(&browser, "h1", "Address verified").await;

    // Log in.
    browser
        .goto(&format!("{base}/dashboard/login"))
        .await
        .unwrap();
    fill(&browser, "email", "journey@example.com").await;
    fill(&browser, "password", "not the password").await;
    submit(&browser, "/dashboard/login").await;
    expect_text(&browser, "#login-error", "not correct").await;
    camera.snap(&browser, "login").await;
    fill(&browser, "password", PASSWORD).await;
    submit(&browser, "/dashboard/login").await;
    expect_text(&browser, "h1", "Overview").await;

    // A key: shown once in #new-api-key, with a copy button the script reveals.
    browser
        .goto(&format!("{base}/dashboard/keys"))
        .await
        .unwrap();
    fill(&browser, "key-name", "Journey server").await;
    submit(&browser, "/dashboard/keys").await;
    let key = expect_text(&browser, "#new-api-key", "qrapi_live_").await;
    assert!(key.starts_with("qrapi_live_") && key.len() == 43, "{key}");
    let copy = browser
        .find(Locator::Css("[data-copy='new-api-key']"))
        .await
        .unwrap();
    assert!(
        copy.is_displayed().await.unwrap(),
        "the script shows the copy button"
    );
    camera.snap(&browser, "keys-new").await;
    let generated = s.get("/api/generate?data=journey", &key).await;
    assert_eq!(generated.status, 200);
    assert_eq!(common::decode_png(&generated.body), "journey");

    // Regenerate (confirming the dialog): the old key fails on the very next request.
    browser
        .goto(&format!("{base}/dashboard/keys"))
        .await
        .unwrap();
    browser
        .find(Locator::Css("form[action$='/regenerate'] button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser.accept_alert().await.unwrap();
    let fresh = loop {
        let shown = expect_text(&browser, "#new-api-key", "qrapi_live_").await;
        if shown != key {
            break shown;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_ne!(fresh, key);
    s.get("/api/generate?data=journey", &key)
        .await
        .assert_error(401, "Invalid API key");
    assert_eq!(
        s.get("/api/generate?data=journey", &fresh).await.status,
        200
    );
    browser
        .goto(&format!("{base}/dashboard/keys"))
        .await
        .unwrap();
    browser
        .find(Locator::LinkText("Settings"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    camera.snap(&browser, "key-settings").await;

    // A link whose target is this server (no traffic leaves loopback), then a scan of it.
    browser
        .goto(&format!("{base}/dashboard/links"))
        .await
        .unwrap();
    fill(&browser, "link-name", "Journey flyer").await;
    fill(&browser, "link-target", &format!("{base}/?from=flyer")).await;
    submit(&browser, "/dashboard/links").await;
    let short = expect_text(&browser, "code.short", "/r/").await;
    camera.snap(&browser, "links").await;
    browser.goto(&short).await.unwrap();
    assert_eq!(
        browser.current_url().await.unwrap().as_str(),
        format!("{base}/?from=flyer")
    );

    // The scan shows on the link's analytics page.
    browser
        .goto(&format!("{base}/dashboard/links"))
        .await
        .unwrap();
    browser
        .find(Locator::LinkText("Analytics"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    expect_text(&browser, "#total-scans", "1").await;
    let recent = expect_text(&browser, "#recent-scans", "Chrome").await;
    assert!(
        recent.contains("desktop") && recent.contains("Chrome"),
        "{recent}"
    );
    camera.snap(&browser, "analytics").await;
    // At a desktop width the breakdowns' names wrap between words, never inside one ("Direct
    // (none)" broke as "Direct (no" / "ne)" in the referrers' card at 1,280 px).
    browser.set_window_size(1280, 1000).await.unwrap();
    let broken = browser
        .execute(
            "const broken = [];
             for (const cell of document.querySelectorAll('table.shares th')) {
               const text = cell.firstChild;
               let at = 0;
               for (const word of text.textContent.split(' ')) {
                 const range = document.createRange();
                 range.setStart(text, at);
                 range.setEnd(text, at + word.length);
                 const lines = new Set(Array.from(range.getClientRects(), r => Math.round(r.top)));
                 if (lines.size > 1) broken.push(word);
                 at += word.length + 1;
               }
             }
             return broken;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(broken, json!([]), "words broken in two");
    let source = browser.source().await.unwrap();
    assert!(
        source.contains(">Direct (none)</th>"),
        "the scan has no referrer"
    );
    assert!(!source.contains(">XX<"), "an unknown country reads Unknown");

    // The audit log lists what the journey changed, with the user as actor.
    browser
        .goto(&format!("{base}/dashboard/audit"))
        .await
        .unwrap();
    expect_text(&browser, "#audit-entries", "link.created").await;
    camera.snap(&browser, "audit").await;

    // The other pages of the account, for the screenshots and the script's live preview.
    browser
        .goto(&format!("{base}/dashboard/links"))
        .await
        .unwrap();
    browser
        .find(Locator::LinkText("Edit"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    camera.snap(&browser, "link-edit").await;

    // The campaign settings: on Free, what the plan lacks is greyed out with the plan needed.
    browser
        .find(Locator::Css("#campaign > summary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    expect_text(&browser, "#link-rules-plan", "Needs the Pro plan").await;
    assert!(
        !browser
            .find(Locator::Id("link-rules-0-device"))
            .await
            .unwrap()
            .is_enabled()
            .await
            .unwrap()
    );
    camera.snap(&browser, "link-edit-campaign-free").await;
    // On Pro: opened, filled and saved, then read through the API.
    let svc = s.handle.app().service();
    let journey = svc
        .account_by_email(&qr_domain::Email::parse("journey@example.com").unwrap())
        .unwrap()
        .unwrap();
    svc.set_plan(journey.id, qr_domain::Plan::Pro).unwrap();
    browser.refresh().await.unwrap();
    let edit_url = browser.current_url().await.unwrap();
    let link_id = edit_url.path().split('/').nth(3).unwrap().to_owned();
    browser
        .find(Locator::Css("#campaign > summary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let typed = [
        ("link-short-code", "journey-25".to_owned()),
        ("link-tags", "print, journey".to_owned()),
        ("link-max-scans", "1000".to_owned()),
        ("link-expired-url", format!("{base}/?ended=1")),
        ("link-password", "open sesame".to_owned()),
        ("link-utm-source", "flyer".to_owned()),
        ("link-utm-medium", "print".to_owned()),
        ("link-rules-0-country", "de".to_owned()),
        ("link-rules-0-target", format!("{base}/?from=iphone")),
        ("link-variants-0-target", format!("{base}/?variant=a")),
        ("link-variants-0-weight", "1".to_owned()),
        ("link-variants-1-target", format!("{base}/?variant=b")),
        ("link-variants-1-weight", "3".to_owned()),
    ];
    for (id, text) in &typed {
        fill(&browser, id, text).await;
    }
    // A datetime-local control takes keys in the browser's locale; its value is set as a
    // script would, in the form's own format.
    browser
        .execute(
            "document.getElementById('link-valid-from').value = '2024-05-01T08:00';",
            vec![],
        )
        .await
        .unwrap();
    browser
        .find(Locator::Id("link-forward-query"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    for (id, value) in [
        ("link-rules-0-device", "mobile"),
        ("link-rules-0-os", "ios"),
    ] {
        browser
            .find(Locator::Id(id))
            .await
            .unwrap()
            .select_by_value(value)
            .await
            .unwrap();
    }
    camera.snap(&browser, "link-edit-campaign-filled").await;
    submit(&browser, &format!("/dashboard/links/{link_id}/edit")).await;
    expect_text(&browser, ".notice", "The link was saved").await;
    expect_text(&browser, ".badges", "journey").await;
    camera.snap(&browser, "links-badges").await;
    // The test clock stands still: a second passes for the key's rate limit.
    s.clock.advance(qr_domain::chrono::Duration::seconds(1));
    let listed = s.get("/api/links?search=journey-25", &fresh).await.json();
    let saved = &listed["links"][0];
    assert_eq!(saved["id"], json!(link_id), "{listed}");
    assert_eq!(saved["tags"], json!(["print", "journey"]));
    assert_eq!(saved["validFrom"], json!("2024-05-01T08:00:00Z"));
    assert_eq!(saved["maxScans"], json!(1000));
    assert_eq!(saved["hasPassword"], json!(true));
    assert_eq!(saved["forwardQuery"], json!(true));
    assert_eq!(saved["utm"], json!({"source": "flyer", "medium": "print"}));
    assert_eq!(
        saved["rules"],
        json!([{"when": {"device": "mobile", "os": "ios", "country": "DE"}, "targetUrl": format!("{base}/?from=iphone")}])
    );
    assert_eq!(saved["variants"][1]["weight"], json!(3));
    browser.goto(edit_url.as_str()).await.unwrap();
    expect_text(&browser, "#link-password-state", "A password is set").await;
    camera.snap(&browser, "link-edit-campaign").await;
    // A refused value is shown by its field, in its row.
    fill(&browser, "link-rules-0-country", "Germany").await;
    submit(&browser, &format!("/dashboard/links/{link_id}/edit")).await;
    expect_text(&browser, "#link-rules-0-country-error", "two-letter").await;
    camera.snap(&browser, "link-edit-campaign-error").await;
    browser
        .goto(&format!("{base}/dashboard/links"))
        .await
        .unwrap();
    browser
        .find(Locator::Css(".link-actions a.danger"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    camera.snap(&browser, "link-delete").await;
    browser
        .goto(&format!("{base}/dashboard/design"))
        .await
        .unwrap();
    // Nothing moves while the designer loads: the preview's box keeps its place and size when
    // the first live preview arrives, and the page records no layout shift (Lighthouse measured
    // 0.23 when the script hid the content types' fields after the first paint).
    let preview_box = "const r = document.querySelector('.preview-box').getBoundingClientRect();
        return [r.x, r.y, r.width, r.height];";
    let empty_box = browser.execute(preview_box, vec![]).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let image = browser.find(Locator::Id("preview-image")).await.unwrap();
        let src = image.attr("src").await.unwrap().unwrap_or_default();
        if src.starts_with("blob:") && image.is_displayed().await.unwrap() {
            break;
        }
        assert!(Instant::now() < deadline, "no live preview at load");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        browser.execute(preview_box, vec![]).await.unwrap(),
        empty_box
    );
    let shifts = browser
        .execute_async(
            "const done = arguments[arguments.length - 1];
             new PerformanceObserver((list) => done(list.getEntries()
                 .filter(e => !e.hadRecentInput).map(e => e.value)))
               .observe({type: 'layout-shift', buffered: true});
             setTimeout(() => done([]), 1000);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(shifts, json!([]), "layout shifts while the designer loads");
    fill(&browser, "f-data", "https://example.com/designed").await;
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let image = browser.find(Locator::Id("preview-image")).await.unwrap();
        let src = image.attr("src").await.unwrap().unwrap_or_default();
        if src.starts_with("blob:") {
            break;
        }
        assert!(Instant::now() < deadline, "no live preview");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    camera.snap(&browser, "design").await;
    // A preset applied in place: its pictures' radios are ticked and the preview follows; a
    // pale colour brings the contrast advice live, a dark one takes it away.
    let checked =
        |name: &str| format!("return document.querySelector('input[name={name}]:checked').value;");
    browser
        .find(Locator::Css("button[name=preset][value=dots]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert_eq!(
        browser.execute(&checked("style"), vec![]).await.unwrap(),
        "dots"
    );
    assert_eq!(
        browser
            .execute(&checked("finderStyle"), vec![])
            .await
            .unwrap(),
        "circle"
    );
    let set_colour = |hex: &str| {
        format!(
            "const p = document.getElementById('f-color'); p.value = '{hex}';
             p.dispatchEvent(new Event('input', {{bubbles: true}}));"
        )
    };
    let warning = "const w = document.getElementById('contrast-warning');
        return w.hidden ? '' : w.textContent;";
    browser
        .execute(&set_colour("#8a8a8a"), vec![])
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    while !browser
        .execute(warning, vec![])
        .await
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .starts_with("Low contrast (3.45:1)")
    {
        assert!(Instant::now() < deadline, "no live contrast advice");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    camera.snap(&browser, "design-preset-contrast").await;
    browser
        .execute(&set_colour("#000000"), vec![])
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    while browser.execute(warning, vec![]).await.unwrap() != "" {
        assert!(Instant::now() < deadline, "the advice stays");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    browser
        .find(Locator::Css("button[name=preset][value=classic]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert_eq!(
        browser.execute(&checked("style"), vec![]).await.unwrap(),
        "square"
    );
    // A colour without a default: its box starts ticked (the finders follow color); picking a
    // colour clears it and the preview's finders take it; ticking it again goes back.
    // The size is among the output settings, folded until opened.
    browser
        .find(Locator::Css("#section-output > summary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    fill(&browser, "f-size", "330").await;
    fill(&browser, "f-data", "https://example.com/finder").await;
    let ticked = "return document.getElementById('d-finderColor').checked;";
    assert_eq!(browser.execute(ticked, vec![]).await.unwrap(), true);
    finder_becomes(&browser, [0, 0, 0]).await;
    browser
        .execute(
            "const p = document.getElementById('f-finderColor'); p.value = '#c62828';
             p.dispatchEvent(new Event('input', {bubbles: true}));",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(browser.execute(ticked, vec![]).await.unwrap(), false);
    finder_becomes(&browser, [0xc6, 0x28, 0x28]).await;
    camera.snap(&browser, "design-finder-colour").await;
    browser
        .find(Locator::Id("d-finderColor"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert_eq!(browser.execute(ticked, vec![]).await.unwrap(), true);
    finder_becomes(&browser, [0, 0, 0]).await;
    // The Preview button (the form without the script): the page comes back with the box ticked
    // and the picker keeping its colour.
    browser
        .find(Locator::Id("preview-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let picker = "return document.getElementById('f-finderColor').value;";
    let deadline = Instant::now() + Duration::from_secs(15);
    while browser.execute(picker, vec![]).await.ok() != Some(json!("#c62828"))
        || browser.execute(ticked, vec![]).await.ok() != Some(json!(true))
        || !browser
            .current_url()
            .await
            .unwrap()
            .as_str()
            .ends_with("/dashboard/design")
        || browser.find(Locator::Css("#preview-hint")).await.is_ok()
    {
        assert!(Instant::now() < deadline, "no designer page after Preview");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    finder_becomes(&browser, [0, 0, 0]).await;
    // A content type: its fields appear, the content box goes, and the preview follows.
    let before = browser
        .find(Locator::Id("preview-image"))
        .await
        .unwrap()
        .attr("src")
        .await
        .unwrap()
        .unwrap_or_default();
    browser
        .find(Locator::Id("f-type"))
        .await
        .unwrap()
        .select_by_value("wifi")
        .await
        .unwrap();
    let hidden =
        |id: &str| format!("return document.getElementById('{id}').closest('.field').hidden;");
    assert_eq!(
        browser.execute(&hidden("f-data"), vec![]).await.unwrap(),
        true
    );
    assert_eq!(
        browser.execute(&hidden("f-ssid"), vec![]).await.unwrap(),
        false
    );
    assert_eq!(
        browser
            .execute(&hidden("f-latitude"), vec![])
            .await
            .unwrap(),
        true
    );
    fill(&browser, "f-ssid", "Guest").await;
    fill(&browser, "f-password", "welcome-2025").await;
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let image = browser.find(Locator::Id("preview-image")).await.unwrap();
        let src = image.attr("src").await.unwrap().unwrap_or_default();
        if src.starts_with("blob:") && src != before {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no live preview of the Wi-Fi code"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    camera.snap(&browser, "design-wifi").await;
    // Saved as a design: the designs page lists it with a preview that loaded.
    fill(&browser, "f-designName", "Journey brand").await;
    browser
        .find(Locator::Id("save-design-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let loaded = "const i = document.querySelector('#designs img'); \
                  return !!i && i.complete && i.naturalWidth > 0;";
    let deadline = Instant::now() + Duration::from_secs(15);
    while browser.execute(loaded, vec![]).await.ok() != Some(json!(true)) {
        assert!(Instant::now() < deadline, "no designs page with a preview");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let listed = browser
        .find(Locator::Css("#designs h3"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(listed, "Journey brand");
    camera.snap(&browser, "designs").await;
    // Label sheets: the print form, sent by the browser as a submission would send it.
    browser
        .goto(&format!("{base}/dashboard/links/print"))
        .await
        .unwrap();
    browser
        .find(Locator::Id("print-layout"))
        .await
        .unwrap()
        .select_by_value("L7163")
        .await
        .unwrap();
    camera.snap(&browser, "print").await;
    let send = "const done = arguments[arguments.length - 1];
        const form = document.getElementById('print-form');
        fetch(form.action, {method: 'POST', body: new URLSearchParams(new FormData(form)), credentials: 'same-origin'})
          .then(async (r) => done([r.status, r.headers.get('content-type'),
                 String.fromCharCode(...new Uint8Array(await r.arrayBuffer()).slice(0, 4))]));";
    let answer = browser.execute_async(send, vec![]).await.unwrap();
    assert_eq!(answer, json!([200, "application/pdf", "%PDF"]));
    match &dns {
        Some(dns) => crate::browser_domains::journey(&browser, &camera, &s, &base, dns).await,
        None => eprintln!("skipped: the journey's domain part needs dnsmasq"),
    }
    browser.goto(&format!("{base}/dashboard")).await.unwrap();
    camera.snap(&browser, "overview").await;
    browser
        .goto(&format!("{base}/dashboard/account"))
        .await
        .unwrap();
    camera.snap(&browser, "account").await;
    browser
        .goto(&format!("{base}/dashboard/reset"))
        .await
        .unwrap();
    camera.snap(&browser, "reset").await;
    browser
        .goto(&format!("{base}/dashboard/nothing"))
        .await
        .unwrap();
    camera.snap(&browser, "not-found").await;

    // Log out, then the owner's admin page.
    browser.goto(&format!("{base}/dashboard")).await.unwrap();
    submit(&browser, "/dashboard/logout").await;
    expect_text(&browser, "h1", "QR codes").await;
    let owner_link = s.handle.owner_password_link().unwrap().to_owned();
    browser.goto(&owner_link).await.unwrap();
    fill(&browser, "password", PASSWORD).await;
    submit(&browser, "/dashboard/reset/password").await;
    expect_text(&browser, "h1", "Password changed").await;
    browser
        .goto(&format!("{base}/dashboard/login"))
        .await
        .unwrap();
    fill(&browser, "email", "owner@qr-platform.local").await;
    fill(&browser, "password", PASSWORD).await;
    submit(&browser, "/dashboard/login").await;
    expect_text(&browser, "h1", "Overview").await;
    browser
        .goto(&format!("{base}/dashboard/admin"))
        .await
        .unwrap();
    expect_text(&browser, "#accounts", "journey@example.com").await;
    camera.snap(&browser, "admin").await;

    chromium.browser.close().await.unwrap();
    s.stop().await;
}
