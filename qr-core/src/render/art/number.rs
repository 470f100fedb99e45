//! Short decimal numbers for the vector writers: at most three decimals, no trailing zeros, no leading zero.

/// Appends `value` rounded to three decimals in its shortest form (`.5`, `-2`, `12.125`),
/// preceded by a space unless `out` is empty, ends in a separator or an SVG path command, or the
/// number starts with `-`.
#[cfg(feature = "svg")]
pub(crate) fn push(out: &mut String, value: f32) {
    let separated = match out.as_bytes().last() {
        None => true,
        Some(&last) => {
            matches!(last, b' ' | b'"' | b'[' | b'(' | b'\n') || last.is_ascii_alphabetic()
        }
    };
    let mut buffer = [0u8; 24];
    let text = format(value, &mut buffer);
    if !separated && text.first() != Some(&b'-') {
        out.push(' ');
    }
    push_ascii(out, text);
}

/// A transform's `value` in full when thousandths would change it (a text's scale from font
/// units to pixels is about 0.016: three decimals would shrink it by a sixth): nine decimals,
/// trailing zeros dropped, more than the seven digits an `f32` holds (the last ones are its
/// binary expansion, exact as written), written at the end of `buffer`; `None` when
/// thousandths hold it. Formatting the float itself went through `core::fmt`, 500
/// instructions a number.
fn exact(value: f32, buffer: &mut [u8; 32]) -> Option<&[u8]> {
    let short = thousandths(value);
    if (short as f64 / 1000.0 - f64::from(value)).abs() <= 1e-7 * f64::from(value.abs()).max(1.0) {
        return None;
    }
    let nanos = (f64::from(value) * 1e9).round() as i64;
    let magnitude = nanos.unsigned_abs();
    let mut end = buffer.len();
    let fraction = magnitude % 1_000_000_000;
    if fraction != 0 {
        let (mut digits, mut width) = (fraction, 9);
        while digits % 10 == 0 {
            digits /= 10;
            width -= 1;
        }
        for slot in buffer[end - width..end].iter_mut().rev() {
            *slot = b'0' + (digits % 10) as u8;
            digits /= 10;
        }
        end -= width + 1;
        buffer[end] = b'.';
    }
    let mut start = self::digits(&mut buffer[..end], magnitude / 1_000_000_000);
    if nanos < 0 {
        start -= 1;
        buffer[start] = b'-';
    }
    Some(&buffer[start..])
}

/// Appends a transform's `value` as [`push`] does, in full when thousandths would change it
/// (see [`exact`]).
#[cfg(feature = "svg")]
pub(crate) fn push_exact(out: &mut String, value: f32) {
    let mut buffer = [0u8; 32];
    let Some(text) = exact(value, &mut buffer) else {
        return push(out, value);
    };
    let separated = matches!(
        out.as_bytes().last(),
        None | Some(b' ' | b'"' | b'[' | b'(' | b'\n')
    );
    if !separated && text.first() != Some(&b'-') {
        out.push(' ');
    }
    push_ascii(out, text);
}

/// Appends a transform's `value` as [`push_word`] does, in full when thousandths would change
/// it (see [`exact`]).
#[cfg(any(feature = "pdf", feature = "eps"))]
pub(crate) fn push_exact_word(out: &mut Vec<u8>, value: f32) {
    let mut buffer = [0u8; 32];
    let Some(text) = exact(value, &mut buffer) else {
        return push_word(out, value);
    };
    if !matches!(out.last(), None | Some(b' ' | b'\n' | b'[')) {
        out.push(b' ');
    }
    out.extend_from_slice(text);
}

/// Appends `value` as [`push`] does, preceded by a space unless `out` ends in white space or a
/// bracket: PDF and PostScript need a space after an operator.
pub(crate) fn push_word(out: &mut Vec<u8>, value: f32) {
    let last = out.last().copied();
    put_word(out, last, thousandths(value));
}

