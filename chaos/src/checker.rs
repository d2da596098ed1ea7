//! The checker: reads a run's [`History`] and says whether the cluster kept its promises.
//!
//! - **Unique**: no ID acknowledged twice, per kind — the service's Snowflake IDs (all
//!   instances, single and batch), the browser clients' IDs, and each segment key's IDs (over
//!   every instance when they share the segment store, per instance when each has its own).
//! - **In its window**: a Snowflake ID's time lies after the fence and at or before the bound
//!   of a lease its node was held under by that holder; the IDs of one node's successive
//!   holders do not interleave in time.
//! - **Available**: an instance cut off from its store stops minting within its TTL (fail
//!   closed), serves again within two TTLs of the heal, and keeps ≥ 99% of requests answered
//!   in every phase where it is on the majority side.

use crate::history::{Applied, Effect, Group, History, Op, Tenure};
use idmint::Layout;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};

/// What the checker needs besides the history.
#[derive(Debug, Clone)]
pub struct Rules {
    /// The instances' lease TTL, ms.
    pub ttl_ms: u64,
    /// Layout of the service's Snowflake IDs.
    pub service_layout: Layout,
    /// Layout of the browser clients' IDs.
    pub browser_layout: Layout,
    /// Whether the instances share one segment store (else each has its own).
    pub shared_segments: bool,
    /// Number of instances.
    pub instances: usize,
    /// Least share of requests answered on the majority side.
    pub min_availability: f64,
    /// Timing slack of the harness's own clock readings, ms.
    pub slack_ms: u64,
}

/// Requests sent and answered in one phase of one instance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Requests sent.
    pub attempted: u64,
    /// Requests answered with IDs.
    pub ok: u64,
}

impl Tally {
    fn add(&mut self, ok: bool) {
        self.attempted += 1;
        self.ok += u64::from(ok);
    }

    /// Answered share (1 when nothing was asked).
    pub fn ratio(&self) -> f64 {
        if self.attempted == 0 {
            1.0
        } else {
            self.ok as f64 / self.attempted as f64
        }
    }
}

/// The checker's findings.
#[derive(Debug, Clone, Default)]
pub struct Verdict {
    /// Requests sent, per group.
    pub attempted: BTreeMap<&'static str, u64>,
    /// Requests answered with IDs, per group.
    pub acknowledged: BTreeMap<&'static str, u64>,
    /// IDs acknowledged, per kind.
    pub ids: BTreeMap<String, u64>,
    /// IDs acknowledged more than once, per kind.
    pub duplicated: BTreeMap<String, u64>,
    /// Snowflake IDs checked against a window, and those whose holder's lease was never seen.
    pub windows_checked: u64,
    /// IDs whose lease the harness never saw (acquired and lost between two looks).
    pub unattributed: u64,
    /// Per instance: the healthy phases (no fault on it) and each fault it was on the
    /// majority side of.
    pub phases: Vec<BTreeMap<String, Tally>>,
    /// Per applied fault and affected instance: ms from the heal to its first Snowflake ID
    /// (`None`: none before the next fault or the end).
    pub recoveries: Vec<(usize, usize, Option<u64>)>,
    /// Every broken promise, readable.
    pub failures: Vec<String>,
}

impl Verdict {
    /// Whether every promise held.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// The verdict as JSON, for the report.
    pub fn to_json(&self) -> Value {
        let phases: Vec<Value> = self
            .phases
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let m: serde_json::Map<String, Value> = p
                    .iter()
                    .map(|(k, t)| {
                        let v = json!({"attempted": t.attempted, "ok": t.ok,
                            "availability": (t.ratio() * 10_000.0).round() / 10_000.0});
                        (k.clone(), v)
                    })
                    .collect();
                json!({"instance": i, "phases": m})
            })
            .collect();
        let rec: Vec<Value> = self
            .recoveries
            .iter()
            .map(|(f, i, ms)| json!({"fault": f, "instance": i, "first_id_after_heal_ms": ms}))
            .collect();
        json!({
            "passed": self.passed(),
            "attempted": self.attempted,
            "acknowledged": self.acknowledged,
            "ids": self.ids,
            "duplicated": self.duplicated,
            "windows_checked": self.windows_checked,
            "unattributed": self.unattributed,
            "availability": phases,
            "recoveries": rec,
            "failures": self.failures,
        })
    }
}

