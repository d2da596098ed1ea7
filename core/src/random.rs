//! OS randomness (std): seeds of random sequence starts, random bits of UUIDs.

use crate::error::{Error, Result};

/// Draws 8 random bytes from the OS.
pub fn os_random_u64() -> Result<u64> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|_| Error::RandomSource)?;
    Ok(u64::from_le_bytes(b))
}

/// Fills `buf` from the OS random source.
pub fn os_random_fill(buf: &mut [u8]) -> Result<()> {
    getrandom::fill(buf).map_err(|_| Error::RandomSource)
}
