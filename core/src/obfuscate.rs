//! Keyed bijections over an ID's bits, so public IDs stop leaking order volume and node layout.
//!
//! A Snowflake ID is a readable record: its time says when, its node says which machine, and
//! consecutive sequence numbers say how many orders a shop takes per millisecond. Where IDs
//! are shown to outsiders they should look irregular. These types scramble the bits with a
//! keyed permutation that only holders of the key can undo, while keeping the IDs the same
//! width (so they still fit the same columns and JavaScript numbers):
//!
//! * [`Obfuscator`] permutes all `bits` bits: IDs look uniformly random and lose time order.
//! * [`SortableObfuscator`] permutes only the bits below a layout's time field: IDs still sort
//!   by time across ticks, but node and sequence are hidden.
//!
//! The permutation is an 8-round Feistel network whose round function is a keyed
//! multiply-xorshift mixer (the SplitMix64 finaliser). **This is obfuscation, not encryption**:
//! it has not been analysed as a cipher, small domains can be brute-forced, and anyone who
//! sees many (ID, position) pairs may learn the permutation. Keep the key secret anyway, and
//! do not use it where confidentiality actually matters.
//!
//! # Examples
//! ```
//! use idmint::obfuscate::Obfuscator;
//!
//! let key = 0x0123_4567_89ab_cdef_0011_2233_4455_6677;
//! let ob = Obfuscator::new(key, 53)?; // JavaScript-safe IDs stay JavaScript-safe
//! let public = ob.encode(1)?;
//! assert!(public < 1 << 53);
//! assert_eq!(ob.decode(public)?, 1);
//! # Ok::<(), idmint::Error>(())
//! ```

use core::fmt;

use crate::error::{Error, Result};
use crate::field_name::Name;
use crate::snowflake::layout::{mask, Layout};

/// Feistel rounds. Four already give a pseudo-random permutation for a random round function;
/// eight leave margin for the cheap mixer and tiny half-widths.
const ROUNDS: usize = 8;

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finaliser: a fast bijective mixer in which every input bit affects every
/// output bit.
const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A keyed permutation of `[0, 2^bits)`, for `bits` in `2..=64`.
///
/// For an odd width the two Feistel halves differ by one bit and swap sizes every round (an
/// alternating unbalanced Feistel network, as in NIST FF1), so the permutation covers exactly
/// `[0, 2^bits)`: no cycle-walking is needed and every call costs the same.
///
/// The key schedule mixes in `bits`, so one key gives unrelated permutations for different
/// widths. `Debug` prints only the width, never key material.
///
/// # Examples
/// ```
/// use idmint::obfuscate::Obfuscator;
///
/// // A key from bytes (any fixed byte order works, as long as it is always the same one).
/// let key = u128::from_le_bytes(*b"sixteen byte key");
/// let ob = Obfuscator::new(key, 16)?;
/// let ids: Vec<u64> = (0..4).map(|i| ob.encode(i)).collect::<Result<_, _>>()?;
/// assert!(ids.windows(2).any(|w| w[0] > w[1])); // no longer in order
/// assert!(ob.encode(1 << 16).is_err()); // outside the domain
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Obfuscator {
    bits: u8,
    keys: [[u64; 2]; ROUNDS],
}

impl Obfuscator {
    /// Builds the permutation of `[0, 2^bits)` selected by `key`; `bits` must be in `2..=64`.
    pub const fn new(key: u128, bits: u8) -> Result<Obfuscator> {
        if bits < 2 || bits > 64 {
            return Err(Error::InvalidConfig {
                reason: "obfuscation needs a width of 2..=64 bits",
            });
        }
        let lo = key as u64;
        let hi = (key >> 64) as u64;
        let mut state = lo ^ mix(hi ^ mix(bits as u64 ^ GOLDEN));
        let mut keys = [[0u64; 2]; ROUNDS];
        let mut i = 0;
        while i < ROUNDS {
            state = state.wrapping_add(GOLDEN);
            let a = mix(state);
            state = state.wrapping_add(GOLDEN);
            let b = mix(state ^ hi);
            keys[i] = [a, b];
            i += 1;
        }
        Ok(Obfuscator { bits, keys })
    }

