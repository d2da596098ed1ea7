//! The ZooKeeper store's grant algorithm: an acquire's plan over one multi-read, the grant as
//! one multi-write, the repair of lost records, and renew and release.

use std::collections::{BTreeSet, HashSet};
use std::time::Duration;

use zookeeper_client::{
    Acls, Client, CreateMode, MultiReadResult, MultiWriteError, MultiWriteResult, SessionState,
    Stat,
};

use super::records::*;
use super::session::{connection_error, Fail, Step, ZkError, RECORDS_LOST, SESSION_GONE, TAKEN};
use crate::lease::contract::Lease;

/// How many node records one multi-read of an acquire reads.
pub const READ_BATCH: usize = 256;

/// How often an acquire starts over after the namespace changed under it, or after every node
/// it found free was taken by someone else first.
pub(super) const PLANS: u64 = 64;

/// What an acquire asks for.
pub(super) struct Ask<'a> {
    pub(super) nodes: u64,
    pub(super) now: u64,
    pub(super) avoid: Option<u64>,
    pub(super) horizon: u64,
    pub(super) holder: &'a str,
    pub(super) identity: &'a str,
    pub(super) owner: u64,
    pub(super) fresh_epoch: u64,
}

/// A grant.
pub(super) struct Granted {
    pub(super) node: u64,
    pub(super) token: u64,
    pub(super) bound: Option<u64>,
    pub(super) epoch: Epoch,
}

/// One grant attempt's outcome.
pub(super) enum Try {
    Granted(Granted),
    /// Someone else has the node, or granted it meanwhile: try the next one.
    Taken,
    /// The namespace changed (epoch, directories): plan again.
    Changed,
}

pub(super) fn persistent() -> zookeeper_client::CreateOptions<'static> {
    CreateMode::Persistent.with_acls(Acls::anyone_all())
}

pub(super) fn ephemeral() -> zookeeper_client::CreateOptions<'static> {
    CreateMode::Ephemeral.with_acls(Acls::anyone_all())
}

/// The data of a multi-read result; `None` for `NoNode`.
pub(super) fn data_of(r: MultiReadResult) -> Step<Option<(Vec<u8>, Stat)>> {
    match r {
        MultiReadResult::Data { data, stat } => Ok(Some((data, stat))),
        MultiReadResult::Error {
            err: ZkError::NoNode,
        } => Ok(None),
        MultiReadResult::Error { err } => Err(Fail::Zk(err)),
        _ => Err(Fail::Corrupt),
    }
}

pub(super) fn children_of(r: MultiReadResult) -> Step<Option<Vec<String>>> {
    match r {
        MultiReadResult::Children { children } => Ok(Some(children)),
        MultiReadResult::Error {
            err: ZkError::NoNode,
        } => Ok(None),
        MultiReadResult::Error { err } => Err(Fail::Zk(err)),
        _ => Err(Fail::Corrupt),
    }
}

pub(super) fn numbered(children: &[String]) -> impl Iterator<Item = u64> + '_ {
    children.iter().filter_map(|c| {
        if c.bytes().all(|b| b.is_ascii_digit()) {
            c.parse().ok()
        } else {
            None
        }
    })
}

