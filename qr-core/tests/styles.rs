//! Every style, finder style, gradient, frame and colour combination decodes back to its input:
//! PNG directly, SVG through resvg, PDF through poppler and EPS through Ghostscript, at sizes
//! from the style's fewest readable pixels per module (3 for square modules) up.

use proptest::prelude::*;
use qr_core::{
    Color, FinderStyle, Format, Frame, FrameStyle, FrameText, Gradient, GradientAngle,
    GradientKind, Margin, ModuleStyle, PrintSize, RenderOptions, Size, SvgMode, encode, placement,
    render,
};

/// Dark colours (at least 3:1 against the light ones below, the service's rule).
const DARK: [&str; 6] = ["000000", "1a237e", "6a1b9a", "b71c1c", "004d40", "37474fcc"];
/// Light backgrounds, one of them transparent.
const LIGHT: [&str; 4] = ["ffffff", "fff8e1", "e3f2fd", "ffffff00"];

fn colour(hex: &str) -> Color {
    Color::parse_hex(hex).expect("valid colour")
}

/// Decodes `bytes` of `format` to the code's content.
fn decoded(bytes: &[u8], format: Format) -> Result<Vec<u8>, String> {
    let image = match format {
        Format::Png => qr_test_support::png_luma(bytes),
        Format::Svg => qr_test_support::svg_luma(bytes),
        // 50 mm at 152.4 dpi is 300 pixels, the images' own size.
        Format::Pdf => qr_test_support::pdf_luma(bytes, 152),
        _ => qr_test_support::eps_luma(bytes, 152),
    };
    qr_test_support::decode(&image)
}

fn styled(style: usize, finder: usize, gradient: usize, frame: usize) -> RenderOptions {
    let mut options = RenderOptions::default()
        .with_style(ModuleStyle::ALL[style % ModuleStyle::ALL.len()])
        .with_finder_style(FinderStyle::ALL[finder % FinderStyle::ALL.len()]);
    match gradient % 3 {
        1 => {
            let angle = GradientAngle::new((gradient * 37 % 360) as u16).expect("0 to 359");
            options = options.with_gradient(
                Gradient::new(GradientKind::Linear, colour("6a1b9a")).with_angle(angle),
            );
        }
        2 => options = options.with_gradient(Gradient::new(GradientKind::Radial, colour("b71c1c"))),
        _ => {}
    }
    let style = FrameStyle::ALL[frame % FrameStyle::ALL.len()];
    let text = FrameText::new(if frame.is_multiple_of(2) {
        "SCAN ME"
    } else {
        "Menü"
    })
    .expect("valid text");
    options.with_frame(Frame::new(style).with_text(text))
}

/// The property test's seed: fixed, so every run (CI's above all) tries the same cases and a
/// failure is a rendering bug to fix, never chance that a retry would hide. Past failures are
/// replayed first from `styles.proptest-regressions`.
const SEED: u64 = 27;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(SEED),
        ..ProptestConfig::default()
    })]

    #[test]
    fn styled_pngs_and_svgs_decode(
        data in "[ -~]{1,60}",
        (style, finder, gradient, frame) in (0usize..7, 0usize..3, 0usize..6, 0usize..4),
        (dark, light, finder_colour) in (0usize..6, 0usize..4, proptest::option::of(0usize..5)),
        extra_pixels in 0u32..4,
        margin in 1u8..5,
        svg in any::<bool>(),
    ) {
        let mut options = styled(style, finder, gradient, frame)
            .with_color(colour(DARK[dark]))
            .with_background(colour(LIGHT[light]))
            .with_margin(Margin::new(margin))
            .with_format(if svg { Format::Svg } else { Format::Png });
        if let Some(f) = finder_colour {
            options = options.with_finder_color(colour(DARK[f]));
        }
        let code = encode(&data, &options).expect("fits");
        // From the fewest pixels per module the style is read at (at least 3) up.
        let pixels = options.style.min_module_pixels() + extra_pixels;
        // The smallest size that gives `pixels` per module inside the frame's room.
        let size = (50..=4000)
            .filter_map(|s| Size::new(s).ok())
            .find(|&s| placement(&code, &options.clone().with_size(s)).is_ok_and(|p| p.module_pixels >= pixels))
            .expect("a size fits");
        let options = options.with_size(size);
        let bytes = render(&data, &options).expect("renders");
        prop_assert_eq!(decoded(&bytes, options.format), Ok(data.as_bytes().to_vec()), "{:?}", options);
    }
}

