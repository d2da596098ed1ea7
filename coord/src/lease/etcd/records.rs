//! What the store keeps in etcd and how an acquire reads and chooses: the keys of a
//! namespace, the values of node records and lease keys, the epoch's info record, the
//! snapshot an acquire decides on, and the queue order it chooses a node by (see the
//! [module docs](super)).

use std::collections::HashSet;
use std::time::Duration;

use idmint::{Error, Result};

use super::gateway::unavailable;
use super::json::{Op, Range, Sort, Txn, TxnResponse};

pub(super) fn corrupt(op: &'static str) -> Error {
    unavailable(op, "corrupt record")
}

pub(super) fn lost(node: u64, reason: &'static str) -> Error {
    Error::LeaseLost { node, reason }
}

/// The keys of one namespace.
pub(super) struct Keys {
    pub epoch: String,
    pub info: String,
    pub lease_dir: String,
    pub node_dir: String,
}

impl Keys {
    pub fn new(prefix: &str, ns: &str) -> Keys {
        Keys {
            epoch: format!("{prefix}/epoch/{ns}"),
            info: format!("{prefix}/info/{ns}"),
            lease_dir: format!("{prefix}/lease/{ns}/"),
            node_dir: format!("{prefix}/node/{ns}/"),
        }
    }

    pub fn lease(&self, node: u64) -> String {
        format!("{}{node:020}", self.lease_dir)
    }

    pub fn node(&self, node: u64) -> String {
        format!("{}{node:020}", self.node_dir)
    }
}

/// The node of a key `DIR` + 20 digits.
pub(super) fn node_of(key: &[u8], dir: &str) -> Option<u64> {
    let digits = key.strip_prefix(dir.as_bytes())?;
    if digits.len() != 20 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// A bound as stored: 20 digits, so etcd's byte-wise value comparison is numeric.
pub(super) fn bound_text(ms: u64) -> String {
    format!("{ms:020}")
}

/// A node record's bound: `None` when empty (never recorded).
pub(super) fn parse_bound(v: &[u8]) -> std::result::Result<Option<u64>, ()> {
    if v.is_empty() {
        return Ok(None);
    }
    let s = std::str::from_utf8(v).map_err(|_| ())?;
    if s.len() != 20 {
        return Err(());
    }
    s.parse().map(Some).map_err(|_| ())
}

/// The value of a held node's key.
pub(super) fn lease_value(epoch: u64, owner: u64, holder: &str) -> String {
    format!("{epoch} {owner} {holder}")
}

/// The lock-delay facts of an epoch (`/PREFIX/info/NS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Info {
    pub cluster: u64,
    pub horizon: u64,
    pub fence: u64,
    pub lost_at: u64,
}

impl Info {
    pub fn text(&self) -> String {
        format!(
            "v1 {:x} {} {} {}",
            self.cluster, self.horizon, self.fence, self.lost_at
        )
    }

    pub fn parse(v: &[u8]) -> Option<Info> {
        let s = std::str::from_utf8(v).ok()?;
        let mut it = s.split(' ');
        if it.next()? != "v1" {
            return None;
        }
        let cluster = u64::from_str_radix(it.next()?, 16).ok()?;
        let horizon = it.next()?.parse().ok()?;
        let fence = it.next()?.parse().ok()?;
        let lost_at = it.next()?.parse().ok()?;
        if it.next().is_some() {
            return None;
        }
        Some(Info {
            cluster,
            horizon,
            fence,
            lost_at,
        })
    }
}

/// What an acquire read in one snapshot.
pub(super) struct Snapshot {
    pub cluster: u64,
    /// The epoch key: its value (`None` if unreadable) and mod revision.
    pub epoch: Option<(Option<u64>, i64)>,
    /// The info key: its value (`None` if unreadable) and mod revision.
    pub info: Option<(Option<Info>, i64)>,
    /// The highest node with a record.
    pub max_node: Option<u64>,
    /// Nodes held now.
    pub held: HashSet<u64>,
    /// Node records from the front of the queue: node, bound, mod revision.
    pub page: Vec<(u64, Option<u64>, i64)>,
    /// Whether there are more records than the page.
    pub more: bool,
}

/// Reads what an acquire decides on, in one linearizable snapshot; `limit` records of the
/// queue (0: all).
pub(super) fn read_txn(k: &Keys, limit: i64) -> Txn {
    Txn::new().and_then(read_ops(k, limit))
}

/// The reads of [`read_txn`]; also the else branch of a grant, so that an acquirer that lost a
/// race has what it needs for its next try in the same answer.
pub(super) fn read_ops(k: &Keys, limit: i64) -> Vec<Op> {
    vec![
        Op::get(&k.epoch),
        Op::get(&k.info),
        Op::range(
            &Range::prefix(&k.node_dir)
                .sort(Sort::KeyDescending)
                .limit(1)
                .keys_only(),
        ),
        Op::range(&Range::prefix(&k.lease_dir).keys_only()),
        // The page of the queue: node records sorted by last modification, oldest first.
        Op::range(
            &Range::prefix(&k.node_dir)
                .sort(Sort::ModAscending)
                .limit(limit),
        ),
    ]
}

