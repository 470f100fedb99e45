//! `qr links create/update` with every campaign flag, `qr links list --tag --search --limit`,
//! and `qr analytics export`, through the real binary on a database file.

use std::sync::Arc;

use predicates::prelude::*;
use qr_domain::service::Visit;
use qr_domain::{NoGeoLocator, Service, SystemClock};
use qr_sqlite::SqliteStore;
use serde_json::{Value, json};

use crate::common::Workspace;

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn account(ws: &Workspace, email: &str, plan: &str) {
    ws.ok(&["accounts", "create", "--email", email, "--plan", plan]);
}

#[test]
fn every_campaign_field_is_a_flag_validated_as_the_api_does() {
    let ws = Workspace::new();
    account(&ws, "pro@example.com", "pro");
    let password = ws.path("password.txt");
    std::fs::write(&password, "s3cret-pass\n").unwrap();
    let out = ws.ok(&[
        "links",
        "create",
        "--email",
        "pro@example.com",
        "--name",
        "Spring",
        "--url",
        "https://example.com/spring",
        "--short-code",
        "Spring-24",
        "--tag",
        "print",
        "--tag",
        "spring",
        "--valid-from",
        "2030-01-01T00:00:00Z",
        "--valid-until",
        "2031-01-01T00:00:00Z",
        "--max-scans",
        "500",
        "--expired-url",
        "https://example.com/over",
        "--disable",
        "--password-file",
        password.to_str().unwrap(),
        "--rule",
        "device=mobile,country=DE=>https://example.de/",
        "--rule",
        "os=ios=>https://apps.apple.com/app",
        "--variant",
        "https://example.com/a?x=1=3",
        "--variant",
        "https://example.com/b=1",
        "--utm-source",
        "poster",
        "--utm-campaign",
        "spring",
        "--forward-query",
        "--json",
    ]);
    let link = json_of(&out);
    assert_eq!(link["shortCode"], "Spring-24");
    assert_eq!(link["tags"], json!(["print", "spring"]));
    assert_eq!(link["validFrom"], "2030-01-01T00:00:00Z");
    assert_eq!(link["validUntil"], "2031-01-01T00:00:00Z");
    assert_eq!(link["maxScans"], 500);
    assert_eq!(link["expiredUrl"], "https://example.com/over");
    assert_eq!(link["disabled"], true);
    assert_eq!(link["hasPassword"], true);
    assert!(
        link.get("password").is_none() && !out.contains("s3cret"),
        "{out}"
    );
    assert_eq!(
        link["rules"],
        json!([
            {"when": {"device": "mobile", "country": "DE"}, "targetUrl": "https://example.de/"},
            {"when": {"os": "ios"}, "targetUrl": "https://apps.apple.com/app"}
        ])
    );
    assert_eq!(
        link["variants"],
        json!([
            {"targetUrl": "https://example.com/a?x=1", "weight": 3},
            {"targetUrl": "https://example.com/b", "weight": 1}
        ])
    );
    assert_eq!(
        link["utm"],
        json!({"source": "poster", "campaign": "spring"})
    );
    assert_eq!(link["forwardQuery"], true);
    let id = link["id"].as_str().unwrap().to_owned();
    let shown = ws.ok(&["links", "show", &id]);
    for line in [
        "tags",
        "print, spring",
        "2030-01-01T00:00:00Z",
        "max scans",
        "paused",
        "\"when\":{\"country\":\"DE\",\"device\":\"mobile\"}",
        "forward query",
    ] {
        assert!(shown.contains(line), "{line} in {shown}");
    }

    // Update: only the fields given change; --clear removes; the password from stdin.
    let updated = json_of(
        &String::from_utf8(
            ws.qr(&[
                "links",
                "update",
                &id,
                "--enable",
                "--clear",
                "tags",
                "--clear",
                "rules",
                "--clear",
                "max-scans",
                "--no-forward-query",
                "--password-file",
                "-",
                "--json",
            ])
            .write_stdin("another-pass\n")
            .output()
            .unwrap()
            .stdout,
        )
        .unwrap(),
    );
    assert_eq!(updated["disabled"], false);
    assert_eq!(updated["tags"], json!([]));
    assert_eq!(updated["rules"], json!([]));
    assert_eq!(updated["maxScans"], Value::Null);
    assert_eq!(updated["forwardQuery"], false);
    assert_eq!(updated["hasPassword"], true);
    assert_eq!(updated["variants"], link["variants"], "untouched");
    assert_eq!(updated["shortCode"], "Spring-24");
    let cleared = json_of(&ws.ok(&["links", "update", &id, "--clear", "password", "--json"]));
    assert_eq!(cleared["hasPassword"], false);

    // The API's validation and messages: values (exit 1), and the flags' own syntax (exit 2).
    ws.qr(&[
        "links",
        "update",
        &id,
        "--rule",
        "os=beos=>https://example.com/",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains("rules[0].when.os"));
    ws.qr(&[
        "links",
        "update",
        &id,
        "--variant",
        "https://example.com/=5",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains("variants"));
    ws.qr(&["links", "update", &id, "--short-code", "admin"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("shortCode"));
    ws.qr(&["links", "update", &id, "--rule", "device=mobile https://x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Invalid --rule"));
    ws.qr(&["links", "update", &id, "--variant", "https://example.com/b"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("URL=WEIGHT"));
    ws.qr(&["links", "update", &id, "--tag", "x", "--clear", "tags"])
        .assert()
        .code(2);
    ws.qr(&["links", "update", &id, "--enable", "--disable"])
        .assert()
        .code(2);
    ws.qr(&["links", "update", &id, "--password", "inline"])
        .assert()
        .code(2);

    // A taken code is refused, and so is a field the plan lacks.
    account(&ws, "free@example.com", "free");
    ws.qr(&[
        "links",
        "create",
        "--email",
        "pro@example.com",
        "--name",
        "Twin",
        "--url",
        "https://example.com/",
        "--short-code",
        "spring-24",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains("already taken"));
    ws.qr(&[
        "links",
        "create",
        "--email",
        "free@example.com",
        "--name",
        "Ruled",
        "--url",
        "https://example.com/",
        "--rule",
        "device=mobile=>https://m.example.com/",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains("rules requires Pro plan"));
    ws.qr(&[
        "links",
        "create",
        "--email",
        "free@example.com",
        "--name",
        "Tagged",
        "--url",
        "https://example.com/",
        "--tag",
        "free-ok",
    ])
    .assert()
    .success();
}

#[test]
fn links_list_filters_by_tag_and_text_and_pages() {
    let ws = Workspace::new();
    account(&ws, "a@example.com", "pro");
    for (name, tag) in [
        ("Menu lunch", "food"),
        ("Menu dinner", "food"),
        ("Poster", "print"),
    ] {
        ws.ok(&[
            "links",
            "create",
            "--email",
            "a@example.com",
            "--name",
            name,
            "--url",
            "https://example.com/",
            "--tag",
            tag,
        ]);
    }
    let names = |v: &Value| -> Vec<String> {
        v["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let food = json_of(&ws.ok(&[
        "links",
        "list",
        "--email",
        "a@example.com",
        "--tag",
        "food",
        "--json",
    ]));
    let mut got = names(&food);
    got.sort();
    assert_eq!(got, ["Menu dinner", "Menu lunch"]);
    assert!(food.get("nextCursor").is_none());
    let found = json_of(&ws.ok(&[
        "links",
        "list",
        "--email",
        "a@example.com",
        "--search",
        "POSTER",
        "--json",
    ]));
    assert_eq!(names(&found), ["Poster"]);
    let first = json_of(&ws.ok(&[
        "links",
        "list",
        "--email",
        "a@example.com",
        "--limit",
        "2",
        "--json",
    ]));
    assert_eq!(names(&first).len(), 2);
    let cursor = first["nextCursor"].as_str().unwrap();
    let rest = json_of(&ws.ok(&[
        "links",
        "list",
        "--email",
        "a@example.com",
        "--limit",
        "2",
        "--cursor",
        cursor,
        "--json",
    ]));
    assert_eq!(names(&rest).len(), 1);
    assert!(!names(&first).contains(&names(&rest)[0]), "no link twice");
    let table = ws.ok(&[
        "links",
        "list",
        "--email",
        "a@example.com",
        "--tag",
        "print",
    ]);
    assert!(
        table.contains("Poster") && !table.contains("Menu"),
        "{table}"
    );
    ws.qr(&["links", "list", "--email", "a@example.com", "--limit", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid limit"));
}

#[test]
fn analytics_export_writes_every_scan_as_csv_or_ndjson() {
    let ws = Workspace::new();
    account(&ws, "a@example.com", "pro");
    let link = json_of(&ws.ok(&[
        "links",
        "create",
        "--email",
        "a@example.com",
        "--name",
        "Poster",
        "--url",
        "https://example.com/poster",
        "--json",
    ]));
    let id = link["id"].as_str().unwrap().to_owned();
    let total = 2_345;
    {
        let store = Arc::new(SqliteStore::open(ws.db()).unwrap());
        let service = Service::new(store, SystemClock, Arc::new(NoGeoLocator)).unwrap();
        let account = service.accounts().unwrap().remove(0);
        let link = service.link(account.id, id.parse().unwrap()).unwrap();
        for i in 0..total {
            let visit = Visit {
                // A visitor of its own each time, so the per-visitor cap counts every scan.
                ip: Some(format!("10.{}.{}.1", i / 250, i % 250).parse().unwrap()),
                user_agent: Some("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)".into()),
                referer: None,
                hint: Default::default(),
            };
            service.record_scan(&link, &visit).unwrap();
        }
        service.shutdown().unwrap();
    }
    let csv = ws.ok(&["analytics", "export", "--link", &id]);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("id,timestamp,country,city,device,browser,os,referrer,variant,rule")
    );
    let ids: std::collections::HashSet<&str> =
        lines.map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(ids.len(), total, "every scan once");

    let out = ws.path("scans.ndjson");
    ws.qr(&[
        "analytics",
        "export",
        "--link",
        &id,
        "--format",
        "ndjson",
        "--out",
    ])
    .arg(&out)
    .assert()
    .success()
    .stdout("")
    .stderr(predicate::str::contains(format!("wrote {total} scans")));
    let text = std::fs::read_to_string(&out).unwrap();
    let objects: Vec<Value> = text.lines().map(json_of).collect();
    assert_eq!(objects.len(), total);
    assert_eq!(objects[0]["device"], "mobile");
    assert_eq!(objects[0]["referrer"], Value::Null);

    // A range before the link existed: nothing but the header.
    let empty = ws.ok(&["analytics", "export", "--link", &id, "--end", "2000-01-01"]);
    assert_eq!(empty.lines().count(), 1);
    ws.qr(&["analytics", "export", "--link", &id, "--format", "xlsx"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("use csv or ndjson"));
    ws.qr(&["analytics", "export", "--link", &id, "--start", "soon"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("startDate"));
    ws.qr(&[
        "analytics",
        "export",
        "--link",
        "6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains("not found"));
    // The report is still `qr analytics LINK_ID`.
    let report = json_of(&ws.ok(&["analytics", &id, "--json"]));
    assert_eq!(report["analytics"]["totalScans"], total);
    ws.qr(&["analytics"]).assert().code(2);
}
