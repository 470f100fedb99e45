//! The service's promise that every image scans: colours with enough contrast, styles with enough pixels per module, and on request the finished image decoded back by two readers, rqrr and rxing.

use qr_core::{Color, FinderStyle, Format, FrameStyle, ModuleStyle, QrCode, RenderOptions};

use crate::bounds::MAX_SIZE;
use crate::error::ImageError;

/// The lowest WCAG 2.x contrast ratio accepted between a dark colour and the background: 3:1,
/// WCAG's minimum for graphics that must be perceived (success criterion 1.4.11), which also
/// leaves phone cameras a clear threshold between dark and light in dim light.
pub const MIN_CONTRAST: Ratio = Ratio(300);

/// A contrast ratio in hundredths (`Ratio(161)` is 1.61:1), shown as `1.61`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ratio(pub u32);

impl Ratio {
    /// The ratio of a WCAG contrast, rounded down to hundredths (so a refusal never shows the
    /// minimum itself).
    pub fn of(contrast: f64) -> Ratio {
        Ratio((contrast * 100.0).floor() as u32)
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (whole, hundredths) = (self.0 / 100, self.0 % 100);
        if hundredths == 0 {
            write!(f, "{whole}")
        } else {
            write!(f, "{whole}.{hundredths:02}")
        }
    }
}

/// The contrast the designer recommends: 4.5:1, WCAG's minimum for text (1.4.3). Codes between
/// [`MIN_CONTRAST`] and this are made, with a warning: they scan on a screen and on good paper,
/// and are the first to fail under a dim light or a worn print.
pub const RECOMMENDED_CONTRAST: Ratio = Ratio(450);

/// Advice on the colours of an image the service makes: the contrast of the modules'
/// colour with the background when it is below [`RECOMMENDED_CONTRAST`] (an image below
/// [`MIN_CONTRAST`] is refused by [`check_contrast`], not advised on), or a foreground lighter
/// than its background (inverted codes: ZBar and older ZXing versions read none).
pub fn contrast_advice(options: &RenderOptions) -> Option<String> {
    let background = options.background.over(Color::WHITE);
    let color = options.color.over(background);
    let ratio = Ratio::of(color.contrast_ratio(background));
    if luminance(color) > luminance(background) {
        return Some(
            "The modules are lighter than the background: many scanners cannot read inverted codes; use a dark colour on a light background."
                .to_owned(),
        );
    }
    (ratio < RECOMMENDED_CONTRAST).then(|| {
        format!(
            "Low contrast ({ratio}:1): the code may not scan in dim light or on worn prints; aim for at least {RECOMMENDED_CONTRAST}:1."
        )
    })
}

/// A colour's relative luminance (WCAG), for comparing which of two colours is lighter.
fn luminance(c: Color) -> f64 {
    c.contrast_ratio(Color::BLACK)
}

/// The fewest pixels per module an image with finder styles or a frame may have
/// (module styles may need more: [`qr_core::ModuleStyle::min_module_pixels`]): at 2,
/// anti-aliasing turns the finders' round insides into grey blurs.
pub const MIN_STYLED_MODULE_PIXELS: u32 = 3;

/// The fewest pixels per module any image may have, the plain square code's included: at one
/// pixel per module zbarimg read none of the 18 plain codes of the scan matrix
/// (qr-generate/tests/scans.rs, 50 px images of 33 modules) and rqrr missed one; at 2 all four
/// readers read every one.
pub const MIN_MODULE_PIXELS: u32 = 2;

/// The fewest pixels per module `options` need to scan: [`MIN_MODULE_PIXELS`] for the plain
/// image, more for styled ones and for a logo.
///
/// A logo needs [`MIN_STYLED_MODULE_PIXELS`] too: at 2 pixels per module, the PDF of a code
/// with a logo, rasterised by poppler at the image's size, was found by rqrr in 8 of 18 samples
/// (6 short links at 82, 90 and 100 px; their PNGs in all 18, and PDFs without a logo at 2
/// pixels per module in every one); at 3 (123 px) in all 6.
pub fn min_module_pixels(options: &RenderOptions) -> u32 {
    let styled = options.style != ModuleStyle::Square
        || options.finder_style != FinderStyle::Square
        || options.frame.style != FrameStyle::None
        || options.logo.is_some();
    if styled {
        MIN_STYLED_MODULE_PIXELS.max(options.style.min_module_pixels())
    } else {
        MIN_MODULE_PIXELS
    }
}

