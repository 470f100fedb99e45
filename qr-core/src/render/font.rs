//! The frame text's font, compiled in: DejaVu Sans Bold cut to Latin-1, its glyph outlines read with ttf-parser.
//!
//! The font file is `fonts/DejaVuSans-Bold-Latin1.ttf` (14.9 KB; licence beside it), so no
//! installed font is ever needed: text becomes outlines in every format.

use super::art::path::{Path, Point};

/// The font file.
const FONT: &[u8] = include_bytes!("../../fonts/DejaVuSans-Bold-Latin1.ttf");

/// Text laid out in one line: its outline in image pixels.
pub(crate) struct Line {
    pub(crate) path: Path,
}

/// Lays out `text` centred on `center_x`, its capitals centred on `middle_y`, `height` pixels
/// from the baseline to the top of a capital at most, narrowed to fit `max_width` pixels.
pub(crate) fn line(text: &str, center_x: f32, middle_y: f32, height: f32, max_width: f32) -> Line {
    let mut path = Path::default();
    let Ok(face) = ttf_parser::Face::parse(FONT, 0) else {
        // The file is compiled in and parses (a test says so): nothing to draw otherwise.
        return Line { path };
    };
    let glyphs: Vec<(ttf_parser::GlyphId, f32)> = text
        .chars()
        .filter_map(|c| face.glyph_index(c))
        .map(|id| (id, f32::from(face.glyph_hor_advance(id).unwrap_or(0))))
        .collect();
    let advance: f32 = glyphs.iter().map(|&(_, a)| a).sum();
    let cap = f32::from(face.capital_height().unwrap_or(1493)).max(1.0);
    let mut scale = height / cap;
    if advance * scale > max_width {
        scale = max_width / advance.max(1.0);
    }
    let mut pen = center_x - advance * scale / 2.0;
    let baseline = middle_y + cap * scale / 2.0;
    for (id, advance) in glyphs {
        let mut builder = Outline {
            path: &mut path,
            scale,
            x: pen,
            y: baseline,
        };
        face.outline_glyph(id, &mut builder);
        pen += advance * scale;
    }
    Line { path }
}

/// Receives glyph outlines (font units, y up) into a path in pixels (y down).
struct Outline<'a> {
    path: &'a mut Path,
    scale: f32,
    x: f32,
    y: f32,
}

impl Outline<'_> {
    fn point(&self, x: f32, y: f32) -> Point {
        Point::new(self.x + x * self.scale, self.y - y * self.scale)
    }
}

impl ttf_parser::OutlineBuilder for Outline<'_> {
    fn move_to(&mut self, x: f32, y: f32) {
        let p = self.point(x, y);
        self.path.move_to(p.x, p.y);
    }

    fn line_to(&mut self, x: f32, y: f32) {
        let p = self.point(x, y);
        self.path.line_to(p.x, p.y);
    }

    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let (control, to) = (self.point(x1, y1), self.point(x, y));
        self.path.quad_to(control, to);
    }

    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        // TrueType outlines are quadratic; a cubic (from a CFF font) is approximated by one quadratic.
        let control = self.point((3.0 * (x1 + x2) - x) / 4.0, (3.0 * (y1 + y2) - y) / 4.0);
        let to = self.point(x, y);
        self.path.quad_to(control, to);
    }

    fn close(&mut self) {
        self.path.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::FrameText;

    #[test]
    fn the_font_draws_every_allowed_character() {
        let face = ttf_parser::Face::parse(FONT, 0).expect("the compiled-in font parses");
        for c in (' '..='~').chain('\u{A0}'..='\u{FF}') {
            assert!(FrameText::is_drawn(c));
            assert!(face.glyph_index(c).is_some(), "{c:?}");
        }
        assert!(face.glyph_index('\u{100}').is_none());
    }

    #[test]
    fn lines_fit_their_width() {
        let line = line("SCAN ME", 100.0, 50.0, 20.0, 60.0);
        let mut min_x = f32::MAX;
        let mut max_x = f32::MIN;
        line.path.flatten(
            &super::super::art::path::Transform::IDENTITY,
            0.1,
            |a, _| {
                min_x = min_x.min(a.x);
                max_x = max_x.max(a.x);
            },
        );
        assert!(
            max_x - min_x <= 60.5 && max_x - min_x > 50.0,
            "{min_x} {max_x}"
        );
        assert!(((min_x + max_x) / 2.0 - 100.0).abs() < 3.0);
    }
}
