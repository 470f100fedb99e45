//! Draws the module matrix yourself: a code as ASCII art on standard output and as an HTML table in a file.
//!
//! `QrCode::size` and `QrCode::is_dark` are all a custom renderer needs (a canvas, a plotter, a
//! knitting pattern); this one builds only qr-core's encoder. Run with
//! `cargo run -p qr-examples --example matrix -- [TEXT] [OUTPUT.html]`.

use std::fmt::Write as _;

use qr_core::{EcLevel, QrCode};

/// The light border drawn around the symbol, in modules (ISO/IEC 18004 asks for four).
const QUIET_ZONE: usize = 4;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let text = args
        .next()
        .unwrap_or_else(|| "https://qr.example.com/r/7K3M9QXZ".to_owned());
    let html_path = args.next().unwrap_or_else(|| "qr.html".to_owned());

    let code = QrCode::encode_text(&text, EcLevel::M)?;
    print!("{}", ascii(&code));
    std::fs::write(&html_path, html(&code))?;
    println!(
        "version {}, {} modules per side; wrote {html_path}",
        code.version(),
        code.size()
    );
    Ok(())
}

/// Whether the module at (`x`, `y`) of the symbol with its quiet zone is dark. `is_dark` answers
/// light for positions past the symbol's right and bottom edges, so only the left and top border
/// need handling here.
fn dark_with_quiet_zone(code: &QrCode, x: usize, y: usize) -> bool {
    match (x.checked_sub(QUIET_ZONE), y.checked_sub(QUIET_ZONE)) {
        (Some(x), Some(y)) => code.is_dark(x, y),
        _ => false,
    }
}

/// The code as text, two characters per module so that it looks square in a terminal font.
fn ascii(code: &QrCode) -> String {
    let side = code.size() + 2 * QUIET_ZONE;
    let mut text = String::with_capacity(side * (2 * side + 1));
    for y in 0..side {
        for x in 0..side {
            text.push_str(if dark_with_quiet_zone(code, x, y) {
                "##"
            } else {
                "  "
            });
        }
        text.push('\n');
    }
    text
}

/// The code as an HTML page holding a table of one 6-pixel cell per module.
fn html(code: &QrCode) -> String {
    let side = code.size() + 2 * QUIET_ZONE;
    let mut page = String::from(
        "<!doctype html>\n<meta charset=\"utf-8\">\n<title>QR code</title>\n<style>\
         table{border-collapse:collapse}td{width:6px;height:6px;padding:0}.d{background:#000}\
         </style>\n<table>\n",
    );
    for y in 0..side {
        page.push_str("<tr>");
        for x in 0..side {
            let class = if dark_with_quiet_zone(code, x, y) {
                " class=\"d\""
            } else {
                ""
            };
            let _ = write!(page, "<td{class}></td>");
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table>\n");
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drawings_show_the_finder_pattern_inside_the_quiet_zone() {
        let code = QrCode::encode_text("HELLO", EcLevel::L).expect("fits");
        let text = ascii(&code);
        let lines: Vec<&str> = text.lines().collect();
        // Version 1: 21 modules and 4 of quiet zone on each side, two characters per module.
        assert_eq!(lines.len(), 29);
        assert!(lines.iter().all(|line| line.len() == 58));
        assert!(lines[3].trim().is_empty());
        // The top-left finder pattern: seven dark modules from column 4 of row 4.
        assert_eq!(&lines[4][8..22], "##############");
        assert_eq!(&lines[5][8..22], "##          ##");
        let page = html(&code);
        assert_eq!(page.matches("<tr>").count(), 29);
        let dark = (0..code.size())
            .flat_map(|y| (0..code.size()).map(move |x| (x, y)))
            .filter(|&(x, y)| code.is_dark(x, y))
            .count();
        assert_eq!(page.matches("class=\"d\"").count(), dark);
    }
}
