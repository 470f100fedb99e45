//! Label sheets for print: the papers and label stocks, a custom grid with its bounds, captions and crop marks, the print request read from JSON, and the sheet PDF of many codes.
//!
//! Shared by `POST /api/print` and `qr print`: the server parses a JSON body with
//! [`PrintRequest::from_json`], the CLI builds a [`PrintRequest`] from its flags; the domain
//! resolves the selection (links or data items) into [`PrintLabel`]s under the plan's batch
//! bound and calls [`render_labels`]. Nothing here does I/O.

mod json;

use qr_core::{CropMarks, FrameText, SheetGrid, SheetLabel};

use thiserror::Error;

use crate::batch::BatchRequest;
use crate::params::{Code, GenerateError, ImageError};
use crate::symbol::Symbol;

/// Millimetres per inch (US label stock is specified in inches).
const MM_PER_INCH: f64 = 25.4;

/// A paper size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Paper {
    /// ISO A4, 210 x 297 mm.
    #[default]
    A4,
    /// US Letter, 8.5 x 11 in (215.9 x 279.4 mm).
    Letter,
}

impl Paper {
    /// Every paper, in the order the API lists them.
    pub const ALL: [Paper; 2] = [Paper::A4, Paper::Letter];

    /// Width and height in millimetres.
    pub fn millimetres(self) -> (f64, f64) {
        match self {
            Paper::A4 => (210.0, 297.0),
            Paper::Letter => (8.5 * MM_PER_INCH, 11.0 * MM_PER_INCH),
        }
    }

    /// The API's name (`a4`, `letter`).
    pub fn name(self) -> &'static str {
        match self {
            Paper::A4 => "a4",
            Paper::Letter => "letter",
        }
    }

    /// Reads a name, ignoring ASCII case.
    pub fn parse(raw: &str) -> Option<Paper> {
        Paper::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(raw.trim()))
    }
}

/// A label stock: its paper and its grid.
///
/// The figures are the makers' published template specifications (Avery's template pages:
/// label size, top and side margins, pitches); gLabels' `avery-iso-templates.xml` gives the same
/// pitches for L7160 (187.2 x 108 pt = 66.04 x 38.1 mm). Every stock is symmetric: its right and
/// bottom margins equal its left and top ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelStock {
    /// Avery L7160 (A4): 21 labels of 63.5 x 38.1 mm, 3 x 7, top margin 15.15 mm, side margins
    /// 7.21 mm, pitches 66.04 mm (2.6 in: a 2.54 mm gap) and 38.1 mm (no gap).
    L7160,
    /// Avery L7163 (A4): 14 labels of 99.1 x 38.1 mm, 2 x 7, top margin 15.15 mm, side margins
    /// 4.65 mm, pitches 101.6 mm (4 in: a 2.5 mm gap) and 38.1 mm.
    L7163,
    /// Avery 5160 (Letter): 30 labels of 2-5/8 x 1 in (66.675 x 25.4 mm), 3 x 10, top margin
    /// 0.5 in, side margins 3/16 in, pitches 2.75 in (a 1/8 in gap) and 1 in.
    Avery5160,
}

impl LabelStock {
    /// Every stock, in the order the API lists them.
    pub const ALL: [LabelStock; 3] = [LabelStock::L7160, LabelStock::L7163, LabelStock::Avery5160];

    /// The API's name (`L7160`, `L7163`, `5160`).
    pub fn name(self) -> &'static str {
        match self {
            LabelStock::L7160 => "L7160",
            LabelStock::L7163 => "L7163",
            LabelStock::Avery5160 => "5160",
        }
    }

    /// The paper the stock comes on.
    pub fn paper(self) -> Paper {
        match self {
            LabelStock::L7160 | LabelStock::L7163 => Paper::A4,
            LabelStock::Avery5160 => Paper::Letter,
        }
    }

    /// The stock's grid.
    pub fn grid(self) -> SheetGrid {
        let inch = MM_PER_INCH;
        let (cells, cell, origin, pitch) = match self {
            LabelStock::L7160 => ((3, 7), (63.5, 38.1), (7.21, 15.15), (66.04, 38.1)),
            LabelStock::L7163 => ((2, 7), (99.1, 38.1), (4.65, 15.15), (101.6, 38.1)),
            LabelStock::Avery5160 => (
                (3, 10),
                (2.625 * inch, inch),
                (0.1875 * inch, 0.5 * inch),
                (2.75 * inch, inch),
            ),
        };
        // The figures above fit their paper (a test says so for each stock).
        SheetGrid::new(self.paper().millimetres(), cells, cell, origin, pitch)
            .unwrap_or_else(|_| unreachable_grid())
    }

    /// Reads a name, ignoring ASCII case (`l7160`, `5160`; `avery5160` too).
    pub fn parse(raw: &str) -> Option<LabelStock> {
        let raw = raw.trim();
        let raw = raw
            .get(..5)
            .filter(|p| p.eq_ignore_ascii_case("avery"))
            .map_or(raw, |_| &raw[5..]);
        LabelStock::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(raw.trim()))
    }
}

