//! Match finding: for every position, the matches at distance 1, at the row distance and from a short hash chain.

use super::layout::Layout;
use super::tables::{MAX_MATCH, MIN_MATCH, WINDOW, dist_code};

/// How hard the search for matches works.
#[derive(Clone, Copy, Debug)]
pub(super) struct Effort {
    /// The most hash-chain entries visited at one position.
    pub(super) depth: usize,
    /// A match at least this long is taken as is: the parser skips the positions it covers, and
    /// the hash chain is not searched at a position that already has one.
    pub(super) nice: usize,
}

/// How hard the search works on data whose segments hold at least [`SMALL_INPUT`] bytes.
pub(super) const FULL_EFFORT: Effort = Effort {
    depth: 16,
    nice: 128,
};
/// How hard the search works on data whose segments hold fewer bytes than [`SMALL_INPUT`]:
/// small images are searched more lightly, for speed.
pub(super) const SMALL_EFFORT: Effort = Effort {
    depth: 4,
    nice: 128,
};
/// See [`SMALL_EFFORT`].
pub(super) const SMALL_INPUT: usize = 4096;
/// How hard the search works on data whose segments hold fewer bytes than [`TINY_INPUT`], the
/// common case of an image of a few hundred pixels with a small code. A shallow chain finds
/// nearly every useful match there, and a match of a few dozen bytes is nearly always a run of
/// rows best taken whole.
pub(super) const TINY_EFFORT: Effort = Effort { depth: 2, nice: 32 };
/// See [`TINY_EFFORT`].
pub(super) const TINY_INPUT: usize = 2048;
/// The number of bytes in the chain key of a position outside runs.
pub(super) const KEY_LEN: usize = 4;
/// Selects the first [`KEY_LEN`] bytes of a little-endian word.
pub(super) const KEY_MASK: u64 = u64::MAX >> (64 - 8 * KEY_LEN);

/// One match candidate of a node.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Candidate {
    /// The match length (at least 3, possibly more than 258), marked [`CONTINUED`] when the
    /// previous position has the same match one byte longer.
    pub(super) len: u32,
    /// The match distance.
    pub(super) dist: u16,
    /// The distance code of `dist`.
    pub(super) code: u8,
}

impl Candidate {
    /// Returns a candidate of `len` bytes (with its flags) at distance `dist`.
    #[inline]
    pub(super) fn new(len: u32, dist: usize) -> Self {
        Candidate {
            len,
            dist: dist as u16,
            code: dist_code(dist) as u8,
        }
    }
}

/// The match candidates of every node, found once and shared by all passes.
///
/// The candidates of a node are the match at distance 1, the match at the row distance, and the
/// matches from the hash chain that are longer than both, by increasing distance and length.
pub(super) struct Candidates {
    /// For each node, the index of its first candidate in `list`; one extra entry ends the last.
    pub(super) first: Vec<u32>,
    /// The candidates of all nodes.
    pub(super) list: Vec<Candidate>,
    /// For each node, the position just past its longest candidate (its own position if none).
    pub(super) reach: Vec<u32>,
    /// The length from which a match is taken as is (see [`Effort::nice`]).
    pub(super) nice: usize,
}

/// Marks a position without a chain key.
pub(super) const NO_HASH: u32 = u32::MAX;

impl Candidates {
    /// Returns the candidates of `node`.
    pub(super) fn of(&self, node: usize) -> &[Candidate] {
        let start = self.first.get(node).copied().unwrap_or(0) as usize;
        let end = self.first.get(node + 1).copied().unwrap_or(0) as usize;
        self.list.get(start..end).unwrap_or_default()
    }

