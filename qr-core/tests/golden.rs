//! Golden files: fixed inputs must render to the committed PNG bytes and SVG text exactly.
//!
//! Run with `UPDATE_GOLDEN=1 cargo test -p qr-core --test golden` to rewrite the files after an
//! intended change, then look at the images and the diff before committing them.

use std::path::PathBuf;

use qr_core::{Color, EcLevel, Format, Margin, RenderOptions, Size, render};

struct Case {
    name: &'static str,
    data: &'static str,
    options: RenderOptions,
}

fn cases() -> Vec<Case> {
    let svg = |options: RenderOptions| options.with_format(Format::Svg);
    let url = "https://qr.example.com/r/7K3M9QXZ";
    let coloured = RenderOptions::default()
        .with_color(Color::parse_hex("1a237e").expect("valid colour"))
        .with_background(Color::parse_hex("fff8e180").expect("valid colour"))
        .with_ec_level(EcLevel::Q)
        .with_margin(Margin::new(2))
        .with_size(Size::new(512).expect("valid size"));
    let numeric = RenderOptions::default()
        .with_ec_level(EcLevel::H)
        .with_margin(Margin::new(0))
        .with_size(Size::new(50).expect("valid size"));
    vec![
        Case {
            name: "url-default",
            data: url,
            options: RenderOptions::default(),
        },
        Case {
            name: "url-default",
            data: url,
            options: svg(RenderOptions::default()),
        },
        Case {
            name: "coloured",
            data: "Grüße aus Köln! 12345",
            options: coloured.clone(),
        },
        Case {
            name: "coloured",
            data: "Grüße aus Köln! 12345",
            options: svg(coloured),
        },
        Case {
            name: "numeric-tiny",
            data: "0123456789",
            options: numeric.clone(),
        },
        Case {
            name: "numeric-tiny",
            data: "0123456789",
            options: svg(numeric),
        },
    ]
}

#[test]
fn renders_match_golden_files() {
    let directory = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for case in cases() {
        let bytes = render(case.data, &case.options).expect("renders");
        let path = directory.join(format!("{}.{}", case.name, case.options.format.extension()));
        // Whatever the files say, the image must decode to its input.
        let image = match case.options.format {
            Format::Svg => qr_test_support::svg_luma(&bytes),
            _ => qr_test_support::png_luma(&bytes),
        };
        assert_eq!(
            qr_test_support::decode(&image).as_deref(),
            Ok(case.data.as_bytes()),
            "{}",
            path.display()
        );
        if update {
            std::fs::write(&path, &bytes).expect("golden file is writable");
            continue;
        }
        let expected = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run with UPDATE_GOLDEN=1 to create it",
                path.display()
            )
        });
        assert!(
            expected == bytes,
            "{} differs from the rendered output ({} vs {} bytes); if the change is intended, rerun with UPDATE_GOLDEN=1",
            path.display(),
            expected.len(),
            bytes.len()
        );
    }
}

#[test]
fn rendering_is_deterministic() {
    for case in cases() {
        assert_eq!(
            render(case.data, &case.options),
            render(case.data, &case.options)
        );
    }
}
