//! Teams in a real browser (chromium through chromedriver, its WebDriver virtual authenticator for passkeys, a loopback SMTP server, the real oidc-provider): an owner invites a member by e-mail, the member accepts by signing up through the mail's link, creates a link and cannot see the keys; the owner requires two-factor login, the member enrols an authenticator app and logs in with its code; the member adds a passkey, logs in with it alone and then as the second step after the password; and a person signs in through the workspace's OpenID provider.
//!
//! The server's base URL is `http://localhost:<port>`: browsers offer passkeys to domain names
//! only. Skips with one line when chromium or chromedriver is missing (fails instead under
//! `QR_REQUIRE_SUITES`); `QR_SCREENSHOT_DIR=DIR` saves every page at desktop and phone widths.

use std::path::PathBuf;

use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, Locator};
use hyper::Method;
use qr_domain::Clock;
use qr_domain::chrono::{Duration, Utc};
use qr_domain::dashboard::totp::TotpSecret;
use serde_json::json;

use crate::browser::{
    Camera, click, expect_text, fill, open_chromium, password_login, submit, which,
};
use crate::browser_sso::{set_up_sso, sign_in_with_sso};
use crate::common::web::{PASSWORD, customer, set_plan, start_at_localhost};
use crate::common::{TestServer, decode_png};
use crate::invitations::invitation_link;
use crate::sso::provider_for;
use crate::two_factor::code_now;

const OWNER: &str = "owner@corp.test";
const MEMBER: &str = "mia@corp.test";
const MEMBER_PASSWORD: &str = "a long walk by the river";

/// WebDriver's "Add Virtual Authenticator" (WebAuthn Level 3 §11.3): a platform authenticator
/// (CTAP2, internal transport) that keeps discoverable credentials, verifies its user, and
/// consents to every prompt, as a phone's or laptop's screen lock would.
#[derive(Debug)]
struct AddVirtualAuthenticator;

impl WebDriverCompatibleCommand for AddVirtualAuthenticator {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        let session = session_id.expect("a session");
        base_url.join(&format!("session/{session}/webauthn/authenticator"))
    }

    fn method_and_body(&self, _: &url::Url) -> (Method, Option<String>) {
        let options = json!({
            "protocol": "ctap2",
            "transport": "internal",
            "hasResidentKey": true,
            "hasUserVerification": true,
            "isUserConsenting": true,
            "isUserVerified": true,
        });
        (Method::POST, Some(options.to_string()))
    }
}

/// On the security page: begins enrolment, reads the key, checks the QR code on the page says the
/// same, confirms with the app's current code; answers the key.
async fn enrol_totp(browser: &Client, s: &TestServer, base: &str, camera: &Camera) -> TotpSecret {
    browser
        .goto(&format!("{base}/dashboard/account/security"))
        .await
        .unwrap();
    click(browser, "totp-begin").await;
    let shown = expect_text(browser, "#totp-secret", "").await;
    let secret = TotpSecret::parse_base32(shown.trim()).unwrap();
    // The QR code as the browser received it reads back to the same key.
    let png = browser
        .execute(
            "const r = await fetch('/dashboard/account/security/totp.png');
             const bytes = new Uint8Array(await r.arrayBuffer());
             return Array.from(bytes);",
            vec![],
        )
        .await
        .unwrap();
    let png: Vec<u8> = serde_json::from_value(png).unwrap();
    let uri = decode_png(&png);
    assert!(uri.contains(&format!("secret={}&", shown.trim())), "{uri}");
    camera.snap(browser, "teams-totp-enrol").await;
    fill(browser, "totp-code", &code_now(s, &secret)).await;
    submit(browser, "/dashboard/account/security/totp/confirm").await;
    expect_text(browser, "h1", "recovery codes").await;
    secret
}

