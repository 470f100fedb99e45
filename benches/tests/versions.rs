//! Version choice: qr-core never needs a larger symbol than qrcodegen, qrcode or fast_qr for the same data and level.
//!
//! Every library is asked for the same error-correction level. qr-core and qrcodegen then raise
//! ("boost") the level when the data still fits in the chosen version, qrcode and fast_qr do not;
//! the version is chosen at the requested level in all four, so versions compare directly.
//!
//! A peer may only beat qr-core with an encoding that does not hold the data faithfully. The
//! qrcode crate does so: it encodes any byte pair that looks like Shift-JIS in Kanji mode (13 bits
//! per pair instead of 16), and many UTF-8 sequences (most CJK characters, for a start) look like
//! Shift-JIS, so a reader decodes other characters than were encoded. The rule below is therefore:
//! a peer with a lower version than qr-core (or one that fits data qr-core refuses) fails the test,
//! unless the data has bytes of 0x80 or more and the peer used Kanji mode. Only qrcode has a Kanji
//! mode; its segmentation is recomputed with its public `optimize` API to see whether it did.

use proptest::prelude::*;
use qr_core::EcLevel;

/// The version a library chose, 1 to 40, or `None` when the data did not fit at all.
type Chosen = Option<u8>;

/// The versions the four libraries chose for one input at one requested level.
#[derive(Debug, PartialEq, Eq)]
struct Versions {
    qr_core: Chosen,
    qrcodegen: Chosen,
    qrcode: Chosen,
    /// Whether qrcode put any part of the data in Kanji mode.
    qrcode_kanji: bool,
    fast_qr: Chosen,
}

/// The version qr-core chose (by optimal segmentation into numeric, alphanumeric and byte mode).
fn qr_core_version(data: &str, level: EcLevel) -> Chosen {
    qr_core::QrCode::encode_text(data, level)
        .ok()
        .map(|code| code.version().number())
}

/// The version qrcodegen chose (one mode for the whole text).
fn qrcodegen_version(data: &str, level: EcLevel) -> Chosen {
    let ecc = match level {
        EcLevel::L => qrcodegen::QrCodeEcc::Low,
        EcLevel::M => qrcodegen::QrCodeEcc::Medium,
        EcLevel::Q => qrcodegen::QrCodeEcc::Quartile,
        EcLevel::H => qrcodegen::QrCodeEcc::High,
    };
    qrcodegen::QrCode::encode_text(data, ecc)
        .ok()
        .map(|code| code.version().value())
}

fn qrcode_level(level: EcLevel) -> qrcode::EcLevel {
    match level {
        EcLevel::L => qrcode::EcLevel::L,
        EcLevel::M => qrcode::EcLevel::M,
        EcLevel::Q => qrcode::EcLevel::Q,
        EcLevel::H => qrcode::EcLevel::H,
    }
}

/// The version qrcode chose (greedy merging of numeric, alphanumeric, byte and Kanji runs).
fn qrcode_version(data: &str, level: EcLevel) -> Chosen {
    let code = qrcode::QrCode::with_error_correction_level(data, qrcode_level(level)).ok()?;
    match code.version() {
        qrcode::Version::Normal(number) => u8::try_from(number).ok(),
        qrcode::Version::Micro(_) => None,
    }
}

/// Whether qrcode encodes any of `data` in Kanji mode at `level`.
///
/// This repeats the segmentation of `qrcode::bits::encode_auto`: the data is parsed into runs of
/// one character class, the runs are merged greedily for the widest count fields of each of the
/// three version groups in turn, and the first group whose merged segments fit is the one used.
fn qrcode_uses_kanji(data: &str, level: EcLevel) -> bool {
    use qrcode::optimize::{Optimizer, Parser, Segment, total_encoded_len};

    let parsed: Vec<Segment> = Parser::new(data.as_bytes()).collect();
    for number in [9, 26, 40] {
        let version = qrcode::Version::Normal(number);
        let segments: Vec<Segment> = Optimizer::new(parsed.iter().copied(), version).collect();
        let capacity = qrcode::bits::Bits::new(version)
            .max_len(qrcode_level(level))
            .expect("every normal version has every level");
        if total_encoded_len(&segments, version) <= capacity {
            return segments
                .iter()
                .any(|segment| segment.mode == qrcode::types::Mode::Kanji);
        }
    }
    false
}