/// How long after a grant the harness's poller surely saw it (it looks every 200 ms).
const SEEN_LAG_MS: u64 = 2_000;

/// The most failures of one kind listed (the counts stay exact).
const LIST_MAX: usize = 20;

/// Checks a run.
pub fn check(h: &History, rules: &Rules) -> Verdict {
    let mut v = Verdict::default();
    for op in &h.ops {
        *v.attempted.entry(op.group.name()).or_default() += 1;
        if op.ok {
            *v.acknowledged.entry(op.group.name()).or_default() += 1;
        }
    }
    uniqueness(h, rules, &mut v);
    windows(h, rules, &mut v);
    availability(h, rules, &mut v);
    v
}

/// The kind an op's IDs belong to, for uniqueness.
fn kind_of(op: &Op, rules: &Rules) -> String {
    match op.group {
        Group::Snowflake | Group::Batch => "snowflake".to_string(),
        Group::Browser => "browser".to_string(),
        Group::Segment if rules.shared_segments => format!("segment:{}", op.key),
        Group::Segment => format!("segment:n{}:{}", op.instance, op.key),
    }
}

fn who(op: &Op) -> String {
    match op.group {
        Group::Browser => format!("b{} at {} ms", op.client, op.end_ms),
        _ => format!("n{}#{} at {} ms", op.instance, op.incarnation, op.end_ms),
    }
}

fn uniqueness(h: &History, rules: &Rules, v: &mut Verdict) {
    let mut seen: HashMap<String, HashMap<u64, usize>> = HashMap::new();
    let mut listed = 0;
    for (n, op) in h.ops.iter().enumerate().filter(|(_, o)| o.ok) {
        let kind = kind_of(op, rules);
        let ids = seen.entry(kind.clone()).or_default();
        for &id in &op.ids {
            *v.ids.entry(kind.clone()).or_default() += 1;
            if let Some(&first) = ids.get(&id) {
                *v.duplicated.entry(kind.clone()).or_default() += 1;
                if listed < LIST_MAX {
                    listed += 1;
                    v.failures.push(format!(
                        "duplicate {kind} ID {id}: acknowledged to {} and to {}",
                        who(&h.ops[first]),
                        who(op)
                    ));
                }
            } else {
                ids.insert(id, n);
            }
        }
    }
}

/// Whether `t` lies in the tenure's window; the bound only when the harness saw the tenure
/// after the ID was acknowledged (bounds only rise, so the last one seen covers it).
fn admits(ten: &Tenure, t: u64, acked_ms: u64) -> bool {
    let after_fence = ten.fence_ms.map_or(true, |f| t > f);
    let under_bound = ten.last_seen_ms < acked_ms || t <= ten.bound_ms;
    after_fence && under_bound
}

