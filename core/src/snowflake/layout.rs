//! Bit layouts: which fields an ID holds, how wide each is, in which order, and from when time counts.
//!
//! A [`Layout`] is validated once at construction; after that [`Layout::compose`] and
//! [`Layout::decompose`] are exact inverses, and generators can trust its shifts and masks.
//! Layouts are `Copy` and need no allocator. The compact text form ([`Layout::parse`], and
//! `Display` back) is shared by every surface and the CLI:
//!
//! ```text
//! time=41@1ms,datacenter=5,worker=5,seq=12,epoch=2010-11-04T01:42:54.657Z
//! ```
//!
//! Fields are listed from the most to the least significant bit. `time=BITS@TICK` (tick `1ms`,
//! `10ms`, `1s`, `2m`, ...), `seq=BITS` (or `sequence`), optional `rollback=BITS` (a counter the
//! `rollback_counter` policy bumps when the clock steps back), any other `name=BITS` is a node
//! sub-field. `epoch=` takes a UTC date (`2020-01-01`), an RFC 3339 UTC time, or Unix ms;
//! optional `width=N` asserts the total bit count.

use core::fmt;

use crate::error::{Error, Result};
use crate::field_name::Name;
use crate::time::Rfc3339;

/// Most fields a layout holds: time, sequence, rollback and up to five node sub-fields.
pub const MAX_FIELDS: usize = 8;

/// What a field of an ID means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// Ticks since the layout epoch.
    Time,
    /// Part of the node (worker, datacenter, shard, machine, ...).
    Node,
    /// Position within one tick.
    Sequence,
    /// Counter bumped by the `rollback_counter` policy after a clock step back.
    Rollback,
}

impl FieldKind {
    /// The kind's name on every surface: `time`, `node`, `sequence`, `rollback`.
    pub const fn name(self) -> &'static str {
        match self {
            FieldKind::Time => "time",
            FieldKind::Node => "node",
            FieldKind::Sequence => "sequence",
            FieldKind::Rollback => "rollback",
        }
    }
}

/// One bit field of a layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Field {
    /// What the field means.
    pub kind: FieldKind,
    /// Its name (`time`, `seq`, `rollback`, or the node sub-field's own name).
    pub name: Name,
    /// Width in bits.
    pub bits: u8,
    /// Position of its least significant bit in the ID.
    pub shift: u8,
}

impl Field {
    /// The largest value this field holds.
    pub const fn max(&self) -> u64 {
        mask(self.bits)
    }

    /// Extracts this field's value from an ID.
    pub const fn get(&self, id: u64) -> u64 {
        if self.bits == 0 {
            0
        } else {
            (id >> self.shift) & mask(self.bits)
        }
    }
}

pub(crate) const fn mask(bits: u8) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

const PLACEHOLDER: Field = Field {
    kind: FieldKind::Node,
    name: Name::lit("x"),
    bits: 0,
    shift: 0,
};

/// A validated ID layout. See the [module docs](self) for the text form.
///
/// Equality ignores the preset name: `twitter` equals the parse of its own spec.
#[derive(Clone, Copy)]
pub struct Layout {
    preset: Option<&'static str>,
    epoch_ms: u64,
    tick_ms: u64,
    width: u8,
    len: u8,
    fields: [Field; MAX_FIELDS],
    time: u8,
    seq: u8,
    rollback: Option<u8>,
    node_bits: u8,
}

/// The values of an ID's fields. `node` is the node sub-fields concatenated in layout order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Parts {
    /// Ticks since the layout epoch.
    pub time: u64,
    /// The whole node value (all node sub-fields, most significant first).
    pub node: u64,
    /// Sequence within the tick.
    pub sequence: u64,
    /// Rollback counter (0 when the layout has none).
    pub rollback: u64,
}

/// Builds a [`Layout`] field by field, most significant first.
///
/// # Examples
/// ```
/// use idmint::Layout;
/// let l = Layout::builder()
///     .epoch_ms(1_577_836_800_000)
///     .time(41, 1)
///     .node("datacenter", 5)
///     .node("worker", 5)
///     .sequence(12)
///     .build()
///     .unwrap();
/// assert_eq!(l.to_string(), "time=41@1ms,datacenter=5,worker=5,seq=12,epoch=2020-01-01");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct LayoutBuilder {
    epoch_ms: u64,
    tick_ms: u64,
    width: Option<u8>,
    pub(crate) len: usize,
    pub(crate) fields: [(FieldKind, Option<Name>, u32); MAX_FIELDS],
    overflow: bool,
    bad_name: bool,
}