/// The version fast_qr chose (one mode for the whole text).
fn fast_qr_version(data: &str, level: EcLevel) -> Chosen {
    let ecl = match level {
        EcLevel::L => fast_qr::ECL::L,
        EcLevel::M => fast_qr::ECL::M,
        EcLevel::Q => fast_qr::ECL::Q,
        EcLevel::H => fast_qr::ECL::H,
    };
    let code = fast_qr::QRBuilder::new(data).ecl(ecl).build().ok()?;
    // Its `Version` enum counts from zero: `V01 = 0`.
    code.version.map(|version| version as u8 + 1)
}

fn versions(data: &str, level: EcLevel) -> Versions {
    Versions {
        qr_core: qr_core_version(data, level),
        qrcodegen: qrcodegen_version(data, level),
        qrcode: qrcode_version(data, level),
        qrcode_kanji: qrcode_uses_kanji(data, level),
        fast_qr: fast_qr_version(data, level),
    }
}

/// Orders chosen versions with "did not fit" above version 40.
fn rank(chosen: Chosen) -> u8 {
    chosen.unwrap_or(41)
}

/// Checks the rule of this file for one input, and returns the versions for further checks.
fn check(data: &str, level: EcLevel) -> Result<Versions, TestCaseError> {
    let found = versions(data, level);
    let non_ascii = data.bytes().any(|byte| byte >= 0x80);
    let peers = [
        ("qrcodegen", found.qrcodegen, false),
        ("qrcode", found.qrcode, found.qrcode_kanji),
        ("fast_qr", found.fast_qr, false),
    ];
    for (peer, chosen, used_kanji) in peers {
        let excused = non_ascii && used_kanji;
        prop_assert!(
            rank(found.qr_core) <= rank(chosen) || excused,
            "{peer} chose {chosen:?} but qr-core {:?} at level {level:?} for {} bytes: {data:?} \
             ({found:?})",
            found.qr_core,
            data.len(),
        );
    }
    Ok(found)
}

/// The most bytes, digits and alphanumeric characters version 40 holds at a level.
fn capacity(level: EcLevel) -> (usize, usize, usize) {
    match level {
        EcLevel::L => (2953, 7089, 4296),
        EcLevel::M => (2331, 5596, 3391),
        EcLevel::Q => (1663, 3993, 2420),
        EcLevel::H => (1273, 3057, 1852),
    }
}

/// Up to 5% more than `limit`, so that inputs just over capacity are tried too.
fn up_to(limit: usize) -> std::ops::RangeInclusive<usize> {
    0..=limit + limit / 20
}

/// The 45 characters of alphanumeric mode.
const ALPHANUMERIC: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:";

/// Text from bytes the strategies below only draw from ASCII.
fn from_bytes(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).expect("ASCII is UTF-8")
}

/// Printable and control ASCII characters.
fn ascii(limit: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(0u8..0x80, up_to(limit)).prop_map(from_bytes)
}

/// Decimal digits only: numeric mode throughout.
fn digits(limit: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(b'0'..=b'9', up_to(limit)).prop_map(from_bytes)
}

/// Alphanumeric-mode characters only, digits included.
fn alphanumerics(limit: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHANUMERIC), up_to(limit)).prop_map(from_bytes)
}

/// Any characters, with kana and CJK ideographs weighted up (they are what qrcode takes for Kanji).
fn unicode_char() -> impl Strategy<Value = char> {
    prop_oneof![
        2 => any::<char>(),
        1 => prop::char::range('\u{3041}', '\u{30ff}'),
        1 => prop::char::range('\u{4e00}', '\u{9fff}'),
        1 => prop::char::range('a', 'z'),
        1 => prop::char::range('\u{e0}', '\u{ff}'),
    ]
}

