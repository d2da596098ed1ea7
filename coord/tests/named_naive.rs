//! The naive generators as named types (`type=counter`, `type=autoinc`, `type=redis_compose`):
//! what each issues, that two generators on one store never repeat, that the instance order of
//! `autoinc` is its residue, and their config errors. Every surface builds them from the same
//! config text through `named::build`.

mod support;

use std::collections::HashSet;
use std::sync::Arc;

use idmint::{ErrorKind, Layout};
use idmint_coord::named::{self, NamedSource};
use support::{temp_dir, Kind, Server};

fn u64s(g: &dyn NamedSource, n: usize) -> Vec<u64> {
    let mut v = vec![0; n];
    g.fill_u64(&mut v).unwrap();
    v
}

fn one(g: &dyn NamedSource) -> u64 {
    g.next_id().unwrap().as_u64().unwrap()
}

#[test]
fn counter_counts_one_store_value_per_id_and_two_generators_share_the_counter() {
    let dir = temp_dir("named-counter");
    let config = format!(
        "type=counter,store=sqlite:{},key=orders",
        dir.join("ids.db").display()
    );
    let a = named::build(&config).unwrap();
    let b = named::build(&config).unwrap();
    assert_eq!(a.kind(), "counter");
    assert_eq!(one(&*a), 1);
    assert_eq!(one(&*b), 2);
    assert_eq!(u64s(&*a, 3), [3, 4, 5]);
    // No range is held: a new generator goes on from the store, nothing skipped.
    drop(a);
    let c = named::build(&config).unwrap();
    assert_eq!(one(&*c), 6);
    assert!(c.config().starts_with("type=counter,store=sqlite:"));
}

#[test]
fn counter_on_redis_is_incr() {
    let redis = Server::start(Kind::Redis);
    let config = format!("type=counter,store={},key=tickets", redis.url());
    let g: Arc<dyn NamedSource> = Arc::from(named::build(&config).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let g = Arc::clone(&g);
            std::thread::spawn(move || (0..100).map(|_| one(&*g)).collect::<Vec<_>>())
        })
        .collect();
    let mut all = HashSet::new();
    for t in threads {
        for id in t.join().unwrap() {
            assert!(all.insert(id), "{id} twice");
        }
    }
    assert_eq!(all, (1..=400).collect::<HashSet<u64>>());
}

#[test]
fn autoinc_interleaves_residues_by_instance_order() {
    let dir = temp_dir("named-autoinc");
    let (a, b, c) = (
        dir.join("a.db").display().to_string(),
        dir.join("b.db").display().to_string(),
        dir.join("c.db").display().to_string(),
    );
    let config = format!("type=autoinc,stores=(sqlite:{a}|sqlite:{b}|sqlite:{c}),key=k");
    let g = named::build(&config).unwrap();
    assert_eq!(g.kind(), "autoinc");
    let ids = u64s(&*g, 9);
    let mut set: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(set, (1..=9).collect::<HashSet<u64>>(), "{ids:?}");
    // A second generator on the same instances, in the same order, goes on from their counters.
    let again = named::build(&config).unwrap();
    for id in u64s(&*again, 6) {
        assert!(set.insert(id), "{id} twice");
    }
    assert_eq!(set, (1..=15).collect::<HashSet<u64>>());
}

#[test]
fn redis_compose_mints_the_layouts_ids_with_its_shard() {
    let redis = Server::start(Kind::Redis);
    let spec = "time=41@1ms,shard=12,seq=10,epoch=2020-01-01";
    let config = |shard: u64| {
        format!(
            "type=redis_compose,store={},layout=({spec}),shard={shard},namespace=orders",
            redis.url()
        )
    };
    let a = named::build(&config(7)).unwrap();
    let b = named::build(&config(7)).unwrap();
    assert_eq!(a.kind(), "redis_compose");
    let layout = Layout::parse(spec).unwrap();
    let mut all = HashSet::new();
    for g in [&a, &b, &a, &b] {
        for id in u64s(&**g, 500) {
            assert_eq!(layout.decompose(id).unwrap().node, 7);
            assert!(all.insert(id), "{id} twice");
        }
    }
    assert!(a.config().contains("shard=7"));
}

#[test]
fn config_errors_point_into_the_text() {
    let cases = [
        ("type=counter,key=k", "needs store="),
        ("type=counter,store=sqlite:/tmp/x.db", "needs key="),
        (
            "type=counter,store=sqlite:/tmp/x.db,key=k,step=5",
            "unknown key",
        ),
        ("type=autoinc,key=k", "needs stores="),
        (
            "type=redis_compose,store=redis://127.0.0.1:1/,layout=twitter,namespace=n",
            "needs shard=",
        ),
    ];
    for (config, want) in cases {
        let Err(e) = named::build(config) else {
            panic!("{config}: built");
        };
        assert_eq!(e.kind(), ErrorKind::InvalidLayout, "{config}: {e}");
        assert!(e.to_string().contains(want), "{config}: {e}");
    }
    let Err(e) = named::build("type=counter,store=nope://x,key=k") else {
        panic!("nope:// built");
    };
    assert_eq!(e.kind(), ErrorKind::InvalidConfig, "{e}");
    // The names are taken: a program cannot register them again.
    for name in ["counter", "autoinc", "redis_compose"] {
        assert!(named::register(name, |_| unreachable!()).is_err(), "{name}");
    }
}
