//! Robustness of the styles, measured: each look rendered for 20 short links, degraded as phone cameras see codes (rotated 10°, scaled to 2 pixels per module, blurred by a Gaussian of 0.8 px, saved as JPEG at quality 60, tilted 20° in perspective), and decoded by rqrr, rxing, ZXingReader and zbarimg; prints the decode rates against the plain square code.
//!
//! Run it with `cargo run --profile test -p qr-benches --example degraded_scans` (the test
//! profile optimises the decoders and reuses the test build; a release build works as well).
//! The table goes into docs/benchmarks.md ("Decoding styled codes, degraded"); a look losing
//! more than 10 points against the plain code under one degradation is marked `!`.

use image::{GrayImage, Luma as Pixel};
use imageproc::geometric_transformations::{
    Border, Interpolation, Projection, rotate_about_center, warp,
};
use qr_core::{FinderStyle, ModuleStyle, RenderOptions, Size, encode, placement, render};
use qr_test_support::Luma;
use qr_test_support::decoders::{Decoder, decode_all};

/// Short links per look.
const SAMPLES: usize = 20;
/// The rendered size before degrading: the API's default.
const SIZE: u32 = 300;
/// White, the paper around the code.
const WHITE: Pixel<u8> = Pixel([255]);

/// A way a phone's camera sees the printed or displayed code.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Degradation {
    None,
    Rotated,
    TwoPixels,
    Blurred,
    Jpeg,
    Tilted,
}

impl Degradation {
    const ALL: [Degradation; 6] = [
        Degradation::None,
        Degradation::Rotated,
        Degradation::TwoPixels,
        Degradation::Blurred,
        Degradation::Jpeg,
        Degradation::Tilted,
    ];

    fn name(self) -> &'static str {
        match self {
            Degradation::None => "as rendered",
            Degradation::Rotated => "rotated 10°",
            Degradation::TwoPixels => "2 px/module",
            Degradation::Blurred => "blur 0.8 px",
            Degradation::Jpeg => "JPEG q60",
            Degradation::Tilted => "tilt 20°",
        }
    }

    /// `image` (of a code of `modules` modules with its quiet zone) as the camera sees it.
    fn apply(self, image: &GrayImage, modules: u32) -> GrayImage {
        match self {
            Degradation::None => image.clone(),
            Degradation::Rotated => {
                // Room around the code first, so its rotated corners stay in the picture.
                let padded = pad(image, image.width() / 4);
                rotate_about_center(
                    &padded,
                    10f32.to_radians(),
                    Interpolation::Bilinear,
                    Border::Constant(WHITE),
                )
            }
            Degradation::TwoPixels => {
                let side = 2 * modules;
                image::imageops::resize(image, side, side, image::imageops::FilterType::Triangle)
            }
            Degradation::Blurred => imageproc::filter::gaussian_blur_f32(image, 0.8),
            Degradation::Jpeg => {
                let mut bytes = Vec::new();
                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 60)
                    .encode_image(image)
                    .expect("a JPEG");
                image::load_from_memory(&bytes)
                    .expect("the JPEG back")
                    .to_luma8()
            }
            Degradation::Tilted => tilt(&pad(image, image.width() / 8), 20f32.to_radians()),
        }
    }
}

/// `image` with `border` white pixels on every side.
fn pad(image: &GrayImage, border: u32) -> GrayImage {
    let mut out = GrayImage::from_pixel(
        image.width() + 2 * border,
        image.height() + 2 * border,
        WHITE,
    );
    image::imageops::replace(&mut out, image, i64::from(border), i64::from(border));
    out
}

/// `image` turned by `angle` about its vertical axis and seen by a pinhole camera at three
/// image widths: the near edge grows, the far edge shrinks, and the picture keeps its size.
fn tilt(image: &GrayImage, angle: f32) -> GrayImage {
    let (w, h) = (image.width() as f32, image.height() as f32);
    let distance = 3.0 * w;
    let (sin, cos) = angle.sin_cos();
    // A point at x from the centre moves to depth x·sin and across to x·cos, then projects.
    let project = |x: f32, y: f32| {
        let (dx, dy) = (x - w / 2.0, y - h / 2.0);
        let scale = distance / (distance + dx * sin);
        (w / 2.0 + dx * cos * scale, h / 2.0 + dy * scale)
    };
    let from = [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)];
    let to = from.map(|(x, y)| project(x, y));
    let projection = Projection::from_control_points(from, to).expect("a projection");
    warp(
        image,
        projection,
        Interpolation::Bilinear,
        Border::Constant(WHITE),
    )
}