/// Refuses colours too close to the background to scan. Translucent colours are judged as
/// they show: the background over white paper, each colour over that background.
pub fn check_contrast(options: &RenderOptions) -> Result<(), ImageError> {
    let background = options.background.over(Color::WHITE);
    let check = |parameter: &'static str, color: Color| {
        let ratio = Ratio::of(color.over(background).contrast_ratio(background));
        if ratio < MIN_CONTRAST {
            return Err(ImageError::LowContrast {
                parameter,
                ratio,
                minimum: MIN_CONTRAST,
            });
        }
        Ok(())
    };
    check("color", options.color)?;
    if let Some(gradient) = &options.gradient {
        check("color2", gradient.to)?;
        // The colours in between: in sRGB a mix can be lighter than either end.
        for step in 1..16 {
            check(
                "gradient",
                options.color.mix(gradient.to, step as f32 / 16.0),
            )?;
        }
    }
    if let Some(finder) = options.finder_color {
        check("finderColor", finder)?;
    }
    Ok(())
}

/// Refuses an image whose modules would have fewer pixels than [`min_module_pixels`].
pub fn check_geometry(code: &QrCode, options: &RenderOptions) -> Result<(), ImageError> {
    let minimum = min_module_pixels(options);
    let pixels = qr_core::placement(code, options)
        .map_err(ImageError::from)?
        .module_pixels;
    if pixels >= minimum {
        return Ok(());
    }
    let size = (options.size.pixels()..=MAX_SIZE)
        .find(|&s| {
            qr_core::Size::new(s).is_ok_and(|size| {
                qr_core::placement(code, &options.clone().with_size(size))
                    .is_ok_and(|p| p.module_pixels >= minimum)
            })
        })
        .unwrap_or(MAX_SIZE);
    Err(ImageError::StyleTooThin {
        pixels,
        minimum,
        size,
    })
}

/// Decodes the finished `image` as phones would and checks it gives back `data`: rqrr (the
/// quirc family) and rxing (the ZXing family, most phone scanner apps) must both read it, and a
/// refusal names the reader that failed.
///
/// A PNG is decoded as written. SVG, PDF and EPS are vector documents: what is decoded is
/// qr-core's own raster of the same options (the writers draw the same shapes; tests
/// rasterise each vector format with resvg, poppler and Ghostscript and decode those too).
pub fn verify(data: &str, options: &RenderOptions, image: &[u8]) -> Result<(), ImageError> {
    let raster;
    let png = if options.format == Format::Png {
        image
    } else {
        let mut as_png = options.clone().with_format(Format::Png);
        as_png.dpi = None;
        raster = qr_core::render(data, &as_png).map_err(ImageError::from)?;
        &raster
    };
    let (width, height, mut luma) = png_luma(png)
        .map_err(|e| ImageError::Unreadable(format!("the image could not be read: {e}")))?;
    // Readers look for dark modules on a light background; a light-on-dark code is inverted first.
    let background = options.background.over(Color::WHITE);
    if options.color.over(background).relative_luminance() > background.relative_luminance() {
        luma.iter_mut().for_each(|v| *v = 255 - *v);
    }
    let gray = Gray {
        width,
        height,
        luma: &luma,
    };
    check_readers(data, &gray, &READERS)
}

/// The readers of [`verify`], each with the name a refusal gives it.
const READERS: [(&str, Reader); 2] = [("rqrr", read_rqrr), ("rxing", read_rxing)];