/// The grid of a stock whose figures do not fit (never: the stocks' tests check them): one
/// cell of the whole A4 sheet, so nothing panics in production.
fn unreachable_grid() -> SheetGrid {
    let a4 = Paper::A4.millimetres();
    SheetGrid::new(a4, (1, 1), a4, (0.0, 0.0), a4).unwrap_or_else(|_| unreachable_grid())
}

/// A custom grid on plain paper or card: cells of equal size filling the paper between the
/// margins, the gutters between them, all in millimetres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CustomGrid {
    /// Cells across (1 to 10).
    pub columns: u32,
    /// Cells down (1 to 20).
    pub rows: u32,
    /// Left and right margins (0 to 50 mm; default 10).
    pub margin_x: f64,
    /// Top and bottom margins (0 to 50 mm; default 10).
    pub margin_y: f64,
    /// The gap between columns (0 to 50 mm; default 0).
    pub gutter_x: f64,
    /// The gap between rows (0 to 50 mm; default 0).
    pub gutter_y: f64,
}

/// The custom grid's bounds: at most 10 x 20 cells (200 a page, 15 mm wide on A4 at the
/// most), margins and gutters of at most 50 mm, and cells at least 15 mm on each side: below
/// that a code of 25 modules (a 30-character URL) has modules under 0.4 mm, which phone
/// cameras stop reading at arm's length.
pub const MAX_COLUMNS: u32 = 10;
/// See [`MAX_COLUMNS`].
pub const MAX_ROWS: u32 = 20;
/// See [`MAX_COLUMNS`].
pub const MAX_MARGIN_MM: f64 = 50.0;
/// See [`MAX_COLUMNS`].
pub const MIN_CELL_MM: f64 = 15.0;

/// The default margins of a custom grid: 10 mm, inside every office printer's unprintable
/// border (about 4 to 6 mm).
pub const DEFAULT_MARGIN_MM: f64 = 10.0;

impl CustomGrid {
    /// A grid of `columns` x `rows` with the default margins and no gutters.
    pub fn new(columns: u32, rows: u32) -> CustomGrid {
        CustomGrid {
            columns,
            rows,
            margin_x: DEFAULT_MARGIN_MM,
            margin_y: DEFAULT_MARGIN_MM,
            gutter_x: 0.0,
            gutter_y: 0.0,
        }
    }

    /// The grid on `paper`, its bounds checked.
    pub fn grid(&self, paper: Paper) -> Result<SheetGrid, PrintError> {
        if !(1..=MAX_COLUMNS).contains(&self.columns) {
            return Err(PrintError::Invalid {
                field: "grid.columns",
                rule: format!("it must be a whole number from 1 to {MAX_COLUMNS}"),
            });
        }
        if !(1..=MAX_ROWS).contains(&self.rows) {
            return Err(PrintError::Invalid {
                field: "grid.rows",
                rule: format!("it must be a whole number from 1 to {MAX_ROWS}"),
            });
        }
        for (field, value) in [
            ("grid.marginX", self.margin_x),
            ("grid.marginY", self.margin_y),
            ("grid.gutterX", self.gutter_x),
            ("grid.gutterY", self.gutter_y),
        ] {
            if !(value.is_finite() && (0.0..=MAX_MARGIN_MM).contains(&value)) {
                return Err(PrintError::Invalid {
                    field,
                    rule: format!("it must be a number of millimetres from 0 to {MAX_MARGIN_MM}"),
                });
            }
        }
        let (width, height) = paper.millimetres();
        let cell = |length: f64, count: u32, margin: f64, gutter: f64| {
            (length - 2.0 * margin - f64::from(count - 1) * gutter) / f64::from(count)
        };
        let cell = (
            cell(width, self.columns, self.margin_x, self.gutter_x),
            cell(height, self.rows, self.margin_y, self.gutter_y),
        );
        if cell.0 < MIN_CELL_MM || cell.1 < MIN_CELL_MM {
            return Err(PrintError::Invalid {
                field: "grid",
                rule: format!(
                    "its cells would be {:.1} x {:.1} mm; each side must be at least {MIN_CELL_MM} mm",
                    cell.0, cell.1
                ),
            });
        }
        SheetGrid::new(
            (width, height),
            (self.columns, self.rows),
            cell,
            (self.margin_x, self.margin_y),
            (cell.0 + self.gutter_x, cell.1 + self.gutter_y),
        )
        .map_err(|e| PrintError::Invalid {
            field: "grid",
            rule: e.to_string(),
        })
    }
}

