//! Prices of literals, match lengths and distances, in sixteenths of a bit, guessed or from the frequencies of a parse.

use super::tables::{
    DIST_EXTRA, DIST_SYMBOLS, END_OF_BLOCK, LENGTH_CODE, LENGTH_EXTRA, LITLEN_SYMBOLS, MAX_MATCH,
    MIN_MATCH, dist_code,
};
use super::token::{Token, for_each_piece};

/// The unit of costs: 1/16 bit.
pub(super) const COST_SCALE: u32 = 16;

/// The price, in units of 1/[`COST_SCALE`] bit, of every literal, match length and distance.
pub(super) struct CostModel {
    /// The cost of each literal byte.
    pub(super) literal: [u32; 256],
    /// The cost of each match length from 0 to 258, extra bits included (entries below 3 unused).
    pub(super) length: [u32; MAX_MATCH + 1],
    /// The cost of each distance code, extra bits included.
    pub(super) distance: [u32; DIST_SYMBOLS],
}

impl CostModel {
    /// Returns a first guess: literals priced by their frequency in `histogram` (of a sample of
    /// the data) or, if `flat`, at 8 bits each, and lengths and distances by the fixed code.
    pub(super) fn initial(histogram: &[u32; 256], flat: bool) -> Self {
        let mut literal = [8 * COST_SCALE; 256];
        if !flat {
            literal.copy_from_slice(&entropy_costs(histogram));
        }
        let mut litlen = [0u32; LITLEN_SYMBOLS];
        for (symbol, cost) in litlen.iter_mut().enumerate() {
            *cost = COST_SCALE * if symbol < 280 { 7 } else { 8 };
        }
        let mut model = CostModel {
            literal,
            length: [0; MAX_MATCH + 1],
            distance: [0; DIST_SYMBOLS],
        };
        model.set_match_costs(&litlen, &[5 * COST_SCALE; DIST_SYMBOLS]);
        model
    }

    /// Returns the costs of symbols with the given frequencies, by their entropy.
    pub(super) fn from_frequencies(litlen_freq: &[u32], dist_freq: &[u32]) -> Self {
        let litlen = entropy_costs(litlen_freq);
        let mut literal = [0u32; 256];
        literal.copy_from_slice(litlen.get(..256).unwrap_or(&[0; 256]));
        let mut model = CostModel {
            literal,
            length: [0; MAX_MATCH + 1],
            distance: [0; DIST_SYMBOLS],
        };
        model.set_match_costs(&litlen, &entropy_costs(dist_freq));
        model
    }

    /// Fills the length and distance tables from the costs of the symbols.
    pub(super) fn set_match_costs(&mut self, litlen: &[u32], dist: &[u32]) {
        let lengths = self.length.iter_mut().zip(&LENGTH_CODE).skip(MIN_MATCH);
        for (cost, &code) in lengths {
            let code = usize::from(code);
            let symbol = litlen.get(257 + code).copied().unwrap_or(15 * COST_SCALE);
            *cost = symbol + COST_SCALE * u32::from(LENGTH_EXTRA[code]);
        }
        for (code, cost) in self.distance.iter_mut().enumerate() {
            let symbol = dist.get(code).copied().unwrap_or(15 * COST_SCALE);
            *cost = symbol + COST_SCALE * u32::from(DIST_EXTRA[code]);
        }
    }

    /// Returns the model that prices every symbol at the lower of its costs in `self` and
    /// `other`.
    pub(super) fn cheapest(mut self, other: &CostModel) -> Self {
        let pairs = (self.literal.iter_mut().zip(&other.literal))
            .chain(self.length.iter_mut().zip(&other.length))
            .chain(self.distance.iter_mut().zip(&other.distance));
        for (cost, &other) in pairs {
            *cost = (*cost).min(other);
        }
        self
    }

    /// Returns the cost of a match of any length of at least 3, split into pieces of at most 258
    /// that each pay `dist_cost` for their distance.
    pub(super) fn long_match(&self, len: usize, dist_cost: u32) -> u32 {
        if len <= MAX_MATCH {
            return self.length[len.max(MIN_MATCH)] + dist_cost;
        }
        let pieces = (len / MAX_MATCH) as u32;
        let rest = len % MAX_MATCH;
        let full = self.length[MAX_MATCH] + dist_cost;
        match rest {
            0 => pieces * full,
            1 | 2 => {
                (pieces - 1) * full
                    + self.length[MAX_MATCH + rest - MIN_MATCH]
                    + self.length[MIN_MATCH]
                    + 2 * dist_cost
            }
            _ => pieces * full + self.length[rest] + dist_cost,
        }
    }

    /// Returns the cost of the distance code of `dist`, extra bits included.
    pub(super) fn distance(&self, dist: usize) -> u32 {
        self.distance[dist_code(dist)]
    }
}

/// Returns the cost of each symbol, in units of 1/[`COST_SCALE`] bit, from its frequency:
/// -log2 of its probability, at least 1 bit. An unused symbol costs 2 bits more than a symbol
/// used once, so the parser only picks it up when it saves a lot.
pub(super) fn entropy_costs(freqs: &[u32]) -> Vec<u32> {
    let total = f64::from(freqs.iter().sum::<u32>().max(1));
    let scale = f64::from(COST_SCALE);
    let unused = ((total.log2() + 2.0) * scale) as u32;
    freqs
        .iter()
        .map(|&freq| {
            if freq == 0 {
                unused
            } else {
                (((total / f64::from(freq)).log2() * scale) as u32).max(COST_SCALE)
            }
        })
        .collect()
}

/// The symbol frequencies of a parse.
pub(super) struct Frequencies {
    /// The frequency of each literal/length symbol.
    pub(super) litlen: [u32; LITLEN_SYMBOLS],
    /// The frequency of each distance symbol.
    pub(super) dist: [u32; DIST_SYMBOLS],
}

impl Frequencies {
    /// Returns the frequencies of an empty parse: one end-of-block symbol.
    pub(super) fn new() -> Self {
        let mut litlen = [0u32; LITLEN_SYMBOLS];
        litlen[END_OF_BLOCK] = 1;
        Frequencies {
            litlen,
            dist: [0; DIST_SYMBOLS],
        }
    }

    /// Counts a step of the path (see `Search::walk` in the parse).
    #[inline]
    pub(super) fn add(&mut self, len: u32, dist: u16) {
        for_each_piece(len, dist, |len, dist| self.add_token(Token { len, dist }));
    }

    /// Counts one token.
    #[inline]
    pub(super) fn add_token(&mut self, token: Token) {
        if token.dist == 0 {
            self.litlen[usize::from(token.len & 0xFF)] += 1;
        } else {
            let len = usize::from(token.len).min(MAX_MATCH);
            self.litlen[257 + usize::from(LENGTH_CODE[len])] += 1;
            self.dist[dist_code(usize::from(token.dist))] += 1;
        }
    }

    /// Returns the costs of the symbols, by their entropy.
    pub(super) fn costs(&self) -> CostModel {
        CostModel::from_frequencies(&self.litlen, &self.dist)
    }
}
