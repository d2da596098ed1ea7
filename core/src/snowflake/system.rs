//! [`Snowflake`]: the std front door — a [`Clocked`] [`AtomicSnowflake`] (clock, waiting) with
//! OS randomness for random sequence starts, and fork detection — and [`ThreadSnowflake`], the
//! same for one thread.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::clock::{Clock, SystemClock};
use crate::error::{Error, Result};
use crate::fork;
use crate::random::os_random_u64;
use crate::snowflake::atomic::AtomicSnowflake;
use crate::snowflake::clocked::Clocked;
use crate::snowflake::generator::Generator;
use crate::snowflake::policy::Config;
use crate::snowflake::state::Run;
use crate::snowflake::stats::Stats;

/// A thread-safe Snowflake generator that reads its own clock and waits when a policy asks.
///
/// The hot path reads a coarse clock (see [`crate::clock`]); an ID's time field is never later
/// than the true time and earlier by at most the coarse clock's lag (about one kernel tick).
///
/// After `fork()` the child's copy refuses to mint ([`Error::Forked`]) until it is given a node
/// of its own with [`Snowflake::set_node`]; the parent carries on unaffected.
///
/// # Examples
/// ```
/// use idmint::{Config, Layout, Snowflake};
/// let gen = Snowflake::new(Config::new(Layout::preset("twitter")?).node(1))?;
/// let a = gen.next_id()?;
/// let b = gen.next_id()?;
/// assert!(b > a);
/// let mut batch = vec![0u64; 10_000];
/// gen.next_ids(&mut batch)?;
/// assert!(batch.windows(2).all(|w| w[0] < w[1]));
/// # Ok::<(), idmint::Error>(())
/// ```
#[derive(Debug)]
pub struct Snowflake<C: Clock = SystemClock> {
    inner: Clocked<AtomicSnowflake, C>,
    born: AtomicU64,
}

impl Snowflake<SystemClock> {
    /// Builds a generator on the system clock. Fails if the layout's epoch is in the future
    /// or its time field has already overflowed (the error names the date).
    pub fn new(cfg: Config) -> Result<Snowflake<SystemClock>> {
        Snowflake::with_clock(cfg, SystemClock::new())
    }
}

impl<C: Clock> Snowflake<C> {
    /// Builds a generator on `clock`. With [`SequenceStart::Random`](crate::SequenceStart::Random) and seed 0 the seed is
    /// drawn from the OS.
    pub fn with_clock(cfg: Config, clock: C) -> Result<Snowflake<C>> {
        Ok(Snowflake {
            inner: Clocked::snowflake(cfg, clock, os_random_u64)?,
            born: AtomicU64::new(fork::generation()),
        })
    }

    /// The clock.
    pub fn clock(&self) -> &C {
        self.inner.clock()
    }

    /// The sans-IO generator underneath.
    pub fn generator(&self) -> &AtomicSnowflake {
        self.inner.generator()
    }

    /// The config this generator was built from.
    pub fn config(&self) -> &Config {
        self.gen().config()
    }

    /// The generator's counters.
    pub fn stats(&self) -> Stats {
        self.gen().stats()
    }

    /// The start of the latest tick issued so far (or of the fence); see
    /// [`AtomicSnowflake::high_water_ms`].
    pub fn high_water_ms(&self) -> Option<u64> {
        self.gen().high_water_ms()
    }

    /// The current node value.
    pub fn node(&self) -> u64 {
        self.gen().node()
    }

    /// Gives the generator another node, and re-arms it after a fork: call this in a child
    /// process with a node no other process uses.
    pub fn set_node(&self, node: u64) -> Result<()> {
        self.gen().set_node(node)?;
        self.born.store(fork::generation(), Relaxed);
        Ok(())
    }

    #[inline(always)]
    fn gen(&self) -> &AtomicSnowflake {
        self.inner.generator()
    }

    #[inline(always)]
    fn check_fork(&self) -> Result<()> {
        if fork::current() != self.born.load(Relaxed) {
            return Err(Error::Forked);
        }
        Ok(())
    }

