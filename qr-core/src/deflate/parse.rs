//! The optimal parse: shortest-path searches over the segment positions, priced by a cost model, and the tokens of the cheapest path.

use super::cost::{CostModel, Frequencies};
use super::layout::{Layout, Segment};
use super::matches::{CONTINUED, Candidates};
use super::tables::{MAX_MATCH, MIN_MATCH};
use super::token::{Token, for_each_piece};

/// Shorter versions of a match are tried up to this length, and only where they end at a position
/// whose own longest match reaches past the full match; longer lengths are only tried in full.
pub(super) const SHORT_LENGTHS: usize = 64;
/// The cost of an unreachable position, larger than the cost of any real parse.
pub(super) const UNREACHABLE: u32 = u32::MAX;

/// The best known way of reaching one node.
#[derive(Clone, Copy)]
pub(super) struct Arrival {
    /// The cost of the cheapest known path to the node.
    pub(super) cost: u32,
    /// The node this path comes from.
    pub(super) from: u32,
    /// The literal byte (when `dist` is 0) or the match length of the last step of the path.
    pub(super) len: u32,
    /// The length of a match at the row distance that follows the last step, or 0 for none.
    pub(super) then: u32,
    /// The match distance of the last step, or 0 for a literal.
    pub(super) dist: u16,
}

/// The arrival of a node no path reaches yet.
pub(super) const NO_ARRIVAL: Arrival = Arrival {
    cost: UNREACHABLE,
    from: 0,
    len: 0,
    then: 0,
    dist: 0,
};

/// Lowers the cost of reaching `node` to `cost`, by a step of `len` and `dist` (followed by a
/// match of `then` bytes at the row distance) from `from`, if that is cheaper than the best known
/// way.
#[inline(always)]
pub(super) fn relax(
    arrivals: &mut [Arrival],
    node: usize,
    cost: u32,
    from: usize,
    len: u32,
    dist: u16,
) {
    relax_then(arrivals, node, cost, from, (len, dist), 0);
}

/// Like [`relax`], for a step made of the match `(len, dist)` followed by a match of `then`
/// bytes at the row distance.
#[inline(always)]
pub(super) fn relax_then(
    arrivals: &mut [Arrival],
    node: usize,
    cost: u32,
    from: usize,
    (len, dist): (u32, u16),
    then: u32,
) {
    if let Some(arrival) = arrivals.get_mut(node)
        && cost < arrival.cost
    {
        *arrival = Arrival {
            cost,
            from: from as u32,
            len,
            then,
            dist,
        };
    }
}

/// What the search needs to know about one segment and the next to place the end of a match.
pub(super) struct SegmentView {
    /// The position of the first byte of the segment.
    pub(super) start: usize,
    /// The number of bytes of the segment.
    pub(super) count: usize,
    /// The node of the segment's first position.
    pub(super) base: usize,
    /// The first position, last position and first node of the next segment (an empty range if
    /// there is none).
    pub(super) next: (usize, usize, usize),
    /// The length of the match at the row distance from the start of the copies.
    pub(super) end_run: usize,
    /// The cost of the row distance.
    pub(super) row_dist_cost: u32,
}

impl SegmentView {
    /// Returns the view of segment `index` of `layout`.
    pub(super) fn new(layout: &Layout<'_>, index: usize, row_dist_cost: u32) -> Self {
        let segment = layout.segments.get(index).copied().unwrap_or(Segment {
            start: 0,
            end: 0,
            copy_len: 0,
            base: 0,
        });
        let count = segment.end - segment.start;
        SegmentView {
            start: segment.start,
            count,
            base: segment.base,
            next: layout
                .segments
                .get(index + 1)
                .map_or((usize::MAX, 0, 0), |next| (next.start, next.end, next.base)),
            end_run: layout
                .row_run
                .get(segment.base + count)
                .copied()
                .unwrap_or(0) as usize,
            row_dist_cost,
        }
    }

