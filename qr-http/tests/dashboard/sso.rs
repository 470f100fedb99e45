//! Single sign-on through the real server against a real, certified OpenID provider (oidc-provider on Node): the settings page (owners and admins, the secret never shown back, CSRF), a sign-in landing in the workspace with the default role, a second one as the same user, and the refusals (a domain nobody lists, a replayed callback, a code for another client, another browser's callback).

use qr_domain::Plan;
use qr_domain::chrono::Utc;
use qr_test_support::servers::oidc::{
    OidcAccount, OidcClient, OidcProviderConfig, OidcProviderServer,
};

use crate::common::web::{Client, csrf_in, customer, element_text, path_of, set_plan, start};
use crate::common::{Resp, TestServer};

const SUITE: &str = "the dashboard's single sign-on tests";
/// The secret of the provider's client `app`; the pages must never show it.
pub(crate) const APP_SECRET: &str = "app-secret-7Hq2";

/// The server's callback URL, registered at the provider.
fn redirect_uri(s: &TestServer) -> String {
    format!("{}/dashboard/login/sso/callback", s.handle.app().base_url())
}

/// A provider for `s` with clients `app` and `other`, and the people jane and joe (example.com)
/// and olga (example.org), all verified.
pub(crate) fn provider_for(s: &TestServer) -> Option<OidcProviderServer> {
    let client = |id: &str, secret: &str| OidcClient {
        client_id: id.to_owned(),
        client_secret: secret.to_owned(),
        redirect_uris: vec![redirect_uri(s)],
        id_token_algorithm: "RS256".to_owned(),
    };
    let person = |sub: &str, email: &str| OidcAccount {
        sub: sub.to_owned(),
        email: Some(email.to_owned()),
        email_verified: Some(true),
    };
    OidcProviderServer::start(
        SUITE,
        &OidcProviderConfig {
            clients: vec![client("app", APP_SECRET), client("other", "other-secret")],
            accounts: vec![
                person("jane-1", "jane@example.com"),
                person("joe-1", "joe@example.com"),
                person("olga-1", "olga@example.org"),
            ],
            ..OidcProviderConfig::default()
        },
    )
}

/// A server whose single sign-on may reach the loopback provider, its clock at the real time
/// (the provider signs tokens with the real time), and a Pro workspace owned by `owner`.
pub(crate) async fn sso_server(owner: &str) -> (TestServer, qr_test_support::SmtpServer, Client) {
    let (s, smtp) = start(|c| c.sso_allow_private_issuers = true).await;
    s.clock.set(Utc::now());
    let c = customer(&s, &smtp, owner).await;
    set_plan(&s, owner, Plan::Pro);
    (s, smtp, c)
}

/// Saves the settings on the page as `c` would; answers the response.
pub(crate) async fn save_settings(
    c: &mut Client,
    issuer: &str,
    client_id: &str,
    secret: &str,
    domains: &str,
    role: &str,
) -> Resp {
    let page = c.get("/dashboard/sso").await;
    assert_eq!(page.status, 200, "{}", page.text());
    let csrf = csrf_in(&page.text());
    c.post(
        "/dashboard/sso",
        &[
            ("csrf", &csrf),
            ("issuer", issuer),
            ("client_id", client_id),
            ("client_secret", secret),
            ("allowed_domains", domains),
            ("default_role", role),
        ],
    )
    .await
}

/// The provider's URL from the page that sends the browser there (its `Refresh` header).
fn provider_url(started: &Resp) -> String {
    assert_eq!(started.status, 200, "{}", started.text());
    let refresh = started
        .header("refresh")
        .expect("a refresh to the provider");
    refresh
        .strip_prefix("0; url=")
        .expect("an immediate refresh")
        .to_owned()
}

/// Starts a sign-in on the public form with `email`; answers the provider's URL.
pub(crate) async fn start_sign_in(c: &mut Client, email: &str) -> Result<String, Resp> {
    let csrf = c.csrf("/dashboard/login/sso").await;
    let started = c
        .post("/dashboard/login/sso", &[("csrf", &csrf), ("email", email)])
        .await;
    if started.header("refresh").is_none() {
        return Err(started);
    }
    Ok(provider_url(&started))
}

