//! Encoding and rendering benchmarks of qr-core against the peer crates qrcode, fast_qr and qrcodegen.
//!
//! Three groups, each over the inputs of `qr_benches::cases`: `encode` (data to module matrix),
//! `png_300` (data to the bytes of a PNG file of about 300 pixels with a 4-module quiet zone) and
//! `svg` (data to an SVG document). qrcodegen has no renderer, so it only takes part in `encode`.
//! Before the groups run, a table of the versions chosen and the output sizes goes to stderr.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group};
use fast_qr::convert::image::ImageBuilder;
use fast_qr::convert::svg::SvgBuilder;
use image::ImageEncoder;
use qr_benches::{Case, cases};
use qr_core::{EcLevel, Format, RenderOptions};

/// The side of the PNG images in pixels (qrcode rounds up to whole pixels per module).
const PIXELS: u32 = 300;

/// qr-core: its own encoder, PNG writer and SVG writer.
mod ours {
    use super::*;

    fn options(case: &Case, format: Format) -> RenderOptions {
        RenderOptions::default()
            .with_format(format)
            .with_ec_level(case.level)
    }

    pub fn encode(data: &str, case: &Case) -> qr_core::QrCode {
        qr_core::QrCode::encode_text(data, case.level).expect("the input fits")
    }

    pub fn png(data: &str, case: &Case) -> Vec<u8> {
        qr_core::render(data, &options(case, Format::Png)).expect("the input renders")
    }

    pub fn svg(data: &str, case: &Case) -> Vec<u8> {
        qr_core::render(data, &options(case, Format::Svg)).expect("the input renders")
    }
}

/// The qrcode crate, with the image crate's PNG encoder for PNG output.
mod qrcode_crate {
    use super::*;

    fn level(level: EcLevel) -> qrcode::EcLevel {
        match level {
            EcLevel::L => qrcode::EcLevel::L,
            EcLevel::M => qrcode::EcLevel::M,
            EcLevel::Q => qrcode::EcLevel::Q,
            EcLevel::H => qrcode::EcLevel::H,
        }
    }

    pub fn encode(data: &str, case: &Case) -> qrcode::QrCode {
        qrcode::QrCode::with_error_correction_level(data, level(case.level))
            .expect("the input fits")
    }

    pub fn png(data: &str, case: &Case) -> Vec<u8> {
        let image = encode(data, case)
            .render::<image::Luma<u8>>()
            .quiet_zone(true)
            .min_dimensions(PIXELS, PIXELS)
            .build();
        let mut png = Vec::new();
        image::codecs::png::PngEncoder::new(&mut png)
            .write_image(
                image.as_raw(),
                image.width(),
                image.height(),
                image::ExtendedColorType::L8,
            )
            .expect("PNG encoding into memory succeeds");
        png
    }

    pub fn svg(data: &str, case: &Case) -> String {
        encode(data, case)
            .render::<qrcode::render::svg::Color<'_>>()
            .min_dimensions(PIXELS, PIXELS)
            .build()
    }

    pub fn version(code: &qrcode::QrCode) -> i16 {
        match code.version() {
            qrcode::Version::Normal(number) | qrcode::Version::Micro(number) => number,
        }
    }
}

/// The fast_qr crate: PNG output rasterises its SVG with resvg, as its `ImageBuilder` does.
mod fast_qr_crate {
    use super::*;

    fn level(level: EcLevel) -> fast_qr::ECL {
        match level {
            EcLevel::L => fast_qr::ECL::L,
            EcLevel::M => fast_qr::ECL::M,
            EcLevel::Q => fast_qr::ECL::Q,
            EcLevel::H => fast_qr::ECL::H,
        }
    }

    pub fn encode(data: &str, case: &Case) -> fast_qr::QRCode {
        fast_qr::QRBuilder::new(data)
            .ecl(level(case.level))
            .build()
            .expect("the input fits")
    }

    pub fn png(data: &str, case: &Case) -> Vec<u8> {
        ImageBuilder::default()
            .fit_width(PIXELS)
            .to_bytes(&encode(data, case))
            .expect("PNG encoding into memory succeeds")
    }

    pub fn svg(data: &str, case: &Case) -> String {
        SvgBuilder::default().to_str(&encode(data, case))
    }

    pub fn version(code: &fast_qr::QRCode) -> usize {
        // Its `Version` enum counts from zero: `V01 = 0`.
        code.version.map_or(0, |version| version as usize + 1)
    }
}

/// The qrcodegen crate, encoding only.
mod qrcodegen_crate {
    use super::*;

    pub fn encode(data: &str, case: &Case) -> qrcodegen::QrCode {
        let ecc = match case.level {
            EcLevel::L => qrcodegen::QrCodeEcc::Low,
            EcLevel::M => qrcodegen::QrCodeEcc::Medium,
            EcLevel::Q => qrcodegen::QrCodeEcc::Quartile,
            EcLevel::H => qrcodegen::QrCodeEcc::High,
        };
        qrcodegen::QrCode::encode_text(data, ecc).expect("the input fits")
    }
}

