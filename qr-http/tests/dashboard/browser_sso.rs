//! Single sign-on in a real browser (chromium through chromedriver) against a real OpenID provider (oidc-provider on Node): the owner sets the workspace's provider on the settings page, then a person from an allowed domain signs in through the provider's login form and lands in the workspace with the default role. The steps are `pub(crate)` for a longer journey.

use std::path::PathBuf;

use fantoccini::{Client, Locator};

use crate::browser::{Camera, expect_text, fill, open_chromium, password_login, submit, which};
use crate::sso::{APP_SECRET, provider_for, sso_server};

/// On the settings page as the owner: the provider at `issuer`, the client `app`, people of
/// `domains` joining as `role`; checks the secret is not shown back.
pub(crate) async fn set_up_sso(
    browser: &Client,
    camera: &Camera,
    base: &str,
    issuer: &str,
    domains: &str,
    role: &str,
) {
    browser
        .goto(&format!("{base}/dashboard/sso"))
        .await
        .unwrap();
    expect_text(browser, "h1", "Single sign-on").await;
    camera.snap(browser, "sso-settings-empty").await;
    fill(browser, "sso-issuer", issuer).await;
    fill(browser, "sso-client-id", "app").await;
    fill(browser, "sso-client-secret", APP_SECRET).await;
    fill(browser, "sso-domains", domains).await;
    browser
        .find(Locator::Css(&format!("#sso-role option[value='{role}']")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .find(Locator::Id("sso-save"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    expect_text(browser, ".notice", "single sign-on is on").await;
    let source = browser.source().await.unwrap();
    assert!(
        !source.contains(APP_SECRET),
        "the secret is never shown back"
    );
    camera.snap(browser, "sso-settings-saved").await;
}

/// From the login page in a browser without a session: the single sign-on link, the work
/// address, the provider's login form as `email`, and back in the dashboard; answers the
/// navigation's workspace line (`<workspace> · <Role>`).
pub(crate) async fn sign_in_with_sso(
    browser: &Client,
    camera: &Camera,
    base: &str,
    email: &str,
) -> String {
    browser
        .goto(&format!("{base}/dashboard/login"))
        .await
        .unwrap();
    browser
        .find(Locator::LinkText("Sign in with single sign-on"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    expect_text(browser, "h1", "Sign in with single sign-on").await;
    camera.snap(browser, "sso-start").await;
    fill(browser, "sso-email", email).await;
    submit(browser, "/dashboard/login/sso").await;
    // The provider's own login page (its one field is `#login`).
    fill(browser, "login", email).await;
    browser
        .find(Locator::Css("button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let line = expect_text(browser, "header", " · ").await;
    camera.snap(browser, "sso-landed").await;
    line
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sso_login_in_chromium_lands_in_the_workspace_with_the_default_role() {
    let (Some(chromium), Some(chromedriver)) = (which("chromium"), which("chromedriver")) else {
        assert!(
            std::env::var_os("QR_REQUIRE_SUITES").is_none(),
            "the browser suite is required: apt-get install chromium chromium-driver"
        );
        eprintln!("skipped: the single sign-on browser test needs chromium and chromedriver");
        return;
    };
    let (s, _smtp, _owner) = sso_server("owner@corp.test").await;
    let Some(provider) = provider_for(&s) else {
        return;
    };
    let camera = Camera {
        dir: std::env::var_os("QR_SCREENSHOT_DIR").map(PathBuf::from),
    };
    if let Some(dir) = &camera.dir {
        std::fs::create_dir_all(dir).unwrap();
    }
    let base = format!("http://{}", s.addr);
    let chromium = open_chromium(&chromium, &chromedriver).await;
    let browser = chromium.browser.clone();

    // The owner logs in with the password and sets the provider up.
    password_login(
        &browser,
        &base,
        "owner@corp.test",
        crate::common::web::PASSWORD,
    )
    .await;
    expect_text(&browser, "h1", "Overview").await;
    set_up_sso(
        &browser,
        &camera,
        &base,
        &provider.issuer(),
        "example.com",
        "member",
    )
    .await;

    // Jane, in the same browser after the owner's cookies are gone, signs in through it.
    browser.delete_all_cookies().await.unwrap();
    let line = sign_in_with_sso(&browser, &camera, &base, "jane@example.com").await;
    assert!(line.contains("owner@corp.test · Member"), "{line}");
    assert!(line.contains("jane@example.com"), "{line}");
    chromium.browser.close().await.unwrap();
}