/// Moves the server's clock to the next 30 s step: a code is accepted once, so a login right
/// after enrolment needs the app's next code.
fn next_step(s: &TestServer) {
    s.clock.set(s.clock.now() + Duration::seconds(30));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_in_chromium_invitations_roles_two_factor_passkeys_and_single_sign_on() {
    let (Some(chromium), Some(chromedriver)) = (which("chromium"), which("chromedriver")) else {
        assert!(
            std::env::var_os("QR_REQUIRE_SUITES").is_none(),
            "the browser suite is required: apt-get install chromium chromium-driver"
        );
        eprintln!("skipped: the teams browser journey needs chromium and chromedriver");
        return;
    };
    let (s, smtp) = start_at_localhost(|c| c.sso_allow_private_issuers = true).await;
    // The provider signs its tokens with the real time.
    s.clock.set(Utc::now());
    let _owner_http = customer(&s, &smtp, OWNER).await;
    set_plan(&s, OWNER, qr_domain::Plan::Pro);
    let Some(provider) = provider_for(&s) else {
        return;
    };
    let camera = Camera {
        dir: std::env::var_os("QR_SCREENSHOT_DIR").map(PathBuf::from),
    };
    if let Some(dir) = &camera.dir {
        std::fs::create_dir_all(dir).unwrap();
    }
    let base = s.handle.app().base_url().to_owned();
    assert!(base.starts_with("http://localhost:"), "{base}");
    let chromium = open_chromium(&chromium, &chromedriver).await;
    let browser = chromium.browser.clone();
    browser
        .issue_cmd(AddVirtualAuthenticator)
        .await
        .expect("chromedriver adds a virtual authenticator");

    // The owner invites Mia as a member.
    password_login(&browser, &base, OWNER, PASSWORD).await;
    expect_text(&browser, "h1", "Overview").await;
    browser
        .goto(&format!("{base}/dashboard/members"))
        .await
        .unwrap();
    fill(&browser, "invite-email", MEMBER).await;
    browser
        .find(Locator::Css("#invite-role option[value='member']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    click(&browser, "invite-send").await;
    expect_text(&browser, "main", MEMBER).await;
    camera.snap(&browser, "teams-invited").await;

    // Mia opens the mail's link in a browser without the owner's session and signs up through it.
    let link = invitation_link(&smtp, MEMBER, 1);
    let path = &link[link.find("/dashboard/invitation").unwrap()..];
    browser.delete_all_cookies().await.unwrap();
    browser.goto(&format!("{base}{path}")).await.unwrap();
    camera.snap(&browser, "teams-invitation").await;
    fill(&browser, "invitation-password", MEMBER_PASSWORD).await;
    click(&browser, "invitation-signup").await;
    let line = expect_text(&browser, "header", " · ").await;
    assert!(line.contains("Member"), "{line}");

    // She creates a link, and the keys are neither in the navigation nor open to her.
    browser
        .goto(&format!("{base}/dashboard/links"))
        .await
        .unwrap();
    fill(&browser, "link-name", "Team flyer").await;
    fill(&browser, "link-target", "https://example.com/flyer").await;
    submit(&browser, "/dashboard/links").await;
    expect_text(&browser, "main", "Team flyer").await;
    let nav = expect_text(&browser, "nav[aria-label=Dashboard]", "Links").await;
    assert!(!nav.contains("API keys"), "{nav}");
    browser
        .goto(&format!("{base}/dashboard/keys"))
        .await
        .unwrap();
    expect_text(&browser, "main", "does not allow this").await;

    // The owner enrols an app (required before requiring it of others) and requires it.
    password_login(&browser, &base, OWNER, PASSWORD).await;
    expect_text(&browser, "h1", "Overview").await;
    let owner_app = enrol_totp(&browser, &s, &base, &camera).await;
    browser
        .goto(&format!("{base}/dashboard/account/security"))
        .await
        .unwrap();
    click(&browser, "require-2fa").await;
    submit(&browser, "/dashboard/account/security/require").await;
    expect_text(&browser, ".notice", "must now use two-factor login").await;

    // Mia logs in and is sent to enrolment; she enrols and logs in again with the app's code.
    password_login(&browser, &base, MEMBER, MEMBER_PASSWORD).await;
    expect_text(
        &browser,
        "#two-factor-required",
        "requires two-factor login",
    )
    .await;
    camera.snap(&browser, "teams-2fa-required").await;
    let secret = enrol_totp(&browser, &s, &base, &camera).await;
    next_step(&s);
    password_login(&browser, &base, MEMBER, MEMBER_PASSWORD).await;
    expect_text(&browser, "h1", "Two-factor login").await;
    camera.snap(&browser, "teams-second-factor").await;
    fill(&browser, "second-factor-code", &code_now(&s, &secret)).await;
    submit(&browser, "/dashboard/login/second-factor").await;
    expect_text(&browser, "h1", "Overview").await;

    // She adds a passkey on the security page (the virtual authenticator answers).
    browser
        .goto(&format!("{base}/dashboard/account/security"))
        .await
        .unwrap();
    fill(&browser, "passkey-name", "Laptop").await;
    click(&browser, "passkey-add").await;
    expect_text(&browser, ".notice", "Passkey added").await;
    expect_text(&browser, "#passkeys-table", "Laptop").await;
    camera.snap(&browser, "teams-passkey-added").await;

    // With the passkey alone, instead of the password.
    browser.delete_all_cookies().await.unwrap();
    browser
        .goto(&format!("{base}/dashboard/login"))
        .await
        .unwrap();
    camera.snap(&browser, "teams-login").await;
    click(&browser, "passkey-login").await;
    let line = expect_text(&browser, "header", " · ").await;
    assert!(line.contains(MEMBER), "{line}");
    expect_text(&browser, "h1", "Overview").await;

    // And as the second step after the password.
    password_login(&browser, &base, MEMBER, MEMBER_PASSWORD).await;
    expect_text(&browser, "h1", "Two-factor login").await;
    click(&browser, "passkey-second-factor").await;
    expect_text(&browser, "h1", "Overview").await;
    browser
        .goto(&format!("{base}/dashboard/account/security"))
        .await
        .unwrap();
    let row = expect_text(&browser, "#passkeys-table", "Laptop").await;
    assert!(
        !row.contains("never"),
        "the passkey's last use is shown: {row}"
    );

    // The owner sets up single sign-on; Jane signs in through the provider and lands with the
    // default role (the workspace's requirement then sends her to enrolment).
    next_step(&s);
    password_login(&browser, &base, OWNER, PASSWORD).await;
    expect_text(&browser, "h1", "Two-factor login").await;
    fill(&browser, "second-factor-code", &code_now(&s, &owner_app)).await;
    submit(&browser, "/dashboard/login/second-factor").await;
    expect_text(&browser, "h1", "Overview").await;
    set_up_sso(
        &browser,
        &camera,
        &base,
        &provider.issuer(),
        "example.com",
        "viewer",
    )
    .await;
    browser.delete_all_cookies().await.unwrap();
    let line = sign_in_with_sso(&browser, &camera, &base, "jane@example.com").await;
    assert!(line.contains(&format!("{OWNER} · Viewer")), "{line}");
    chromium.browser.close().await.unwrap();
}