#[test]
fn classy_rounded_with_circle_finders_in_a_box_decodes_at_180_px() {
    // The case the property test found once on a clean machine (rqrr: "Too many errors to
    // correct" with the round-holed circle finders); kept as a plain test so it runs every time.
    let data = "?%PFGe&y'A\"6";
    let options = RenderOptions::default()
        .with_style(ModuleStyle::ClassyRounded)
        .with_finder_style(FinderStyle::Circle)
        .with_frame(Frame::new(FrameStyle::Box).with_text(FrameText::new("Menü").expect("valid")))
        .with_margin(Margin::new(4))
        .with_size(Size::new(180).expect("valid"));
    for format in [Format::Png, Format::Svg] {
        let bytes = render(data, &options.clone().with_format(format)).expect("renders");
        assert_eq!(
            decoded(&bytes, format),
            Ok(data.as_bytes().to_vec()),
            "{format}"
        );
    }
}

#[test]
fn outline_svgs_have_no_strokes_and_decode() {
    let data = "https://qr.example.com/r/7K3M9QXZ";
    for &style in ModuleStyle::ALL {
        let options = RenderOptions::default()
            .with_format(Format::Svg)
            .with_svg_mode(SvgMode::Outline)
            .with_style(style);
        let svg = render(data, &options).expect("renders");
        let text = String::from_utf8(svg.clone()).expect("UTF-8");
        assert!(!text.contains("stroke"), "{style}: {text}");
        assert_eq!(
            decoded(&svg, Format::Svg),
            Ok(data.as_bytes().to_vec()),
            "{style}"
        );
    }
}

#[test]
fn pdf_and_eps_decode_through_poppler_and_ghostscript() {
    let data = "https://qr.example.com/r/7K3M9QXZ";
    let tools = [
        (Format::Pdf, "pdftoppm", "apt-get install poppler-utils"),
        (Format::Eps, "gs", "apt-get install ghostscript"),
    ];
    for (format, program, install) in tools {
        if !qr_test_support::have_program(program, "the print round trip", install) {
            continue;
        }
        for (i, &style) in ModuleStyle::ALL.iter().enumerate() {
            let options = styled(i, i, i, i)
                .with_style(style)
                .with_format(format)
                .with_print_size(PrintSize::new(50).expect("valid"));
            let bytes = render(data, &options).expect("renders");
            assert_eq!(
                decoded(&bytes, format),
                Ok(data.as_bytes().to_vec()),
                "{format} {options:?}"
            );
        }
        // The plain square code, as small as it gets.
        let plain = render(data, &RenderOptions::default().with_format(format)).expect("renders");
        assert_eq!(
            decoded(&plain, format),
            Ok(data.as_bytes().to_vec()),
            "{format}"
        );
    }
}

#[test]
fn png_resolution_is_written_as_phys() {
    let png = render(
        "dpi",
        &RenderOptions::default().with_dpi(qr_core::Dpi::new(300).expect("valid")),
    )
    .expect("renders");
    let at = png
        .windows(4)
        .position(|w| w == b"pHYs")
        .expect("a pHYs chunk");
    assert_eq!(
        &png[at + 4..at + 13],
        &[0, 0, 0x2e, 0x23, 0, 0, 0x2e, 0x23, 1]
    );
    assert_eq!(
        qr_test_support::decode(&qr_test_support::png_luma(&png)),
        Ok(b"dpi".to_vec())
    );
}

/// The mean absolute luma difference of two images of one size, and the share of pixels that
/// differ by more than half the range.
fn difference(a: &qr_test_support::Luma, b: &qr_test_support::Luma) -> (f64, f64) {
    assert_eq!((a.width, a.height), (b.width, b.height), "sizes");
    let (mut sum, mut far) = (0u64, 0usize);
    for (&p, &q) in a.pixels.iter().zip(&b.pixels) {
        let d = p.abs_diff(q);
        sum += u64::from(d);
        far += usize::from(d > 128);
    }
    let n = a.pixels.len() as f64;
    (sum as f64 / n, far as f64 / n)
}

