//! `qr generate`: images to files and standard output, text drawings, and argument errors.

use predicates::prelude::*;

use crate::common::{Luma, Workspace, decode, decode_image, qr, read};

#[test]
fn png_file_decodes_to_the_data() {
    let ws = Workspace::new();
    let out = ws.path("code.png");
    qr().args(["generate", "https://example.com/a?b=c", "-o"])
        .arg(&out)
        .assert()
        .success()
        .stdout("");
    let bytes = read(&out);
    assert!(bytes.starts_with(b"\x89PNG"));
    let image = crate::common::png_luma(&bytes);
    assert_eq!((image.width, image.height), (300, 300));
    assert_eq!(decode(&image), "https://example.com/a?b=c");
}

#[test]
fn svg_file_with_options_decodes_to_the_data() {
    let ws = Workspace::new();
    let out = ws.path("code.SVG");
    qr().args([
        "generate",
        "Grüße, QR",
        "--size",
        "400",
        "--color",
        "003366",
        "--ec",
        "H",
        "--margin",
        "2",
        "-o",
    ])
    .arg(&out)
    .assert()
    .success();
    let bytes = read(&out);
    assert!(bytes.starts_with(b"<svg") || bytes.starts_with(b"<?xml"));
    let image = crate::common::svg_luma(&bytes);
    assert_eq!((image.width, image.height), (400, 400));
    assert_eq!(decode(&image), "Grüße, QR");
}

#[test]
fn format_option_wins_over_the_extension() {
    let ws = Workspace::new();
    let out = ws.path("code.svg");
    qr().args(["generate", "hello", "--format", "png", "-o"])
        .arg(&out)
        .assert()
        .success();
    assert!(read(&out).starts_with(b"\x89PNG"));
}

