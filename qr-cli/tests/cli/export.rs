//! `qr export` and `qr accounts delete`: one account's data as a ZIP (its own records only, no
//! secret), scans recorded through a real `qr serve`, and deletion of everything it owns.

use std::collections::BTreeSet;
use std::io::Read;

use serde_json::{Value, json};

use crate::common::{Server, Workspace};

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .build()
        .into()
}

fn create_link(server: &Server, key: &str, name: &str) -> Value {
    let mut answer = agent()
        .post(format!("{}/api/links", server.base))
        .header("Authorization", format!("Bearer {key}"))
        .header("Content-Type", "application/json")
        .send(json!({"name": name, "targetUrl": "https://example.com/"}).to_string())
        .unwrap();
    assert_eq!(answer.status().as_u16(), 201);
    serde_json::from_slice(&answer.body_mut().read_to_vec().unwrap()).unwrap()
}

fn scan(server: &Server, link: &Value, n: usize) {
    let answer = agent()
        .get(format!(
            "{}/r/{}",
            server.base,
            link["shortCode"].as_str().unwrap()
        ))
        .header(
            "User-Agent",
            format!("Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.{n}"),
        )
        .header("Referer", "https://news.example/=cmd")
        .call()
        .unwrap();
    assert_eq!(answer.status().as_u16(), 302);
}

/// The archive's files by name.
fn unzip(bytes: &[u8]) -> std::collections::BTreeMap<String, String> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut files = std::collections::BTreeMap::new();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).unwrap();
        let name = file.name().unwrap().into_owned();
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        files.insert(name, text);
    }
    files
}

#[test]
fn export_holds_one_accounts_data_and_delete_removes_it() {
    let ws = Workspace::new();
    let server = Server::start(&ws);
    let key_a = ws.create_key("a@example.com", "pro");
    let key_b = ws.create_key("b@example.com", "pro");
    let link_a = create_link(&server, &key_a, "=Spring, \"sale\"");
    let link_b = create_link(&server, &key_b, "Other account");
    for n in 0..3 {
        scan(&server, &link_a, n);
    }
    scan(&server, &link_b, 9);
    server.stop();

    ws.ok(&["export", "--email", "A@example.com", "-o", "a.zip"]);
    let files = unzip(&std::fs::read(ws.path("a.zip")).unwrap());
    let code = link_a["shortCode"].as_str().unwrap();
    let names: BTreeSet<&str> = files.keys().map(String::as_str).collect();
    let expected: BTreeSet<String> = [
        "README.txt",
        "account.json",
        "keys.json",
        "sessions.json",
        "usage.csv",
        "links.json",
        "links.csv",
    ]
    .into_iter()
    .map(str::to_owned)
    .chain(
        ["daily.json", "daily.csv", "scans.csv"]
            .iter()
            .map(|f| format!("analytics/{code}/{f}")),
    )
    .collect();
    assert_eq!(names, expected.iter().map(String::as_str).collect());

    let account: Value = serde_json::from_str(&files["account.json"]).unwrap();
    assert_eq!(account["account"]["email"], "a@example.com");
    assert_eq!(account["retentionDays"], 365);
    let account_id = account["account"]["id"].as_str().unwrap().to_owned();

    // Keys: metadata only. Neither the secret nor anything of its hash is in the archive.
    let keys: Value = serde_json::from_str(&files["keys.json"]).unwrap();
    assert_eq!(keys["keys"].as_array().unwrap().len(), 1);
    assert!(keys["keys"][0].get("hash").is_none());
    let secret_tail = &key_a[key_a.len() - 20..];
    for (name, text) in &files {
        assert!(!text.contains(secret_tail), "{name} holds the key");
        assert!(
            !text.contains("Other account"),
            "{name} holds another account's link"
        );
        assert!(!text.contains(link_b["id"].as_str().unwrap()), "{name}");
    }

    let links: Value = serde_json::from_str(&files["links.json"]).unwrap();
    assert_eq!(links["links"][0]["id"], link_a["id"]);
    assert_eq!(links["links"][0]["scanCount"], 3);
    // The name is quoted and defused for spreadsheets.
    assert!(
        files["links.csv"].contains("\"'=Spring, \"\"sale\"\"\""),
        "{}",
        files["links.csv"]
    );

    let daily: Vec<&str> = files[&format!("analytics/{code}/daily.csv")]
        .lines()
        .collect();
    assert_eq!(daily[0], "day,scans,uniques");
    assert_eq!(daily.len(), 2, "{daily:?}");
    assert!(daily[1].ends_with(",3,3"), "{daily:?}");
    let daily_json: Value =
        serde_json::from_str(&files[&format!("analytics/{code}/daily.json")]).unwrap();
    assert_eq!(daily_json["days"][0]["scans"], 3);
    assert_eq!(
        daily_json["devices"][0],
        json!({"name": "desktop", "scans": 3})
    );
    let scans: Vec<&str> = files[&format!("analytics/{code}/scans.csv")]
        .lines()
        .collect();
    assert_eq!(
        scans[0],
        "id,timestamp,country,city,device,browser,os,referrer"
    );
    assert_eq!(scans.len(), 4, "{scans:?}");
    assert!(
        scans[1].contains(",XX,Unknown,desktop,Firefox,Linux,"),
        "{}",
        scans[1]
    );

    // The same account by id gives the same files; an unknown id is refused.
    ws.ok(&["export", "--account", &account_id, "-o", "by-id.zip"]);
    let again = unzip(&std::fs::read(ws.path("by-id.zip")).unwrap());
    assert_eq!(
        again.keys().collect::<Vec<_>>(),
        files.keys().collect::<Vec<_>>()
    );
    let missing = ws
        .qr(&[
            "export",
            "--account",
            "00000000-0000-4000-8000-000000000000",
            "-o",
            "x.zip",
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(!ws.path("x.zip").exists());
    ws.qr(&["export", "--account", "nope", "-o", "x.zip"])
        .assert()
        .code(2);
    ws.qr(&["export", "-o", "x.zip"]).assert().code(2);

    // Deletion: confirmed with --yes, everything goes, the owner stays protected.
    ws.qr(&["accounts", "delete", "--email", "a@example.com"])
        .assert()
        .code(2);
    ws.ok(&["accounts", "delete", "--email", "a@example.com", "--yes"]);
    ws.qr(&["accounts", "show", "--email", "a@example.com"])
        .assert()
        .code(1);
    let gone = ws
        .qr(&["export", "--account", &account_id, "-o", "x.zip"])
        .output()
        .unwrap();
    assert_eq!(gone.status.code(), Some(1));
    let server = Server::start(&ws);
    let answer = agent()
        .get(format!("{}/r/{code}", server.base))
        .call()
        .unwrap();
    assert_eq!(
        answer.status().as_u16(),
        410,
        "its printed codes answer 410"
    );
    assert_eq!(server.get("/api/health", &key_a).status, 401);
    assert_eq!(server.get("/api/health", &key_b).status, 200);
    server.stop();
    let owner = ws
        .qr(&[
            "accounts",
            "delete",
            "--email",
            "owner@qr-platform.local",
            "--yes",
        ])
        .output()
        .unwrap();
    assert_eq!(owner.status.code(), Some(1));
}