    /// A full-width permutation for IDs of `layout`: everything, time included, is hidden, so
    /// the obfuscated IDs no longer sort by time. See [`SortableObfuscator`] to keep that.
    pub const fn for_layout(key: u128, layout: &Layout) -> Result<Obfuscator> {
        Obfuscator::new(key, layout.width())
    }

    /// The width of the domain, in bits.
    pub const fn bits(&self) -> u8 {
        self.bits
    }

    /// The largest value in the domain (`2^bits - 1`).
    pub const fn max(&self) -> u64 {
        mask(self.bits)
    }

    /// Maps `x` to its obfuscated image; fails with [`Error::OutOfRange`] (field `id`) if
    /// `x` is outside `[0, 2^bits)`.
    pub fn encode(&self, x: u64) -> Result<u64> {
        self.check(x)?;
        Ok(self.permute(x))
    }

    /// Inverts [`encode`](Self::encode); fails like it for values outside the domain.
    pub fn decode(&self, y: u64) -> Result<u64> {
        self.check(y)?;
        Ok(self.unpermute(y))
    }

    fn check(&self, x: u64) -> Result<()> {
        if x > self.max() {
            return Err(Error::OutOfRange {
                field: Name::lit("id"),
                value: x,
                max: self.max(),
            });
        }
        Ok(())
    }

    /// Widths of the left (high) and right (low) halves of the input.
    const fn halves(&self) -> (u8, u8) {
        let left = self.bits / 2;
        (left, self.bits - left)
    }

    /// The round function, truncated to `out_bits` (1..=32) taken from the mixer's high bits.
    fn round(&self, i: usize, r: u64, out_bits: u8) -> u64 {
        let [a, b] = self.keys.get(i).copied().unwrap_or([0, 0]);
        let z = mix(mix(r ^ a) ^ b);
        z >> (64 - u32::from(out_bits))
    }

    fn permute(&self, x: u64) -> u64 {
        let (mut lb, mut rb) = self.halves();
        let mut l = x >> rb;
        let mut r = x & mask(rb);
        for i in 0..ROUNDS {
            // (L, R) -> (R, L ^ F(R)); the halves trade widths when they differ.
            let nr = l ^ self.round(i, r, lb);
            l = r;
            r = nr;
            core::mem::swap(&mut lb, &mut rb);
        }
        (l << rb) | r
    }

    fn unpermute(&self, y: u64) -> u64 {
        // ROUNDS is even, so the halves end with the widths they started with.
        let (mut lb, mut rb) = self.halves();
        let mut l = y >> rb;
        let mut r = y & mask(rb);
        for i in (0..ROUNDS).rev() {
            // Undo (L, R) -> (R, L ^ F(R)): the previous R is our L.
            let pl = r ^ self.round(i, l, rb);
            r = l;
            l = pl;
            core::mem::swap(&mut lb, &mut rb);
        }
        (l << rb) | r
    }
}

impl fmt::Debug for Obfuscator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Obfuscator")
            .field("bits", &self.bits)
            .finish_non_exhaustive()
    }
}

/// Obfuscates the bits below a layout's time field and leaves the time field (and anything
/// above it) untouched.
///
/// Two IDs from different ticks therefore keep their order — database indexes stay
/// append-mostly and the creation time stays readable — while the node and the sequence
/// (how many IDs a node issued in that tick) are hidden. Within one tick the order is
/// scrambled. The time itself is *not* hidden; use a full [`Obfuscator`] for that.
///
/// # Examples
/// ```
/// use idmint::{obfuscate::SortableObfuscator, Layout, Parts};
///
/// let layout = Layout::preset("twitter")?;
/// let ob = SortableObfuscator::new(42, &layout)?;
/// let a = layout.compose(&Parts { time: 10, node: 3, sequence: 0, rollback: 0 })?;
/// let b = layout.compose(&Parts { time: 11, node: 3, sequence: 0, rollback: 0 })?;
/// let (pa, pb) = (ob.encode(a)?, ob.encode(b)?);
/// assert!(pa < pb);
/// assert_eq!(layout.timestamp_ms(pa), layout.timestamp_ms(a));
/// assert_eq!(ob.decode(pa)?, a);
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct SortableObfuscator {
    inner: Obfuscator,
    max_id: u64,
}