#[test]
fn dash_writes_the_image_to_stdout() {
    let output = qr()
        .args(["generate", "to stdout", "-o", "-", "--format", "svg"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(output.stdout.starts_with(b"<svg") || output.stdout.starts_with(b"<?xml"));
    assert_eq!(decode_image(&output.stdout), "to stdout");
}

#[test]
fn without_output_a_pipe_gets_png_bytes() {
    let output = qr().args(["generate", "piped"]).output().unwrap();
    assert!(output.status.success());
    assert!(output.stdout.starts_with(b"\x89PNG"));
    assert_eq!(decode_image(&output.stdout), "piped");
}

#[test]
fn data_comes_from_stdin_without_its_final_newline() {
    for args in [
        &["generate", "-o", "-"][..],
        &["generate", "-", "-o", "-"][..],
    ] {
        let output = qr()
            .args(args)
            .write_stdin("from stdin\n")
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}");
        assert_eq!(decode_image(&output.stdout), "from stdin");
    }
}

/// Turns half-block text back into pixels (4 per module) and decodes it.
fn decode_text(text: &str) -> String {
    let lines: Vec<Vec<char>> = text.lines().map(|l| l.chars().collect()).collect();
    let width = lines[0].len();
    assert!(
        lines.iter().all(|l| l.len() == width),
        "lines of equal width"
    );
    let scale = 4;
    let (w, h) = (width * scale, lines.len() * 2 * scale);
    let mut pixels = vec![255u8; w * h];
    for (row, line) in lines.iter().enumerate() {
        for (col, c) in line.iter().enumerate() {
            let (top, bottom) = match c {
                '█' => (true, true),
                '▀' => (true, false),
                '▄' => (false, true),
                ' ' => (false, false),
                other => panic!("unexpected character {other:?}"),
            };
            for (half, dark) in [(0, top), (1, bottom)] {
                if !dark {
                    continue;
                }
                for dy in 0..scale {
                    for dx in 0..scale {
                        let y = (row * 2 + half) * scale + dy;
                        pixels[y * w + col * scale + dx] = 0;
                    }
                }
            }
        }
    }
    decode(&Luma {
        width: w,
        height: h,
        pixels,
    })
}

#[test]
fn terminal_drawing_of_a_small_code() {
    let output = qr()
        .args(["generate", "HI", "--terminal", "--ec", "L", "--margin", "2"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    // Version 1 is 21 modules; with 2 of margin each side that is 25 columns and 13 lines.
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 13);
    assert!(lines.iter().all(|l| l.chars().count() == 25));
    assert!(!text.contains('\x1b'), "no colours when not on a terminal");
    assert_eq!(decode_text(&text), "HI");
}

#[test]
fn invalid_values_are_usage_errors_with_the_apis_messages() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["generate", "x", "--size", "49", "-o", "-"],
            "Invalid size",
        ),
        (
            &["generate", "x", "--format", "gif", "-o", "-"],
            "Invalid format",
        ),
        (
            &["generate", "x", "--color", "#000", "-o", "-"],
            "Invalid color",
        ),
        (
            &["generate", "x", "--ec", "X", "-o", "-"],
            "Invalid errorCorrection",
        ),
        (
            &["generate", "x", "--margin", "11", "-o", "-"],
            "Invalid margin",
        ),
        (
            &["generate", "x", "-o", "code.gif"],
            "name the file .png, .svg, .pdf or .eps",
        ),
    ];
    for (args, message) in cases {
        qr().args(*args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::starts_with("qr: error: "))
            .stderr(predicate::str::contains(*message))
            .stderr(predicate::function(|s: &str| s.lines().count() == 1));
    }
    qr().args(["generate", "-o", "-"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("data parameter required"));
    let long = "a".repeat(2954);
    qr().args(["generate", long.as_str(), "-o", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Data too long"));
}

#[test]
fn clap_errors_exit_2_with_a_useful_message() {
    qr().args(["generate", "x", "--sise", "300"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--sise"))
        .stderr(predicate::str::contains("--size"));
    qr().args(["nonsense"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unrecognized subcommand"));
    qr().args(["generate", "x", "-o", "a.png", "--terminal"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be used with"));
    qr().assert()
        .code(2)
        .stderr(predicate::str::contains("Usage"));
}

#[test]
fn logo_files_are_placed_and_the_code_still_reads() {
    let ws = Workspace::new();
    // A 16x16 red PNG made with the png crate.
    let logo = ws.path("logo.png");
    {
        let file = std::fs::File::create(&logo).unwrap();
        let mut encoder = png::Encoder::new(file, 16, 16);
        encoder.set_color(png::ColorType::Rgb);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&[200, 0, 0].repeat(256)).unwrap();
    }
    let out = ws.path("logo-code.png");
    qr().args([
        "generate",
        "https://example.com/logo",
        "--size",
        "600",
        "--logo",
    ])
    .arg(&logo)
    .arg("-o")
    .arg(&out)
    .assert()
    .success();
    assert_eq!(decode_image(&read(&out)), "https://example.com/logo");
    qr().args(["generate", "x", "--terminal", "--logo"])
        .arg(&logo)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be drawn as text"));
    let not_an_image = ws.path("logo.txt");
    std::fs::write(&not_an_image, "text").unwrap();
    qr().args(["generate", "x", "-o", "-", "--logo"])
        .arg(&not_an_image)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not a PNG or JPEG"));
}

#[test]
fn styles_frames_and_print_formats_come_from_the_shared_flags() {
    let ws = Workspace::new();
    let png = ws.path("styled.png");
    qr().args([
        "generate",
        "https://example.com/styled",
        "--style",
        "dots",
        "--finder-style",
        "circle",
        "--gradient",
        "radial",
        "--color",
        "1a237e",
        "--color2",
        "6a1b9a",
        "--frame",
        "banner-bottom",
        "--frame-text",
        "SCAN ME",
        "--dpi",
        "300",
        "--verify",
        "-o",
    ])
    .arg(&png)
    .assert()
    .success()
    .stdout("");
    assert_eq!(decode_image(&read(&png)), "https://example.com/styled");
    let pdf = ws.path("print.pdf");
    qr().args([
        "generate",
        "print",
        "--style",
        "rounded",
        "--print-size",
        "30",
        "--verify",
        "-o",
    ])
    .arg(&pdf)
    .assert()
    .success();
    assert!(read(&pdf).starts_with(b"%PDF-1.4"));
    qr().args(["generate", "x", "--color", "dddddd", "-o", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Contrast too low"));
}