    /// Mints one ID, waiting if the policy asks (sequence exhausted, short clock step back).
    #[inline]
    pub fn next_id(&self) -> Result<u64> {
        if fork::current() == self.born.load(Relaxed) {
            if let Some(id) = self.inner.shared_fast_id() {
                return Ok(id);
            }
        }
        self.next_id_slow()
    }

    /// [`next_id`](Self::next_id) for a caller no other thread mints alongside
    /// ([`ThreadSnowflake`]).
    #[inline(always)]
    fn next_id_unshared(&self) -> Result<u64> {
        if fork::current() == self.born.load(Relaxed) {
            if let Some(id) = self.inner.unshared_fast_id() {
                return Ok(id);
            }
        }
        self.next_id_slow()
    }

    /// [`next_id`](Self::next_id) past its fast path: the fork check's error, waiting.
    #[cold]
    #[inline(never)]
    fn next_id_slow(&self) -> Result<u64> {
        self.check_fork()?;
        self.inner.by_ref().next_id()
    }

    /// Mints one ID without waiting: returns [`Error::WouldBlock`] where [`next_id`](Self::next_id) would wait.
    pub fn try_next_id(&self) -> Result<u64> {
        self.check_fork()?;
        self.inner.by_ref().try_next_id()
    }

    /// Reserves a run of up to `max` IDs from one tick (waiting if needed).
    #[inline]
    pub fn reserve(&self, max: u64) -> Result<Run> {
        self.check_fork()?;
        self.inner.by_ref().reserve(max)
    }

    /// Fills `out` with fresh IDs (waiting between ticks as needed), one swap per tick.
    pub fn next_ids(&self, out: &mut [u64]) -> Result<()> {
        self.check_fork()?;
        self.inner.by_ref().next_ids(out)
    }

    /// The sans-IO call: mints at `now_ms` as given (for replays and tests), never waits.
    pub fn next_id_at(&self, now_ms: u64) -> Result<u64> {
        self.check_fork()?;
        self.gen().next_id_at(now_ms)
    }

    /// Sans-IO [`reserve`](Self::reserve): a run of up to `max` IDs at `now_ms`, never waits.
    pub fn reserve_at(&self, now_ms: u64, max: u64) -> Result<Run> {
        self.check_fork()?;
        self.gen().reserve_at(now_ms, max)
    }

    /// Sans-IO [`next_ids`](Self::next_ids): fills `out` at `now_ms` and returns how many were
    /// written (fewer when the policy asks to wait); fails only if none could be issued.
    pub fn next_ids_at(&self, now_ms: u64, out: &mut [u64]) -> Result<usize> {
        self.check_fork()?;
        self.gen().next_ids_at(now_ms, out)
    }
}

/// The sans-IO calls, fork-checked, for code generic over [`Generator`].
macro_rules! snowflake_generator {
    ($t:ty) => {
        impl<C: Clock> Generator for $t {
            #[inline]
            fn config(&self) -> &Config {
                Snowflake::config(self)
            }
            #[inline]
            fn node(&self) -> u64 {
                Snowflake::node(self)
            }
            #[inline]
            fn stats(&self) -> Stats {
                Snowflake::stats(self)
            }
            #[inline]
            fn reserve_at(&mut self, now_ms: u64, max: u64) -> Result<Run> {
                Snowflake::reserve_at(self, now_ms, max)
            }
            #[inline]
            fn next_id_at(&mut self, now_ms: u64) -> Result<u64> {
                Snowflake::next_id_at(self, now_ms)
            }
            #[inline]
            fn next_ids_at(&mut self, now_ms: u64, out: &mut [u64]) -> Result<usize> {
                Snowflake::next_ids_at(self, now_ms, out)
            }
        }
    };
}

snowflake_generator!(Snowflake<C>);
snowflake_generator!(&Snowflake<C>);

