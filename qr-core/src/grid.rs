//! The square bit matrix of modules, stored line by line in 64-bit words, shared by placement, penalty and the writers.

/// 64-bit words per matrix line: enough for the 177 modules of version 40.
pub(crate) const WORDS: usize = 3;

/// A square bit matrix stored line by line, `WORDS` words per line, bit `x % 64` of word `x / 64`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BitGrid {
    size: usize,
    words: Vec<u64>,
}

impl BitGrid {
    pub(crate) fn new(size: usize) -> BitGrid {
        BitGrid {
            size,
            words: vec![0; size * WORDS],
        }
    }

    pub(crate) fn size(&self) -> usize {
        self.size
    }

    pub(crate) fn get(&self, x: usize, y: usize) -> bool {
        (self.words[y * WORDS + x / 64] >> (x % 64)) & 1 == 1
    }

    pub(crate) fn set(&mut self, x: usize, y: usize, value: bool) {
        let word = &mut self.words[y * WORDS + x / 64];
        let bit = 1u64 << (x % 64);
        if value {
            *word |= bit;
        } else {
            *word &= !bit;
        }
    }

    /// The words of line `y`.
    pub(crate) fn line(&self, y: usize) -> &[u64] {
        &self.words[y * WORDS..(y + 1) * WORDS]
    }

    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// Sets every line to `line`.
    pub(crate) fn fill_lines(&mut self, line: &[u64; WORDS]) {
        for words in self.words.chunks_exact_mut(WORDS) {
            words.copy_from_slice(line);
        }
    }

    /// Sets `self` to `grid` with the lines of `patterns` (repeating every twelve lines) applied
    /// to the modules that are not set in `function`, reusing `self`'s storage.
    pub(crate) fn set_masked(
        &mut self,
        grid: &BitGrid,
        function: &BitGrid,
        patterns: &[[u64; WORDS]; 12],
    ) {
        self.size = grid.size;
        self.words.resize(grid.words.len(), 0);
        let lines = self
            .words
            .chunks_exact_mut(WORDS)
            .zip(grid.words.chunks_exact(WORDS));
        let lines = lines.zip(function.words.chunks_exact(WORDS));
        for (((out, line), function), pattern) in lines.zip(patterns.iter().cycle()) {
            for k in 0..WORDS {
                out[k] = line[k] ^ (pattern[k] & !function[k]);
            }
        }
    }
}
