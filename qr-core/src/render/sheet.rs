//! Label sheets: many codes on pages of one paper size, each drawn as vectors in its cell of a grid with a caption in the frame font under it, and optional crop marks.
//!
//! A sheet is a PDF like the single code's (`pdf`): each code's art goes through the same
//! page writer, placed in its cell by its own `cm`, so a code on a sheet is drawn exactly as
//! its one-page PDF draws it (forms, shadings, logos), only smaller. Captions are glyph
//! outlines of the frame's font (DejaVu Sans Bold, Latin-1), so no font is embedded.

use super::RenderOptions;
use super::art::number;
use super::art::path::Path;
use super::compose;
use super::font;
use super::pdf::{ArtPlacement, Coding, PageWriter, assemble};
use crate::encode::QrCode;
use crate::error::RenderError;
use crate::options::Dpi;

/// Points per millimetre (72 points to the inch of 25.4 mm).
const POINTS_PER_MM: f64 = 72.0 / 25.4;

/// The padding between a cell's edge and what it shows, at most: label stock is die-cut with
/// rounded corners and printers place a sheet within about a millimetre, so 1.5 mm keeps the
/// code and its caption on the label.
const MAX_PADDING_MM: f64 = 1.5;

/// A caption's capital height as a share of the cell's height, within 1.2 mm (about 7 points
/// of type, the smallest a phone user reads comfortably on a label) and 2.5 mm.
const CAPTION_SHARE: f64 = 0.07;
const MIN_CAPTION_MM: f64 = 1.2;
const MAX_CAPTION_MM: f64 = 2.5;

/// The crop marks' line width in points (a hairline a cutter sees) and their length and
/// distance from the grid in millimetres, as far as the margin allows.
const CROP_LINE_POINTS: f64 = 0.3;
const CROP_LENGTH_MM: f64 = 5.0;
const CROP_OFFSET_MM: f64 = 1.0;

/// Why a sheet's grid cannot be drawn.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SheetError {
    /// A length is not a positive finite number of millimetres, or a count is zero.
    #[error("every length must be a positive number of millimetres and the grid at least 1 x 1")]
    NotPositive,
    /// The cells overlap: the pitch is smaller than the cell.
    #[error("the pitch is smaller than the cell, so cells overlap")]
    Overlapping,
    /// The grid runs past the paper's edge.
    #[error("the grid runs past the paper's edge")]
    OffThePaper,
}

/// A sheet's paper and its grid of equal cells, in millimetres, the origin at the paper's top
/// left corner; cells are filled row by row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SheetGrid {
    paper: (f64, f64),
    columns: u32,
    rows: u32,
    cell: (f64, f64),
    origin: (f64, f64),
    pitch: (f64, f64),
}

/// The tolerance of the grid's checks: label makers round their figures to 0.1 mm, so a grid
/// may meet the paper's edge within 0.05 mm.
const EDGE_TOLERANCE_MM: f64 = 0.05;

impl SheetGrid {
    /// A grid of `columns` x `rows` cells `cell` (width, height) wide on `paper` (width,
    /// height), the first cell's top left corner at `origin` (left margin, top margin), each
    /// next cell `pitch` (across, down) further.
    pub fn new(
        paper: (f64, f64),
        (columns, rows): (u32, u32),
        cell: (f64, f64),
        origin: (f64, f64),
        pitch: (f64, f64),
    ) -> Result<SheetGrid, SheetError> {
        let positive = [paper.0, paper.1, cell.0, cell.1, pitch.0, pitch.1]
            .iter()
            .all(|v| v.is_finite() && *v > 0.0)
            && [origin.0, origin.1]
                .iter()
                .all(|v| v.is_finite() && *v >= 0.0)
            && columns > 0
            && rows > 0;
        if !positive {
            return Err(SheetError::NotPositive);
        }
        if pitch.0 + EDGE_TOLERANCE_MM < cell.0 || pitch.1 + EDGE_TOLERANCE_MM < cell.1 {
            return Err(SheetError::Overlapping);
        }
        let right = origin.0 + f64::from(columns - 1) * pitch.0 + cell.0;
        let bottom = origin.1 + f64::from(rows - 1) * pitch.1 + cell.1;
        if right > paper.0 + EDGE_TOLERANCE_MM || bottom > paper.1 + EDGE_TOLERANCE_MM {
            return Err(SheetError::OffThePaper);
        }
        Ok(SheetGrid {
            paper,
            columns,
            rows,
            cell,
            origin,
            pitch,
        })
    }