/// A [`Snowflake`] that stays on one thread: it is `!Sync`, so no two threads can mint from it at
/// once, and its [`next_id`](Self::next_id) writes the generator's state back with a plain store
/// where a [`Snowflake`] needs a compare-and-swap (~4 ns of a call). For hosts whose objects live
/// on one thread (a JavaScript engine's). The other methods are the [`Snowflake`]'s, forwarded
/// one by one: no `Deref` and no `generator()`, which would hand out a shareable view that
/// another thread could mint from alongside. The IDs are exactly those a [`Snowflake`] would
/// issue (`core/tests/thread_snowflake.rs`).
///
/// # Examples
/// ```
/// use idmint::{Config, Layout, ThreadSnowflake};
/// let gen = ThreadSnowflake::new(Config::new(Layout::preset("twitter")?).node(1))?;
/// let (a, b) = (gen.next_id()?, gen.next_id()?);
/// assert!(b > a);
/// # Ok::<(), idmint::Error>(())
/// ```
///
/// It cannot be shared between threads:
/// ```compile_fail
/// use idmint::{Config, Layout, ThreadSnowflake};
/// let gen = ThreadSnowflake::new(Config::new(Layout::preset("twitter").unwrap()).node(1)).unwrap();
/// std::thread::scope(|s| {
///     s.spawn(|| gen.next_id());
/// });
/// ```
#[derive(Debug)]
pub struct ThreadSnowflake<C: Clock = SystemClock> {
    inner: Snowflake<C>,
    /// `Cell` makes the type `!Sync`; it stays `Send` (moving it moves the only minter).
    one_thread: PhantomData<Cell<()>>,
}

impl ThreadSnowflake<SystemClock> {
    /// Builds a generator on the system clock (as [`Snowflake::new`]).
    pub fn new(cfg: Config) -> Result<ThreadSnowflake<SystemClock>> {
        Ok(ThreadSnowflake::from(Snowflake::new(cfg)?))
    }
}

/// Forwards `&self` methods to the [`Snowflake`] inside, each documented as the one it forwards.
macro_rules! forward {
    ($($name:ident($($arg:ident: $t:ty),*) -> $ret:ty;)*) => {
        $(
            #[doc = concat!("As [`Snowflake::", stringify!($name), "`].")]
            #[inline]
            pub fn $name(&self $(, $arg: $t)*) -> $ret {
                self.inner.$name($($arg),*)
            }
        )*
    };
}

impl<C: Clock> ThreadSnowflake<C> {
    /// Builds a generator on `clock` (as [`Snowflake::with_clock`]).
    pub fn with_clock(cfg: Config, clock: C) -> Result<ThreadSnowflake<C>> {
        Ok(ThreadSnowflake::from(Snowflake::with_clock(cfg, clock)?))
    }

    /// Mints one ID, waiting if the policy asks (as [`Snowflake::next_id`]).
    #[inline]
    pub fn next_id(&self) -> Result<u64> {
        self.inner.next_id_unshared()
    }

    forward! {
        try_next_id() -> Result<u64>;
        reserve(max: u64) -> Result<Run>;
        next_ids(out: &mut [u64]) -> Result<()>;
        next_id_at(now_ms: u64) -> Result<u64>;
        reserve_at(now_ms: u64, max: u64) -> Result<Run>;
        next_ids_at(now_ms: u64, out: &mut [u64]) -> Result<usize>;
        clock() -> &C;
        config() -> &Config;
        stats() -> Stats;
        high_water_ms() -> Option<u64>;
        node() -> u64;
        set_node(node: u64) -> Result<()>;
    }
}

impl<C: Clock> From<Snowflake<C>> for ThreadSnowflake<C> {
    fn from(inner: Snowflake<C>) -> ThreadSnowflake<C> {
        ThreadSnowflake {
            inner,
            one_thread: PhantomData,
        }
    }
}

impl<C: Clock> From<ThreadSnowflake<C>> for Snowflake<C> {
    fn from(t: ThreadSnowflake<C>) -> Snowflake<C> {
        t.inner
    }
}