    /// Relaxes the arrival at the end of the match `(len, dist)` whose distance costs
    /// `dist_cost`, from the node at `offset` in the segment reached at cost `here`; returns the
    /// node at the end of the match if it has one.
    ///
    /// A match that ends inside the copies is either cut at their start, or followed by the
    /// match at the row distance from its end.
    #[inline(always)]
    pub(super) fn relax(
        &self,
        arrivals: &mut [Arrival],
        costs: &CostModel,
        here: u32,
        offset: usize,
        (len, dist, dist_cost): (usize, u16, u32),
    ) -> Option<usize> {
        let node = self.base + offset;
        let room = self.count - offset;
        if len <= room && len <= MAX_MATCH {
            let cost = here + costs.length[len] + dist_cost;
            relax(arrivals, node + len, cost, node, len as u32, dist);
            return Some(node + len);
        }
        self.relax_far(arrivals, costs, here, offset, (len, dist, dist_cost))
    }

    /// [`SegmentView::relax`] for a match longer than 258 or than the rest of the segment.
    #[inline(never)]
    pub(super) fn relax_far(
        &self,
        arrivals: &mut [Arrival],
        costs: &CostModel,
        here: u32,
        offset: usize,
        (len, dist, dist_cost): (usize, u16, u32),
    ) -> Option<usize> {
        let node = self.base + offset;
        let room = self.count - offset;
        let end = self.start + offset + len;
        let (next_start, next_end, next_base) = self.next;
        let target = if len <= room {
            Some(node + len)
        } else if (next_start..=next_end).contains(&end) {
            Some(next_base + end - next_start)
        } else {
            None
        };
        if let Some(target) = target {
            let cost = here.saturating_add(costs.long_match(len, dist_cost));
            relax(arrivals, target, cost, node, len as u32, dist);
        } else if end < next_start {
            if room >= MIN_MATCH {
                let cost = here.saturating_add(costs.long_match(room, dist_cost));
                relax(arrivals, node + room, cost, node, room as u32, dist);
            }
            let rest = (self.end_run + self.start + self.count).saturating_sub(end);
            let after = end + rest;
            if rest >= MIN_MATCH && (next_start..=next_end).contains(&after) {
                let cost = here.saturating_add(
                    costs.long_match(len, dist_cost) + costs.long_match(rest, self.row_dist_cost),
                );
                let step = (len as u32, dist);
                relax_then(
                    arrivals,
                    next_base + after - next_start,
                    cost,
                    node,
                    step,
                    rest as u32,
                );
            }
        }
        target
    }
}

/// The state of the shortest-path search, kept between passes.
///
/// Each pass prices the tokens by the frequencies of the previous pass.
pub(super) struct Search {
    /// The match candidates of every node.
    pub(super) candidates: Candidates,
    /// The best known arrival at every node.
    pub(super) arrivals: Vec<Arrival>,
}

impl Search {
    /// Finds the candidates and allocates the search state for `layout`.
    pub(super) fn new(layout: &Layout<'_>) -> Self {
        Search {
            candidates: Candidates::find(layout),
            arrivals: vec![NO_ARRIVAL; layout.node_count()],
        }
    }

    /// Finds a cheap parse, starting from the guess `initial`, and returns its tokens.
    ///
    /// A greedy parse (the longest candidate everywhere) gives a first idea of the symbol
    /// frequencies; where the guess finds a symbol cheaper than that (a literal the greedy parse
    /// hardly uses, say), the guess wins, so the search keeps it in play. For a `tiny` alphabet a
    /// quick pass that takes every match in full is priced by that, and the full pass by the
    /// frequencies of its result; otherwise the full pass is priced by it directly.
    pub(super) fn refine(
        &mut self,
        layout: &Layout<'_>,
        initial: CostModel,
        tiny: bool,
    ) -> Vec<Token> {
        let mut costs = initial.cheapest(&self.greedy(layout).costs());
        if tiny {
            self.run(layout, &costs, false);
            let mut frequencies = Frequencies::new();
            self.walk(layout.row_dist, |len, dist| frequencies.add(len, dist));
            costs = frequencies.costs();
        }
        self.run(layout, &costs, true);
        self.tokens(layout)
    }

