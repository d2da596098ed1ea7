//! Segment allocation (Meituan Leaf's "segment" mode, WeChat seqsvr): IDs served from ranges
//! of consecutive values that a store hands out, one store round trip per range.

/// A half-open range of values `[start, end)` handed out by a segment store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Range {
    /// The first value of the range.
    pub start: u64,
    /// One past the last value of the range.
    pub end: u64,
}

impl Range {
    /// The number of values in the range.
    pub const fn len(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }

    /// Whether the range holds no value.
    pub const fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}
