//! Four independent QR decoders over the same images: rqrr and rxing (the Rust port of ZXing) in process, ZXing-C++'s `ZXingReader` and ZBar's `zbarimg` as outside programs given many images per run.
//!
//! Phones read codes with readers of these families (ZXing's above all, ZBar's and quirc's,
//! whose port rqrr is): a code the service sells must scan in every one of them. The outside
//! programs cost a process start each run (about 8 ms for ZXingReader and 25 ms for zbarimg,
//! which loads ImageMagick), so [`decode_all`] writes the images to one temporary directory
//! and hands each program up to [`FILES_PER_RUN`] of them at once, both programs at the same
//! time while this process decodes with rqrr and rxing.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Luma;

/// A decoder of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decoder {
    /// rqrr, the Rust port of quirc (in process; the service's first `verify=true` reader).
    Rqrr,
    /// rxing, the Rust port of ZXing (in process; the service's second `verify=true` reader).
    Rxing,
    /// ZXing-C++'s `ZXingReader` (Debian's `zxing-cpp-tools`).
    ZxingReader,
    /// ZBar's `zbarimg` (Debian's `zbar-tools`).
    Zbarimg,
}

impl Decoder {
    /// Every decoder, in the order of [`decode_all`]'s readings.
    pub const ALL: [Decoder; 4] = [
        Decoder::Rqrr,
        Decoder::Rxing,
        Decoder::ZxingReader,
        Decoder::Zbarimg,
    ];

    /// The decoder's name as reports print it.
    pub const fn name(self) -> &'static str {
        match self {
            Decoder::Rqrr => "rqrr",
            Decoder::Rxing => "rxing",
            Decoder::ZxingReader => "ZXingReader",
            Decoder::Zbarimg => "zbarimg",
        }
    }
}

impl std::fmt::Display for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What one decoder read in one image: the content's bytes, or why nothing was read.
pub type Reading = Result<Vec<u8>, String>;

/// The most image files one run of an outside program is given: 256 paths of about 60
/// bytes stay far below the 2 MiB argument limit, and a failing run names a small batch.
pub const FILES_PER_RUN: usize = 256;

/// Decodes the image with rxing (QR codes only, trying harder, as its helpers do by default):
/// the content as rxing's text (UTF-8 data, or rxing's guess of the charset of other bytes).
pub fn rxing(image: &Luma) -> Reading {
    let mut hints = rxing::DecodeHints::default();
    let result = rxing::helpers::detect_in_luma_slice_with_hints(
        &image.pixels,
        image.width as u32,
        image.height as u32,
        Some(rxing::BarcodeFormat::QR_CODE),
        &mut hints,
    )
    .map_err(|e| e.to_string())?;
    Ok(result.getText().as_bytes().to_vec())
}

/// Every image decoded by the four decoders: one reading per image and [`Decoder::ALL`] entry,
/// `None` where an outside program is not installed (after [`crate::servers::skip`] has said
/// so, or failed the test under `QR_REQUIRE_SUITES`).
///
/// Panics, failing the test, when an outside program fails on its input (an unreadable file).
pub fn decode_all(suite: &str, images: &[Luma]) -> Vec<[Option<Reading>; 4]> {
    let dir = crate::scratch_dir("decoders");
    let paths: Vec<PathBuf> = images
        .iter()
        .enumerate()
        .map(|(i, image)| {
            let path = dir.join(format!("{i}.png"));
            std::fs::write(&path, luma_png(image)).expect("a writable temporary directory");
            path
        })
        .collect();
    let (inside, zxing, zbar) = std::thread::scope(|scope| {
        let zxing = scope.spawn(|| zxing_reader(suite, &paths));
        let zbar = scope.spawn(|| zbarimg(suite, &paths));
        // Two workers, as CI has two cores (the outside programs take turns with them).
        let half = images.len().div_ceil(2).max(1);
        let workers: Vec<_> = images
            .chunks(half)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|image| (crate::decode(image), rxing(image)))
                        .collect::<Vec<(Reading, Reading)>>()
                })
            })
            .collect();
        let inside: Vec<(Reading, Reading)> = workers
            .into_iter()
            .flat_map(|w| w.join().expect("the in-process decoders run"))
            .collect();
        let zxing = zxing.join().expect("the ZXingReader runs");
        let zbar = zbar.join().expect("the zbarimg runs");
        (inside, zxing, zbar)
    });
    let _ = std::fs::remove_dir_all(&dir);
    let mut zxing = zxing.map(Vec::into_iter);
    let mut zbar = zbar.map(Vec::into_iter);
    inside
        .into_iter()
        .map(|(rqrr, rxing)| {
            [
                Some(rqrr),
                Some(rxing),
                zxing.as_mut().and_then(Iterator::next),
                zbar.as_mut().and_then(Iterator::next),
            ]
        })
        .collect()
}

/// An 8-bit grey PNG of `image` (the outside programs read files).
pub fn luma_png(image: &Luma) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width as u32, image.height as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    // The files live for one run: fast compression, not small files.
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().expect("a PNG header");
    writer.write_image_data(&image.pixels).expect("PNG data");
    writer.finish().expect("a finished PNG");
    out
}