    /// Returns the symbol frequencies of a greedy parse: the longest candidate everywhere.
    pub(super) fn greedy(&self, layout: &Layout<'_>) -> Frequencies {
        let mut frequencies = Frequencies::new();
        let segments = &layout.segments;
        let (mut index, mut offset) = (0usize, 0usize);
        while let Some(segment) = segments.get(index) {
            let count = segment.end - segment.start;
            let (next_start, next_end) = segments
                .get(index + 1)
                .map_or((usize::MAX, 0), |next| (next.start, next.end));
            let node = segment.base + offset;
            let pos = segment.start + offset;
            let room = count - offset;
            let end_run = layout
                .row_run
                .get(segment.base + count)
                .copied()
                .unwrap_or(0) as usize;
            // The longest step: its length, its distance, the length of the match at the row
            // distance that follows it (or 0), whether it ends in the next segment, and the offset
            // it ends at there or in this segment.
            let mut best = (0usize, 0u16, 0usize, false, 0usize);
            for candidate in self.candidates.of(node) {
                let len = (candidate.len & !CONTINUED) as usize;
                if len <= best.0 {
                    continue;
                }
                let end = pos + len;
                if len <= room {
                    best = (len, candidate.dist, 0, false, offset + len);
                } else if (next_start..=next_end).contains(&end) {
                    best = (len, candidate.dist, 0, true, end - next_start);
                } else if end < next_start {
                    let rest = (end_run + segment.end).saturating_sub(end);
                    if rest >= MIN_MATCH && (next_start..=next_end).contains(&(end + rest)) {
                        best = (len, candidate.dist, rest, true, end + rest - next_start);
                    } else if room >= MIN_MATCH && room > best.0 {
                        best = (room, candidate.dist, 0, false, count);
                    }
                }
            }
            if best.0 >= MIN_MATCH {
                frequencies.add(best.0 as u32, best.1);
                if best.2 > 0 {
                    frequencies.add(best.2 as u32, layout.row_dist as u16);
                }
                if best.3 {
                    index += 1;
                }
                offset = best.4;
            } else if let Some(&byte) = layout.data.get(pos).filter(|_| room > 0) {
                frequencies.add(u32::from(byte), 0);
                offset += 1;
            } else {
                break;
            }
        }
        frequencies
    }

