//! Runs of equal modules along a line of bit words, read by the mask penalty and the PNG and SVG writers.

use crate::grid::WORDS;

/// Calls `visit(dark, length)` for each run of equal modules along a line of `n` modules, in order.
pub(crate) fn for_each_run(line: &[u64], n: usize, mut visit: impl FnMut(bool, usize)) {
    let mut dark = line[0] & 1 == 1;
    let mut start = 0;
    for k in 0..line.len().min(WORDS) {
        let previous = if k == 0 {
            line[0] & 1
        } else {
            line[k - 1] >> 63
        };
        let mut changes = (line[k] ^ ((line[k] << 1) | previous)) & below(k, n);
        while changes != 0 {
            let x = k * 64 + changes.trailing_zeros() as usize;
            changes &= changes - 1;
            visit(dark, x - start);
            dark = !dark;
            start = x;
        }
    }
    visit(dark, n - start);
}

/// The line of `n` modules in reverse order.
#[cfg(feature = "svg")]
pub(crate) fn reversed(line: &[u64; WORDS], n: usize) -> [u64; WORDS] {
    // Reversing all 192 bits puts module x at bit 191 - x; shifting down by 192 - n moves it to n - 1 - x.
    let full: [u64; WORDS] = std::array::from_fn(|k| line[WORDS - 1 - k].reverse_bits());
    let shift = WORDS * 64 - n;
    let (words, bits) = (shift / 64, shift % 64);
    std::array::from_fn(|k| {
        let low = full.get(k + words).copied().unwrap_or(0);
        let high = full.get(k + words + 1).copied().unwrap_or(0);
        if bits == 0 {
            low
        } else {
            (low >> bits) | (high << (64 - bits))
        }
    })
}

/// The bits of word `k` that stand for positions below `limit`.
pub(crate) fn below(k: usize, limit: usize) -> u64 {
    let start = k * 64;
    if limit <= start {
        0
    } else if limit >= start + 64 {
        u64::MAX
    } else {
        (1u64 << (limit - start)) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "svg")]
    #[test]
    fn reversing_a_line_mirrors_its_modules() {
        for n in [21usize, 63, 64, 65, 128, 177] {
            let mut line = [0u64; WORDS];
            for x in (0..n).filter(|x| x % 3 == 0 || x % 7 == 1) {
                line[x / 64] |= 1 << (x % 64);
            }
            let back = reversed(&line, n);
            for x in 0..WORDS * 64 {
                let expected = x < n && (line[(n - 1 - x) / 64] >> ((n - 1 - x) % 64)) & 1 == 1;
                assert_eq!(
                    (back[x / 64] >> (x % 64)) & 1 == 1,
                    expected,
                    "n {n}, x {x}"
                );
            }
        }
    }

    #[test]
    fn runs_cover_the_line_in_order() {
        let line = [0b1100_0111u64, 0, 0];
        let mut runs = Vec::new();
        for_each_run(&line, 10, |dark, length| runs.push((dark, length)));
        assert_eq!(runs, vec![(true, 3), (false, 3), (true, 2), (false, 2)]);
    }
}
