//! The input cut into segments (rows that differ from the row above) and copies, with the per-position run lengths the parser needs.

use super::adler32::Adler32;
use super::tables::{MIN_MATCH, WINDOW};

/// The number of bytes at the start of the data whose histogram guesses the first literal costs.
pub(super) const SAMPLE: usize = 4096;

/// A maximal run of rows that each differ from the row above, and the copies that follow it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Segment {
    /// The position of the first byte of the segment.
    pub(super) start: usize,
    /// The position just past the last byte of the segment, where its copies start.
    pub(super) end: usize,
    /// The number of bytes in the copies of the segment's last row that follow `end`.
    pub(super) copy_len: usize,
    /// The index of the node of `start`; the segment owns the nodes of `start..=end`.
    pub(super) base: usize,
}

/// The input cut into segments and copies, with the per-position facts the parser needs.
///
/// The parser works on *nodes*: one for every position of every segment, plus one for each
/// segment's `end` (the start of its copies, or the end of the data for the last segment).
pub(super) struct Layout<'a> {
    /// The whole input.
    pub(super) data: &'a [u8],
    /// The row length used to detect copies (equal to the input length when rows are not used).
    pub(super) stride: usize,
    /// The distance to the row above when it can be a match distance, otherwise 0.
    pub(super) row_dist: usize,
    /// The segments, in order; the last one ends at the end of the data and has no copies.
    pub(super) segments: Vec<Segment>,
    /// For each node, the length of the match at distance `row_dist` from its position, which for
    /// a node at or just before copies runs through the copies into the next segment.
    pub(super) row_run: Vec<u32>,
    /// For each node, the length of the match at distance 1 from its position, within its segment.
    pub(super) byte_run: Vec<u32>,
}

impl<'a> Layout<'a> {
    /// Cuts `data` into segments of rows of `stride` bytes; `stride` divides the length.
    pub(super) fn new(data: &'a [u8], stride: usize) -> Self {
        let n = data.len();
        let row_dist = if stride < n && stride <= WINDOW {
            stride
        } else {
            0
        };
        let mut segments = Vec::new();
        // Copies are only worth detecting when a whole row is at least one minimal match long.
        if row_dist >= MIN_MATCH {
            let mut start = 0;
            let mut end = stride;
            let mut copy_len = 0;
            let mut above = data.get(..stride).unwrap_or_default();
            for (index, row) in data.chunks_exact(stride).enumerate().skip(1) {
                if row == above {
                    copy_len += stride;
                } else {
                    let row_start = index * stride;
                    if copy_len == 0 {
                        end = row_start + stride;
                    } else {
                        segments.push(Segment {
                            start,
                            end,
                            copy_len,
                            base: 0,
                        });
                        start = row_start;
                        end = row_start + stride;
                        copy_len = 0;
                    }
                }
                above = row;
            }
            segments.push(Segment {
                start,
                end,
                copy_len,
                base: 0,
            });
            if copy_len > 0 {
                segments.push(Segment {
                    start: n,
                    end: n,
                    copy_len: 0,
                    base: 0,
                });
            }
        } else {
            segments.push(Segment {
                start: 0,
                end: n,
                copy_len: 0,
                base: 0,
            });
        }
        let mut nodes = 0;
        for segment in &mut segments {
            segment.base = nodes;
            nodes += segment.end - segment.start + 1;
        }

        let mut row_run = vec![0u32; nodes];
        let mut byte_run = vec![0u32; nodes];
        let mut next_start_run = 0u32;
        let mut next_start_byte_run = 0u32;
        for segment in segments.iter().rev() {
            let count = segment.end - segment.start;
            let (Some(rows), Some(bytes), Some(seg_data)) = (
                row_run.get_mut(segment.base..=segment.base + count),
                byte_run.get_mut(segment.base..=segment.base + count),
                data.get(segment.start..segment.end),
            ) else {
                continue;
            };
            let row_len = if segment.copy_len > 0 {
                next_start_run.saturating_add(segment.copy_len as u32)
            } else {
                0
            };
            // When the copied row is one repeated byte, the run of that byte goes on through the
            // copies into the next segment.
            let last_row = seg_data
                .get(count.saturating_sub(stride)..)
                .unwrap_or_default();
            let uniform = last_row
                .split_first()
                .is_some_and(|(first, rest)| rest.iter().all(|byte| byte == first));
            let byte_len = if segment.copy_len > 0 && uniform {
                next_start_byte_run.saturating_add(segment.copy_len as u32)
            } else {
                0
            };
            if row_dist > 0 {
                let above =
                    segment.start.max(row_dist) - row_dist..segment.end.saturating_sub(row_dist);
                fill_runs(rows, seg_data, data.get(above).unwrap_or_default(), row_len);
            } else {
                fill_runs(rows, seg_data, &[], row_len);
            }
            let before = segment.start.max(1) - 1..segment.end.saturating_sub(1);
            fill_runs(
                bytes,
                seg_data,
                data.get(before).unwrap_or_default(),
                byte_len,
            );
            next_start_run = rows.first().copied().unwrap_or(0);
            next_start_byte_run = bytes.first().copied().unwrap_or(0);
        }

        Layout {
            data,
            stride,
            row_dist,
            segments,
            row_run,
            byte_run,
        }
    }