    /// Runs one shortest-path pass priced by `costs`. With `shorts`, shorter versions of the
    /// matches are tried too (see [`SHORT_LENGTHS`]); without, every match is only taken in full,
    /// which is enough for a first estimate of the symbol frequencies.
    pub(super) fn run(&mut self, layout: &Layout<'_>, costs: &CostModel, shorts: bool) {
        let Candidates {
            first,
            list,
            reach,
            nice,
        } = &self.candidates;
        let nice = *nice;
        let arrivals = &mut self.arrivals[..];
        for arrival in arrivals.iter_mut() {
            arrival.cost = UNREACHABLE;
        }
        if let Some(first) = arrivals.first_mut() {
            first.cost = 0;
        }
        let row_dist_cost = costs.distance(layout.row_dist.max(1));
        // Nodes below this one lie inside a long match that was taken as is.
        let mut skip_to = 0;
        for (index, segment) in layout.segments.iter().enumerate() {
            let view = SegmentView::new(layout, index, row_dist_cost);
            let count = segment.end - segment.start;
            let bytes = layout
                .data
                .get(segment.start..segment.end)
                .unwrap_or_default();
            let firsts = first
                .get(segment.base..segment.base + count + 2)
                .unwrap_or_default();
            let reaches = reach
                .get(segment.base..=segment.base + count)
                .unwrap_or_default();
            for (offset, bounds) in firsts.windows(2).enumerate() {
                let node = segment.base + offset;
                let Some(&Arrival { cost: here, .. }) = arrivals.get(node) else {
                    break;
                };
                if here == UNREACHABLE || node < skip_to {
                    continue;
                }
                if let Some(&byte) = bytes.get(offset) {
                    let cost = here.saturating_add(costs.literal[usize::from(byte)]);
                    relax(arrivals, node + 1, cost, node, u32::from(byte), 0);
                }
                let own = list
                    .get(bounds[0] as usize..bounds[1] as usize)
                    .unwrap_or_default();
                let mut longest = (0usize, 0usize);
                if !shorts {
                    for candidate in own {
                        let len = (candidate.len & !CONTINUED) as usize;
                        let dist_cost = costs.distance[usize::from(candidate.code)];
                        let step = (len, candidate.dist, dist_cost);
                        let target = view.relax(arrivals, costs, here, offset, step);
                        if len > longest.0 {
                            longest = (len, target.unwrap_or(0));
                        }
                    }
                } else {
                    // The candidates come by increasing distance, which mostly costs more: each
                    // offers a cheapest way only to the lengths the ones before it do not reach.
                    let room = count - offset;
                    let mut covered = MIN_MATCH - 1;
                    for candidate in own {
                        let len = (candidate.len & !CONTINUED) as usize;
                        if len <= covered {
                            continue;
                        }
                        let dist = candidate.dist;
                        let dist_cost = costs.distance[usize::from(candidate.code)];
                        // A shorter match is only worth ending where a match reaching past the
                        // end of this one starts; a continued match leaves that to the match it
                        // continues.
                        if candidate.len & CONTINUED == 0 {
                            let end = (segment.start + offset + len) as u32;
                            let short_end = len.min(SHORT_LENGTHS + 1).min(room + 1);
                            let ends = reaches.get(offset..offset + short_end).unwrap_or_default();
                            for (short, &short_reach) in ends.iter().enumerate().skip(covered + 1) {
                                if short_reach > end {
                                    let cost = here + costs.length[short] + dist_cost;
                                    relax(arrivals, node + short, cost, node, short as u32, dist);
                                }
                            }
                        }
                        let step = (len, dist, dist_cost);
                        let target = view.relax(arrivals, costs, here, offset, step);
                        if len > longest.0 {
                            longest = (len, target.unwrap_or(0));
                        }
                        covered = len;
                    }
                }
                if longest.0 >= nice {
                    skip_to = longest.1;
                }
            }
        }
    }

    /// Calls `step` with the (length, distance) of every step of the cheapest path to the last
    /// node, from the last to the first, a distance of 0 marking a literal (whose byte is the
    /// length), and a length possibly more than 258. Returns false if no path reaches the end.
    pub(super) fn walk(&self, row_dist: usize, mut step: impl FnMut(u32, u16)) -> bool {
        let last = self.arrivals.len().saturating_sub(1);
        if self
            .arrivals
            .get(last)
            .is_none_or(|arrival| arrival.cost == UNREACHABLE)
        {
            return false;
        }
        let mut node = last;
        while node > 0 {
            let Some(arrival) = self.arrivals.get(node) else {
                break;
            };
            if arrival.then > 0 {
                step(arrival.then, row_dist as u16);
            }
            step(arrival.len, arrival.dist);
            // Every step moves forward, so this walk ends.
            node = (arrival.from as usize).min(node - 1);
        }
        true
    }

    /// Returns the tokens of the cheapest path to the last node, or literals if there is none.
    pub(super) fn tokens(&self, layout: &Layout<'_>) -> Vec<Token> {
        let mut tokens = Vec::with_capacity(layout.node_count() / 2);
        let reached = self.walk(layout.row_dist, |len, dist| {
            for_each_piece(len, dist, |len, dist| tokens.push(Token { len, dist }));
        });
        if !reached {
            return layout
                .data
                .iter()
                .map(|&byte| Token {
                    len: u16::from(byte),
                    dist: 0,
                })
                .collect();
        }
        // The pieces of each match came in reverse order too, and they are all equal but the
        // last (see `for_each_piece`), so reversing the whole list puts everything in order.
        tokens.reverse();
        tokens
    }
}
