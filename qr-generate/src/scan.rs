//! The service's promise that every image scans: colours with enough contrast, styles with enough pixels per module, and on request the finished image decoded back with rqrr.

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

/// The fewest pixels per module an image with finder styles or a frame may have
/// (module styles may need more: [`qr_core::ModuleStyle::min_module_pixels`]): at 2,
/// anti-aliasing turns the finders' round insides into grey blurs.
pub const MIN_STYLED_MODULE_PIXELS: u32 = 3;

/// The fewest pixels per module `options` need to scan, or `None` for the plain image (which
/// has no minimum: its square modules are whole pixels).
pub fn min_module_pixels(options: &RenderOptions) -> Option<u32> {
    let styled = options.style != ModuleStyle::Square
        || options.finder_style != FinderStyle::Square
        || options.frame.style != FrameStyle::None;
    styled.then(|| MIN_STYLED_MODULE_PIXELS.max(options.style.min_module_pixels()))
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

/// Refuses a styled image whose modules would have fewer pixels than [`min_module_pixels`].
pub fn check_geometry(code: &QrCode, options: &RenderOptions) -> Result<(), ImageError> {
    let Some(minimum) = min_module_pixels(options) else {
        return Ok(());
    };
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

/// Decodes the finished `image` as a phone would and checks it gives back `data`.
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
    let mut prepared =
        rqrr::PreparedImage::prepare_from_greyscale(width, height, |x, y| luma[y * width + x]);
    let grids = prepared.detect_grids();
    let Some(grid) = grids.first() else {
        return Err(ImageError::Unreadable(
            "no QR code was found in the image".into(),
        ));
    };
    let mut content = Vec::new();
    grid.decode_to(&mut content)
        .map_err(|e| ImageError::Unreadable(format!("the code was found but not decoded ({e})")))?;
    if content != data.as_bytes() {
        return Err(ImageError::Unreadable(
            "the code decodes to other data than was given".into(),
        ));
    }
    Ok(())
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
                "the code decodes to other data than was given".into()
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
                "no QR code was found in the image".into()
            ))
        );
    }
}
