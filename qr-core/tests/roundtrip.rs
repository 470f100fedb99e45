//! Every rendered image decodes back to its exact input: PNG through a decoder, SVG through resvg,
//! across data kinds, levels, margins, sizes, colours and formats.

use proptest::prelude::*;
use qr_core::{Color, EcLevel, Format, Margin, QrCode, RenderOptions, Size, render};

/// Renders `data` and asserts that the image is exactly `size` pixels and decodes to `data`.
fn check(data: &str, options: &RenderOptions) {
    let bytes = render(data, options).expect("renders");
    let image = match options.format {
        Format::Svg => qr_test_support::svg_luma(&bytes),
        _ => qr_test_support::png_luma(&bytes),
    };
    let size = options.size.pixels() as usize;
    assert_eq!(
        (image.width, image.height),
        (size, size),
        "exact pixel size"
    );
    let image = qr_test_support::binarize(&image, options.color.into(), options.background.into());
    let decoded = qr_test_support::decode(&image)
        .unwrap_or_else(|e| panic!("{e}: {data:?} with {options:?}"));
    assert_eq!(decoded, data.as_bytes(), "content with {options:?}");
}

#[test]
fn reference_url_decodes_in_both_formats() {
    for format in [Format::Png, Format::Svg] {
        check(
            "https://qr.example.com/r/7K3M9QXZ",
            &RenderOptions::default().with_format(format),
        );
    }
}

#[test]
fn maximum_input_decodes() {
    let data = "a".repeat(2953);
    for format in [Format::Png, Format::Svg] {
        check(
            &data,
            &RenderOptions::default()
                .with_format(format)
                .with_ec_level(EcLevel::L)
                .with_size(Size::new(2000).expect("valid size"))
                .with_margin(Margin::new(4)),
        );
    }
}

#[test]
fn translucent_and_coloured_pngs_decode() {
    let cases = [
        ("000000", "ffffff00"),
        ("1a237e", "fff8e1"),
        ("000000cc", "ffffff"),
        ("fff", "000"),
    ];
    for (color, background) in cases {
        for format in [Format::Png, Format::Svg] {
            let options = RenderOptions::default()
                .with_format(format)
                .with_color(Color::parse_hex(color).expect("valid colour"))
                .with_background(Color::parse_hex(background).expect("valid colour"));
            if color == "fff" {
                // Light on dark is a valid image but readers (rqrr included) want dark on light:
                // check it is the exact inverse of the default instead.
                let inverse = qr_test_support::png_luma(
                    &render("inverse", &options.clone().with_format(Format::Png)).expect("renders"),
                );
                let normal = qr_test_support::png_luma(
                    &render("inverse", &RenderOptions::default()).expect("renders"),
                );
                assert!(
                    inverse
                        .pixels
                        .iter()
                        .zip(&normal.pixels)
                        .all(|(a, b)| a + b == 255)
                );
                continue;
            }
            check("https://example.com/colours", &options);
        }
    }
}

#[test]
fn the_largest_numeric_input_decodes() {
    // 7,089 digits fill version 40 at level L, more than 2,953 characters: the core's limit is
    // the symbol's capacity.
    let data = "7".repeat(7089);
    let options = RenderOptions::default()
        .with_ec_level(EcLevel::L)
        .with_size(Size::new(1000).expect("valid size"));
    assert_eq!(
        QrCode::encode_text(&data, EcLevel::L).map(|code| code.version().number()),
        Ok(40)
    );
    check(&data, &options);
}

/// Data of each kind, up to a length that keeps the proptest quick in debug builds.
fn data_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9]{1,600}",
        "[0-9A-Z $%*+./:-]{1,400}",
        "[ -~]{1,300}",
        "\\PC{1,100}",
        "([a-z]{1,8}[0-9]{1,40}[A-Z]{0,12}){1,8}",
    ]
}

/// A level, a margin, a format, a dark colour and a light colour.
type Choice = (EcLevel, u8, Format, (u8, u8, u8), (u8, u8, u8));

fn options_strategy() -> impl Strategy<Value = Choice> {
    (
        prop_oneof![
            Just(EcLevel::L),
            Just(EcLevel::M),
            Just(EcLevel::Q),
            Just(EcLevel::H)
        ],
        0u8..=10,
        prop_oneof![Just(Format::Png), Just(Format::Svg)],
        // Dark colours and light backgrounds with enough contrast for a reader.
        (0u8..90, 0u8..90, 0u8..90),
        (180u8..=255, 180u8..=255, 180u8..=255),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn rendered_images_decode_to_their_input(
        data in data_strategy(),
        (level, margin, format, dark, light) in options_strategy(),
        size_choice in 0.0f64..1.0,
    ) {
        let code = QrCode::encode_text(&data, level);
        prop_assume!(code.is_ok());
        let modules = code.map(|c| c.size()).unwrap_or(0) as u32 + 2 * u32::from(margin);
        // At least two pixels per module: rqrr's reliable range.
        let smallest = (2 * modules).max(50);
        prop_assume!(smallest <= 2000);
        let size = smallest + ((2000 - smallest) as f64 * size_choice * size_choice) as u32;
        let options = RenderOptions::default()
            .with_size(Size::new(size).expect("in range"))
            .with_format(format)
            .with_color(Color::rgb(dark.0, dark.1, dark.2))
            .with_background(Color::rgb(light.0, light.1, light.2))
            .with_ec_level(level)
            .with_margin(Margin::new(margin));
        check(&data, &options);
    }
}
