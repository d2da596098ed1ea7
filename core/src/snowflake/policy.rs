//! What a Snowflake generator does when the clock steps back, when a tick's sequence runs out,
//! and where each tick's sequence starts — and the [`Config`] that bundles them.
//!
//! Every policy has a text form shared by all surfaces (`"wait:1000"`, `"borrow:16"`,
//! `"vibrate:1"`, ...), parsed by `FromStr` and printed by `Display`.
//!
//! | on_backwards        | guarantee while the clock is behind the last issued tick                          |
//! |---------------------|------------------------------------------------------------------------------------|
//! | `fail`              | unique, strictly increasing; errors until the clock catches up                     |
//! | `wait:N`            | unique, strictly increasing; asks the caller to wait up to N ms, errors beyond      |
//! | `logical:N`         | unique, strictly increasing; keeps issuing on the last tick (then borrows ticks) while at most N ms behind, so decoded times run ahead of the clock |
//! | `rollback_counter`  | unique, **not** increasing across the step; bumps the layout's `rollback` field and issues at the earlier time. A step back must land above the highest tick issued before the previous step back (and above a fence), otherwise it errors; its depth is limited by the state's spare bits ([`Config::max_rollback_ticks`]) |
//! | `ring:N`            | unique, **not** increasing across the step; remembers the last sequence of each of the last N ticks and continues it, so a step back of fewer than N ticks keeps issuing (seed 000's ID ring) |
//!
//! | on_exhausted | when all sequence values of a tick are used                                   |
//! |--------------|---------------------------------------------------------------------------------|
//! | `wait`       | ask the caller to wait for the next tick ([`Error::WouldBlock`])                |
//! | `borrow:N`   | move on to the next tick early, at most N ticks ahead of the clock, then wait   |
//! | `fail`       | [`Error::SequenceExhausted`]                                                     |

use core::fmt;
use core::str::FromStr;

use crate::error::{Error, Result};
use crate::snowflake::layout::Layout;

/// What to do when the clock reads earlier than the last issued tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnBackwards {
    /// Refuse with [`Error::ClockBackwards`] (Twitter's original behaviour).
    Fail,
    /// Ask the caller to wait until the clock is back, if that is at most `max_ms` away.
    Wait {
        /// Longest step back worth waiting out, in ms.
        max_ms: u64,
    },
    /// Keep issuing on the last tick (borrowing later ticks) while at most `max_ms` behind.
    Logical {
        /// Longest step back to bridge with a logical clock, in ms.
        max_ms: u64,
    },
    /// Bump the layout's `rollback` field and issue at the earlier time.
    RollbackCounter,
    /// Continue each of the last `ticks` ticks' own sequence (needs the `alloc` feature).
    Ring {
        /// How many ticks the ring remembers.
        ticks: u32,
    },
}

/// What to do when a tick's sequence values are all used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OnExhausted {
    /// Wait for the next tick.
    #[default]
    Wait,
    /// Take the next tick early, at most `max_ticks` ahead of the clock.
    Borrow {
        /// How far ahead of the clock the generator may run, in ticks.
        max_ticks: u64,
    },
    /// Refuse with [`Error::SequenceExhausted`].
    Fail,
}

/// Where each new tick's sequence starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SequenceStart {
    /// At 0: the densest IDs, but at low rates every ID ends in the same low bits.
    #[default]
    Zero,
    /// At a value below half the sequence range drawn from the seed and the tick, so the
    /// count of IDs per tick is not readable from the ID. At least half a tick's capacity remains.
    Random,
    /// ShardingSphere's vibration: the start cycles 0, 1, ..., `max_offset`, 0, ... on each new
    /// tick, so at low rates IDs still spread across `id % n` shards.
    Vibrate {
        /// Largest start offset (ShardingSphere's `max-vibration-offset`, default 1).
        max_offset: u8,
    },
}

/// Default bound for `wait` and `logical` without a number: one second.
pub const DEFAULT_BACKWARDS_MS: u64 = 1000;

impl Default for OnBackwards {
    fn default() -> Self {
        OnBackwards::Wait {
            max_ms: DEFAULT_BACKWARDS_MS,
        }
    }
}