/// Checks that every one of `readers` reads `data` in `image`, in order; the first that does
/// not names itself in the refusal.
fn check_readers(
    data: &str,
    image: &Gray<'_>,
    readers: &[(&str, Reader)],
) -> Result<(), ImageError> {
    for &(reader, read) in readers {
        match read(image) {
            Reading::NotFound => {
                return Err(ImageError::Unreadable(format!(
                    "{reader} found no QR code in the image"
                )));
            }
            Reading::NotDecoded(why) => {
                return Err(ImageError::Unreadable(format!(
                    "{reader} found the code but could not decode it ({why})"
                )));
            }
            Reading::Content(content) if content != data.as_bytes() => {
                return Err(ImageError::Unreadable(format!(
                    "{reader} decodes the code to other data than was given"
                )));
            }
            Reading::Content(_) => {}
        }
    }
    Ok(())
}

/// A grey image: one luma byte per pixel, row by row.
struct Gray<'a> {
    width: usize,
    height: usize,
    luma: &'a [u8],
}

/// What one reader made of the image.
enum Reading {
    /// No code was found.
    NotFound,
    /// A code was found but not decoded, for the reader's reason.
    NotDecoded(String),
    /// The code's content.
    Content(Vec<u8>),
}

/// A reader of [`verify`].
type Reader = fn(&Gray<'_>) -> Reading;

/// rqrr, the Rust port of quirc: the first grid it finds, decoded to its bytes.
fn read_rqrr(image: &Gray<'_>) -> Reading {
    let mut prepared =
        rqrr::PreparedImage::prepare_from_greyscale(image.width, image.height, |x, y| {
            image.luma[y * image.width + x]
        });
    let grids = prepared.detect_grids();
    let Some(grid) = grids.first() else {
        return Reading::NotFound;
    };
    let mut content = Vec::new();
    match grid.decode_to(&mut content) {
        Ok(_) => Reading::Content(content),
        Err(e) => Reading::NotDecoded(e.to_string()),
    }
}

/// rxing, the Rust port of ZXing, reading QR codes only and trying harder (its helpers'
/// default): the content as its text in UTF-8, which the service's data always is.
fn read_rxing(image: &Gray<'_>) -> Reading {
    let (Ok(width), Ok(height)) = (u32::try_from(image.width), u32::try_from(image.height)) else {
        return Reading::NotFound;
    };
    let result = rxing::helpers::detect_in_luma_slice_with_hints(
        image.luma,
        width,
        height,
        Some(rxing::BarcodeFormat::QR_CODE),
        &mut rxing::DecodeHints::default(),
    );
    match result {
        Ok(result) => Reading::Content(result.getText().as_bytes().to_vec()),
        // ZXing's readers report a code they could not find as NotFound, and one whose
        // codewords or format they could not correct as Checksum, Format or a reader's error.
        Err(rxing::Exceptions::NotFoundException(_)) => Reading::NotFound,
        Err(e) => Reading::NotDecoded(e.to_string()),
    }
}

/// Decodes PNG bytes into luma over white: width, height and one byte per pixel.
fn png_luma(bytes: &[u8]) -> Result<(usize, usize, Vec<u8>), png::DecodingError> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info()?;
    let mut buffer = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader.next_frame(&mut buffer)?;
    let channels = info.color_type.samples();
    let over_white = |value: u32, alpha: u32| ((value * alpha + 255 * (255 - alpha)) / 255) as u8;
    let luma =
        |p: &[u8]| (u32::from(p[0]) * 299 + u32::from(p[1]) * 587 + u32::from(p[2]) * 114) / 1000;
    let pixels = buffer[..info.buffer_size()]
        .chunks(channels)
        .map(|p| match channels {
            1 => p[0],
            2 => over_white(u32::from(p[0]), u32::from(p[1])),
            3 => luma(p) as u8,
            _ => over_white(luma(p), u32::from(p[3])),
        })
        .collect();
    Ok((info.width as usize, info.height as usize, pixels))
}

#[cfg(test)]
mod tests {
    use super::*;
    use qr_core::{Gradient, GradientKind, Size};

    fn colour(hex: &str) -> Color {
        Color::parse_hex(hex).expect("valid colour")
    }

