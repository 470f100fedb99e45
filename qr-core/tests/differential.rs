//! Differential tests: for the same segments, level, version and mask, qr-core and qrcodegen must
//! produce the identical module matrix, and choose the same mask when choosing by penalty.

use proptest::prelude::*;
use qr_core::{EcLevel, EncodeOptions, Mask, Mode, QrCode, Version};
use qrcodegen::{QrCode as Oracle, QrCodeEcc, QrSegment, QrSegmentMode};

fn oracle_level(level: EcLevel) -> QrCodeEcc {
    match level {
        EcLevel::L => QrCodeEcc::Low,
        EcLevel::M => QrCodeEcc::Medium,
        EcLevel::Q => QrCodeEcc::Quartile,
        EcLevel::H => QrCodeEcc::High,
    }
}

/// qrcodegen segments identical to the ones qr-core chose, after its ECI header if it has one;
/// `data` is what the segments index (the Shift JIS bytes of a Kanji code).
fn oracle_segments(data: &[u8], code: &QrCode) -> Vec<QrSegment> {
    let eci = code.eci().map(|eci| QrSegment::make_eci(eci.designator()));
    eci.into_iter()
        .chain(code.segments().iter().map(|segment| {
            let bytes = &data[segment.start..segment.end];
            // Numeric and alphanumeric segments hold only ASCII characters.
            let text: String = bytes.iter().map(|&b| char::from(b)).collect();
            match segment.mode {
                Mode::Numeric => QrSegment::make_numeric(&text),
                Mode::Alphanumeric => QrSegment::make_alphanumeric(&text),
                Mode::Byte => QrSegment::make_bytes(bytes),
                Mode::Kanji => kanji_segment(bytes),
                other => panic!("no oracle segment for {other:?}"),
            }
        }))
        .collect()
}

/// A qrcodegen Kanji segment of Shift JIS `bytes`, each character's 13 bits computed here from
/// ISO/IEC 18004 section 7.4.6 (qrcodegen takes the bits, not the text).
fn kanji_segment(bytes: &[u8]) -> QrSegment {
    let mut bits = Vec::new();
    for pair in bytes.chunks_exact(2) {
        let code = u32::from(pair[0]) << 8 | u32::from(pair[1]);
        let reduced = code - if code <= 0x9FFC { 0x8140 } else { 0xC140 };
        let value = (reduced >> 8) * 0xC0 + (reduced & 0xFF);
        bits.extend((0..13).rev().map(|i| (value >> i) & 1 == 1));
    }
    QrSegment::new(QrSegmentMode::Kanji, bytes.len() / 2, bits)
}

/// Encodes with both libraries and asserts identical symbols; `mask` fixed or chosen by penalty.
fn check(data: &[u8], level: EcLevel, mask: Option<u8>) {
    let mut options = EncodeOptions::new(level);
    if let Some(mask) = mask.and_then(Mask::new) {
        options = options.with_mask(mask);
    }
    let ours = QrCode::encode_with(data, &options).expect("data fits");
    assert_same(data, &ours, level, mask);
}

/// Asserts that qrcodegen, given `ours`'s segments over `data` in its version, builds the same
/// symbol (and chooses the same mask when `mask` is `None`).
fn assert_same(data: &[u8], ours: &QrCode, level: EcLevel, mask: Option<u8>) {
    let version = qrcodegen::Version::new(ours.version().number());
    let oracle = Oracle::encode_segments_advanced(
        &oracle_segments(data, ours),
        oracle_level(level),
        version,
        version,
        mask.map(qrcodegen::Mask::new),
        true,
    )
    .expect("oracle accepts the same segments in the same version");
    assert_eq!(
        oracle.error_correction_level(),
        oracle_level(ours.ec_level()),
        "level of {data:?}"
    );
    assert_eq!(
        oracle.mask().value(),
        ours.mask().number(),
        "mask of {data:?} at {level}"
    );
    let size = ours.size();
    assert_eq!(oracle.size() as usize, size);
    for y in 0..size {
        for x in 0..size {
            assert_eq!(
                oracle.get_module(x as i32, y as i32),
                ours.is_dark(x, y),
                "module ({x}, {y}) of {data:?} at {level}, version {}",
                ours.version()
            );
        }
    }
}

#[test]
fn fixed_inputs_match_in_every_level_and_mask() {
    let inputs: [&[u8]; 6] = [
        b"",
        b"https://qr.example.com/r/7K3M9QXZ",
        b"01234567",
        b"HELLO WORLD",
        "Grüße, 世界! 12345678901234567890".as_bytes(),
        &[0u8, 255, 128, 7, 13, 10],
    ];
    for data in inputs {
        for level in EcLevel::ALL {
            check(data, level, None);
            for mask in 0..8 {
                check(data, level, Some(mask));
            }
        }
    }
}