    /// Finds the candidates of every segment position of `layout`.
    ///
    /// Kept out of line: inlined into [`zlib_compress`](super::zlib_compress), its loop runs short of registers.
    #[inline(never)]
    pub(super) fn find(layout: &Layout<'_>) -> Self {
        let data = layout.data;
        let n = data.len();
        let nodes = layout.node_count();
        let row_dist = layout.row_dist;
        let hash_bits = (usize::BITS - nodes.leading_zeros()).clamp(8, 15);
        let effort = if nodes < TINY_INPUT {
            TINY_EFFORT
        } else if nodes < SMALL_INPUT {
            SMALL_EFFORT
        } else {
            FULL_EFFORT
        };
        let mut chain = HashChain::new(hash_bits, nodes, effort.depth);
        let runs = RunDistances::new(row_dist);
        // Both arrays are filled node by node, in order, and the list mostly holds two or fewer
        // candidates a node: nothing needs zeroing, and the list rarely grows.
        let mut first = Vec::with_capacity(nodes + 1);
        let mut list = Vec::with_capacity(2 * nodes + 16);
        let mut reach = Vec::with_capacity(nodes);
        for segment in &layout.segments {
            let count = segment.end - segment.start;
            let nodes_of = segment.base..segment.base + count + 1;
            let byte_run = layout.byte_run.get(nodes_of.clone()).unwrap_or_default();
            let row_run = layout.row_run.get(nodes_of).unwrap_or_default();
            for offset in 0..count {
                let pos = segment.start + offset;
                first.push(list.len() as u32);
                let hash = chain.hash(data, pos, run_inside(byte_run, offset));
                let mut longest = runs.push(byte_run, row_run, offset, &mut list);
                // Hash-chain matches may run on into the copies after the segment.
                let limit = (n - pos).min(MAX_MATCH);
                if (longest as usize) < effort.nice && (longest as usize) < limit {
                    longest = chain.search(data, pos, hash, limit, longest, row_dist, &mut list);
                }
                chain.insert(hash, pos);
                reach.push((pos as u32).saturating_add(longest));
            }
            // The end node only has the matches that run through the copies.
            first.push(list.len() as u32);
            let longest = if segment.copy_len > 0 {
                runs.push(byte_run, row_run, count, &mut list)
            } else {
                0
            };
            reach.push((segment.end as u32).saturating_add(longest));
            if segment.copy_len > 0 {
                // Later rows see the copies through their last row, the nearest occurrence: the
                // entries of the segment's last row (the latest ones) move there.
                let row = layout.stride.min(count);
                let from = segment.end - row;
                let shift = segment.copy_len as u32;
                for entry in chain.entries.iter_mut().rev() {
                    if (entry.0 as usize) < from {
                        break;
                    }
                    entry.0 += shift;
                }
            }
        }
        first.push(list.len() as u32);
        Candidates {
            first,
            list,
            reach,
            nice: effort.nice,
        }
    }
}

/// Returns the number of bytes left in the run of equal bytes that the position at `offset` lies
/// inside of, or 0 if the position starts a run (differs from the byte before it); `byte_run`
/// holds the matches at distance 1 of the nodes of its segment.
#[inline]
pub(super) fn run_inside(byte_run: &[u32], offset: usize) -> usize {
    match byte_run.get(offset..offset + 2) {
        Some(&[run, next]) if run > 0 => 1 + next as usize,
        _ => 0,
    }
}

/// Marks a candidate that continues a candidate of the previous position: same distance, same end.
pub(super) const CONTINUED: u32 = 1 << 31;

/// The distances of the matches known without a search: 1 and the row distance, with their codes.
pub(super) struct RunDistances {
    /// The row distance, or 0 (or 1) when the rows give no match distance of their own.
    pub(super) row_dist: usize,
    /// The distance code of `row_dist`.
    pub(super) row_code: u8,
}

impl RunDistances {
    /// Returns the distances for rows `row_dist` apart.
    pub(super) fn new(row_dist: usize) -> Self {
        RunDistances {
            row_dist,
            row_code: dist_code(row_dist.max(1)) as u8,
        }
    }

    /// Appends to `list` the matches of the node at `offset` in its segment at distance 1 and at
    /// the row distance, and returns the longest length. A match is marked [`CONTINUED`] when the
    /// previous position in the segment had the same match one byte longer.
    #[inline]
    pub(super) fn push(
        &self,
        byte_run: &[u32],
        row_run: &[u32],
        offset: usize,
        list: &mut Vec<Candidate>,
    ) -> u32 {
        let mut longest = 0;
        let mut push = |run: &[u32], dist: usize, code: u8| {
            let len = run.get(offset).copied().unwrap_or(0);
            if len as usize >= MIN_MATCH {
                let continued = offset
                    .checked_sub(1)
                    .and_then(|previous| run.get(previous))
                    .is_some_and(|&previous| previous as usize > MIN_MATCH);
                let flags = if continued { CONTINUED } else { 0 };
                list.push(Candidate {
                    len: len | flags,
                    dist: dist as u16,
                    code,
                });
                longest = longest.max(len);
            }
        };
        push(byte_run, 1, 0);
        if self.row_dist > 1 {
            push(row_run, self.row_dist, self.row_code);
        }
        longest
    }
}

/// A hash chain over the keys of positions (see [`HashChain::hash`]), holding positions in
/// increasing order.
pub(super) struct HashChain {
    /// The number of bits of a hash.
    pub(super) bits: u32,
    /// The most chain entries visited by one search.
    pub(super) depth: usize,
    /// For each hash of a chain key, the index in `entries` of the most recent position.
    pub(super) head: Vec<u32>,
    /// The inserted positions, each with the index of the previous entry with the same hash.
    pub(super) entries: Vec<(u32, u32)>,
}

/// Marks the end of a hash chain.
pub(super) const NO_ENTRY: u32 = u32::MAX;

