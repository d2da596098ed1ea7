//! Plays the schedule on the running cluster: applies each fault at its time, heals it at its
//! end, and records when each really happened and what it did to each instance.

use crate::cluster::{Instance, Settings};
use crate::history::{Applied, Effect};
use crate::netns::Topology;
use crate::schedule::{Fault, FaultKind};
use crate::store::Store;
use std::time::{Duration, Instant};

/// What the nemesis acts on. Host indexes in the topology: clients 0, store members
/// `1..=members`, instances after them.
pub struct Cluster {
    /// The namespaces.
    pub topo: Topology,
    /// The store.
    pub store: Store,
    /// The instances.
    pub instances: Vec<Instance>,
    /// How they are started.
    pub settings: Settings,
}

impl Cluster {
    fn member_host(&self, m: usize) -> usize {
        1 + m
    }

    fn instance_host(&self, i: usize) -> usize {
        1 + self.store.kind().members() + i
    }

    fn members(&self) -> usize {
        self.store.kind().members()
    }
}

/// Sleeps until `at` after `t0`, or until `stop` is set; false when stopped.
fn sleep_until(t0: Instant, at_ms: u64, stop: &dyn Fn() -> bool) -> bool {
    let at = t0 + Duration::from_millis(at_ms);
    while Instant::now() < at {
        if stop() {
            return false;
        }
        std::thread::sleep((at - Instant::now()).min(Duration::from_millis(50)));
    }
    !stop()
}

fn ms(t0: Instant) -> u64 {
    t0.elapsed().as_millis() as u64
}

/// Plays `faults` from `t0` on; returns what was applied. Stops early when `stop` says so
/// (the fault in progress is healed first).
pub fn play(
    c: &mut Cluster,
    faults: &[Fault],
    t0: Instant,
    stop: &dyn Fn() -> bool,
) -> Vec<Applied> {
    let mut applied = Vec::new();
    let n = c.instances.len();
    for f in faults {
        if !sleep_until(t0, f.start_ms, stop) {
            break;
        }
        let start_ms = ms(t0);
        let mut effects: Vec<Option<Effect>> = vec![None; n];
        let mut slow_recovery = false;
        let result = apply(c, &f.kind, &mut effects, &mut slow_recovery);
        if let Err(e) = &result {
            eprintln!(
                "chaos: applying fault #{} ({}): {e}",
                f.id,
                f.kind.describe()
            );
        }
        eprintln!(
            "chaos: {:>7} ms  fault #{} {}",
            start_ms,
            f.id,
            f.kind.describe()
        );
        // Heal even when stopping: the run's end must leave a healthy cluster behind.
        sleep_until(t0, f.end_ms, stop);
        let heal_started_ms = ms(t0);
        if let Err(e) = heal(c, &f.kind) {
            eprintln!(
                "chaos: healing fault #{} ({}): {e}",
                f.id,
                f.kind.describe()
            );
        }
        let end_ms = ms(t0);
        eprintln!("chaos: {:>7} ms  healed #{}", end_ms, f.id);
        applied.push(Applied {
            id: f.id,
            kind: f.kind.name().to_string(),
            what: f.kind.describe(),
            start_ms,
            heal_started_ms,
            end_ms,
            effects,
            slow_recovery,
        });
    }
    applied
}

fn apply(
    c: &mut Cluster,
    kind: &FaultKind,
    effects: &mut [Option<Effect>],
    slow: &mut bool,
) -> Result<(), String> {
    let members: Vec<usize> = (0..c.members()).map(|m| c.member_host(m)).collect();
    match kind {
        FaultKind::Isolate { instance } => {
            effects[*instance] = Some(Effect::Cut);
            let h = c.instance_host(*instance);
            c.topo.split(&[h], &members)
        }
        FaultKind::SplitFromMajority { instances, member } => {
            let mut side: Vec<usize> = instances.iter().map(|&i| c.instance_host(i)).collect();
            side.push(c.member_host(*member));
            let majority: Vec<usize> = (0..c.members())
                .filter(|m| m != member)
                .map(|m| c.member_host(m))
                .collect();
            for &i in instances {
                effects[i] = Some(Effect::Cut);
            }
            c.topo.split(&side, &majority)
        }
        FaultKind::SplitStore { member } => {
            let others: Vec<usize> = (0..c.members())
                .filter(|m| m != member)
                .map(|m| c.member_host(m))
                .collect();
            c.topo.split(&[c.member_host(*member)], &others)
        }
        FaultKind::Pause { instance } => {
            effects[*instance] = Some(Effect::Down);
            c.instances[*instance].signal(libc::SIGSTOP);
            Ok(())
        }
        FaultKind::KillRestart { instance, .. } => {
            effects[*instance] = Some(Effect::Down);
            c.instances[*instance].kill();
            Ok(())
        }
        FaultKind::StoreKill { member } => {
            if c.members() == 1 {
                // The whole store is down; when it is back, a restart counts as a possible
                // loss of records (Redis: a new run_id) and the next grants pay the lock delay.
                effects.iter_mut().for_each(|e| *e = Some(Effect::Cut));
                *slow = true;
            }
            c.store.kill_member(*member)
        }
        FaultKind::StoreWipe => {
            effects.iter_mut().for_each(|e| *e = Some(Effect::Cut));
            *slow = true;
            c.store.wipe()
        }
        FaultKind::ClockJump { instance, delta_ms } => {
            effects[*instance] = Some(Effect::Disturbed);
            let inst = &mut c.instances[*instance];
            let to = inst.offset_ms + delta_ms;
            inst.set_offset(to)
        }
    }
}

fn heal(c: &mut Cluster, kind: &FaultKind) -> Result<(), String> {
    match kind {
        FaultKind::Isolate { .. }
        | FaultKind::SplitFromMajority { .. }
        | FaultKind::SplitStore { .. } => c.topo.heal(),
        FaultKind::Pause { instance } => {
            c.instances[*instance].signal(libc::SIGCONT);
            Ok(())
        }
        FaultKind::KillRestart {
            instance,
            offset_ms,
        } => {
            let settings = c.settings.clone();
            let inst = &mut c.instances[*instance];
            inst.set_offset(*offset_ms)?;
            inst.start(&settings)
        }
        FaultKind::StoreKill { member } => {
            c.store.start_member(*member)?;
            Ok(())
        }
        FaultKind::StoreWipe => c.store.start_all(),
        FaultKind::ClockJump { instance, delta_ms } => {
            let inst = &mut c.instances[*instance];
            let to = inst.offset_ms - delta_ms;
            inst.set_offset(to)
        }
    }
}
