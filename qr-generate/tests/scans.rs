//! Every look the API accepts scans in four independent readers: each module style × finder style × gradient × frame × logo, at the smallest size the service accepts for it and at 300 px, as PNG, as SVG rasterised by resvg and as PDF rasterised by poppler, decoded by rqrr, rxing, ZXingReader and zbarimg.
//!
//! Phone scanner apps are mostly of ZXing's family; ZBar and quirc's (rqrr) are the others. A
//! look that one of them cannot read is not sold: this matrix is the measurement behind the
//! finder styles and minimum sizes the service offers (docs/api.md).

use std::time::Instant;

use qr_core::{
    Color, FinderStyle, Format, Frame, FrameStyle, FrameText, Gradient, GradientAngle,
    GradientKind, Logo, ModuleStyle, RenderOptions, Size, encode, placement, render,
};
use qr_generate::bounds::MIN_SIZE;
use qr_test_support::Luma;
use qr_test_support::decoders::{Decoder, decode_all};

/// The larger of the two sizes: the API's default.
const LARGE: u32 = 300;

/// One image of the matrix: what it shows, its options and its data.
struct Case {
    label: String,
    options: RenderOptions,
    data: String,
}

fn colour(hex: &str) -> Color {
    Color::parse_hex(hex).expect("valid colour")
}

fn logo() -> Logo {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../qr-core/tests/fixtures/logo.png"
    );
    Logo::decode(std::fs::read(path).expect("the logo fixture")).expect("a PNG logo")
}

/// The gradients of the matrix: none, linear (45°, black to purple) and radial (black to red).
fn gradients() -> [(&'static str, Option<Gradient>); 3] {
    let angle = GradientAngle::new(45).expect("0 to 359");
    [
        ("plain", None),
        (
            "linear",
            Some(Gradient::new(GradientKind::Linear, colour("6a1b9a")).with_angle(angle)),
        ),
        (
            "radial",
            Some(Gradient::new(GradientKind::Radial, colour("b71c1c"))),
        ),
    ]
}

/// The smallest size from the API's minimum up that the service accepts for `data` in
/// `options` (enough pixels per module for its style: `qr_generate::scan::check_geometry`).
fn smallest_accepted(data: &str, options: &RenderOptions) -> u32 {
    (MIN_SIZE..=LARGE)
        .find(|&pixels| {
            let options = options.clone().with_size(Size::new(pixels).expect("valid"));
            encode(data, &options).is_ok_and(|code| {
                placement(&code, &options).is_ok()
                    && qr_generate::scan::check_geometry(&code, &options).is_ok()
            })
        })
        .expect("a size up to 300 px is accepted")
}

/// Every combination the API accepts, at both sizes, in the three formats.
fn cases() -> Vec<Case> {
    let logo = logo();
    let text = FrameText::new("SCAN ME").expect("valid text");
    let mut cases = Vec::new();
    for &style in ModuleStyle::ALL {
        for &finder in FinderStyle::ALL {
            for (gradient_name, gradient) in gradients() {
                for &frame in FrameStyle::ALL {
                    for with_logo in [false, true] {
                        let mut options = RenderOptions::default()
                            .with_style(style)
                            .with_finder_style(finder)
                            .with_frame(Frame::new(frame).with_text(text.clone()));
                        if let Some(gradient) = gradient {
                            options = options.with_gradient(gradient);
                        }
                        if with_logo {
                            options = options.with_logo(logo.clone());
                        }
                        // A short link of its own per look, so the masks and versions vary.
                        let data = format!("https://qr.example.com/r/{:08X}", cases.len() * 7919);
                        let smallest = smallest_accepted(&data, &options);
                        for pixels in [smallest, LARGE] {
                            for format in [Format::Png, Format::Svg, Format::Pdf] {
                                let label = format!(
                                    "{style} finder={finder} {gradient_name} frame={frame} \
                                     logo={with_logo} {pixels}px {format}"
                                );
                                let options = options
                                    .clone()
                                    .with_size(Size::new(pixels).expect("valid"))
                                    .with_format(format);
                                cases.push(Case {
                                    label,
                                    options,
                                    data: data.clone(),
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    cases
}

/// The image of `case` as a reader sees it: PNG decoded, SVG through resvg, PDF through
/// pdftoppm at the image's own pixel size.
fn rasterised(case: &Case) -> Luma {
    let bytes = render(&case.data, &case.options).expect("renders");
    match case.options.format {
        Format::Png => qr_test_support::png_luma(&bytes),
        Format::Svg => qr_test_support::svg_luma(&bytes),
        _ => qr_test_support::pdf_luma_sized(&bytes, case.options.size.pixels()),
    }
}

#[test]
fn every_look_scans_in_every_reader() {
    if !qr_test_support::have_program(
        "pdftoppm",
        "the scan matrix",
        "apt-get install poppler-utils",
    ) {
        return;
    }
    let started = Instant::now();
    let cases = cases();
    // Two workers (CI has two cores): pdftoppm is a process per PDF.
    let workers = 2;
    let chunk = cases.len().div_ceil(workers);
    let images: Vec<Luma> = std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(rasterised).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("rasterised"))
            .collect()
    });
    let rasterised_in = started.elapsed();
    let readings = decode_all("the scan matrix", &images);
    let mut failures = Vec::new();
    for (case, readings) in cases.iter().zip(&readings) {
        for (decoder, reading) in Decoder::ALL.iter().zip(readings) {
            match reading {
                Some(Ok(content)) if content == case.data.as_bytes() => {}
                Some(Ok(content)) => failures.push(format!(
                    "{decoder}: {}: read {:?}",
                    case.label,
                    String::from_utf8_lossy(content)
                )),
                Some(Err(error)) => failures.push(format!("{decoder}: {}: {error}", case.label)),
                None => {}
            }
        }
    }
    eprintln!(
        "scan matrix: {} images rasterised in {:.1} s, decoded in {:.1} s by {}",
        cases.len(),
        rasterised_in.as_secs_f64(),
        (started.elapsed() - rasterised_in).as_secs_f64(),
        Decoder::ALL.map(Decoder::name).join(", ")
    );
    assert!(
        failures.is_empty(),
        "{} of {} readings failed:\n{}",
        failures.len(),
        cases.len() * Decoder::ALL.len(),
        failures.join("\n")
    );
}
