//! A generator inherited across fork() must not mint in the child until it gets its own node.
#![cfg(unix)]

use idmint::{Config, Error, Layout, Snowflake, ThreadSnowflake};

/// Forks with generator `$gen` (node 1 of the twitter layout): the child refuses to mint until
/// given node 2, then mints above the parent; the parent is unaffected.
macro_rules! child_refuses_until_given_a_node {
    ($gen:expr) => {{
        let g = $gen;
        let before = g.next_id().unwrap();
        let [code] = in_child(|| {
            let mut code: u8 = 0;
            if g.next_id() != Err(Error::Forked) {
                code |= 1;
            }
            if g.next_ids(&mut [0u64; 4]) != Err(Error::Forked) {
                code |= 2;
            }
            if g.set_node(2).is_err() {
                code |= 4;
            }
            match g.next_id() {
                Ok(id)
                    if id > before
                        && Layout::preset("twitter")
                            .unwrap()
                            .decompose(id)
                            .unwrap()
                            .node
                            == 2 => {}
                _ => code |= 8,
            }
            [code]
        });
        assert_eq!(code, 0, "child checks failed: bitmask {code}");
        assert!(g.next_id().unwrap() > before);
    }};
}

/// Runs `child` in a forked child process and answers the bytes it returned. `child` must not
/// panic (it would unwind in the child): it reports what it found in its bytes instead. A child
/// that dies before writing them (a crash, a deadlock ended by `alarm`) fails the read, not
/// hangs it: the parent keeps no write end of the pipe open.
fn in_child<const N: usize>(child: impl FnOnce() -> [u8; N]) -> [u8; N] {
    let mut fds = [0i32; 2];
    // SAFETY: plain pipe/fork/write/read/waitpid/_exit; the child runs `child`, writes its
    // bytes to the pipe and exits without running the parent's destructors or test harness.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        let pid = libc::fork();
        assert!(pid >= 0);
        if pid == 0 {
            let msg = child();
            libc::write(fds[1], msg.as_ptr() as *const libc::c_void, N);
            libc::_exit(0);
        }
        libc::close(fds[1]);
        let mut got = [0u8; N];
        let n = libc::read(fds[0], got.as_mut_ptr() as *mut libc::c_void, N);
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        libc::close(fds[0]);
        assert_eq!(n, N as isize, "the child wrote no answer (status {status})");
        got
    }
}

#[test]
fn child_refuses_until_given_a_node_parent_unaffected() {
    child_refuses_until_given_a_node!(Snowflake::new(twitter_node_1()).unwrap());
}

/// The one-thread form checks for a fork on its own fast path too.
#[test]
fn a_thread_snowflake_refuses_in_a_child_as_well() {
    child_refuses_until_given_a_node!(ThreadSnowflake::new(twitter_node_1()).unwrap());
}

fn twitter_node_1() -> Config {
    Config::new(Layout::preset("twitter").unwrap()).node(1)
}

#[test]
fn child_draws_fresh_random_bytes_and_uuids() {
    use idmint::named::clocked as c;
    // Warm the random stream and the process-wide generators in the parent.
    let mut warm = [0u8; 16];
    c::random_fill(&mut warm).unwrap();
    let (v1, v6) = (c::uuid1().unwrap(), c::uuid6().unwrap());
    c::uuid7().unwrap();
    c::ulid().unwrap();
    let child = in_child(|| {
        let mut msg = [0u8; 80];
        let _ = c::random_fill(&mut msg[..16]);
        let found = [
            c::uuid7(),
            c::uuid1(),
            c::uuid6(),
            c::ulid().map(|u| u.to_uuid()),
        ];
        for (i, u) in found.into_iter().enumerate() {
            if let Ok(u) = u {
                msg[16 * (i + 1)..16 * (i + 2)].copy_from_slice(u.as_bytes());
            }
        }
        msg
    });
    let mut mine = [0u8; 16];
    c::random_fill(&mut mine).unwrap();
    let u = c::uuid7().unwrap();
    assert_ne!(
        &child[..16],
        &mine[..],
        "parent and child drew the same bytes"
    );
    assert_ne!(
        &child[16..32],
        u.as_bytes(),
        "parent and child minted the same UUID"
    );
    // v1 and v6: the child drew a node (and clock sequence) of its own.
    assert_ne!(
        &child[32 + 10..48],
        &v1.as_bytes()[10..],
        "v1 node inherited"
    );
    assert_ne!(
        &child[48 + 10..64],
        &v6.as_bytes()[10..],
        "v6 node inherited"
    );
    // ULID: the child's first is a fresh draw, not the parent's last plus one.
    let next = c::ulid().unwrap();
    assert_ne!(&child[64..], next.to_uuid().as_bytes());
    assert!(child[64..].iter().any(|&b| b != 0));
}

#[test]
fn child_is_not_stuck_on_a_lock_held_by_a_parent_thread_at_fork() {
    use std::sync::{mpsc, Arc};
    let g = Arc::new(idmint::UuidGenerator::new(7).unwrap());
    let (tx, rx) = mpsc::channel();
    let holder = {
        let g = g.clone();
        std::thread::spawn(move || {
            // The random source runs under the generator's lock: hold it across the fork.
            g.next_at(1_700_000_000_000, |buf| {
                tx.send(()).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(300));
                buf.fill(7);
                Ok(())
            })
            .unwrap()
        })
    };
    rx.recv().unwrap();
    let [ok] = in_child(|| {
        // A deadlock would be killed by SIGALRM, and the child's answer never come.
        // SAFETY: alarm has no memory effects.
        unsafe { libc::alarm(5) };
        [u8::from(
            g.next().is_ok() && idmint::named::clocked::uuid4().is_ok(),
        )]
    });
    assert_eq!(ok, 1, "the child could not mint");
    holder.join().unwrap();
    let (a, b) = (g.next().unwrap(), g.next().unwrap());
    assert!(
        b > a,
        "the parent's generator keeps increasing after the fork"
    );
}
