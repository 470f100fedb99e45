//! Two-factor login through the real server: TOTP enrolment with a code computed from the shown secret (and the QR code decoded back in rqrr, rxing, ZXingReader and zbarimg), logins with a code, a reused code refused, recovery codes working once, wrong codes throttled, the workspace requirement sending a member to enrolment without touching API keys, CSRF on every new form, and the login audit entries.

use crate::common;

use common::web::{Client, PASSWORD, csrf_in, customer, element_text, log_in, start};
use common::{Resp, TestServer, decode_png};
use qr_domain::accounts::caller::Caller;
use qr_domain::accounts::permissions::MemberRole;
use qr_domain::audit::entry::{AuditAction, summary_line};
use qr_domain::audit::query::AuditQuery;
use qr_domain::chrono::Duration;
use qr_domain::dashboard::totp::{TotpSecret, step_at};
use qr_domain::{AccountId, Clock};
use qr_test_support::decoders::{Decoder, decode_all};

const SECURITY: &str = "/dashboard/account/security";
const SECOND_FACTOR: &str = "/dashboard/login/second-factor";

/// The code an authenticator app with `secret` shows at the server's time.
pub(crate) fn code_now(s: &TestServer, secret: &TotpSecret) -> String {
    secret.code_at_step(step_at(s.clock.now()).unwrap())
}

/// Enrols an authenticator app on the security page: begins, reads the secret (checking the QR
/// code says the same), confirms with a real code; answers the secret and the recovery codes.
pub(crate) async fn enrol_totp(s: &TestServer, c: &mut Client) -> (TotpSecret, Vec<String>) {
    let csrf = c.csrf(SECURITY).await;
    let begun = c
        .post(&format!("{SECURITY}/totp"), &[("csrf", &csrf)])
        .await;
    assert_eq!(begun.status, 303, "{}", begun.text());
    let page = c.get(SECURITY).await;
    assert_eq!(page.status, 200);
    let html = page.text();
    let shown = element_text(&html, "totp-secret").expect("the secret is shown");
    let secret = TotpSecret::parse_base32(&shown).unwrap();
    let qr = c.get(&format!("{SECURITY}/totp.png")).await;
    assert_eq!(qr.status, 200);
    assert_eq!(qr.header("cache-control"), Some("private, no-store"));
    let uri = decode_png(&qr.body);
    assert!(uri.starts_with("otpauth://totp/QR%20Platform:"), "{uri}");
    assert!(uri.contains(&format!("secret={shown}&")), "{uri}");
    // Every image the service makes reads in the four decoders (rqrr, rxing, ZXingReader,
    // zbarimg), as the authenticator apps' readers differ.
    let readings = decode_all("two-factor", &[qr_test_support::image_luma(&qr.body)]);
    for (decoder, read) in Decoder::ALL.iter().zip(&readings[0]) {
        if let Some(read) = read {
            assert_eq!(
                read.as_deref()
                    .map(String::from_utf8_lossy)
                    .map_err(String::as_str),
                Ok(uri.as_str().into()),
                "{decoder:?}"
            );
        }
    }
    let confirmed = c
        .post(
            &format!("{SECURITY}/totp/confirm"),
            &[("csrf", &csrf_in(&html)), ("code", &code_now(s, &secret))],
        )
        .await;
    assert_eq!(confirmed.status, 200, "{}", confirmed.text());
    assert_eq!(confirmed.header("cache-control"), Some("no-store"));
    let codes = recovery_codes(&confirmed.text());
    assert_eq!(codes.len(), 10);
    (secret, codes)
}

/// The codes of a recovery-codes page.
fn recovery_codes(html: &str) -> Vec<String> {
    let list = &html[html.find("id=\"recovery-codes\"").expect("the codes")..];
    let list = &list[..list.find("</ol>").unwrap()];
    list.split("<code>")
        .skip(1)
        .map(|c| c.split('<').next().unwrap().to_owned())
        .collect()
}

