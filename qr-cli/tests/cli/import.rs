//! `qr links import`: a CSV or JSON Lines file becomes links through the domain's bulk operation, failed rows reported by index, and `--zip` writes their codes (decoded back here), links.csv and errors.json.

use std::collections::BTreeMap;
use std::io::Read;

use serde_json::Value;

use crate::common::{Workspace, decode, png_luma};

fn unzip(path: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    let bytes = std::fs::read(path).unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut files = BTreeMap::new();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).unwrap();
        let name = file.name().unwrap().into_owned();
        let mut data = Vec::new();
        file.read_to_end(&mut data).unwrap();
        files.insert(name, data);
    }
    files
}

fn links_of(ws: &Workspace, email: &str) -> Vec<Value> {
    let listed: Value =
        serde_json::from_str(&ws.ok(&["links", "list", "--email", email, "--json"])).unwrap();
    listed["links"].as_array().unwrap().clone()
}

#[test]
fn csv_rows_become_links_and_failed_rows_are_reported_with_exit_1() {
    let ws = Workspace::new();
    ws.create_key("shop@example.com", "starter");
    let shown: Value = serde_json::from_str(&ws.ok(&[
        "accounts",
        "show",
        "--email",
        "shop@example.com",
        "--json",
    ]))
    .unwrap();
    let account = shown["id"].as_str().unwrap().to_owned();
    std::fs::write(
        ws.path("links.csv"),
        "name,targetUrl,shortCode,tags,maxScans,utm.source,rules\n\
         Table 1,https://example.com/t/1,table-one,tables|print,100,poster,\n\
         Broken,javascript:alert(1),,,,,\n\
         Steered,https://example.com/s,,,,,\"[{\"\"when\"\":{\"\"os\"\":\"\"ios\"\"},\"\"targetUrl\"\":\"\"https://a.example/\"\"}]\"\n\
         Table 2,https://example.com/t/2,,,,,\n",
    )
    .unwrap();
    let output = ws
        .qr(&[
            "links",
            "import",
            "links.csv",
            "--account",
            &account,
            "--base-url",
            "https://qr.example.com",
            "--zip",
            "codes.zip",
            "--size",
            "240",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("qr: item 1: Invalid targetUrl: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("qr: item 2: rules requires Pro plan (https://example.com/s)"),
        "{stderr}"
    );
    assert!(stderr.contains("imported 2, failed 2"), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("https://qr.example.com/r/table-one\tTable 1"),
        "{stdout}"
    );
    let links = links_of(&ws, "shop@example.com");
    assert_eq!(links.len(), 2);
    let first = links.iter().find(|l| l["name"] == "Table 1").unwrap();
    assert_eq!(first["shortCode"], "table-one");
    assert_eq!(first["tags"], serde_json::json!(["tables", "print"]));
    assert_eq!(first["maxScans"], 100);
    assert_eq!(first["utm"]["source"], "poster");

    let files = unzip(&ws.path("codes.zip"));
    let second = links.iter().find(|l| l["name"] == "Table 2").unwrap();
    let second_code = second["shortCode"].as_str().unwrap();
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    let mut expected = vec![
        "errors.json".to_owned(),
        "links.csv".to_owned(),
        "table-one.png".to_owned(),
        format!("{second_code}.png"),
    ];
    expected.sort();
    assert_eq!(names, expected);
    for code in ["table-one", second_code] {
        let png = &files[&format!("{code}.png")];
        assert_eq!(
            decode(&png_luma(png)),
            format!("https://qr.example.com/r/{code}")
        );
    }
    let csv = String::from_utf8(files["links.csv"].clone()).unwrap();
    assert!(
        csv.starts_with("id,name,shortCode,shortUrl,targetUrl\n"),
        "{csv}"
    );
    assert!(
        csv.contains(
            ",Table 1,table-one,https://qr.example.com/r/table-one,https://example.com/t/1\n"
        ),
        "{csv}"
    );
    let errors: Value = serde_json::from_slice(&files["errors.json"]).unwrap();
    let indexes: Vec<u64> = errors["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, [1, 2]);
}

#[test]
fn json_lines_import_with_json_output_and_the_link_limit() {
    let ws = Workspace::new();
    ws.create_key("free@example.com", "free");
    // Free holds 5 links: of 7 lines the last 2 fail with the limit.
    let lines: String = (0..7)
        .map(|i| format!("{{\"name\":\"L{i}\",\"targetUrl\":\"https://example.com/{i}\"}}\n"))
        .collect();
    std::fs::write(ws.path("links.jsonl"), lines).unwrap();
    let output = ws
        .qr(&[
            "links",
            "import",
            "links.jsonl",
            "--email",
            "free@example.com",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["links"].as_array().unwrap().len(), 5);
    let errors = answer["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0]["index"], 5);
    assert_eq!(errors[0]["data"], "https://example.com/5");
    assert_eq!(
        errors[0]["error"],
        "Link limit reached: the free plan allows 5 links; delete a link or upgrade the plan"
    );
    assert_eq!(links_of(&ws, "free@example.com").len(), 5);
}

#[test]
fn usage_errors_exit_2_and_create_nothing() {
    let ws = Workspace::new();
    ws.create_key("ops@example.com", "pro");
    std::fs::write(
        ws.path("ok.csv"),
        "name,targetUrl\nA,https://example.com/a\n",
    )
    .unwrap();
    std::fs::write(ws.path("bad.csv"), "name,url\nA,https://example.com/a\n").unwrap();
    let refused: [&[&str]; 4] = [
        // --zip needs the base URL its codes encode.
        &["ok.csv", "--email", "ops@example.com", "--zip", "z.zip"],
        // No targetUrl column.
        &["bad.csv", "--email", "ops@example.com"],
        &["ok.csv", "--account", "not-a-uuid"],
        &["ok.csv", "--email", "ops@example.com", "--size", "10"],
    ];
    for args in refused {
        let mut command = vec!["links", "import"];
        command.extend_from_slice(args);
        let output = ws.qr(&command).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
    assert!(links_of(&ws, "ops@example.com").is_empty());
    assert!(!ws.path("z.zip").exists());
}
