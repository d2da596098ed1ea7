//! Model check of the segment cursor: every interleaving of two threads claiming values (one
//! at a time and in runs) while windows are sealed and republished — by a claimer whose window
//! ran out, and by a third thread that re-publishes in the middle, as a checkpoint does —
//! serves each value at most once, and the values the seals report as claimed are exactly the
//! ones served: nothing is lost between windows.
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p idmint --test loom_cursor --release`.
#![cfg(loom)]

use idmint::segment::{Range, SegmentCursor};
use loom::sync::{Arc, Mutex};
use loom::thread;

/// What the driver's lock guards: a pretend buffer `[next, end)`.
struct Owner {
    next: u64,
    end: u64,
}

/// How many values each published window holds: small, so claims run out and windows switch.
const WINDOW: u64 = 2;

/// The driver's slow path: seal, move the buffer past what was claimed, serve one value under
/// the lock (`serve`), publish the next window.
fn locked(cursor: &SegmentCursor, owner: &Mutex<Owner>, serve: bool) -> Option<u64> {
    let mut o = owner.lock().unwrap();
    let sealed = cursor.seal();
    let claimed = sealed.claimed();
    if !claimed.is_empty() {
        assert_eq!(claimed.start, o.next, "claims are a prefix of the buffer");
        assert!(claimed.end <= o.end);
        o.next = claimed.end;
    }
    let v = if serve && o.next < o.end {
        o.next += 1;
        Some(o.next - 1)
    } else {
        None
    };
    let start = o.next;
    cursor.publish(
        sealed,
        Range {
            start,
            end: (start + WINDOW).min(o.end),
        },
    );
    v
}

fn claimer(cursor: &SegmentCursor, owner: &Mutex<Owner>, runs: bool) -> Vec<u64> {
    let mut got = Vec::new();
    for _ in 0..2 {
        let claimed = if runs {
            cursor
                .claim_run(2)
                .map(|r| (r.start..r.end).collect::<Vec<_>>())
        } else {
            cursor.claim().map(|v| vec![v])
        };
        match claimed {
            Some(vs) => got.extend(vs),
            None => got.extend(locked(cursor, owner, true)),
        }
    }
    got
}

#[test]
fn claims_and_switches_serve_each_value_once_and_lose_none() {
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(2);
    model.check(|| {
        let cursor = Arc::new(SegmentCursor::new());
        let owner = Arc::new(Mutex::new(Owner { next: 10, end: 17 }));
        // The first window, published before the threads start.
        locked(&cursor, &owner, false);
        let hs: Vec<_> = [false, true]
            .into_iter()
            .map(|runs| {
                let (c, o) = (cursor.clone(), owner.clone());
                thread::spawn(move || claimer(&c, &o, runs))
            })
            .collect();
        // A checkpoint-like re-publish in the middle, serving nothing.
        let (c, o) = (cursor.clone(), owner.clone());
        let republish = thread::spawn(move || locked(&c, &o, false));
        let mut served: Vec<u64> = Vec::new();
        for h in hs {
            let got = h.join().unwrap();
            assert!(got.windows(2).all(|w| w[0] < w[1]), "per thread increasing");
            served.extend(got);
        }
        assert_eq!(republish.join().unwrap(), None);
        // Close: what the last seal reports joins the buffer's served prefix.
        locked(&cursor, &owner, false);
        let next = owner.lock().unwrap().next;
        served.sort_unstable();
        let expected: Vec<u64> = (10..next).collect();
        assert_eq!(
            served, expected,
            "served = exactly the values the buffer moved past"
        );
    });
}
