//! ECI and Kanji mode end to end: the rendered symbol decodes back with rqrr to the exact bytes
//! (rqrr reads past an ECI header and returns Kanji as Shift JIS), and the header's bits count in
//! the choice of version.

use qr_core::{EcLevel, Eci, EncodeOptions, Mode, QrCode, RenderOptions, render_code};

fn decoded(code: &QrCode) -> Vec<u8> {
    let png = render_code(code, &RenderOptions::default()).expect("renders");
    qr_test_support::decode(&qr_test_support::png_luma(&png)).expect("decodes")
}

#[test]
fn eci_utf8_data_decodes_to_the_same_bytes() {
    let text = "Grüße aus Köln, 東京 ✓";
    let options = EncodeOptions::new(EcLevel::M).with_eci(Eci::Utf8);
    let code = QrCode::encode_with(text.as_bytes(), &options).expect("fits");
    assert_eq!(code.eci(), Some(Eci::Utf8));
    assert_eq!(decoded(&code), text.as_bytes());
}

#[test]
fn the_eci_header_counts_in_version_selection() {
    // 17 bytes fill version 1-L exactly: 4 + 8 + 136 = 148 of 152 bits; 12 more do not fit.
    let data = [b'a'; 17];
    let plain = EncodeOptions::new(EcLevel::L).with_boost_level(false);
    let without = QrCode::encode_with(&data, &plain).expect("fits");
    let with = QrCode::encode_with(&data, &plain.with_eci(Eci::Utf8)).expect("fits");
    assert_eq!(
        (without.version().number(), with.version().number()),
        (1, 2)
    );
    // The capacity in the error leaves the 12 header bits out: (23,648 - 12 - 20) / 8 = 2,952
    // bytes at 40-L, one less than without.
    let too_long = vec![b'a'; 2953];
    match QrCode::encode_with(&too_long, &plain.with_eci(Eci::Utf8)) {
        Err(qr_core::EncodeError::DataTooLong { capacity, .. }) => {
            assert_eq!(capacity, qr_core::Capacity::Bytes(2952));
        }
        other => panic!("expected DataTooLong, got {other:?}"),
    }
}

#[test]
fn kanji_text_decodes_to_its_shift_jis_bytes() {
    let text = "日本語の文章です。漢字と仮名を含みます。";
    let options = EncodeOptions::new(EcLevel::M).with_kanji(true);
    let code = QrCode::encode_with(text.as_bytes(), &options).expect("fits");
    assert_eq!(code.segments()[0].mode, Mode::Kanji);
    let bytes = decoded(&code);
    let (back, _, malformed) = encoding_rs::SHIFT_JIS.decode(&bytes);
    assert!(!malformed);
    assert_eq!(back, text);
    // 20 characters: 4 + 8 + 20 x 13 = 272 bits, against 4 + 8 + 60 x 8 = 492 in byte mode.
    let bytes_mode =
        QrCode::encode_with(text.as_bytes(), &EncodeOptions::new(EcLevel::M)).expect("fits");
    assert!(code.version() < bytes_mode.version());
}

#[test]
fn text_that_is_not_all_kanji_stays_in_the_other_modes() {
    let options = EncodeOptions::new(EcLevel::M).with_kanji(true);
    for text in ["東京 tower", "plain ascii", "한국어"] {
        let code = QrCode::encode_with(text.as_bytes(), &options).expect("fits");
        assert!(
            code.segments().iter().all(|s| s.mode != Mode::Kanji),
            "{text}"
        );
        assert_eq!(decoded(&code), text.as_bytes());
    }
}

#[test]
fn kanji_capacity_is_counted_in_characters() {
    // Version 40-L holds 1,817 Kanji characters: (23,648 - 4 - 12) / 13.
    let options = EncodeOptions::new(EcLevel::L).with_kanji(true);
    match QrCode::encode_with("漢".repeat(1818).as_bytes(), &options) {
        Err(qr_core::EncodeError::DataTooLong {
            capacity, length, ..
        }) => {
            assert_eq!(capacity, qr_core::Capacity::Kanji(1817));
            assert_eq!(length, qr_core::Capacity::Kanji(1818));
        }
        other => panic!("expected DataTooLong, got {other:?}"),
    }
    assert!(QrCode::encode_with("漢".repeat(1817).as_bytes(), &options).is_ok());
}
