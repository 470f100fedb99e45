//! `qr members` and `qr workspaces`: the operator adds existing users within the plan's seats, changes roles, removes members and hands a workspace over.

use predicates::prelude::*;
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