/// Posts `code` on the second-factor page of a pending login.
pub(crate) async fn second_factor(c: &mut Client, code: &str) -> Resp {
    let page = c.get(SECOND_FACTOR).await;
    assert_eq!(page.status, 200, "{}", page.text());
    let html = page.text();
    assert!(html.contains("id=\"second-factor-code\""), "{html}");
    c.post(SECOND_FACTOR, &[("csrf", &csrf_in(&html)), ("code", code)])
        .await
}

/// Logs in with the password and, as the second step, `code`.
pub(crate) async fn log_in_with_code(c: &mut Client, email: &str, code: &str) -> Resp {
    c.forget_cookies();
    let first = log_in(c, email, PASSWORD).await;
    assert_eq!(
        (first.status, first.header("location")),
        (303, Some(SECOND_FACTOR)),
        "{}",
        first.text()
    );
    second_factor(c, code).await
}

/// The change summaries of the workspace's entries with `action`, newest first.
fn audit(s: &TestServer, account: AccountId, action: AuditAction) -> Vec<String> {
    let query = AuditQuery {
        limit: 200,
        ..AuditQuery::default()
    };
    s.handle
        .app()
        .service()
        .audit_log(&Caller::operator(account), &query)
        .unwrap()
        .entries
        .into_iter()
        .filter(|e| e.entry.action == action)
        .map(|e| summary_line(&e.entry.changes))
        .collect()
}

#[tokio::test]
async fn totp_logins_refuse_reused_codes_and_take_each_recovery_code_once() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "ann@example.com").await;
    let account = common::web::set_plan(&s, "ann@example.com", qr_domain::Plan::Free);
    let (secret, codes) = enrol_totp(&s, &mut c).await;
    let security = c.get(SECURITY).await.text();
    assert_eq!(
        element_text(&security, "recovery-left").as_deref(),
        Some("10")
    );
    assert!(
        !security.contains(&secret.to_base32()),
        "the secret is shown only while enrolling"
    );
    assert!(
        c.get("/dashboard/account")
            .await
            .text()
            .contains("logins ask for a code")
    );

    // The password alone starts the second step; no session yet.
    c.forget_cookies();
    let first = log_in(&mut c, "ann@example.com", PASSWORD).await;
    assert_eq!(first.header("location"), Some(SECOND_FACTOR));
    assert!(
        c.cookie("qr_session").is_none(),
        "no session before the second factor"
    );
    assert_eq!(
        c.get("/dashboard").await.header("location"),
        Some("/dashboard/login")
    );
    // The code that confirmed enrolment is used up.
    let reused = second_factor(&mut c, &code_now(&s, &secret)).await;
    assert_eq!(reused.status, 401, "{}", reused.text());
    assert!(reused.text().contains("That code is not correct"));
    s.clock.advance(Duration::seconds(30));
    let code = code_now(&s, &secret);
    let done = second_factor(&mut c, &code).await;
    assert_eq!(
        (done.status, done.header("location")),
        (303, Some("/dashboard"))
    );
    assert!(
        c.cookie("qr_pending_login").is_none(),
        "the pending cookie is cleared"
    );
    assert_eq!(c.get("/dashboard").await.status, 200);
    // The same code again, in a new login: refused.
    let again = log_in_with_code(&mut c, "ann@example.com", &code).await;
    assert_eq!(again.status, 401);
    // A recovery code works once (typed in capitals with spaces, as people do).
    let typed = codes[2].to_uppercase().replace('-', " ");
    let recovered = log_in_with_code(&mut c, "ann@example.com", &typed).await;
    assert_eq!(recovered.status, 303, "{}", recovered.text());
    let spent = log_in_with_code(&mut c, "ann@example.com", &codes[2]).await;
    assert_eq!(spent.status, 401);
    // Without a pending login the page sends to the login page.
    c.forget_cookies();
    assert_eq!(
        c.get(SECOND_FACTOR).await.header("location"),
        Some("/dashboard/login")
    );

    // The workspace's log names how each login proved itself, and the failures.
    let succeeded = audit(&s, account, AuditAction::LoginSucceeded);
    assert!(
        succeeded.iter().any(|e| e.contains("authenticator code")),
        "{succeeded:?}"
    );
    assert!(
        succeeded.iter().any(|e| e.contains("recovery code")),
        "{succeeded:?}"
    );
    assert!(
        succeeded.iter().any(|e| e.contains("\"password\"")),
        "{succeeded:?}"
    );
    let failed = audit(&s, account, AuditAction::LoginFailed);
    assert_eq!(
        failed
            .iter()
            .filter(|e| e.contains("wrong second-factor code"))
            .count(),
        3,
        "{failed:?}"
    );
    let changed = audit(&s, account, AuditAction::SettingsChanged);
    assert!(
        changed.iter().any(|e| e.contains("two_factor")),
        "{changed:?}"
    );
}