fn split(s: &str) -> (&str, Option<&str>) {
    match s.find(':') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    }
}

fn number(arg: Option<&str>, default: Option<u64>, reason: &'static str) -> Result<u64> {
    match (arg, default) {
        (None, Some(d)) => Ok(d),
        (Some(a), _) if !a.is_empty() && a.bytes().all(|c| c.is_ascii_digit()) => {
            a.parse().map_err(|_| Error::InvalidConfig { reason })
        }
        _ => Err(Error::InvalidConfig { reason }),
    }
}

impl FromStr for OnBackwards {
    type Err = Error;
    /// `fail`, `wait[:MS]`, `logical[:MS]`, `rollback_counter`, `ring[:TICKS]`.
    fn from_str(s: &str) -> Result<Self> {
        const R: &str =
            "on_backwards is fail, wait[:MS], logical[:MS], rollback_counter or ring[:TICKS]";
        match split(s.trim()) {
            ("fail", None) => Ok(OnBackwards::Fail),
            ("wait", a) => Ok(OnBackwards::Wait {
                max_ms: number(a, Some(DEFAULT_BACKWARDS_MS), R)?,
            }),
            ("logical", a) => Ok(OnBackwards::Logical {
                max_ms: number(a, Some(DEFAULT_BACKWARDS_MS), R)?,
            }),
            ("rollback_counter", None) => Ok(OnBackwards::RollbackCounter),
            ("ring", a) => {
                let n = number(a, Some(256), R)?;
                let ticks = u32::try_from(n).map_err(|_| Error::InvalidConfig { reason: R })?;
                Ok(OnBackwards::Ring { ticks })
            }
            _ => Err(Error::InvalidConfig { reason: R }),
        }
    }
}

impl fmt::Display for OnBackwards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OnBackwards::Fail => f.write_str("fail"),
            OnBackwards::Wait { max_ms } => write!(f, "wait:{max_ms}"),
            OnBackwards::Logical { max_ms } => write!(f, "logical:{max_ms}"),
            OnBackwards::RollbackCounter => f.write_str("rollback_counter"),
            OnBackwards::Ring { ticks } => write!(f, "ring:{ticks}"),
        }
    }
}

impl FromStr for OnExhausted {
    type Err = Error;
    /// `wait`, `borrow[:TICKS]`, `fail`.
    fn from_str(s: &str) -> Result<Self> {
        const R: &str = "on_exhausted is wait, borrow[:TICKS] or fail";
        match split(s.trim()) {
            ("wait", None) => Ok(OnExhausted::Wait),
            ("fail", None) => Ok(OnExhausted::Fail),
            ("borrow", a) => Ok(OnExhausted::Borrow {
                max_ticks: number(a, Some(16), R)?,
            }),
            _ => Err(Error::InvalidConfig { reason: R }),
        }
    }
}

impl fmt::Display for OnExhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OnExhausted::Wait => f.write_str("wait"),
            OnExhausted::Borrow { max_ticks } => write!(f, "borrow:{max_ticks}"),
            OnExhausted::Fail => f.write_str("fail"),
        }
    }
}

impl FromStr for SequenceStart {
    type Err = Error;
    /// `zero`, `random`, `vibrate[:MAX_OFFSET]`.
    fn from_str(s: &str) -> Result<Self> {
        const R: &str = "sequence_start is zero, random or vibrate[:MAX_OFFSET] (1..=255)";
        match split(s.trim()) {
            ("zero", None) => Ok(SequenceStart::Zero),
            ("random", None) => Ok(SequenceStart::Random),
            ("vibrate", a) => {
                let n = number(a, Some(1), R)?;
                let max_offset = u8::try_from(n).map_err(|_| Error::InvalidConfig { reason: R })?;
                Ok(SequenceStart::Vibrate { max_offset })
            }
            _ => Err(Error::InvalidConfig { reason: R }),
        }
    }
}

impl fmt::Display for SequenceStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SequenceStart::Zero => f.write_str("zero"),
            SequenceStart::Random => f.write_str("random"),
            SequenceStart::Vibrate { max_offset } => write!(f, "vibrate:{max_offset}"),
        }
    }
}

