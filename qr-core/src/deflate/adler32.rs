//! The Adler-32 checksum of the zlib stream, with copies of a row summed from the row's own sums.

/// The modulus of Adler-32.
pub(super) const ADLER_MOD: u32 = 65521;
/// The most bytes that can be summed before the Adler-32 sums must be reduced to stay within `u32`.
pub(super) const ADLER_CHUNK: usize = 5552;

/// The running Adler-32 sums.
#[derive(Clone, Copy)]
pub(super) struct Adler32 {
    /// The sum of the bytes plus one, modulo 65521.
    pub(super) a: u32,
    /// The sum of the successive values of `a`, modulo 65521.
    pub(super) b: u32,
}

impl Adler32 {
    /// Returns the sums of the empty input.
    pub(super) fn new() -> Self {
        Adler32 { a: 1, b: 0 }
    }

    /// Adds `bytes` to the sums.
    pub(super) fn update(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(ADLER_CHUNK) {
            let (mut a, mut b) = (self.a, self.b);
            for &byte in chunk {
                a += u32::from(byte);
                b += a;
            }
            self.a = a % ADLER_MOD;
            self.b = b % ADLER_MOD;
        }
    }

    /// Adds `copies` copies of a block of `len` bytes whose own sums, started from zero, are
    /// `block`.
    ///
    /// Each copy adds `block.a` to `a`, and `len` times the `a` before it plus `block.b` to `b`;
    /// over `copies` copies that makes `copies * len * a + len * block.a * copies * (copies - 1)
    /// / 2 + copies * block.b`.
    #[cfg(feature = "png")]
    pub(super) fn append_copies(&mut self, len: usize, block: Adler32, copies: usize) {
        let modulus = u64::from(ADLER_MOD);
        let len = len as u64 % modulus;
        let copies = copies as u64;
        let pairs = (copies / 2 % modulus) * ((copies.saturating_sub(1)) % modulus) % modulus;
        let pairs = if copies.is_multiple_of(2) {
            pairs
        } else {
            // copies * (copies - 1) / 2 with copies odd: copies * ((copies - 1) / 2).
            (copies % modulus) * ((copies.saturating_sub(1) / 2) % modulus) % modulus
        };
        let copies = copies % modulus;
        let (a, block_a, block_b) = (u64::from(self.a), u64::from(block.a), u64::from(block.b));
        let b = u64::from(self.b)
            + copies * len % modulus * a % modulus
            + len * block_a % modulus * pairs % modulus
            + copies * block_b % modulus;
        self.a = ((a + copies * block_a) % modulus) as u32;
        self.b = (b % modulus) as u32;
    }

    /// Returns the checksum.
    pub(super) fn value(&self) -> u32 {
        (self.b << 16) | self.a
    }
}