/// Appends `thousandths` / 1000 to `out` as [`push_word`] does, where `last` is the byte
/// before (the end of `out` unless `out` continues another buffer).
pub(crate) fn put_word(out: &mut Vec<u8>, last: Option<u8>, thousandths: i64) {
    if !matches!(last, None | Some(b' ' | b'\n' | b'[')) {
        out.push(b' ');
    }
    put_thousandths(out, thousandths);
}

/// Up to four bytes of text and their length.
type Short = ([u8; 4], u8);

/// The text of every whole number below 1,000 (`7`, `42`).
static WHOLES: [Short; 1000] = {
    let mut table = [([0u8; 4], 0u8); 1000];
    let mut i = 0;
    while i < 1000 {
        let (mut text, mut len) = ([0u8; 4], 0);
        if i >= 100 {
            text[len] = b'0' + (i / 100) as u8;
            len += 1;
        }
        if i >= 10 {
            text[len] = b'0' + (i / 10 % 10) as u8;
            len += 1;
        }
        text[len] = b'0' + (i % 10) as u8;
        table[i] = (text, len as u8 + 1);
        i += 1;
    }
    table
};

/// The three digits of every number below 1,000, zeros in front (`007`): the low part of a
/// whole number of a thousand or more.
static PADDED: [[u8; 4]; 1000] = {
    let mut table = [[0u8; 4]; 1000];
    let mut i = 0;
    while i < 1000 {
        table[i] = [
            b'0' + (i / 100) as u8,
            b'0' + (i / 10 % 10) as u8,
            b'0' + (i % 10) as u8,
            0,
        ];
        i += 1;
    }
    table
};

/// The point and digits of every thousandth fraction, trailing zeros left out (`.5`, `.224`;
/// nothing for 0).
static FRACTIONS: [Short; 1000] = {
    let mut table = [([0u8; 4], 0u8); 1000];
    let mut i = 1;
    while i < 1000 {
        let digits = [(i / 100) as u8, (i / 10 % 10) as u8, (i % 10) as u8];
        let mut len = 3;
        while digits[len - 1] == 0 {
            len -= 1;
        }
        let mut text = [b'.', 0, 0, 0];
        let mut k = 0;
        while k < len {
            text[k + 1] = b'0' + digits[k];
            k += 1;
        }
        table[i] = (text, len as u8 + 1);
        i += 1;
    }
    table
};

/// A few numbers and operators put together on the stack before they are appended at once: a
/// store of four bytes per part and no capacity check, where appending each part to a `Vec`
/// cost a check and a length update each (27 instructions a number of a PDF's coordinates).
#[cfg(any(feature = "pdf", feature = "eps"))]
pub(crate) struct Words {
    /// 64 bytes beyond the most a step writes (ten numbers and an operator), so that
    /// [`Words::append_to`] can always copy 64 from wherever the text starts.
    bytes: [u8; 192],
    len: usize,
}

#[cfg(any(feature = "pdf", feature = "eps"))]
impl Words {
    pub(crate) fn new() -> Words {
        Words {
            bytes: [0; 192],
            len: 0,
        }
    }

    /// Appends a space and `thousandths` / 1000 (as [`put_thousandths`] writes it); at most
    /// ten numbers fit with their operators.
    #[inline]
    pub(crate) fn number(&mut self, thousandths: i64) {
        self.bytes[self.len] = b' ';
        self.len += 1;
        self.put(thousandths);
    }

    /// Appends `thousandths` / 1000 without a space before it.
    #[inline]
    pub(crate) fn put(&mut self, thousandths: i64) {
        let mut sink = (&mut self.bytes, self.len);
        write_thousandths(&mut sink, thousandths);
        self.len = sink.1;
    }

    /// Appends `text` (an operator) as it is.
    #[inline]
    pub(crate) fn text(&mut self, text: &[u8]) {
        self.bytes[self.len..self.len + text.len()].copy_from_slice(text);
        self.len += text.len();
    }