/// Everything a Snowflake generator needs: layout, node and policies. Validated when a
/// generator is built from it; a config without a node is refused then
/// ([`Error::NodeRequired`]).
///
/// # Examples
/// ```
/// use idmint::{Config, Layout, OnBackwards, OnExhausted};
/// let cfg = Config::new(Layout::preset("twitter")?)
///     .node(42)
///     .on_backwards("logical:500".parse()?)
///     .on_exhausted(OnExhausted::Borrow { max_ticks: 8 });
/// assert_eq!(cfg.on_backwards_policy(), OnBackwards::Logical { max_ms: 500 });
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Config {
    pub(crate) layout: Layout,
    pub(crate) node: Option<u64>,
    pub(crate) on_backwards: OnBackwards,
    pub(crate) on_exhausted: OnExhausted,
    pub(crate) sequence_start: SequenceStart,
    pub(crate) seed: u64,
    pub(crate) fence_ms: Option<u64>,
}

impl Config {
    /// A config for `layout` with the default policies (`wait:1000`, `wait`, `zero`) and **no
    /// node**: building a generator from it fails with [`Error::NodeRequired`] until
    /// [`node`](Self::node) sets one. There is no default node because two processes on the same
    /// node mint the same IDs; lease one (`idmint-coord`'s `LeasedSnowflake`), assign one, or
    /// take a random one knowing its odds.
    pub const fn new(layout: Layout) -> Config {
        Config {
            layout,
            node: None,
            on_backwards: OnBackwards::Wait {
                max_ms: DEFAULT_BACKWARDS_MS,
            },
            on_exhausted: OnExhausted::Wait,
            sequence_start: SequenceStart::Zero,
            seed: 0,
            fence_ms: None,
        }
    }

    /// Sets the whole node value (all node sub-fields; see [`Layout::join_node`]). It must be
    /// a node no other live generator of the same layout uses.
    pub const fn node(mut self, node: u64) -> Config {
        self.node = Some(node);
        self
    }

    /// Sets the clock-moved-backwards policy.
    pub const fn on_backwards(mut self, p: OnBackwards) -> Config {
        self.on_backwards = p;
        self
    }

    /// Sets the sequence-exhausted policy.
    pub const fn on_exhausted(mut self, p: OnExhausted) -> Config {
        self.on_exhausted = p;
        self
    }

    /// Sets where each tick's sequence starts.
    pub const fn sequence_start(mut self, p: SequenceStart) -> Config {
        self.sequence_start = p;
        self
    }

    /// Seeds [`SequenceStart::Random`]; the start of tick `t` is a fixed function of (seed, t),
    /// so runs replay exactly. The std [`Snowflake`](crate::Snowflake) draws it from the OS.
    pub const fn seed(mut self, seed: u64) -> Config {
        self.seed = seed;
        self
    }

    /// A time fence: the last time (ms) already issued under this node, for example by a
    /// previous process holding the same lease. The generator issues nothing at or before that
    /// tick; a clock behind it is handled by the `on_backwards` policy.
    pub const fn fence_ms(mut self, last_issued_ms: u64) -> Config {
        self.fence_ms = Some(last_issued_ms);
        self
    }

    /// The layout.
    pub const fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The node value, or `None` when none was chosen yet.
    pub const fn node_value(&self) -> Option<u64> {
        self.node
    }

    /// The backwards policy.
    pub const fn on_backwards_policy(&self) -> OnBackwards {
        self.on_backwards
    }

    /// The exhaustion policy.
    pub const fn on_exhausted_policy(&self) -> OnExhausted {
        self.on_exhausted
    }

    /// The sequence start policy.
    pub const fn sequence_start_policy(&self) -> SequenceStart {
        self.sequence_start
    }

    /// The seed for random sequence starts.
    pub const fn seed_value(&self) -> u64 {
        self.seed
    }

    /// The time fence, if any.
    pub const fn fence(&self) -> Option<u64> {
        self.fence_ms
    }
}
