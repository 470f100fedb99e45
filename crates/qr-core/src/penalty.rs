//! The mask penalty score of ISO/IEC 18004 section 7.8.3, computed a line at a time over bit words.
//!
//! The finder-like pattern rule follows the reading qrcodegen uses (a 1:1:3:1:1 dark-light run
//! pattern with four light modules on one side, the area outside the symbol counting as light), so
//! that both choose the same mask for the same modules.

use crate::canvas::{BitGrid, WORDS};
use crate::runs::{below, for_each_run};

const N1: u32 = 3;
const N2: u32 = 3;
const N3: u32 = 40;
const N4: u32 = 10;

/// The penalty score of a masked matrix given by rows and by columns, or `None` as soon as it is
/// known to be at least `give_up_at` (it cannot win then).
pub(crate) fn score(rows: &BitGrid, columns: &BitGrid, give_up_at: u32) -> Option<u32> {
    let size = rows.size();
    let mut total = balance(rows) + blocks(rows);
    for line in 0..size {
        total += line_score(rows.line(line), size) + line_score(columns.line(line), size);
        if total >= give_up_at {
            return None;
        }
    }
    Some(total)
}

/// Rule 4: ten points for every 5% the dark share strays from one half.
fn balance(rows: &BitGrid) -> u32 {
    let size = rows.size() as u32;
    let dark: u32 = rows.words().iter().map(|w| w.count_ones()).sum();
    let total = size * size;
    let deviation = (dark * 20).abs_diff(total * 10);
    // Round up, minus one: the same integer arithmetic as qrcodegen.
    (deviation.div_ceil(total)).saturating_sub(1) * N4
}

/// Rule 2: three points for every 2x2 block of one colour (overlapping blocks count separately).
fn blocks(rows: &BitGrid) -> u32 {
    let size = rows.size();
    let mut count = 0;
    for y in 0..size.saturating_sub(1) {
        let above = rows.line(y);
        let under = rows.line(y + 1);
        let mut same_vertical = [0u64; WORDS];
        let mut same_horizontal = [0u64; WORDS];
        for k in 0..WORDS {
            same_vertical[k] = !(above[k] ^ under[k]);
        }
        let next_vertical = shift_down(&same_vertical);
        let next_above = shift_down(above);
        for k in 0..WORDS {
            same_horizontal[k] = !(above[k] ^ next_above[k]);
        }
        for k in 0..WORDS {
            let valid = below(k, size - 1);
            count +=
                (same_vertical[k] & next_vertical[k] & same_horizontal[k] & valid).count_ones();
        }
    }
    count * N2
}

/// The line shifted so that position `x` holds what was at `x + 1`.
fn shift_down(line: &[u64]) -> [u64; WORDS] {
    let mut out = [0u64; WORDS];
    for k in 0..WORDS {
        let carry = if k + 1 < WORDS { line[k + 1] << 63 } else { 0 };
        out[k] = (line[k] >> 1) | carry;
    }
    out
}

/// Rules 1 and 3 along one line of `size` modules.
///
/// The line is widened by eight light modules on each side (the area outside the symbol counts as
/// light for rule 3), into as few words as fit, and scored with shifts and population counts.
fn line_score(line: &[u64], size: usize) -> u32 {
    match size + 2 * PAD {
        0..=64 => wide_line_score::<1>(line, size),
        65..=128 => wide_line_score::<2>(line, size),
        129..=192 => wide_line_score::<3>(line, size),
        _ => wide_line_score::<4>(line, size),
    }
}

/// Light modules added on each side of a line for pattern matching.
const PAD: usize = 8;