/// Where the codes go: a label stock or a custom grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Layout {
    /// A label stock, on its own paper.
    Stock(LabelStock),
    /// A custom grid on the request's paper.
    Custom(CustomGrid),
}

/// What each label's caption says (an item's own `caption` text wins over it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaptionKind {
    /// The code's content: a link's short URL, a data item's data.
    #[default]
    Data,
    /// A link's name (a data item has none: its caption is empty unless it gives one).
    Name,
    /// No caption: the code takes the whole cell.
    None,
}

impl CaptionKind {
    /// Every kind, in the order the API lists them.
    pub const ALL: [CaptionKind; 3] = [CaptionKind::Data, CaptionKind::Name, CaptionKind::None];

    /// The API's name (`data`, `name`, `none`).
    pub fn name(self) -> &'static str {
        match self {
            CaptionKind::Data => "data",
            CaptionKind::Name => "name",
            CaptionKind::None => "none",
        }
    }

    /// Reads a name, ignoring ASCII case; `shortUrl` is `data` (a link's data is its short URL).
    pub fn parse(raw: &str) -> Option<CaptionKind> {
        let raw = raw.trim();
        if raw.eq_ignore_ascii_case("shortUrl") {
            return Some(CaptionKind::Data);
        }
        CaptionKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(raw))
    }
}

/// The sheet: its grid and whether it carries crop marks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrintSheet {
    /// The paper and its cells.
    pub grid: SheetGrid,
    /// Crop marks in the margin, or none.
    pub crop_marks: CropMarks,
}

impl PrintSheet {
    /// The sheet of `layout` on `paper` (a stock's own paper when `None`): a stock on another
    /// paper than its own is refused, as are a custom grid's bounds.
    pub fn new(
        layout: Layout,
        paper: Option<Paper>,
        crop_marks: CropMarks,
    ) -> Result<PrintSheet, PrintError> {
        let grid = match layout {
            Layout::Stock(stock) => {
                if let Some(paper) = paper.filter(|p| *p != stock.paper()) {
                    return Err(PrintError::Invalid {
                        field: "paper",
                        rule: format!(
                            "{} labels come on {} paper, not {}",
                            stock.name(),
                            stock.paper().name(),
                            paper.name()
                        ),
                    });
                }
                stock.grid()
            }
            Layout::Custom(custom) => custom.grid(paper.unwrap_or_default())?,
        };
        Ok(PrintSheet { grid, crop_marks })
    }
}

/// What to print: the account's links (by id, by tag, or all of them) or plain data items.
#[derive(Debug, Clone, PartialEq)]
pub enum PrintSelection {
    /// Links by id, in the order given (ids as the client wrote them; the domain reads them).
    LinkIds(Vec<String>),
    /// The account's links carrying this tag, oldest first.
    Tag(String),
    /// All of the account's links, oldest first.
    AllLinks,
    /// Codes of plain data, each with its settings checked.
    Items(Vec<PrintItem>),
}

/// A plain data item: its code (data and settings, as batch items give them) and its own
/// caption text, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct PrintItem {
    /// The code, checked.
    pub code: Code,
    /// Free caption text (Latin-1, at most [`MAX_CAPTION_CHARS`] characters).
    pub caption: Option<String>,
}

/// A print request: the sheet, the captions and the selection.
#[derive(Debug, Clone, PartialEq)]
pub struct PrintRequest {
    /// Paper, grid, crop marks.
    pub sheet: PrintSheet,
    /// What captions say.
    pub caption: CaptionKind,
    /// What to print.
    pub selection: PrintSelection,
}

/// One label ready to draw: its code and its caption (empty: none).
#[derive(Debug, Clone, PartialEq)]
pub struct PrintLabel {
    /// The code.
    pub code: Code,
    /// The caption under it.
    pub caption: String,
}

