//! Each bound and each malformed option gets its own typed error, never a panic.

use qr_core::{
    Capacity, Color, EcLevel, EncodeError, Format, Logo, LogoError, LogoSize, Margin, OptionError,
    QrCode, RenderError, RenderOptions, Size, render,
};

#[test]
fn option_bounds_are_typed_errors() {
    // The core's own bounds; the service's narrower ones (50 to 2,000 pixels, margins up to 10,
    // logos of 5 to 30%) are qr-generate's, and its tests check them.
    assert_eq!(Size::new(0), Err(OptionError::Size(0)));
    assert_eq!(Size::new(8193), Err(OptionError::Size(8193)));
    assert_eq!(LogoSize::new(0), Err(OptionError::LogoSize(0)));
    assert_eq!(LogoSize::new(101), Err(OptionError::LogoSize(101)));
    assert_eq!(
        "jpeg".parse::<Format>(),
        Err(OptionError::Format("jpeg".into()))
    );
    assert_eq!(Color::parse_hex("12"), Err(OptionError::Color("12".into())));
    assert_eq!(EcLevel::parse("X"), None);
    assert!(Size::new(1).is_ok() && Size::new(8192).is_ok());
    assert!(LogoSize::new(1).is_ok() && LogoSize::new(100).is_ok());
    assert_eq!(Margin::new(255).modules(), 255);
}

#[test]
fn error_messages_help_the_caller() {
    assert_eq!(
        OptionError::Size(0).to_string(),
        "invalid size 0: it must be from 1 to 8192 pixels"
    );
    assert_eq!(
        OptionError::Color("#fff".into()).to_string(),
        "invalid color \"#fff\": use hex digits without '#', as RRGGBB, RGB or RRGGBBAA"
    );
}

#[test]
fn only_the_symbols_capacity_limits_the_data() {
    // 2,954 characters of two bytes each: the core counts bytes against version 40's capacity
    // (a cap on characters is the service's rule, checked by qr-generate).
    let data = "é".repeat(2954);
    assert_eq!(
        render(&data, &RenderOptions::default()),
        Err(RenderError::Encode(EncodeError::DataTooLong {
            level: EcLevel::M,
            capacity: Capacity::Bytes(2331),
            length: Capacity::Bytes(5908),
        }))
    );
}

#[test]
fn data_too_long_names_the_level_and_capacity() {
    fn check(data: &str, level: EcLevel, capacity: Capacity, length: Capacity) {
        assert_eq!(
            QrCode::encode_text(data, level),
            Err(EncodeError::DataTooLong {
                level,
                capacity,
                length
            }),
            "{level}"
        );
    }
    check(
        &"a".repeat(2332),
        EcLevel::M,
        Capacity::Bytes(2331),
        Capacity::Bytes(2332),
    );
    check(
        &"a".repeat(1274),
        EcLevel::H,
        Capacity::Bytes(1273),
        Capacity::Bytes(1274),
    );
    check(
        &"1".repeat(7090),
        EcLevel::L,
        Capacity::Digits(7089),
        Capacity::Digits(7090),
    );
    check(
        &"A".repeat(4297),
        EcLevel::L,
        Capacity::Alphanumeric(4296),
        Capacity::Alphanumeric(4297),
    );
    // Multi-byte characters count as their UTF-8 bytes.
    let message = QrCode::encode_text(&"é".repeat(1500), EcLevel::L)
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        message.as_deref(),
        Some(
            "data too long for error correction level L: it is 3000 bytes, and at most 2953 bytes fit; use a lower level or shorter data"
        )
    );
    // Through the rendering entry point the same error comes out.
    let options = RenderOptions::default().with_ec_level(EcLevel::H);
    assert!(matches!(
        render(&"a".repeat(2000), &options),
        Err(RenderError::Encode(EncodeError::DataTooLong {
            level: EcLevel::H,
            ..
        }))
    ));
}

#[test]
fn a_size_too_small_names_the_minimum() {
    let options = RenderOptions::default().with_size(Size::new(50).expect("valid size"));
    // 2,000 digits need version 23 at M: 109 modules plus 8 of margin.
    assert_eq!(
        render(&"1".repeat(2000), &options),
        Err(RenderError::SizeTooSmall {
            size: 50,
            modules: 117,
            minimum: 117
        })
    );
}

#[test]
fn malformed_logos_are_typed_errors() {
    assert_eq!(
        Logo::decode(b"<svg/>".to_vec()).err(),
        Some(LogoError::UnsupportedFormat)
    );
    assert!(matches!(
        Logo::decode(
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0garbage".to_vec()
        ),
        Err(LogoError::Decode(_))
    ));
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for length in 0..200 {
        let bytes: Vec<u8> = (0..length)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        let _ = Logo::decode(bytes.clone());
        let mut jpeg = vec![0xFF, 0xD8, 0xFF];
        jpeg.extend_from_slice(&bytes);
        let _ = Logo::decode(jpeg);
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend_from_slice(&bytes);
        let _ = Logo::decode(png);
        for level in EcLevel::ALL {
            let _ = QrCode::encode_bytes(&bytes, level);
        }
    }
}

#[test]
fn the_cores_own_limits_render_or_refuse_without_panicking() {
    let data = "https://qr.example.com/r/7K3M9QXZ";
    // The largest image with the widest margin: 29 modules and 2 x 255 of margin, 15 px each.
    let largest = RenderOptions::default()
        .with_size(Size::new(Size::MAX).expect("the largest size"))
        .with_margin(Margin::new(u8::MAX));
    let png = render(data, &largest).expect("the largest image renders");
    let side = Size::MAX.to_be_bytes();
    assert_eq!(
        png[16..24],
        [side, side].concat()[..],
        "IHDR width and height"
    );
    // One pixel cannot hold the 37 modules of version 3 with a 4-module margin.
    let tiny = RenderOptions::default().with_size(Size::new(Size::MIN).expect("the smallest size"));
    assert_eq!(
        render(data, &tiny),
        Err(RenderError::SizeTooSmall {
            size: 1,
            modules: 37,
            minimum: 37
        })
    );
    // A logo as wide as the code hides the finder patterns in every version.
    let logo = Logo::decode(
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/logo.png"
        ))
        .expect("the logo fixture"),
    )
    .expect("a valid logo");
    let whole_width = RenderOptions::default()
        .with_logo(logo)
        .with_logo_size(LogoSize::new(LogoSize::MAX).expect("the largest logo size"));
    assert_eq!(
        render(data, &whole_width),
        Err(RenderError::LogoDoesNotFit { percent: 100 })
    );
}
