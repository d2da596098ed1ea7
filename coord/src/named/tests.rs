//! Tests of the named builder: the core's configs keep the core's answers, the store-backed
//! types read their keys with errors at the right offsets, and the registry.

use std::sync::atomic::{AtomicU64, Ordering};

use idmint::named::{GeneratedId, NamedConfig};
use idmint::{Error, ErrorKind};

use super::*;

fn spec_err(config: &str) -> (usize, &'static str) {
    match build(config) {
        Err(Error::InvalidSpec { at, reason }) => (at, reason),
        other => panic!("{config}: expected InvalidSpec, got {other:?}"),
    }
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "idmint-named-unit-{tag}-{}-{}",
        std::process::id(),
        idmint::os_random_u64().unwrap_or(0)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn core_configs_answer_as_the_core_does() {
    for config in [
        "type=snowflake,layout=twitter,node=5",
        "type=uuid7",
        r#"{"type":"uuid4"}"#,
        "",
        "type",
        "type=uuid9",
        "TYPE=uuid4",
        "type=uuid4,color=red",
        "type=uuid4,type=segment",
        "type=snowflake,layout=twitter",
        "type=snowflake,layout=twitter,node=1024",
        "type=snowflake,layout=time=41@1ms,worker=10,seq=12,epoch=0",
        r#"{"type":5}"#,
        "node=1",
    ] {
        let core = NamedConfig::parse(config);
        match resolve(config) {
            Ok(Named::Core(c)) => assert_eq!(Ok(c), core, "{config}"),
            Ok(Named::Source(s)) => panic!("{config}: built {s:?}"),
            Err(e) => assert_eq!(Err(e), core, "{config}"),
        }
    }
}

#[test]
fn core_types_mint_on_the_clock_and_replay_sans_io() {
    let g = build("type=snowflake,layout=twitter,node=5").unwrap();
    assert_eq!(g.kind(), "snowflake");
    let (a, b) = (g.next_id().unwrap(), g.next_id().unwrap());
    assert!(b > a);
    let mut batch = [0u64; 5000];
    g.fill_u64(&mut batch).unwrap();
    assert!(batch.windows(2).all(|w| w[0] < w[1]));
    assert!(batch[0] > b.as_u64().unwrap());

    // next_at is the core's NamedGenerator, byte for byte.
    let cfg = "type=uuid7";
    let g = build(cfg).unwrap();
    let mut core = NamedConfig::parse(cfg).unwrap().build().unwrap();
    let t = 1_700_000_000_000;
    let fill = |b: &mut [u8]| {
        b.fill(7);
        Ok(())
    };
    let mut f = fill;
    assert_eq!(g.next_at(t, &mut f), core.next_at(t, fill));
    assert_eq!(g.config(), "type=uuid7");
    let mut uuids = [GeneratedId::U64(0); 3];
    g.fill(&mut uuids).unwrap();
    assert!(uuids.iter().all(|u| u.as_uuid().is_some()));
    assert_eq!(
        g.fill_u64(&mut [0u64; 2]).map_err(|e| e.kind()),
        Err(ErrorKind::InvalidConfig)
    );
}

#[test]
fn segment_keys_and_their_errors() {
    let s = "type=segment,key=orders";
    assert_eq!(spec_err(s).0, s.len());
    let s = "type=segment,store=memory:";
    assert_eq!(spec_err(s).0, s.len());
    assert_eq!(
        spec_err("type=segment,store=memory:,key=a,color=red"),
        (33, super::builtin::SEGMENT_UNKNOWN)
    );
    assert_eq!(
        spec_err("type=segment,store=memory:,key=a,key=b"),
        (33, "key given twice")
    );
    assert_eq!(spec_err("type=segment,store=memory:,key=a,step=x").0, 38);
    assert_eq!(spec_err(r#"{"type":"segment","store":5,"key":"a"}"#).0, 26);
    // Option values keep their own errors; stores and keys theirs.
    let e = build("type=segment,store=memory:,key=a,refill_at_percent=300").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfRange);
    let e = build("type=segment,store=nope:x,key=a").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidConfig);
    let long = "k".repeat(201);
    let e = build(&format!("type=segment,store=memory:,key={long}")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidConfig);
}

#[test]
fn segments_mint_one_key() {
    let g = build("type=segment, store=memory:, key=orders, step=10").unwrap();
    assert_eq!(g.kind(), "segment");
    assert_eq!(g.config(), "type=segment,store=memory:,key=orders,step=10");
    assert_eq!(g.next_id().unwrap(), GeneratedId::U64(1));
    let mut batch = [0u64; 25];
    g.fill_u64(&mut batch).unwrap();
    assert_eq!(batch[0], 2);
    assert!(batch.windows(2).all(|w| w[0] < w[1]));
    let mut ids = [GeneratedId::U64(0); 2];
    g.fill(&mut ids).unwrap();
    assert!(ids[0].as_u64().unwrap() > batch[24]);
    assert_eq!(
        g.next_at(0, &mut |_| Ok(())).map_err(|e| e.kind()),
        Err(ErrorKind::InvalidConfig)
    );
    g.close().unwrap();
}

#[test]
fn leased_snowflakes_take_lease_keys() {
    let dir = temp_dir("lease");
    let url = format!("file:{}", dir.display());
    let config = format!("type=snowflake,layout=(time=41@1ms,worker=2,seq=12,epoch=2020-01-01),lease={url},namespace=unit,ttl_ms=3000");
    let a = build(&config).unwrap();
    let b = build(&config).unwrap();
    assert_eq!(a.kind(), "snowflake");
    assert!(a
        .config()
        .ends_with(&format!(",lease={url},namespace=unit,ttl_ms=3000")));
    assert!(!a.config().contains("node="));
    let layout = idmint::Layout::parse("time=41@1ms,worker=2,seq=12,epoch=2020-01-01").unwrap();
    let node = |g: &dyn NamedSource| layout.decompose(g.next_id().unwrap().as_u64().unwrap());
    assert_ne!(node(&*a).unwrap().node, node(&*b).unwrap().node);
    a.close().unwrap();
    b.close().unwrap();

    // Errors: node with lease, lease keys without lease, bad values, twice, bad URL.
    let base = "type=snowflake,layout=twitter";
    let s = format!("{base},lease={url},node=1");
    assert_eq!(spec_err(&s).0, s.len() - 6);
    assert_eq!(
        spec_err(&format!("{base},node=1,ttl_ms=5")),
        (
            37,
            "this key applies to a leased snowflake only (lease=URL)"
        )
    );
    let s = format!("{base},lease={url},ttl_ms=x");
    assert_eq!(spec_err(&s).0, s.len() - 1);
    let s = format!("{base},lease={url},ttl_ms=5000,ttl_ms=6000");
    assert_eq!(spec_err(&s), (s.len() - 11, "key given twice"));
    let s = format!("{base},lease={url},lease={url}");
    assert_eq!(spec_err(&s).1, "key given twice");
    let e = build(&format!("{base},lease=memcached://x")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidConfig);
    let e = build(&format!("{base},lease={url},namespace=a/b")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidConfig);
    let e = build(&format!("type=snowflake,layout=nope,lease={url}")).unwrap_err();
    assert_eq!(
        e,
        NamedConfig::parse("type=snowflake,layout=nope").unwrap_err()
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[derive(Debug)]
struct Counter(AtomicU64);

impl NamedSource for Counter {
    fn kind(&self) -> &str {
        "unit_counter"
    }
    fn next_id(&self) -> idmint::Result<GeneratedId> {
        Ok(GeneratedId::U64(self.0.fetch_add(1, Ordering::Relaxed)))
    }
}

#[test]
fn registered_types_build_by_name() {
    register("unit_counter", |spec| {
        spec.check_keys(&["type", "start"], "unknown key (type, start)")?;
        let start = spec.u64("start")?.unwrap_or(1);
        Ok(Box::new(Counter(AtomicU64::new(start))))
    })
    .unwrap();
    assert!(registered().contains(&"unit_counter".to_string()));
    let g = build("type=unit_counter,start=7").unwrap();
    assert_eq!(g.next_id().unwrap(), GeneratedId::U64(7));
    assert_eq!(g.config(), "type=unit_counter");
    let mut batch = [0u64; 3];
    g.fill_u64(&mut batch).unwrap();
    assert_eq!(batch, [8, 9, 10]);
    assert!(matches!(resolve("type=unit_counter"), Ok(Named::Source(_))));
    assert_eq!(
        spec_err("type=unit_counter,stop=1"),
        (18, "unknown key (type, start)")
    );

    let again = register("unit_counter", |_| Err(Error::RandomSource));
    assert_eq!(again.map_err(|e| e.kind()), Err(ErrorKind::InvalidConfig));
    for builtin in ["snowflake", "uuid4", "uuid7", "uuid6", "uuid1", "segment"] {
        let r = register(builtin, |_| Err(Error::RandomSource));
        assert_eq!(
            r.map_err(|e| e.kind()),
            Err(ErrorKind::InvalidConfig),
            "{builtin}"
        );
    }
    for bad in ["", "Upper", "has-dash", "a b", &"x".repeat(65)] {
        let r = register(bad, |_| Err(Error::RandomSource));
        assert_eq!(
            r.map_err(|e| e.kind()),
            Err(ErrorKind::InvalidConfig),
            "{bad}"
        );
    }
    // An unregistered type is still the core's unknown type.
    assert_eq!(
        resolve("type=unit_nothing").unwrap_err(),
        NamedConfig::parse("type=unit_nothing").unwrap_err()
    );
    // A factory may build named generators itself (the registry is not locked meanwhile).
    register("unit_nested", |_| build("type=unit_counter,start=100")).unwrap();
    assert_eq!(
        build("type=unit_nested").unwrap().next_id().unwrap(),
        GeneratedId::U64(100)
    );
}
