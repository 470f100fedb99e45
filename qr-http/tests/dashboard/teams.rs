//! Teams in the dashboard through the real server: a member switches to a workspace they were added to, works on its links, and is refused (403) what their role does not allow, pages and forged forms alike; another workspace's id is not found.

use crate::common;

use common::web::{csrf_in, customer, start};
use qr_domain::accounts::caller::Caller;
use qr_domain::accounts::permissions::MemberRole;
use qr_domain::ids::UserId;

#[tokio::test]
async fn roles_gate_pages_and_forms_and_the_switcher_moves_between_workspaces() {
    let (s, smtp) = start(|_| {}).await;
    let mut owner = customer(&s, &smtp, "owner@example.com").await;
    let team = common::web::set_plan(&s, "owner@example.com", qr_domain::Plan::Starter);
    let mut bob = customer(&s, &smtp, "bob@example.com").await;
    let bobs_own = common::web::set_plan(&s, "bob@example.com", qr_domain::Plan::Free);
    let svc = s.handle.app().service();
    svc.add_member(
        &Caller::operator(team),
        "bob@example.com",
        MemberRole::Member,
    )
    .unwrap();

    // Bob's own workspace first; the switcher offers the team's.
    let home = bob.get("/dashboard").await;
    assert_eq!(home.status, 200);
    let html = home.text();
    assert!(html.contains("id=\"workspace-select\""), "{html}");
    assert!(html.contains("owner@example.com (Member)"), "{html}");
    let csrf = csrf_in(&html);
    let switched = bob
        .post(
            "/dashboard/workspaces/switch",
            &[("csrf", &csrf), ("workspace", &team.to_string())],
        )
        .await;
    assert_eq!(switched.status, 303, "{}", switched.text());

    // As a member: links yes, keys no (hidden in the navigation, 403 by address and by form).
    let links = bob.get("/dashboard/links").await;
    assert_eq!(links.status, 200);
    let html = links.text();
    assert!(html.contains("owner@example.com · Member"), "{html}");
    assert!(
        !html.contains("href=\"/dashboard/keys\""),
        "no keys in the navigation"
    );
    assert!(html.contains("Create link"), "a member creates links");
    let csrf = csrf_in(&html);
    let created = bob
        .post(
            "/dashboard/links",
            &[
                ("csrf", &csrf),
                ("name", "Team flyer"),
                ("targetUrl", "https://example.com/flyer"),
            ],
        )
        .await;
    assert_eq!(created.status, 303, "{}", created.text());
    assert_eq!(svc.count_links(team).unwrap(), 1, "the link is the team's");
    let keys = bob.get("/dashboard/keys").await;
    assert_eq!(keys.status, 403);
    assert!(
        keys.text()
            .contains("Your role in this workspace does not allow this")
    );
    let forged = bob
        .post(
            "/dashboard/keys",
            &[("csrf", &csrf), ("name", "sneaky"), ("mode", "live")],
        )
        .await;
    assert_eq!(forged.status, 403);
    assert!(svc.keys(team).unwrap().is_empty(), "no key was made");
    for path in ["/dashboard/webhooks", "/dashboard/domains"] {
        assert_eq!(bob.get(path).await.status, 403, "{path}");
    }
    let plan = bob
        .post(
            "/dashboard/account/plan",
            &[("csrf", &csrf), ("plan", "pro")],
        )
        .await;
    assert_eq!(plan.status, 403, "only the owner changes the plan");

    // As a viewer: reading only.
    let owner_user = svc.owner_of(team).unwrap().unwrap();
    let bob_user: UserId = svc
        .user_by_email(&qr_domain::Email::parse("bob@example.com").unwrap())
        .unwrap()
        .unwrap()
        .id;
    let as_owner = Caller::member(
        team,
        owner_user.id,
        "owner@example.com",
        MemberRole::Owner,
        None,
    );
    svc.change_member_role(&as_owner, bob_user, MemberRole::Viewer)
        .unwrap();
    let links = bob.get("/dashboard/links").await;
    assert_eq!(links.status, 200);
    assert!(
        !links.text().contains("Create link"),
        "a viewer creates none"
    );
    let refused = bob
        .post(
            "/dashboard/links",
            &[
                ("csrf", &csrf),
                ("name", "Viewer's flyer"),
                ("targetUrl", "https://example.com/v"),
            ],
        )
        .await;
    assert_eq!(refused.status, 403);
    assert_eq!(svc.count_links(team).unwrap(), 1);

    // Another workspace's id is not found; a removed member is back in their own.
    let other = bob
        .post(
            "/dashboard/workspaces/switch",
            &[
                ("csrf", &csrf),
                ("workspace", &qr_domain::AccountId::random().to_string()),
            ],
        )
        .await;
    assert_eq!(other.status, 404);
    svc.remove_member(&as_owner, bob_user).unwrap();
    let home = bob.get("/dashboard").await;
    assert_eq!(home.status, 200);
    assert!(home.text().contains("bob@example.com · Owner"));
    assert_eq!(bobs_own, svc.workspaces_of(bob_user).unwrap()[0].0.id);

    // The owner sees everything.
    let keys = owner.get("/dashboard/keys").await;
    assert_eq!(keys.status, 200);
}
