//! Structured append sequences decoded by ZXing-C++'s reader (rqrr stops at the header's mode):
//! every symbol reads back, its header gives its position, the total and the message's parity,
//! and the parts join to the exact message.

use qr_core::{EcLevel, Eci, EncodeError, EncodeOptions, QrCode, Version};

const SUITE: &str = "structured append decoding";

/// Reads every symbol of `codes` with ZXing and asserts headers, parity and the joined bytes;
/// `false` when ZXingReader is missing (the suite is skipped).
fn check(data: &[u8], codes: &[QrCode]) -> bool {
    let parity = data.iter().fold(0u8, |acc, &b| acc ^ b);
    let total = codes.len();
    let mut joined = Vec::new();
    for (position, code) in codes.iter().enumerate() {
        let header = code.structured_append().expect("a header");
        assert_eq!(
            (header.position(), header.total(), header.parity()),
            (position as u8, total as u8, parity)
        );
        assert_eq!(code.version(), codes[0].version(), "one version for all");
        let png = qr_test_support::zxing::modules_png(&code.to_rows(), 4, 4);
        let Some(mut readings) = qr_test_support::zxing::read(SUITE, "QRCode", &png) else {
            return false;
        };
        // A complete sequence (here, of one symbol) also gives ZXing's merged result.
        let merged = format!("merged result from 1 symbols (parity/id: '{parity}')");
        if total == 1 {
            let last = readings.pop().expect("the merged result");
            assert_eq!(last.field("Structured Append"), Some(merged.as_str()));
        }
        assert_eq!(readings.len(), 1, "symbol {position} of {total} reads");
        let expected = format!("symbol {} of {total} (parity/id: '{parity}')", position + 1);
        assert_eq!(
            readings[0].field("Structured Append"),
            Some(expected.as_str())
        );
        let bytes = readings[0].field("Bytes").expect("bytes");
        joined.extend(
            bytes
                .split_whitespace()
                .map(|hex| u8::from_str_radix(hex, 16).expect("hex")),
        );
    }
    assert_eq!(joined, data, "the parts join to the message");
    true
}

#[test]
fn a_message_over_several_symbols_reads_back_whole() {
    let text: String = (0..400)
        .map(|i| char::from(b'a' + (i * 11 % 26) as u8))
        .collect();
    for max_version in [3, 5, 8] {
        let options = EncodeOptions::new(EcLevel::M)
            .with_max_version(Version::new(max_version).expect("valid"));
        let codes = QrCode::encode_structured(text.as_bytes(), &options).expect("fits in 16");
        assert!(codes.len() > 1 && codes.len() <= 16);
        assert!(codes[0].version().number() <= max_version);
        if !check(text.as_bytes(), &codes) {
            return;
        }
    }
}

#[test]
fn utf8_text_is_cut_between_characters_and_keeps_its_eci() {
    let text = "Grüße aus Köln! 東京タワー ".repeat(6);
    let options = EncodeOptions::new(EcLevel::L)
        .with_max_version(Version::new(4).expect("valid"))
        .with_eci(Eci::Utf8);
    let codes = QrCode::encode_structured(text.as_bytes(), &options).expect("fits");
    assert!(codes.len() >= 3);
    assert!(codes.iter().all(|code| code.eci() == Some(Eci::Utf8)));
    check(text.as_bytes(), &codes);
}

#[test]
fn short_data_is_one_symbol_with_a_header() {
    let codes = QrCode::encode_structured(b"HELLO", &EncodeOptions::new(EcLevel::M)).expect("fits");
    assert_eq!(codes.len(), 1);
    check(b"HELLO", &codes);
}

#[test]
fn too_much_data_for_sixteen_symbols_is_refused() {
    let options = EncodeOptions::new(EcLevel::H).with_max_version(Version::MIN);
    // Version 1-H holds 9 data codewords: 72 bits less the 20-bit header and a 12-bit byte
    // header leave 5 bytes a symbol, 80 in 16 symbols.
    assert_eq!(
        QrCode::encode_structured(&[b'a'; 80], &options).map(|codes| codes.len()),
        Ok(16)
    );
    assert_eq!(
        QrCode::encode_structured(&[b'a'; 81], &options).expect_err("too long"),
        EncodeError::SequenceTooLong {
            level: EcLevel::H,
            max_version: Version::MIN,
            length: 81,
        }
    );
}