    /// The paper's width and height in millimetres.
    pub fn paper(&self) -> (f64, f64) {
        self.paper
    }

    /// How many cells a page holds.
    pub fn cells_per_page(&self) -> usize {
        self.columns as usize * self.rows as usize
    }

    /// Cell `index` of a page (row by row, wrapping to the next page's first cell) as its left
    /// and top edges, width and height in millimetres from the paper's top left corner.
    pub fn cell(&self, index: usize) -> (f64, f64, f64, f64) {
        let on_page = index % self.cells_per_page();
        let column = (on_page % self.columns as usize) as f64;
        let row = (on_page / self.columns as usize) as f64;
        (
            self.origin.0 + column * self.pitch.0,
            self.origin.1 + row * self.pitch.1,
            self.cell.0,
            self.cell.1,
        )
    }

    /// The square a code takes in cell `index` (left, top, side in millimetres) and the
    /// capital height and middle of its caption line (`None` without a caption).
    fn label_geometry(&self, index: usize, captioned: bool) -> LabelGeometry {
        let (x, y, w, h) = self.cell(index);
        let padding = MAX_PADDING_MM.min(w.min(h) * 0.08);
        // Under the code: a gap of 0.6 capitals, the capitals, then 0.3 for descenders.
        let cap = (h * CAPTION_SHARE).clamp(MIN_CAPTION_MM, MAX_CAPTION_MM);
        let band = if captioned { cap * 1.9 } else { 0.0 };
        let side = (w - 2.0 * padding).min(h - 2.0 * padding - band).max(0.0);
        let top = y + (h - side - band) / 2.0;
        LabelGeometry {
            code: (x + (w - side) / 2.0, top, side),
            caption: captioned.then_some(CaptionLine {
                center: (x + w / 2.0, top + side + cap * 1.1),
                cap,
                max_width: w - 2.0 * padding,
            }),
        }
    }
}

/// Where a label's parts go, in millimetres.
struct LabelGeometry {
    code: (f64, f64, f64),
    caption: Option<CaptionLine>,
}

/// A caption's line: the middle of its capitals, their height and the widest it may be.
struct CaptionLine {
    center: (f64, f64),
    cap: f64,
    max_width: f64,
}

/// Whether a sheet carries crop marks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CropMarks {
    /// No marks (die-cut label stock needs none).
    #[default]
    None,
    /// Hairlines in the paper's margin continuing every cell edge of the grid, for cutting
    /// plain paper or card into labels.
    AtCellEdges,
}

/// One label: an encoded code drawn with its options (size, colours, style, frame, logo) and
/// the caption printed under it (empty: none; characters outside Latin-1 are left out, as the
/// frame's font has no glyph for them).
#[derive(Clone, Copy, Debug)]
pub struct SheetLabel<'a> {
    /// The code.
    pub code: &'a QrCode,
    /// How it is drawn (its format and print size are not used: the cell sets the size).
    pub options: &'a RenderOptions,
    /// The line under it.
    pub caption: &'a str,
}

