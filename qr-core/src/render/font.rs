//! The frame text's font, compiled in: DejaVu Sans Bold cut to Latin-1, its glyph outlines read with ttf-parser.
//!
//! The font file is `fonts/DejaVuSans-Bold-Latin1.ttf` (14.9 KB; licence beside it), so no
//! installed font is ever needed: text becomes outlines in every format.

use std::sync::OnceLock;

use super::art::path::{Path, Point, Segment, Transform};

/// The font file.
const FONT: &[u8] = include_bytes!("../../fonts/DejaVuSans-Bold-Latin1.ttf");

/// A glyph's outline in font units, y down, and its advance.
pub(crate) struct Glyph {
    segments: Vec<Segment>,
    advance: i32,
    /// The glyph's outline as SVG path data after its first move (relative steps, so the same
    /// wherever the glyph stands) and the point it ends at (in thousandths of a font unit, from
    /// the glyph's origin), made by the SVG writer the first time it draws the glyph.
    #[cfg(feature = "svg")]
    svg: OnceLock<(Vec<u8>, (i64, i64))>,
}

impl Glyph {
    /// The glyph's outline in font units, y down, its origin on the baseline.
    #[cfg(feature = "svg")]
    pub(crate) fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The glyph's SVG path data after its first move and the point it ends at, made by
    /// `write` on the first call.
    #[cfg(feature = "svg")]
    pub(crate) fn svg(
        &self,
        write: impl FnOnce(&[Segment]) -> (Vec<u8>, (i64, i64)),
    ) -> &(Vec<u8>, (i64, i64)) {
        self.svg.get_or_init(|| write(&self.segments))
    }
}

/// A line of text laid out: its glyphs with their pen positions in font units, and the map of
/// font units to image pixels (y down, the pen starting at 0 on the baseline).
///
/// Font units keep the glyphs' coordinates whole numbers (the SVG writer prints `q-41-18`
/// where pixels took `q-2.002-.895`), and a glyph's outline the same wherever it stands, so
/// the SVG writer prints each glyph's steps once per process.
#[derive(Clone)]
pub(crate) struct TextLine {
    pub(crate) glyphs: Vec<(&'static Glyph, i32)>,
    pub(crate) transform: Transform,
}

impl TextLine {
    /// Appends the glyphs' outlines to `path`, each moved to its pen position.
    pub(crate) fn append_to(&self, path: &mut Path) {
        path.segments
            .reserve(self.glyphs.iter().map(|(g, _)| g.segments.len()).sum());
        for &(glyph, pen) in &self.glyphs {
            let dx = pen as f32;
            let moved = |p: Point| Point::new(p.x + dx, p.y);
            path.segments
                .extend(glyph.segments.iter().map(|&s| match s {
                    Segment::Move(p) => Segment::Move(moved(p)),
                    Segment::Line(p) => Segment::Line(moved(p)),
                    Segment::Quad { control, to } => Segment::Quad {
                        control: moved(control),
                        to: moved(to),
                    },
                    Segment::Arc {
                        to,
                        center,
                        clockwise,
                    } => Segment::Arc {
                        to: moved(to),
                        center: moved(center),
                        clockwise,
                    },
                    Segment::Close => Segment::Close,
                }));
        }
    }
}

impl std::fmt::Debug for TextLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextLine")
            .field("glyphs", &self.glyphs.len())
            .field("transform", &self.transform)
            .finish()
    }
}

impl PartialEq for TextLine {
    fn eq(&self, other: &TextLine) -> bool {
        self.transform == other.transform
            && self.glyphs.len() == other.glyphs.len()
            && self
                .glyphs
                .iter()
                .zip(&other.glyphs)
                .all(|((a, p), (b, q))| std::ptr::eq(*a, *b) && p == q)
    }
}

/// The glyphs of the Latin-1 characters, read from the font the first time each is drawn:
/// parsing the font and a glyph's outline cost a framed image 23 thousand instructions a
/// render; the outlines never change.
static GLYPHS: [OnceLock<Option<Glyph>>; 256] = [const { OnceLock::new() }; 256];

/// The height of the font's capitals in font units.
static CAP_HEIGHT: OnceLock<i32> = OnceLock::new();

fn face() -> Option<ttf_parser::Face<'static>> {
    // The file is compiled in and parses (a test says so).
    ttf_parser::Face::parse(FONT, 0).ok()
}

/// The glyph of `c`, if the font has it (Latin-1 only).
fn glyph(c: char) -> Option<&'static Glyph> {
    let slot = GLYPHS.get(usize::try_from(u32::from(c)).ok()?)?;
    slot.get_or_init(|| {
        let face = face()?;
        let id = face.glyph_index(c)?;
        let mut path = Path::default();
        // A glyph without an outline (a space) has only its advance.
        face.outline_glyph(id, &mut Outline { path: &mut path });
        Some(Glyph {
            segments: path.segments,
            advance: i32::from(face.glyph_hor_advance(id).unwrap_or(0)),
            #[cfg(feature = "svg")]
            svg: OnceLock::new(),
        })
    })
    .as_ref()
}

/// Lays out `text` centred on `center_x`, its capitals centred on `middle_y`, `height` pixels
/// from the baseline to the top of a capital at most, narrowed to fit `max_width` pixels.
pub(crate) fn line(
    text: &str,
    (center_x, middle_y): (f32, f32),
    height: f32,
    max_width: f32,
) -> TextLine {
    let mut pen = 0;
    let glyphs: Vec<(&'static Glyph, i32)> = text
        .chars()
        .filter_map(glyph)
        .map(|g| {
            let at = pen;
            pen += g.advance;
            (g, at)
        })
        .collect();
    let advance = pen;
    let cap = *CAP_HEIGHT.get_or_init(|| {
        face()
            .and_then(|face| face.capital_height())
            .map_or(1493, i32::from)
    });
    let cap = cap.max(1) as f32;
    let mut scale = height / cap;
    if advance as f32 * scale > max_width {
        scale = max_width / (advance.max(1) as f32);
    }
    let transform = Transform::new(
        scale,
        scale,
        center_x - advance as f32 * scale / 2.0,
        middle_y + cap * scale / 2.0,
    );
    TextLine { glyphs, transform }
}

/// Receives glyph outlines (font units, y up) into a path in font units, y down.
struct Outline<'a> {
    path: &'a mut Path,
}

impl ttf_parser::OutlineBuilder for Outline<'_> {
    fn move_to(&mut self, x: f32, y: f32) {
        self.path.move_to(x, -y);
    }

    fn line_to(&mut self, x: f32, y: f32) {
        self.path.line_to(x, -y);
    }

    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        self.path.quad_to(Point::new(x1, -y1), Point::new(x, -y));
    }

    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        // TrueType outlines are quadratic; a cubic (from a CFF font) is approximated by one quadratic.
        let control = Point::new((3.0 * (x1 + x2) - x) / 4.0, -(3.0 * (y1 + y2) - y) / 4.0);
        self.path.quad_to(control, Point::new(x, -y));
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
        let text = line("SCAN ME", (100.0, 50.0), 20.0, 60.0);
        let mut path = Path::default();
        text.append_to(&mut path);
        let mut min_x = f32::MAX;
        let mut max_x = f32::MIN;
        path.flatten(&text.transform, 0.1, |a, _| {
            min_x = min_x.min(a.x);
            max_x = max_x.max(a.x);
        });
        assert!(
            max_x - min_x <= 60.5 && max_x - min_x > 50.0,
            "{min_x} {max_x}"
        );
        assert!(((min_x + max_x) / 2.0 - 100.0).abs() < 3.0);
    }
}