    #[test]
    fn contrast_between_the_minimum_and_the_recommendation_is_advised_on() {
        assert_eq!(contrast_advice(&RenderOptions::default()), None);
        // 767676 on white is 4.54:1: above the recommendation.
        assert_eq!(
            contrast_advice(&RenderOptions::default().with_color(colour("767676"))),
            None
        );
        assert_eq!(
            contrast_advice(&RenderOptions::default().with_color(colour("8a8a8a"))).as_deref(),
            Some(
                "Low contrast (3.45:1): the code may not scan in dim light or on worn prints; aim for at least 4.50:1."
            )
        );
        let inverted = RenderOptions::default()
            .with_color(colour("ffffff"))
            .with_background(colour("000000"));
        assert!(
            contrast_advice(&inverted)
                .expect("advice")
                .starts_with("The modules are lighter than the background")
        );
    }

    #[test]
    fn low_contrast_is_refused_with_the_ratio() {
        let pale = RenderOptions::default().with_color(colour("cccccc"));
        let error = check_contrast(&pale).unwrap_err();
        assert_eq!(
            error.to_string(),
            "Contrast too low: color on the background is 1.60:1, at least 3:1 is needed for the code to scan"
        );
        assert!(check_contrast(&RenderOptions::default()).is_ok());
        assert!(check_contrast(&RenderOptions::default().with_color(colour("767676"))).is_ok());
        let gradient = RenderOptions::default()
            .with_gradient(Gradient::new(GradientKind::Linear, colour("eeeeee")));
        assert!(matches!(
            check_contrast(&gradient),
            Err(ImageError::LowContrast {
                parameter: "color2",
                ..
            })
        ));
        let finder = RenderOptions::default().with_finder_color(colour("ffff00"));
        assert!(matches!(
            check_contrast(&finder),
            Err(ImageError::LowContrast {
                parameter: "finderColor",
                ..
            })
        ));
        // Light on dark has the same contrast as dark on light.
        let inverted = RenderOptions::default()
            .with_color(Color::WHITE)
            .with_background(Color::BLACK);
        assert!(check_contrast(&inverted).is_ok());
    }

    #[test]
    fn thin_styles_name_the_size_that_works() {
        let options = RenderOptions::default()
            .with_style(ModuleStyle::Dots)
            .with_size(Size::new(100).expect("valid size"));
        let code = qr_core::encode(&"x".repeat(100), &options).expect("fits");
        let error = check_geometry(&code, &options).unwrap_err();
        assert_eq!(
            error,
            ImageError::StyleTooThin {
                pixels: 2,
                minimum: 4,
                size: 4 * (code.size() as u32 + 8)
            }
        );
        let connected = options.clone().with_style(ModuleStyle::Connected);
        assert!(matches!(
            check_geometry(&code, &connected),
            Err(ImageError::StyleTooThin { minimum: 5, .. })
        ));
        let finders = options
            .clone()
            .with_style(ModuleStyle::Square)
            .with_finder_style(FinderStyle::Rounded);
        assert!(matches!(
            check_geometry(&code, &finders),
            Err(ImageError::StyleTooThin { minimum: 3, .. })
        ));
        assert!(check_geometry(&code, &options.clone().with_style(ModuleStyle::Square)).is_ok());
        // The plain code needs 2 pixels per module: 50 px gives the 29 modules of version 1
        // with its quiet zone one each.
        let plain = RenderOptions::default().with_size(Size::new(50).expect("valid size"));
        let small = qr_core::encode("x", &plain).expect("fits");
        assert_eq!(
            check_geometry(&small, &plain),
            Err(ImageError::StyleTooThin {
                pixels: 1,
                minimum: 2,
                size: 58
            })
        );
    }