impl LayoutBuilder {
    fn push(mut self, kind: FieldKind, name: Option<Name>, bits: u32) -> Self {
        if self.len == MAX_FIELDS {
            self.overflow = true;
        } else {
            self.fields[self.len] = (kind, name, bits);
            self.len += 1;
        }
        self
    }

    /// Sets the epoch (ms since the Unix epoch) that time counts from.
    pub fn epoch_ms(mut self, epoch_ms: u64) -> Self {
        self.epoch_ms = epoch_ms;
        self
    }

    /// Asserts the total width; [`build`](Self::build) fails if the fields do not add up to it.
    pub fn width(mut self, bits: u8) -> Self {
        self.width = Some(bits);
        self
    }

    /// Adds the time field: `bits` wide, counting ticks of `tick_ms` milliseconds.
    pub fn time(mut self, bits: u32, tick_ms: u64) -> Self {
        self.tick_ms = tick_ms;
        self.push(FieldKind::Time, None, bits)
    }

    /// Adds a node sub-field named `name`.
    pub fn node(mut self, name: &str, bits: u32) -> Self {
        let n = Name::new(name);
        if n.is_none()
            || matches!(
                name,
                "time" | "seq" | "sequence" | "rollback" | "epoch" | "width"
            )
        {
            self.bad_name = true;
        }
        self.push(FieldKind::Node, n, bits)
    }

    /// Adds the sequence field.
    pub fn sequence(self, bits: u32) -> Self {
        self.push(FieldKind::Sequence, None, bits)
    }

    /// Adds a rollback-counter field (used by the `rollback_counter` policy).
    pub fn rollback(self, bits: u32) -> Self {
        self.push(FieldKind::Rollback, None, bits)
    }

    /// Validates and builds the layout.
    pub fn build(self) -> Result<Layout> {
        let bad = |reason| Err(Error::InvalidLayout { reason });
        if self.overflow {
            return bad(
                "too many fields (at most 8 in all: time, seq, optional rollback, node sub-fields)",
            );
        }
        if self.bad_name {
            return bad("node field names are 1-15 characters of [a-z0-9_], start with a letter, and are not reserved words");
        }
        if self.tick_ms == 0 {
            return bad("tick must be at least 1 ms");
        }
        let mut fields = [PLACEHOLDER; MAX_FIELDS];
        let (mut time, mut seq, mut rollback) = (None, None, None);
        let mut total: u32 = 0;
        let mut node_bits: u32 = 0;
        for (i, &(kind, name, bits)) in self.fields[..self.len].iter().enumerate() {
            if bits > 64 {
                return bad("a field is wider than 64 bits");
            }
            total += bits;
            let name = match kind {
                FieldKind::Time => {
                    if time.replace(i as u8).is_some() {
                        return bad("more than one time field");
                    }
                    if bits == 0 || bits > 63 {
                        return bad("time field must be 1..=63 bits");
                    }
                    Name::lit("time")
                }
                FieldKind::Sequence => {
                    if seq.replace(i as u8).is_some() {
                        return bad("more than one sequence field");
                    }
                    if bits == 0 || bits > 32 {
                        return bad("sequence field must be 1..=32 bits");
                    }
                    Name::lit("seq")
                }
                FieldKind::Rollback => {
                    if rollback.replace(i as u8).is_some() {
                        return bad("more than one rollback field");
                    }
                    if bits == 0 || bits > 8 {
                        return bad("rollback field must be 1..=8 bits");
                    }
                    Name::lit("rollback")
                }
                FieldKind::Node => {
                    if bits == 0 {
                        return bad("a node field has 0 bits");
                    }
                    node_bits += bits;
                    match name {
                        Some(n) => n,
                        None => return bad("node field without a name"),
                    }
                }
            };
            if fields[..i].iter().any(|f| f.name == name) {
                return bad("two fields have the same name");
            }
            fields[i] = Field {
                kind,
                name,
                bits: bits as u8,
                shift: 0,
            };
        }
        let (Some(time), Some(seq)) = (time, seq) else {
            return bad("a layout needs a time field and a sequence field");
        };
        if total > 64 {
            return bad("fields add up to more than 64 bits");
        }
        if let Some(w) = self.width {
            if u32::from(w) != total {
                return bad("fields do not add up to the declared width");
            }
        }
        let mut shift = total;
        for f in &mut fields[..self.len] {
            shift -= u32::from(f.bits);
            f.shift = shift as u8;
        }
        let l = Layout {
            preset: None,
            epoch_ms: self.epoch_ms,
            tick_ms: self.tick_ms,
            width: total as u8,
            len: self.len as u8,
            fields,
            time,
            seq,
            rollback,
            node_bits: node_bits as u8,
        };
        if l.lifetime_end_ms() == u64::MAX {
            return bad("epoch plus the time field's range overflows 64-bit milliseconds");
        }
        Ok(l)
    }
}