fn windows(h: &History, rules: &Rules, v: &mut Verdict) {
    // (browser?, node) -> holder -> (min, max) of its IDs' times
    let mut spans: BTreeMap<(bool, u64), BTreeMap<String, (u64, u64)>> = BTreeMap::new();
    let mut listed = 0;
    let mut fail = |v: &mut Verdict, msg: String| {
        if listed < LIST_MAX {
            v.failures.push(msg);
        }
        listed += 1;
    };
    for op in h.ops.iter().filter(|o| o.ok) {
        let browser = match op.group {
            Group::Snowflake | Group::Batch => false,
            Group::Browser => true,
            Group::Segment => continue,
        };
        let layout = if browser {
            &rules.browser_layout
        } else {
            &rules.service_layout
        };
        for &id in &op.ids {
            let Ok(parts) = layout.decompose(id) else {
                fail(v, format!("ID {id} from {} does not decode", who(op)));
                continue;
            };
            let t = layout.timestamp_ms(id);
            let holder = if browser {
                let Some(ten) = op.tenure.and_then(|k| h.tenures.get(k)) else {
                    v.unattributed += 1;
                    continue;
                };
                v.windows_checked += 1;
                if ten.node != parts.node || !admits(ten, t, 0) {
                    fail(
                        v,
                        format!(
                            "browser ID {id} (node {}, time {t}) outside its lease {} (node {}, fence {:?}, bound {})",
                            parts.node, ten.holder, ten.node, ten.fence_ms, ten.bound_ms
                        ),
                    );
                }
                ten.holder.clone()
            } else {
                let mine: Vec<&Tenure> = h
                    .tenures
                    .iter()
                    .filter(|x| {
                        !x.browser
                            && x.owner == op.instance
                            && x.incarnation == op.incarnation
                            && x.node == parts.node
                    })
                    .collect();
                if mine.is_empty() {
                    v.unattributed += 1;
                    format!("n{}#{}", op.instance, op.incarnation)
                } else {
                    v.windows_checked += 1;
                    if !mine.iter().any(|x| admits(x, t, op.end_ms)) {
                        let seen: Vec<String> = mine
                            .iter()
                            .map(|x| {
                                format!(
                                    "token {} fence {:?} bound {}",
                                    x.token, x.fence_ms, x.bound_ms
                                )
                            })
                            .collect();
                        fail(
                            v,
                            format!(
                                "Snowflake ID {id} (node {}, time {t}) from {} outside every window its holder was seen with: {}",
                                parts.node,
                                who(op),
                                seen.join("; ")
                            ),
                        );
                    }
                    // The grant the ID was minted under: one holder's successive grants of a
                    // node are fenced one above the other, so it is the one with the highest
                    // fence below the ID's time (the harness may not have seen it yet when the
                    // request went out).
                    // Grants first seen long after the answer came are later ones (a store
                    // that lost its records grants without a fence of its own).
                    let current = mine
                        .iter()
                        .filter(|x| x.fence_ms.map_or(true, |f| f < t))
                        .filter(|x| x.first_seen_ms <= op.end_ms + SEEN_LAG_MS)
                        .max_by_key(|x| (x.fence_ms, x.first_seen_ms))
                        .or_else(|| mine.iter().min_by_key(|x| x.first_seen_ms));
                    // A grant is told by its token and its fence: a store that lost its data
                    // hands the same tokens out again, under new fences.
                    let (token, fence) = current.map_or((0, None), |x| (x.token, x.fence_ms));
                    let fence = fence.map_or("none".to_string(), |f| f.to_string());
                    format!(
                        "n{}#{}/token{token}/fence{fence}",
                        op.instance, op.incarnation
                    )
                }
            };
            let span = spans
                .entry((browser, parts.node))
                .or_default()
                .entry(holder)
                .or_insert((t, t));
            span.0 = span.0.min(t);
            span.1 = span.1.max(t);
        }
    }
    for ((browser, node), holders) in spans {
        let mut list: Vec<(String, (u64, u64))> = holders.into_iter().collect();
        list.sort_by_key(|(_, (lo, hi))| (*lo, *hi));
        for w in list.windows(2) {
            let ((a, (alo, ahi)), (b, (blo, bhi))) = (&w[0], &w[1]);
            if ahi >= blo {
                let what = if browser { "browser" } else { "service" };
                fail(
                    v,
                    format!(
                        "{what} node {node}: IDs of holder {a} (times {alo}..={ahi}) and of holder {b} ({blo}..={bhi}) interleave"
                    ),
                );
            }
        }
    }
}

