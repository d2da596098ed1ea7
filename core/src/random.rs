//! OS randomness (std): seeds of random sequence starts, and random bits of UUIDs drawn through
//! a process-wide, fork-aware pool.

use crate::error::{Error, Result};
use crate::fork::{self, ForkLock};

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

const POOL_BYTES: usize = 4096;

/// OS randomness drawn 4 KiB at a time, so a UUID costs a copy instead of a `getrandom` call.
/// Handed-out bytes are wiped and never reused; a forked child discards the inherited pool.
struct Pool {
    born: u64,
    pos: usize,
    buf: [u8; POOL_BYTES],
}

static POOL: ForkLock<Pool> = ForkLock::new(Pool {
    born: u64::MAX,
    pos: POOL_BYTES,
    buf: [0; POOL_BYTES],
});

/// Fills `out` with OS randomness through the process-wide, fork-aware pool.
pub fn random_fill(out: &mut [u8]) -> Result<()> {
    if out.len() > POOL_BYTES / 16 {
        return os_random_fill(out);
    }
    let mut p = POOL.lock();
    let now = fork::generation();
    if p.born != now {
        p.born = now;
        p.pos = POOL_BYTES;
    }
    if POOL_BYTES - p.pos < out.len() {
        os_random_fill(&mut p.buf)?;
        p.pos = 0;
    }
    let (start, end) = (p.pos, p.pos + out.len());
    let src = &mut p.buf[start..end];
    out.copy_from_slice(src);
    src.fill(0);
    p.pos = end;
    Ok(())
}