/// The longest caption, in characters: a label 63.5 mm wide holds about 45 characters of
/// 2.5 mm capitals before the line is narrowed, 80 at the smallest legible size.
pub const MAX_CAPTION_CHARS: usize = 80;

/// The most link ids or items a request may list before the plan's bound is applied: the
/// largest plan's batch bound (1,000), so a body of a million ids is refused while read.
pub const MAX_LISTED: usize = 1_000;

/// Why a print request was refused (HTTP 400); `Display` is the API's message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PrintError {
    /// The body is not JSON.
    #[error("Invalid JSON body: {0}")]
    InvalidJson(String),
    /// The body is JSON but not an object.
    #[error("Request body must be a JSON object")]
    NotAnObject,
    /// A field is invalid.
    #[error("Invalid {field}: {rule}")]
    Invalid {
        /// The field's name, as in the API.
        field: &'static str,
        /// What it must be.
        rule: String,
    },
    /// `defaults` is not an object or holds an invalid setting (batch's message).
    #[error("{0}")]
    Defaults(String),
    /// None or several of `items`, `links`, `tag` and `allLinks`.
    #[error("Give exactly one of items, links, tag or allLinks")]
    SelectionRequired,
    /// A data item is invalid.
    #[error("Invalid items[{index}]: {error}")]
    InvalidItem {
        /// The item's index.
        index: usize,
        /// What was wrong with it (generate's message).
        error: String,
    },
    /// More codes than the plan allows in one request.
    #[error("Maximum {0} items allowed")]
    TooManyItems(u32),
    /// The selection holds no code (a tag no link carries, an account without links).
    #[error("Nothing to print: the selection holds no links")]
    NothingToPrint,
    /// A code could not be drawn (its settings passed the checks, so this signals a bug).
    #[error("Rendering the sheet failed: {0}")]
    Render(String),
}

impl PrintRequest {
    /// How many codes the selection lists, when it lists them (a tag or all links are counted
    /// once read).
    pub fn listed(&self) -> Option<usize> {
        match &self.selection {
            PrintSelection::LinkIds(ids) => Some(ids.len()),
            PrintSelection::Items(items) => Some(items.len()),
            PrintSelection::Tag(_) | PrintSelection::AllLinks => None,
        }
    }
}

/// Reads the request's text fields into their types, each refusal with the API's message
/// (`Invalid paper: use a4 or letter`), for adapters that take them from a form or flags.
impl Paper {
    /// [`Paper::parse`], refused as the API refuses it.
    pub fn read(raw: &str) -> Result<Paper, PrintError> {
        Paper::parse(raw).ok_or_else(invalid_paper)
    }
}

impl LabelStock {
    /// [`LabelStock::parse`], refused as the API refuses a `layout` (which may also be
    /// `custom`).
    pub fn read(raw: &str) -> Result<LabelStock, PrintError> {
        LabelStock::parse(raw).ok_or_else(invalid_layout)
    }
}

impl CaptionKind {
    /// [`CaptionKind::parse`], refused as the API refuses it.
    pub fn read(raw: &str) -> Result<CaptionKind, PrintError> {
        CaptionKind::parse(raw).ok_or_else(invalid_caption_kind)
    }
}

pub(crate) fn invalid_paper() -> PrintError {
    PrintError::Invalid {
        field: "paper",
        rule: "use a4 or letter".to_owned(),
    }
}

pub(crate) fn invalid_layout() -> PrintError {
    PrintError::Invalid {
        field: "layout",
        rule: "use L7160, L7163, 5160 or custom".to_owned(),
    }
}

pub(crate) fn invalid_caption_kind() -> PrintError {
    PrintError::Invalid {
        field: "caption",
        rule: "use data (or shortUrl), name or none".to_owned(),
    }
}

/// The data items of a batch request (its defaults applied), each checked as a sheet needs it:
/// valid settings and a regular QR code; captions are left to the caller.
pub fn items_of_batch(request: &BatchRequest) -> Result<Vec<PrintItem>, PrintError> {
    (0..request.items.len())
        .map(|index| {
            let invalid = |error: String| PrintError::InvalidItem { index, error };
            let params = request.params(index).unwrap_or_default();
            let code = params
                .parse()
                .map_err(|e: GenerateError| invalid(e.to_string()))?;
            if code.symbol() == Symbol::Micro {
                return Err(invalid(
                    "a Micro QR code cannot be printed on a sheet: use symbol=qr".to_owned(),
                ));
            }
            Ok(PrintItem {
                code,
                caption: None,
            })
        })
        .collect()
}