fn wide_line_score<const N: usize>(line: &[u64], size: usize) -> u32 {
    // Module x of the line is bit x + PAD of the wide line.
    let mut dark = [0u64; N];
    for (i, word) in dark.iter_mut().enumerate() {
        let low = line.get(i).copied().unwrap_or(0) << PAD;
        let carry = if i > 0 {
            line.get(i - 1).copied().unwrap_or(0) >> (64 - PAD)
        } else {
            0
        };
        *word = low | carry;
    }
    let mut inside = [0u64; N];
    for (i, word) in inside.iter_mut().enumerate() {
        *word = range_bits(i, PAD, PAD + size);
    }
    let light_inside = and(&not(&dark), &inside);
    let light = not(&dark);

    // Rule 1: a run of length L >= 5 scores N1 + (L - 5), which is (L - 4) windows of five plus N1 - 1.
    let mut score = 0;
    for run in [&dark, &light_inside] {
        let two = and(run, &shr(run, 1));
        let five = and(&and(&two, &shr(&two, 2)), &shr(run, 4));
        let starts = and(&five, &not(&shl(&five, 1)));
        if any(&five) {
            score += count(&five) + (N1 - 1) * count(&starts);
        }
    }

    // Rule 3. A pattern of scale n has a centre run of exactly 3n dark modules, so a line with no
    // dark run of exactly 6 and none of 9 or more holds only scale-1 patterns, matched in one pass
    // with shifts; other lines (a minority) take the run-by-run reading, which handles any scale.
    let two = and(&dark, &shr(&dark, 1));
    let four = and(&two, &shr(&two, 2));
    let six = and(&four, &shr(&two, 4));
    let nine = and(&and(&four, &shr(&four, 4)), &shr(&dark, 8));
    let exactly_six = and(&and(&six, &not(&shr(&dark, 6))), &not(&shl(&dark, 1)));
    let patterns = if any(&or(&exactly_six, &nine)) {
        finder_like_patterns_by_runs(line, size)
    } else {
        // Light, dark, light, dark x3, light, dark, light at p .. p + 8.
        let core = and(
            &and(
                &and(&light, &shr(&dark, 1)),
                &and(&shr(&light, 2), &shr(&dark, 3)),
            ),
            &and(
                &and(&shr(&dark, 4), &shr(&dark, 5)),
                &and(&and(&shr(&light, 6), &shr(&dark, 7)), &shr(&light, 8)),
            ),
        );
        let light_before = and(
            &and(&light, &shl(&light, 1)),
            &and(&shl(&light, 2), &shl(&light, 3)),
        );
        let light_after = and(
            &and(&shr(&light, 8), &shr(&light, 9)),
            &and(&shr(&light, 10), &shr(&light, 11)),
        );
        // Patterns are rare: most lines have no core at all.
        if any(&core) {
            count(&and(&core, &light_before)) + count(&and(&core, &light_after))
        } else {
            0
        }
    };
    score + patterns * N3
}

fn and<const N: usize>(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
    std::array::from_fn(|i| a[i] & b[i])
}

fn or<const N: usize>(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
    std::array::from_fn(|i| a[i] | b[i])
}

/// Whether any bit of `a` is set.
fn any<const N: usize>(a: &[u64; N]) -> bool {
    a.iter().any(|&word| word != 0)
}

fn not<const N: usize>(a: &[u64; N]) -> [u64; N] {
    std::array::from_fn(|i| !a[i])
}

/// Bit p of the result is bit p + k of `a` (zero past the end); 0 < k < 64.
fn shr<const N: usize>(a: &[u64; N], k: u32) -> [u64; N] {
    std::array::from_fn(|i| {
        let high = if i + 1 < N { a[i + 1] << (64 - k) } else { 0 };
        (a[i] >> k) | high
    })
}

/// Bit p of the result is bit p - k of `a` (zero before the start); 0 < k < 64.
fn shl<const N: usize>(a: &[u64; N], k: u32) -> [u64; N] {
    std::array::from_fn(|i| {
        let low = if i > 0 { a[i - 1] >> (64 - k) } else { 0 };
        (a[i] << k) | low
    })
}

fn count<const N: usize>(a: &[u64; N]) -> u32 {
    a.iter().map(|w| w.count_ones()).sum()
}

/// The bits of word `k` for positions in `start..end`.
fn range_bits(k: usize, start: usize, end: usize) -> u64 {
    below(k, end) & !below(k, start)
}

/// Rule 3 along one line, run by run, for any pattern scale.
fn finder_like_patterns_by_runs(line: &[u64], size: usize) -> u32 {
    let mut history = RunHistory::new(size as u32);
    let mut patterns = 0;
    if line[0] & 1 == 1 {
        // An empty light run before the first dark one; the border still counts as light.
        history.push(0);
    }
    let mut last = (false, 0);
    let mut previous: Option<(bool, usize)> = None;
    for_each_run(line, size, |dark, length| {
        // Each run enters the history when the next one starts; the last one is closed below.
        if let Some((was_dark, was_length)) = previous {
            history.push(was_length as u32);
            if !was_dark {
                patterns += history.finder_like_patterns();
            }
        }
        previous = Some((dark, length));
        last = (dark, length);
    });
    let (dark, length) = last;
    let mut length = length as u32;
    if dark {
        history.push(length);
        length = 0;
    }
    history.push(length + size as u32);
    patterns + history.finder_like_patterns()
}

/// The lengths of the last seven runs, newest first.
struct RunHistory {
    size: u32,
    runs: [u32; 7],
}

impl RunHistory {
    fn new(size: u32) -> RunHistory {
        RunHistory { size, runs: [0; 7] }
    }

    fn push(&mut self, mut length: u32) {
        if self.runs[0] == 0 {
            // The first run is light and extends into the border outside the symbol.
            length += self.size;
        }
        self.runs.copy_within(0..6, 1);
        self.runs[0] = length;
    }

    /// How many 1:1:3:1:1 patterns with four light modules on a side end at the newest light run.
    fn finder_like_patterns(&self) -> u32 {
        let r = &self.runs;
        let n = r[1];
        let core = n > 0 && r[2] == n && r[3] == n * 3 && r[4] == n && r[5] == n;
        u32::from(core && r[0] >= n * 4 && r[6] >= n)
            + u32::from(core && r[6] >= n * 4 && r[0] >= n)
    }
}
