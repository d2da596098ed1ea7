//! Named generators with store-backed types, end to end: `type=segment` on SQLite (threads,
//! the journal across a close and a rebuild, two generators on one file), `type=snowflake`
//! leased from a lock directory (distinct nodes, the fence after a release), and a type the
//! program registers.

mod support;

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use idmint::named::GeneratedId;
use idmint::{ErrorKind, Layout};
use idmint_coord::named::{self, NamedSource};
use support::TempDir;

fn u64s(g: &dyn NamedSource, n: usize) -> Vec<u64> {
    let mut v = vec![0; n];
    g.fill_u64(&mut v).unwrap();
    v
}

#[test]
fn segments_on_sqlite_from_threads_never_repeat() {
    let dir = TempDir::new("threads");
    let config = format!(
        "type=segment,store=sqlite:{},key=orders,step=50",
        dir.file("ids.db")
    );
    // Two generators on one database file: one key, two allocators, no value twice.
    let a: Arc<dyn NamedSource> = Arc::from(named::build(&config).unwrap());
    let b: Arc<dyn NamedSource> = Arc::from(named::build(&config).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let g = Arc::clone(if i % 2 == 0 { &a } else { &b });
            std::thread::spawn(move || {
                let mut ids = Vec::new();
                for _ in 0..300 {
                    ids.push(g.next_id().unwrap().as_u64().unwrap());
                }
                ids.extend(u64s(&*g, 700));
                ids
            })
        })
        .collect();
    let mut seen = HashSet::new();
    for t in threads {
        for id in t.join().unwrap() {
            assert!(seen.insert(id), "{id} twice");
        }
    }
    assert_eq!(seen.len(), 4000);
}

#[test]
fn a_segment_journal_survives_a_close_and_a_rebuild() {
    let dir = TempDir::new("journal");
    let config = format!(
        "{{\"type\":\"segment\",\"store\":\"sqlite:{}\",\"key\":\"orders\",\"step\":\"100\",\"journal\":\"{}\"}}",
        dir.file("ids.db"),
        dir.file("ids.journal")
    );
    let g = named::build(&config).unwrap();
    assert_eq!(g.next_id().unwrap(), GeneratedId::U64(1));
    assert_eq!(u64s(&*g, 2), [2, 3]);
    g.close().unwrap();
    // The unused remainder of the range was recorded and is served first.
    let g = named::build(&config).unwrap();
    assert_eq!(g.next_id().unwrap(), GeneratedId::U64(4));
    g.close().unwrap();
    // Without the journal the next start skips what the store handed out.
    let plain = format!(
        "type=segment,store=sqlite:{},key=orders,step=100",
        dir.file("ids.db")
    );
    let g = named::build(&plain).unwrap();
    assert!(g.next_id().unwrap().as_u64().unwrap() > 100);
}

#[test]
fn leased_snowflakes_get_distinct_nodes_and_fences() {
    let dir = TempDir::new("lease");
    let config = format!(
        "type=snowflake,layout=twitter,lease=file:{},namespace=named,nodes=2",
        dir.file("leases")
    );
    let layout = Layout::preset("twitter").unwrap();
    let a = named::build(&config).unwrap();
    let b = named::build(&config).unwrap();
    let (ia, ib) = (u64s(&*a, 1000), u64s(&*b, 1000));
    let (na, nb) = (
        layout.decompose(ia[0]).unwrap().node,
        layout.decompose(ib[0]).unwrap().node,
    );
    assert_ne!(na, nb);
    let all: HashSet<u64> = ia.iter().chain(&ib).copied().collect();
    assert_eq!(all.len(), 2000);
    // Both nodes are held.
    let e = named::build(&config).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoFreeNode);
    // The next holder of a released node starts after its last ID.
    let last = a.next_id().unwrap().as_u64().unwrap();
    a.close().unwrap();
    let c = named::build(&config).unwrap();
    let first = c.next_id().unwrap().as_u64().unwrap();
    assert_eq!(layout.decompose(first).unwrap().node, na);
    assert!(layout.timestamp_ms(first) > layout.timestamp_ms(last));
    c.close().unwrap();
    b.close().unwrap();
}

struct Countdown {
    next: AtomicU64,
}