impl Layout {
    /// Starts a [`LayoutBuilder`] (epoch 0, no fields).
    pub const fn builder() -> LayoutBuilder {
        LayoutBuilder {
            epoch_ms: 0,
            tick_ms: 1,
            width: None,
            len: 0,
            fields: [(FieldKind::Node, None, 0); MAX_FIELDS],
            overflow: false,
            bad_name: false,
        }
    }

    pub(crate) fn named(mut self, preset: &'static str) -> Layout {
        self.preset = Some(preset);
        self
    }

    /// A node given as text: a whole value (`37`) or sub-fields by name
    /// (`datacenter=1,worker=5`), resolved by [`node_from_parts`](Self::node_from_parts).
    pub fn parse_node(&self, text: &str) -> Result<u64> {
        let text = text.trim();
        if !text.contains('=') {
            let node = text.parse::<u64>().map_err(|_| Error::InvalidArgument {
                argument: Name::lit("node"),
                reason: "expected a number or name=value pairs",
            })?;
            self.node_to_bits(node)?;
            return Ok(node);
        }
        let mut parts = [("", 0u64); MAX_FIELDS];
        let mut n = 0;
        for pair in text.split(',') {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = name.trim();
            let value = value
                .trim()
                .parse::<u64>()
                .map_err(|_| Error::InvalidArgument {
                    argument: Name::lossy(name),
                    reason: "expected name=number",
                })?;
            if n == MAX_FIELDS {
                return Err(Error::InvalidArgument {
                    argument: Name::lossy(name),
                    reason: "is one node sub-field too many",
                });
            }
            parts[n] = (name, value);
            n += 1;
        }
        self.node_from_parts(&parts[..n])
    }

    /// Joins a node given by sub-field names. The one rule of every surface: each node
    /// sub-field of the layout given exactly once, no other name, each value within its field.
    ///
    /// # Examples
    /// ```
    /// use idmint::Layout;
    /// let l = Layout::preset("twitter")?;
    /// assert_eq!(l.node_from_parts(&[("worker", 5), ("datacenter", 1)])?, 37);
    /// let e = l.node_from_parts(&[("worker", 5)]).unwrap_err();
    /// assert_eq!(e.to_string(), "invalid argument `datacenter`: is a node sub-field of the layout and missing");
    /// # Ok::<(), idmint::Error>(())
    /// ```
    pub fn node_from_parts(&self, parts: &[(&str, u64)]) -> Result<u64> {
        let mut values = [None; MAX_FIELDS];
        for (name, v) in parts {
            let Some(i) = self.node_fields().position(|f| f.name == **name) else {
                return Err(Error::InvalidArgument {
                    argument: Name::lossy(name),
                    reason: "is not a node sub-field of the layout",
                });
            };
            if values[i].replace(*v).is_some() {
                return Err(Error::InvalidArgument {
                    argument: Name::lossy(name),
                    reason: "is given twice",
                });
            }
        }
        let mut node = 0u64;
        for (f, v) in self.node_fields().zip(values) {
            let v = v.ok_or(Error::InvalidArgument {
                argument: f.name,
                reason: "is a node sub-field of the layout and missing",
            })?;
            node = (node << f.bits) | check(f, v)?;
        }
        Ok(node)
    }