pub(super) fn parse_snapshot(k: &Keys, r: &TxnResponse) -> Result<Snapshot> {
    let bad = || corrupt("acquire");
    let cluster = r.header.map_or(0, |h| h.cluster_id);
    let epoch = r.first_kv(0).map(|kv| {
        let v = std::str::from_utf8(&kv.value)
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|&e| e != 0);
        (v, kv.mod_revision)
    });
    let info = r
        .first_kv(1)
        .map(|kv| (Info::parse(&kv.value), kv.mod_revision));
    let max_node = match r.first_kv(2) {
        Some(kv) => Some(node_of(&kv.key, &k.node_dir).ok_or_else(bad)?),
        None => None,
    };
    let held = r
        .range(3)
        .ok_or_else(bad)?
        .kvs
        .iter()
        .filter_map(|kv| node_of(&kv.key, &k.lease_dir))
        .collect();
    let page_read = r.range(4).ok_or_else(bad)?;
    let mut page = Vec::with_capacity(page_read.kvs.len());
    for kv in &page_read.kvs {
        let Some(node) = node_of(&kv.key, &k.node_dir) else {
            continue;
        };
        let bound = parse_bound(&kv.value).map_err(|_| bad())?;
        page.push((node, bound, kv.mod_revision));
    }
    Ok(Snapshot {
        cluster,
        epoch,
        info,
        max_node,
        held,
        page,
        more: page_read.more,
    })
}

/// Which node to grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Pick {
    /// A never-used node, and the never-used nodes below it that were passed over (the
    /// `avoid` node, or others while acquirers race): they get an empty record if they have
    /// none, so they join the queue instead of being lost.
    New { node: u64, passed: Vec<u64> },
    /// A free node with a record: its bound and the record's mod revision.
    Free {
        node: u64,
        bound: Option<u64>,
        mod_rev: i64,
    },
}

/// How far a retry may stray from the front of the queue: acquirers that lost a race for the
/// same node spread over the next ones instead of racing for one node again.
pub(super) const SPREAD: u64 = 32;