impl NamedSource for Countdown {
    fn kind(&self) -> &str {
        "it_countdown"
    }
    fn config(&self) -> String {
        format!(
            "type=it_countdown,from={}",
            self.next.load(Ordering::Relaxed)
        )
    }
    fn next_id(&self) -> idmint::Result<GeneratedId> {
        let n = self.next.fetch_sub(1, Ordering::Relaxed);
        if n == 0 {
            return Err(idmint::Error::LimitExceeded {
                what: "countdown values",
                limit: 0,
            });
        }
        Ok(GeneratedId::U64(n))
    }
}

#[test]
fn registered_types_are_built_by_name_everywhere() {
    named::register("it_countdown", |spec| {
        spec.check_keys(&["type", "from"], "unknown key (type, from)")?;
        let from = spec.u64("from")?.unwrap_or(10);
        Ok(Box::new(Countdown {
            next: AtomicU64::new(from),
        }))
    })
    .unwrap();
    let g = named::build(r#"{"type":"it_countdown","from":3}"#).unwrap();
    assert_eq!(g.config(), "type=it_countdown,from=3");
    assert_eq!(u64s(&*g, 3), [3, 2, 1]);
    assert_eq!(g.next_id().unwrap_err().kind(), ErrorKind::LimitExceeded);
    let e = named::build("type=it_countdown,to=3").unwrap_err();
    assert_eq!(
        e,
        idmint::Error::InvalidSpec {
            at: 18,
            reason: "unknown key (type, from)"
        }
    );
    assert!(named::register("it_countdown", |_| unreachable!()).is_err());
    assert!(named::register("segment", |_| unreachable!()).is_err());
}

/// `next_at`'s random function may be the host's code calling the same source again (a
/// Python or JavaScript callback): it runs with the source unlocked, so the inner call comes
/// first and the outer one follows, where it would otherwise wait for itself forever.
#[test]
fn a_random_function_may_call_its_source_again() {
    for config in ["type=uuid1", "type=uuid4", "type=uuid6", "type=uuid7"] {
        let g = named::build(config).unwrap();
        let mut inner = None;
        let mut random = |buf: &mut [u8]| {
            let mut fill = |b: &mut [u8]| {
                b.fill(3);
                Ok(())
            };
            inner = Some(g.next_at(1_700_000_000_000, &mut fill)?);
            buf.fill(5);
            Ok(())
        };
        let outer = g.next_at(1_700_000_000_000, &mut random).unwrap();
        let inner = inner.expect("the inner call ran");
        assert_ne!(inner, outer, "{config}");
    }
}

/// A core type's named generator holds the parent's state after fork() (a Snowflake node and
/// its last tick, a v1 node and clock sequence): in the child every call refuses with
/// `Forked`, the clocked and the sans-IO one; the parent carries on.
#[test]
fn core_types_refuse_in_a_forked_child() {
    let configs = [
        "type=snowflake,layout=twitter,node=5",
        "type=uuid1",
        "type=uuid7,method=random_increment",
    ];
    let gens: Vec<Box<dyn NamedSource>> =
        configs.iter().map(|c| named::build(c).unwrap()).collect();
    let before: Vec<GeneratedId> = gens.iter().map(|g| g.next_id().unwrap()).collect();
    // SAFETY: the child only makes the calls below (which refuse before any lock) and _exit.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let mut code = 0;
        for (i, g) in gens.iter().enumerate() {
            if g.next_id() != Err(idmint::Error::Forked) {
                code |= 1 << i;
            }
            let fill = |b: &mut [u8]| {
                b.fill(1);
                Ok(())
            };
            if g.next_at(1_700_000_000_000, &mut { fill }) != Err(idmint::Error::Forked) {
                code |= 8 << i;
            }
        }
        // SAFETY: ends the child without running destructors or atexit handlers.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waits for the child we just forked.
    let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(rc, pid);
    assert!(libc::WIFEXITED(status), "child crashed or hung");
    assert_eq!(
        libc::WEXITSTATUS(status),
        0,
        "a core type minted in the child"
    );
    for (g, b) in gens.iter().zip(before) {
        let after = g.next_id().unwrap();
        assert_ne!(after, b);
    }
}