#[tokio::test]
async fn wrong_codes_are_throttled_and_wrong_passwords_audited() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "ann@example.com").await;
    let account = common::web::set_plan(&s, "ann@example.com", qr_domain::Plan::Free);
    let (secret, _) = enrol_totp(&s, &mut c).await;
    s.clock.advance(Duration::seconds(30));
    c.forget_cookies();
    assert_eq!(
        log_in(&mut c, "ann@example.com", PASSWORD).await.status,
        303
    );
    for _ in 0..qr_domain::service::LOGIN_ACCOUNT_BURST {
        assert_eq!(second_factor(&mut c, "000000").await.status, 401);
    }
    let throttled = second_factor(&mut c, &code_now(&s, &secret)).await;
    assert_eq!(throttled.status, 429, "{}", throttled.text());
    // A wrong password for an existing address is logged; an unknown address answers alike.
    s.clock.advance(Duration::hours(1));
    let wrong = log_in(&mut c, "ann@example.com", "not the password").await;
    let unknown = log_in(&mut c, "nobody@example.com", "not the password").await;
    assert_eq!((wrong.status, unknown.status), (401, 401));
    assert!(
        audit(&s, account, AuditAction::LoginFailed)
            .iter()
            .any(|e| e.contains("wrong password"))
    );
}

#[tokio::test]
async fn the_requirement_sends_members_to_enrolment_and_spares_api_keys() {
    let (s, smtp) = start(|_| {}).await;
    let mut owner = customer(&s, &smtp, "owner@example.com").await;
    let team = common::web::set_plan(&s, "owner@example.com", qr_domain::Plan::Starter);
    let (_, key) = common::web::create_key(&mut owner, "Server").await;
    let mut bob = customer(&s, &smtp, "bob@example.com").await;
    let svc = s.handle.app().service();
    svc.add_member(
        &Caller::operator(team),
        "bob@example.com",
        MemberRole::Admin,
    )
    .unwrap();
    let csrf = csrf_in(&bob.get("/dashboard").await.text());
    let switched = bob
        .post(
            "/dashboard/workspaces/switch",
            &[("csrf", &csrf), ("workspace", &team.to_string())],
        )
        .await;
    assert_eq!(switched.status, 303);

    // Requiring needs the requirer's own second factor first.
    let page = owner.get(SECURITY).await.text();
    assert!(page.contains("id=\"require-2fa\""), "{page}");
    let csrf = csrf_in(&page);
    let refused = owner
        .post(
            &format!("{SECURITY}/require"),
            &[("csrf", &csrf), ("required", "on")],
        )
        .await;
    assert_eq!(refused.status, 409);
    assert!(
        refused
            .text()
            .contains("Turn on two-factor login for yourself")
    );
    enrol_totp(&s, &mut owner).await;
    let required = owner
        .post(
            &format!("{SECURITY}/require"),
            &[("csrf", &csrf), ("required", "on")],
        )
        .await;
    assert_eq!(
        required.header("location"),
        Some("/dashboard/account/security?done=two-factor-required")
    );
    assert!(owner.get(SECURITY).await.text().contains(" checked>"));
    assert_eq!(
        owner.get("/dashboard/links").await.status,
        200,
        "the owner has one"
    );

    // Bob, without one, is sent to enrolment from every page but enrolment, logout and the
    // switcher; his forms too.
    for path in [
        "/dashboard",
        "/dashboard/links",
        "/dashboard/account",
        "/dashboard/keys",
    ] {
        let r = bob.get(path).await;
        assert_eq!(
            (r.status, r.header("location")),
            (303, Some(SECURITY)),
            "{path}"
        );
    }
    let csrf = csrf_in(&bob.get(SECURITY).await.text());
    let forged = bob
        .post(
            "/dashboard/links",
            &[
                ("csrf", &csrf),
                ("name", "x"),
                ("targetUrl", "https://example.com/"),
            ],
        )
        .await;
    assert_eq!(forged.header("location"), Some(SECURITY));
    assert_eq!(svc.count_links(team).unwrap(), 0);
    let page = bob.get(SECURITY).await.text();
    assert!(page.contains("id=\"two-factor-required\""), "{page}");
    // API keys are not affected.
    assert_eq!(s.get("/api/generate?data=team", &key).await.status, 200);
    // Once enrolled, Bob goes on.
    enrol_totp(&s, &mut bob).await;
    assert_eq!(bob.get("/dashboard/links").await.status, 200);
    // The requirement's changes are logged.
    let csrf = csrf_in(&owner.get(SECURITY).await.text());
    let optional = owner
        .post(&format!("{SECURITY}/require"), &[("csrf", &csrf)])
        .await;
    assert_eq!(
        optional.header("location"),
        Some("/dashboard/account/security?done=two-factor-optional")
    );
    let changes: Vec<String> = audit(&s, team, AuditAction::SettingsChanged)
        .into_iter()
        .filter(|e| e.contains("require_two_factor"))
        .collect();
    assert_eq!(changes.len(), 2, "{changes:?}");
}

