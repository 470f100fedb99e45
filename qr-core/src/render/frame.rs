//! Frames: a border around the code and a banner or strip for the text, taking their room from the code so the image keeps its size.

use super::art::path::{Path, Transform};
use super::art::{Layer, Paint};
use super::font;
use crate::options::{Color, Frame, FrameStyle};

/// Where a frame puts things in an image of `size` pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FramePlan {
    /// The square left for the code and its quiet zone: x, y and side in pixels.
    pub(crate) area: (u32, u32, u32),
    /// The border's width in pixels.
    border: u32,
    /// The banner or text strip: its top and height in pixels (height 0 for none).
    band: (u32, u32),
}

/// The border: 3 % of the image, at least 2 pixels.
fn border(size: u32) -> u32 {
    (size * 3 / 100).max(2)
}

impl FramePlan {
    /// The plan of `frame` in an image of `size` pixels (`FrameStyle::None` leaves the whole image).
    pub(crate) fn new(size: u32, frame: &Frame) -> FramePlan {
        let band_height = match frame.style {
            FrameStyle::BannerBottom | FrameStyle::BannerTop => size * 18 / 100,
            FrameStyle::Box if !frame.text.is_blank() => size * 14 / 100,
            _ => 0,
        };
        if frame.style == FrameStyle::None {
            return FramePlan {
                area: (0, 0, size),
                border: 0,
                band: (0, 0),
            };
        }
        let b = border(size);
        let width = size.saturating_sub(2 * b);
        let height = size.saturating_sub(2 * b + band_height);
        let side = width.min(height);
        let top = b + if frame.style == FrameStyle::BannerTop {
            band_height
        } else {
            0
        };
        let band_top = if frame.style == FrameStyle::BannerTop {
            b
        } else {
            size.saturating_sub(b + band_height)
        };
        FramePlan {
            area: (b + (width - side) / 2, top + (height - side) / 2, side),
            border: b,
            band: (band_top, band_height),
        }
    }

    /// The frame drawn in `color` as one even-odd layer in image pixels: the border, the banner,
    /// and the text (knocked out of a banner, in the frame's colour in a box).
    pub(crate) fn layer(&self, size: u32, frame: &Frame, color: Color) -> Option<Layer> {
        if frame.style == FrameStyle::None {
            return None;
        }
        let (s, b) = (size as f32, self.border as f32);
        let (band_top, band_height) = (self.band.0 as f32, self.band.1 as f32);
        // With a text, the whole layer is in the text's font units (its glyphs whole numbers),
        // the border and banner mapped into them; without, in pixels.
        let text = (!frame.text.is_blank() && band_height > 0.0).then(|| {
            font::line(
                frame.text.as_str(),
                (s / 2.0, band_top + band_height / 2.0),
                band_height * 0.45,
                (s - 2.0 * b) * 0.88,
            )
        });
        let transform = text.as_ref().map_or(Transform::IDENTITY, |t| t.transform);
        let (k, ox, oy) = (1.0 / transform.sx, transform.tx, transform.ty);
        let (x, y) = (|x: f32| (x - ox) * k, |y: f32| (y - oy) * k);
        let mut path = Path::default();
        path.rounded_rect(x(0.0), y(0.0), s * k, s * k, [2.0 * b * k; 4], false);
        path.rect(x(b), y(b), (s - 2.0 * b) * k, (s - 2.0 * b) * k);
        if matches!(
            frame.style,
            FrameStyle::BannerBottom | FrameStyle::BannerTop
        ) {
            path.rect(x(b), y(band_top), (s - 2.0 * b) * k, band_height * k);
        }
        let text = text.map(|text| {
            let start = path.segments.len();
            text.append_to(&mut path);
            (start, text)
        });
        Some(Layer {
            even_odd: true,
            // In font units when there is a text (see `Layer::whole_units`).
            whole_units: text.is_some(),
            text,
            ..Layer::new(Paint::Solid(color), transform, path)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::FrameText;

    #[test]
    fn frames_take_their_room_from_the_code() {
        let none = FramePlan::new(300, &Frame::default());
        assert_eq!(none.area, (0, 0, 300));
        let boxed = FramePlan::new(300, &Frame::new(FrameStyle::Box));
        assert_eq!(boxed.area, (9, 9, 282));
        let text = FrameText::new("SCAN ME").expect("valid text");
        let banner = FramePlan::new(
            300,
            &Frame::new(FrameStyle::BannerBottom).with_text(text.clone()),
        );
        assert_eq!(banner.area, (9 + (282 - 228) / 2, 9, 228));
        assert_eq!(banner.band, (300 - 9 - 54, 54));
        let top = FramePlan::new(300, &Frame::new(FrameStyle::BannerTop).with_text(text));
        assert_eq!(top.area.1, 9 + 54);
    }
}