/// Returns the little-endian word of the 8 bytes of `data` at `at` (fewer at the end, padded with
/// zeros) and the number of bytes read.
#[inline]
pub(super) fn load(data: &[u8], at: usize) -> (u64, usize) {
    if let Some(bytes) = data.get(at..at + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        return (u64::from_le_bytes(word), 8);
    }
    let available = data.get(at..).unwrap_or_default();
    let word = available
        .iter()
        .rev()
        .fold(0u64, |word, &byte| word << 8 | u64::from(byte));
    (word, available.len())
}

impl HashChain {
    /// Returns an empty chain with `1 << bits` heads, room for `capacity` positions and searches
    /// of `depth` entries.
    pub(super) fn new(bits: u32, capacity: usize, depth: usize) -> Self {
        HashChain {
            bits,
            depth,
            head: vec![NO_ENTRY; 1 << bits],
            entries: Vec::with_capacity(capacity),
        }
    }

    /// Returns the chain key hash of `pos`, which lies inside a run of equal bytes with `run`
    /// bytes left (0 if `pos` starts a run), or [`NO_HASH`] if fewer than [`KEY_LEN`] bytes are
    /// left.
    ///
    /// The key of a position inside a long run is the byte, the length of the rest of the run
    /// and the bytes after it, so that the chain only holds runs that end at the same offset, the
    /// only ones that can match past the run (the match at distance 1 covers the run itself).
    /// A position that starts a run keeps the plain key, so it finds the starts of earlier runs.
    #[inline]
    pub(super) fn hash(&self, data: &[u8], pos: usize, run: usize) -> u32 {
        let (word, len) = load(data, pos);
        if len < KEY_LEN {
            return NO_HASH;
        }
        let key = if run >= KEY_LEN {
            let (after, _) = load(data, pos + run);
            let run_key = (run.min(0xFFFF) as u64) << 8;
            (1 << 63) | (after & 0xFF_FFFF) << 24 | run_key | (word & 0xFF)
        } else {
            word & KEY_MASK
        };
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as u32
    }

    /// Adds `pos`, whose hash is `hash`, to its chain.
    #[inline]
    pub(super) fn insert(&mut self, hash: u32, pos: usize) {
        if let Some(head) = self.head.get_mut(hash as usize) {
            let entry = self.entries.len() as u32;
            self.entries.push((pos as u32, *head));
            *head = entry;
        }
    }

    /// Appends to `out` the matches for `pos` (whose hash is `hash`) found on its chain that are
    /// longer than `longest` and every match before them, and returns the longest length.
    /// Distances 1 and `row_dist` are skipped, as they are known, and a match may not run past
    /// `limit` bytes.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn search(
        &self,
        data: &[u8],
        pos: usize,
        hash: u32,
        limit: usize,
        longest: u32,
        row_dist: usize,
        out: &mut Vec<Candidate>,
    ) -> u32 {
        let mut longest = longest as usize;
        let Some(here) = data.get(pos..pos + limit) else {
            return longest as u32;
        };
        let entries = &self.entries[..];
        let mut entry = self.head.get(hash as usize).copied().unwrap_or(NO_ENTRY);
        for _ in 0..self.depth {
            let Some(&(candidate, next)) = entries.get(entry as usize) else {
                break;
            };
            entry = next;
            let candidate = candidate as usize;
            let dist = pos.wrapping_sub(candidate);
            if dist > WINDOW {
                break;
            }
            if dist == 1 || dist == row_dist {
                continue;
            }
            // A candidate that differs at the byte just past the longest match cannot beat it.
            let Some(there) = data.get(candidate..candidate + limit) else {
                continue;
            };
            if let (Some(a), Some(b)) = (here.get(longest), there.get(longest))
                && a != b
            {
                continue;
            }
            let len = common_prefix(here, there);
            if len > longest && len >= MIN_MATCH {
                longest = len;
                out.push(Candidate::new(len as u32, dist));
                if len >= limit {
                    break;
                }
            }
        }
        longest as u32
    }
}

/// Returns the length of the common prefix of `x` and `y`.
#[inline]
pub(super) fn common_prefix(x: &[u8], y: &[u8]) -> usize {
    let end = x.len().min(y.len());
    let (x, y) = (
        x.get(..end).unwrap_or_default(),
        y.get(..end).unwrap_or_default(),
    );
    let mut len = 0;
    while let (Some(word_x), Some(word_y)) = (x.get(len..len + 8), y.get(len..len + 8)) {
        let mut bytes_x = [0u8; 8];
        let mut bytes_y = [0u8; 8];
        bytes_x.copy_from_slice(word_x);
        bytes_y.copy_from_slice(word_y);
        let diff = u64::from_le_bytes(bytes_x) ^ u64::from_le_bytes(bytes_y);
        if diff != 0 {
            return len + (diff.trailing_zeros() / 8) as usize;
        }
        len += 8;
    }
    while let (Some(byte_x), Some(byte_y)) = (x.get(len), y.get(len)) {
        if byte_x != byte_y {
            break;
        }
        len += 1;
    }
    len
}
