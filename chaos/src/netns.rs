//! The topology: one network namespace per host (instances, store members, clients), each with
//! a veth pair into a bridge that lives in a namespace of its own. Addresses exist only inside
//! these namespaces. Every name starts with [`PREFIX`], so namespaces left by a run that
//! crashed are recognized and removed before the next run builds its own.
//!
//! Partitions are routes: a host cut off from another sends what it addresses to that host
//! to a gateway nobody answers ([`BLACKHOLE`]), so packets vanish on the wire as a real
//! partition drops them (the sender times out; after the neighbour lookup fails, about 3 s,
//! the kernel reports the host unreachable). This kernel has no netem, no nftables or
//! iptables, no VLAN filtering on bridges: routes are what is left, and they are enough.

use std::collections::BTreeSet;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};

/// Every namespace, bridge port and veth name of the harness starts with this.
pub const PREFIX: &str = "idmc-";
/// The bridge's namespace.
const BRIDGE_NS: &str = "idmc-br";
/// The subnet's first three octets.
const NET: &str = "10.77.0";
/// An address on the subnet nobody has: routing a host's traffic through it drops it.
pub const BLACKHOLE: &str = "10.77.0.254";

/// One host of the topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// Its namespace.
    pub ns: String,
    /// Its address.
    pub ip: String,
}

/// Runs `ip ARGS`, failing with its stderr.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The harness's namespaces that exist now (from an earlier run too).
pub fn existing() -> Vec<String> {
    let out = Command::new("ip").args(["netns", "list"]).output();
    let text = out
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    text.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with(PREFIX))
        .map(str::to_string)
        .collect()
}

/// Kills every process left in the harness's namespaces and deletes them: the state an
/// earlier run that crashed may have left.
pub fn remove_stale() {
    for ns in existing() {
        kill_all_in(&ns);
        let _ = ip(&["netns", "delete", &ns]);
    }
}

/// SIGKILLs every process in namespace `ns` (SIGCONT first: a stopped one would linger) but
/// the harness itself, whose threads may be in it.
pub fn kill_all_in(ns: &str) {
    // `ip netns pids` lists threads too: one of ours is any task of this process.
    let mine = |p: i32| std::path::Path::new(&format!("/proc/self/task/{p}")).exists();
    let out = Command::new("ip").args(["netns", "pids", ns]).output();
    let text = out
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    for pid in text
        .split_whitespace()
        .filter_map(|p| p.parse::<i32>().ok())
        .filter(|&p| !mine(p))
    {
        // SAFETY: kill(2) with a pid read from the kernel; no memory is touched.
        unsafe {
            libc::kill(pid, libc::SIGCONT);
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

/// The namespaces of one run: created by [`Topology::build`], removed by [`Topology::remove`]
/// (and by `Drop`).
#[derive(Debug)]
pub struct Topology {
    hosts: Vec<Host>,
    /// (a, b) pairs of host indexes that cannot reach each other, a < b.
    cuts: BTreeSet<(usize, usize)>,
    removed: bool,
}

impl Topology {
    /// The bridge and one namespace per name in `names` (host `k` gets address `.(10 + k)`).
    pub fn build(names: &[String]) -> Result<Topology, String> {
        remove_stale();
        ip(&["netns", "add", BRIDGE_NS])?;
        let mut topo = Topology {
            hosts: Vec::new(),
            cuts: BTreeSet::new(),
            removed: false,
        };
        ip(&["-n", BRIDGE_NS, "link", "add", "br0", "type", "bridge"])?;
        ip(&["-n", BRIDGE_NS, "link", "set", "br0", "up"])?;
        for (k, name) in names.iter().enumerate() {
            let ns = format!("{PREFIX}{name}");
            let addr = format!("{NET}.{}", 10 + k);
            let port = format!("{PREFIX}{name}");
            ip(&["netns", "add", &ns])?;
            topo.hosts.push(Host {
                ns: ns.clone(),
                ip: addr.clone(),
            });
            ip(&[
                "link", "add", &port, "type", "veth", "peer", "name", "eth0", "netns", &ns,
            ])?;
            ip(&["link", "set", &port, "netns", BRIDGE_NS])?;
            ip(&["-n", BRIDGE_NS, "link", "set", &port, "master", "br0"])?;
            ip(&["-n", BRIDGE_NS, "link", "set", &port, "up"])?;
            ip(&["-n", &ns, "link", "set", "lo", "up"])?;
            ip(&[
                "-n",
                &ns,
                "addr",
                "add",
                &format!("{addr}/24"),
                "dev",
                "eth0",
            ])?;
            ip(&["-n", &ns, "link", "set", "eth0", "up"])?;
        }
        Ok(topo)
    }

    /// The hosts, in the order they were named.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// Cuts the link between hosts `a` and `b`, both ways.
    pub fn cut(&mut self, a: usize, b: usize) -> Result<(), String> {
        let key = (a.min(b), a.max(b));
        if a == b || !self.cuts.insert(key) {
            return Ok(());
        }
        for (from, to) in [(a, b), (b, a)] {
            let dst = format!("{}/32", self.hosts[to].ip);
            ip(&[
                "-n",
                &self.hosts[from].ns,
                "route",
                "replace",
                &dst,
                "via",
                BLACKHOLE,
            ])?;
        }
        Ok(())
    }

    /// Cuts every link between a host in `side` and one in `other`.
    pub fn split(&mut self, side: &[usize], other: &[usize]) -> Result<(), String> {
        for &a in side {
            for &b in other {
                self.cut(a, b)?;
            }
        }
        Ok(())
    }

    /// Restores every link.
    pub fn heal(&mut self) -> Result<(), String> {
        let cuts: Vec<(usize, usize)> = self.cuts.iter().copied().collect();
        let mut first_err = Ok(());
        for (a, b) in cuts {
            for (from, to) in [(a, b), (b, a)] {
                let dst = format!("{}/32", self.hosts[to].ip);
                if let Err(e) = ip(&["-n", &self.hosts[from].ns, "route", "del", &dst]) {
                    if first_err.is_ok() {
                        first_err = Err(e);
                    }
                }
            }
            self.cuts.remove(&(a, b));
        }
        first_err
    }

    /// Kills what runs in the namespaces and deletes them.
    pub fn remove(&mut self) {
        if self.removed {
            return;
        }
        self.removed = true;
        for h in &self.hosts {
            kill_all_in(&h.ns);
        }
        for h in &self.hosts {
            let _ = ip(&["netns", "delete", &h.ns]);
        }
        let _ = ip(&["netns", "delete", BRIDGE_NS]);
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Moves the calling thread into namespace `ns` (only this thread: `setns` is per thread), so
/// its sockets use that namespace's network.
pub fn enter(ns: &str) -> Result<(), String> {
    let f = File::open(format!("/run/netns/{ns}")).map_err(|e| format!("open netns {ns}: {e}"))?;
    // SAFETY: setns(2) on a descriptor we own, for the calling thread only.
    let rc = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("setns {ns}: {}", std::io::Error::last_os_error()))
    }
}
