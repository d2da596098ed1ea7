//! [`SectionSequencer`]: a strictly increasing sequence per key for millions of keys, after
//! WeChat's seqsvr — one number in memory per key, one persisted maximum per *section* of keys.
//!
//! # How it works
//!
//! Keys are `u64` ids (a user id). Key `k` belongs to section `k / section_size` (default
//! [`DEFAULT_SECTION_SIZE`], seqsvr's 100,000). Per key the sequencer keeps the last sequence
//! it served (`cur_seq`); per section it keeps the section's **maximum**: the counter of key
//! `PREFIX<section>` (default `sect/<section>`) in any ascending [`SegmentStore`]. A key's
//! next sequence is its last plus one, as long as that stays at or below the section's
//! maximum; a key that would pass it raises the maximum by a step first, with one
//! [`take`](SegmentStore::take) of [`step`](SectionSequencerBuilder::step) values (default
//! [`DEFAULT_STEP`]) — a store round trip once per `step` sequences of the section's busiest
//! key, while the other keys of the section go on without waiting.
//!
//! After a restart the sequencer knows nothing of the keys' last sequences. The first take of a
//! section in a run returns a range that starts above the section's counter, which is at or
//! above every sequence any earlier run served in that section (nothing is served above the
//! maximum it persisted); every key of the section resumes above that — seqsvr's "load
//! `max_seq` and set every `cur_seq` to it".
//!
//! # The guarantee
//!
//! * **Strictly increasing per key**, across threads, restarts and crashes (a SIGKILL, a power
//!   loss with a store that commits before it answers): a sequence served after another one
//!   for the same key (in the order the calls happened) is larger. Not contiguous: a restart
//!   skips up to a step per section, and raises are shared by a section's keys.
//! * **What it rests on.** The store's counters never go back and nobody else moves them:
//!   one sequencer per store and prefix at a time (seqsvr's arbitration; the record file's lock
//!   enforces it on one host). A section whose counter moved under the sequencer (another
//!   writer) or went back (a store that lost its data or was restored while the sequencer
//!   ran) is stopped for good with [`Error::StoreMismatch`] at its next raise (every call for
//!   its keys fails from then on); the sequences both writers served before that cannot be
//!   taken back.
//! * **A store that lost its data** (a new SQLite file, a flushed Redis, a truncated table)
//!   starts every counter again at 1, and every key would go back. Like the remainder
//!   [journal](super::journal), the sequencer records the store's
//!   [identity](SegmentStore::identity) — in its record file
//!   ([`record`](SectionSequencerBuilder::record)), with the section size and the prefix — and
//!   refuses another identity with [`Error::StoreMismatch`], at start and again at each
//!   section's first take in a run (so a store that lost its data while the sequencer ran is
//!   caught before any key of a section not yet used goes back). A changed section size or
//!   prefix would move keys to other counters and is refused the same way. Recovery is a
//!   human's call: restore the store, or delete the record knowing that sequences may go back.
//!
//! # Memory
//!
//! [`BYTES_PER_KEY`] (8) bytes per key of every section in use: a section is allocated whole
//! (`section_size × 8` bytes, 800 KB at the default size) the first time one of its keys is
//! used, so dense ids cost 8 bytes each, and sparse ids cost a section each. Add about 100
//! bytes per section and a fixed table of `2 × max_sections` slots of 16 bytes (128 KiB at the
//! default [`DEFAULT_MAX_SECTIONS`]). Keys are numbers, not strings: hashing names onto ids
//! would scatter them over a section each, and a hash into a bounded id space is a mapping
//! that must never change (a key moved to another section may find a lower maximum there) —
//! give names stable dense ids of your own (a user table's integer key).
//!
//! # Threads
//!
//! Lock-free for every call that needs no raise: a key's sequence is one compare-and-swap on
//! its own word, a section is found in an insert-only table without a lock. A raise holds its
//! section's mutex over the store round trip (one raise per section at a time; calls for that
//! section's other keys go on unless they need a raise too).
//!
//! # Examples
//! ```
//! use idmint_coord::segment::{MemoryStore, SectionSequencer};
//!
//! let dir = std::env::temp_dir().join(format!("idmint-sections-doc-{}", std::process::id()));
//! let seq = SectionSequencer::builder(MemoryStore::new())
//!     .record(dir.join("sections.record"))
//!     .build()?;
//! assert_eq!(seq.next(42)?, 1);
//! assert_eq!(seq.next(42)?, 2);
//! assert_eq!(seq.next(7)?, 1); // every key has its own sequence
//! let mut out = [0u64; 3];
//! seq.next_many(&[42, 7, 42], &mut out)?;
//! assert_eq!(out, [3, 2, 4]);
//! # drop(seq);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), idmint::Error>(())
//! ```

