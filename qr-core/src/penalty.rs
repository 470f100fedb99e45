//! The mask penalty score of ISO/IEC 18004 section 7.8.3, computed a line at a time over bit words.
//!
//! The finder-like pattern rule follows the reading qrcodegen uses (a 1:1:3:1:1 dark-light run
//! pattern with four light modules on one side, the area outside the symbol counting as light), so
//! that both choose the same mask for the same modules.

use crate::grid::{BitGrid, WORDS};
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
    match rows.size() {
        0..=64 => blocks_in_words::<1>(rows),
        65..=128 => blocks_in_words::<2>(rows),
        _ => blocks_in_words::<WORDS>(rows),
    }
}

/// [`blocks`] for lines that fit in `N` words.
fn blocks_in_words<const N: usize>(rows: &BitGrid) -> u32 {
    let size = rows.size();
    if size < 2 {
        return 0;
    }
    let valid: [u64; N] = std::array::from_fn(|k| below(k, size.saturating_sub(1)));
    let line_words = |y: usize| -> [u64; N] { std::array::from_fn(|k| rows.line(y)[k]) };
    let mut count = 0;
    let mut above = line_words(0);
    for y in 1..size {
        let under = line_words(y);
        let same_vertical = not(&xor(&above, &under));
        let same_horizontal = not(&xor(&above, &shr(&above, 1)));
        let blocks = and(
            &and(&same_vertical, &shr(&same_vertical, 1)),
            &and(&same_horizontal, &valid),
        );
        count += self::count(&blocks);
        above = under;
    }
    count * N2
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

/// Light modules added on each side of a line for pattern matching: enough for the four light
/// modules of a pattern's side at scale 2 (the pattern rule counts the outside as light).
const PAD: usize = 8;

/// The dark modules of `line` as a wide line: module x is bit x + PAD.
fn widen<const N: usize>(line: &[u64]) -> [u64; N] {
    std::array::from_fn(|i| {
        let low = line.get(i).copied().unwrap_or(0) << PAD;
        let carry = if i > 0 {
            line.get(i - 1).copied().unwrap_or(0) >> (64 - PAD)
        } else {
            0
        };
        low | carry
    })
}

fn wide_line_score<const N: usize>(line: &[u64], size: usize) -> u32 {
    let dark = widen::<N>(line);
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

    // Rule 3. A pattern of scale n has a centre run of exactly 3n dark modules. Lines with no
    // dark run of 9 or more hold only patterns of scales 1 and 2, matched with shifts; the few
    // other lines take the run-by-run reading, which handles any scale.
    let runs = DarkRuns::of(&dark);
    let patterns = if any(&runs.nine) {
        finder_like_patterns_by_runs(line, size)
    } else {
        finder_like_patterns_by_shifts(&dark, &light, &runs.two, &runs.four)
    };
    score + patterns * N3
}

/// The starts of dark runs of at least 2, 4 and 9 modules in a widened line.
struct DarkRuns<const N: usize> {
    two: [u64; N],
    four: [u64; N],
    nine: [u64; N],
}

impl<const N: usize> DarkRuns<N> {
    fn of(dark: &[u64; N]) -> Self {
        let two = and(dark, &shr(dark, 1));
        let four = and(&two, &shr(&two, 2));
        let nine = and(&and(&four, &shr(&four, 4)), &shr(dark, 8));
        DarkRuns { two, four, nine }
    }
}

/// Rule 3 along one widened line (see [`wide_line_score`]) that holds no dark run of 9 or more,
/// so no pattern beyond scale 2: the number of 1:1:3:1:1 patterns with 4n light modules on one
/// side and at least n on the other, the reading of [`RunHistory::finder_like_patterns`].
///
/// `two` and `four` mark the starts of 2 and 4 dark modules in a row. A pattern of scale n is
/// found by its light module `p` just before it: `p` light, n dark, n light, 3n dark, n light,
/// n dark, then light again at `p + 7n + 1`.
fn finder_like_patterns_by_shifts<const N: usize>(
    dark: &[u64; N],
    light: &[u64; N],
    two: &[u64; N],
    four: &[u64; N],
) -> u32 {
    let light2 = and(light, &shr(light, 1));
    let light4 = and(&light2, &shr(&light2, 2));
    let mut patterns = 0;

    // Scale 1: light at p, p + 2, p + 6 and p + 8; dark at p + 1, p + 3 to p + 5 and p + 7.
    let core = and(
        &and(
            &and(light, &shr(dark, 1)),
            &and(&shr(light, 2), &shr(dark, 3)),
        ),
        &and(
            &and(&shr(dark, 4), &shr(dark, 5)),
            &and(&and(&shr(light, 6), &shr(dark, 7)), &shr(light, 8)),
        ),
    );
    // Patterns are rare: most lines have no core at all.
    if any(&core) {
        let light_before = shl(&light4, 3);
        let light_after = shr(&light4, 8);
        patterns += count(&and(&core, &light_before)) + count(&and(&core, &light_after));
    }

    // Scale 2 needs a dark run of exactly 6: most lines have none.
    let six = and(four, &shr(two, 4));
    let exactly_six = and(&and(&six, &not(&shr(dark, 6))), &not(&shl(dark, 1)));
    if any(&exactly_six) {
        // Light at p and p + 15, two light at p + 3 and at p + 11, two dark at p + 1 and at
        // p + 13, six dark at p + 5.
        let core = and(
            &and(
                &and(light, &shr(two, 1)),
                &and(&shr(&light2, 3), &shr(&six, 5)),
            ),
            &and(&and(&shr(&light2, 11), &shr(two, 13)), &shr(light, 15)),
        );
        if any(&core) {
            let light8 = and(&light4, &shr(&light4, 4));
            let before = (shl(&light8, 7), shl(&light2, 1));
            let after = (shr(&light8, 15), shr(&light2, 15));
            patterns += count(&and(&and(&core, &before.0), &after.1))
                + count(&and(&and(&core, &after.0), &before.1));
        }
    }
    patterns
}

fn and<const N: usize>(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
    std::array::from_fn(|i| a[i] & b[i])
}

/// Whether any bit of `a` is set.
fn any<const N: usize>(a: &[u64; N]) -> bool {
    a.iter().any(|&word| word != 0)
}

fn xor<const N: usize>(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
    std::array::from_fn(|i| a[i] ^ b[i])
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a line of `size` modules from runs: dark and light alternate, starting with `dark`.
    fn line_from_runs(first_dark: bool, runs: &[usize], size: usize) -> [u64; WORDS] {
        let mut line = [0u64; WORDS];
        let (mut x, mut dark) = (0, first_dark);
        for &run in runs {
            for _ in 0..run {
                if dark && x < size {
                    line[x / 64] |= 1 << (x % 64);
                }
                x += 1;
            }
            dark = !dark;
        }
        line
    }

    /// Asserts that the shift reading of rule 3 agrees with the run-by-run reading on `line`, or
    /// that `line` holds a dark run of 9 or more (which the shift reading leaves to the other).
    fn check<const N: usize>(line: &[u64; WORDS], size: usize) -> bool {
        let dark = widen::<N>(line);
        let runs = DarkRuns::of(&dark);
        if any(&runs.nine) {
            return false;
        }
        let by_runs = finder_like_patterns_by_runs(line, size);
        let by_shifts = finder_like_patterns_by_shifts(&dark, &not(&dark), &runs.two, &runs.four);
        assert_eq!(by_shifts, by_runs, "size {size}, line {line:x?}");
        by_runs > 0
    }

    fn check_any_width(line: &[u64; WORDS], size: usize) -> bool {
        match size + 2 * PAD {
            0..=64 => check::<1>(line, size),
            65..=128 => check::<2>(line, size),
            129..=192 => check::<3>(line, size),
            _ => check::<4>(line, size),
        }
    }

    #[test]
    fn shift_reading_of_patterns_matches_the_run_reading() {
        // Lines made of short runs with 1:1:3:1:1 patterns of scales 1 and 2 planted at random
        // places, including both ends, next to light runs of every length.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        let mut with_patterns = 0;
        for case in 0..20_000 {
            let size = 21 + 4 * (case % 40);
            let mut runs = Vec::new();
            let first_dark = next(2) == 0;
            let mut total = 0;
            while total < size {
                let run = if runs.len() % 2 == usize::from(first_dark) && next(4) == 0 {
                    // A light run, then a planted pattern: n, n, 3n, n, n (dark first).
                    let n = 1 + next(2);
                    runs.extend([1 + next(10), n, n, 3 * n, n, n]);
                    total += runs.iter().rev().take(6).sum::<usize>();
                    continue;
                } else {
                    1 + next(7)
                };
                runs.push(run);
                total += run;
            }
            let line = line_from_runs(first_dark, &runs, size);
            if check_any_width(&line, size) {
                with_patterns += 1;
            }
        }
        // The generator must actually exercise the pattern rule.
        assert!(with_patterns > 5_000, "{with_patterns} lines with patterns");
    }

    #[test]
    fn blocks_match_a_module_by_module_count() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for size in [21, 45, 63, 64, 65, 101, 127, 128, 129, 177] {
            for density in [2, 3, 7] {
                let mut rows = BitGrid::new(size);
                for y in 0..size {
                    for x in 0..size {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        rows.set(x, y, state.is_multiple_of(density));
                    }
                }
                let mut expected = 0;
                for y in 0..size - 1 {
                    for x in 0..size - 1 {
                        let colour = rows.get(x, y);
                        if rows.get(x + 1, y) == colour
                            && rows.get(x, y + 1) == colour
                            && rows.get(x + 1, y + 1) == colour
                        {
                            expected += N2;
                        }
                    }
                }
                assert_eq!(blocks(&rows), expected, "size {size}, density {density}");
            }
        }
    }

    #[test]
    fn patterns_at_the_ends_count_the_outside_as_light() {
        // Scale 2 at the left end: the outside supplies the eight light modules before it.
        let size = 21;
        let line = line_from_runs(true, &[2, 2, 6, 2, 2, 7], size);
        assert!(check_any_width(&line, size));
        // Scale 2 at the right end, and scale 1 at both ends.
        let line = line_from_runs(false, &[5, 2, 2, 6, 2, 2], size);
        assert!(check_any_width(&line, size));
        let line = line_from_runs(true, &[1, 1, 3, 1, 1, 9, 1, 1, 3, 1], size);
        assert!(check_any_width(&line, size));
    }
}
