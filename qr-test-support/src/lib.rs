//! Test helpers shared by the workspace's crates: PNG and SVG images decoded back to pixels, the QR code in them to its content, real PostgreSQL, Redis, DNS (dnsmasq) and reverse proxy (Caddy) servers to test against, and a real SMTP server on loopback.
//!
//! [`decoders`] reads one image with four independent decoders (rqrr, rxing, ZXingReader and
//! zbarimg), as the phones' readers would.
//!
//! Only ever a dev-dependency. It depends on no crate of the workspace, so every crate's tests
//! can use it without a dependency cycle; colours are plain RGBA arrays. [`servers`] starts
//! throwaway outside servers (and skips a suite, or fails it under `QR_REQUIRE_SUITES`, when
//! they are not installed).

pub mod decoders;
pub mod servers;
pub mod zxing;

pub mod smtp;

pub use smtp::{ReceivedMail, SmtpServer};

/// A decoded raster: width, height and one luma byte per pixel, composited over white.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Luma {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// One luma value per pixel, row by row.
    pub pixels: Vec<u8>,
}

/// Decodes PNG bytes into luma (any colour type and bit depth, alpha composited over white).
///
/// Panics, failing the test, when the bytes are not a valid PNG.
pub fn png_luma(bytes: &[u8]) -> Luma {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("a valid PNG header");
    let mut buffer = vec![0; reader.output_buffer_size().expect("a bounded PNG")];
    let info = reader.next_frame(&mut buffer).expect("valid PNG data");
    let (width, height) = (info.width as usize, info.height as usize);
    let channels = info.color_type.samples();
    let pixels = buffer[..info.buffer_size()]
        .chunks(channels)
        .map(|p| match channels {
            1 => p[0],
            2 => over_white(p[0], p[1]),
            3 => luma(p[0], p[1], p[2]),
            _ => over_white(luma(p[0], p[1], p[2]), p[3]),
        })
        .collect();
    Luma {
        width,
        height,
        pixels,
    }
}

/// Rasterises an SVG document with resvg at its own size into luma over white.
///
/// Panics, failing the test, when the document is not valid SVG or has no area.
pub fn svg_luma(svg: &[u8]) -> Luma {
    use resvg::{tiny_skia, usvg};

    let tree = usvg::Tree::from_data(svg, &usvg::Options::default()).expect("valid SVG");
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).expect("non-empty SVG");
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    let pixels = pixmap
        .data()
        .chunks(4)
        .map(|p| luma(p[0], p[1], p[2]))
        .collect();
    Luma {
        width: size.width() as usize,
        height: size.height() as usize,
        pixels,
    }
}

/// Decodes PNG or SVG bytes, told apart by their first bytes, into luma.
pub fn image_luma(bytes: &[u8]) -> Luma {
    if bytes.starts_with(b"\x89PNG") {
        png_luma(bytes)
    } else {
        svg_luma(bytes)
    }
}

/// Decodes the first QR code found in the image to its raw bytes, or says why it could not.
pub fn decode(image: &Luma) -> Result<Vec<u8>, String> {
    let mut prepared =
        rqrr::PreparedImage::prepare_from_greyscale(image.width, image.height, |x, y| {
            image.pixels[y * image.width + x]
        });
    let grids = prepared.detect_grids();
    let grid = grids.first().ok_or("no QR code found")?;
    let mut content = Vec::new();
    grid.decode_to(&mut content).map_err(|e| e.to_string())?;
    Ok(content)
}

/// Decodes the single QR code in the image to its text.
///
/// Panics, failing the test, unless the image holds exactly one readable code of UTF-8 text.
pub fn decode_single(image: &Luma) -> String {
    let mut prepared =
        rqrr::PreparedImage::prepare_from_greyscale(image.width, image.height, |x, y| {
            image.pixels[y * image.width + x]
        });
    let grids = prepared.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code in the image");
    let (_, content) = grids[0].decode().expect("a readable QR code");
    content
}

/// Decodes the single QR code in PNG or SVG bytes (see [`image_luma`]) to its text.
pub fn decode_image(bytes: &[u8]) -> String {
    decode_single(&image_luma(bytes))
}

/// Maps every pixel to black or white at the midpoint between the luma of two RGBA colours
/// composited over white, as a reader's binarisation would.
pub fn binarize(image: &Luma, dark: [u8; 4], light: [u8; 4]) -> Luma {
    let value = |[r, g, b, a]: [u8; 4]| u32::from(over_white(luma(r, g, b), a));
    let (d, l) = (value(dark), value(light));
    let threshold = (d + l) / 2;
    let pixels = image
        .pixels
        .iter()
        .map(|&p| {
            if (u32::from(p) <= threshold) == (d < l) {
                0
            } else {
                255
            }
        })
        .collect();
    Luma {
        width: image.width,
        height: image.height,
        pixels,
    }
}

/// The luma of an sRGB colour (ITU-R BT.601 weights).
fn luma(r: u8, g: u8, b: u8) -> u8 {
    ((u32::from(r) * 299 + u32::from(g) * 587 + u32::from(b) * 114) / 1000) as u8
}

/// A grey `value` with opacity `alpha` composited over white.
fn over_white(value: u8, alpha: u8) -> u8 {
    let a = u32::from(alpha);
    ((u32::from(value) * a + 255 * (255 - a)) / 255) as u8
}

/// Whether a missing outside program must fail the test instead of skipping it (`.ci/run` sets
/// `QR_REQUIRE_SUITES`).
pub fn suites_required() -> bool {
    std::env::var_os("QR_REQUIRE_SUITES").is_some()
}

