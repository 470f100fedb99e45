//! Random bytes from the operating system's CSPRNG.

use thiserror::Error;

/// The operating system could not provide random bytes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("the operating system's random number generator failed: {0}")]
pub struct RandomError(String);

/// Fills `buf` from the OS CSPRNG.
pub fn fill(buf: &mut [u8]) -> Result<(), RandomError> {
    getrandom::fill(buf).map_err(|e| RandomError(e.to_string()))
}

/// Returns `N` random bytes from the OS CSPRNG.
pub fn bytes<const N: usize>() -> Result<[u8; N], RandomError> {
    let mut buf = [0u8; N];
    fill(&mut buf)?;
    Ok(buf)
}

/// A fresh 256-bit secret as 64 lower-case hex digits (session cookies, one-time tokens).
pub fn hex_secret() -> Result<String, RandomError> {
    let raw: [u8; 32] = bytes()?;
    Ok(hex(&raw))
}

/// Bytes as lower-case hex digits.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// Whether two byte strings are equal, in time that depends only on their lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_hex_and_distinct() {
        let a = hex_secret().unwrap();
        assert_eq!(a.len(), 64);
        assert!(
            a.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_ne!(a, hex_secret().unwrap());
        assert_eq!(hex(&[0, 15, 255]), "000fff");
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd") && !constant_time_eq(b"ab", b"abc"));
    }
}