use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use idmint::{limits, Error, ForkGuard, Result};

use super::contract::SegmentStore;
use super::durable::{self, Labels, OwnedFile};

/// Keys per section by default (seqsvr's).
pub const DEFAULT_SECTION_SIZE: u64 = 100_000;
/// The largest section: 2^24 keys, 128 MiB of sequences.
pub const MAX_SECTION_SIZE: u64 = 1 << 24;
/// Values one raise takes by default (seqsvr's step).
pub const DEFAULT_STEP: u64 = 10_000;
/// The largest step: 2^40 (a restart skips up to a step per section; counters end at 2^63).
pub const MAX_STEP: u64 = 1 << 40;
/// Sections in memory at most, by default (409.6 M keys at the default section size).
pub const DEFAULT_MAX_SECTIONS: usize = 4_096;
/// The largest `max_sections` accepted.
pub const MAX_SECTIONS: usize = 1 << 20;
/// The store key prefix by default: section `n`'s maximum is the counter of `sect/n`.
pub const DEFAULT_PREFIX: &str = "sect/";
/// Memory per key of a section in use, in bytes: its last sequence.
pub const BYTES_PER_KEY: usize = std::mem::size_of::<AtomicU64>();

const MAX_PREFIX_LEN: usize = 100;
const MAX_RECORD_BYTES: u64 = 4096;
const HEADER: &str = "# idmint section sequencer v1";
const TRAILER: &str = "# end";

const LOST: Error = Error::StoreMismatch {
    store: "section sequencer",
    reason: "the store's identity is not the recorded one: another store, or this one after it \
             lost its data, whose counters would make sequences go back; point the sequencer \
             at its store, or restore it (deleting the record accepts the store as it is)",
};

const LAYOUT: Error = Error::StoreMismatch {
    store: "section sequencer",
    reason: "the record was made with another section size or key prefix, which would move \
             keys onto other counters; keep the recorded ones",
};

const WENT_BACK: Error = Error::StoreMismatch {
    store: "section sequencer",
    reason: "a section's counter went back (the store lost its data or was restored): this \
             section is stopped",
};

const MOVED: Error = Error::StoreMismatch {
    store: "section sequencer",
    reason: "a section's counter moved under the sequencer (another sequencer on the same \
             store and prefix?): this section is stopped",
};

pub(crate) const LABELS: Labels = Labels {
    store: "section record",
    linked: Error::InvalidConfig {
        reason: "a symbolic link or another special file stands at the section sequencer's \
                 record or its lock file; remove it",
    },
    in_use: Error::InvalidConfig {
        reason: "the section sequencer's record is in use by another sequencer (in this process or another)",
    },
    unnamed: Error::InvalidConfig {
        reason: "the section sequencer's record path must name a file",
    },
};

const DAMAGED: Error = Error::InvalidConfig {
    reason: "the section sequencer's record is damaged; restore it (deleting it accepts the \
             store as it is)",
};

/// Strictly increasing sequences per `u64` key, persisted per section; see the
/// [module docs](self).
pub struct SectionSequencer<S: SegmentStore> {
    /// A forked child would serve its parent's sequences again: it refuses instead.
    fork: ForkGuard,
    store: S,
    section_size: u64,
    step: u64,
    prefix: String,
    /// The store's identity, recorded (or read at start without a record).
    identity: u64,
    sections: Directory,
    /// Held for the lock: one sequencer per record.
    _record: Option<OwnedFile>,
}

/// Configures a [`SectionSequencer`].
#[derive(Debug)]
pub struct SectionSequencerBuilder<S> {
    store: S,
    section_size: u64,
    step: u64,
    max_sections: usize,
    prefix: String,
    record: Option<Option<PathBuf>>,
}