    /// Empties the buffer.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// The bytes put together.
    #[cfg(test)]
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Appends the bytes put together to `out`, skipping a first space when `out` ends a line
    /// or a word. Usually 64 bytes are copied whole and the rest cut off: a copy of a known
    /// size is a few vector stores, where one of the text's own length called `memmove`
    /// (8 % of a rounded PDF's time).
    pub(crate) fn append_to(&self, out: &mut Vec<u8>) {
        let skip =
            usize::from(self.bytes[0] == b' ' && matches!(out.last(), None | Some(b' ' | b'\n')));
        let end = out.len() + self.len - skip;
        match self.bytes.get(skip..skip + 64) {
            Some(chunk) if self.len <= skip + 64 => {
                let chunk: &[u8; 64] = chunk.try_into().unwrap_or(&[b' '; 64]);
                out.extend_from_slice(chunk);
                out.truncate(end);
            }
            _ => out.extend_from_slice(&self.bytes[skip..self.len]),
        }
    }
}

/// Appends `thousandths` / 1000 in its shortest form, as [`format_thousandths`] writes it:
/// the whole part and the fraction from tables (a store of four bytes each; the print writers'
/// absolute coordinates are most of a PDF's writing, and formatting each digit cost them 37
/// instructions a number).
pub(crate) fn put_thousandths(out: &mut Vec<u8>, thousandths: i64) {
    write_thousandths(out, thousandths);
}

/// Where [`write_thousandths`] puts its parts: a `Vec`, or a fixed buffer and the length used.
trait Parts {
    /// Appends the first `len` of four bytes (copied whole, then cut: a copy of a known size
    /// is a store, one of the text's own length a call to `memmove`).
    fn short(&mut self, text: [u8; 4], len: u8);
    /// Appends `text` as it is.
    fn text(&mut self, text: &[u8]);
}

impl Parts for Vec<u8> {
    #[inline(always)]
    fn short(&mut self, text: [u8; 4], len: u8) {
        let end = self.len() + usize::from(len);
        self.extend_from_slice(&text);
        self.truncate(end);
    }

    fn text(&mut self, text: &[u8]) {
        self.extend_from_slice(text);
    }
}

/// A buffer whose size is part of its type (so the four-byte copies' bounds are known), and
/// its length.
impl<const N: usize> Parts for (&mut [u8; N], usize) {
    #[inline(always)]
    fn short(&mut self, text: [u8; 4], len: u8) {
        self.0[self.1..self.1 + 4].copy_from_slice(&text);
        self.1 += usize::from(len);
    }

    fn text(&mut self, text: &[u8]) {
        self.0[self.1..self.1 + text.len()].copy_from_slice(text);
        self.1 += text.len();
    }
}

/// Writes `thousandths` / 1000 from the tables (whole parts below a million, fractions).
#[inline(always)]
fn write_thousandths(out: &mut impl Parts, thousandths: i64) {
    let magnitude = thousandths.unsigned_abs();
    let (whole, fraction) = (magnitude / 1000, (magnitude % 1000) as usize);
    if whole >= 1_000_000 {
        let mut text = [0u8; 24];
        out.text(format_thousandths(thousandths, &mut text));
        return;
    }
    if thousandths < 0 {
        out.short([b'-', 0, 0, 0], 1);
    }
    if whole >= 1000 {
        // A font's coordinates run to thousands: the high part, then three digits.
        let (text, len) = WHOLES[(whole / 1000) as usize];
        out.short(text, len);
        out.short(PADDED[(whole % 1000) as usize], 3);
    } else if whole != 0 || fraction == 0 {
        let (text, len) = WHOLES[whole as usize];
        out.short(text, len);
    }
    if fraction != 0 {
        let (text, len) = FRACTIONS[fraction];
        out.short(text, len);
    }
}

/// Appends the whole number `value` after a space unless `out` ends in white space or a
/// bracket (the run coordinates of PDF and EPS).
pub(crate) fn put_word_int(out: &mut Vec<u8>, value: u32) {
    if !matches!(out.last(), None | Some(b' ' | b'\n' | b'[')) {
        out.push(b' ');
    }
    let mut buffer = [0u8; 24];
    let start = digits(&mut buffer, u64::from(value));
    out.extend_from_slice(&buffer[start..]);
}

