//! Optimal mixed-mode segmentation: split the input into numeric, alphanumeric and byte segments with the shortest bit stream.

/// An encoding mode of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Mode {
    /// Decimal digits, 10 bits per three digits.
    Numeric,
    /// Digits, upper-case letters and ` $%*+-./:`, 11 bits per two characters.
    Alphanumeric,
    /// Any byte, 8 bits each.
    Byte,
    /// Shift JIS double-byte characters, 13 bits each (see `EncodeOptions::kanji`).
    Kanji,
}

impl Mode {
    /// The 4-bit mode indicator.
    pub(crate) const fn indicator(self) -> u32 {
        match self {
            Mode::Numeric => 0b0001,
            Mode::Alphanumeric => 0b0010,
            Mode::Byte => 0b0100,
            Mode::Kanji => 0b1000,
        }
    }

    /// The width of the character count field in the version group `group` (0: 1-9, 1: 10-26, 2: 27-40).
    pub(crate) const fn count_bits(self, group: usize) -> usize {
        let widths = match self {
            Mode::Numeric => [10, 12, 14],
            Mode::Alphanumeric => [9, 11, 13],
            Mode::Byte => [8, 16, 16],
            Mode::Kanji => [8, 10, 12],
        };
        widths[group]
    }
}

/// A run of the input encoded in one mode: bytes `start..end` of the data (for a Kanji segment,
/// of the data converted to Shift JIS, two bytes a character).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// The segment's mode.
    pub mode: Mode,
    /// The index of the segment's first byte in the data.
    pub start: usize,
    /// The index one past the segment's last byte in the data.
    pub end: usize,
}

impl Segment {
    /// The number of bytes in the segment (two per character in Kanji mode).
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// The number of characters the segment's count field holds.
    pub(crate) fn characters(&self) -> usize {
        match self.mode {
            Mode::Kanji => self.len() / 2,
            _ => self.len(),
        }
    }

    /// Whether the segment has no characters.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// The value of an alphanumeric-mode character, or `None` when `byte` is not one.
pub(crate) const fn alphanumeric_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'A'..=b'Z' => Some(byte - b'A' + 10),
        b' ' => Some(36),
        b'$' => Some(37),
        b'%' => Some(38),
        b'*' => Some(39),
        b'+' => Some(40),
        b'-' => Some(41),
        b'.' => Some(42),
        b'/' => Some(43),
        b':' => Some(44),
        _ => None,
    }
}

/// Returns the segmentation of `data` with the fewest bits in version group `group`, and that bit count.
///
/// The search is exact: a shortest path over states that remember the mode of the current segment and
/// how many characters of its last incomplete numeric triple or alphanumeric pair are pending, so every
/// segment's cost is counted to the bit (header, count field and data).
pub(crate) fn optimal_segments(data: &[u8], group: usize) -> (Vec<Segment>, usize) {
    optimal_segments_with(data, |mode| Some(4 + mode.count_bits(group) as u32))
}

/// [`optimal_segments`] with the header cost (mode indicator and count field) of each mode given
/// by `header`, `None` for a mode the symbol does not allow (Micro QR's smaller versions).
/// Returns no segments and `usize::MAX` bits when some byte fits no allowed mode.
pub(crate) fn optimal_segments_with(
    data: &[u8],
    header: impl Fn(Mode) -> Option<u32>,
) -> (Vec<Segment>, usize) {
    if data.is_empty() {
        return (Vec::new(), 0);
    }
    let (numeric, alphanumeric, byte_mode) = (
        header(Mode::Numeric),
        header(Mode::Alphanumeric),
        header(Mode::Byte),
    );
    let n = data.len();
    // The best cost so far for each state, and for each position and state how it was reached.
    let mut cost = [INFINITE; STATES];
    let mut steps: Vec<[Step; STATES]> = Vec::with_capacity(n);
    for (i, &byte) in data.iter().enumerate() {
        let (best_previous, best_state) = if i == 0 {
            (0, NO_STATE)
        } else {
            cost.iter()
                .enumerate()
                .fold((INFINITE, NO_STATE), |(c, s), (state, &value)| {
                    if value < c {
                        (value, state as u8)
                    } else {
                        (c, s)
                    }
                })
        };
        let mut next = [INFINITE; STATES];
        let mut step = [Step::UNREACHABLE; STATES];
        let mut relax = |target: usize, value: u32, from: u8, new_segment: bool| {
            if value < next[target] {
                next[target] = value;
                step[target] = Step { from, new_segment };
            }
        };
        if let (true, Some(numeric)) = (byte.is_ascii_digit(), numeric) {
            relax(N1, best_previous + numeric + 4, best_state, true);
            relax(N1, cost[N0].saturating_add(4), N0 as u8, false);
            relax(N2, cost[N1].saturating_add(3), N1 as u8, false);
            relax(N0, cost[N2].saturating_add(3), N2 as u8, false);
        }
        if let (Some(_), Some(alphanumeric)) = (alphanumeric_value(byte), alphanumeric) {
            relax(A1, best_previous + alphanumeric + 6, best_state, true);
            relax(A1, cost[A0].saturating_add(6), A0 as u8, false);
            relax(A0, cost[A1].saturating_add(5), A1 as u8, false);
        }
        if let Some(byte_header) = byte_mode {
            relax(B, best_previous + byte_header + 8, best_state, true);
            relax(B, cost[B].saturating_add(8), B as u8, false);
        }
        cost = next;
        steps.push(step);
    }

    let (total, mut state) =
        cost.iter()
            .enumerate()
            .fold((INFINITE, 0usize), |(c, s), (state, &value)| {
                if value < c { (value, state) } else { (c, s) }
            });
    if total >= INFINITE {
        return (Vec::new(), usize::MAX);
    }
    // Walk the steps back, closing a segment wherever one was opened.
    let mut segments = Vec::new();
    let mut end = n;
    for i in (0..n).rev() {
        let step = steps[i][state];
        if step.new_segment {
            segments.push(Segment {
                mode: STATE_MODES[state],
                start: i,
                end,
            });
            end = i;
        }
        state = step.from as usize;
    }
    segments.reverse();
    (segments, total as usize)
}