/// One section: its persisted maximum and its keys' last sequences.
struct Section {
    number: u64,
    /// Every key's next sequence lies above it: the section's counter before this run's
    /// first take. Set once, before `max`.
    floor: AtomicU64,
    /// Sequences up to it are covered by the store's counter (0 before the first take).
    max: AtomicU64,
    /// Per key, the last sequence served in this run (0: none).
    last: Box<[AtomicU64]>,
    raise: Mutex<Raise>,
}

/// What raises of a section share, under its mutex.
#[derive(Default)]
struct Raise {
    /// The first take of this run is done.
    loaded: bool,
    /// Why the section was stopped for good.
    stopped: Option<Error>,
}

/// Sections by number: an insert-only open-addressing table, read without a lock.
struct Directory {
    slots: Box<[OnceLock<Box<Section>>]>,
    /// `64 - log2(slots)`, for the multiplicative hash.
    shift: u32,
    used: AtomicUsize,
    limit: usize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while holding it (the store call returns errors), so a poisoned lock
    // still guards consistent state.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn out_of_memory() -> Error {
    Error::StoreUnavailable {
        store: "section sequencer",
        op: "allocate",
        reason: "out of memory",
    }
}

impl<S: SegmentStore> SectionSequencer<S> {
    /// A builder on `store` with the defaults: sections of [`DEFAULT_SECTION_SIZE`] keys,
    /// steps of [`DEFAULT_STEP`], at most [`DEFAULT_MAX_SECTIONS`] sections, prefix
    /// [`DEFAULT_PREFIX`]. A [`record`](SectionSequencerBuilder::record) file (or an explicit
    /// [`without_record`](SectionSequencerBuilder::without_record)) is required.
    pub fn builder(store: S) -> SectionSequencerBuilder<S> {
        SectionSequencerBuilder {
            store,
            section_size: DEFAULT_SECTION_SIZE,
            step: DEFAULT_STEP,
            max_sections: DEFAULT_MAX_SECTIONS,
            prefix: DEFAULT_PREFIX.to_owned(),
            record: None,
        }
    }
}

impl<S: SegmentStore> SectionSequencerBuilder<S> {
    /// Keys per section, 1 to [`MAX_SECTION_SIZE`]. Part of the data: keep it for the life of
    /// the store (the record refuses a change).
    pub fn section_size(mut self, keys: u64) -> Self {
        self.section_size = keys;
        self
    }

    /// Values one raise of a section's maximum takes, 1 to [`MAX_STEP`]: the store round trips
    /// of the busiest key of a section are one per `step` sequences, and a restart skips up to
    /// `step` per section.
    pub fn step(mut self, step: u64) -> Self {
        self.step = step;
        self
    }

    /// Most sections held in memory, 1 to [`MAX_SECTIONS`]; a key of a section beyond is
    /// [`Error::LimitExceeded`]. Bounds memory: `max_sections × section_size × 8` bytes.
    pub fn max_sections(mut self, sections: usize) -> Self {
        self.max_sections = sections;
        self
    }

    /// The store key prefix (default [`DEFAULT_PREFIX`]): section `n` is the counter of
    /// `PREFIX` followed by `n` in decimal. 1 to 100 printable ASCII bytes, no spaces. Part of
    /// the data, like the section size.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The record file: the store's identity, the section size and the prefix, written on the
    /// first start and checked on every later one (see the [module docs](self)); locked while
    /// the sequencer runs.
    pub fn record(mut self, path: impl Into<PathBuf>) -> Self {
        self.record = Some(Some(path.into()));
        self
    }

    /// Runs without a record file: a store that lost its data between two runs, or a changed
    /// section size, then goes unnoticed and sequences may go back. For stores that cannot
    /// lose data, or tests.
    pub fn without_record(mut self) -> Self {
        self.record = Some(None);
        self
    }

