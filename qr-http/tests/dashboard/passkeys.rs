//! Passkeys' endpoints through the real server, short of an authenticator (the browser journey in `browser_teams.rs` registers and uses real ones): the challenges as JSON with the relying party of a localhost base URL, user verification required and a discoverable credential preferred; CSRF on every form; answers that are missing, malformed, reused or for another ceremony refused with their status and message; a begun passkey login throttled per address; the second step's challenge needing a pending login and a passkey; removal of another's passkey 404; and passkeys off, said so, on an IP-address base URL.

use crate::common;

use common::Resp;
use common::web::{
    Client, PASSWORD, csrf_in, customer, element_text, log_in, start, start_at_localhost,
};
use serde_json::Value;

use crate::invitations::csrf_of_form;
use crate::two_factor::{code_now, enrol_totp, second_factor};
use qr_domain::Clock;
use qr_domain::chrono::Duration;

const SECURITY: &str = "/dashboard/account/security";
const REGISTER_OPTIONS: &str = "/dashboard/account/security/passkeys/options";
const REGISTER: &str = "/dashboard/account/security/passkeys";
const LOGIN_OPTIONS: &str = "/dashboard/login/passkey/options";
const LOGIN: &str = "/dashboard/login/passkey";
const SECOND_OPTIONS: &str = "/dashboard/login/second-factor/passkey/options";

/// A challenge answer's JSON after checking it is a private JSON answer.
fn challenge(r: &Resp) -> Value {
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let body = r.json();
    let ceremony = body["ceremony"].as_str().expect("a ceremony token");
    assert_eq!(ceremony.len(), 64, "{body}");
    assert!(ceremony.bytes().all(|b| b.is_ascii_hexdigit()), "{body}");
    body
}

