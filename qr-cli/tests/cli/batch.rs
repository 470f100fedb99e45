//! `qr batch`: CSV and JSON Lines into the API's archive layout, with failing rows in errors.json.

use std::io::Read;

use predicates::prelude::*;

use crate::common::{Workspace, decode_image, qr, read};

/// The archive's files in order, with their contents.
fn unzip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a ZIP archive");
    (0..archive.len())
        .map(|i| {
            let mut file = archive.by_index(i).unwrap();
            let mut content = Vec::new();
            file.read_to_end(&mut content).unwrap();
            (file.name().expect("a UTF-8 name").into_owned(), content)
        })
        .collect()
}

fn errors_json(files: &[(String, Vec<u8>)]) -> serde_json::Value {
    let (_, content) = files
        .iter()
        .find(|(name, _)| name == "errors.json")
        .expect("errors.json in the archive");
    serde_json::from_slice(content).unwrap()
}

#[test]
fn csv_with_a_failing_row() {
    let ws = Workspace::new();
    let input = ws.path("items.csv");
    std::fs::write(
        &input,
        "data,filename,size,format,notes\n\
         https://example.com/1,first,400,,a note\n\
         \"quoted, with comma\",,,svg,\n\
         too small,,10,,\n\
         https://example.com/4,first,,,\n",
    )
    .unwrap();
    let out = ws.path("codes.zip");
    qr().args(["batch"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("made 3, failed 1"))
        .stderr(predicate::str::contains("ignoring the CSV column(s) notes"));
    let files = unzip(&read(&out));
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["first.png", "qr-002.svg", "first-2.png", "errors.json"]
    );
    assert_eq!(decode_image(&files[0].1), "https://example.com/1");
    assert_eq!(decode_image(&files[1].1), "quoted, with comma");
    assert_eq!(decode_image(&files[2].1), "https://example.com/4");
    assert_eq!(
        errors_json(&files),
        serde_json::json!({"errors": [{"index": 2, "data": "too small", "error": "Invalid size"}]})
    );
}

#[test]
fn json_lines_from_stdin_with_defaults_and_a_failing_row() {
    let ws = Workspace::new();
    let out = ws.path("codes.zip");
    qr().args(["batch", "-", "--format", "svg", "--ec", "Q", "-o"])
        .arg(&out)
        .write_stdin(
            "{\"data\": \"one\", \"filename\": \"a/b\"}\n\
             \n\
             {\"data\": \"two\", \"format\": \"png\", \"size\": 120}\n\
             {\"filename\": \"no data\"}\n",
        )
        .assert()
        .code(1)
        .stderr(predicate::str::contains("made 2, failed 1"));
    let files = unzip(&read(&out));
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a_b.svg", "qr-002.png", "errors.json"]);
    assert_eq!(decode_image(&files[0].1), "one");
    assert_eq!(crate::common::png_luma(&files[1].1).width, 120);
    assert_eq!(
        errors_json(&files),
        serde_json::json!({"errors": [{"index": 2, "data": "", "error": "data parameter required"}]})
    );
}

#[test]
fn a_batch_without_failures_has_no_errors_file_and_exits_0() {
    let ws = Workspace::new();
    let input = ws.path("items.jsonl");
    std::fs::write(&input, "{\"data\":\"a\"}\n{\"data\":\"b\"}\n").unwrap();
    let output = qr()
        .args(["batch"])
        .arg(&input)
        .args(["-o", "-"])
        .assert()
        .success()
        .stderr(predicate::str::contains("made 2, failed 0"))
        .get_output()
        .stdout
        .clone();
    let files = unzip(&output);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["qr-001.png", "qr-002.png"]);
}

#[test]
fn bad_batch_input_and_defaults() {
    let ws = Workspace::new();
    let input = ws.path("items.csv");
    std::fs::write(&input, "text\nhello\n").unwrap();
    qr().args(["batch"])
        .arg(&input)
        .args(["-o", "x.zip"])
        .current_dir(ws.dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no data column"));
    std::fs::write(&input, "data\nhello\n").unwrap();
    qr().args(["batch"])
        .arg(&input)
        .args(["-o", "x.zip", "--size", "9"])
        .current_dir(ws.dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Invalid size"));
    let jsonl = ws.path("items.jsonl");
    std::fs::write(&jsonl, "{\"data\":\"a\"}\n{oops}\n").unwrap();
    qr().args(["batch"])
        .arg(&jsonl)
        .args(["-o", "x.zip"])
        .current_dir(ws.dir.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("line 2 is not valid JSON"));
    assert!(!ws.path("x.zip").exists());
    qr().args(["batch", "missing.csv", "-o", "x.zip"])
        .current_dir(ws.dir.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot read missing.csv"));
}