/// Whether `program` runs here; when it does not, prints the skip line the project's tests use,
/// or panics when suites are required.
pub fn have_program(program: &str, purpose: &str, install: &str) -> bool {
    let found = std::process::Command::new(program)
        .arg(if program == "gs" { "--version" } else { "-v" })
        .output()
        .is_ok();
    if !found {
        assert!(!suites_required(), "{purpose} needs {program}: {install}");
        eprintln!("skipped: {purpose} needs {program} ({install})");
    }
    found
}

/// The codes rqrr reads in rectangles of a PDF's first page (left, top, width, height in
/// millimetres from the top left corner, as a label sheet's cells), rasterised at 300 dpi by
/// pdftoppm: each cell's text, `None` for a cell without a readable code; nothing when
/// pdftoppm is missing (after [`have_program`] has said so).
pub fn read_pdf_cells(pdf: &[u8], cells: &[(f64, f64, f64, f64)]) -> Option<Vec<Option<String>>> {
    if !have_program(
        "pdftoppm",
        "label sheets decoded",
        "apt-get install poppler-utils",
    ) {
        return None;
    }
    const DPI: f64 = 300.0;
    let page = pdf_luma(pdf, DPI as u32);
    let px = |mm: f64| (mm / 25.4 * DPI).round() as usize;
    Some(
        cells
            .iter()
            .map(|&(x, y, w, h)| {
                let (left, top) = (px(x), px(y));
                let (right, bottom) = (px(x + w).min(page.width), px(y + h).min(page.height));
                let mut pixels = Vec::with_capacity((right - left) * (bottom - top));
                for row in top..bottom {
                    pixels.extend_from_slice(
                        &page.pixels[row * page.width + left..row * page.width + right],
                    );
                }
                let cell = Luma {
                    width: right - left,
                    height: bottom - top,
                    pixels,
                };
                decode(&cell)
                    .ok()
                    .map(|bytes| String::from_utf8(bytes).expect("UTF-8 text"))
            })
            .collect(),
    )
}

/// Rasterises a PDF document's first page with poppler's `pdftoppm` at `dpi` into luma.
///
/// Panics, failing the test, when pdftoppm fails or the PDF is invalid.
pub fn pdf_luma(pdf: &[u8], dpi: u32) -> Luma {
    pdftoppm(pdf, &["-r", &dpi.to_string()])
}

/// Rasterises a PDF document's first page with poppler's `pdftoppm` into luma, its longer side
/// `pixels` long (a square page the size of the image it was drawn from, whatever the print size).
///
/// Panics, failing the test, when pdftoppm fails or the PDF is invalid.
pub fn pdf_luma_sized(pdf: &[u8], pixels: u32) -> Luma {
    let pixels = pixels.to_string();
    // `-scale-to` alone rounds the width up one pixel more often than not (301 x 300).
    pdftoppm(pdf, &["-scale-to-x", &pixels, "-scale-to-y", &pixels])
}

/// The first page of `pdf` as rasterised by `pdftoppm` with `scale` (its resolution options),
/// in grey (a PGM file: no PNG to compress and decode again).
fn pdftoppm(pdf: &[u8], scale: &[&str]) -> Luma {
    let dir = scratch_dir("pdf");
    let input = dir.join("in.pdf");
    std::fs::write(&input, pdf).expect("a writable temporary directory");
    let output = std::process::Command::new("pdftoppm")
        .args(["-gray", "-singlefile"])
        .args(scale)
        .arg(&input)
        .arg(dir.join("out"))
        .output()
        .expect("pdftoppm runs");
    assert!(
        output.status.success(),
        "pdftoppm: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let pgm = std::fs::read(dir.join("out.pgm")).expect("pdftoppm wrote a page");
    let _ = std::fs::remove_dir_all(&dir);
    pgm_luma(&pgm)
}

/// Decodes a binary PGM file (`P5`, 8 bits) into luma.
///
/// Panics, failing the test, when the bytes are not one.
fn pgm_luma(bytes: &[u8]) -> Luma {
    // The header: magic, width, height and maximum as four words, one whitespace byte after.
    let mut fields = Vec::with_capacity(4);
    let mut at = 0;
    while fields.len() < 4 {
        while bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while !bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        fields.push(std::str::from_utf8(&bytes[start..at]).expect("an ASCII PGM header"));
    }
    assert_eq!((fields[0], fields[3]), ("P5", "255"), "an 8-bit binary PGM");
    let width: usize = fields[1].parse().expect("a PGM width");
    let height: usize = fields[2].parse().expect("a PGM height");
    let pixels = bytes[at + 1..].to_vec();
    assert_eq!(pixels.len(), width * height, "a whole PGM raster");
    Luma {
        width,
        height,
        pixels,
    }
}

/// Rasterises an EPS document with Ghostscript at `dpi` (cropped to its bounding box) into luma.
///
/// Panics, failing the test, when Ghostscript reports an error.
pub fn eps_luma(eps: &[u8], dpi: u32) -> Luma {
    let dir = scratch_dir("eps");
    let input = dir.join("in.eps");
    std::fs::write(&input, eps).expect("a writable temporary directory");
    let out = dir.join("out.png");
    let output = std::process::Command::new("gs")
        .args([
            "-q",
            "-dSAFER",
            "-dBATCH",
            "-dNOPAUSE",
            "-dEPSCrop",
            "-sDEVICE=png16m",
        ])
        .arg(format!("-r{dpi}"))
        .arg(format!("-sOutputFile={}", out.display()))
        .arg(&input)
        .output()
        .expect("gs runs");
    assert!(
        output.status.success() && output.stdout.is_empty(),
        "gs: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let png = std::fs::read(&out).expect("gs wrote a page");
    let _ = std::fs::remove_dir_all(&dir);
    png_luma(&png)
}

/// A fresh directory under the system's temporary directory.
fn scratch_dir(kind: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "qr-test-{kind}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("a writable temporary directory");
    dir
}