/// Creates the namespace's missing znodes. A namespace that lacks its epoch, or any of its
/// directories, may have lost records: it gets a new epoch whose grants are fenced past now +
/// the longest horizon (the lock delay).
pub(super) async fn repair(c: &Client, p: &Paths, a: &Ask<'_>, seen: Option<Epoch>) -> Step<()> {
    for dir in [&p.forever, &p.held, &p.node] {
        c.mkdir(dir, &persistent()).await?;
    }
    let horizon = seen.map_or(0, |e| e.horizon).max(a.horizon);
    let fresh = Epoch {
        value: a.fresh_epoch,
        horizon,
        lost_at: a.now,
        fence: a
            .now
            .saturating_add(horizon)
            .max(seen.map_or(0, |e| e.fence)),
        version: 0,
    };
    let r = match seen {
        None => c
            .create(&p.epoch, fresh.data().as_bytes(), &persistent())
            .await
            .map(drop),
        Some(old) => c
            .set_data(&p.epoch, fresh.data().as_bytes(), Some(old.version))
            .await
            .map(drop),
    };
    match r {
        // Another acquirer repaired it first: planning again reads its epoch.
        Ok(()) | Err(ZkError::NodeExists | ZkError::BadVersion | ZkError::NoNode) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The acquire: plans from one snapshot of the namespace, and grants the first free node in
/// the order of the module docs, planning again when the namespace changed meanwhile.
pub(super) async fn acquire_on(c: &Client, p: &Paths, a: &Ask<'_>) -> Step<Granted> {
    for plan in 0..PLANS {
        if plan > 0 {
            // Others won the nodes this one saw free: let them finish before looking again.
            tokio::time::sleep(Duration::from_millis(plan.min(10))).await;
        }
        let mut r = c.new_multi_reader();
        r.add_get_data(&p.epoch)?;
        r.add_get_data(&p.forever)?;
        r.add_get_children(&p.forever)?;
        r.add_get_children(&p.held)?;
        r.add_get_children(&p.node)?;
        let mut res = r.commit().await?.into_iter();
        let mut next = || res.next().ok_or(Fail::Corrupt);
        let epoch = match data_of(next()?)? {
            Some((d, s)) => Some(Epoch::parse(&d, &s)?),
            None => None,
        };
        let forever_stat = data_of(next()?)?.map(|(_, s)| s);
        let forever = children_of(next()?)?;
        let held = children_of(next()?)?;
        let used = children_of(next()?)?;
        let (Some(mut epoch), Some(forever_stat), Some(forever), Some(held), Some(used)) =
            (epoch, forever_stat, forever, held, used)
        else {
            repair(c, p, a, epoch).await?;
            continue;
        };
        if a.horizon > epoch.horizon {
            // A longer horizon than recorded stretches the current lock delay too.
            let raised = Epoch {
                horizon: a.horizon,
                fence: epoch.fence.max(epoch.lost_at.saturating_add(a.horizon)),
                ..epoch
            };
            match c
                .set_data(&p.epoch, raised.data().as_bytes(), Some(epoch.version))
                .await
            {
                Ok(stat) => {
                    epoch = Epoch {
                        version: stat.version,
                        ..raised
                    }
                }
                Err(ZkError::BadVersion | ZkError::NoNode) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        let held: HashSet<u64> = numbered(&held).collect();
        let used: BTreeSet<u64> = numbered(&used).collect();
        let free = |n: u64| n < a.nodes && Some(n) != a.avoid && !held.contains(&n);

        // 1. The identity's own id.
        let mut mine = forever
            .iter()
            .filter_map(|name| entry_sequence(name, a.identity))
            .min();
        if mine.is_none() && u64::try_from(forever_stat.cversion).is_ok_and(|v| v < a.nodes) {
            let entry = format!(
                "identity={} holder={} host={} pid={} created_ms={}",
                a.identity,
                a.holder,
                crate::lease::contract::hostname().replace(' ', "_"),
                std::process::id(),
                a.now
            );
            let seq_mode = CreateMode::PersistentSequential.with_acls(Acls::anyone_all());
            match c
                .create(
                    &format!("{}/{}-", p.forever, a.identity),
                    entry.as_bytes(),
                    &seq_mode,
                )
                .await
            {
                Ok((_, seq)) => mine = u64::try_from(seq.into_i64()).ok(),
                Err(ZkError::NoNode) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        let mine = mine.filter(|&m| free(m));
        if let Some(m) = mine {
            let record = if used.contains(&m) {
                read_records(c, p, &[m]).await?.pop().map(|(_, r)| r)
            } else {
                None
            };
            // A used node whose record vanished in between: plan again.
            if used.contains(&m) && record.is_none() {
                continue;
            }
            match grant(c, p, a, epoch, m, record).await? {
                Try::Granted(g) => return Ok(g),
                Try::Taken => {}
                Try::Changed => continue,
            }
        }

        // 2. The lowest never-used node; 3. used free nodes in queue order. Each node another
        // acquirer takes first widens the choice (see `Spread`), so a crowd spreads out.
        let mut spread = Spread::new(a.owner ^ plan);
        let mut tried = mine.is_some();
        let mut taken: HashSet<u64> = HashSet::new();
        let mut changed = false;
        loop {
            let window = never_used(a.nodes, spread.window(), |k| {
                used.contains(&k) || !free(k) || Some(k) == mine || taken.contains(&k)
            });
            let Some(&k) = spread.pick(&window) else {
                break;
            };
            tried = true;
            match grant(c, p, a, epoch, k, None).await? {
                Try::Granted(g) => return Ok(g),
                Try::Taken => {
                    taken.insert(k);
                    spread.lost();
                }
                Try::Changed => {
                    changed = true;
                    break;
                }
            }
        }
        if changed {
            continue;
        }
        let candidates: Vec<u64> = used
            .iter()
            .copied()
            .filter(|&n| free(n) && Some(n) != mine)
            .collect();
        let mut records = Vec::with_capacity(candidates.len());
        for chunk in candidates.chunks(READ_BATCH) {
            records.extend(read_records(c, p, chunk).await?);
        }
        records.sort_by_key(|(n, r)| {
            let ahead = r.bound.is_some_and(|b| b > a.now);
            let bound = if ahead { r.bound.unwrap_or(0) } else { 0 };
            (ahead, bound, r.mzxid, *n)
        });
        while !records.is_empty() {
            let end = spread.window().min(records.len());
            let Some(i) = spread.pick_index(end) else {
                break;
            };
            let (n, r) = records.remove(i);
            tried = true;
            match grant(c, p, a, epoch, n, Some(r)).await? {
                Try::Granted(g) => return Ok(g),
                Try::Taken => spread.lost(),
                Try::Changed => {
                    changed = true;
                    break;
                }
            }
        }
        if !changed && !tried {
            // Nothing free in this snapshot of the namespace.
            return Err(Fail::NoFree);
        }
    }
    // Every node seen free was taken first by others, plan after plan.
    Err(Fail::NoFree)
}

/// The first `count` nodes below `nodes` that `skip` does not exclude, lowest first. Costs
/// the excluded nodes below the last one returned plus `count`, not the node space.
pub(super) fn never_used(nodes: u64, count: usize, skip: impl Fn(u64) -> bool) -> Vec<u64> {
    let mut out = Vec::with_capacity(count);
    let mut k = 0u64;
    while k < nodes && out.len() < count {
        if !skip(k) {
            out.push(k);
        }
        k += 1;
    }
    out
}

/// How an acquire chooses among candidates in preference order: the first, until another
/// acquirer takes a node first; after `f` such losses, a random one of the first `2^f`. One
/// acquirer alone always gets the first; 64 acquirers at once need a few attempts each
/// instead of queueing one after another on the same node.
pub(super) struct Spread {
    pub(super) losses: u32,
    pub(super) state: u64,
}

impl Spread {
    pub(super) fn new(seed: u64) -> Spread {
        Spread {
            losses: 0,
            state: seed,
        }
    }

    pub(super) fn window(&self) -> usize {
        1usize << self.losses.min(16)
    }

    pub(super) fn lost(&mut self) {
        self.losses = self.losses.saturating_add(1);
    }

    /// A random index below `len` (0 before any loss); `None` when `len` is 0.
    pub(super) fn pick_index(&mut self, len: usize) -> Option<usize> {
        if len == 0 {
            return None;
        }
        // splitmix64
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Some((z % len as u64) as usize)
    }

    pub(super) fn pick<'a>(&mut self, window: &'a [u64]) -> Option<&'a u64> {
        let i = self.pick_index(window.len())?;
        window.get(i)
    }
}

/// The records of `nodes` that exist, in one multi-read.
pub(super) async fn read_records(
    c: &Client,
    p: &Paths,
    nodes: &[u64],
) -> Step<Vec<(u64, NodeRecord)>> {
    let mut r = c.new_multi_reader();
    for &n in nodes {
        r.add_get_data(&p.node(n))?;
    }
    let res = r.commit().await?;
    let mut out = Vec::with_capacity(nodes.len());
    for (&n, item) in nodes.iter().zip(res) {
        if let Some((d, s)) = data_of(item)? {
            out.push((n, NodeRecord::parse(&d, &s)?));
        }
    }
    Ok(out)
}

/// Grants node `n`: one multi that checks the epoch is unchanged, creates `held/N` (fails if
/// anyone holds it) and writes the record under the version read (or creates it).
pub(super) async fn grant(
    c: &Client,
    p: &Paths,
    a: &Ask<'_>,
    epoch: Epoch,
    n: u64,
    record: Option<NodeRecord>,
) -> Step<Try> {
    let held_path = p.held(n);
    let node_path = p.node(n);
    let held_data = format!(
        "epoch={:x} owner={:x} holder={} identity={}",
        epoch.value, a.owner, a.holder, a.identity
    );
    let bound = record.as_ref().and_then(|r| r.bound);
    let rec = record_data(bound, Some(a.owner), a.holder, a.identity);
    let mut w = c.new_multi_writer();
    w.add_check_version(&p.epoch, epoch.version)?;
    w.add_create(&held_path, held_data.as_bytes(), &ephemeral())?;
    match &record {
        Some(r) => w.add_set_data(&node_path, rec.as_bytes(), Some(r.version))?,
        None => w.add_create(&node_path, rec.as_bytes(), &persistent())?,
    }
    let results = match w.commit().await {
        Ok(results) => results,
        Err(MultiWriteError::OperationFailed { index, source }) => {
            return match (index, source) {
                (0, ZkError::BadVersion | ZkError::NoNode) => Ok(Try::Changed),
                (1, ZkError::NodeExists) => Ok(Try::Taken),
                (1, ZkError::NoNode) => Ok(Try::Changed),
                (2, ZkError::BadVersion | ZkError::NoNode | ZkError::NodeExists) => Ok(Try::Taken),
                (_, e) => Err(e.into()),
            }
        }
        Err(e) => return Err(e.into()),
    };
    let mut token = match results.get(1) {
        Some(MultiWriteResult::Create { stat, .. }) if stat.czxid > 0 => stat.czxid,
        _ => 0,
    };
    if token == 0 {
        // Some servers answer a create inside a multi without its stat: read it back.
        let (_, stat) = c.get_data(&held_path).await?;
        if stat.ephemeral_owner != c.session_id().0 {
            return Err(Fail::Lost(TAKEN));
        }
        token = stat.czxid;
    }
    Ok(Try::Granted(Granted {
        node: n,
        token: u64::try_from(token).map_err(|_| Fail::Corrupt)?,
        bound,
        epoch,
    }))
}

/// What a holder call does once the lease is found to be its own.
#[derive(Debug, Clone, Copy)]
pub(super) enum Hold {
    /// Raise the record's bound to this (never lower it).
    Renew(u64),
    /// Raise the bound to this (never lower it), delete `held/N`.
    Release(u64),
}

/// [`hold_on`], again after the connection dropped (the client reconnects to the same session,
/// or finds it expired): a lease renewed less often than the connection timeout (3/5 of the
/// session's) finds its idle connection given up at the call's first poll. Bounded by the
/// call's deadline. A release whose first attempt went through is recognised by its record.
pub(super) async fn hold_retrying(c: &Client, p: &Paths, lease: &Lease, what: Hold) -> Step<()> {
    let mut again = false;
    let mut attempts = 0;
    loop {
        attempts += 1;
        let r = hold_on(c, p, lease, what).await;
        match (r, what) {
            (Err(Fail::Zk(e)), _) if connection_error(&e) && attempts < 8 => {
                let mut watcher = c.state_watcher();
                loop {
                    let state = watcher.peek_state();
                    if state.is_terminated() {
                        return Err(Fail::Lost(SESSION_GONE));
                    }
                    if state == SessionState::SyncConnected {
                        break;
                    }
                    watcher.changed().await;
                }
                again = true;
            }
            (Err(Fail::Lost(_)), Hold::Release(last))
                if again && released(c, p, lease, last).await =>
            {
                return Ok(())
            }
            (r, _) => return r,
        }
    }
}

/// Whether the lease's release is already recorded: `held/N` gone, the record freed with
/// this bound or a higher one.
pub(super) async fn released(c: &Client, p: &Paths, lease: &Lease, last: u64) -> bool {
    let held = c.check_stat(&p.held(lease.node)).await;
    let rec = c.get_data(&p.node(lease.node)).await;
    match (held, rec) {
        (Ok(None), Ok((data, stat))) => NodeRecord::parse(&data, &stat)
            .is_ok_and(|r| r.owner.is_none() && r.bound.is_some_and(|b| b >= last)),
        _ => false,
    }
}

/// Renew or release: checks that `held/N`, the record and the epoch are still the lease's,
/// then writes, version-checked; reads again if a version moved meanwhile.
pub(super) async fn hold_on(c: &Client, p: &Paths, lease: &Lease, what: Hold) -> Step<()> {
    let held_path = p.held(lease.node);
    let node_path = p.node(lease.node);
    let session = c.session_id().0;
    for _ in 0..4 {
        let mut r = c.new_multi_reader();
        r.add_get_data(&p.epoch)?;
        r.add_get_data(&held_path)?;
        r.add_get_data(&node_path)?;
        let mut res = r.commit().await?.into_iter();
        let mut next = || res.next().ok_or(Fail::Corrupt);
        let epoch = match data_of(next()?)? {
            Some((d, s)) => Epoch::parse(&d, &s)?,
            None => return Err(Fail::Lost(RECORDS_LOST)),
        };
        if epoch.value != lease.epoch {
            return Err(Fail::Lost(RECORDS_LOST));
        }
        let Some((held_data, held_stat)) = data_of(next()?)? else {
            return Err(Fail::Lost(SESSION_GONE));
        };
        let ours = held_stat.ephemeral_owner == session
            && u64::try_from(held_stat.czxid) == Ok(lease.token)
            && hex_field(&held_data, "owner").ok() == Some(lease.owner)
            && hex_field(&held_data, "epoch").ok() == Some(lease.epoch);
        if !ours {
            return Err(Fail::Lost(TAKEN));
        }
        let Some((rec_data, rec_stat)) = data_of(next()?)? else {
            return Err(Fail::Lost(RECORDS_LOST));
        };
        let rec = NodeRecord::parse(&rec_data, &rec_stat)?;
        if rec.owner != Some(lease.owner) {
            return Err(Fail::Lost(TAKEN));
        }
        let mut w = c.new_multi_writer();
        w.add_check_version(&p.epoch, epoch.version)?;
        match what {
            Hold::Renew(up_to) => {
                let bound = rec.bound.map_or(up_to, |b| b.max(up_to));
                let data = rewrite(&rec_data, Some(bound), Some(lease.owner));
                w.add_check_version(&held_path, held_stat.version)?;
                w.add_set_data(&node_path, data.as_bytes(), Some(rec.version))?;
            }
            Hold::Release(last) => {
                // The record only rises: a release below what was renewed leaves it.
                let bound = rec.bound.map_or(last, |b| b.max(last));
                let data = rewrite(&rec_data, Some(bound), None);
                w.add_set_data(&node_path, data.as_bytes(), Some(rec.version))?;
                w.add_delete(&held_path, Some(held_stat.version))?;
            }
        }
        match w.commit().await {
            Ok(_) => return Ok(()),
            Err(MultiWriteError::OperationFailed {
                source: ZkError::BadVersion | ZkError::NoNode,
                ..
            }) => continue, // something moved: look again
            Err(e) => return Err(e.into()),
        }
    }
    Err(Fail::Contention)
}