impl SortableObfuscator {
    /// Builds the obfuscator for `layout`'s IDs; fails with [`Error::InvalidConfig`] if fewer
    /// than 2 bits lie below the time field (there is nothing worth permuting).
    pub const fn new(key: u128, layout: &Layout) -> Result<SortableObfuscator> {
        let low = layout.time_field().shift;
        if low < 2 {
            return Err(Error::InvalidConfig {
                reason: "sortable obfuscation needs at least 2 bits below the time field",
            });
        }
        match Obfuscator::new(key, low) {
            Ok(inner) => Ok(SortableObfuscator {
                inner,
                max_id: layout.max_id(),
            }),
            Err(e) => Err(e),
        }
    }

    /// How many low bits (those below the time field) are permuted.
    pub const fn low_bits(&self) -> u8 {
        self.inner.bits()
    }

    /// Obfuscates the low bits of `id`; fails with [`Error::OutOfRange`] (field `id`) if
    /// `id` exceeds the layout's [`max_id`](Layout::max_id).
    pub fn encode(&self, id: u64) -> Result<u64> {
        self.check(id)?;
        let low = self.inner.max();
        Ok((id & !low) | self.inner.permute(id & low))
    }

    /// Inverts [`encode`](Self::encode).
    pub fn decode(&self, id: u64) -> Result<u64> {
        self.check(id)?;
        let low = self.inner.max();
        Ok((id & !low) | self.inner.unpermute(id & low))
    }

    fn check(&self, id: u64) -> Result<()> {
        if id > self.max_id {
            return Err(Error::OutOfRange {
                field: Name::lit("id"),
                value: id,
                max: self.max_id,
            });
        }
        Ok(())
    }
}