/// Signs in at the provider as `login` (blocking HTTP, off the runtime's thread); answers the
/// callback's path and query on this server.
pub(crate) async fn provider_sign_in(
    provider: &OidcProviderServer,
    url: &str,
    login: &str,
) -> String {
    let back = tokio::task::block_in_place(|| provider.sign_in(url, login))
        .unwrap_or_else(|e| panic!("the provider's sign-in: {e}\n{}", provider.log()));
    path_of(&back)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_are_saved_the_secret_never_shown_and_only_owners_and_admins_change_them() {
    let (s, smtp, mut owner) = sso_server("owner@corp.test").await;
    let Some(provider) = provider_for(&s) else {
        return;
    };
    let empty = owner.get("/dashboard/sso").await;
    assert_eq!(empty.status, 200);
    let html = empty.text();
    for id in [
        "sso-issuer",
        "sso-client-id",
        "sso-client-secret",
        "sso-domains",
        "sso-role",
        "sso-save",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "#{id}: {html}");
    }
    assert!(
        html.contains(&redirect_uri(&s)),
        "the redirect URI to register"
    );

    // CSRF: a form without this session's token changes nothing.
    let forged = owner
        .post(
            "/dashboard/sso",
            &[
                ("csrf", "forged"),
                ("issuer", &provider.issuer()),
                ("client_id", "app"),
                ("client_secret", APP_SECRET),
                ("allowed_domains", "example.com"),
                ("default_role", "member"),
            ],
        )
        .await;
    assert_eq!(forged.status, 403);
    assert!(
        !owner
            .get("/dashboard/sso")
            .await
            .text()
            .contains("sso-start-link")
    );

    // A refusal names its field; owner is no default role.
    let refused = save_settings(
        &mut owner,
        &provider.issuer(),
        "app",
        APP_SECRET,
        "example.com",
        "owner",
    )
    .await;
    assert_eq!(refused.status, 422);
    assert!(
        refused.text().contains("Default role"),
        "{}",
        refused.text()
    );

    let saved = save_settings(
        &mut owner,
        &provider.issuer(),
        "app",
        APP_SECRET,
        "example.com",
        "member",
    )
    .await;
    assert_eq!(saved.status, 303, "{}", saved.text());
    let page = owner.get(saved.header("location").unwrap()).await;
    let html = page.text();
    assert!(html.contains("single sign-on is on"), "{html}");
    assert!(html.contains("id=\"sso-secret-kept\""), "{html}");
    assert!(!html.contains(APP_SECRET), "the secret is never shown back");
    assert!(html.contains("value=\"app\""));

    // Saving again with an empty secret keeps it: a sign-in still works.
    let again = save_settings(
        &mut owner,
        &provider.issuer(),
        "app",
        "",
        "example.com\nexample.net",
        "member",
    )
    .await;
    assert_eq!(again.status, 303, "{}", again.text());
    let mut jane = Client::new(s.addr);
    let url = start_sign_in(&mut jane, "jane@example.com")
        .await
        .expect("started");
    let back = provider_sign_in(&provider, &url, "jane@example.com").await;
    assert_eq!(jane.get(&back).await.status, 303, "the kept secret works");

    // The audit log has the changes, the secret as "changed" only.
    let log = owner.get("/dashboard/audit").await.text();
    assert!(log.contains("settings.changed"), "{log}");
    assert!(!log.contains(APP_SECRET));

    // A member (Jane, who joined as one) may not read or change the settings.
    assert_eq!(jane.get("/dashboard/sso").await.status, 403);
    let jane_csrf = csrf_in(&jane.get("/dashboard").await.text());
    let forged = jane
        .post(
            "/dashboard/sso",
            &[
                ("csrf", &jane_csrf),
                ("issuer", "https://evil.example"),
                ("client_id", "x"),
                ("client_secret", "y"),
                ("allowed_domains", "example.com"),
                ("default_role", "admin"),
            ],
        )
        .await;
    assert_eq!(forged.status, 403);
    assert_eq!(
        jane.post("/dashboard/sso/disable", &[("csrf", &jane_csrf)])
            .await
            .status,
        403
    );
    let html = owner.get("/dashboard/sso").await.text();
    assert!(html.contains(&provider.issuer()), "unchanged: {html}");
    drop(smtp);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_lands_in_the_workspace_with_the_default_role_and_maps_to_the_same_user() {
    let (s, _smtp, mut owner) = sso_server("owner@corp.test").await;
    let Some(provider) = provider_for(&s) else {
        return;
    };
    let saved = save_settings(
        &mut owner,
        &provider.issuer(),
        "app",
        APP_SECRET,
        "example.com",
        "viewer",
    )
    .await;
    assert_eq!(saved.status, 303, "{}", saved.text());

    let mut jane = Client::new(s.addr);
    let login = jane.get("/dashboard/login").await.text();
    assert!(
        login.contains("href=\"/dashboard/login/sso\""),
        "the login page links it"
    );
    let form = jane.get("/dashboard/login/sso").await.text();
    assert!(form.contains("id=\"sso-email\"") && form.contains("id=\"sso-start\""));
    let url = start_sign_in(&mut jane, "jane@example.com")
        .await
        .expect("started");
    assert!(url.starts_with(&provider.issuer()), "{url}");
    let back = provider_sign_in(&provider, &url, "jane@example.com").await;
    let landed = jane.get(&back).await;
    assert_eq!(landed.status, 303, "{}", landed.text());
    assert_eq!(landed.header("location"), Some("/dashboard"));
    let home = jane.get("/dashboard").await;
    assert_eq!(home.status, 200);
    let html = home.text();
    assert!(
        html.contains("owner@corp.test · Viewer"),
        "the workspace, the default role: {html}"
    );

    let svc = s.handle.app().service();
    let jane_address = qr_domain::Email::parse("jane@example.com").unwrap();
    let first = svc.user_by_email(&jane_address).unwrap().expect("a user");
    assert!(first.is_verified() && first.password_hash.is_none());

    // The owner's log: Jane joined and logged in.
    let log = owner.get("/dashboard/audit").await.text();
    assert!(
        log.contains("member.joined") && log.contains("login.succeeded"),
        "{log}"
    );

    // A second sign-in, in a new browser, is the same user.
    let mut again = Client::new(s.addr);
    let url = start_sign_in(&mut again, "jane@example.com")
        .await
        .expect("started");
    let back = provider_sign_in(&provider, &url, "jane@example.com").await;
    assert_eq!(again.get(&back).await.status, 303);
    let memberships = svc.workspaces_of(first.id).unwrap();
    assert_eq!(
        memberships.len(),
        1,
        "the same user, in the same one workspace"
    );
    assert!(
        again
            .get("/dashboard")
            .await
            .text()
            .contains("owner@corp.test · Viewer")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_open_no_session() {
    let (s, _smtp, mut owner) = sso_server("owner@corp.test").await;
    let Some(provider) = provider_for(&s) else {
        return;
    };
    let saved = save_settings(
        &mut owner,
        &provider.issuer(),
        "app",
        APP_SECRET,
        "example.com",
        "member",
    )
    .await;
    assert_eq!(saved.status, 303, "{}", saved.text());
    let session_cookie = |c: &Client| c.cookie("qr_session").map(str::to_owned);

    // A domain no workspace lists.
    let mut olga = Client::new(s.addr);
    let refused = start_sign_in(&mut olga, "olga@example.org")
        .await
        .expect_err("refused");
    assert_eq!(refused.status, 404);
    assert!(
        element_text(&refused.text(), "sso-error")
            .unwrap()
            .contains("example.org"),
        "{}",
        refused.text()
    );
    // The start form needs its CSRF token.
    let forged = olga
        .post(
            "/dashboard/login/sso",
            &[("csrf", "forged"), ("email", "jane@example.com")],
        )
        .await;
    assert_eq!(forged.status, 403);

    // A replayed callback: the first use signs in, the second finds no attempt.
    let mut jane = Client::new(s.addr);
    let url = start_sign_in(&mut jane, "jane@example.com")
        .await
        .expect("started");
    let state_cookie = jane.cookie("qr_sso").expect("the state cookie").to_owned();
    let back = provider_sign_in(&provider, &url, "jane@example.com").await;
    assert_eq!(jane.get(&back).await.status, 303);
    let mut replay = Client::new(s.addr);
    let replayed = replay
        .get_with(&back, "cookie", &format!("qr_sso={state_cookie}"))
        .await;
    assert_eq!(replayed.status, 400, "{}", replayed.text());
    assert!(
        replayed.text().contains("already used"),
        "{}",
        replayed.text()
    );
    assert!(
        !replayed
            .headers
            .get_all("set-cookie")
            .iter()
            .any(|v| v.to_str().unwrap().starts_with("qr_session="))
    );

    // Another browser's callback (no state cookie): login CSRF refused.
    let mut joe = Client::new(s.addr);
    let url = start_sign_in(&mut joe, "joe@example.com")
        .await
        .expect("started");
    let back = provider_sign_in(&provider, &url, "joe@example.com").await;
    let mut victim = Client::new(s.addr);
    let crossed = victim.get(&back).await;
    assert_eq!(crossed.status, 400, "{}", crossed.text());
    assert!(
        crossed.text().contains("state mismatch"),
        "{}",
        crossed.text()
    );
    assert_eq!(session_cookie(&victim), None);

    // A code issued to another client (the wrong audience): the settings now name `other`, so
    // the code `app` got is presented by `other`, and the provider refuses it.
    let mut joe = Client::new(s.addr);
    let url = start_sign_in(&mut joe, "joe@example.com")
        .await
        .expect("started");
    let back = provider_sign_in(&provider, &url, "joe@example.com").await;
    let switched = save_settings(
        &mut owner,
        &provider.issuer(),
        "other",
        "other-secret",
        "example.com",
        "member",
    )
    .await;
    assert_eq!(switched.status, 303);
    let wrong = joe.get(&back).await;
    assert_eq!(wrong.status, 400, "{}", wrong.text());
    assert_eq!(session_cookie(&joe), None);
    let svc = s.handle.app().service();
    let joe_address = qr_domain::Email::parse("joe@example.com").unwrap();
    assert!(
        svc.user_by_email(&joe_address).unwrap().is_none(),
        "no user was made"
    );

    // Turned off: nobody starts.
    let csrf = csrf_in(&owner.get("/dashboard/sso").await.text());
    assert_eq!(
        owner
            .post("/dashboard/sso/disable", &[("csrf", &csrf)])
            .await
            .status,
        303
    );
    let mut late = Client::new(s.addr);
    assert_eq!(
        start_sign_in(&mut late, "jane@example.com")
            .await
            .expect_err("off")
            .status,
        404
    );
}
