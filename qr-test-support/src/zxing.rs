//! ZXing-C++'s command-line reader (`ZXingReader`, Debian's `zxing-cpp-tools`) as a second, independent decoder for what rqrr cannot read: Micro QR symbols and structured append headers.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What ZXingReader reported for one symbol: its `Key: value` lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The `Key: value` lines in order, keys and values trimmed.
    pub fields: Vec<(String, String)>,
}

impl Reading {
    /// The value of the first field called `key`.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// An 8-bit grey PNG of `rows` (`true` dark) with a quiet zone of `quiet` modules, `scale`
/// pixels a module.
pub fn modules_png(rows: &[Vec<bool>], quiet: usize, scale: usize) -> Vec<u8> {
    let side = (rows.len() + 2 * quiet) * scale;
    let mut pixels = vec![255u8; side * side];
    for (y, row) in rows.iter().enumerate() {
        for (x, &dark) in row.iter().enumerate() {
            if dark {
                for dy in 0..scale {
                    let start = ((y + quiet) * scale + dy) * side + (x + quiet) * scale;
                    pixels[start..start + scale].fill(0);
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, side as u32, side as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().expect("a PNG header");
    writer.write_image_data(&pixels).expect("PNG data");
    writer.finish().expect("a finished PNG");
    out
}

/// Reads the symbols of `format` (ZXing's name, e.g. `MicroQRCode` or `QRCode`) in the PNG
/// `image` with ZXingReader, one [`Reading`] per symbol found.
///
/// Returns `None` when ZXingReader is not installed, after [`crate::servers::skip`] has said so
/// (or failed the test under `QR_REQUIRE_SUITES`). Panics, failing the test, when the tool fails.
pub fn read(suite: &str, format: &str, image: &[u8]) -> Option<Vec<Reading>> {
    let Some(program) = crate::servers::find_program("ZXingReader", &[]) else {
        crate::servers::skip(suite, "ZXingReader", "apt-get install zxing-cpp-tools");
        return None;
    };
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let path: PathBuf = std::env::temp_dir().join(format!(
        "qr-zxing-{}-{}.png",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, image).expect("a writable temporary directory");
    let output = Command::new(program)
        .args(["-format", format])
        .arg(&path)
        .output()
        .expect("ZXingReader runs");
    let _ = std::fs::remove_file(&path);
    assert!(
        output.status.success() || output.status.code() == Some(1),
        "ZXingReader failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    // Symbols are separated by blank lines; a file with none prints no `Text:` field.
    let readings = text
        .split("\n\n")
        .map(|block| Reading {
            fields: block
                .lines()
                .filter_map(|line| line.split_once(':'))
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .collect(),
        })
        .filter(|reading| reading.field("Text").is_some())
        .collect();
    Some(readings)
}