    /// The preset name, if this layout is an unmodified preset.
    pub fn preset_name(&self) -> Option<&'static str> {
        self.preset
    }

    /// Epoch in ms since the Unix epoch.
    pub const fn epoch_ms(&self) -> u64 {
        self.epoch_ms
    }

    /// Length of one tick of the time field, in ms.
    pub const fn tick_ms(&self) -> u64 {
        self.tick_ms
    }

    /// Total bits used by the fields; every ID is below `2^width`.
    pub const fn width(&self) -> u8 {
        self.width
    }

    /// The largest ID the layout can produce.
    pub const fn max_id(&self) -> u64 {
        mask(self.width)
    }

    /// Whether every ID fits a JavaScript `number` exactly (width ≤ 53).
    pub const fn is_js_safe(&self) -> bool {
        self.width <= 53
    }

    /// The fields, most significant first.
    pub fn fields(&self) -> &[Field] {
        &self.fields[..self.len as usize]
    }

    /// The time field.
    pub const fn time_field(&self) -> Field {
        self.fields[self.time as usize]
    }

    /// The sequence field.
    pub const fn sequence_field(&self) -> Field {
        self.fields[self.seq as usize]
    }

    /// The rollback-counter field, if the layout has one.
    pub fn rollback_field(&self) -> Option<Field> {
        self.rollback.map(|i| self.fields[i as usize])
    }

    /// The node sub-fields, most significant first.
    pub fn node_fields(&self) -> impl Iterator<Item = &Field> + '_ {
        self.fields().iter().filter(|f| f.kind == FieldKind::Node)
    }

    /// Total bits of all node sub-fields.
    pub const fn node_bits(&self) -> u8 {
        self.node_bits
    }

    /// The largest whole node value.
    pub const fn max_node(&self) -> u64 {
        mask(self.node_bits)
    }

    /// Largest sequence value in one tick.
    pub const fn max_sequence(&self) -> u64 {
        self.sequence_field().max()
    }

    /// Largest tick count the time field holds.
    pub const fn max_time(&self) -> u64 {
        self.time_field().max()
    }

    /// The first instant (ms since the Unix epoch) the time field cannot represent.
    /// Saturates at `u64::MAX` for layouts that outlive 64-bit milliseconds.
    pub const fn lifetime_end_ms(&self) -> u64 {
        let span = (self.max_time() as u128 + 1) * self.tick_ms as u128;
        let end = self.epoch_ms as u128 + span;
        if end >= u64::MAX as u128 {
            u64::MAX
        } else {
            end as u64
        }
    }

    /// Whether the time field has overflowed at `now_ms`.
    pub const fn is_expired_at(&self, now_ms: u64) -> bool {
        now_ms >= self.lifetime_end_ms()
    }

    /// IDs one node can issue per second at most (sequence values per tick × ticks per second),
    /// rounded down (0 for layouts that issue less than one ID per second).
    pub const fn capacity_per_second(&self) -> u64 {
        let per_tick = self.max_sequence() as u128 + 1;
        let c = per_tick * 1000 / self.tick_ms as u128;
        if c > u64::MAX as u128 {
            u64::MAX
        } else {
            c as u64
        }
    }

    /// The tick count for `now_ms`, or why there is none (before the epoch, expired).
    pub const fn tick_at(&self, now_ms: u64) -> Result<u64> {
        if now_ms < self.epoch_ms {
            return Err(Error::BeforeEpoch {
                now_ms,
                epoch_ms: self.epoch_ms,
            });
        }
        let t = (now_ms - self.epoch_ms) / self.tick_ms;
        if t > self.max_time() {
            return Err(Error::LayoutExpired {
                end_ms: self.lifetime_end_ms(),
            });
        }
        Ok(t)
    }

    /// The start of tick `tick`, in ms since the Unix epoch (saturating).
    pub const fn tick_start_ms(&self, tick: u64) -> u64 {
        self.epoch_ms
            .saturating_add(tick.saturating_mul(self.tick_ms))
    }

    /// The Unix-ms time encoded in `id` (start of its tick).
    pub fn timestamp_ms(&self, id: u64) -> u64 {
        self.tick_start_ms(self.time_field().get(id))
    }

    /// Packs field values into an ID; every value must fit its field.
    ///
    /// # Examples
    /// ```
    /// use idmint::{Layout, Parts};
    /// let l = Layout::preset("twitter").unwrap();
    /// let parts = Parts { time: 1, node: 0b00001_00010, sequence: 3, rollback: 0 };
    /// let id = l.compose(&parts).unwrap();
    /// assert_eq!(id, (1 << 22) | (1 << 17) | (2 << 12) | 3);
    /// assert_eq!(l.decompose(id).unwrap(), parts);
    /// ```
    pub fn compose(&self, parts: &Parts) -> Result<u64> {
        let mut id = 0u64;
        let t = self.time_field();
        id |= check(&t, parts.time)? << t.shift;
        let s = self.sequence_field();
        id |= check(&s, parts.sequence)? << s.shift;
        match self.rollback_field() {
            Some(r) => id |= check(&r, parts.rollback)? << r.shift,
            None if parts.rollback != 0 => {
                return Err(Error::OutOfRange {
                    field: Name::lit("rollback"),
                    value: parts.rollback,
                    max: 0,
                })
            }
            None => {}
        }
        id |= self.node_to_bits(parts.node)?;
        Ok(id)
    }

    /// Splits an ID into its field values; fails if `id` exceeds [`max_id`](Self::max_id).
    pub fn decompose(&self, id: u64) -> Result<Parts> {
        if id > self.max_id() {
            return Err(Error::OutOfRange {
                field: Name::lit("id"),
                value: id,
                max: self.max_id(),
            });
        }
        let mut node = 0u64;
        for f in self.node_fields() {
            node = (node << f.bits) | f.get(id);
        }
        Ok(Parts {
            time: self.time_field().get(id),
            node,
            sequence: self.sequence_field().get(id),
            rollback: self.rollback_field().map_or(0, |r| r.get(id)),
        })
    }

    /// The node value placed at its bit positions (node sub-fields may be non-adjacent).
    pub fn node_to_bits(&self, node: u64) -> Result<u64> {
        if node > self.max_node() {
            return Err(Error::OutOfRange {
                field: Name::lit("node"),
                value: node,
                max: self.max_node(),
            });
        }
        let mut rest = self.node_bits;
        let mut out = 0u64;
        for f in self.node_fields() {
            rest -= f.bits;
            out |= ((node >> rest) & f.max()) << f.shift;
        }
        Ok(out)
    }

    /// Splits a whole node value into its named sub-fields, most significant first. Bits above
    /// the node width are ignored (a decomposed ID is always in range); use
    /// [`try_split_node`](Self::try_split_node) for values from outside.
    pub fn split_node(&self, node: u64) -> impl Iterator<Item = (Name, u64)> + '_ {
        let mut rest = self.node_bits;
        self.node_fields().map(move |f| {
            rest -= f.bits;
            (f.name, (node >> rest) & f.max())
        })
    }

    /// [`split_node`](Self::split_node) for a node value from outside: fails if it exceeds
    /// [`max_node`](Self::max_node) instead of masking it.
    pub fn try_split_node(&self, node: u64) -> Result<impl Iterator<Item = (Name, u64)> + '_> {
        if node > self.max_node() {
            return Err(Error::OutOfRange {
                field: Name::lit("node"),
                value: node,
                max: self.max_node(),
            });
        }
        Ok(self.split_node(node))
    }

    /// Joins sub-field values (in [`node_fields`](Self::node_fields) order) into a whole node value.
    pub fn join_node(&self, values: &[u64]) -> Result<u64> {
        let mut node = 0u64;
        let mut count = 0;
        for (f, &v) in self.node_fields().zip(values) {
            node = (node << f.bits) | check(f, v)?;
            count += 1;
        }
        if count != values.len() || count != self.node_fields().count() {
            return Err(Error::InvalidConfig {
                reason: "give one value per node sub-field",
            });
        }
        Ok(node)
    }
}

