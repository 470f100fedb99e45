//! Label sheets read back as a printer's page: each layout (L7160, L7163, 5160 and a custom grid) rendered by poppler's pdftoppm at 300 dpi, every cell cut at the layout's coordinates and its code decoded by ZXingReader, which must give the cell's caption.

use std::path::PathBuf;

use qr_generate::print::{
    CaptionKind, CustomGrid, LabelStock, Layout, Paper, PrintLabel, PrintRequest, PrintSelection,
    PrintSheet, render_labels,
};
use qr_test_support::Luma;

/// The raster's resolution: a laser printer's.
const DPI: f64 = 300.0;

/// The suite's name in skip lines.
const SUITE: &str = "label sheets decoded (pdftoppm and ZXingReader)";

/// A full page of data items for `sheet`, a third of them dots, a third navy, each captioned
/// with its own data (a short URL, as links are).
fn full_page(sheet: &PrintSheet, name: &str) -> Vec<PrintLabel> {
    let items: Vec<String> = (0..sheet.grid.cells_per_page())
        .map(|i| {
            let look = match i % 3 {
                0 => "",
                1 => r#","style":"dots""#,
                _ => r#","color":"1a237e""#,
            };
            format!(r#"{{"data":"https://qr.example.com/r/{name}{i:03}"{look}}}"#)
        })
        .collect();
    let body = format!(r#"{{"items":[{}]}}"#, items.join(","));
    let request = PrintRequest::from_json(body.as_bytes()).expect("valid items");
    let PrintSelection::Items(items) = request.selection else {
        panic!("data items");
    };
    assert_eq!(request.caption, CaptionKind::Data);
    items
        .into_iter()
        .map(|item| PrintLabel {
            caption: item.code.data().to_owned(),
            code: item.code,
        })
        .collect()
}

/// The rectangle `(x, y, w, h)` in millimetres cut out of `page`.
fn cut(page: &Luma, (x, y, w, h): (f64, f64, f64, f64)) -> Luma {
    let px = |mm: f64| (mm / 25.4 * DPI).round() as usize;
    let (left, top) = (px(x), px(y));
    let (right, bottom) = (px(x + w).min(page.width), px(y + h).min(page.height));
    let mut pixels = Vec::with_capacity((right - left) * (bottom - top));
    for row in top..bottom {
        pixels.extend_from_slice(&page.pixels[row * page.width + left..row * page.width + right]);
    }
    Luma {
        width: right - left,
        height: bottom - top,
        pixels,
    }
}

#[test]
fn every_cell_of_every_layout_decodes_to_its_caption() {
    if !qr_test_support::have_program("pdftoppm", SUITE, "apt-get install poppler-utils") {
        return;
    }
    let mut custom = CustomGrid::new(4, 6);
    custom.gutter_x = 3.0;
    custom.gutter_y = 4.0;
    let layouts = [
        ("L7160", Layout::Stock(LabelStock::L7160), None),
        ("L7163", Layout::Stock(LabelStock::L7163), None),
        ("5160", Layout::Stock(LabelStock::Avery5160), None),
        ("custom", Layout::Custom(custom), Some(Paper::Letter)),
    ];
    let dir = std::env::temp_dir().join(format!("qr-print-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a writable temporary directory");
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut expected: Vec<(String, String)> = Vec::new();
    for (name, layout, paper) in layouts {
        let crop_marks = if name == "custom" {
            qr_core::CropMarks::AtCellEdges
        } else {
            qr_core::CropMarks::None
        };
        let sheet = PrintSheet::new(layout, paper, crop_marks).expect("a valid sheet");
        let labels = full_page(&sheet, &name.to_ascii_uppercase());
        let pdf = render_labels(&sheet, &labels).expect("renders");
        let page = qr_test_support::pdf_luma(&pdf, DPI as u32);
        let (w, h) = sheet.grid.paper();
        // pdftoppm rounds a fraction of a pixel up (A4 is 2,480.3 pixels wide).
        let pixels = |mm: f64| mm / 25.4 * DPI;
        assert!(
            (page.width as f64 - pixels(w)).abs() < 1.0
                && (page.height as f64 - pixels(h)).abs() < 1.0,
            "{name}: a page of {} x {} pixels is not the paper",
            page.width,
            page.height
        );
        for (index, label) in labels.iter().enumerate() {
            let cell = cut(&page, sheet.grid.cell(index));
            let path = dir.join(format!("{name}-{index:02}.png"));
            std::fs::write(&path, qr_test_support::decoders::luma_png(&cell))
                .expect("a writable temporary directory");
            paths.push(path);
            expected.push((format!("{name} cell {index}"), label.caption.clone()));
        }
    }
    let readings = qr_test_support::decoders::zxing_reader(SUITE, &paths);
    let _ = std::fs::remove_dir_all(&dir);
    let Some(readings) = readings else {
        return;
    };
    let total = expected.len();
    assert_eq!(total, 21 + 14 + 30 + 24);
    let failures: Vec<String> = expected
        .iter()
        .zip(&readings)
        .filter_map(|((cell, caption), reading)| match reading {
            Ok(bytes) if bytes == caption.as_bytes() => None,
            Ok(bytes) => Some(format!(
                "{cell}: read {:?}, caption {caption:?}",
                String::from_utf8_lossy(bytes)
            )),
            Err(e) => Some(format!("{cell}: {e}")),
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {total} cells:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn labels_beyond_a_page_go_on_the_next() {
    let sheet = PrintSheet::new(
        Layout::Stock(LabelStock::L7163),
        None,
        qr_core::CropMarks::None,
    )
    .expect("a valid sheet");
    let mut labels = full_page(&sheet, "A");
    labels.extend(full_page(&sheet, "B"));
    labels.truncate(20);
    let pdf = render_labels(&sheet, &labels).expect("renders");
    let text = String::from_utf8_lossy(&pdf);
    assert!(text.contains("/Count 2>>"), "two pages of 14");
}
