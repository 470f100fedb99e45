//! Short decimal numbers for the vector writers: at most three decimals, no trailing zeros, no leading zero.

/// Appends `value` rounded to three decimals in its shortest form (`.5`, `-2`, `12.125`),
/// preceded by a space unless `out` is empty, ends in a separator or an SVG path command, or the
/// number starts with `-`.
#[cfg(feature = "svg")]
pub(crate) fn push(out: &mut String, value: f32) {
    let separated = out.is_empty()
        || out.ends_with([' ', '"', '[', '(', '\n'])
        || out.ends_with(|c: char| c.is_ascii_alphabetic());
    push_after(out, value, separated);
}

/// Appends `value` as [`push`] does, preceded by a space unless `out` ends in white space or a
/// bracket: PDF and PostScript need a space after an operator.
pub(crate) fn push_word(out: &mut String, value: f32) {
    let separated = out.is_empty() || out.ends_with([' ', '\n', '[']);
    if !separated {
        out.push(' ');
    }
    push_after(out, value, true);
}

fn push_after(out: &mut String, value: f32, separated: bool) {
    let thousandths = (f64::from(value) * 1000.0).round() as i64;
    let negative = thousandths < 0;
    let magnitude = thousandths.unsigned_abs();
    let (whole, fraction) = (magnitude / 1000, magnitude % 1000);
    if !separated && !negative {
        out.push(' ');
    }
    if negative {
        out.push('-');
    }
    if whole != 0 || fraction == 0 {
        push_digits(out, whole);
    }
    if fraction != 0 {
        out.push('.');
        let mut digits = [fraction / 100, fraction / 10 % 10, fraction % 10];
        let mut count = 3;
        while digits[count - 1] == 0 {
            count -= 1;
        }
        for digit in &mut digits[..count] {
            out.push(char::from(b'0' + *digit as u8));
        }
    }
}

/// Appends the decimal digits of `value` without allocating.
fn push_digits(out: &mut String, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for &digit in &digits[start..] {
        out.push(char::from(digit));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "svg")]
    fn numbers_are_short() {
        let mut out = String::new();
        for value in [0.0, 0.5, -0.25, 12.0, 4.12345, -0.0001, 1000.5] {
            push(&mut out, value);
        }
        assert_eq!(out, "0 .5-.25 12 4.123 0 1000.5");
        let mut svg = String::from("M");
        push(&mut svg, 3.0);
        push(&mut svg, 4.0);
        assert_eq!(svg, "M3 4");
    }

    #[test]
    fn words_are_separated() {
        let mut pdf = String::from("0 0 m");
        push_word(&mut pdf, -1.5);
        push_word(&mut pdf, 0.25);
        assert_eq!(pdf, "0 0 m -1.5 .25");
    }
}