    /// Returns the number of parser nodes.
    pub(super) fn node_count(&self) -> usize {
        self.segments
            .last()
            .map_or(0, |last| last.base + last.end - last.start + 1)
    }

    /// Returns the Adler-32 checksum of the data, summing each run of copies from its row's sums.
    pub(super) fn adler32(&self) -> u32 {
        let mut adler = Adler32::new();
        for segment in &self.segments {
            if let Some(bytes) = self.data.get(segment.start..segment.end) {
                adler.update(bytes);
            }
            if segment.copy_len > 0 && self.stride > 0 {
                let row = self
                    .data
                    .get(segment.end.saturating_sub(self.stride)..segment.end)
                    .unwrap_or_default();
                let mut row_sums = Adler32 { a: 0, b: 0 };
                row_sums.update(row);
                adler.append_copies(row.len(), row_sums, segment.copy_len / self.stride);
            }
        }
        adler.value()
    }

    /// Returns the byte histogram of the first [`SAMPLE`] bytes of the data, counting each run
    /// of copies from its row.
    pub(super) fn sample_histogram(&self) -> [u32; 256] {
        let mut histogram = [0u32; 256];
        let mut left = SAMPLE;
        for segment in &self.segments {
            let bytes = self
                .data
                .get(segment.start..segment.end)
                .unwrap_or_default();
            for &byte in bytes.iter().take(left) {
                histogram[usize::from(byte)] += 1;
            }
            left = left.saturating_sub(bytes.len());
            if segment.copy_len > 0 && left > 0 {
                let row = self
                    .data
                    .get(segment.end.saturating_sub(self.stride)..segment.end)
                    .unwrap_or_default();
                let copied = segment.copy_len.min(left);
                let (full, rest) = (copied / row.len().max(1), copied % row.len().max(1));
                for (index, &byte) in row.iter().enumerate() {
                    histogram[usize::from(byte)] += (full + usize::from(index < rest)) as u32;
                }
                left -= copied;
            }
            if left == 0 {
                break;
            }
        }
        histogram
    }
}

/// Fills `runs`, one entry per byte of `bytes` and one past them set to `tail`, with the length of
/// the match of each position against the bytes `earlier`, which end where `bytes` end (the first
/// positions have no earlier byte if `earlier` is shorter): how many bytes from there on equal
/// their earlier byte, counting `tail` more past the end if all of them do.
pub(super) fn fill_runs(runs: &mut [u32], bytes: &[u8], earlier: &[u8], tail: u32) {
    let Some((last, runs)) = runs.split_last_mut() else {
        return;
    };
    *last = tail;
    let skip = bytes.len().saturating_sub(earlier.len());
    let (without, with) = runs.split_at_mut(skip.min(runs.len()));
    without.fill(0);
    let mut run = tail;
    let pairs = with.iter_mut().zip(bytes.get(skip..).unwrap_or_default());
    for ((slot, &byte), &other) in pairs.zip(earlier).rev() {
        run = if byte == other {
            run.saturating_add(1)
        } else {
            0
        };
        *slot = run;
    }
}