/// Writes `labels` on sheets of `grid` as one PDF document, filling cells row by row and as
/// many pages as it takes; each code keeps its own look, scaled to the largest square its cell
/// leaves above the caption.
pub fn render_sheet(
    grid: &SheetGrid,
    crop_marks: CropMarks,
    labels: &[SheetLabel<'_>],
) -> Result<Vec<u8>, RenderError> {
    let per_page = grid.cells_per_page();
    let mut pages = Vec::with_capacity(labels.len().div_ceil(per_page).max(1));
    let page_height = grid.paper.1 * POINTS_PER_MM;
    for (page_index, page_labels) in labels.chunks(per_page).enumerate() {
        let mut writer = PageWriter::default();
        for (i, label) in page_labels.iter().enumerate() {
            let index = page_index * per_page + i;
            let geometry = grid.label_geometry(index, !label.caption.is_empty());
            let art = compose::art(label.code, label.options)?;
            let (left, top, side) = geometry.code;
            let placement = ArtPlacement {
                points_per_pixel: side * POINTS_PER_MM / f64::from(art.size),
                left: left * POINTS_PER_MM,
                top: page_height - top * POINTS_PER_MM,
            };
            let dpi = label.options.dpi.unwrap_or(Dpi::PRINT_DEFAULT);
            writer.push_art(&art, placement, dpi);
            // The art ends in `Q`; the next operator must not run into it (`Qq`).
            writer.content.push(b'\n');
            if let Some(line) = geometry.caption {
                push_caption(&mut writer.content, label.caption, &line, page_height);
            }
        }
        if crop_marks == CropMarks::AtCellEdges {
            push_crop_marks(&mut writer.content, grid);
        }
        // A sheet repeats itself: the module forms' placements, the captions' glyphs, and the
        // codes' finder patterns, so matches find most of the page.
        let coding = Coding::Matches(1);
        pages.push(writer.finish(coding));
    }
    if pages.is_empty() {
        pages.push(PageWriter::default().finish(Coding::SharedCode));
    }
    let paper = (grid.paper.0 * POINTS_PER_MM, page_height);
    Ok(assemble(paper, &pages))
}

/// Appends `text` as black glyph outlines on `line` (millimetres from the paper's top left
/// corner, on a page `page_height` points high).
fn push_caption(content: &mut Vec<u8>, text: &str, line: &CaptionLine, page_height: f64) {
    // Laid out in points, y down from the paper's top; the `cm` flips it onto the page.
    let laid = font::line(
        text,
        (
            (line.center.0 * POINTS_PER_MM) as f32,
            (line.center.1 * POINTS_PER_MM) as f32,
        ),
        (line.cap * POINTS_PER_MM) as f32,
        (line.max_width * POINTS_PER_MM) as f32,
    );
    let t = laid.transform;
    content.extend_from_slice(b"q 0 g\n");
    // Each glyph in its own `cm` at its pen position, so a glyph's outline is the same text
    // wherever it stands and the page's compressor finds its repeats (a short URL repeats
    // `/`, `.`, `r` and its host on every label).
    for &(glyph, pen) in &laid.glyphs {
        let mut path = Path::default();
        font::TextLine {
            glyphs: vec![(glyph, 0)],
            transform: t,
        }
        .append_to(&mut path);
        if path.is_empty() {
            continue;
        }
        content.push(b'q');
        // Exact: the scale is about 0.003 (points per font unit), which thousandths would
        // round by 12 %.
        let left = t.tx + t.sx * pen as f32;
        for value in [t.sx, 0.0, 0.0, -t.sy, left, page_height as f32 - t.ty] {
            number::push_exact_word(content, value);
        }
        content.extend_from_slice(b" cm\n");
        // Glyph outlines are whole font units (2,048 to the em).
        super::print::push_path(content, &path, true);
        content.extend_from_slice(b" f Q\n");
    }
    content.extend_from_slice(b"Q\n");
}

/// Appends crop marks: every distinct column edge continued above and below the grid, every
/// row edge left and right of it, in the margin between the grid and the paper's edge.
fn push_crop_marks(content: &mut Vec<u8>, grid: &SheetGrid) {
    let mut xs: Vec<f64> = Vec::new();
    for column in 0..grid.columns {
        let left = grid.origin.0 + f64::from(column) * grid.pitch.0;
        xs.extend([left, left + grid.cell.0]);
    }
    let mut ys: Vec<f64> = Vec::new();
    for row in 0..grid.rows {
        let top = grid.origin.1 + f64::from(row) * grid.pitch.1;
        ys.extend([top, top + grid.cell.1]);
    }
    for edges in [&mut xs, &mut ys] {
        edges.sort_by(f64::total_cmp);
        edges.dedup_by(|a, b| (*a - *b).abs() < EDGE_TOLERANCE_MM);
    }
    let (first_x, last_x) = (xs[0], xs[xs.len() - 1]);
    let (first_y, last_y) = (ys[0], ys[ys.len() - 1]);
    let (paper_w, paper_h) = grid.paper;
    // (from, to) along the mark's direction, in millimetres, for a margin of `room`,
    // starting at the grid's edge `at` and going `outward` (+1 or -1).
    let mark = |at: f64, room: f64, outward: f64| {
        let offset = CROP_OFFSET_MM.min(room / 2.0);
        let length = CROP_LENGTH_MM.min(room - offset);
        (length > 0.5).then_some((at + outward * offset, at + outward * (offset + length)))
    };
    let mut segments: Vec<((f64, f64), (f64, f64))> = Vec::new();
    for &x in &xs {
        if let Some((a, b)) = mark(first_y, first_y, -1.0) {
            segments.push(((x, a), (x, b)));
        }
        if let Some((a, b)) = mark(last_y, paper_h - last_y, 1.0) {
            segments.push(((x, a), (x, b)));
        }
    }
    for &y in &ys {
        if let Some((a, b)) = mark(first_x, first_x, -1.0) {
            segments.push(((a, y), (b, y)));
        }
        if let Some((a, b)) = mark(last_x, paper_w - last_x, 1.0) {
            segments.push(((a, y), (b, y)));
        }
    }
    if segments.is_empty() {
        return;
    }
    let page_height = paper_h * POINTS_PER_MM;
    content.extend_from_slice(b"q 0 G");
    number::push_word(content, CROP_LINE_POINTS as f32);
    content.extend_from_slice(b" w\n");
    for ((x0, y0), (x1, y1)) in segments {
        for (value, operator) in [((x0, y0), " m"), ((x1, y1), " l")] {
            number::push_word(content, (value.0 * POINTS_PER_MM) as f32);
            number::push_word(content, (page_height - value.1 * POINTS_PER_MM) as f32);
            content.extend_from_slice(operator.as_bytes());
        }
        content.extend_from_slice(b" S\n");
    }
    content.extend_from_slice(b"Q\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::EcLevel;

    fn a4_grid() -> SheetGrid {
        SheetGrid::new(
            (210.0, 297.0),
            (3, 7),
            (63.5, 38.1),
            (7.2, 15.15),
            (66.0, 38.1),
        )
        .expect("L7160 fits A4")
    }

    #[test]
    fn grids_are_checked() {
        let a4 = (210.0, 297.0);
        let grid = |cells, cell, origin, pitch| SheetGrid::new(a4, cells, cell, origin, pitch);
        assert_eq!(
            grid((0, 1), (10.0, 10.0), (0.0, 0.0), (10.0, 10.0)),
            Err(SheetError::NotPositive)
        );
        assert_eq!(
            grid((1, 1), (f64::NAN, 10.0), (0.0, 0.0), (10.0, 10.0)),
            Err(SheetError::NotPositive)
        );
        assert_eq!(
            grid((2, 1), (10.0, 10.0), (0.0, 0.0), (9.0, 10.0)),
            Err(SheetError::Overlapping)
        );
        assert_eq!(
            grid((3, 1), (70.0, 10.0), (0.1, 0.0), (70.0, 10.0)),
            Err(SheetError::OffThePaper)
        );
        assert!(grid((3, 1), (70.0, 10.0), (0.0, 0.0), (70.0, 10.0)).is_ok());
        let l7160 = a4_grid();
        assert_eq!(l7160.cells_per_page(), 21);
        let (x, y, w, h) = l7160.cell(22);
        assert!((x - 73.2).abs() < 1e-9 && (y - 15.15).abs() < 1e-9);
        assert_eq!((w, h), (63.5, 38.1));
    }

    #[test]
    fn codes_fit_their_cells_above_the_caption() {
        let grid = a4_grid();
        for index in 0..21 {
            let (x, y, w, h) = grid.cell(index);
            let geometry = grid.label_geometry(index, true);
            let (left, top, side) = geometry.code;
            let line = geometry.caption.expect("captioned");
            assert!(left >= x + 1.4 && left + side <= x + w - 1.4);
            assert!(top >= y + 1.4);
            // The descenders reach 0.3 capitals below the baseline.
            assert!(line.center.1 + 0.8 * line.cap <= y + h - 1.4, "{index}");
            assert!(line.center.1 - line.cap / 2.0 > top + side);
            assert!(side > 28.0, "{side}");
        }
        let bare = grid.label_geometry(0, false);
        assert!(bare.code.2 > 35.0 && bare.caption.is_none());
    }

    #[test]
    fn labels_flow_onto_as_many_pages_as_they_need() {
        let code =
            QrCode::encode_text("https://qr.example.com/r/7K3M9QXZ", EcLevel::M).expect("fits");
        let options = RenderOptions::default();
        let labels = vec![
            SheetLabel {
                code: &code,
                options: &options,
                caption: "qr.example.com/r/7K3M9QXZ",
            };
            22
        ];
        let pdf = render_sheet(&a4_grid(), CropMarks::AtCellEdges, &labels).expect("renders");
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.starts_with("%PDF-1.4"));
        assert!(text.contains("/Type/Pages/Kids[3 0 R 5 0 R]/Count 2"));
        assert_eq!(text.matches("/MediaBox[0 0 595.276 841.89]").count(), 2);
        let empty = render_sheet(&a4_grid(), CropMarks::None, &[]).expect("renders");
        assert!(String::from_utf8_lossy(&empty).contains("/Count 1"));
    }
}