impl fmt::Debug for SortableObfuscator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SortableObfuscator")
            .field("low_bits", &self.low_bits())
            .field("max_id", &self.max_id)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use crate::snowflake::layout::Parts;
    use proptest::prelude::*;
    use std::vec;

    const KEYS: [u128; 3] = [0, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210, u128::MAX];

    #[test]
    fn exhaustive_bijection_on_small_widths() {
        for bits in 2..=16u8 {
            for key in KEYS {
                let ob = Obfuscator::new(key, bits).unwrap();
                let n = 1usize << bits;
                let mut seen = vec![false; n];
                for x in 0..n as u64 {
                    let y = ob.encode(x).unwrap();
                    assert!(y < n as u64, "bits {bits}: {x} -> {y} out of range");
                    assert!(!seen[y as usize], "bits {bits}: collision at {y}");
                    seen[y as usize] = true;
                    assert_eq!(ob.decode(y).unwrap(), x);
                }
            }
        }
    }

    #[test]
    fn widths_are_checked() {
        for bits in [0, 1, 65, 255] {
            assert_eq!(
                Obfuscator::new(1, bits).unwrap_err().kind(),
                crate::error::ErrorKind::InvalidConfig
            );
        }
        let ob = Obfuscator::new(1, 10).unwrap();
        assert_eq!(
            ob.encode(1024),
            Err(Error::OutOfRange {
                field: Name::lit("id"),
                value: 1024,
                max: 1023
            })
        );
        assert!(ob.decode(u64::MAX).is_err());
        let full = Obfuscator::new(1, 64).unwrap();
        assert_eq!(
            full.decode(full.encode(u64::MAX).unwrap()).unwrap(),
            u64::MAX
        );
    }

    #[test]
    fn keys_and_widths_select_different_permutations() {
        for bits in [8u8, 13, 32, 64] {
            let a = Obfuscator::new(1, bits).unwrap();
            let b = Obfuscator::new(2, bits).unwrap();
            let c = Obfuscator::new(1 << 64, bits).unwrap();
            let differs = |p: &Obfuscator, q: &Obfuscator| {
                (0..64).any(|x| p.encode(x).unwrap() != q.encode(x).unwrap())
            };
            assert!(differs(&a, &b), "bits {bits}");
            assert!(differs(&a, &c), "bits {bits}");
        }
        let a = Obfuscator::new(7, 20).unwrap();
        let b = Obfuscator::new(7, 21).unwrap();
        assert!((0..64).any(|x| a.encode(x).unwrap() != b.encode(x).unwrap()));
    }

    #[test]
    fn looks_scrambled() {
        // Consecutive inputs should not map to nearby outputs (a loose sanity check, not a test
        // of quality): on average about half the bits should differ.
        let ob = Obfuscator::new(99, 63).unwrap();
        let total: u32 = (0..1000u64)
            .map(|x| (ob.encode(x).unwrap() ^ ob.encode(x + 1).unwrap()).count_ones())
            .sum();
        let avg = total as f64 / 1000.0;
        assert!((26.0..37.0).contains(&avg), "average flipped bits {avg}");
    }

    #[test]
    fn debug_hides_keys() {
        let s = std::format!("{:?}", Obfuscator::new(0xdead_beef, 12).unwrap());
        assert_eq!(s, "Obfuscator { bits: 12, .. }");
    }

    #[test]
    fn for_layout_covers_the_width() {
        let l = Layout::preset("sonyflake").unwrap();
        let ob = Obfuscator::for_layout(5, &l).unwrap();
        assert_eq!(ob.bits(), l.width());
        assert_eq!(
            ob.decode(ob.encode(l.max_id()).unwrap()).unwrap(),
            l.max_id()
        );
        assert!(ob.encode(l.max_id() + 1).is_err());
    }

    #[test]
    fn sortable_keeps_time_and_order() {
        for name in ["twitter", "sonyflake", "instagram", "discord"] {
            let l = Layout::preset(name).unwrap();
            let ob = SortableObfuscator::new(0xfeed, &l).unwrap();
            assert_eq!(ob.low_bits(), l.time_field().shift);
            let t = l.time_field();
            let mut prev = None;
            for time in [0u64, 1, 2, 1000, l.max_time()] {
                for (node, seq) in [(0, 0), (l.max_node(), l.max_sequence()), (1, 2)] {
                    let id = l
                        .compose(&Parts {
                            time,
                            node,
                            sequence: seq,
                            rollback: 0,
                        })
                        .unwrap();
                    let o = ob.encode(id).unwrap();
                    assert_eq!(t.get(o), time, "{name}");
                    assert_eq!(ob.decode(o).unwrap(), id);
                    assert!(o <= l.max_id());
                }
                let first = l
                    .compose(&Parts {
                        time,
                        node: 0,
                        sequence: 0,
                        rollback: 0,
                    })
                    .unwrap();
                let o = ob.encode(first).unwrap();
                if let Some(p) = prev {
                    assert!(o > p, "{name}: order lost across ticks");
                }
                prev = Some(o);
            }
            assert!(ob.encode(l.max_id().wrapping_add(1)).is_err() || l.max_id() == u64::MAX);
        }
    }

    #[test]
    fn sortable_needs_low_bits() {
        let l = Layout::builder().time(41, 1).sequence(1).build().unwrap();
        assert_eq!(
            SortableObfuscator::new(1, &l).unwrap_err().kind(),
            crate::error::ErrorKind::InvalidConfig
        );
        let l = Layout::builder().time(41, 1).sequence(2).build().unwrap();
        let ob = SortableObfuscator::new(1, &l).unwrap();
        let mut seen = [false; 4];
        for low in 0..4u64 {
            let o = ob.encode((7 << 2) | low).unwrap();
            assert_eq!(o >> 2, 7);
            seen[(o & 3) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    proptest! {
        #[test]
        fn round_trip_wide(key in any::<u128>(), x in any::<u64>()) {
            for bits in [53u8, 63, 64] {
                let ob = Obfuscator::new(key, bits).unwrap();
                let x = x & mask(bits);
                let y = ob.encode(x).unwrap();
                prop_assert!(y <= mask(bits));
                prop_assert_eq!(ob.decode(y).unwrap(), x);
                prop_assert_eq!(ob.encode(ob.decode(x).unwrap()).unwrap(), x);
            }
        }

        #[test]
        fn sortable_preserves_order_across_ticks(key in any::<u128>(), a in any::<u64>(), b in any::<u64>()) {
            let l = Layout::preset("twitter").unwrap();
            let ob = SortableObfuscator::new(key, &l).unwrap();
            let (a, b) = (a & l.max_id(), b & l.max_id());
            let (oa, ob_) = (ob.encode(a).unwrap(), ob.encode(b).unwrap());
            let t = l.time_field();
            prop_assert_eq!(t.get(oa), t.get(a));
            if t.get(a) != t.get(b) {
                prop_assert_eq!(oa.cmp(&ob_), a.cmp(&b));
            }
            prop_assert_eq!(ob.decode(oa).unwrap(), a);
        }
    }
}
