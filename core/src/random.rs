//! OS randomness (std): seeds of random sequence starts, and the random bits of UUIDs, TypeIDs
//! and ULIDs, drawn from a per-thread ChaCha12 stream that the OS seeds.
//!
//! Why a stream and not the OS per call: a `getrandom` system call costs more than the rest of
//! minting a UUID, and a process-wide pool needs a lock that every thread then contends for.
//! ChaCha12 is the generator behind `rand`'s `ThreadRng` (which the `uuid` crate's `fast-rng`
//! uses): a cryptographic stream, unpredictable from its output. Each thread's stream is seeded
//! from the OS on first use, again after every 64 KiB of output, and again in a
//! forked child before its first byte, so a child never repeats its parent's bytes (nor the
//! parent's UUIDs: `core/tests/fork.rs`).

use core::cell::RefCell;

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha12Rng;

use crate::error::{Error, Result};
use crate::fork;

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

/// Bytes a thread's stream gives before it is seeded again from the OS (as `rand`'s
/// `ThreadRng`).
pub(crate) const RESEED_BYTES: usize = 64 * 1024;

/// Requests larger than this go to the OS directly: a stream pays off for small draws.
const STREAM_MAX: usize = 4096;

struct Stream {
    /// The fork generation the stream was seeded in.
    born: u64,
    /// Bytes left before the next seeding.
    left: usize,
    rng: ChaCha12Rng,
}

impl Stream {
    fn seeded() -> Result<Stream> {
        let mut seed = [0u8; 32];
        os_random_fill(&mut seed)?;
        Ok(Stream {
            born: fork::generation(),
            left: RESEED_BYTES,
            rng: ChaCha12Rng::from_seed(seed),
        })
    }
}

std::thread_local! {
    static STREAM: RefCell<Option<Stream>> = const { RefCell::new(None) };
}

/// What a draw from this thread's stream gave.
enum Drawn<T> {
    Bytes(T),
    /// The stream needed seeding and the OS refused.
    NoSeed,
    /// The thread is being torn down: its stream is gone, the OS is not.
    TornDown,
}

/// Runs `draw` on this thread's stream, counting `used` bytes against its reseeding; seeds it
/// first on first use, after [`RESEED_BYTES`] and in a forked child.
#[inline(always)]
fn from_stream<T>(used: usize, draw: impl FnOnce(&mut ChaCha12Rng) -> T) -> Drawn<T> {
    // The closure answers an `Option`, not a `Result`: `Error` is wide, and moving it through
    // two nested results cost more than drawing the bytes.
    let drawn = STREAM.try_with(|cell| {
        let mut slot = cell.borrow_mut();
        let s = match &mut *slot {
            Some(s) if s.born == fork::current() && s.left >= used => s,
            stale => match Stream::seeded() {
                Ok(fresh) => stale.insert(fresh),
                Err(_) => return None,
            },
        };
        s.left -= used;
        Some(draw(&mut s.rng))
    });
    match drawn {
        Ok(Some(v)) => Drawn::Bytes(v),
        Ok(None) => Drawn::NoSeed,
        Err(_) => Drawn::TornDown,
    }
}

/// Fills `out` with randomness: this thread's ChaCha12 stream for small requests (seeded from
/// the OS on first use, after every 64 KiB and in a forked child, so a child never
/// repeats its parent's bytes), the OS for large ones and while a thread is being torn down.
#[inline]
pub fn random_fill(out: &mut [u8]) -> Result<()> {
    if out.len() > STREAM_MAX {
        return os_random_fill(out);
    }
    // Whole words are taken from the stream (a 4-byte one for a tail of up to 4), so that many
    // bytes count against the reseeding.
    let rest = out.len() % 8;
    let used = out.len() - rest
        + if rest > 4 {
            8
        } else {
            rest.next_multiple_of(4)
        };
    let drawn = from_stream(used, |rng| {
        // Whole words from the stream's buffered block: for the few bytes an ID needs this is
        // a load and an index bump per word, where `fill_bytes` pays a copy call.
        let mut words = out.chunks_exact_mut(8);
        for w in &mut words {
            w.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        let rest = words.into_remainder();
        let n = rest.len();
        if n > 4 {
            rest.copy_from_slice(&rng.next_u64().to_le_bytes()[..n]);
        } else if n > 0 {
            rest.copy_from_slice(&rng.next_u32().to_le_bytes()[..n]);
        }
    });
    match drawn {
        Drawn::Bytes(()) => Ok(()),
        Drawn::NoSeed => Err(Error::RandomSource),
        Drawn::TornDown => os_random_fill(out),
    }
}

/// 32 random bits from this thread's stream (as [`random_fill`] of 4 bytes, without the
/// slice): one word of the stream's buffered block.
#[inline]
pub(crate) fn random_u32() -> Result<u32> {
    match from_stream(4, RngCore::next_u32) {
        Drawn::Bytes(v) => Ok(v),
        Drawn::NoSeed => Err(Error::RandomSource),
        Drawn::TornDown => os_random_u64().map(|v| v as u32),
    }
}

/// 64 random bits from this thread's stream (as [`random_fill`] of 8 bytes, without the
/// slice).
#[inline]
pub(crate) fn random_u64() -> Result<u64> {
    match from_stream(8, RngCore::next_u64) {
        Drawn::Bytes(v) => Ok(v),
        Drawn::NoSeed => Err(Error::RandomSource),
        Drawn::TornDown => os_random_u64(),
    }
}
