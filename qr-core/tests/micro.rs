//! Micro QR symbols decoded by ZXing-C++'s reader (rqrr reads no Micro QR): every version, level
//! and mask, and each mode, gives back its exact data and level.

use qr_core::{EcLevel, MicroMask, MicroOptions, MicroQrCode};

const SUITE: &str = "Micro QR decoding";

/// Encodes `data`, reads it back with ZXing and asserts the bytes and level; `false` when
/// ZXingReader is missing (the suite is skipped).
fn check(data: &[u8], options: &MicroOptions) -> bool {
    let code = MicroQrCode::encode_with(data, options).expect("fits");
    // A 2-module quiet zone, the Micro QR minimum.
    let png = qr_test_support::zxing::modules_png(&code.to_rows(), 2, 6);
    let Some(readings) = qr_test_support::zxing::read(SUITE, "MicroQRCode", &png) else {
        return false;
    };
    let context = format!(
        "{data:?} in {}-{} mask {}",
        code.version(),
        code.ec_level(),
        code.mask().number()
    );
    assert_eq!(readings.len(), 1, "one symbol: {context}");
    let hex: Vec<String> = data.iter().map(|b| format!("{b:02X}")).collect();
    assert_eq!(
        readings[0].field("Bytes"),
        Some(hex.join(" ").as_str()),
        "{context}"
    );
    assert_eq!(readings[0].field("Format"), Some("MicroQRCode"));
    if code.version().number() > 1 {
        let level = code.ec_level().letter().to_string();
        assert_eq!(
            readings[0].field("EC Level"),
            Some(level.as_str()),
            "{context}"
        );
    }
    true
}

#[test]
fn every_version_level_and_mask_decodes() {
    // The largest numeric input of each version and level, so each symbol is full.
    let cases = [
        (EcLevel::L, 5),
        (EcLevel::L, 10),
        (EcLevel::M, 8),
        (EcLevel::L, 23),
        (EcLevel::M, 18),
        (EcLevel::L, 35),
        (EcLevel::M, 30),
        (EcLevel::Q, 21),
    ];
    for (level, digits) in cases {
        let data: Vec<u8> = (0..digits).map(|i| b'0' + (i * 7 % 10) as u8).collect();
        for mask in (0..4).filter_map(MicroMask::new) {
            let options = MicroOptions::new(level)
                .with_boost_level(false)
                .with_mask(mask);
            if !check(&data, &options) {
                return;
            }
        }
    }
}

#[test]
fn each_mode_and_mixed_data_decode_with_the_chosen_mask() {
    let inputs: [&[u8]; 6] = [
        b"",
        b"01234567",
        b"HELLO",
        b"qr.io/x",
        b"AB12345678901",
        &[0x00, 0xFF, 0x80, 0x0A],
    ];
    for data in inputs {
        for level in [EcLevel::L, EcLevel::M, EcLevel::Q] {
            if !check(data, &MicroOptions::new(level)) {
                return;
            }
        }
    }
}