    /// Checks the settings, the store and the record, and builds the sequencer. Errors:
    /// [`Error::InvalidConfig`] for a zero size, step or section count, a bad prefix, no
    /// record chosen, a store whose ranges do not ascend, or a record in use or damaged;
    /// [`Error::LimitExceeded`] for sizes beyond the bounds; [`Error::StoreMismatch`] when the
    /// record names another store, section size or prefix; the store's errors.
    pub fn build(self) -> Result<SectionSequencer<S>> {
        let invalid = |reason| Err(Error::InvalidConfig { reason });
        let limit = |what, limit: u64| Err(Error::LimitExceeded { what, limit });
        if self.section_size == 0 {
            return invalid("a section holds at least one key");
        }
        if self.section_size > MAX_SECTION_SIZE {
            return limit("keys per section", MAX_SECTION_SIZE);
        }
        if self.step == 0 {
            return invalid("the section step must be at least 1");
        }
        if self.step > MAX_STEP {
            return limit("section step", MAX_STEP);
        }
        if self.max_sections == 0 {
            return invalid("max_sections must be at least 1");
        }
        if self.max_sections > MAX_SECTIONS {
            return limit("sections in memory", MAX_SECTIONS as u64);
        }
        let printable = self.prefix.bytes().all(|b| (0x21..=0x7e).contains(&b));
        if self.prefix.is_empty() || self.prefix.len() > MAX_PREFIX_LEN || !printable {
            return invalid("the section key prefix must be 1 to 100 printable ASCII bytes");
        }
        if !self.store.ascending() {
            return invalid(
                "a section sequencer needs a store whose ranges ascend (not a sharded or \
                 auto-increment store)",
            );
        }
        let Some(record) = self.record else {
            return invalid(
                "a section sequencer needs a record file (record(path)), or an explicit \
                 without_record()",
            );
        };
        let sections = Directory::new(self.max_sections)?;
        let (record, identity) = match record {
            Some(path) => {
                let file = OwnedFile::lock(&path, LABELS)?;
                let identity = check_record(&file, &self.store, self.section_size, &self.prefix)?;
                (Some(file), identity)
            }
            None => (None, self.store.identity()?),
        };
        Ok(SectionSequencer {
            fork: ForkGuard::new(),
            store: self.store,
            section_size: self.section_size,
            step: self.step,
            prefix: self.prefix,
            identity,
            sections,
            _record: record,
        })
    }
}

/// Reads the record (writing it on the first start) and checks it against the store and the
/// layout; returns the store's identity.
fn check_record<S: SegmentStore>(
    file: &OwnedFile,
    store: &S,
    section_size: u64,
    prefix: &str,
) -> Result<u64> {
    let Some(f) = durable::open_nofollow(file.path(), "read", &LABELS)? else {
        let identity = store.identity()?;
        file.replace(&render(identity, section_size, prefix))?;
        return Ok(identity);
    };
    let mut text = String::new();
    f.take(MAX_RECORD_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|_| DAMAGED)?;
    let (recorded, size, recorded_prefix) = parse(&text).ok_or(DAMAGED)?;
    if size != section_size || recorded_prefix != prefix {
        return Err(LAYOUT);
    }
    let identity = store.identity()?;
    if identity != recorded {
        return Err(LOST);
    }
    Ok(identity)
}

fn render(identity: u64, section_size: u64, prefix: &str) -> String {
    format!("{HEADER}\nstore {identity:016x}\nsection_size {section_size}\nprefix {prefix}\n{TRAILER}\n")
}

fn parse(text: &str) -> Option<(u64, u64, &str)> {
    let mut lines = text.strip_suffix('\n')?.split('\n');
    if lines.next()? != HEADER {
        return None;
    }
    let identity = u64::from_str_radix(lines.next()?.strip_prefix("store ")?, 16).ok()?;
    let size = lines.next()?.strip_prefix("section_size ")?.parse().ok()?;
    let prefix = lines.next()?.strip_prefix("prefix ")?;
    if lines.next()? != TRAILER || lines.next().is_some() || identity == 0 {
        return None;
    }
    Some((identity, size, prefix))
}

impl<S: SegmentStore> SectionSequencer<S> {
    /// The next sequence of `key`: above every sequence served for it before, in this run or
    /// an earlier one. Waits for a store round trip only when the key's section needs a raise.
    ///
    /// Errors: [`Error::LimitExceeded`] for a key of a section beyond `max_sections`;
    /// [`Error::StoreMismatch`] for a section stopped (see the [module docs](self)); the
    /// store's errors (the key has not advanced; call again).
    #[inline]
    pub fn next(&self, key: u64) -> Result<u64> {
        self.fork.check()?;
        let (section, index) = self.locate(key)?;
        self.advance(section, index)
    }