/// The width of a PNG file, read from its IHDR chunk.
fn png_width(png: &[u8]) -> u32 {
    u32::from_be_bytes([png[16], png[17], png[18], png[19]])
}

/// Prints, for every input, the version (and level used) each library chose and the sizes of
/// the PNG and SVG outputs, as Markdown tables.
fn print_outputs() {
    eprintln!("\nVersion chosen (level used) per input:\n");
    eprintln!("| input | bytes | level asked | qr-core | qrcodegen | qrcode | fast_qr |");
    eprintln!("|---|---:|---|---|---|---|---|");
    for case in cases() {
        let data = case.data.as_str();
        let core_code = ours::encode(data, &case);
        let gen_code = qrcodegen_crate::encode(data, &case);
        let qrcode_code = qrcode_crate::encode(data, &case);
        let fast_code = fast_qr_crate::encode(data, &case);
        eprintln!(
            "| {} | {} | {:?} | {} ({:?}) | {} ({:?}) | {} ({:?}) | {} ({:?}) |",
            case.name,
            data.len(),
            case.level,
            core_code.version().number(),
            core_code.ec_level(),
            gen_code.version().value(),
            gen_code.error_correction_level(),
            qrcode_crate::version(&qrcode_code),
            qrcode_code.error_correction_level(),
            fast_qr_crate::version(&fast_code),
            fast_code.ecl.unwrap_or(fast_qr::ECL::Q),
        );
    }
    eprintln!("\nOutput sizes in bytes (PNG width in pixels):\n");
    eprintln!("| input | format | qr-core | qrcode | fast_qr |");
    eprintln!("|---|---|---:|---:|---:|");
    for case in cases() {
        let data = case.data.as_str();
        let pngs = [
            ours::png(data, &case),
            qrcode_crate::png(data, &case),
            fast_qr_crate::png(data, &case),
        ];
        let [a, b, c] = pngs.map(|png| format!("{} ({} px)", png.len(), png_width(&png)));
        eprintln!("| {} | PNG | {a} | {b} | {c} |", case.name);
        eprintln!(
            "| {} | SVG | {} | {} | {} |",
            case.name,
            ours::svg(data, &case).len(),
            qrcode_crate::svg(data, &case).len(),
            fast_qr_crate::svg(data, &case).len(),
        );
    }
    eprintln!();
}

fn encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("encode");
    // qrcode takes about 15 ms for the largest input: 20 samples need more than 3 seconds.
    group.measurement_time(Duration::from_secs(4));
    for case in cases() {
        let id = |library| BenchmarkId::new(library, case.name);
        let data = case.data.as_str();
        group.bench_function(id("qr-core"), |b| {
            b.iter(|| black_box(ours::encode(black_box(data), &case)));
        });
        group.bench_function(id("qrcodegen"), |b| {
            b.iter(|| black_box(qrcodegen_crate::encode(black_box(data), &case)));
        });
        group.bench_function(id("qrcode"), |b| {
            b.iter(|| black_box(qrcode_crate::encode(black_box(data), &case)));
        });
        group.bench_function(id("fast_qr"), |b| {
            b.iter(|| black_box(fast_qr_crate::encode(black_box(data), &case)));
        });
    }
    group.finish();
}

fn png_300(c: &mut Criterion) {
    let mut group = c.benchmark_group("png_300");
    // fast_qr takes about 25 ms for the largest input: 20 samples need more than 5 seconds.
    group.measurement_time(Duration::from_secs(6));
    for case in cases() {
        let id = |library| BenchmarkId::new(library, case.name);
        let data = case.data.as_str();
        group.bench_function(id("qr-core"), |b| {
            b.iter(|| black_box(ours::png(black_box(data), &case)));
        });
        group.bench_function(id("qrcode"), |b| {
            b.iter(|| black_box(qrcode_crate::png(black_box(data), &case)));
        });
        group.bench_function(id("fast_qr"), |b| {
            b.iter(|| black_box(fast_qr_crate::png(black_box(data), &case)));
        });
    }
    group.finish();
}

fn svg(c: &mut Criterion) {
    let mut group = c.benchmark_group("svg");
    // qrcode takes 15 to 20 ms for the largest input: 20 samples need more than 3 seconds.
    group.measurement_time(Duration::from_secs(5));
    for case in cases() {
        let id = |library| BenchmarkId::new(library, case.name);
        let data = case.data.as_str();
        group.bench_function(id("qr-core"), |b| {
            b.iter(|| black_box(ours::svg(black_box(data), &case)));
        });
        group.bench_function(id("qrcode"), |b| {
            b.iter(|| black_box(qrcode_crate::svg(black_box(data), &case)));
        });
        group.bench_function(id("fast_qr"), |b| {
            b.iter(|| black_box(fast_qr_crate::svg(black_box(data), &case)));
        });
    }
    group.finish();
}

/// Short runs: the machine is small and shared, and the 30 cases must finish in a few minutes.
/// Groups lengthen the measurement time where the slowest peer needs it for 20 samples.
fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = encode, png_300, svg
}

fn main() {
    print_outputs();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
