//! The dashboard through the real server: every form's happy path, CSRF missing or wrong, expired and used tokens, wrong passwords, other accounts' objects, admin pages for non-admins, and the security headers and cookies.

mod common;

use std::time::{Duration, Instant};

use common::web::{Client, attribute_after, csrf_in, element_text};
use common::{Resp, TestServer, decode_png, logo_png};
use qr_domain::chrono::Duration as Span;
use qr_test_support::{ReceivedMail, SmtpServer};

const PASSWORD: &str = "plum tree at dawn";
const CSP: &str = "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

async fn start(configure: impl FnOnce(&mut qr_http::ServerConfig)) -> (TestServer, SmtpServer) {
    let smtp = SmtpServer::start();
    let url = smtp.url();
    let server = TestServer::start(move |c| {
        c.smtp_url = Some(url);
        configure(c);
    })
    .await;
    (server, smtp)
}

/// The first mail to `to` whose subject contains `subject`, waiting for it.
fn mail(smtp: &SmtpServer, to: &str, subject: &str) -> ReceivedMail {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(m) = smtp.received().into_iter().find(|m| {
            m.to.iter().any(|t| t.eq_ignore_ascii_case(to))
                && m.header("subject").is_some_and(|s| s.contains(subject))
        }) {
            return m;
        }
        assert!(
            Instant::now() < deadline,
            "no mail {subject:?} to {to}: {:#?}",
            smtp.received()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The path and query of a link in a mail.
fn path_of(link: &str) -> String {
    let rest = link.split_once("://").unwrap().1;
    rest[rest.find('/').unwrap()..].to_owned()
}

async fn sign_up(c: &mut Client, email: &str, plan: &str) -> Resp {
    let csrf = c.csrf("/dashboard/signup").await;
    c.post(
        "/dashboard/signup",
        &[
            ("csrf", &csrf),
            ("email", email),
            ("password", PASSWORD),
            ("plan", plan),
        ],
    )
    .await
}

/// Follows an e-mailed link whose page shows a confirmation button, and presses it.
async fn follow(c: &mut Client, link: &str, action: &str) -> Resp {
    let page = c.get(&path_of(link)).await;
    assert_eq!(page.status, 200, "{}", page.text());
    let html = page.text();
    let token = attribute_after(&html, "name=\"token\" value=\"").unwrap();
    c.post(action, &[("csrf", &csrf_in(&html)), ("token", &token)])
        .await
}

async fn log_in(c: &mut Client, email: &str, password: &str) -> Resp {
    let csrf = c.csrf("/dashboard/login").await;
    c.post(
        "/dashboard/login",
        &[("csrf", &csrf), ("email", email), ("password", password)],
    )
    .await
}

/// A verified, logged-in customer.
async fn customer(s: &TestServer, smtp: &SmtpServer, email: &str) -> Client {
    let mut c = Client::new(s.addr);
    assert_eq!(sign_up(&mut c, email, "free").await.status, 200);
    let link = mail(smtp, email, "Verify")
        .link_containing("/dashboard/verify")
        .unwrap();
    assert_eq!(follow(&mut c, &link, "/dashboard/verify").await.status, 200);
    assert_eq!(log_in(&mut c, email, PASSWORD).await.status, 303);
    c
}

/// Creates a key in the dashboard and returns (its id, its secret).
async fn create_key(c: &mut Client, name: &str) -> (String, String) {
    let csrf = c.csrf("/dashboard/keys").await;
    let r = c
        .post(
            "/dashboard/keys",
            &[("csrf", &csrf), ("name", name), ("mode", "live")],
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let html = r.text();
    let secret = element_text(&html, "new-api-key").unwrap();
    let id = attribute_after(&html, "action=\"/dashboard/keys/").unwrap();
    (id.split('/').next().unwrap().to_owned(), secret)
}

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
    // GET never changes anything.
    assert_eq!(a.get("/dashboard/logout").await.status, 405);
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
                .account_by_email(&qr_domain::Email::parse("h@example.com").unwrap())
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_codes_analytics_and_deletion() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "m@example.com").await;
    let csrf = c.csrf("/dashboard/links").await;
    let bad = c
        .post(
            "/dashboard/links",
            &[("csrf", &csrf), ("name", "Flyer"), ("targetUrl", "ftp://x")],
        )
        .await;
    assert_eq!(bad.status, 422);
    assert!(
        bad.text()
            .contains("The target address must use http or https"),
        "{}",
        bad.text()
    );
    let r = c
        .post(
            "/dashboard/links",
            &[
                ("csrf", &csrf),
                ("name", "Spring flyer"),
                ("targetUrl", "https://shop.example/spring"),
            ],
        )
        .await;
    assert_eq!(
        r.header("location"),
        Some("/dashboard/links?done=link-created")
    );
    let list = c.get("/dashboard/links?q=SPRING").await.text();
    assert!(list.contains("Spring flyer"));
    assert!(
        c.get("/dashboard/links?q=autumn")
            .await
            .text()
            .contains("No link matches")
    );
    let id = attribute_after(&list, "href=\"/dashboard/links/")
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let png = c
        .get(&format!("/dashboard/links/{id}/qr.png?download=1"))
        .await;
    assert_eq!(
        png.header("content-disposition")
            .map(|d| d.starts_with("attachment")),
        Some(true)
    );
    let url = decode_png(&png.body);
    assert!(url.starts_with(&format!("http://{}/r/", s.addr)), "{url}");
    let svg = c.get(&format!("/dashboard/links/{id}/qr.svg")).await;
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    // A scan shows in the analytics and the CSV.
    let code = url.rsplit('/').next().unwrap();
    let phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    let hit = s
        .send("GET", &format!("/r/{code}"), &[("user-agent", phone)], "")
        .await;
    assert_eq!(hit.header("location"), Some("https://shop.example/spring"));
    let analytics = c.get(&format!("/dashboard/links/{id}")).await;
    assert_eq!(
        element_text(&analytics.text(), "total-scans").as_deref(),
        Some("1")
    );
    assert!(
        analytics
            .text()
            .contains("Your plan keeps scans for 30 days")
    );
    let csv = c
        .get(&format!("/dashboard/links/{id}/scans.csv"))
        .await
        .text();
    assert!(
        csv.starts_with("id,timestamp,country,city,device,browser,os,referrer\n")
            && csv.contains(",mobile,Safari,iOS,"),
        "{csv}"
    );
    assert_eq!(
        c.get(&format!("/dashboard/links/{id}?startDate=nonsense"))
            .await
            .status,
        422
    );
    // Edit, then delete with its warning.
    let csrf = c.csrf(&format!("/dashboard/links/{id}/edit")).await;
    let r = c
        .post(
            &format!("/dashboard/links/{id}/edit"),
            &[
                ("csrf", &csrf),
                ("name", "Summer flyer"),
                ("targetUrl", "https://shop.example/summer"),
            ],
        )
        .await;
    assert_eq!(r.status, 303);
    let confirm = c.get(&format!("/dashboard/links/{id}/delete")).await.text();
    assert!(confirm.contains("Every printed QR code of this link stops working"));
    let r = c
        .post(
            &format!("/dashboard/links/{id}/delete"),
            &[("csrf", &csrf_in(&confirm))],
        )
        .await;
    assert_eq!(
        r.header("location"),
        Some("/dashboard/links?done=link-deleted")
    );
    assert_eq!(
        s.send("GET", &format!("/r/{code}"), &[], "").await.status,
        410
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_designer_offers_every_documented_parameter() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "d@example.com").await;
    let page = c.get("/dashboard/design").await.text();
    let doc = s.send("GET", "/api/openapi.json", &[], "").await.json();
    let params = doc["paths"]["/api/generate"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .clone();
    assert!(params.len() >= 9);
    for p in &params {
        let name = p["name"].as_str().unwrap();
        assert!(
            page.contains(&format!("name=\"{name}\""))
                || (name == "logo" && page.contains("Logos are part of the Pro")),
            "no control for {name}"
        );
    }
    let csrf = csrf_in(&page);
    let fields = [
        ("csrf", csrf.as_str()),
        ("data", "https://example.com/menu"),
        ("size", "400"),
        ("color", "#1a237e"),
        ("errorCorrection", "Q"),
        ("format", "png"),
    ];
    let preview = c
        .post_multipart("/dashboard/design/preview", &fields, None)
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    assert_eq!(decode_png(&preview.body), "https://example.com/menu");
    let bad = c
        .post_multipart(
            "/dashboard/design/preview",
            &[("csrf", &csrf), ("data", "x"), ("size", "9999")],
            None,
        )
        .await;
    assert_eq!((bad.status, bad.text().as_str()), (422, "Invalid size"));
    let no_js = c.post_multipart("/dashboard/design", &fields, None).await;
    assert!(no_js.text().contains("src=\"data:image/png;base64,"));
    let logo = c
        .post_multipart(
            "/dashboard/design/preview",
            &fields,
            Some(("logo", &logo_png())),
        )
        .await;
    assert_eq!(logo.status, 403, "logos need Pro");
    let download = c
        .post_multipart("/dashboard/design/download", &fields, None)
        .await;
    assert_eq!(
        download.header("content-disposition"),
        Some("attachment; filename=\"qr-code.png\"")
    );
    // On Pro the logo is drawn.
    let id = s
        .handle
        .app()
        .service()
        .account_by_email(&qr_domain::Email::parse("d@example.com").unwrap())
        .unwrap()
        .unwrap()
        .id;
    s.handle
        .app()
        .service()
        .set_plan(id, qr_domain::Plan::Pro)
        .unwrap();
    let logo = c
        .post_multipart(
            "/dashboard/design/preview",
            &fields,
            Some(("logo", &logo_png())),
        )
        .await;
    assert_eq!(logo.status, 200, "{}", logo.text());
    assert_eq!(decode_png(&logo.body), "https://example.com/menu");
    let usage = s.handle.app().service().usage_of(id).unwrap();
    assert_eq!(
        usage.usage.current, 0,
        "dashboard renders are not API requests"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_account_page_changes_address_password_sessions_and_deletes() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "old@example.com").await;
    let mut other_browser = Client::new(s.addr);
    log_in(&mut other_browser, "old@example.com", PASSWORD).await;
    let page = c.get("/dashboard/account").await.text();
    assert_eq!(page.matches("<tr><td>").count(), 2, "two sessions listed");
    let csrf = csrf_in(&page);
    let wrong = c
        .post(
            "/dashboard/account/password",
            &[
                ("csrf", &csrf),
                ("current", "nope nope nope"),
                ("password", "a new long password"),
            ],
        )
        .await;
    assert_eq!(wrong.status, 403);
    assert!(wrong.text().contains("The password is not correct"));
    let r = c
        .post(
            "/dashboard/account/password",
            &[
                ("csrf", &csrf),
                ("current", PASSWORD),
                ("password", "a new long password"),
            ],
        )
        .await;
    assert_eq!(r.status, 303);
    assert_eq!(
        other_browser.get("/dashboard").await.status,
        303,
        "the other session ended"
    );
    assert_eq!(c.get("/dashboard").await.status, 200, "this one goes on");
    let r = c
        .post(
            "/dashboard/account/email",
            &[
                ("csrf", &csrf),
                ("email", "new@example.com"),
                ("password", "a new long password"),
            ],
        )
        .await;
    assert_eq!(
        r.header("location"),
        Some("/dashboard/account?done=email-sent")
    );
    let link = mail(&smtp, "new@example.com", "Confirm your new")
        .link_containing("/dashboard/account/email")
        .unwrap();
    let r = follow(&mut c, &link, "/dashboard/account/email/confirm").await;
    assert_eq!(r.header("location"), Some("/dashboard/account?done=email"));
    assert!(
        c.get("/dashboard/account")
            .await
            .text()
            .contains("new@example.com")
    );
    let csrf = c.csrf("/dashboard/keys").await;
    let (_, key) = create_key(&mut c, "k").await;
    c.post(
        "/dashboard/links",
        &[
            ("csrf", &csrf),
            ("name", "n"),
            ("targetUrl", "https://example.com/"),
        ],
    )
    .await;
    let wrong = c
        .post(
            "/dashboard/account/delete",
            &[("csrf", &csrf), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(wrong.status, 403);
    let r = c
        .post(
            "/dashboard/account/delete",
            &[("csrf", &csrf), ("password", "a new long password")],
        )
        .await;
    assert_eq!(r.status, 303);
    s.get("/api/health", &key)
        .await
        .assert_error(401, "Invalid API key");
    assert_eq!(
        log_in(&mut c, "new@example.com", "a new long password")
            .await
            .status,
        401
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_sign_up_and_log_out_everywhere() {
    let (s, smtp) = start(|c| c.signup_open = false).await;
    let mut c = Client::new(s.addr);
    let page = c.get("/dashboard/signup").await.text();
    assert!(page.contains("Sign-up is closed"));
    assert!(!c.get("/").await.text().contains("Create a free account"));
    let csrf = csrf_in(&c.get("/dashboard/login").await.text());
    let r = c
        .post(
            "/dashboard/signup",
            &[
                ("csrf", &csrf),
                ("email", "x@example.com"),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(r.status, 422);
    assert!(r.text().contains("Sign-up is closed"));
    // The operator's accounts still log in; "log out everywhere" ends every session.
    let svc = s.handle.app().service();
    let a = svc
        .create_account("op@example.com", qr_domain::Plan::Starter)
        .unwrap();
    let (_, token) = svc
        .issue_token(a.id, qr_domain::TokenPurpose::Reset)
        .unwrap();
    svc.reset_password(token.expose(), PASSWORD).unwrap();
    let mut one = Client::new(s.addr);
    let mut two = Client::new(s.addr);
    log_in(&mut one, "op@example.com", PASSWORD).await;
    log_in(&mut two, "op@example.com", PASSWORD).await;
    let csrf = one.csrf("/dashboard/account").await;
    let r = one
        .post("/dashboard/account/sessions", &[("csrf", &csrf)])
        .await;
    assert_eq!(r.header("location"), Some("/dashboard/login"));
    assert_eq!(two.get("/dashboard").await.status, 303);
    assert_eq!(one.get("/dashboard").await.status, 303);
    assert!(smtp.received().is_empty());
    s.stop().await;
}