fn check(f: &Field, v: u64) -> Result<u64> {
    if v > f.max() {
        Err(Error::OutOfRange {
            field: f.name,
            value: v,
            max: f.max(),
        })
    } else {
        Ok(v)
    }
}

impl Layout {
    fn key(&self) -> (u64, u64, u8, &[Field]) {
        (self.epoch_ms, self.tick_ms, self.width, self.fields())
    }
}

impl PartialEq for Layout {
    fn eq(&self, other: &Layout) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Layout {}

impl core::hash::Hash for Layout {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state)
    }
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.preset {
            Some(p) => write!(f, "Layout({p}: {self})"),
            None => write!(f, "Layout({self})"),
        }
    }
}

/// The canonical text spec; [`Layout::parse`] reads it back to an equal layout (minus the preset name).
impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, fl) in self.fields().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match fl.kind {
                FieldKind::Time => {
                    write!(f, "time={}@", fl.bits)?;
                    let t = self.tick_ms;
                    if t % 3_600_000 == 0 {
                        write!(f, "{}h", t / 3_600_000)?
                    } else if t % 60_000 == 0 {
                        write!(f, "{}m", t / 60_000)?
                    } else if t % 1000 == 0 {
                        write!(f, "{}s", t / 1000)?
                    } else {
                        write!(f, "{t}ms")?
                    }
                }
                _ => write!(f, "{}={}", fl.name, fl.bits)?,
            }
        }
        if self.epoch_ms >= 253_402_300_800_000 {
            // Year 10000 and later: RFC 3339 has no form for it, so print the raw ms.
            write!(f, ",epoch={}", self.epoch_ms)
        } else if self.epoch_ms % 86_400_000 == 0 {
            let (y, m, d) = crate::time::civil_from_days((self.epoch_ms / 86_400_000) as i64);
            write!(f, ",epoch={y:04}-{m:02}-{d:02}")
        } else {
            write!(f, ",epoch={}", Rfc3339(self.epoch_ms))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::string::ToString;

    #[test]
    fn spec_round_trip() {
        for s in [
            "time=41@1ms,datacenter=5,worker=5,seq=12,epoch=2020-01-01",
            "time=39@10ms,seq=8,machine=16,epoch=2014-09-01",
            "time=33@1s,node=4,seq=15,epoch=2025-01-01",
            "time=40@1ms,rollback=2,worker=8,seq=13,epoch=2010-11-04T01:42:54.657Z",
        ] {
            let l = Layout::parse(s).unwrap();
            assert_eq!(l.to_string(), s);
            assert_eq!(Layout::parse(&l.to_string()).unwrap(), l);
        }
    }

    #[test]
    fn spec_errors_point_at_the_problem() {
        let e = |s: &str| Layout::parse(s).unwrap_err();
        assert_eq!(
            e("time=41@1ms,seq=12"),
            Error::InvalidSpec {
                at: 18,
                reason: "missing epoch=DATE (e.g. epoch=2020-01-01)"
            }
        );
        assert_eq!(
            e("time=41@1xs,seq=12,epoch=0"),
            Error::InvalidSpec {
                at: 8,
                reason: "tick unit must be ms, s, m or h"
            }
        );
        assert_eq!(
            e("time=41@1ms,seq=12,epoch=2020-02-30"),
            Error::InvalidSpec {
                at: 33,
                reason: "day out of range for the month"
            }
        );
        assert_eq!(
            e("time=41@1ms,Worker=3,seq=12,epoch=0").kind(),
            crate::error::ErrorKind::InvalidLayout
        );
        assert_eq!(
            e("time=41@1ms,worker=10,seq=12,width=64,epoch=0"),
            Error::InvalidLayout {
                reason: "fields do not add up to the declared width"
            }
        );
        assert!(matches!(
            e("time=60@1ms,worker=10,seq=12,epoch=0"),
            Error::InvalidLayout { .. }
        ));
    }

    #[test]
    fn sonyflake_order() {
        let l = Layout::preset("sonyflake").unwrap();
        let p = Parts {
            time: 5,
            node: 7,
            sequence: 3,
            rollback: 0,
        };
        assert_eq!(l.compose(&p).unwrap(), (5 << 24) | (3 << 16) | 7);
    }
}