/// How long after the heal of `a` an instance it hit may take to serve again: two TTLs, and
/// after a store's loss (or a restart it cannot tell from one) the lock delay, two more.
fn budget(a: &Applied, ttl_ms: u64) -> (u64, &'static str) {
    if a.slow_recovery {
        (4 * ttl_ms, "2 x TTL + the lock delay")
    } else {
        (2 * ttl_ms, "2 x TTL")
    }
}

/// The effect of `a` on instance `i`, if any.
fn effect(a: &Applied, i: usize) -> Option<Effect> {
    a.effects.get(i).copied().flatten()
}

fn availability(h: &History, rules: &Rules, v: &mut Verdict) {
    let ttl = rules.ttl_ms;
    v.phases = vec![BTreeMap::new(); rules.instances];
    let served: Vec<&Op> = h
        .ops
        .iter()
        .filter(|o| o.group != Group::Browser && o.instance < rules.instances)
        .collect();
    let mut closed_listed = 0;
    for op in &served {
        let i = op.instance;
        let minting = matches!(op.group, Group::Snowflake | Group::Batch);
        let mut affected = false;
        for a in &h.applied {
            match effect(a, i) {
                Some(e) => {
                    // The fault and the recovery after it: not judged by the 99% rule.
                    if op.start_ms + rules.slack_ms >= a.start_ms
                        && op.start_ms < a.end_ms + budget(a, ttl).0
                    {
                        affected = true;
                    }
                    // Fail closed: cut off for more than a TTL, it must not mint.
                    if e == Effect::Cut
                        && minting
                        && op.ok
                        && op.start_ms >= a.start_ms + ttl + rules.slack_ms
                        && op.end_ms < a.heal_started_ms
                    {
                        if closed_listed < LIST_MAX {
                            v.failures.push(format!(
                                "n{i} minted {} Snowflake ID(s) at {} ms, {} ms into fault #{} ({}): not fail-closed within the TTL ({ttl} ms)",
                                op.ids.len(),
                                op.end_ms,
                                op.start_ms - a.start_ms,
                                a.id,
                                a.what
                            ));
                        }
                        closed_listed += 1;
                    }
                }
                None => {
                    if op.start_ms >= a.start_ms && op.start_ms < a.end_ms {
                        let name = format!("majority during #{} {}", a.id, a.kind);
                        v.phases[i].entry(name).or_default().add(op.ok);
                    }
                }
            }
        }
        if !affected {
            v.phases[i]
                .entry("healthy".to_string())
                .or_default()
                .add(op.ok);
        }
    }
    for (i, phases) in v.phases.iter().enumerate() {
        for (name, t) in phases {
            // Too few requests say nothing about a share (one error in ten is not 90%).
            if t.attempted >= 50 && t.ratio() < rules.min_availability {
                v.failures.push(format!(
                    "n{i} answered {}/{} requests ({:.2}%) {name}: below {:.0}%",
                    t.ok,
                    t.attempted,
                    100.0 * t.ratio(),
                    100.0 * rules.min_availability
                ));
            }
        }
    }
    for (n, a) in h.applied.iter().enumerate() {
        let until = h.applied.get(n + 1).map_or(h.duration_ms, |b| b.start_ms);
        for i in 0..rules.instances {
            if effect(a, i).is_none() {
                continue;
            }
            let first = served
                .iter()
                .filter(|o| {
                    o.instance == i && o.ok && matches!(o.group, Group::Snowflake | Group::Batch)
                })
                .filter(|o| o.end_ms >= a.end_ms && o.end_ms < until)
                .map(|o| o.end_ms - a.end_ms)
                .min();
            v.recoveries.push((a.id, i, first));
            let (budget, why) = budget(a, ttl);
            let late = first.map_or(true, |ms| ms > budget);
            // A run that ends first cannot tell.
            if late && until >= a.end_ms + budget {
                v.failures.push(format!(
                    "n{i} did not serve Snowflake IDs within {budget} ms ({why}) of the heal of fault #{} ({}): first after {}",
                    a.id,
                    a.what,
                    first.map_or("never".to_string(), |ms| format!("{ms} ms"))
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use idmint::snowflake::layout::Parts;

    const TTL: u64 = 3_000;

    fn rules() -> Rules {
        Rules {
            ttl_ms: TTL,
            service_layout: Layout::parse("time=41@1ms,worker=2,seq=20,epoch=2020-01-01").unwrap(),
            browser_layout: Layout::preset("js53").unwrap(),
            shared_segments: true,
            instances: 2,
            min_availability: 0.99,
            slack_ms: 200,
        }
    }

    fn id(node: u64, t_ms: u64, seq: u64) -> u64 {
        let l = rules().service_layout;
        let parts = Parts {
            time: t_ms - l.epoch_ms(),
            node,
            sequence: seq,
            rollback: 0,
        };
        l.compose(&parts).unwrap()
    }

    fn op(group: Group, instance: usize, at: u64, ok: bool, ids: Vec<u64>) -> Op {
        Op {
            group,
            instance,
            incarnation: 0,
            client: 0,
            key: "k".into(),
            tenure: None,
            start_ms: at,
            end_ms: at + 1,
            ok,
            error: String::new(),
            ids,
        }
    }

    fn tenure(owner: usize, node: u64, fence: Option<u64>, bound: u64) -> Tenure {
        Tenure {
            holder: format!("n{owner}#0"),
            owner,
            incarnation: 0,
            browser: false,
            node,
            token: 1,
            fence_ms: fence,
            bound_ms: bound,
            first_seen_ms: 0,
            last_seen_ms: 1_000_000,
        }
    }

    const T0: u64 = 1_800_000_000_000;

    #[test]
    fn a_clean_run_passes() {
        let mut h = History::default();
        h.tenures.push(tenure(0, 1, None, T0 + 10_000));
        h.tenures.push(tenure(1, 2, None, T0 + 10_000));
        for k in 0..100u64 {
            h.ops.push(op(
                Group::Snowflake,
                0,
                k * 10,
                true,
                vec![id(1, T0 + k, 0)],
            ));
            h.ops.push(op(
                Group::Snowflake,
                1,
                k * 10,
                true,
                vec![id(2, T0 + k, 0)],
            ));
            h.ops.push(op(Group::Segment, 1, k * 10, true, vec![k]));
        }
        h.duration_ms = 2_000;
        let v = check(&h, &rules());
        assert!(v.passed(), "{:?}", v.failures);
        assert_eq!(v.ids["snowflake"], 200);
        assert_eq!(v.windows_checked, 200);
        assert_eq!(v.phases[0]["healthy"].attempted, 100);
    }

    #[test]
    fn duplicates_are_found_per_kind_only() {
        let mut h = History::default();
        h.ops
            .push(op(Group::Snowflake, 0, 0, true, vec![id(1, T0, 0)]));
        h.ops.push(op(Group::Batch, 1, 5, true, vec![id(1, T0, 0)]));
        h.ops.push(op(Group::Segment, 0, 5, true, vec![7]));
        h.ops.push(op(Group::Segment, 1, 6, true, vec![7]));
        let mut r = rules();
        let v = check(&h, &r);
        assert_eq!(v.duplicated["snowflake"], 1);
        assert_eq!(v.duplicated["segment:k"], 1);
        assert!(!v.passed());
        // Each instance with its own segment store: the same number under two stores is fine.
        r.shared_segments = false;
        assert!(!check(&h, &r).duplicated.contains_key("segment:n1:k"));
    }

    #[test]
    fn an_id_past_the_bound_or_at_the_fence_is_out_of_its_window() {
        let mut h = History::default();
        h.tenures.push(tenure(0, 1, Some(T0), T0 + 100));
        h.ops
            .push(op(Group::Snowflake, 0, 0, true, vec![id(1, T0 + 50, 0)]));
        assert!(check(&h, &rules()).passed());
        h.ops
            .push(op(Group::Snowflake, 0, 1, true, vec![id(1, T0 + 101, 0)]));
        let v = check(&h, &rules());
        assert!(
            v.failures[0].contains("outside every window"),
            "{:?}",
            v.failures
        );
        h.ops.pop();
        h.ops
            .push(op(Group::Snowflake, 0, 1, true, vec![id(1, T0, 1)]));
        assert!(!check(&h, &rules()).passed());
        // Seen last before the ID was acknowledged: a later renewal may have raised the bound.
        h.ops.pop();
        h.tenures[0].last_seen_ms = 0;
        h.ops
            .push(op(Group::Snowflake, 0, 1, true, vec![id(1, T0 + 101, 0)]));
        assert!(check(&h, &rules()).passed());
    }

    #[test]
    fn a_holder_back_on_its_node_after_another_is_told_by_its_fences() {
        // n0 holds node 1 (token 1), n1 takes it over (token 2), n0 gets it back (token 3,
        // fenced above n1's bound) — and mints before the harness sees its new grant.
        let mut h = History::default();
        h.tenures.push(tenure(0, 1, None, T0 + 100));
        let mut t2 = tenure(1, 1, Some(T0 + 100), T0 + 200);
        t2.token = 2;
        h.tenures.push(t2);
        let mut t3 = tenure(0, 1, Some(T0 + 200), T0 + 300);
        t3.token = 3;
        t3.first_seen_ms = 500;
        h.tenures.push(t3);
        h.ops
            .push(op(Group::Snowflake, 0, 0, true, vec![id(1, T0 + 50, 0)]));
        h.ops
            .push(op(Group::Snowflake, 1, 200, true, vec![id(1, T0 + 150, 0)]));
        h.ops
            .push(op(Group::Snowflake, 0, 400, true, vec![id(1, T0 + 250, 0)]));
        let v = check(&h, &rules());
        assert!(v.passed(), "{:?}", v.failures);
    }

    #[test]
    fn a_later_grant_without_a_fence_does_not_claim_earlier_ids() {
        // n0 holds node 1, n1 holds it next, then (after the store lost its records) n0 gets
        // it again with no fence of its own: the early IDs stay with the early grant.
        let mut h = History::default();
        h.tenures.push(tenure(0, 1, None, T0 + 100));
        let mut t2 = tenure(1, 1, Some(T0 + 100), T0 + 200);
        t2.token = 2;
        h.tenures.push(t2);
        let mut t3 = tenure(0, 1, None, T0 + 10_000);
        t3.token = 3;
        t3.first_seen_ms = 100_000;
        h.tenures.push(t3);
        h.ops
            .push(op(Group::Snowflake, 0, 0, true, vec![id(1, T0 + 50, 0)]));
        h.ops
            .push(op(Group::Snowflake, 1, 200, true, vec![id(1, T0 + 150, 0)]));
        h.ops.push(op(
            Group::Snowflake,
            0,
            100_500,
            true,
            vec![id(1, T0 + 9_000, 0)],
        ));
        let v = check(&h, &rules());
        assert!(v.passed(), "{:?}", v.failures);
    }

    #[test]
    fn a_token_handed_out_again_after_data_loss_is_another_grant() {
        // n0 holds node 1 under token 1, n1 next (token 2); the store loses its data and
        // counts tokens from the start again: n0 gets node 1 under token 1 once more, fenced
        // above n1's bound. Two grants, not one holder around n1's IDs.
        let mut h = History::default();
        h.tenures.push(tenure(0, 1, None, T0 + 100));
        let mut t2 = tenure(1, 1, Some(T0 + 100), T0 + 200);
        t2.token = 2;
        h.tenures.push(t2);
        let mut t3 = tenure(0, 1, Some(T0 + 200), T0 + 300);
        t3.first_seen_ms = 300;
        h.tenures.push(t3);
        h.ops
            .push(op(Group::Snowflake, 0, 0, true, vec![id(1, T0 + 50, 0)]));
        h.ops
            .push(op(Group::Snowflake, 1, 200, true, vec![id(1, T0 + 150, 0)]));
        h.ops
            .push(op(Group::Snowflake, 0, 400, true, vec![id(1, T0 + 250, 0)]));
        let v = check(&h, &rules());
        assert!(v.passed(), "{:?}", v.failures);
    }

    #[test]
    fn two_holders_of_one_node_must_not_interleave() {
        let mut h = History::default();
        h.tenures.push(tenure(0, 1, None, T0 + 1_000));
        h.tenures.push(tenure(1, 1, None, T0 + 1_000));
        h.ops
            .push(op(Group::Snowflake, 0, 0, true, vec![id(1, T0 + 10, 0)]));
        h.ops
            .push(op(Group::Snowflake, 0, 2, true, vec![id(1, T0 + 30, 0)]));
        h.ops
            .push(op(Group::Snowflake, 1, 1, true, vec![id(1, T0 + 20, 0)]));
        let v = check(&h, &rules());
        assert!(
            v.failures.iter().any(|f| f.contains("interleave")),
            "{:?}",
            v.failures
        );
    }

    fn cut(start: u64, end: u64) -> Applied {
        Applied {
            id: 0,
            kind: "isolate".into(),
            what: "isolate n0".into(),
            start_ms: start,
            heal_started_ms: end,
            end_ms: end,
            effects: vec![Some(Effect::Cut), None],
            slow_recovery: false,
        }
    }

    #[test]
    fn a_cut_instance_must_stop_within_the_ttl_and_come_back_within_two() {
        let mut h = History {
            duration_ms: 60_000,
            ..History::default()
        };
        h.applied.push(cut(10_000, 20_000));
        h.tenures.push(tenure(0, 1, None, u64::MAX));
        let mut t = 0;
        while t < 60_000 {
            let in_cut = (10_000 + TTL..20_000).contains(&t);
            h.ops
                .push(op(Group::Snowflake, 0, t, !in_cut, vec![id(1, T0 + t, 0)]));
            t += 100;
        }
        let v = check(&h, &rules());
        assert!(v.passed(), "{:?}", v.failures);
        assert_eq!(v.recoveries, vec![(0, 0, Some(1))]);
        // Minting on 5 s into the cut: not fail-closed.
        h.ops.push(op(
            Group::Snowflake,
            0,
            15_000,
            true,
            vec![id(1, T0 + 15_000, 1)],
        ));
        let v = check(&h, &rules());
        assert!(
            v.failures.iter().any(|f| f.contains("not fail-closed")),
            "{:?}",
            v.failures
        );
        h.ops.pop();
        // No ID for 7 s after the heal: too slow.
        for o in h
            .ops
            .iter_mut()
            .filter(|o| (20_000..27_000).contains(&o.start_ms))
        {
            o.ok = false;
        }
        let v = check(&h, &rules());
        assert!(
            v.failures.iter().any(|f| f.contains("did not serve")),
            "{:?}",
            v.failures
        );
        // After data loss the lock delay comes on top: 7 s is in time, 13 s is not.
        h.applied[0].slow_recovery = true;
        assert!(check(&h, &rules()).passed());
        for o in h
            .ops
            .iter_mut()
            .filter(|o| (20_000..33_000).contains(&o.start_ms))
        {
            o.ok = false;
        }
        assert!(!check(&h, &rules()).passed());
    }

    #[test]
    fn the_majority_side_must_keep_ninety_nine_percent() {
        let mut h = History {
            duration_ms: 60_000,
            ..History::default()
        };
        h.applied.push(cut(10_000, 20_000));
        for k in 0..600u64 {
            let t = k * 100;
            let ok = !(12_000..14_000).contains(&t);
            h.ops.push(op(Group::Segment, 1, t, ok, vec![k]));
        }
        let v = check(&h, &rules());
        assert!(
            v.failures
                .iter()
                .any(|f| f.contains("n1 answered") && f.contains("majority")),
            "{:?}",
            v.failures
        );
        assert_eq!(v.phases[1]["majority during #0 isolate"].attempted, 100);
    }
}
