//! `qr generate TYPE --field …` (the API's content types as subcommands), `--symbol micro` and `--structured N|auto`, each output read back (rqrr; ZXing-C++ for Micro QR and structured append).

use predicates::prelude::*;

use crate::common::{Workspace, decode_image, qr, read};

#[test]
fn content_subcommands_build_the_apis_payloads() {
    let ws = Workspace::new();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "wifi",
                "--ssid",
                "Home; 5G",
                "--password",
                "correct horse",
                "--encryption",
                "WPA",
            ],
            r"WIFI:T:WPA;S:Home\; 5G;P:correct horse;;",
        ),
        (
            &["wifi", "--ssid", "Cafe", "--hidden"],
            "WIFI:T:nopass;S:Cafe;H:true;;",
        ),
        (
            &[
                "vcard",
                "--first-name",
                "Jane",
                "--last-name",
                "Doe",
                "--postal-code",
                "62701",
                "--version",
                "4",
            ],
            "BEGIN:VCARD\r\nVERSION:4.0\r\nN:Doe;Jane;;;\r\nFN:Jane Doe\r\nADR:;;;;;62701;\r\nEND:VCARD\r\n",
        ),
        (
            &["geo", "--latitude", "-33.8568", "--longitude", "151.2153"],
            "geo:-33.8568,151.2153",
        ),
        (
            &["mailto", "--to", "a@example.com", "--subject", "Hi"],
            "mailto:a@example.com?subject=Hi",
        ),
        (&["tel", "--phone", "+44 20 7946 0000"], "tel:+442079460000"),
        (
            &[
                "calendar",
                "--summary",
                "Launch",
                "--start",
                "2025-06-01T12:00Z",
            ],
            "BEGIN:VEVENT\r\nSUMMARY:Launch\r\nDTSTART:20250601T120000Z\r\nEND:VEVENT\r\n",
        ),
    ];
    for (index, (args, payload)) in cases.iter().enumerate() {
        let out = ws.path(&format!("code-{index}.png"));
        // The render flags work after the subcommand's fields (they are global).
        qr().arg("generate")
            .args(*args)
            .args(["--size", "400", "-o"])
            .arg(&out)
            .assert()
            .success();
        assert_eq!(decode_image(&read(&out)), *payload, "{args:?}");
    }
    // Before the subcommand too, and to standard output as SVG.
    let svg = qr()
        .args([
            "generate",
            "--format",
            "svg",
            "-o",
            "-",
            "sms",
            "--phone",
            "+1 555 0100",
            "--message",
            "Hi",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(decode_image(&svg), "SMSTO:+15550100:Hi");
}

#[test]
fn content_refusals_are_the_apis_and_usage_errors() {
    qr().args([
        "generate",
        "wifi",
        "--ssid",
        "x",
        "--password",
        "short",
        "-o",
        "-",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "Invalid password: WPA passphrase is 5 characters long; at least 8 are needed",
    ));
    // A required field is clap's to ask for.
    qr().args(["generate", "wifi", "-o", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--ssid"));
    qr().args([
        "generate",
        "epc",
        "--name",
        "x",
        "--iban",
        "GB82WEST12345698765432",
        "-o",
        "-",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "Invalid bic: a BIC is required for an IBAN from GB",
    ));
    // DATA and a content type at once.
    qr().args([
        "generate",
        "hello",
        "tel",
        "--phone",
        "+15550100",
        "-o",
        "-",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("data and type cannot be combined"));
}

#[test]
fn help_lists_the_types_and_their_fields() {
    qr().args(["generate", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("wifi").and(predicate::str::contains("epc")));
    qr().args(["generate", "wifi", "--help"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("--ssid")
                .and(predicate::str::contains("--encryption"))
                .and(predicate::str::contains("--hidden"))
                .and(predicate::str::contains("--output")),
        );
}

#[test]
fn micro_qr_codes_read_back_with_zxing() {
    let ws = Workspace::new();
    let out = ws.path("micro.png");
    qr().args([
        "generate", "01234567", "--symbol", "micro", "--size", "130", "-o",
    ])
    .arg(&out)
    .assert()
    .success();
    let Some(readings) =
        qr_test_support::zxing::read("qr generate --symbol micro", "MicroQRCode", &read(&out))
    else {
        return;
    };
    assert_eq!(readings.len(), 1);
    // ZXingReader prints the text in quotes.
    assert_eq!(readings[0].field("Text"), Some("\"01234567\""));
    assert_eq!(readings[0].field("Format"), Some("MicroQRCode"));
    qr().args([
        "generate", "1", "--symbol", "micro", "--style", "dots", "-o", "-",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("Invalid style for symbol=micro"));
    qr().args(["generate", "1", "--symbol", "micro", "--terminal"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("drawn as an image only"));
}

#[test]
fn structured_append_writes_numbered_files_that_join_to_the_message() {
    let ws = Workspace::new();
    let text: String = (0..500)
        .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
        .collect();
    for (count, expected) in [("3", 3), ("auto", 3)] {
        let out = ws.path(&format!("seq-{count}.png"));
        let assert = qr()
            .args(["generate", &text, "--structured", count, "-o"])
            .arg(&out)
            .assert()
            .success();
        let printed = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
        let paths: Vec<&str> = printed.lines().collect();
        assert_eq!(paths.len(), expected, "{printed}");
        let mut joined = String::new();
        for (index, path) in paths.iter().enumerate() {
            assert!(
                path.ends_with(&format!("seq-{count}-{}.png", index + 1)),
                "{path}"
            );
            let Some(readings) = qr_test_support::zxing::read(
                "qr generate --structured",
                "QRCode",
                &read(std::path::Path::new(path)),
            ) else {
                return;
            };
            let part = readings
                .iter()
                .find(|r| {
                    r.field("Structured Append").is_some_and(|s| {
                        s.starts_with(&format!("symbol {} of {expected}", index + 1))
                    })
                })
                .unwrap_or_else(|| panic!("{path}: {readings:?}"));
            // ZXingReader prints the text in quotes.
            let quoted = part.field("Text").unwrap();
            joined.push_str(&quoted[1..quoted.len() - 1]);
        }
        assert_eq!(joined, text);
    }
    qr().args(["generate", "hello", "--structured", "2", "-o", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--structured writes several files",
        ));
    qr().args(["generate", "hello", "--structured", "17", "-o", "x.png"])
        .assert()
        .code(2);
}