/// The looks measured: the plain code first, each module style with square finders, and the
/// finder styles with square modules.
fn looks() -> Vec<(String, RenderOptions)> {
    let mut looks = vec![("plain".to_owned(), RenderOptions::default())];
    for &style in &ModuleStyle::ALL[1..] {
        looks.push((
            style.to_string(),
            RenderOptions::default().with_style(style),
        ));
    }
    for &finder in &FinderStyle::ALL[1..] {
        looks.push((
            format!("finder {finder}"),
            RenderOptions::default().with_finder_style(finder),
        ));
    }
    looks
}

fn main() {
    let started = std::time::Instant::now();
    let looks = looks();
    let mut images = Vec::new();
    for (_, options) in &looks {
        let options = options.clone().with_size(Size::new(SIZE).expect("valid"));
        for sample in 0..SAMPLES {
            // Short links of 6 to 12 characters, so versions and masks vary.
            let data = format!(
                "https://qr.example.com/r/{}",
                &format!("{:012X}", (sample as u64 + 1) * 0x9E37_79B9_7F4A)[..6 + sample % 7]
            );
            let png = render(&data, &options).expect("renders");
            let rendered = qr_test_support::png_luma(&png);
            let modules = placement(&encode(&data, &options).expect("fits"), &options)
                .expect("fits")
                .modules
                + 2 * u32::from(options.margin.modules());
            let rendered = GrayImage::from_raw(
                rendered.width as u32,
                rendered.height as u32,
                rendered.pixels,
            )
            .expect("a whole raster");
            for degradation in Degradation::ALL {
                let seen = degradation.apply(&rendered, modules);
                images.push((
                    data.clone(),
                    Luma {
                        width: seen.width() as usize,
                        height: seen.height() as usize,
                        pixels: seen.into_raw(),
                    },
                ));
            }
        }
    }
    let luma: Vec<Luma> = images.iter().map(|(_, l)| l.clone()).collect();
    let readings = decode_all("the degraded-scan benchmark", &luma);
    // read[look][degradation][decoder]: codes read back to their data.
    let per_look = SAMPLES * Degradation::ALL.len();
    let mut read = vec![[[0usize; 4]; 6]; looks.len()];
    for (i, ((data, _), readings)) in images.iter().zip(&readings).enumerate() {
        let (look, degradation) = (i / per_look, i % Degradation::ALL.len());
        for (d, reading) in readings.iter().enumerate() {
            if matches!(reading, Some(Ok(content)) if content == data.as_bytes()) {
                read[look][degradation][d] += 1;
            }
        }
    }
    print_table(&looks, &read);
    eprintln!(
        "{} images, {:.1} s",
        images.len(),
        started.elapsed().as_secs_f64()
    );
}

/// The Markdown table: a row per look and decoder, a column per degradation, each cell the
/// share read in percent with the difference to the plain code, `!` past 10 points lost.
fn print_table(looks: &[(String, RenderOptions)], read: &[[[usize; 4]; 6]]) {
    let percent = |count: usize| (count * 100 / SAMPLES) as i64;
    let mut header = "| look | decoder |".to_owned();
    let mut rule = "|---|---|".to_owned();
    for degradation in Degradation::ALL {
        header += &format!(" {} |", degradation.name());
        rule += "---:|";
    }
    println!("{header}\n{rule}");
    for (look, (name, _)) in looks.iter().enumerate() {
        for (d, decoder) in Decoder::ALL.iter().enumerate() {
            let mut row = format!("| {name} | {decoder} |");
            for (counts, plain_counts) in read[look].iter().zip(&read[0]) {
                let (rate, plain) = (percent(counts[d]), percent(plain_counts[d]));
                row += &if look == 0 {
                    format!(" {rate} |")
                } else {
                    let mark = if plain - rate > 10 { " !" } else { "" };
                    format!(" {rate} ({:+}){mark} |", rate - plain)
                };
            }
            println!("{row}");
        }
    }
}