/// `value` in whole thousandths, rounded half away from zero as `round` does (the cast
/// saturates out of range): the unit the writers compute relative coordinates in, so that the
/// rounding of one step never carries into the next.
pub(crate) fn thousandths(value: f32) -> i64 {
    let scaled = f64::from(value) * 1000.0;
    (scaled + if scaled < 0.0 { -0.5 } else { 0.5 }) as i64
}

/// `value` in whole thousandths, rounded to a whole number of units when `whole`.
#[cfg(any(feature = "pdf", feature = "eps"))]
pub(crate) fn thousandths_in(value: f32, whole: bool) -> i64 {
    if whole {
        whole_thousandths(value)
    } else {
        thousandths(value)
    }
}

/// `value` rounded to a whole number (ties to even) in thousandths: adding and taking away
/// 1.5 x 2^52 leaves no bits below the unit in an `f64` (`f32::round` is a call into libm on
/// the baseline x86-64, twice a point of every glyph).
#[inline]
pub(crate) fn whole_thousandths(value: f32) -> i64 {
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    ((f64::from(value) + SHIFT) - SHIFT) as i64 * 1000
}

/// `value` rounded to thousandths in its shortest form, written at the end of `buffer`.
#[cfg(feature = "svg")]
fn format(value: f32, buffer: &mut [u8; 24]) -> &[u8] {
    format_thousandths(thousandths(value), buffer)
}

/// `thousandths` / 1000 in its shortest form, written at the end of `buffer`: a few integer
/// multiplications, no float formatting and no division by a variable (the writers call this
/// for every coordinate, so it is their hot path; it took 67 instructions a number before the
/// fraction's digits were written in one step).
pub(crate) fn format_thousandths(thousandths: i64, buffer: &mut [u8; 24]) -> &[u8] {
    let magnitude = thousandths.unsigned_abs();
    let (whole, fraction) = (magnitude / 1000, (magnitude % 1000) as u32);
    let mut end = buffer.len();
    if fraction != 0 {
        end = write_fraction(buffer, end, fraction);
    }
    let mut start = end;
    if whole != 0 || fraction == 0 {
        start = digits(&mut buffer[..end], whole);
    }
    if thousandths < 0 {
        start -= 1;
        buffer[start] = b'-';
    }
    &buffer[start..]
}

/// Writes `.` and the digits of `fraction` (1 to 999 thousandths) without trailing zeros,
/// ending at `end`; returns where they start.
fn write_fraction(buffer: &mut [u8], end: usize, fraction: u32) -> usize {
    let (value, width) = if fraction.is_multiple_of(100) {
        (fraction / 100, 1)
    } else if fraction.is_multiple_of(10) {
        (fraction / 10, 2)
    } else {
        (fraction, 3)
    };
    let start = end - width - 1;
    buffer[start] = b'.';
    let mut value = value;
    for slot in buffer[start + 1..end].iter_mut().rev() {
        *slot = b'0' + (value % 10) as u8;
        value /= 10;
    }
    start
}

/// A number written ahead of time: its text in the first `len` bytes, and whether it has a
/// decimal point.
#[cfg(feature = "svg")]
#[derive(Clone, Copy)]
pub(crate) struct Written {
    pub(crate) bytes: [u8; 8],
    pub(crate) len: u8,
    pub(crate) point: bool,
}

/// How many tenths either side of zero [`TENTHS`] holds.
#[cfg(feature = "svg")]
const TENTH_RANGE: i64 = 640;

