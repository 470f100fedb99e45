//! Terminal output: two module rows per text line with Unicode half blocks, quiet zone included.

use crate::encode::QrCode;
use crate::options::Margin;

/// Draws the code as lines of `█`, `▀`, `▄` and spaces, `margin` modules of quiet zone around it.
///
/// With `invert` false, dark modules are drawn as block characters (for light terminal
/// backgrounds); with `invert` true, light modules are (for dark backgrounds, where the terminal's
/// own background then shows through as the dark modules). Every line ends with a newline.
///
/// ```
/// use qr_core::{EcLevel, Margin, QrCode, render_terminal};
///
/// let code = QrCode::encode_text("HI", EcLevel::L)?;
/// let text = render_terminal(&code, Margin::new(2), false);
/// // 21 modules and 2 x 2 of margin are 25 columns, two module rows a line.
/// assert_eq!(text.lines().count(), 13);
/// # Ok::<(), qr_core::EncodeError>(())
/// ```
pub fn render_terminal(code: &QrCode, margin: Margin, invert: bool) -> String {
    let size = code.size() as i64;
    let margin = i64::from(margin.modules());
    let inked = |x: i64, y: i64| {
        let dark = x >= 0 && y >= 0 && code.is_dark(x as usize, y as usize);
        dark != invert
    };
    let mut out = String::new();
    let mut y = -margin;
    while y < size + margin {
        for x in -margin..size + margin {
            let top = inked(x, y);
            // An odd last row pairs with a quiet-zone row below it.
            let bottom = if y + 1 < size + margin {
                inked(x, y + 1)
            } else {
                invert
            };
            out.push(match (top, bottom) {
                (true, true) => '█',
                (true, false) => '▀',
                (false, true) => '▄',
                (false, false) => ' ',
            });
        }
        out.push('\n');
        y += 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EcLevel;

    #[test]
    fn terminal_lines_cover_the_code_and_quiet_zone() {
        let code = QrCode::encode_text("HI", EcLevel::L).expect("fits");
        let text = render_terminal(&code, Margin::new(2), false);
        let lines: Vec<&str> = text.lines().collect();
        // 21 modules plus 4 of margin is 25 rows, 13 text lines.
        assert_eq!(lines.len(), 13);
        assert!(lines.iter().all(|line| line.chars().count() == 25));
        // The first line is quiet zone over quiet zone; the second starts the finder pattern.
        assert_eq!(lines[0].trim(), "");
        assert!(lines[1].starts_with("  █▀▀▀▀▀█"));
        let inverted = render_terminal(&code, Margin::new(2), true);
        assert!(
            inverted
                .lines()
                .next()
                .is_some_and(|l| l.chars().all(|c| c == '█'))
        );
    }
}
