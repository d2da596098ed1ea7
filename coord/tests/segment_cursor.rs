//! The allocator's lock-free cursor under contention: eight threads claim values (one at a time,
//! by name and through key handles, and in batches) while windows switch all the time — small
//! ranges, prefetches landing, checkpoints and stats sealing the cursor in between. No value is
//! served twice, and after a clean close every value the store handed out is either served or
//! in the journal, exactly once. Also: the per-thread key cache never answers for another
//! allocator. (The protocol itself is model-checked in `core/tests/loom_cursor.rs`.)

mod support;

use std::collections::HashMap;
use std::fs;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use idmint::segment::SegmentConfig;
use idmint_coord::segment::journal::Journal;
use idmint_coord::segment::memory::MemoryStore;
use idmint_coord::segment::{SegmentAllocator, CACHED_KEYS};
use support::temp_dir;

const KEYS: [&str; 2] = ["a", "b"];

#[test]
fn eight_threads_switching_windows_serve_each_value_once_and_the_journal_holds_the_rest() {
    let dir = temp_dir("segment-cursor");
    let journal = dir.join("segments.journal");
    let store = Arc::new(MemoryStore::new());
    // Ranges of 32 to 256 values, the next one asked for at half: windows end every few dozen
    // values, and fetched ranges land while the threads claim.
    let cfg = SegmentConfig::new()
        .step(32)
        .step_bounds(32, 256)
        .refill_at_percent(50);
    let alloc = SegmentAllocator::builder(Arc::clone(&store), cfg)
        .journal(&journal)
        .checkpoint_every(Duration::from_millis(3))
        // A loaded machine can take long over an fsync; a caller behind a fence waits for it.
        .wait_timeout(Duration::from_secs(120))
        .build()
        .unwrap();
    let done = AtomicBool::new(false);
    let per_thread: Vec<HashMap<&str, Vec<u64>>> = thread::scope(|s| {
        let alloc = &alloc;
        let done = &done;
        // Seals and republishes the cursors between the claims: explicit checkpoints and stats.
        let sealer = s.spawn(move || {
            let mut rounds = 0u32;
            while !done.load(Ordering::Relaxed) {
                alloc.checkpoint().unwrap();
                for k in KEYS {
                    let _ = alloc.stats(k);
                }
                rounds += 1;
                thread::sleep(Duration::from_micros(200));
            }
            rounds
        });
        let workers: Vec<_> = (0..8)
            .map(|t| {
                s.spawn(move || {
                    let handles: Vec<_> = KEYS.iter().map(|k| alloc.key(k).unwrap()).collect();
                    let mut got: HashMap<&str, Vec<u64>> = HashMap::new();
                    let mut batch = [0u64; 7];
                    for i in 0..30_000usize {
                        let which = (i / 5 + t) % 2;
                        let key = KEYS[which];
                        let ids = got.entry(key).or_default();
                        match (i + t) % 4 {
                            0 | 1 => ids.push(alloc.next_id(key).unwrap()),
                            2 => ids.push(handles[which].next_id().unwrap()),
                            _ => {
                                let n = 1 + (i % batch.len());
                                if i % 8 < 4 {
                                    alloc.next_ids(key, &mut batch[..n]).unwrap();
                                } else {
                                    handles[which].next_ids(&mut batch[..n]).unwrap();
                                }
                                ids.extend_from_slice(&batch[..n]);
                            }
                        }
                    }
                    got
                })
            })
            .collect();
        let per_thread = workers.into_iter().map(|h| h.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        assert!(sealer.join().unwrap() > 0, "the sealer ran");
        per_thread
    });
    let stats = KEYS.map(|k| alloc.stats(k).unwrap());
    alloc.close().unwrap();

    let recorded = Journal::read(&journal).unwrap();
    for (i, key) in KEYS.into_iter().enumerate() {
        let mut values: Vec<u64> = Vec::new();
        for got in &per_thread {
            let ids = got.get(key).map(Vec::as_slice).unwrap_or_default();
            assert!(
                ids.windows(2).all(|w| w[0] < w[1]),
                "{key}: a thread's IDs increase"
            );
            values.extend_from_slice(ids);
        }
        let served = values.len();
        for e in recorded.iter().filter(|e| e.key == key) {
            for r in &e.ranges {
                values.extend(r.start..r.end);
            }
        }
        values.sort_unstable();
        let taken = store.peek(key);
        let expected: Vec<u64> = (1..taken).collect();
        assert_eq!(
            values.len(),
            expected.len(),
            "{key}: {served} served + {} recorded vs {} taken ({:?})",
            values.len() - served,
            taken - 1,
            stats[i]
        );
        assert_eq!(
            values, expected,
            "{key}: served and recorded values are every taken value, each once"
        );
    }
    assert!(
        store.takes() > 100,
        "windows switched: {} takes",
        store.takes()
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_thread_key_cache_never_answers_for_another_allocator() {
    let cfg = SegmentConfig::new().fixed_step(1_000);
    let low = SegmentAllocator::new(MemoryStore::new(), cfg).unwrap();
    let high = SegmentAllocator::new(MemoryStore::starting_at(1_000_000), cfg).unwrap();
    // One name in both, alternating: each call reaches its own allocator's key.
    for i in 0..50u64 {
        assert_eq!(low.next_id("k").unwrap(), 1 + i);
        assert_eq!(high.next_id("k").unwrap(), 1_000_000 + i);
    }
    // More keys than the cache holds, round robin: every key keeps its own sequence.
    let names: Vec<String> = (0..CACHED_KEYS + 3).map(|i| format!("key-{i}")).collect();
    for round in 0..20u64 {
        for n in &names {
            assert_eq!(low.next_id(n).unwrap(), 1 + round, "{n}");
        }
    }
    // A new allocator (maybe at the same address) never gets the dropped one's cached key.
    drop(low);
    let again = SegmentAllocator::new(MemoryStore::starting_at(500), cfg).unwrap();
    assert_eq!(again.next_id("k").unwrap(), 500);
    assert_eq!(high.next_id("k").unwrap(), 1_000_050);
    // Another thread has its own cache and sees the same keys.
    thread::scope(|s| {
        s.spawn(|| assert_eq!(again.next_id("k").unwrap(), 501));
    });
    let mut batch = [0u64; 3];
    again.next_ids("k", &mut batch).unwrap();
    assert_eq!(batch, [502, 503, 504]);
    assert_eq!(
        again.stats("k").map(|s| s.buffered),
        Some(1_000 - 5),
        "the cursor's claims are counted as served"
    );
}