    /// The next sequence of each key of `keys` into `out` (which must be as long), as
    /// [`next`](Self::next) one after the other: a key listed twice gets two sequences. At most
    /// [`limits::MAX_BATCH`] keys. On an error, the keys before the failing one have advanced
    /// (their sequences are in `out`); the rest have not.
    pub fn next_many(&self, keys: &[u64], out: &mut [u64]) -> Result<()> {
        self.fork.check()?;
        limits::batch_len(keys.len() as u64)?;
        if keys.len() != out.len() {
            return Err(Error::InvalidConfig {
                reason: "next_many needs one output slot per key",
            });
        }
        let mut cached: Option<(u64, &Section)> = None;
        for (&key, slot) in keys.iter().zip(out.iter_mut()) {
            let number = key / self.section_size;
            let section = match cached {
                Some((n, s)) if n == number => s,
                _ => {
                    let s = self.section(number)?;
                    cached = Some((number, s));
                    s
                }
            };
            *slot = self.advance(section, (key % self.section_size) as usize)?;
        }
        Ok(())
    }

    /// A number at or above the last sequence served for `key` (in any run) and below its next
    /// one: the last one itself if this run served it, else what its section resumed above.
    /// Loads the key's section (one take) if this run has not used it yet.
    pub fn current(&self, key: u64) -> Result<u64> {
        self.fork.check()?;
        let (section, index) = self.locate(key)?;
        if section.max.load(Ordering::Acquire) == 0 {
            self.raise(section, 1)?;
        }
        let last = section.last.get(index).ok_or(INDEX)?;
        Ok(last
            .load(Ordering::Relaxed)
            .max(section.floor.load(Ordering::Acquire)))
    }

    /// The store's identity the sequencer checks sections against.
    pub fn identity(&self) -> u64 {
        self.identity
    }

    /// Keys per section.
    pub fn section_size(&self) -> u64 {
        self.section_size
    }

    /// Values one raise takes.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// How many sections are in memory.
    pub fn sections(&self) -> usize {
        self.sections.used.load(Ordering::Relaxed)
    }

    /// Bytes the sequencer holds for its sections: their keys ([`BYTES_PER_KEY`] each, whole
    /// sections), their bookkeeping and the section table.
    pub fn memory_bytes(&self) -> usize {
        let per_section = self.section_size as usize * BYTES_PER_KEY
            + std::mem::size_of::<Section>()
            + std::mem::size_of::<Box<Section>>();
        self.sections() * per_section
            + self.sections.slots.len() * std::mem::size_of::<OnceLock<Box<Section>>>()
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    #[inline]
    fn locate(&self, key: u64) -> Result<(&Section, usize)> {
        let section = self.section(key / self.section_size)?;
        Ok((section, (key % self.section_size) as usize))
    }

    #[inline]
    fn section(&self, number: u64) -> Result<&Section> {
        match self.sections.get(number) {
            Some(s) => Ok(s),
            None => self.sections.insert(number, self.section_size),
        }
    }

    #[inline]
    fn advance(&self, section: &Section, index: usize) -> Result<u64> {
        let last = section.last.get(index).ok_or(INDEX)?;
        let mut cur = last.load(Ordering::Relaxed);
        loop {
            // max before floor: the raise stores floor first, so a max that covers a sequence
            // comes with the floor it was taken with.
            let max = section.max.load(Ordering::Acquire);
            let floor = section.floor.load(Ordering::Acquire);
            let seq = cur.max(floor).saturating_add(1);
            if seq > max {
                self.raise(section, seq)?;
                continue;
            }
            // One word per key: the swap orders every sequence of the key.
            match last.compare_exchange_weak(cur, seq, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Ok(seq),
                Err(now) => cur = now,
            }
        }
    }

    /// Raises `section`'s maximum to at least `need` (one take), unless another caller did.
    #[cold]
    #[inline(never)]
    fn raise(&self, section: &Section, need: u64) -> Result<()> {
        let mut raise = lock(&section.raise);
        if let Some(e) = raise.stopped {
            return Err(e);
        }
        let max = section.max.load(Ordering::Acquire);
        if raise.loaded && max >= need {
            return Ok(());
        }
        let key = format!("{}{}", self.prefix, section.number);
        let r = self.store.take(&key, self.step)?;
        if r.is_empty() {
            return Err(Error::StoreUnavailable {
                store: self.store.kind(),
                op: "take",
                reason: "the store returned an empty range",
            });
        }
        if !raise.loaded {
            // This run's first take: the counter is above everything served in the section
            // before — if the store is still the recorded one (a store that lost its data
            // starts at 1 again).
            if self.store.identity()? != self.identity {
                return Err(stop(section, &mut raise, LOST));
            }
            section
                .floor
                .store(r.start.saturating_sub(1), Ordering::Release);
            section.max.store(r.end - 1, Ordering::Release);
            raise.loaded = true;
        } else if r.start == max.saturating_add(1) {
            section.max.store(r.end - 1, Ordering::Release);
        } else {
            let e = if r.start <= max { WENT_BACK } else { MOVED };
            return Err(stop(section, &mut raise, e));
        }
        Ok(())
    }
}

/// Stops `section` for good with `e`: its maximum drops to 0, so every later call takes the
/// raise path, which answers `e`. What its keys were served stays served.
fn stop(section: &Section, raise: &mut Raise, e: Error) -> Error {
    raise.stopped = Some(e);
    section.max.store(0, Ordering::Release);
    e
}

const INDEX: Error = Error::InvalidConfig {
    reason: "a key's index lies outside its section",
};

impl<S: SegmentStore> std::fmt::Debug for SectionSequencer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SectionSequencer")
            .field("store", &self.store.kind())
            .field("section_size", &self.section_size)
            .field("step", &self.step)
            .field("prefix", &self.prefix)
            .field("sections", &self.sections())
            .finish_non_exhaustive()
    }
}