/// UTF-8 text of up to about `limit` bytes: mixed characters (one to four bytes each), or
/// Japanese and Chinese text alone (three bytes each), where qrcode's Kanji mode saves the most.
fn utf8(limit: usize) -> impl Strategy<Value = String> {
    let cjk = prop_oneof![
        prop::char::range('\u{3041}', '\u{30ff}'),
        prop::char::range('\u{4e00}', '\u{9fff}'),
    ];
    prop_oneof![
        prop::collection::vec(unicode_char(), up_to(limit / 2)),
        prop::collection::vec(cjk, up_to(limit / 3)),
    ]
    .prop_map(|chars| chars.into_iter().collect())
}

/// Runs of 20 to 200 digits between pieces of lower-case, upper-case and non-ASCII text.
fn digits_and_text(limit: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        prop::collection::vec(b'0'..=b'9', 20..=200).prop_map(from_bytes),
        "[a-z0-9./:?=&-]{1,60}",
        "[A-Z0-9 $%*+./:-]{1,60}",
        prop::collection::vec(unicode_char(), 1..=20).prop_map(|chars| chars.into_iter().collect()),
    ];
    prop::collection::vec(piece, 1..=limit / 60).prop_map(|pieces| pieces.concat())
}

/// A level and an input of one of the kinds above, sized for that level.
fn level_and_input() -> impl Strategy<Value = (EcLevel, String)> {
    prop::sample::select(EcLevel::ALL.to_vec()).prop_flat_map(|level| {
        let (bytes, numeric, alphanumeric) = capacity(level);
        let input = prop_oneof![
            ascii(bytes),
            digits(numeric),
            alphanumerics(alphanumeric),
            utf8(bytes),
            digits_and_text(bytes),
        ];
        (Just(level), input)
    })
}

proptest! {
    // Failure persistence is off: the test writes nothing beside itself, and a failure prints
    // the shrunk input in full.
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn qr_core_never_chooses_a_higher_version((level, data) in level_and_input()) {
        check(&data, level)?;
    }
}

/// A link with an upper-case code in its path and a 60-digit query parameter, at level M.
///
/// qr-core needs 845 bits for it: the 33 characters of `/7K3M9QXZ...` in alphanumeric mode
/// (5.5 bits a character) and the 60 digits in numeric mode (3.3 bits a digit), the rest in byte
/// mode. qrcode finds the numeric run but its greedy merging swallows the code's short
/// alternating runs of letters and digits into the byte segment one by one: 902 bits. qrcodegen
/// and fast_qr put the whole text in byte mode: 1,156 bits. Version 6 holds 864 bits at level M,
/// version 7 992 and version 8 1,232: the three bit counts land in versions 6, 7 and 8.
const LINK_WITH_DIGITS: &str = "https://qr.example.com/r/7K3M9QXZ2B8D4F6H1J5L0N3P7R9T2V4W\
?id=470012345678901234567890123456789012345678901234567890123456&utm_source=newsletter";

#[test]
fn digits_and_an_upper_case_code_give_qr_core_a_smaller_symbol() {
    use qr_core::Mode;

    let found = check(LINK_WITH_DIGITS, EcLevel::M).expect("no peer beats qr-core");
    println!(
        "{LINK_WITH_DIGITS} ({} bytes) at M: {found:?}",
        LINK_WITH_DIGITS.len()
    );
    assert_eq!(
        found,
        Versions {
            qr_core: Some(6),
            qrcodegen: Some(8),
            qrcode: Some(7),
            qrcode_kanji: false,
            fast_qr: Some(8),
        }
    );
    let code = qr_core::QrCode::encode_text(LINK_WITH_DIGITS, EcLevel::M).expect("fits");
    let modes: Vec<Mode> = code.segments().iter().map(|segment| segment.mode).collect();
    println!("qr-core segments: {:?}", code.segments());
    assert!(modes.contains(&Mode::Numeric) && modes.contains(&Mode::Alphanumeric));
}