/// The shortest text of every multiple of a tenth from -64 to 63.9 (`-1.5`, `.4`, `2`):
/// almost every step of a styled outline is one (sides are whole modules, radii halves, the
/// connected style's capsules four fifths wide), and copying eight prepared bytes costs a few
/// instructions where formatting took about 15 and finding its point another 5.
#[cfg(feature = "svg")]
static TENTHS: [Written; 2 * TENTH_RANGE as usize] = {
    let mut table = [Written {
        bytes: [0; 8],
        len: 0,
        point: false,
    }; 2 * TENTH_RANGE as usize];
    let mut i = 0;
    while i < table.len() {
        let tenths = i as i64 - TENTH_RANGE;
        let magnitude = if tenths < 0 { -tenths } else { tenths };
        let (whole, fraction) = (magnitude / 10, magnitude % 10);
        let mut text = [0u8; 8];
        let mut len = 0;
        if tenths < 0 {
            text[len] = b'-';
            len += 1;
        }
        if whole >= 10 {
            text[len] = b'0' + (whole / 10) as u8;
            len += 1;
        }
        if whole != 0 || fraction == 0 {
            text[len] = b'0' + (whole % 10) as u8;
            len += 1;
        }
        if fraction != 0 {
            text[len] = b'.';
            text[len + 1] = b'0' + fraction as u8;
            len += 2;
        }
        table[i] = Written {
            bytes: text,
            len: len as u8,
            point: fraction != 0,
        };
        i += 1;
    }
    table
};

/// `thousandths` / 1000 from [`TENTHS`] when it is a multiple of a tenth in its range.
#[cfg(feature = "svg")]
#[inline]
pub(crate) fn tenths(thousandths: i64) -> Option<&'static Written> {
    if thousandths % 100 != 0 {
        return None;
    }
    let index = thousandths / 100 + TENTH_RANGE;
    TENTHS.get(usize::try_from(index).ok()?)
}

/// Appends ASCII `bytes` (digits, signs and points) in one copy.
#[cfg(feature = "svg")]
pub(crate) fn push_ascii(out: &mut String, bytes: &[u8]) {
    // Always ASCII, so the check passes; callers hand over whole paths, not single numbers
    // (checking each number cost more than formatting it).
    out.push_str(std::str::from_utf8(bytes).unwrap_or_default());
}

/// Writes the decimal digits of `value` at the end of `buffer`; returns where they start.
fn digits(buffer: &mut [u8], mut value: u64) -> usize {
    let mut start = buffer.len();
    loop {
        start -= 1;
        buffer[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            return start;
        }
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
    #[cfg(feature = "svg")]
    fn tenths_are_written_as_the_formatter_writes_them() {
        for thousandths in (-64_000..64_000).step_by(100) {
            let written = tenths(thousandths).expect("in range");
            let mut buffer = [0u8; 24];
            let text = format_thousandths(thousandths, &mut buffer);
            assert_eq!(&written.bytes[..usize::from(written.len)], text);
            assert_eq!(written.point, text.contains(&b'.'));
        }
        assert!(tenths(64_000).is_none() && tenths(-64_100).is_none() && tenths(250).is_none());
    }

    #[test]
    fn table_numbers_are_the_formatted_ones() {
        for thousandths in (-1_000_500..1_000_500)
            .step_by(7)
            .chain([0, 1000, -999_999])
        {
            let mut fast = Vec::new();
            put_thousandths(&mut fast, thousandths);
            let mut buffer = [0u8; 24];
            assert_eq!(
                fast,
                format_thousandths(thousandths, &mut buffer),
                "{thousandths}"
            );
        }
    }

    #[test]
    #[cfg(any(feature = "pdf", feature = "eps"))]
    fn words_put_the_table_numbers_together() {
        let mut words = Words::new();
        words.put(12_500);
        words.number(-224);
        words.number(1_000_000_500);
        words.number(-4_007_550);
        words.number(17_326_000);
        words.text(b" c");
        assert_eq!(words.as_bytes(), b"12.5 -.224 1000000.5 -4007.55 17326 c");
    }

    #[test]
    #[cfg(any(feature = "pdf", feature = "eps"))]
    fn transforms_keep_their_digits() {
        let mut out = b"[".to_vec();
        for value in [8.0, 0.0162, -34.5, 65.14513] {
            push_exact_word(&mut out, value);
        }
        assert_eq!(out, b"[8 0.0162 -34.5 65.145126343");
    }

    #[test]
    fn words_are_separated() {
        let mut pdf = b"0 0 m".to_vec();
        push_word(&mut pdf, -1.5);
        push_word(&mut pdf, 0.25);
        assert_eq!(pdf, b"0 0 m -1.5 .25");
    }
}