impl Section {
    fn new(number: u64, keys: u64) -> Result<Box<Section>> {
        let mut last = Vec::new();
        last.try_reserve_exact(keys as usize)
            .map_err(|_| out_of_memory())?;
        last.extend((0..keys).map(|_| AtomicU64::new(0)));
        Ok(Box::new(Section {
            number,
            floor: AtomicU64::new(0),
            max: AtomicU64::new(0),
            last: last.into_boxed_slice(),
            raise: Mutex::new(Raise::default()),
        }))
    }
}

impl Directory {
    fn new(limit: usize) -> Result<Directory> {
        // At most half full: probes stay short and always end at an empty slot.
        let capacity = (2 * limit).next_power_of_two();
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(capacity)
            .map_err(|_| out_of_memory())?;
        slots.extend((0..capacity).map(|_| OnceLock::new()));
        Ok(Directory {
            slots: slots.into_boxed_slice(),
            shift: 64 - capacity.trailing_zeros(),
            used: AtomicUsize::new(0),
            limit,
        })
    }

    #[inline]
    fn home(&self, number: u64) -> usize {
        // Fibonacci hashing; a table of one slot has shift 64, which checked_shr maps to 0.
        number
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .checked_shr(self.shift)
            .unwrap_or(0) as usize
    }

    #[inline]
    fn get(&self, number: u64) -> Option<&Section> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(number);
        for _ in 0..self.slots.len() {
            let s = self.slots.get(i)?.get()?;
            if s.number == number {
                return Some(s);
            }
            i = (i + 1) & mask;
        }
        None
    }

    /// Section `number`, created with `keys` keys unless another thread did first.
    #[cold]
    fn insert(&self, number: u64, keys: u64) -> Result<&Section> {
        if self.used.fetch_add(1, Ordering::Relaxed) >= self.limit {
            self.used.fetch_sub(1, Ordering::Relaxed);
            // Another thread may have created it meanwhile.
            return self.get(number).ok_or(Error::LimitExceeded {
                what: "sections of a section sequencer",
                limit: self.limit as u64,
            });
        }
        let mut fresh = match Section::new(number, keys) {
            Ok(s) => Some(s),
            Err(e) => {
                self.used.fetch_sub(1, Ordering::Relaxed);
                return Err(e);
            }
        };
        let mask = self.slots.len() - 1;
        let mut i = self.home(number);
        for _ in 0..self.slots.len() {
            let Some(slot) = self.slots.get(i) else { break };
            if slot.get().is_none() {
                if let Some(s) = fresh.take() {
                    if let Err(s) = slot.set(s) {
                        fresh = Some(s);
                    }
                }
            }
            if let Some(s) = slot.get().filter(|s| s.number == number) {
                if fresh.is_some() {
                    // Another thread's section won the slot: ours was not inserted.
                    self.used.fetch_sub(1, Ordering::Relaxed);
                }
                return Ok(s);
            }
            i = (i + 1) & mask;
        }
        self.used.fetch_sub(1, Ordering::Relaxed);
        Err(Error::LimitExceeded {
            what: "sections of a section sequencer",
            limit: self.limit as u64,
        })
    }
}
