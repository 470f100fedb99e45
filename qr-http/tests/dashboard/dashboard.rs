//! The dashboard's security through the real server: sign-up, verification, login and keys; CSRF on every form; expired and used tokens; one answer for wrong passwords and unknown addresses; other accounts' objects; admin pages; headers and cookies.

use crate::common;

use common::Resp;
use common::web::{
    CSP, Client, PASSWORD, attribute_after, create_key, csrf_in, customer, element_text, follow,
    log_in, mail, path_of, sign_up, start,
};
use qr_domain::chrono::Duration as Span;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_up_verify_log_in_and_manage_keys() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = Client::new(s.addr);
    let r = sign_up(&mut c, "ann@example.com", "free").await;
    assert_eq!(r.status, 200);
    assert!(r.text().contains("Check your inbox"));
    let verify = mail(&smtp, "ann@example.com", "Verify");
    assert_eq!(verify.from, "noreply@qr-platform.local");
    let link = verify.link_containing("/dashboard/verify?token=").unwrap();
    // Opening the link changes nothing; the button does.
    let r = log_in(&mut c, "ann@example.com", PASSWORD).await;
    assert_eq!(r.status, 303);
    let keys = c.get("/dashboard/keys").await;
    assert!(keys.text().contains("Verify your e-mail address first"));
    let r = follow(&mut c, &link, "/dashboard/verify").await;
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("/dashboard?done=verified"))
    );
    let overview = c.get("/dashboard?done=verified").await;
    assert_eq!(overview.status, 200);
    assert!(overview.text().contains("Your e-mail address is verified"));

    let (id, secret) = create_key(&mut c, "Server").await;
    assert!(secret.starts_with("qrapi_live_") && secret.len() == 43);
    assert_eq!(s.get("/api/generate?data=hello", &secret).await.status, 200);
    let listed = c.get("/dashboard/keys").await.text();
    assert!(listed.contains(&secret[..15]) && listed.contains(&secret[39..]));
    assert!(!listed.contains(&secret), "the secret is shown only once");

    let csrf = c.csrf(&format!("/dashboard/keys/{id}")).await;
    let r = c
        .post(
            &format!("/dashboard/keys/{id}"),
            &[
                ("csrf", &csrf),
                ("origins", "https://app.example.com\n"),
                ("ips", "nonsense"),
                ("rate", "1"),
                ("endpoint", "generate"),
            ],
        )
        .await;
    assert_eq!(r.status, 422);
    assert!(r.text().contains("Invalid IP rule"), "{}", r.text());
    let r = c
        .post(
            &format!("/dashboard/keys/{id}"),
            &[
                ("csrf", &csrf),
                ("origins", ""),
                ("ips", "127.0.0.1"),
                ("rate", "3"),
                ("endpoint", "generate"),
            ],
        )
        .await;
    assert!(
        r.text().contains("exceeds the plan"),
        "the Free plan's rate is 2: {}",
        r.text()
    );
    let r = c
        .post(
            &format!("/dashboard/keys/{id}"),
            &[
                ("csrf", &csrf),
                ("origins", ""),
                ("ips", "127.0.0.1"),
                ("rate", "1"),
                ("endpoint", "generate"),
            ],
        )
        .await;
    assert_eq!(r.status, 303);
    s.get("/api/generate?data=x", &secret).await;
    s.clock.advance(Span::seconds(2));
    assert_eq!(
        s.get("/api/links", &secret).await.status,
        403,
        "links are off for this key"
    );

    let csrf = c.csrf("/dashboard/keys").await;
    let r = c
        .post(
            &format!("/dashboard/keys/{id}/regenerate"),
            &[("csrf", &csrf)],
        )
        .await;
    let new_secret = element_text(&r.text(), "new-api-key").unwrap();
    assert_ne!(new_secret, secret);
    s.clock.advance(Span::seconds(2));
    s.get("/api/generate?data=x", &secret)
        .await
        .assert_error(401, "Invalid API key");
    assert_eq!(s.get("/api/generate?data=x", &new_secret).await.status, 200);
    let r = c
        .post(&format!("/dashboard/keys/{id}/revoke"), &[("csrf", &csrf)])
        .await;
    assert_eq!(r.status, 303);
    s.get("/api/generate?data=x", &new_secret)
        .await
        .assert_error(401, "Invalid API key");

    let csrf = c.csrf("/dashboard").await;
    let r = c.post("/dashboard/logout", &[("csrf", &csrf)]).await;
    assert_eq!((r.status, r.header("location")), (303, Some("/")));
    assert_eq!(
        c.get("/dashboard").await.header("location"),
        Some("/dashboard/login")
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_form_needs_its_csrf_token() {
    let (s, smtp) = start(|_| {}).await;
    // Before login: no form cookie, or a token of another form cookie.
    let mut stranger = Client::new(s.addr);
    let r = stranger
        .post(
            "/dashboard/login",
            &[("email", "a@example.com"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(r.status, 403);
    let mut other = Client::new(s.addr);
    let foreign = other.csrf("/dashboard/signup").await;
    stranger.csrf("/dashboard/signup").await;
    let r = stranger
        .post(
            "/dashboard/signup",
            &[
                ("csrf", &foreign),
                ("email", "a@example.com"),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(r.status, 403);
    assert!(smtp.received().is_empty(), "no account, no mail");
    // Logged in: every state-changing form refuses a missing or foreign token.
    let mut a = customer(&s, &smtp, "a@example.com").await;
    let mut b = customer(&s, &smtp, "b@example.com").await;
    let foreign = b.csrf("/dashboard").await;
    for (path, fields) in [
        ("/dashboard/keys", vec![("name", "k")]),
        (
            "/dashboard/links",
            vec![("name", "n"), ("targetUrl", "https://example.com/")],
        ),
        ("/dashboard/logout", vec![]),
        (
            "/dashboard/account/password",
            vec![("current", PASSWORD), ("password", "another good one")],
        ),
        ("/dashboard/account/sessions", vec![]),
        ("/dashboard/account/delete", vec![("password", PASSWORD)]),
        ("/dashboard/account/plan", vec![("plan", "starter")]),
    ] {
        let r = a.post(path, &fields).await;
        assert_eq!(r.status, 403, "{path} without a token");
        let mut with_foreign = fields.clone();
        with_foreign.push(("csrf", &foreign));
        let r = a.post(path, &with_foreign).await;
        assert_eq!(r.status, 403, "{path} with another session's token");
    }
    assert_eq!(
        a.get("/dashboard").await.status,
        200,
        "still logged in, nothing changed"
    );
    // GET never changes anything; a 405 names the methods the page takes (RFC 9110).
    let refused = a.get("/dashboard/logout").await;
    assert_eq!(refused.status, 405);
    assert_eq!(refused.header("allow"), Some("POST"));
    let landing = s.send("PUT", "/", &[], "").await;
    assert_eq!(landing.status, 405);
    assert_eq!(landing.header("allow"), Some("GET, HEAD"));
    assert!(
        landing
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/html")),
        "the landing page's 405 is a page"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_expire_and_work_once() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = Client::new(s.addr);
    sign_up(&mut c, "late@example.com", "free").await;
    let link = mail(&smtp, "late@example.com", "Verify")
        .link_containing("/dashboard/verify")
        .unwrap();
    s.clock.advance(Span::hours(25));
    let r = follow(&mut c, &link, "/dashboard/verify").await;
    assert_eq!(r.status, 400);
    assert!(r.text().contains("This link does not work"));
    // A password reset link works once.
    let csrf = c.csrf("/dashboard/reset").await;
    c.post(
        "/dashboard/reset",
        &[("csrf", &csrf), ("email", "late@example.com")],
    )
    .await;
    let link = mail(&smtp, "late@example.com", "Reset")
        .link_containing("/dashboard/reset?token=")
        .unwrap();
    let page = c.get(&path_of(&link)).await.text();
    let token = attribute_after(&page, "name=\"token\" value=\"").unwrap();
    let csrf = csrf_in(&page);
    let weak = c
        .post(
            "/dashboard/reset/password",
            &[("csrf", &csrf), ("token", &token), ("password", "short")],
        )
        .await;
    assert_eq!(weak.status, 422, "the token survives a refused password");
    let done = c
        .post(
            "/dashboard/reset/password",
            &[
                ("csrf", &csrf),
                ("token", &token),
                ("password", "a fresh new password"),
            ],
        )
        .await;
    assert_eq!(done.status, 200);
    assert!(done.text().contains("Password changed"));
    let again = c
        .post(
            "/dashboard/reset/password",
            &[
                ("csrf", &csrf),
                ("token", &token),
                ("password", "yet another one!"),
            ],
        )
        .await;
    assert_eq!(again.status, 400);
    assert_eq!(
        log_in(&mut c, "late@example.com", "a fresh new password")
            .await
            .status,
        303
    );
    assert!(
        c.get("/dashboard")
            .await
            .text()
            .contains("late@example.com")
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_passwords_and_unknown_addresses_get_the_same_answers() {
    let (s, smtp) = start(|_| {}).await;
    customer(&s, &smtp, "known@example.com").await;
    let mut c = Client::new(s.addr);
    let wrong = log_in(&mut c, "known@example.com", "not the password").await;
    let unknown = log_in(&mut c, "nobody@example.com", PASSWORD).await;
    assert_eq!((wrong.status, unknown.status), (401, 401));
    let error = |r: &Resp| element_text(&r.text(), "login-error").unwrap();
    assert_eq!(error(&wrong), error(&unknown));
    // Reset: the same page whether or not the address has an account.
    let ask = |email: &'static str| {
        let mut c = Client::new(s.addr);
        async move {
            let csrf = c.csrf("/dashboard/reset").await;
            c.post("/dashboard/reset", &[("csrf", &csrf), ("email", email)])
                .await
        }
    };
    let known = ask("known@example.com").await;
    let nobody = ask("nobody@example.com").await;
    assert_eq!((known.status, nobody.status), (200, 200));
    assert_eq!(known.text(), nobody.text());
    mail(&smtp, "known@example.com", "Reset");
    // Sign-up: the same page for a taken address; the mail says so instead.
    let mut again = Client::new(s.addr);
    let taken = sign_up(&mut again, "KNOWN@example.com", "free").await;
    let fresh = sign_up(&mut again, "fresh@example.com", "free").await;
    assert_eq!((taken.status, fresh.status), (200, 200));
    assert_eq!(taken.text(), fresh.text());
    mail(&smtp, "known@example.com", "already have an account");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_accounts_keys_and_links_are_not_found() {
    let (s, smtp) = start(|_| {}).await;
    let mut a = customer(&s, &smtp, "a@example.com").await;
    let mut b = customer(&s, &smtp, "b@example.com").await;
    let (key, _) = create_key(&mut a, "A's key").await;
    let csrf = a.csrf("/dashboard/links").await;
    a.post(
        "/dashboard/links",
        &[
            ("csrf", &csrf),
            ("name", "A's flyer"),
            ("targetUrl", "https://a.example/"),
        ],
    )
    .await;
    let links = a.get("/dashboard/links").await.text();
    let link = attribute_after(&links, "href=\"/dashboard/links/").unwrap();
    let link = link.split('/').next().unwrap().to_owned();
    for path in [
        format!("/dashboard/keys/{key}"),
        format!("/dashboard/links/{link}"),
        format!("/dashboard/links/{link}/edit"),
        format!("/dashboard/links/{link}/delete"),
        format!("/dashboard/links/{link}/qr.png"),
        format!("/dashboard/links/{link}/scans.csv"),
        "/dashboard/keys/not-an-id".to_owned(),
    ] {
        assert_eq!(b.get(&path).await.status, 404, "{path}");
    }
    let csrf = b.csrf("/dashboard").await;
    for path in [
        format!("/dashboard/keys/{key}/revoke"),
        format!("/dashboard/keys/{key}/regenerate"),
        format!("/dashboard/links/{link}/delete"),
    ] {
        assert_eq!(
            b.post(&path, &[("csrf", &csrf)]).await.status,
            404,
            "{path}"
        );
    }
    assert_eq!(
        a.get(&format!("/dashboard/links/{link}")).await.status,
        200,
        "still there"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_pages_are_the_owners_and_admins_only() {
    let (s, smtp) = start(|c| c.self_service_plans = vec![qr_domain::Plan::Free]).await;
    let mut owner = Client::new(s.addr);
    let link = s.handle.owner_password_link().unwrap().to_owned();
    let page = owner.get(&path_of(&link)).await.text();
    let token = attribute_after(&page, "name=\"token\" value=\"").unwrap();
    owner
        .post(
            "/dashboard/reset/password",
            &[
                ("csrf", &csrf_in(&page)),
                ("token", &token),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(
        log_in(&mut owner, "owner@qr-platform.local", PASSWORD)
            .await
            .status,
        303
    );
    // A customer who asked for Pro at sign-up starts on Free with a request.
    let mut c = Client::new(s.addr);
    sign_up(&mut c, "pro@example.com", "pro").await;
    let link = mail(&smtp, "pro@example.com", "Verify")
        .link_containing("/dashboard/verify")
        .unwrap();
    follow(&mut c, &link, "/dashboard/verify").await;
    log_in(&mut c, "pro@example.com", PASSWORD).await;
    assert!(c.get("/dashboard").await.text().contains("Requested: Pro"));
    assert_eq!(c.get("/dashboard/admin").await.status, 404);
    let csrf = c.csrf("/dashboard").await;
    let me = s
        .handle
        .app()
        .service()
        .account_by_email(&qr_domain::Email::parse("pro@example.com").unwrap())
        .unwrap()
        .unwrap()
        .id;
    for path in [
        format!("/dashboard/admin/requests/{me}/approve"),
        format!("/dashboard/admin/accounts/{me}/plan"),
    ] {
        let r = c
            .post(&path, &[("csrf", &csrf), ("plan", "enterprise")])
            .await;
        assert_eq!(r.status, 404, "{path}");
    }
    let admin = owner.get("/dashboard/admin").await;
    assert_eq!(admin.status, 200);
    assert!(admin.text().contains("pro@example.com"));
    let csrf = csrf_in(&admin.text());
    let r = owner
        .post(
            &format!("/dashboard/admin/requests/{me}/approve"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(r.status, 303);
    assert!(
        c.get("/dashboard")
            .await
            .text()
            .contains("<p class=\"big\">Pro</p>")
    );
    let (_, key) = create_key(&mut c, "k").await;
    assert_eq!(s.get("/api/health", &key).await.status, 200);
    let r = owner
        .post(
            &format!("/dashboard/admin/accounts/{me}/status"),
            &[("csrf", &csrf), ("status", "disabled")],
        )
        .await;
    assert_eq!(r.status, 303);
    s.get("/api/health", &key)
        .await
        .assert_error(401, "Invalid API key");
    assert_eq!(
        c.get("/dashboard").await.header("location"),
        Some("/dashboard/login"),
        "its sessions ended"
    );
    let r = owner
        .post(
            &format!("/dashboard/admin/accounts/{me}/status"),
            &[("csrf", &csrf), ("status", "active")],
        )
        .await;
    assert_eq!(r.status, 303);
    assert_eq!(s.get("/api/health", &key).await.status, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_carry_the_security_headers_and_https_cookies_are_host_only() {
    let (s, smtp) = start(|c| c.base_url = Some("https://qr.example.com".into())).await;
    let page = Client::new(s.addr).get("/dashboard/login").await;
    assert_eq!(page.header("content-security-policy"), Some(CSP));
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert!(
        !page.text().contains("style=\"") && !page.text().contains("<script>"),
        "no inline style or script"
    );
    let css = attribute_after(&page.text(), "rel=\"stylesheet\" href=\"").unwrap();
    let file = Client::new(s.addr).get(&css).await;
    assert_eq!(file.status, 200);
    assert_eq!(
        file.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(Client::new(s.addr).get("/static/app.css").await.status, 404);
    // Over https the cookies are __Host- and Secure (the test talks plain HTTP to the server
    // behind the proxy that would end TLS).
    let mut c = Client::new(s.addr);
    sign_up(&mut c, "h@example.com", "free").await;
    assert!(c.cookie("__Host-qr_form").is_some());
    mail(&smtp, "h@example.com", "Verify");
    s.handle
        .app()
        .service()
        .mark_verified(
            qr_domain::service::Actor::Operator,
            s.handle
                .app()
                .service()
                .user_by_email(&qr_domain::Email::parse("h@example.com").unwrap())
                .unwrap()
                .unwrap()
                .id,
        )
        .unwrap();
    let r = log_in(&mut c, "h@example.com", PASSWORD).await;
    let cookie = c
        .set_cookies
        .iter()
        .find(|l| l.starts_with("__Host-qr_session="))
        .unwrap()
        .clone();
    for part in [
        "Path=/",
        "HttpOnly",
        "SameSite=Lax",
        "Secure",
        "Max-Age=604800",
    ] {
        assert!(cookie.contains(part), "{part} missing in {cookie}");
    }
    assert!(!cookie.contains("Domain"), "{cookie}");
    assert_eq!(r.status, 303);
    assert_eq!(c.get("/dashboard").await.status, 200);
    s.stop().await;
    // Over http: no prefix, no Secure (browsers would drop it), the same other attributes.
    let (s, _smtp) = start(|_| {}).await;
    let mut c = Client::new(s.addr);
    c.get("/dashboard/login").await;
    let cookie = c.set_cookies[0].clone();
    assert!(
        cookie.starts_with("qr_form=")
            && !cookie.contains("Secure")
            && cookie.contains("HttpOnly; SameSite=Lax"),
        "{cookie}"
    );
    // A form body over the bound gets a page, not JSON.
    let big = "x".repeat(70 * 1024);
    let r = c.post("/dashboard/login", &[("email", &big)]).await;
    assert_eq!(r.status, 413);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    s.stop().await;
}