#[test]
fn eci_and_kanji_segments_match() {
    let texts = [
        "点茗",
        "東京タワー",
        "日本語の文章です。漢字と仮名を含みます。",
        "ＱＲコード",
    ];
    for text in texts {
        let sjis = encoding_rs::SHIFT_JIS.encode(text).0;
        for level in EcLevel::ALL {
            for mask in [None, Some(5)] {
                let mut options = EncodeOptions::new(level).with_kanji(true);
                if let Some(mask) = mask.and_then(Mask::new) {
                    options = options.with_mask(mask);
                }
                let ours = QrCode::encode_with(text.as_bytes(), &options).expect("fits");
                assert_eq!(ours.segments().len(), 1);
                assert_eq!(ours.segments()[0].mode, Mode::Kanji, "{text}");
                assert_same(&sjis, &ours, level, mask);
            }
        }
    }
    let inputs: [&[u8]; 4] = [
        b"",
        b"https://example.com/a",
        "Grüße 12345678901234567890".as_bytes(),
        b"0123",
    ];
    for data in inputs {
        for level in EcLevel::ALL {
            let options = EncodeOptions::new(level).with_eci(qr_core::Eci::Utf8);
            let ours = QrCode::encode_with(data, &options).expect("fits");
            assert_eq!(ours.eci(), Some(qr_core::Eci::Utf8));
            assert_same(data, &ours, level, None);
        }
    }
}

#[test]
fn every_version_matches() {
    // Byte data sized to land in each version at level L, so that every version's layout,
    // alignment patterns, version information and block structure is compared.
    for number in 1..=40u8 {
        let version = Version::new(number).expect("valid version");
        // The typed error names this version's byte capacity at level L.
        let only_this_version = EncodeOptions::new(EcLevel::L)
            .with_min_version(version)
            .with_max_version(version);
        let capacity = match QrCode::encode_with(&[b'a'; 3000], &only_this_version) {
            Err(qr_core::EncodeError::DataTooLong {
                capacity: qr_core::Capacity::Bytes(n),
                ..
            }) => n,
            other => panic!("expected a byte capacity for version {number}, got {other:?}"),
        };
        let fits = QrCode::encode_with(&vec![b'a'; capacity], &only_this_version)
            .expect("the stated capacity fits");
        assert_eq!(fits.version(), version);
        let data: Vec<u8> = (0..capacity).map(|i| (i * 7 % 251) as u8).collect();
        for level in EcLevel::ALL {
            let options = EncodeOptions::new(level).with_min_version(version);
            let ours = QrCode::encode_with(&data, &options);
            if let Ok(ours) = ours {
                check_with(&data, &ours, level, version);
            }
        }
    }
}

fn check_with(data: &[u8], ours: &QrCode, level: EcLevel, min_version: Version) {
    let oracle = Oracle::encode_segments_advanced(
        &oracle_segments(data, ours),
        oracle_level(level),
        qrcodegen::Version::new(min_version.number()),
        qrcodegen::Version::MAX,
        None,
        true,
    )
    .expect("oracle fits");
    assert_eq!(oracle.version().value(), ours.version().number());
    assert_eq!(oracle.mask().value(), ours.mask().number());
    for y in 0..ours.size() {
        for x in 0..ours.size() {
            assert_eq!(oracle.get_module(x as i32, y as i32), ours.is_dark(x, y));
        }
    }
}

fn data_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        "[0-9]{0,400}".prop_map(String::into_bytes),
        "[0-9A-Z $%*+./:-]{0,300}".prop_map(String::into_bytes),
        "[ -~]{0,300}".prop_map(String::into_bytes),
        "\\PC{0,120}".prop_map(String::into_bytes),
        "([a-z]{1,8}[0-9]{1,30}[A-Z]{0,12}){1,12}".prop_map(String::into_bytes),
        proptest::collection::vec(any::<u8>(), 0..300),
    ]
}

fn level_strategy() -> impl Strategy<Value = EcLevel> {
    prop_oneof![
        Just(EcLevel::L),
        Just(EcLevel::M),
        Just(EcLevel::Q),
        Just(EcLevel::H)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_data_matches(data in data_strategy(), level in level_strategy(), mask in proptest::option::of(0u8..8)) {
        check(&data, level, mask);
    }
}