    /// The PNG of `data` at 5 pixels per module with the circle finders qr-core drew before
    /// they were fixed (a round hole of radius 2.5 modules and a disc of 1.5, pixel centres
    /// sampled): rqrr reads it, rxing finds no code (measured: none of 56 codes at 5 pixels).
    fn old_circle_finders(data: &str) -> Vec<u8> {
        let options = RenderOptions::default();
        let code = qr_core::encode(data, &options).expect("fits");
        let n = code.size();
        let (quiet, scale) = (4, 5);
        let side = (n + 2 * quiet) * scale;
        let mut pixels = vec![255u8; side * side];
        for (y, row) in pixels.chunks_mut(side).enumerate() {
            for (x, pixel) in row.iter_mut().enumerate() {
                let (mx, my) = (x / scale, y / scale);
                let inside = |m: usize| (quiet..quiet + n).contains(&m);
                if !inside(mx) || !inside(my) {
                    continue;
                }
                let (mx, my) = (mx - quiet, my - quiet);
                let finder = [(0, 0), (n - 7, 0), (0, n - 7)]
                    .into_iter()
                    .find(|&(fx, fy)| (fx..fx + 7).contains(&mx) && (fy..fy + 7).contains(&my));
                let dark = match finder {
                    Some((fx, fy)) => {
                        let centre = |f: usize| ((f + quiet) * scale) as f32 + 3.5 * scale as f32;
                        let dx = (x as f32 + 0.5 - centre(fx)) / scale as f32;
                        let dy = (y as f32 + 0.5 - centre(fy)) / scale as f32;
                        let r = (dx * dx + dy * dy).sqrt();
                        !(1.5..2.5).contains(&r)
                    }
                    None => code.is_dark(mx, my),
                };
                if dark {
                    *pixel = 0;
                }
            }
        }
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, side as u32, side as u32);
        encoder.set_color(png::ColorType::Grayscale);
        let mut writer = encoder.write_header().expect("a PNG header");
        writer.write_image_data(&pixels).expect("PNG data");
        writer.finish().expect("a finished PNG");
        out
    }

    #[test]
    fn verify_needs_both_readers_and_names_the_one_that_failed() {
        let data = "https://qr.example.com/r/7K3M9QXZ";
        let png = old_circle_finders(data);
        let (width, height, luma) = png_luma(&png).expect("a PNG");
        let gray = Gray {
            width,
            height,
            luma: &luma,
        };
        assert!(matches!(read_rqrr(&gray), Reading::Content(c) if c == data.as_bytes()));
        assert_eq!(
            verify(data, &RenderOptions::default(), &png),
            Err(ImageError::Unreadable(
                "rxing found no QR code in the image".into()
            ))
        );
        assert_eq!(
            ImageError::Unreadable("rxing found no QR code in the image".into()).to_string(),
            "Image not readable: rxing found no QR code in the image"
        );
        // Every reader is asked, in order, and the first to fail is named.
        let never: Reader = |_| Reading::NotDecoded("Too many errors to correct".into());
        assert_eq!(
            check_readers(data, &gray, &[("rqrr", read_rqrr), ("other", never)]),
            Err(ImageError::Unreadable(
                "other found the code but could not decode it (Too many errors to correct)".into()
            ))
        );
        assert_eq!(check_readers(data, &gray, &[("rqrr", read_rqrr)]), Ok(()));
    }

    #[test]
    fn verify_decodes_every_format() {
        let data = "https://qr.example.com/r/7K3M9QXZ";
        for &format in Format::ALL {
            let options = RenderOptions::default()
                .with_format(format)
                .with_style(ModuleStyle::Rounded);
            let image = qr_core::render(data, &options).expect("renders");
            assert_eq!(verify(data, &options, &image), Ok(()), "{format}");
        }
        let options = RenderOptions::default();
        let image = qr_core::render("other", &options).expect("renders");
        assert_eq!(
            verify(data, &options, &image),
            Err(ImageError::Unreadable(
                "rqrr decodes the code to other data than was given".into()
            ))
        );
        let blank = qr_core::render(
            data,
            &options.clone().with_color(Color {
                a: 0,
                ..Color::BLACK
            }),
        )
        .expect("renders");
        assert_eq!(
            verify(data, &options, &blank),
            Err(ImageError::Unreadable(
                "rqrr found no QR code in the image".into()
            ))
        );
    }
}
