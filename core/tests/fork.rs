//! A generator inherited across fork() must not mint in the child until it gets its own node.
#![cfg(unix)]

use idmint::{Config, Error, Layout, Snowflake};

#[test]
fn child_refuses_until_given_a_node_parent_unaffected() {
    let g = Snowflake::new(Config::new(Layout::preset("twitter").unwrap()).node(1)).unwrap();
    let before = g.next_id().unwrap();
    let mut fds = [0i32; 2];
    // SAFETY: plain pipe/fork/write/_exit; the child only touches the generator and the pipe.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        let pid = libc::fork();
        assert!(pid >= 0);
        if pid == 0 {
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
            libc::write(fds[1], &code as *const u8 as *const libc::c_void, 1);
            libc::_exit(0);
        }
        let mut code = 255u8;
        assert_eq!(
            libc::read(fds[0], &mut code as *mut u8 as *mut libc::c_void, 1),
            1
        );
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        assert_eq!(code, 0, "child checks failed: bitmask {code}");
    }
    assert!(g.next_id().unwrap() > before);
}

#[test]
fn child_draws_fresh_random_bytes_and_uuids() {
    // Warm the pool and the process-wide v7 generator in the parent.
    let mut warm = [0u8; 16];
    idmint::uuid_clock::random_fill(&mut warm).unwrap();
    idmint::uuid_clock::uuid7().unwrap();
    let mut fds = [0i32; 2];
    // SAFETY: plain pipe/fork/write/_exit; the child only draws bytes and a UUID.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        let pid = libc::fork();
        assert!(pid >= 0);
        if pid == 0 {
            let mut msg = [0u8; 32];
            let _ = idmint::uuid_clock::random_fill(&mut msg[..16]);
            if let Ok(u) = idmint::uuid_clock::uuid7() {
                msg[16..].copy_from_slice(u.as_bytes());
            }
            libc::write(fds[1], msg.as_ptr() as *const libc::c_void, 32);
            libc::_exit(0);
        }
        let mut child = [0u8; 32];
        assert_eq!(
            libc::read(fds[0], child.as_mut_ptr() as *mut libc::c_void, 32),
            32
        );
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        let mut mine = [0u8; 16];
        idmint::uuid_clock::random_fill(&mut mine).unwrap();
        let u = idmint::uuid_clock::uuid7().unwrap();
        assert_ne!(
            &child[..16],
            &mine[..],
            "parent and child drew the same pooled bytes"
        );
        assert_ne!(
            &child[16..],
            u.as_bytes(),
            "parent and child minted the same UUID"
        );
    }
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
    // SAFETY: fork/alarm/_exit; the child only mints a UUID and exits.
    unsafe {
        let pid = libc::fork();
        assert!(pid >= 0);
        if pid == 0 {
            libc::alarm(5); // a deadlock would be killed by SIGALRM and fail the test
            let ok = g.next().is_ok() && idmint::uuid_clock::uuid4().is_ok();
            libc::_exit(if ok { 0 } else { 1 });
        }
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child status {status}"
        );
    }
    holder.join().unwrap();
    let (a, b) = (g.next().unwrap(), g.next().unwrap());
    assert!(
        b > a,
        "the parent's generator keeps increasing after the fork"
    );
}
