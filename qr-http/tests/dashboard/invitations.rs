//! Invitations through the real server and a loopback SMTP server: the owner invites from the members page, the mail's link lets a new person sign up (verified, a member at once) or an existing user accept as themselves; declining, revoking, resending, expiry, single use and the seats pending invitations hold; roles without the right are refused (403, pages and forged forms), forms without CSRF too, and another workspace's ids are 404.

use crate::common;

use common::web::{
    Client, PASSWORD, attribute_after, csrf_in, customer, log_in, path_of, set_plan, start,
};
use qr_domain::accounts::caller::Caller;
use qr_domain::accounts::permissions::MemberRole;
use qr_domain::chrono::Duration;
use qr_test_support::SmtpServer;

/// The subject every invitation mail has.
const SUBJECT: &str = "You are invited";

/// The invitation link of the newest invitation mail to `to`, waiting for the `nth` (1-based).
pub(crate) fn invitation_link(smtp: &SmtpServer, to: &str, nth: usize) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let mails: Vec<_> = smtp
            .received()
            .into_iter()
            .filter(|m| {
                m.to.iter().any(|t| t.eq_ignore_ascii_case(to))
                    && m.header("subject").is_some_and(|s| s.contains(SUBJECT))
            })
            .collect();
        if mails.len() >= nth {
            return mails[nth - 1]
                .link_containing("/dashboard/invitation?token=")
                .expect("the mail has the link");
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no invitation mail {nth} to {to}: {:#?}",
            smtp.received()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The CSRF token of the form posting to `action`.
pub(crate) fn csrf_of_form(html: &str, action: &str) -> String {
    let at = html
        .find(&format!("action=\"{action}\""))
        .unwrap_or_else(|| panic!("no form to {action} in {html}"));
    attribute_after(&html[at..], "name=\"csrf\" value=\"").unwrap()
}

/// An attribute's text as the page escaped it, back to the characters.
fn unescape(html: &str) -> String {
    html.replace("&#x2f;", "/")
        .replace("&#x3d;", "=")
        .replace("&#x3D;", "=")
        .replace("&#61;", "=")
        .replace("&amp;", "&")
}

/// The token field of an invitation page.
fn token_in(html: &str) -> String {
    attribute_after(html, "name=\"token\" value=\"").unwrap()
}

/// Invites `email` with `role` from the members page; the answer.
pub(crate) async fn invite(owner: &mut Client, email: &str, role: &str) -> common::Resp {
    let page = owner.get("/dashboard/members").await;
    assert_eq!(page.status, 200, "{}", page.text());
    let csrf = csrf_of_form(&page.text(), "/dashboard/members/invite");
    owner
        .post(
            "/dashboard/members/invite",
            &[("csrf", &csrf), ("email", email), ("role", role)],
        )
        .await
}

/// The id of the first pending invitation of `email` on the members page.
async fn invitation_id(owner: &mut Client, email: &str) -> String {
    let html = owner.get("/dashboard/members").await.text();
    let row = html
        .split("<tr data-invitation=\"")
        .skip(1)
        .find(|row| row.contains(email))
        .unwrap_or_else(|| panic!("no invitation of {email} in {html}"));
    row.split('"').next().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_person_signs_up_through_the_mail_and_a_user_accepts_as_themselves() {
    let (s, smtp) = start(|_| {}).await;
    let mut owner = customer(&s, &smtp, "owner@example.com").await;
    let team = set_plan(&s, "owner@example.com", qr_domain::Plan::Starter);
    let members = owner.get("/dashboard/members").await;
    assert_eq!(members.status, 200);
    let html = members.text();
    assert!(
        html.contains("href=\"/dashboard/members\""),
        "in the navigation"
    );
    for id in [
        "members-table",
        "invite-email",
        "invite-role",
        "invite-send",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}: {html}");
    }

    // A role the domain does not know is refused with its message, the address kept.
    let unknown = invite(&mut owner, "new@example.com", "boss").await;
    assert_eq!(unknown.status, 422);
    let html = unknown.text();
    assert!(
        html.contains("id=\"members-error\">Unknown role &#34;boss&#34;"),
        "{html}"
    );
    assert!(html.contains("value=\"new@example.com\""), "{html}");

    // A new person: the mail, the page, the sign-up, the workspace.
    let sent = invite(&mut owner, "new@example.com", "member").await;
    assert_eq!(sent.status, 303, "{}", sent.text());
    assert_eq!(
        sent.header("location"),
        Some("/dashboard/members?done=invited")
    );
    let link = invitation_link(&smtp, "new@example.com", 1);
    let mut newcomer = Client::new(s.addr);
    let page = newcomer.get(&path_of(&link)).await;
    assert_eq!(page.status, 200, "{}", page.text());
    let html = page.text();
    assert!(
        html.contains("owner@example.com") && html.contains("Member"),
        "{html}"
    );
    assert!(html.contains("id=\"invitation-signup\""), "{html}");
    assert!(html.contains("id=\"invitation-login\""), "{html}");
    let token = token_in(&html);
    let short = newcomer
        .post(
            "/dashboard/invitation/signup",
            &[
                ("csrf", &csrf_in(&html)),
                ("token", &token),
                ("password", "short"),
            ],
        )
        .await;
    assert_eq!(short.status, 422, "the password rules hold");
    let joined = newcomer
        .post(
            "/dashboard/invitation/signup",
            &[
                ("csrf", &csrf_in(&html)),
                ("token", &token),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(joined.status, 303, "{}", joined.text());
    assert_eq!(joined.header("location"), Some("/dashboard?done=joined"));
    let home = newcomer.get("/dashboard?done=joined").await;
    assert_eq!(home.status, 200);
    let html = home.text();
    assert!(html.contains("owner@example.com · Member"), "{html}");
    assert!(html.contains("You joined the workspace."), "{html}");
    let svc = s.handle.app().service();
    let new_user = svc
        .user_by_email(&qr_domain::Email::parse("new@example.com").unwrap())
        .unwrap()
        .unwrap();
    assert!(new_user.is_verified(), "the mail proved the address");
    // Single use: the link is dead now, with the one message for every dead link.
    let again = Client::new(s.addr).get(&path_of(&link)).await;
    assert_eq!(again.status, 404);
    assert!(again.text().contains("This invitation is not valid"));

    // An existing user accepts as themselves; someone else logged in is refused.
    let mut bob = customer(&s, &smtp, "bob@example.com").await;
    assert_eq!(
        invite(&mut owner, "Bob@Example.com", "viewer").await.status,
        303
    );
    let link = invitation_link(&smtp, "bob@example.com", 1);
    let as_owner = owner.get(&path_of(&link)).await.text();
    assert!(
        as_owner.contains("id=\"invitation-other-user\""),
        "{as_owner}"
    );
    let wrong = owner
        .post(
            "/dashboard/invitation/accept",
            &[
                ("csrf", &csrf_in(&as_owner)),
                ("token", &token_in(&as_owner)),
            ],
        )
        .await;
    assert_eq!(wrong.status, 403);
    assert!(
        wrong.text().contains("sent to another e-mail address"),
        "{}",
        wrong.text()
    );
    // Logged out, Bob follows the page's login link and comes back to the invitation.
    bob.forget_cookies();
    let logged_out = bob.get(&path_of(&link)).await.text();
    let at = logged_out
        .find("id=\"invitation-login\"")
        .expect("a login link");
    let href = &logged_out[..at];
    let login = unescape(&href[href.rfind("href=\"").unwrap() + 6..])
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    assert!(
        login.starts_with("/dashboard/login?next=%2Fdashboard%2Finvitation%3Ftoken%3D"),
        "{login}"
    );
    let form = bob.get(&login).await.text();
    let back = bob
        .post(
            "/dashboard/login",
            &[
                ("csrf", &csrf_in(&form)),
                (
                    "next",
                    &unescape(&attribute_after(&form, "name=\"next\" value=\"").unwrap()),
                ),
                ("email", "bob@example.com"),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(back.status, 303, "{}", back.text());
    assert_eq!(back.header("location"), Some(path_of(&link).as_str()));
    // A login link naming another site returns to the overview instead.
    bob.forget_cookies();
    let form = bob
        .get("/dashboard/login?next=%2F%2Fevil.example%2F")
        .await
        .text();
    assert!(!form.contains("name=\"next\""), "{form}");
    let elsewhere = bob
        .post(
            "/dashboard/login",
            &[
                ("csrf", &csrf_in(&form)),
                ("next", "//evil.example/"),
                ("email", "bob@example.com"),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(elsewhere.header("location"), Some("/dashboard"));
    let page = bob.get(&path_of(&link)).await.text();
    let accepted = bob
        .post(
            "/dashboard/invitation/accept",
            &[
                ("csrf", &csrf_of_form(&page, "/dashboard/invitation/accept")),
                ("token", &token_in(&page)),
            ],
        )
        .await;
    assert_eq!(accepted.status, 303, "{}", accepted.text());
    let home = bob.get("/dashboard").await.text();
    assert!(
        home.contains("owner@example.com · Viewer"),
        "the session shows the team: {home}"
    );
    let bob_id = svc
        .user_by_email(&qr_domain::Email::parse("bob@example.com").unwrap())
        .unwrap()
        .unwrap()
        .id;
    assert_eq!(svc.workspaces_of(bob_id).unwrap().len(), 2);

    // The members page lists both; the owner changes a role and hands the workspace over.
    let html = owner.get("/dashboard/members").await.text();
    assert!(html.contains("new@example.com") && html.contains("bob@example.com"));
    let csrf = csrf_in(&html);
    let role = owner
        .post(
            &format!("/dashboard/members/{bob_id}/role"),
            &[("csrf", &csrf), ("role", "admin")],
        )
        .await;
    assert_eq!(role.status, 303, "{}", role.text());
    assert_eq!(
        svc.members(&Caller::operator(team))
            .unwrap()
            .iter()
            .find(|(_, u)| u.id == bob_id)
            .map(|(m, _)| m.role),
        Some(MemberRole::Admin)
    );
    let to_owner = owner
        .post(
            &format!("/dashboard/members/{bob_id}/role"),
            &[("csrf", &csrf), ("role", "owner")],
        )
        .await;
    assert_eq!(to_owner.status, 422, "a role change never makes an owner");
    let handed = owner
        .post(
            &format!("/dashboard/members/{bob_id}/transfer"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(handed.status, 303, "{}", handed.text());
    assert_eq!(svc.owner_of(team).unwrap().unwrap().id, bob_id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decline_revoke_resend_expiry_and_seats() {
    let (s, smtp) = start(|_| {}).await;
    let mut owner = customer(&s, &smtp, "owner@example.com").await;
    set_plan(&s, "owner@example.com", qr_domain::Plan::Starter);

    // Resend: a new link, the old one dead.
    assert_eq!(
        invite(&mut owner, "ann@example.com", "member").await.status,
        303
    );
    let first = invitation_link(&smtp, "ann@example.com", 1);
    let ann = invitation_id(&mut owner, "ann@example.com").await;
    let csrf = owner.csrf("/dashboard/members").await;
    let resent = owner
        .post(
            &format!("/dashboard/members/invitations/{ann}/resend"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(resent.status, 303, "{}", resent.text());
    let second = invitation_link(&smtp, "ann@example.com", 2);
    assert_ne!(first, second);
    let mut visitor = Client::new(s.addr);
    assert_eq!(visitor.get(&path_of(&first)).await.status, 404);
    assert_eq!(visitor.get(&path_of(&second)).await.status, 200);

    // Seats: owner, Ann's invitation and Bea's take Starter's 3.
    assert_eq!(
        invite(&mut owner, "bea@example.com", "viewer").await.status,
        303
    );
    let full = invite(&mut owner, "cid@example.com", "member").await;
    assert_eq!(full.status, 422);
    assert!(
        full.text()
            .contains("all are taken by members and pending invitations"),
        "{}",
        full.text()
    );
    let twice = invite(&mut owner, "ANN@example.com", "member").await;
    assert_eq!(twice.status, 422);
    assert!(twice.text().contains("resend it instead"));

    // Bea declines without an account; her link is dead and her seat free.
    let bea = invitation_link(&smtp, "bea@example.com", 1);
    let page = visitor.get(&path_of(&bea)).await.text();
    let declined = visitor
        .post(
            "/dashboard/invitation/decline",
            &[
                (
                    "csrf",
                    &csrf_of_form(&page, "/dashboard/invitation/decline"),
                ),
                ("token", &token_in(&page)),
            ],
        )
        .await;
    assert_eq!(declined.status, 200, "{}", declined.text());
    assert!(declined.text().contains("Invitation declined"));
    assert_eq!(visitor.get(&path_of(&bea)).await.status, 404);
    assert_eq!(
        invite(&mut owner, "cid@example.com", "member").await.status,
        303
    );

    // Revoke: Cid's link is dead.
    let cid_link = invitation_link(&smtp, "cid@example.com", 1);
    let cid = invitation_id(&mut owner, "cid@example.com").await;
    let revoked = owner
        .post(
            &format!("/dashboard/members/invitations/{cid}/revoke"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(revoked.status, 303);
    assert_eq!(visitor.get(&path_of(&cid_link)).await.status, 404);

    // Expiry: 7 days after the resend the link is dead and the page says "expired".
    s.clock.advance(Duration::days(7));
    assert_eq!(visitor.get(&path_of(&second)).await.status, 404);
    // A week idle ended the owner's session (12 hours); they log in again.
    assert_eq!(
        log_in(&mut owner, "owner@example.com", PASSWORD)
            .await
            .status,
        303
    );
    let html = owner.get("/dashboard/members").await.text();
    assert!(html.contains(">expired<"), "{html}");

    // Another workspace's ids are not found; a form without the session's CSRF is refused.
    let mut other = customer(&s, &smtp, "other@example.com").await;
    let other_csrf = other.csrf("/dashboard/members").await;
    let owner_id = s
        .handle
        .app()
        .service()
        .user_by_email(&qr_domain::Email::parse("owner@example.com").unwrap())
        .unwrap()
        .unwrap()
        .id;
    for path in [
        format!("/dashboard/members/invitations/{ann}/revoke"),
        format!("/dashboard/members/invitations/{ann}/resend"),
        format!("/dashboard/members/{owner_id}/remove"),
        format!("/dashboard/members/{owner_id}/role"),
    ] {
        let r = other
            .post(&path, &[("csrf", &other_csrf), ("role", "viewer")])
            .await;
        assert_eq!(r.status, 404, "{path}: {}", r.text());
    }
    let forged = owner
        .post(
            "/dashboard/members/invite",
            &[
                ("csrf", "forged"),
                ("email", "eve@example.com"),
                ("role", "admin"),
            ],
        )
        .await;
    assert_eq!(forged.status, 403);
    assert!(
        !owner
            .get("/dashboard/members")
            .await
            .text()
            .contains("eve@example.com")
    );
    let forged_decline = visitor
        .post(
            "/dashboard/invitation/decline",
            &[("csrf", "forged"), ("token", "0".repeat(64).as_str())],
        )
        .await;
    assert_eq!(forged_decline.status, 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_and_viewers_cannot_invite_and_may_leave() {
    let (s, smtp) = start(|_| {}).await;
    let mut owner = customer(&s, &smtp, "owner@example.com").await;
    let team = set_plan(&s, "owner@example.com", qr_domain::Plan::Pro);
    let mut bob = customer(&s, &smtp, "bob@example.com").await;
    let svc = s.handle.app().service();
    svc.add_member(
        &Caller::operator(team),
        "bob@example.com",
        MemberRole::Member,
    )
    .unwrap();
    let csrf = bob.csrf("/dashboard").await;
    let switched = bob
        .post(
            "/dashboard/workspaces/switch",
            &[("csrf", &csrf), ("workspace", &team.to_string())],
        )
        .await;
    assert_eq!(switched.status, 303);
    let home = bob.get("/dashboard").await.text();
    assert!(
        !home.contains("href=\"/dashboard/members\""),
        "not in the navigation"
    );
    assert!(home.contains("id=\"workspace-leave\""), "{home}");
    assert_eq!(bob.get("/dashboard/members").await.status, 403);
    let forged = bob
        .post(
            "/dashboard/members/invite",
            &[
                ("csrf", &csrf),
                ("email", "eve@example.com"),
                ("role", "admin"),
            ],
        )
        .await;
    assert_eq!(forged.status, 403);
    assert!(svc.invitations(&Caller::operator(team)).unwrap().is_empty());
    // Removing the owner or taking the workspace over is refused as forms too.
    let owner_id = svc.owner_of(team).unwrap().unwrap().id;
    let remove_owner = bob
        .post(
            &format!("/dashboard/members/{owner_id}/remove"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(remove_owner.status, 403);
    let transfer = bob
        .post(
            &format!("/dashboard/members/{owner_id}/transfer"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(transfer.status, 403);
    // Bob leaves; his session shows his own workspace again.
    let left = bob
        .post("/dashboard/members/leave", &[("csrf", &csrf)])
        .await;
    assert_eq!(left.status, 303, "{}", left.text());
    assert!(
        bob.get("/dashboard")
            .await
            .text()
            .contains("bob@example.com · Owner")
    );
    // The owner cannot leave: they hand the workspace over first.
    let csrf = owner.csrf("/dashboard").await;
    assert_eq!(
        owner
            .post("/dashboard/members/leave", &[("csrf", &csrf)])
            .await
            .status,
        403
    );
}