#[tokio::test]
async fn members_may_not_change_the_requirement_and_every_form_needs_its_csrf_token() {
    let (s, smtp) = start(|_| {}).await;
    let mut owner = customer(&s, &smtp, "owner@example.com").await;
    let team = common::web::set_plan(&s, "owner@example.com", qr_domain::Plan::Starter);
    let mut bob = customer(&s, &smtp, "bob@example.com").await;
    let svc = s.handle.app().service();
    svc.add_member(
        &Caller::operator(team),
        "bob@example.com",
        MemberRole::Member,
    )
    .unwrap();
    let csrf = csrf_in(&bob.get("/dashboard").await.text());
    bob.post(
        "/dashboard/workspaces/switch",
        &[("csrf", &csrf), ("workspace", &team.to_string())],
    )
    .await;
    let page = bob.get(SECURITY).await.text();
    assert!(
        !page.contains("id=\"require-2fa\""),
        "a member sees no checkbox"
    );
    let forged = bob
        .post(
            &format!("{SECURITY}/require"),
            &[("csrf", &csrf_in(&page)), ("required", "on")],
        )
        .await;
    assert_eq!(forged.status, 403);

    for path in [
        "totp",
        "totp/confirm",
        "recovery-codes",
        "disable",
        "require",
    ] {
        let r = owner
            .post(
                &format!("{SECURITY}/{path}"),
                &[
                    ("csrf", "forged"),
                    ("code", "123456"),
                    ("password", PASSWORD),
                ],
            )
            .await;
        assert_eq!(r.status, 403, "{path}");
    }
    let (secret, _) = enrol_totp(&s, &mut owner).await;
    owner.forget_cookies();
    log_in(&mut owner, "owner@example.com", PASSWORD).await;
    let forged = owner
        .post(
            SECOND_FACTOR,
            &[("csrf", "forged"), ("code", &code_now(&s, &secret))],
        )
        .await;
    assert_eq!(forged.status, 403);
    // Turning it off takes the password.
    s.clock.advance(Duration::seconds(30));
    let code = code_now(&s, &secret);
    assert_eq!(second_factor(&mut owner, &code).await.status, 303);
    let csrf = csrf_in(&owner.get(SECURITY).await.text());
    let wrong = owner
        .post(
            &format!("{SECURITY}/disable"),
            &[("csrf", &csrf), ("password", "not it")],
        )
        .await;
    assert_eq!(wrong.status, 403);
    let off = owner
        .post(
            &format!("{SECURITY}/disable"),
            &[("csrf", &csrf), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(
        off.header("location"),
        Some("/dashboard/account/security?done=two-factor-off")
    );
    owner.forget_cookies();
    let plain = log_in(&mut owner, "owner@example.com", PASSWORD).await;
    assert_eq!(plain.header("location"), Some("/dashboard"));
}