/// The exact number of bits `segments` take in version group `group`, headers included.
pub(crate) fn bit_length(segments: &[Segment], group: usize) -> usize {
    segments
        .iter()
        .map(|segment| {
            let count = segment.characters();
            let payload = match segment.mode {
                Mode::Numeric => count / 3 * 10 + [0, 4, 7][count % 3],
                Mode::Alphanumeric => count / 2 * 11 + (count % 2) * 6,
                Mode::Byte => count * 8,
                Mode::Kanji => count * 13,
            };
            4 + segment.mode.count_bits(group) + payload
        })
        .sum()
}

/// States of the search: numeric with 1, 2 or 0 (a whole triple) pending digits, alphanumeric with
/// 1 or 0 pending characters, and byte.
const N1: usize = 0;
const N2: usize = 1;
const N0: usize = 2;
const A1: usize = 3;
const A0: usize = 4;
const B: usize = 5;
const STATES: usize = 6;
const STATE_MODES: [Mode; STATES] = [
    Mode::Numeric,
    Mode::Numeric,
    Mode::Numeric,
    Mode::Alphanumeric,
    Mode::Alphanumeric,
    Mode::Byte,
];
const INFINITE: u32 = u32::MAX / 2;
const NO_STATE: u8 = u8::MAX;

/// How a state at one position was reached: from which state at the previous position, and whether
/// a new segment starts at this position.
#[derive(Clone, Copy)]
struct Step {
    from: u8,
    new_segment: bool,
}

impl Step {
    const UNREACHABLE: Step = Step {
        from: NO_STATE,
        new_segment: false,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes(data: &str) -> Vec<(Mode, &str)> {
        let (segments, bits) = optimal_segments(data.as_bytes(), 0);
        assert_eq!(bits, bit_length(&segments, 0), "cost of {data:?}");
        segments
            .iter()
            .map(|s| (s.mode, &data[s.start..s.end]))
            .collect()
    }

    #[test]
    fn single_mode_inputs_stay_in_one_segment() {
        use Mode::*;
        assert_eq!(modes(""), vec![]);
        assert_eq!(modes("0123456789"), vec![(Numeric, "0123456789")]);
        assert_eq!(modes("HELLO WORLD"), vec![(Alphanumeric, "HELLO WORLD")]);
        assert_eq!(modes("hello"), vec![(Byte, "hello")]);
        assert_eq!(modes("héllo"), vec![(Byte, "héllo")]);
    }

    #[test]
    fn long_runs_get_their_own_segments() {
        use Mode::*;
        assert_eq!(
            modes("hello 12345678901234567890"),
            vec![(Byte, "hello "), (Numeric, "12345678901234567890")]
        );
        assert_eq!(
            modes("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
            vec![(
                Alphanumeric,
                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            )]
        );
    }

    #[test]
    fn short_runs_are_not_worth_a_switch() {
        use Mode::*;
        assert_eq!(modes("a1b2c3"), vec![(Byte, "a1b2c3")]);
        assert_eq!(modes("A1"), vec![(Alphanumeric, "A1")]);
    }

    /// Every segmentation's cost is at least the optimum: checked against all splits of short strings.
    #[test]
    fn optimum_is_no_worse_than_any_split_of_short_inputs() {
        let alphabet = [b'1', b'A', b'a', b' '];
        for len in 1..=6usize {
            for code in 0..alphabet.len().pow(len as u32) {
                let mut c = code;
                let data: Vec<u8> = (0..len)
                    .map(|_| {
                        let b = alphabet[c % alphabet.len()];
                        c /= alphabet.len();
                        b
                    })
                    .collect();
                for group in 0..3 {
                    let (_, best) = optimal_segments(&data, group);
                    assert_eq!(best, brute_force(&data, group), "{data:?} group {group}");
                }
            }
        }
    }

    fn brute_force(data: &[u8], group: usize) -> usize {
        // Every split of the data into runs, each run in the cheapest mode it allows.
        let n = data.len();
        let mut best = vec![usize::MAX; n + 1];
        best[0] = 0;
        for end in 1..=n {
            for start in 0..end {
                let run = &data[start..end];
                for mode in [Mode::Numeric, Mode::Alphanumeric, Mode::Byte] {
                    let allowed = run.iter().all(|&b| match mode {
                        Mode::Numeric => b.is_ascii_digit(),
                        Mode::Alphanumeric => alphanumeric_value(b).is_some(),
                        _ => true,
                    });
                    if allowed && best[start] != usize::MAX {
                        let segment = Segment { mode, start, end };
                        let cost = best[start] + bit_length(&[segment], group);
                        best[end] = best[end].min(cost);
                    }
                }
            }
        }
        best[n]
    }
}