/// A well-mixed number from `seed` (splitmix64's finaliser).
pub(super) fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Chooses a node (see the module docs' queue order); `None` if the snapshot shows none
/// (`s.more` then says whether a larger page could). `stray` (0 on a first try) lets a retry
/// take one of the first `stray + 1` candidates, chosen by `seed`, instead of the first.
pub(super) fn choose(
    s: &Snapshot,
    nodes: u64,
    avoid: Option<u64>,
    now_ms: u64,
    stray: u64,
    seed: u64,
) -> Option<Pick> {
    let skip = mix(seed) % (stray + 1);
    // Never-used nodes: above the highest record, and not held (a held node without a record
    // is someone's by hand).
    let mut fresh = Vec::new();
    let mut passed = Vec::new();
    let mut next = s.max_node.map_or(Some(0), |m| m.checked_add(1));
    while let Some(n) = next.filter(|&n| n < nodes && fresh.len() as u64 <= skip) {
        match n {
            _ if s.held.contains(&n) => {}
            _ if Some(n) == avoid => passed.push(n),
            _ => fresh.push(n),
        }
        next = n.checked_add(1);
    }
    if let Some(node) = fresh.pop() {
        passed.extend(fresh);
        passed.retain(|&m| m < node);
        passed.sort_unstable();
        return Some(Pick::New { node, passed });
    }
    // The queue: the first usable node (bound not ahead of now) — or the `skip`-th, or the
    // last usable there is — else the one with the nearest bound (or the `skip`-th nearest:
    // acquirers that lost a race spread over the nodes ahead too, instead of queueing one
    // behind another on the nearest).
    let mut usable = 0;
    let mut last_usable = None;
    let mut ahead: Vec<(u64, Pick)> = Vec::new();
    for &(node, bound, mod_rev) in &s.page {
        if node >= nodes || Some(node) == avoid || s.held.contains(&node) {
            continue;
        }
        let pick = Pick::Free {
            node,
            bound,
            mod_rev,
        };
        match bound {
            Some(b) if b > now_ms => ahead.push((b, pick)),
            _ => {
                if usable == skip {
                    return Some(pick);
                }
                usable += 1;
                last_usable = Some(pick);
            }
        }
    }
    if last_usable.is_some() {
        return last_usable;
    }
    // Stable: among equal bounds, the queue's order.
    ahead.sort_by_key(|(b, _)| *b);
    let at = usize::try_from(skip)
        .unwrap_or(usize::MAX)
        .min(ahead.len().checked_sub(1)?);
    Some(ahead.swap_remove(at).1)
}

/// An etcd lease id for a new grant: random, positive (etcd's ids are `int64`), never 0.
pub(super) fn lease_id() -> Result<u64> {
    loop {
        let v = super::super::contract::random_nonzero()? & (i64::MAX as u64);
        if v != 0 {
            return Ok(v);
        }
    }
}

/// A TTL in whole seconds, rounded up (at least 1).
pub(super) fn ttl_secs(ttl: Duration) -> i64 {
    let s = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
    i64::try_from(s.max(1)).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values() {
        let k = Keys::new("/p", "ns");
        assert_eq!(k.lease(7), "/p/lease/ns/00000000000000000007");
        assert_eq!(
            node_of(k.node(u64::MAX).as_bytes(), &k.node_dir),
            Some(u64::MAX)
        );
        assert_eq!(node_of(b"/p/node/ns/12", &k.node_dir), None);
        assert!(bound_text(9) < bound_text(10));
        assert_eq!(parse_bound(b""), Ok(None));
        assert_eq!(parse_bound(bound_text(42).as_bytes()), Ok(Some(42)));
        assert!(parse_bound(b"42").is_err());
        let i = Info {
            cluster: 0xdead_beef,
            horizon: 4000,
            fence: 1_750_000_004_000,
            lost_at: 1_750_000_000_000,
        };
        assert_eq!(Info::parse(i.text().as_bytes()), Some(i));
        assert_eq!(Info::parse(b"v2 1 2 3 4"), None);
        assert_eq!(ttl_secs(Duration::from_millis(1)), 1);
        assert_eq!(ttl_secs(Duration::from_millis(2000)), 2);
        assert_eq!(ttl_secs(Duration::from_millis(2001)), 3);
    }

    #[test]
    fn queue_choice() {
        let snap = |max: Option<u64>, held: &[u64], page: Vec<(u64, Option<u64>, i64)>| Snapshot {
            cluster: 1,
            epoch: None,
            info: None,
            max_node: max,
            held: held.iter().copied().collect(),
            page,
            more: false,
        };
        let new = |p: Option<Pick>| match p {
            Some(Pick::New { node, passed }) => Some((node, passed)),
            _ => None,
        };
        let free = |p: Option<Pick>| match p {
            Some(Pick::Free { node, .. }) => Some(node),
            _ => None,
        };
        let empty = snap(None, &[], vec![]);
        assert_eq!(new(choose(&empty, 4, None, 0, 0, 0)), Some((0, vec![])));
        assert_eq!(new(choose(&empty, 4, Some(0), 0, 0, 0)), Some((1, vec![0])));
        let s = snap(Some(1), &[2], vec![]);
        assert_eq!(new(choose(&s, 4, None, 0, 0, 0)), Some((3, vec![])));
        // A retry strays over the next never-used nodes, recording those it passes.
        let strays: HashSet<_> = (0..64)
            .filter_map(|seed| new(choose(&empty, 100, Some(1), 0, 3, seed)))
            .collect();
        let want: HashSet<_> = [
            (0, vec![]),
            (2, vec![0, 1]),
            (3, vec![0, 1, 2]),
            (4, vec![0, 1, 2, 3]),
        ]
        .into_iter()
        .collect();
        assert_eq!(strays, want);
        // Fewer never-used nodes than the stray: the last one.
        for seed in 0..16 {
            let p = new(choose(&snap(Some(1), &[], vec![]), 4, None, 0, 8, seed)).unwrap();
            assert!(p == (2, vec![]) || p == (3, vec![2]), "{p:?}");
        }
        // The space is used up: the queue, oldest first, bound not ahead of now first.
        let page = vec![(2, Some(900), 5), (0, Some(50), 6), (1, None, 7)];
        let s = snap(Some(3), &[3], page);
        assert_eq!(free(choose(&s, 4, None, 100, 0, 0)), Some(0));
        assert_eq!(free(choose(&s, 4, Some(0), 100, 0, 0)), Some(1));
        assert_eq!(free(choose(&s, 2, Some(0), 10, 0, 0)), Some(1));
        let strays: HashSet<_> = (0..64)
            .filter_map(|seed| free(choose(&s, 4, None, 100, 5, seed)))
            .collect();
        assert_eq!(strays, [0, 1].into_iter().collect(), "only usable nodes");
        let s = snap(Some(3), &[3, 1], vec![(2, Some(900), 5), (0, Some(500), 6)]);
        assert_eq!(
            free(choose(&s, 4, None, 100, 0, 0)),
            Some(0),
            "nearest bound"
        );
        // Every free node ahead (released with bounds past the acquirers' clock): a retry
        // strays over the nearest few, not only the nearest.
        let page = vec![(2, Some(700), 5), (0, Some(500), 6), (1, Some(500), 7)];
        let s = snap(Some(3), &[3], page);
        assert_eq!(
            free(choose(&s, 4, None, 100, 0, 0)),
            Some(0),
            "ties: queue order"
        );
        let strays: HashSet<_> = (0..64)
            .filter_map(|seed| free(choose(&s, 4, None, 100, 1, seed)))
            .collect();
        assert_eq!(strays, [0, 1].into_iter().collect());
        let strays: HashSet<_> = (0..64)
            .filter_map(|seed| free(choose(&s, 4, None, 100, 8, seed)))
            .collect();
        assert_eq!(strays, [0, 1, 2].into_iter().collect());
        let s = snap(Some(3), &[0, 1, 2, 3], vec![]);
        assert!(choose(&s, 4, None, 100, 0, 0).is_none());
    }
}
