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
