//! Every `--json` output: camelCase names like the API, and the same type for every field whatever the plan.

use serde_json::Value;

use crate::common::Workspace;

/// The shape of a JSON value: its type, and for objects and arrays the shapes inside.
fn shape(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(_) => "bool".to_owned(),
        Value::Number(_) => "number".to_owned(),
        Value::String(_) => "string".to_owned(),
        Value::Array(items) => format!("[{}]", items.first().map(shape).unwrap_or_default()),
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}: {}", shape(v)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
    }
}

/// Fails unless every object key is camelCase (a lower-case letter, then letters and digits).
fn assert_camel_case(value: &Value, command: &str) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| assert_camel_case(v, command)),
        Value::Object(map) => {
            for (key, inner) in map {
                let mut chars = key.chars();
                let camel = chars.next().is_some_and(|c| c.is_ascii_lowercase())
                    && chars.all(|c| c.is_ascii_alphanumeric());
                assert!(camel, "{command}: the key {key:?} is not camelCase");
                assert_camel_case(inner, command);
            }
        }
        _ => {}
    }
}

/// Runs a command once for an account on each plan and checks its JSON: camelCase, one shape.
fn check(ws: &Workspace, command: &str, args_for: impl Fn(&str) -> Vec<String>) {
    let mut shapes = Vec::new();
    for email in ["free@example.com", "pro@example.com", "ent@example.com"] {
        let args = args_for(email);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let text = ws.ok(&args);
        let value: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{command} printed no JSON ({e}): {text}"));
        assert_camel_case(&value, command);
        shapes.push((email, shape(&value)));
    }
    for (email, s) in &shapes[1..] {
        assert_eq!(
            &shapes[0].1, s,
            "{command}: the shape for {email} differs from the free plan's"
        );
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn every_json_output_is_camel_case_with_one_shape_per_command() {
    let ws = Workspace::new();
    let mut links = std::collections::HashMap::new();
    let mut keys = std::collections::HashMap::new();
    for (email, plan) in [
        ("free@example.com", "free"),
        ("pro@example.com", "pro"),
        ("ent@example.com", "enterprise"),
    ] {
        ws.create_key(email, plan);
        let link: Value = serde_json::from_str(&ws.ok(&[
            "links",
            "create",
            "--email",
            email,
            "--name",
            "Menu",
            "--url",
            "https://example.com/menu",
            "--json",
        ]))
        .unwrap();
        links.insert(email, link["id"].as_str().unwrap().to_owned());
        let listed: Value =
            serde_json::from_str(&ws.ok(&["keys", "list", "--email", email, "--json"])).unwrap();
        keys.insert(email, listed[0]["id"].as_str().unwrap().to_owned());
    }
    check(&ws, "accounts show", |e| {
        strings(&["accounts", "show", "--email", e, "--json"])
    });
    check(&ws, "accounts set-plan", |e| {
        let plan = match e {
            "free@example.com" => "free",
            "pro@example.com" => "pro",
            _ => "enterprise",
        };
        strings(&[
            "accounts", "set-plan", "--email", e, "--plan", plan, "--json",
        ])
    });
    check(&ws, "accounts set-limits", |e| {
        strings(&[
            "accounts",
            "set-limits",
            "--email",
            e,
            "--links",
            "default",
            "--json",
        ])
    });
    check(&ws, "accounts set-email", |e| {
        strings(&[
            "accounts",
            "set-email",
            "--email",
            e,
            "--new-email",
            e,
            "--json",
        ])
    });
    check(&ws, "accounts list", |_| {
        strings(&["accounts", "list", "--json"])
    });
    check(&ws, "accounts create", |e| {
        strings(&[
            "accounts",
            "create",
            "--email",
            &format!("new.{e}"),
            "--plan",
            "free",
            "--json",
        ])
    });
    check(&ws, "keys list", |e| {
        strings(&["keys", "list", "--email", e, "--json"])
    });
    check(&ws, "keys show", |e| {
        strings(&["keys", "show", &keys[e], "--json"])
    });
    check(&ws, "keys set", |e| {
        strings(&[
            "keys",
            "set",
            &keys[e],
            "--allow-origin",
            "https://app.example.com",
            "--json",
        ])
    });
    check(&ws, "links list", |e| {
        strings(&["links", "list", "--email", e, "--json"])
    });
    check(&ws, "links show", |e| {
        strings(&["links", "show", &links[e], "--json"])
    });
    check(&ws, "links create", |e| {
        strings(&[
            "links",
            "create",
            "--email",
            e,
            "--name",
            "Second",
            "--url",
            "https://example.com/2",
            "--json",
        ])
    });
    check(&ws, "links update", |e| {
        strings(&["links", "update", &links[e], "--name", "Renamed", "--json"])
    });
    check(&ws, "analytics", |e| {
        strings(&["analytics", &links[e], "--json"])
    });
    check(&ws, "usage", |e| {
        strings(&["usage", "--email", e, "--json"])
    });
    check(&ws, "accounts verify", |e| {
        strings(&["accounts", "verify", "--email", e, "--json"])
    });
    check(&ws, "accounts set-role", |e| {
        strings(&[
            "accounts", "set-role", "--email", e, "--role", "admin", "--json",
        ])
    });
    check(&ws, "accounts disable", |e| {
        strings(&["accounts", "disable", "--email", e, "--json"])
    });
    check(&ws, "accounts enable", |e| {
        strings(&["accounts", "enable", "--email", e, "--json"])
    });
    check(&ws, "accounts reset-link", |e| {
        strings(&["accounts", "reset-link", "--email", e, "--json"])
    });
    check(&ws, "accounts requests", |_| {
        strings(&["accounts", "requests", "--json"])
    });
}
