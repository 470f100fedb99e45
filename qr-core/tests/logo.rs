//! Logos: every code with a logo still decodes, at every allowed logo size, in both formats.

use qr_core::{
    EcLevel, Format, Logo, LogoSize, Margin, QrCode, RenderError, RenderOptions, Size, render,
};

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn decode(bytes: &[u8], options: &RenderOptions) -> Result<Vec<u8>, String> {
    let image = match options.format {
        Format::Svg => qr_test_support::svg_luma(bytes),
        _ => qr_test_support::png_luma(bytes),
    };
    let size = options.size.pixels() as usize;
    assert_eq!((image.width, image.height), (size, size));
    let (dark, light) = (options.color.into(), options.background.into());
    qr_test_support::decode(&qr_test_support::binarize(&image, dark, light))
}

#[test]
fn fixtures_decode_with_their_dimensions() {
    let png = Logo::decode(fixture("logo.png")).expect("PNG logo");
    assert_eq!(
        (png.width(), png.height(), png.media_type()),
        (96, 64, "image/png")
    );
    let jpeg = Logo::decode(fixture("logo.jpg")).expect("JPEG logo");
    assert_eq!(
        (jpeg.width(), jpeg.height(), jpeg.media_type()),
        (80, 80, "image/jpeg")
    );
}

#[test]
fn codes_with_logos_decode_at_every_size() {
    let data = [
        "https://qr.example.com/r/7K3M9QXZ",
        "WIFI:S:Example Network;T:WPA;P:correct horse battery staple;;",
        "https://example.com/a/rather/long/path?with=query&and=parameters&id=12345678901234567890",
    ];
    for logo_name in ["logo.png", "logo.jpg"] {
        let logo = Logo::decode(fixture(logo_name)).expect("logo decodes");
        // The service's range of logo sizes (qr-generate allows 5 to 30 percent).
        for percent in 5..=30u8 {
            for (i, text) in data.iter().enumerate() {
                // Alternate formats and the requested level: a logo always encodes at H.
                let format = if (percent as usize + i).is_multiple_of(2) {
                    Format::Png
                } else {
                    Format::Svg
                };
                let options = RenderOptions::default()
                    .with_format(format)
                    .with_ec_level(EcLevel::ALL[(percent as usize + i) % 4])
                    .with_size(Size::new(400).expect("valid size"))
                    .with_margin(Margin::new(4))
                    .with_logo(logo.clone())
                    .with_logo_size(LogoSize::new(percent).expect("valid logo size"));
                let bytes = render(text, &options).expect("renders");
                assert_eq!(
                    decode(&bytes, &options).as_deref(),
                    Ok(text.as_bytes()),
                    "{logo_name} at {percent}% in {format:?}"
                );
            }
        }
    }
}

#[test]
fn level_h_with_logo_size_20_decodes_in_both_formats() {
    let logo = Logo::decode(fixture("logo.png")).expect("logo decodes");
    for format in [Format::Png, Format::Svg] {
        let options = RenderOptions::default()
            .with_format(format)
            .with_ec_level(EcLevel::H)
            .with_logo(logo.clone())
            .with_logo_size(LogoSize::new(20).expect("valid logo size"));
        let text = "https://qr.example.com/r/7K3M9QXZ";
        let bytes = render(text, &options).expect("renders");
        assert_eq!(
            decode(&bytes, &options).as_deref(),
            Ok(text.as_bytes()),
            "{format:?}"
        );
        if format == Format::Svg {
            let svg = String::from_utf8(bytes).expect("SVG is UTF-8");
            assert!(svg.contains(r#"xlink:href="data:image/png;base64,"#));
        }
    }
}

#[test]
fn a_logo_raises_the_level_and_never_covers_the_finders() {
    let logo = Logo::decode(fixture("logo.png")).expect("logo decodes");
    let options = RenderOptions::default()
        .with_logo(logo)
        .with_logo_size(LogoSize::new(30).expect("valid logo size"));
    let encode = options.encode_options();
    assert_eq!(encode.level, EcLevel::H);
    let code = QrCode::encode_with(b"hi", &encode).expect("fits");
    assert!(
        code.version().number() >= 3,
        "a 30% logo needs at least version 3"
    );
}

#[test]
fn the_largest_input_with_the_largest_logo_still_decodes() {
    let logo = Logo::decode(fixture("logo.jpg")).expect("logo decodes");
    let options = RenderOptions::default()
        .with_logo(logo)
        .with_logo_size(LogoSize::new(30).expect("valid logo size"))
        .with_size(Size::new(2000).expect("valid size"));
    // Version 40 at H holds 1,273 bytes: a 30% logo there touches about 5 codewords of each block,
    // well inside the budget, so even a full symbol keeps its logo.
    let text = "x".repeat(1273);
    let bytes = render(&text, &options).expect("renders");
    assert!(
        decode(&bytes, &options).as_deref() == Ok(text.as_bytes()),
        "decodes"
    );
    let too_long = render(&"x".repeat(1274), &options);
    assert!(
        matches!(too_long, Err(RenderError::Encode(_))),
        "one byte more does not fit at H"
    );
}