/// The QR code of each PNG file read by `ZXingReader`: its `Bytes:` field (the content exactly,
/// whatever its text encoding), or `None` when the program is missing.
pub fn zxing_reader(suite: &str, paths: &[PathBuf]) -> Option<Vec<Reading>> {
    let Some(program) = crate::servers::find_program("ZXingReader", &[]) else {
        crate::servers::skip(suite, "ZXingReader", "apt-get install zxing-cpp-tools");
        return None;
    };
    let mut readings = Vec::with_capacity(paths.len());
    for batch in paths.chunks(FILES_PER_RUN) {
        let output = Command::new(&program)
            .args(["-format", "QRCode"])
            .args(batch)
            .output()
            .expect("ZXingReader runs");
        let errors = String::from_utf8_lossy(&output.stderr);
        // It exits with 255 when any file held no code; a file it cannot read is a test bug.
        assert!(
            !errors.contains("Failed to read image"),
            "ZXingReader: {errors}"
        );
        readings.extend(zxing_readings(
            &String::from_utf8_lossy(&output.stdout),
            batch,
        ));
    }
    Some(readings)
}

/// ZXingReader's report on `batch` as one reading per file: a block per file, headed by
/// `File:` when there are several, with a `Bytes:` field in hexadecimal for a decoded code.
fn zxing_readings(report: &str, batch: &[PathBuf]) -> Vec<Reading> {
    let mut readings: Vec<Reading> = vec![Err("no QR code found".into()); batch.len()];
    let mut current = (batch.len() == 1).then_some(0);
    for line in report.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "File" => current = batch.iter().position(|p| Path::new(value) == p),
            "Bytes" => {
                if let Some(i) = current {
                    let bytes = value
                        .split_whitespace()
                        .map(|pair| u8::from_str_radix(pair, 16).expect("hexadecimal bytes"))
                        .collect();
                    // The first code found counts; the images hold one.
                    if readings[i].is_err() {
                        readings[i] = Ok(bytes);
                    }
                }
            }
            "Error" => {
                if let Some(i) = current.filter(|&i| readings[i].is_err()) {
                    readings[i] = Err(value.to_owned());
                }
            }
            _ => {}
        }
    }
    readings
}

/// The QR code of each PNG file read by `zbarimg` (QR codes only): ZBar's text, or `None`
/// when the program is missing.
///
/// ZBar converts a code's bytes to UTF-8 from the charset it guesses (plain ASCII passes
/// unchanged; some UTF-8 text does not), so compare ASCII content.
pub fn zbarimg(suite: &str, paths: &[PathBuf]) -> Option<Vec<Reading>> {
    let Some(program) = crate::servers::find_program("zbarimg", &[]) else {
        crate::servers::skip(suite, "zbarimg", "apt-get install zbar-tools");
        return None;
    };
    let mut readings = Vec::with_capacity(paths.len());
    for batch in paths.chunks(FILES_PER_RUN) {
        let output = Command::new(&program)
            .args(["--quiet", "--xml", "-Sdisable", "-Sqrcode.enable"])
            .args(batch)
            .output()
            .expect("zbarimg runs");
        let errors = String::from_utf8_lossy(&output.stderr);
        assert!(!errors.contains("ERROR"), "zbarimg: {errors}");
        readings.extend(zbar_readings(
            &String::from_utf8_lossy(&output.stdout),
            batch,
        ));
    }
    Some(readings)
}

/// zbarimg's XML report on `batch` as one reading per file: a `<source href='…'>` per file
/// with a code, its `<data>` in CDATA, base64 when the text would not fit in CDATA.
fn zbar_readings(report: &str, batch: &[PathBuf]) -> Vec<Reading> {
    let mut readings: Vec<Reading> = vec![Err("no QR code found".into()); batch.len()];
    for source in report.split("<source href='").skip(1) {
        let Some((href, rest)) = source.split_once('\'') else {
            continue;
        };
        let Some(i) = batch.iter().position(|p| Path::new(href) == p) else {
            continue;
        };
        let Some((attributes, data)) = rest
            .split_once("<data")
            .and_then(|(_, data)| data.split_once("><![CDATA["))
        else {
            continue;
        };
        let Some((text, _)) = data.split_once("]]></data>") else {
            continue;
        };
        readings[i] = if attributes.contains("format='base64'") {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .decode(text.trim())
                .map_err(|e| format!("zbarimg's base64: {e}"))
        } else {
            Ok(text.as_bytes().to_vec())
        };
    }
    readings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zxing_reports_are_read_file_by_file() {
        let batch = [PathBuf::from("/t/0.png"), PathBuf::from("/t/1.png")];
        let report = "File:       /t/0.png\nText:       \"hi\"\nBytes:      68 69\n\n\
                      File:       /t/1.png\nNo barcode found\n";
        assert_eq!(
            zxing_readings(report, &batch),
            vec![Ok(b"hi".to_vec()), Err("no QR code found".into())]
        );
        let single = "Text:       \"\u{e9}\"\nBytes:      C3 A9\n";
        assert_eq!(
            zxing_readings(single, &batch[..1]),
            vec![Ok("\u{e9}".as_bytes().to_vec())]
        );
    }

    #[test]
    fn zbar_reports_are_read_file_by_file() {
        let batch = [
            PathBuf::from("/t/0.png"),
            PathBuf::from("/t/1.png"),
            PathBuf::from("/t/2.png"),
        ];
        let report = "<barcodes xmlns='http://zbar.sourceforge.net/2008/barcode'>\n\
            <source href='/t/2.png'>\n<index num='0'>\n<symbol type='QR-Code' quality='1'>\
            <data format='base64' length='6'><![CDATA[\neF1dPnk=\n]]></data></symbol>\n\
            </index>\n</source>\n<source href='/t/0.png'>\n<index num='0'>\n\
            <symbol type='QR-Code' quality='1' orientation='UP'><data><![CDATA[hello]]></data>\
            </symbol>\n</index>\n</source>\n</barcodes>\n";
        assert_eq!(
            zbar_readings(report, &batch),
            vec![
                Ok(b"hello".to_vec()),
                Err("no QR code found".into()),
                Ok(b"x]]>y".to_vec())
            ]
        );
    }
}