/// The error message of a refused challenge, after checking its status.
fn refusal(r: &Resp, status: u16) -> String {
    assert_eq!(r.status, status, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"));
    r.json()["error"].as_str().expect("an error").to_owned()
}

/// The login page's CSRF token (and its form cookie) for a browser without a session.
async fn anonymous_csrf(c: &mut Client) -> String {
    let page = c.get("/dashboard/login").await;
    csrf_in(&page.text())
}

#[tokio::test]
async fn registration_challenges_and_refused_answers() {
    let (s, smtp) = start_at_localhost(|_| {}).await;
    let email = "pat@example.com";
    let mut c = customer(&s, &smtp, email).await;
    let page = c.get(SECURITY).await;
    let html = page.text();
    assert!(html.contains("id=\"passkey-add\""), "{html}");
    assert!(html.contains("id=\"passkeys-none\""), "{html}");
    let csrf = csrf_of_form(&html, REGISTER);

    // Without the session's CSRF token nothing is begun.
    assert_eq!(
        c.post(REGISTER_OPTIONS, &[("csrf", "forged")]).await.status,
        403
    );
    let options = challenge(&c.post(REGISTER_OPTIONS, &[("csrf", &csrf)]).await);
    let key = &options["publicKey"];
    assert_eq!(key["rp"]["id"], "localhost", "{key}");
    assert_eq!(key["user"]["name"], email, "{key}");
    let selection = &key["authenticatorSelection"];
    assert_eq!(selection["userVerification"], "required", "{key}");
    assert_eq!(selection["residentKey"], "preferred", "{key}");
    assert!(
        key["challenge"].as_str().is_some_and(|c| c.len() >= 43),
        "{key}"
    );
    let ceremony = options["ceremony"].as_str().unwrap().to_owned();

    // A missing answer, a bad name and a malformed answer: the page again with the reason.
    let cases = [
        ("Laptop", "", 422, "The browser sent no passkey"),
        ("  ", "{}", 422, "Give the passkey a name"),
        (
            "Laptop",
            "{\"id\": 1}",
            401,
            "That passkey was not accepted",
        ),
    ];
    for (name, response, status, message) in cases {
        let fresh = challenge(&c.post(REGISTER_OPTIONS, &[("csrf", &csrf)]).await);
        let token = fresh["ceremony"].as_str().unwrap();
        let r = c
            .post(
                REGISTER,
                &[
                    ("csrf", &csrf),
                    ("ceremony", token),
                    ("name", name),
                    ("response", response),
                ],
            )
            .await;
        assert_eq!(r.status, status, "{name:?} {response:?}: {}", r.text());
        let shown = element_text(&r.text(), "passkey-error").expect("the reason");
        assert!(shown.contains(message), "{shown}");
    }
    // The first ceremony is used once: its malformed answer uses it up, and it is gone after.
    let answer = [
        ("csrf", csrf.as_str()),
        ("ceremony", &ceremony),
        ("name", "Laptop"),
        ("response", "{}"),
    ];
    assert_eq!(c.post(REGISTER, &answer).await.status, 401);
    let again = c.post(REGISTER, &answer).await;
    assert_eq!(again.status, 401);
    let shown = element_text(&again.text(), "passkey-error").unwrap();
    assert!(shown.contains("expired"), "{shown}");
    // Another user's session cannot finish this user's ceremony.
    let fresh = challenge(&c.post(REGISTER_OPTIONS, &[("csrf", &csrf)]).await);
    let mut other = customer(&s, &smtp, "quinn@example.com").await;
    let other_csrf = csrf_of_form(&other.get(SECURITY).await.text(), REGISTER);
    let stolen = other
        .post(
            REGISTER,
            &[
                ("csrf", &other_csrf),
                ("ceremony", fresh["ceremony"].as_str().unwrap()),
                ("name", "Laptop"),
                ("response", "{}"),
            ],
        )
        .await;
    assert_eq!(stolen.status, 401);
    assert!(
        element_text(&stolen.text(), "passkey-error")
            .unwrap()
            .contains("expired")
    );
    // Forms without the token are refused; another's (or no) passkey cannot be removed.
    let no_csrf = c
        .post(REGISTER, &[("ceremony", &ceremony), ("name", "Laptop")])
        .await;
    assert_eq!(no_csrf.status, 403);
    let remove = c
        .post(
            &format!("{REGISTER}/00ab/remove"),
            &[("csrf", &csrf), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(remove.status, 404);
    let wrong = c
        .post(
            &format!("{REGISTER}/00ab/remove"),
            &[("csrf", &csrf), ("password", "nope")],
        )
        .await;
    assert_eq!(wrong.status, 403, "the password is checked first");
}

#[tokio::test]
async fn passkey_logins_refuse_bad_answers_and_are_throttled() {
    let (s, smtp) = start_at_localhost(|_| {}).await;
    let email = "robin@example.com";
    let mut owner = customer(&s, &smtp, email).await;
    let page = owner.get("/dashboard/login").await;
    assert_eq!(page.status, 303, "logged in: sent on");
    let mut c = Client::new(s.addr);
    let csrf = anonymous_csrf(&mut c).await;
    assert!(
        c.get("/dashboard/login")
            .await
            .text()
            .contains("id=\"passkey-login\"")
    );
    assert_eq!(
        c.post(LOGIN_OPTIONS, &[("csrf", "forged")]).await.status,
        403
    );
    let options = challenge(&c.post(LOGIN_OPTIONS, &[("csrf", &csrf)]).await);
    assert_eq!(options["publicKey"]["rpId"], "localhost", "{options}");
    assert_eq!(
        options["publicKey"]["userVerification"], "required",
        "{options}"
    );
    let ceremony = options["ceremony"].as_str().unwrap().to_owned();

    // A malformed answer: the login page with the reason; the ceremony is then gone.
    let bad = [
        ("csrf", csrf.as_str()),
        ("ceremony", &ceremony),
        ("response", "{\"id\": \"x\"}"),
    ];
    let r = c.post(LOGIN, &bad).await;
    assert_eq!(r.status, 401, "{}", r.text());
    let shown = element_text(&r.text(), "login-error").unwrap();
    assert!(shown.contains("not accepted"), "{shown}");
    let r = c.post(LOGIN, &bad).await;
    assert_eq!(r.status, 401);
    assert!(
        element_text(&r.text(), "login-error")
            .unwrap()
            .contains("expired")
    );
    assert!(
        r.header("set-cookie")
            .is_none_or(|v| !v.contains("qr_session"))
    );
    let r = c
        .post(
            LOGIN,
            &[("csrf", &csrf), ("ceremony", &ceremony), ("response", "")],
        )
        .await;
    assert_eq!(r.status, 422);
    assert_eq!(
        c.post(LOGIN, &[("ceremony", &ceremony), ("response", "{}")])
            .await
            .status,
        403
    );

    // 30 begun logins from one address at once, then one every 2 s: the 31st waits.
    let mut statuses = Vec::new();
    for _ in 0..40 {
        statuses.push(c.post(LOGIN_OPTIONS, &[("csrf", &csrf)]).await.status);
    }
    let throttled = statuses.iter().position(|s| *s == 429).expect("throttled");
    assert!(throttled >= 25, "{statuses:?}");
    let r = c.post(LOGIN_OPTIONS, &[("csrf", &csrf)]).await;
    assert!(refusal(&r, 429).contains("try again in"));
}

#[tokio::test]
async fn the_second_steps_challenge_needs_a_pending_login_and_a_passkey() {
    let (s, smtp) = start_at_localhost(|_| {}).await;
    let email = "sam@example.com";
    let mut c = customer(&s, &smtp, email).await;
    let (secret, _) = enrol_totp(&s, &mut c).await;
    // Without a pending login.
    let mut stranger = Client::new(s.addr);
    let csrf = anonymous_csrf(&mut stranger).await;
    let r = stranger.post(SECOND_OPTIONS, &[("csrf", &csrf)]).await;
    assert!(refusal(&r, 401).contains("expired"));
    // With one, for a user whose second factor is an app and no passkey.
    c.forget_cookies();
    let first = log_in(&mut c, email, PASSWORD).await;
    assert_eq!(first.status, 303);
    let page = c.get("/dashboard/login/second-factor").await;
    let html = page.text();
    assert!(html.contains("id=\"passkey-second-factor\""), "{html}");
    let r = c
        .post(
            SECOND_OPTIONS,
            &[(
                "csrf",
                &csrf_of_form(&html, "/dashboard/login/second-factor/passkey"),
            )],
        )
        .await;
    assert!(refusal(&r, 409).contains("no passkey"));
    // An answer to a ceremony that is not this login's: refused, and the page keeps the pending
    // login's forms (only a gone pending login asks for the password again).
    let step = c.get("/dashboard/login/second-factor").await.text();
    let refused = c
        .post(
            "/dashboard/login/second-factor/passkey",
            &[
                (
                    "csrf",
                    &csrf_of_form(&step, "/dashboard/login/second-factor/passkey"),
                ),
                ("ceremony", &"0".repeat(64)),
                ("response", "{}"),
            ],
        )
        .await;
    assert_eq!(refused.status, 401, "{}", refused.text());
    let html = refused.text();
    let shown = element_text(&html, "second-factor-error").unwrap();
    assert!(shown.contains("passkey request has expired"), "{shown}");
    assert!(html.contains("id=\"second-factor-code\""), "{html}");
    // The pending login is untouched: the app's next code still finishes it.
    s.clock.set(s.clock.now() + Duration::seconds(30));
    let done = second_factor(&mut c, &code_now(&s, &secret)).await;
    assert_eq!(done.status, 303, "{}", done.text());
    assert_eq!(done.header("location"), Some("/dashboard"));
}

/// Passkeys are off on an IP-address base URL: the pages say so and offer none.
#[tokio::test]
async fn passkeys_are_off_and_say_why_on_an_ip_address() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "ip@example.com").await;
    let html = c.get(SECURITY).await.text();
    assert!(!html.contains("id=\"passkey-add\""), "{html}");
    let why = element_text(&html, "passkeys-unavailable").expect("the reason");
    assert!(why.contains("domain name"), "{why}");
    let csrf = csrf_in(&html);
    let r = c.post(REGISTER_OPTIONS, &[("csrf", &csrf)]).await;
    assert!(refusal(&r, 404).contains("domain name"));
    let mut anonymous = Client::new(s.addr);
    let login = anonymous.get("/dashboard/login").await.text();
    assert!(!login.contains("id=\"passkey-login\""), "{login}");
    let r = anonymous
        .post(LOGIN_OPTIONS, &[("csrf", &csrf_in(&login))])
        .await;
    assert!(refusal(&r, 404).contains("domain name"));
}
