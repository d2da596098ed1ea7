//! The nemesis's plan: which fault, on what, from when to when — all drawn from one seed, so a
//! run is replayed by giving its seed (and the same store, duration, TTL and fault list) again.
//! Faults come one at a time, each followed by a quiet spell long enough for the cluster to
//! recover (two TTLs and a margin), so every instance's phases can be judged on their own.

use crate::rng::Rng;
use serde_json::{json, Value};

/// The kinds of fault, by the name `--faults` takes.
pub const KINDS: &[&str] = &[
    "isolate",
    "split-majority",
    "split-store",
    "pause",
    "kill",
    "store-kill",
    "store-wipe",
    "clock-jump",
];

/// One fault and what it acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// One instance cut off from every store member (clients still reach it).
    Isolate { instance: usize },
    /// Instances together with one store member, split from the other members (etcd): the
    /// instances are on the minority side.
    SplitFromMajority {
        instances: Vec<usize>,
        member: usize,
    },
    /// One store member cut off from the other members (etcd); instances reach all members.
    SplitStore { member: usize },
    /// SIGSTOP past the lease TTL, then SIGCONT.
    Pause { instance: usize },
    /// SIGKILL, then a restart with the clock `offset_ms` from true time (behind or ahead).
    KillRestart { instance: usize, offset_ms: i64 },
    /// A store member (the server, for a single-server store) killed, restarted at the end.
    StoreKill { member: usize },
    /// The store's data lost: every member killed, its data wiped, restarted empty.
    StoreWipe,
    /// An instance's wall clock jumps by `delta_ms` while it runs, and back at the end.
    ClockJump { instance: usize, delta_ms: i64 },
}

impl FaultKind {
    /// The `--faults` name of this kind.
    pub fn name(&self) -> &'static str {
        match self {
            FaultKind::Isolate { .. } => "isolate",
            FaultKind::SplitFromMajority { .. } => "split-majority",
            FaultKind::SplitStore { .. } => "split-store",
            FaultKind::Pause { .. } => "pause",
            FaultKind::KillRestart { .. } => "kill",
            FaultKind::StoreKill { .. } => "store-kill",
            FaultKind::StoreWipe => "store-wipe",
            FaultKind::ClockJump { .. } => "clock-jump",
        }
    }

    /// A one-line description for the report and the log.
    pub fn describe(&self) -> String {
        match self {
            FaultKind::Isolate { instance } => format!("isolate n{instance} from the store"),
            FaultKind::SplitFromMajority { instances, member } => {
                let names: Vec<String> = instances.iter().map(|i| format!("n{i}")).collect();
                format!(
                    "split {} + s{member} from the store's majority",
                    names.join(",")
                )
            }
            FaultKind::SplitStore { member } => {
                format!("split store member s{member} from the others")
            }
            FaultKind::Pause { instance } => format!("SIGSTOP n{instance} past the TTL"),
            FaultKind::KillRestart {
                instance,
                offset_ms,
            } => format!("SIGKILL n{instance}, restart with the clock {offset_ms:+} ms"),
            FaultKind::StoreKill { member } => format!("kill store member s{member}"),
            FaultKind::StoreWipe => "store data loss (kill, wipe, restart)".to_string(),
            FaultKind::ClockJump { instance, delta_ms } => {
                format!("n{instance}'s clock jumps {delta_ms:+} ms")
            }
        }
    }
}

/// A planned fault: from `start_ms` to `end_ms` after the run's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// Its index in the schedule.
    pub id: usize,
    /// Planned start, ms after the run's start.
    pub start_ms: u64,
    /// Planned heal, ms after the run's start.
    pub end_ms: u64,
    /// What it does.
    pub kind: FaultKind,
}

/// What the schedule is drawn for.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The seed everything is drawn from.
    pub seed: u64,
    /// Length of the run, ms.
    pub duration_ms: u64,
    /// The instances' lease TTL, ms: faults last a few TTLs.
    pub ttl_ms: u64,
    /// Number of instances.
    pub instances: usize,
    /// Store members (3 for etcd, 1 for single-server stores).
    pub members: usize,
    /// Fault kinds allowed (names from [`KINDS`]); those the store cannot have are dropped.
    pub kinds: Vec<String>,
}