#[test]
fn vector_and_raster_writers_draw_the_same_shapes() {
    // The PNG writer draws cached tiles, the SVG writer traced outlines: rasterised, the two
    // must agree but for anti-aliasing, in every style and finder style, framed or not.
    let data = "https://qr.example.com/r/7K3M9QXZ";
    for (i, &style) in ModuleStyle::ALL.iter().enumerate() {
        for &finder in FinderStyle::ALL {
            for framed in [false, true] {
                let mut options = RenderOptions::default()
                    .with_style(style)
                    .with_finder_style(finder)
                    .with_size(Size::new(200 + 10 * i as u32).expect("valid"));
                if framed {
                    let text = FrameText::new("SCAN ME").expect("valid");
                    options =
                        options.with_frame(Frame::new(FrameStyle::BannerBottom).with_text(text));
                }
                let png = render(data, &options.clone().with_format(Format::Png)).expect("png");
                let svg = render(data, &options.clone().with_format(Format::Svg)).expect("svg");
                let (png, svg) = (
                    qr_test_support::png_luma(&png),
                    qr_test_support::svg_luma(&svg),
                );
                let (mean, far) = difference(&png, &svg);
                // Measured at 45fd: dots 2.6 and 0.74 % (their tiles' anti-aliasing where discs
                // touch), every other style at most 1.6 and 0.19 %.
                assert!(
                    mean < 3.0 && far < 0.01,
                    "{style} {finder} framed {framed}: mean {mean:.3}, far {far:.4}"
                );
            }
        }
    }
}

#[test]
fn print_writers_draw_the_raster_writers_shapes() {
    // PDF through poppler and EPS through Ghostscript, 127 mm (5 inches) at 60 dpi, exactly 300
    // pixels, against the PNG of the same 300 pixels: forms, procedures and outlines must draw the tiles' shapes.
    let data = "https://qr.example.com/r/7K3M9QXZ";
    let tools = [
        (Format::Pdf, "pdftoppm", "apt-get install poppler-utils"),
        (Format::Eps, "gs", "apt-get install ghostscript"),
    ];
    for (format, program, install) in tools {
        if !qr_test_support::have_program(program, "the print comparison", install) {
            continue;
        }
        for &style in ModuleStyle::ALL {
            // A square finder in one colour, a circle one under a gradient from navy (luma 42)
            // to red (74) across the code: each module's centre must take the PNG's shade.
            for gradient in [false, true] {
                let finder = if gradient {
                    FinderStyle::Circle
                } else {
                    FinderStyle::Square
                };
                let mut options = RenderOptions::default()
                    .with_style(style)
                    .with_finder_style(finder)
                    .with_size(Size::new(300).expect("valid"))
                    .with_print_size(PrintSize::new(127).expect("valid"));
                if gradient {
                    options = options
                        .with_color(colour("1a237e"))
                        .with_gradient(Gradient::new(GradientKind::Linear, colour("b71c1c")));
                }
                let png = render(data, &options.clone().with_format(Format::Png)).expect("png");
                let print = render(data, &options.clone().with_format(format)).expect("print");
                let png = qr_test_support::png_luma(&png);
                let print = match format {
                    Format::Pdf => qr_test_support::pdf_luma(&print, 60),
                    _ => qr_test_support::eps_luma(&print, 60),
                };
                // Every module's centre is dark in both or light in both (Ghostscript draws
                // without anti-aliasing, so whole images differ along every curved edge). The
                // finder patterns are shapes of their own, not modules: a circle finder's centre
                // disc passes 0.7 pixels from a module centre.
                let code = encode(data, &options).expect("fits");
                let place = placement(&code, &options).expect("fits");
                let (step, half) = (
                    place.module_pixels as usize,
                    place.module_pixels as usize / 2,
                );
                let n = place.modules as usize;
                let in_finder = |x: usize, y: usize| {
                    (x < 8 || x + 8 >= n) && (y < 8 || y + 8 >= n) && !(x + 8 >= n && y + 8 >= n)
                };
                for my in 0..n {
                    for mx in (0..n).filter(|&mx| !in_finder(mx, my)) {
                        let at = (place.y as usize + my * step + half) * png.width
                            + place.x as usize
                            + mx * step
                            + half;
                        assert!(
                            png.pixels[at].abs_diff(print.pixels[at]) <= 16,
                            "{format} {style} {finder}: module ({mx}, {my}) {} against {}",
                            png.pixels[at],
                            print.pixels[at]
                        );
                    }
                }
                let (mean, _) = difference(&png, &print);
                // Measured: PDF 1.2 to 3.2, EPS up to 9.7 (dots' aliased edges).
                assert!(mean < 12.0, "{format} {style} {finder}: mean {mean:.3}");
            }
        }
    }
}
