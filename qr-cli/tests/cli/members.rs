//! `qr members` and `qr workspaces`: the operator adds existing users within the plan's seats, changes roles, removes members, hands a workspace over, and invites addresses, lists and revokes invitations.

use std::sync::Arc;

use predicates::prelude::*;
use qr_domain::accounts::invitations::{InvitationError, InvitationView};
use qr_domain::ids::InvitationId;
use qr_domain::{Email, NoGeoLocator, Service, SystemClock};
use qr_sqlite::SqliteStore;
use serde_json::Value;

use crate::common::Workspace;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// "e-mail role" of each entry of a `--json` listing's array named `list`.
fn email_and_role(output: &str, list: &str) -> Vec<String> {
    json(output)[list]
        .as_array()
        .unwrap_or_else(|| panic!("no {list} in {output}"))
        .iter()
        .map(|m| {
            format!(
                "{} {}",
                m["email"].as_str().unwrap(),
                m["role"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn members_are_added_within_seats_change_roles_and_take_over() {
    let ws = Workspace::new();
    ws.ok(&[
        "accounts",
        "create",
        "--email",
        "team@example.com",
        "--plan",
        "free",
    ]);
    ws.ok(&["accounts", "create", "--email", "ann@example.com"]);
    ws.qr(&[
        "members",
        "add",
        "ann@example.com",
        "--email",
        "team@example.com",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains(
        "the Free plan has 1 seats and all are taken",
    ));
    ws.ok(&[
        "accounts",
        "set-plan",
        "--email",
        "team@example.com",
        "--plan",
        "starter",
    ]);
    let added = json(&ws.ok(&[
        "members",
        "add",
        "ann@example.com",
        "--email",
        "team@example.com",
        "--role",
        "viewer",
        "--json",
    ]));
    assert_eq!(
        (added["email"].as_str(), added["role"].as_str()),
        (Some("ann@example.com"), Some("viewer"))
    );
    ws.qr(&[
        "members",
        "add",
        "nobody@example.com",
        "--email",
        "team@example.com",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains(
        "no user has the e-mail address nobody@example.com",
    ));
    ws.qr(&[
        "members",
        "add",
        "ann@example.com",
        "--email",
        "team@example.com",
        "--role",
        "boss",
    ])
    .assert()
    .code(2);
    ws.ok(&[
        "members",
        "role",
        "ann@example.com",
        "--email",
        "team@example.com",
        "--role",
        "admin",
    ]);
    let rows = email_and_role(
        &ws.ok(&["members", "list", "--email", "team@example.com", "--json"]),
        "members",
    );
    assert_eq!(rows, ["team@example.com owner", "ann@example.com admin"]);
    let roles = email_and_role(
        &ws.ok(&["workspaces", "list", "--user", "ann@example.com", "--json"]),
        "workspaces",
    );
    assert_eq!(roles, ["ann@example.com owner", "team@example.com admin"]);
    ws.qr(&[
        "members",
        "remove",
        "team@example.com",
        "--email",
        "team@example.com",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains("the owner stays the owner"));
    ws.ok(&[
        "members",
        "transfer",
        "ann@example.com",
        "--email",
        "team@example.com",
    ]);
    let rows = email_and_role(
        &ws.ok(&["members", "list", "--email", "team@example.com", "--json"]),
        "members",
    );
    assert_eq!(
        rows,
        ["ann@example.com owner", "team@example.com admin"],
        "the workspace keeps its address"
    );
    ws.ok(&[
        "members",
        "remove",
        "team@example.com",
        "--email",
        "team@example.com",
    ]);
    let table = ws.ok(&["workspaces", "list", "--user", "team@example.com"]);
    assert!(!table.contains("admin"), "{table}");
}

/// What the dashboard's invitation page finds for a link's token, read from the database as
/// `qr serve` would.
fn invitation_of_link(ws: &Workspace, link: &str) -> Result<InvitationView, InvitationError> {
    let token = link
        .trim()
        .split_once("/dashboard/invitation?token=")
        .unwrap_or_else(|| panic!("an invitation link: {link}"))
        .1;
    let store = SqliteStore::open(ws.db()).unwrap();
    let service = Service::new(Arc::new(store), SystemClock, Arc::new(NoGeoLocator)).unwrap();
    service.invitation_for_token(token)
}

/// "id e-mail role" of each invitation `qr members invitations --json` lists.
fn listed_invitations(ws: &Workspace) -> Vec<String> {
    let listed = json(&ws.ok(&[
        "members",
        "invitations",
        "--email",
        "team@example.com",
        "--json",
    ]));
    listed["invitations"]
        .as_array()
        .unwrap_or_else(|| panic!("no invitations in {listed}"))
        .iter()
        .map(|i| {
            format!(
                "{} {} {}",
                i["id"].as_str().unwrap(),
                i["email"].as_str().unwrap(),
                i["role"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn members_invitations_are_made_within_seats_listed_and_revoked() {
    let ws = Workspace::new();
    ws.ok(&[
        "accounts",
        "create",
        "--email",
        "team@example.com",
        "--plan",
        "free",
    ]);
    let invite = |address: &str, role: &str| {
        ws.qr(&[
            "members",
            "invite",
            address,
            "--email",
            "team@example.com",
            "--role",
            role,
        ])
    };
    // The owner takes the Free plan's 1 seat.
    let free_full = InvitationError::SeatsTaken {
        plan: "Free",
        seats: 1,
    };
    invite("ann@example.com", "viewer")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(free_full.to_string()));
    ws.ok(&[
        "accounts",
        "set-plan",
        "--email",
        "team@example.com",
        "--plan",
        "starter",
    ]);

    let ann_link = ws.ok(&[
        "members",
        "invite",
        "ann@example.com",
        "--email",
        "team@example.com",
        "--role",
        "viewer",
        "--base-url",
        "https://qr.example.com/",
    ]);
    let token = ann_link
        .trim()
        .strip_prefix("https://qr.example.com/dashboard/invitation?token=")
        .unwrap_or_else(|| panic!("an invitation link: {ann_link}"));
    assert!(
        token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()),
        "{ann_link}"
    );
    let bob = json(&ws.ok(&[
        "members",
        "invite",
        "Bob@Example.com",
        "--email",
        "team@example.com",
        "--role",
        "admin",
        "--json",
    ]));
    let bob_id = bob["id"].as_str().expect("an id").to_owned();
    assert_eq!(
        (bob["email"].as_str(), bob["role"].as_str(), &bob["expired"]),
        (Some("Bob@Example.com"), Some("admin"), &Value::Bool(false))
    );
    assert!(bob["expiresAt"].is_string() && bob["invitedAt"].is_string());

    let listed = listed_invitations(&ws);
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!(listed[1], format!("{bob_id} Bob@Example.com admin"));
    let ann_id = listed[0]
        .strip_suffix(" ann@example.com viewer")
        .unwrap_or_else(|| panic!("ann's invitation first: {listed:?}"))
        .to_owned();
    let table = ws.ok(&["members", "invitations", "--email", "team@example.com"]);
    assert!(
        table.starts_with("ID") && table.contains(&ann_id) && table.contains("Bob@Example.com"),
        "{table}"
    );

    // The printed links are the dashboard's: their tokens open the invitation they were made for.
    let ann = invitation_of_link(&ws, &ann_link).expect("ann's link works");
    assert_eq!(
        (
            ann.invitation.id.to_string(),
            ann.invitation.email.as_str(),
            ann.invitation.role.as_str(),
            ann.workspace.email.as_str()
        ),
        (
            ann_id.clone(),
            "ann@example.com",
            "viewer",
            "team@example.com"
        )
    );
    let bob_link = bob["link"].as_str().expect("a link");
    assert!(bob_link.starts_with("http://127.0.0.1:8080/dashboard/invitation?token="));
    let bob_view = invitation_of_link(&ws, bob_link).expect("bob's link works");
    assert_eq!(bob_view.invitation.id.to_string(), bob_id);

    // The domain's refusals, word for word: the owner and two invitations fill Starter's 3
    // seats; a role that is none (a usage error), the owner's role, an invalid address (a usage
    // error), an address invited already.
    let starter_full = InvitationError::SeatsTaken {
        plan: "Starter",
        seats: 3,
    };
    invite("carl@example.com", "member")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(starter_full.to_string()));
    invite("carl@example.com", "boss")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unknown role \"boss\": expected owner, admin, member or viewer",
        ));
    invite("carl@example.com", "owner")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            InvitationError::OwnerRole.to_string(),
        ));
    let bad_address = Email::parse("carl.example.com").unwrap_err();
    invite("carl.example.com", "member")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(bad_address.to_string()));
    let ann_again =
        InvitationError::AlreadyInvited(Email::parse("ANN@example.com").unwrap()).to_string();
    invite("ANN@example.com", "member")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(ann_again));

    // Revoking: the link stops working, the list loses it, and its seat is free again.
    ws.ok(&["members", "revoke", &ann_id, "--email", "team@example.com"]);
    assert_eq!(
        listed_invitations(&ws),
        [format!("{bob_id} Bob@Example.com admin")]
    );
    assert!(matches!(
        invitation_of_link(&ws, &ann_link),
        Err(InvitationError::InvalidToken)
    ));
    invite("carl@example.com", "member").assert().success();

    // Unknown ids, a revoked one and another workspace's are not found alike.
    ws.ok(&[
        "accounts",
        "create",
        "--email",
        "other@example.com",
        "--plan",
        "starter",
    ]);
    let other = json(&ws.ok(&[
        "members",
        "invite",
        "dan@example.com",
        "--email",
        "other@example.com",
        "--json",
    ]));
    let other_id = other["id"].as_str().unwrap().to_owned();
    for id in [
        ann_id.as_str(),
        other_id.as_str(),
        &InvitationId::random().to_string(),
    ] {
        let not_found = InvitationError::NotFound(id.parse().unwrap()).to_string();
        ws.qr(&["members", "revoke", id, "--email", "team@example.com"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains(not_found));
    }
    ws.qr(&[
        "members",
        "revoke",
        "not-an-id",
        "--email",
        "team@example.com",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("not an invitation id"));
    assert_eq!(
        invitation_of_link(&ws, other["link"].as_str().unwrap())
            .expect("another workspace's invitation stays")
            .invitation
            .email
            .as_str(),
        "dan@example.com"
    );
}
