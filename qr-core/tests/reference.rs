//! Reference images: 384 fixed renders (50 to 2,000 px, every level, both formats, colours,
//! margins and logos) must keep their exact bytes; `tests/reference.sha256` lists their hashes.
//!
//! This is what "output unchanged" means for a refactor or an optimisation. After an intended
//! change of the output, rewrite the list with `UPDATE_REFERENCE=1 cargo test -p qr-core --test
//! reference`, look at some images, and say in the commit why the bytes moved.

use std::fmt::Write as _;
use std::path::PathBuf;

use qr_core::{Color, EcLevel, Format, Logo, LogoSize, Margin, RenderOptions, Size, render};
use sha2::{Digest, Sha256};

/// The data of the cases: short and long, each mode, multi-byte UTF-8, and the longest accepted.
fn data_set() -> Vec<String> {
    vec![
        "https://qr.example.com/r/7K3M9QXZ".to_owned(),
        "0123456789".to_owned(),
        "HELLO WORLD 12345 $%*+-./:".to_owned(),
        "Grüße aus Köln! 東京タワー 12345".to_owned(),
        "WIFI:T:WPA;S:Home Network;P:correct horse battery staple;;".to_owned(),
        (0..300)
            .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
            .collect(),
        "9".repeat(1_000),
        "x".repeat(2_953),
    ]
}

const SIZES: [u32; 6] = [50, 77, 128, 300, 512, 2000];
const LEVELS: [EcLevel; 4] = [EcLevel::L, EcLevel::M, EcLevel::Q, EcLevel::H];
const COLOURS: [(&str, &str); 4] = [
    ("000000", "ffffff"),
    ("1a237e", "fff8e1"),
    ("ffffff", "00000000"),
    ("c62828cc", "e0f7fa80"),
];

fn logo() -> Logo {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/logo.png");
    Logo::decode(std::fs::read(path).expect("the logo fixture")).expect("a valid logo")
}

/// Every case as (name, data, options). Indices pick colours, margins and logos so that the
/// 384 cases cover each value many times without a full cross product.
fn cases() -> Vec<(String, String, RenderOptions)> {
    let logo = logo();
    let mut cases = Vec::new();
    for (d, data) in data_set().into_iter().enumerate() {
        for (l, level) in LEVELS.into_iter().enumerate() {
            for (s, size) in SIZES.into_iter().enumerate() {
                for format in [Format::Png, Format::Svg] {
                    let i = cases.len();
                    let (color, background) = COLOURS[(d + l + s) % COLOURS.len()];
                    // A logo on short data only (it needs level H room); every 5th such case.
                    let with_logo = d < 5 && i % 5 == 0;
                    let mut options = RenderOptions::default()
                        .with_size(Size::new(size).expect("a size in range"))
                        .with_format(format)
                        .with_color(Color::parse_hex(color).expect("a valid colour"))
                        .with_background(Color::parse_hex(background).expect("a valid colour"))
                        .with_ec_level(level)
                        .with_margin(Margin::new((i % 11) as u8))
                        .with_logo_size(LogoSize::new(5 + (i % 26) as u8).expect("a logo size"));
                    if with_logo {
                        options = options.with_logo(logo.clone());
                    }
                    let name = format!(
                        "d{d}-{level}-{size}px-{color}-{background}-m{}{}.{}",
                        options.margin.modules(),
                        if with_logo { "-logo" } else { "" },
                        format.extension()
                    );
                    cases.push((name, data.clone(), options));
                }
            }
        }
    }
    cases
}

#[test]
fn reference_images_keep_their_bytes() {
    let cases = cases();
    assert_eq!(cases.len(), 384);
    let mut listing = String::new();
    for (name, data, options) in &cases {
        let line = match render(data, options) {
            Ok(bytes) => format!("{:x}  {} bytes", Sha256::digest(&bytes), bytes.len()),
            // Some combinations do not fit (2,953 bytes at level H, a large version at 50 px):
            // the refusal is part of the reference too.
            Err(e) => format!("error  {e}"),
        };
        writeln!(listing, "{name}  {line}").expect("writing to a string");
    }
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference.sha256");
    if std::env::var_os("UPDATE_REFERENCE").is_some() {
        std::fs::write(&path, &listing).expect("writing the reference list");
        return;
    }
    let expected = std::fs::read_to_string(&path).expect("tests/reference.sha256");
    let changed: Vec<String> = expected
        .lines()
        .zip(listing.lines())
        .filter(|(want, got)| want != got)
        .map(|(want, got)| format!("  want {want}\n  got  {got}"))
        .collect();
    assert!(
        changed.is_empty() && expected.lines().count() == listing.lines().count(),
        "{} of {} reference images changed:\n{}",
        changed.len(),
        cases.len(),
        changed.join("\n")
    );
}