/// Checks free caption text: at most [`MAX_CAPTION_CHARS`] characters the frame's font draws.
pub fn check_caption(text: &str) -> Result<String, String> {
    let count = text.chars().count();
    if count > MAX_CAPTION_CHARS {
        return Err(format!(
            "caption has {count} characters; at most {MAX_CAPTION_CHARS}"
        ));
    }
    if let Some(c) = text.chars().find(|&c| !FrameText::is_drawn(c)) {
        return Err(format!(
            "the caption's character {c:?} (U+{:04X}) is not in the font: use printable ASCII or Latin-1 letters",
            u32::from(c)
        ));
    }
    Ok(text.to_owned())
}

/// A caption from text the client did not write for print (a link's name, a code's data):
/// characters the font cannot draw are left out and the rest cut to [`MAX_CAPTION_CHARS`].
pub fn drawable_caption(text: &str) -> String {
    text.chars()
        .filter(|&c| FrameText::is_drawn(c))
        .take(MAX_CAPTION_CHARS)
        .collect()
}

/// Draws `labels` on `sheet`: each code in its own look (colours, style, frame, logo), its
/// caption under it, as many pages as the labels fill.
pub fn render_labels(sheet: &PrintSheet, labels: &[PrintLabel]) -> Result<Vec<u8>, PrintError> {
    let codes = labels
        .iter()
        .enumerate()
        .map(|(index, label)| {
            encode(&label.code).map_err(|e| PrintError::InvalidItem {
                index,
                error: e.to_string(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sheet_labels: Vec<SheetLabel<'_>> = labels
        .iter()
        .zip(&codes)
        .map(|(label, code)| SheetLabel {
            code,
            options: label.code.options(),
            caption: &label.caption,
        })
        .collect();
    qr_core::render_sheet(&sheet.grid, sheet.crop_marks, &sheet_labels)
        .map_err(|e| PrintError::Render(e.to_string()))
}

/// Encodes `code` under the rules generate applies before drawing: enough contrast, and the
/// geometry a scanner reads.
fn encode(code: &Code) -> Result<qr_core::QrCode, GenerateError> {
    let (data, options) = (code.data(), code.options());
    crate::scan::check_contrast(options)?;
    let qr = qr_core::encode(data, options).map_err(ImageError::from)?;
    crate::scan::check_geometry(&qr, options)?;
    Ok(qr)
}

/// The file name of a sheet: `qrcodes-<layout>.pdf`.
pub fn file_name(sheet: &PrintSheet) -> String {
    let stock = LabelStock::ALL.into_iter().find(|s| s.grid() == sheet.grid);
    match stock {
        Some(stock) => format!("qrcodes-{}.pdf", stock.name()),
        None => "qrcodes-custom.pdf".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stock_fits_its_paper_symmetrically() {
        for stock in LabelStock::ALL {
            let grid = stock.grid();
            let (w, h) = stock.paper().millimetres();
            assert_eq!(grid.paper(), (w, h));
            let last = grid.cells_per_page() - 1;
            let (x0, y0, _, _) = grid.cell(0);
            let (x1, y1, cw, ch) = grid.cell(last);
            assert!((w - (x1 + cw) - x0).abs() < 0.05, "{stock:?} sides");
            assert!(
                (h - (y1 + ch) - y0).abs() < 0.05,
                "{stock:?} top and bottom"
            );
            assert_eq!(LabelStock::parse(stock.name()), Some(stock));
        }
        assert_eq!(LabelStock::L7160.grid().cells_per_page(), 21);
        assert_eq!(LabelStock::L7163.grid().cells_per_page(), 14);
        assert_eq!(LabelStock::Avery5160.grid().cells_per_page(), 30);
        assert_eq!(LabelStock::parse("avery5160"), Some(LabelStock::Avery5160));
        assert_eq!(LabelStock::parse("l7163"), Some(LabelStock::L7163));
        assert_eq!(LabelStock::parse("7160"), None);
    }

    fn error(json: &str) -> String {
        PrintRequest::from_json(json.as_bytes())
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn requests_are_read_with_their_defaults() {
        let request =
            PrintRequest::from_json(br#"{"items":[{"data":"a"},{"data":"b","caption":"Bee"}]}"#)
                .expect("valid");
        assert_eq!(request.sheet.grid, LabelStock::L7160.grid());
        assert_eq!(request.sheet.crop_marks, CropMarks::None);
        assert_eq!(request.caption, CaptionKind::Data);
        let PrintSelection::Items(items) = &request.selection else {
            panic!("items");
        };
        assert_eq!(items[1].caption.as_deref(), Some("Bee"));
        assert_eq!(file_name(&request.sheet), "qrcodes-L7160.pdf");
        let letter = PrintRequest::from_json(
            br#"{"paper":"Letter","allLinks":true,"cropMarks":true,"caption":"shortUrl"}"#,
        )
        .expect("valid");
        assert_eq!(letter.sheet.grid, LabelStock::Avery5160.grid());
        assert_eq!(letter.selection, PrintSelection::AllLinks);
        assert_eq!(letter.sheet.crop_marks, CropMarks::AtCellEdges);
        let custom = PrintRequest::from_json(
            br#"{"layout":"custom","paper":"letter","grid":{"columns":4,"rows":5,"gutterX":3},"tag":"spring","caption":"name"}"#,
        )
        .expect("valid");
        assert_eq!(custom.sheet.grid.cells_per_page(), 20);
        assert_eq!(custom.sheet.grid.paper(), Paper::Letter.millimetres());
        assert_eq!(custom.caption, CaptionKind::Name);
        assert_eq!(custom.selection, PrintSelection::Tag("spring".to_owned()));
        assert_eq!(file_name(&custom.sheet), "qrcodes-custom.pdf");
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        assert!(error("{").starts_with("Invalid JSON body: "));
        assert_eq!(error("[]"), "Request body must be a JSON object");
        assert_eq!(
            error("{}"),
            "Give exactly one of items, links, tag or allLinks"
        );
        assert_eq!(
            error(r#"{"tag":"a","allLinks":true}"#),
            "Give exactly one of items, links, tag or allLinks"
        );
        assert_eq!(
            error(r#"{"paper":"a3","allLinks":true}"#),
            "Invalid paper: use a4 or letter"
        );
        assert_eq!(
            error(r#"{"layout":"L7160","paper":"letter","allLinks":true}"#),
            "Invalid paper: L7160 labels come on a4 paper, not letter"
        );
        assert_eq!(
            error(r#"{"layout":"L7999","allLinks":true}"#),
            "Invalid layout: use L7160, L7163, 5160 or custom"
        );
        assert_eq!(
            error(r#"{"layout":"custom","grid":{"columns":11,"rows":2},"allLinks":true}"#),
            "Invalid grid.columns: it must be a whole number from 1 to 10"
        );
        assert_eq!(
            error(
                r#"{"layout":"custom","grid":{"columns":2,"rows":2,"marginX":-1},"allLinks":true}"#
            ),
            "Invalid grid.marginX: it must be a number of millimetres from 0 to 50"
        );
        assert_eq!(
            error(
                r#"{"layout":"custom","grid":{"columns":10,"rows":20,"gutterX":10},"allLinks":true}"#
            ),
            "Invalid grid: its cells would be 10.0 x 13.8 mm; each side must be at least 15 mm"
        );
        assert_eq!(
            error(r#"{"grid":{"columns":2,"rows":2},"allLinks":true}"#),
            "Invalid grid: a grid needs \"layout\": \"custom\""
        );
        assert_eq!(
            error(r#"{"cropMarks":"yes","allLinks":true}"#),
            "Invalid cropMarks: it must be true or false"
        );
        assert_eq!(
            error(r#"{"items":[{"data":"a"},{"data":"b","size":10}]}"#),
            "Invalid items[1]: Invalid size"
        );
        assert_eq!(
            error(r#"{"items":[{"data":"a"}],"defaults":{"size":10}}"#),
            "Invalid defaults.size"
        );
        assert_eq!(
            error(r#"{"items":[{"data":"a","caption":"日本"}]}"#),
            "Invalid items[0]: the caption's character '日' (U+65E5) is not in the font: use printable ASCII or Latin-1 letters"
        );
        assert_eq!(
            error(r#"{"items":[{"data":"1","symbol":"micro"}]}"#),
            "Invalid items[0]: a Micro QR code cannot be printed on a sheet: use symbol=qr"
        );
        assert_eq!(error(r#"{"links":[]}"#), "Invalid links: list 1 to 1000");
        assert_eq!(
            error(r#"{"links":[3]}"#),
            "Invalid links: each link is its id as a string"
        );
        assert_eq!(drawable_caption("Café ☕ menu"), "Café  menu");
    }
}