impl Plan {
    /// The kinds this plan can use: member splits need a store of several members.
    pub fn usable_kinds(&self) -> Vec<&'static str> {
        KINDS
            .iter()
            .copied()
            .filter(|k| self.kinds.iter().any(|w| w == k))
            .filter(|k| self.members > 1 || !matches!(*k, "split-majority" | "split-store"))
            .collect()
    }

    /// How long the cluster is left alone after each heal: two TTLs to recover, and a margin.
    pub fn quiet_ms(&self) -> u64 {
        2 * self.ttl_ms + 2_000
    }

    /// The quiet spell after `kind`: after the store's data loss, or a restart of a
    /// single-server store (which stores take for a possible loss), the next grants also wait
    /// out the lock delay (two TTLs), so recovery may take four.
    pub fn quiet_after(&self, kind: &FaultKind) -> u64 {
        let slow = match kind {
            FaultKind::StoreWipe => true,
            FaultKind::StoreKill { .. } => self.members == 1,
            _ => false,
        };
        self.quiet_ms() + if slow { 2 * self.ttl_ms } else { 0 }
    }

    /// The faults, in order, none overlapping. Kinds are taken in a shuffled round, each once
    /// before any repeats, so a short run still sees several.
    pub fn schedule(&self) -> Vec<Fault> {
        let mut rng = Rng::new(self.seed);
        let kinds = self.usable_kinds();
        let t = self.ttl_ms;
        let mut faults = Vec::new();
        if kinds.is_empty() || self.instances == 0 {
            return faults;
        }
        let mut round: Vec<&str> = Vec::new();
        let mut offsets = vec![0i64; self.instances];
        let mut at = 2 * t; // a warm-up: every instance serves before the first fault
        loop {
            if round.is_empty() {
                round = kinds.clone();
                for i in (1..round.len()).rev() {
                    round.swap(i, rng.below(i + 1));
                }
            }
            let name = round.pop().unwrap_or("isolate");
            let instance = rng.below(self.instances);
            let member = rng.below(self.members.max(1));
            let (kind, dur) = match name {
                "isolate" => (
                    FaultKind::Isolate { instance },
                    rng.range(3 * t / 2, 5 * t / 2),
                ),
                "split-majority" => {
                    let mut instances = vec![instance];
                    if self.instances > 2 && rng.chance(50) {
                        instances.push((instance + 1) % self.instances);
                        instances.sort_unstable();
                    }
                    let kind = FaultKind::SplitFromMajority { instances, member };
                    (kind, rng.range(3 * t / 2, 5 * t / 2))
                }
                "split-store" => (FaultKind::SplitStore { member }, rng.range(t, 2 * t)),
                "pause" => (
                    FaultKind::Pause { instance },
                    rng.range(3 * t / 2, 5 * t / 2),
                ),
                "kill" => {
                    // Behind or ahead of true time by up to 3 s, never the offset it had.
                    let mut offset_ms = rng.range(0, 6_000) as i64 - 3_000;
                    if offset_ms == offsets[instance] {
                        offset_ms = -offset_ms - 1;
                    }
                    offsets[instance] = offset_ms;
                    let kind = FaultKind::KillRestart {
                        instance,
                        offset_ms,
                    };
                    (kind, rng.range(t / 4, t))
                }
                "store-kill" => (FaultKind::StoreKill { member }, rng.range(t, 2 * t)),
                "store-wipe" => (FaultKind::StoreWipe, rng.range(t / 2, t)),
                _ => {
                    let size = rng.range(t / 2, 2 * t) as i64;
                    let delta_ms = if rng.chance(50) { size } else { -size };
                    let kind = FaultKind::ClockJump { instance, delta_ms };
                    (kind, rng.range(t, 2 * t))
                }
            };
            let end = at + dur;
            let quiet = self.quiet_after(&kind);
            if end + quiet > self.duration_ms {
                break;
            }
            faults.push(Fault {
                id: faults.len(),
                start_ms: at,
                end_ms: end,
                kind,
            });
            at = end + quiet + rng.range(0, t / 2);
        }
        faults
    }
}

/// The schedule as JSON, for the report.
pub fn to_json(faults: &[Fault]) -> Value {
    Value::Array(
        faults
            .iter()
            .map(|f| {
                json!({
                    "id": f.id,
                    "kind": f.kind.name(),
                    "what": f.kind.describe(),
                    "start_ms": f.start_ms,
                    "end_ms": f.end_ms,
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(seed: u64, members: usize, kinds: &[&str]) -> Plan {
        Plan {
            seed,
            duration_ms: 600_000,
            ttl_ms: 3_000,
            instances: 3,
            members,
            kinds: kinds.iter().map(|k| k.to_string()).collect(),
        }
    }

    #[test]
    fn a_seed_gives_one_schedule() {
        let a = plan(42, 3, KINDS).schedule();
        assert_eq!(a, plan(42, 3, KINDS).schedule());
        assert_ne!(a, plan(43, 3, KINDS).schedule());
    }

    #[test]
    fn faults_never_overlap_and_leave_time_to_recover() {
        let p = plan(9, 3, KINDS);
        let faults = p.schedule();
        assert!(faults.len() > 10);
        for w in faults.windows(2) {
            assert!(w[0].end_ms + p.quiet_after(&w[0].kind) <= w[1].start_ms);
        }
        let last = faults.last().unwrap();
        assert!(last.end_ms + p.quiet_after(&last.kind) <= p.duration_ms);
        let wipe = faults
            .iter()
            .find(|f| f.kind == FaultKind::StoreWipe)
            .unwrap();
        assert_eq!(p.quiet_after(&wipe.kind), 4 * p.ttl_ms + 2_000);
        assert!(faults[0].start_ms >= 2 * p.ttl_ms);
    }

    #[test]
    fn every_allowed_kind_comes_in_each_round() {
        let faults = plan(5, 3, KINDS).schedule();
        let first: Vec<&str> = faults[..KINDS.len()]
            .iter()
            .map(|f| f.kind.name())
            .collect();
        for k in KINDS {
            assert!(
                first.contains(k),
                "{k} missing from the first round {first:?}"
            );
        }
    }

    #[test]
    fn single_server_stores_get_no_member_splits() {
        let faults = plan(3, 1, KINDS).schedule();
        assert!(faults.iter().all(|f| !matches!(
            f.kind,
            FaultKind::SplitStore { .. } | FaultKind::SplitFromMajority { .. }
        )));
        let only = plan(3, 1, &["pause"]).schedule();
        assert!(only.iter().all(|f| f.kind.name() == "pause"));
    }

    #[test]
    fn a_restart_changes_the_clock_offset() {
        let faults = plan(11, 1, &["kill"]).schedule();
        let mut last = [0i64; 3];
        for f in faults {
            if let FaultKind::KillRestart {
                instance,
                offset_ms,
            } = f.kind
            {
                assert_ne!(offset_ms, last[instance]);
                assert!((-3_001..=3_000).contains(&offset_ms));
                last[instance] = offset_ms;
            }
        }
    }
}
