//! LZ77 tokens: literals and matches of at most 258 bytes, and the cutting of longer matches into them.

#[cfg(feature = "png")]
use super::tables::{MAX_MATCH, MIN_MATCH};

/// One LZ77 token: a literal byte or a match of at most 258 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Token {
    /// The literal byte when `dist` is 0, otherwise the match length (3..=258).
    pub(super) len: u16,
    /// The match distance (1..=32768), or 0 for a literal.
    pub(super) dist: u16,
}

/// Calls `piece` with the tokens of a step of the path: a literal (`dist` 0), or a match of
/// `len` bytes cut into pieces of at most 258, last piece first.
#[inline]
#[cfg(feature = "png")]
pub(super) fn for_each_piece(len: u32, dist: u16, mut piece: impl FnMut(u16, u16)) {
    if dist == 0 || len as usize <= MAX_MATCH {
        piece(len as u16, dist);
        return;
    }
    // Pieces of 258, then what is left, except that the last piece may not be shorter than 3.
    let len = len as usize;
    let mut full = len / MAX_MATCH;
    let mut rest = len % MAX_MATCH;
    if rest > 0 && rest < MIN_MATCH {
        full -= 1;
        // The piece before the last gives up bytes so that the last has 3.
        piece(MIN_MATCH as u16, dist);
        piece((MAX_MATCH + rest - MIN_MATCH) as u16, dist);
        rest = 0;
    }
    if rest > 0 {
        piece(rest as u16, dist);
    }
    for _ in 0..full {
        piece(MAX_MATCH as u16, dist);
    }
}
