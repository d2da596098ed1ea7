//! Node sources: the text forms, their errors, values checked against the layout's node field
//! (never truncated), IP derivation, and `LeasedSnowflake::from_source` for each kind.

use std::net::Ipv4Addr;
use std::process::Command;

use idmint::{Config, Error, ErrorKind, Layout};
use idmint_coord::lease::{LeaseOptions, LeasedSnowflake};
use idmint_coord::node_source::{is_private_ipv4, private_ipv4, NodeSource};

fn twitter() -> Layout {
    Layout::preset("twitter").unwrap() // 10 node bits: 0..=1023
}

#[test]
fn parse_forms() {
    let cases = [
        ("static:5", NodeSource::Static(5)),
        ("  static:0 ", NodeSource::Static(0)),
        ("17", NodeSource::Static(17)),
        ("env:NODE_ID", NodeSource::Env("NODE_ID".into())),
        ("ip", NodeSource::Ip(None)),
        (
            "ip:10.1.2.3",
            NodeSource::Ip(Some(Ipv4Addr::new(10, 1, 2, 3))),
        ),
        ("random", NodeSource::Random),
        (
            "file:/var/lib/idmint",
            NodeSource::Leased("file:/var/lib/idmint".into()),
        ),
        (
            "redis://127.0.0.1:6379/",
            NodeSource::Leased("redis://127.0.0.1:6379/".into()),
        ),
        (
            "postgres://u@h/db",
            NodeSource::Leased("postgres://u@h/db".into()),
        ),
        (
            "postgresql://u@h/db?mode=boot",
            NodeSource::Leased("postgresql://u@h/db?mode=boot".into()),
        ),
    ];
    for (text, want) in cases {
        let got = NodeSource::parse(text).unwrap();
        assert_eq!(got, want, "{text}");
        // Display and parse are inverses.
        assert_eq!(NodeSource::parse(&got.to_string()).unwrap(), got);
        assert_eq!(text.parse::<NodeSource>().unwrap(), got);
    }
    assert!(NodeSource::parse("redis://x/").unwrap().is_leased());
    assert!(!NodeSource::parse("static:1").unwrap().is_leased());
}

#[test]
fn parse_errors() {
    for bad in [
        "",
        "static:",
        "static:-1",
        "static:1.5",
        "static:0x10",
        "static:99999999999999999999999",
        "env:",
        "env:A=B",
        "ip:10.0.0",
        "ip:::1",
        "ip:300.1.1.1",
        "random:5",
        "memcached://h",
        "zookeeper",
    ] {
        let e = NodeSource::parse(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidConfig, "{bad:?}: {e:?}");
    }
}

#[test]
fn values_are_checked_against_the_node_field() {
    let l = twitter();
    assert_eq!(NodeSource::Static(1023).resolve(&l), Ok(1023));
    let e = NodeSource::Static(1024).resolve(&l).unwrap_err();
    assert!(
        matches!(
            e,
            Error::OutOfRange {
                value: 1024,
                max: 1023,
                ..
            }
        ),
        "{e:?}"
    );
    // A layout without node bits takes node 0 only.
    let none = Layout::parse("time=41@1ms,seq=22,epoch=2020-01-01").unwrap();
    assert_eq!(NodeSource::Static(0).resolve(&none), Ok(0));
    assert!(NodeSource::Static(1).resolve(&none).is_err());
    assert_eq!(NodeSource::Random.resolve(&none), Ok(0));
    assert!(matches!(
        NodeSource::Ip(Some(Ipv4Addr::new(10, 0, 0, 1))).resolve(&none),
        Err(Error::InvalidConfig { .. })
    ));
    // A lease store is not a fixed value.
    assert!(matches!(
        NodeSource::parse("file:/tmp/x").unwrap().resolve(&l),
        Err(Error::InvalidConfig { .. })
    ));
}

#[test]
fn environment_variable_source() {
    let l = twitter();
    // Each case uses its own variable name: tests run in parallel threads.
    std::env::set_var("IDMINT_TEST_NODE_OK", " 42 ");
    assert_eq!(
        NodeSource::parse("env:IDMINT_TEST_NODE_OK")
            .unwrap()
            .resolve(&l),
        Ok(42)
    );
    std::env::remove_var("IDMINT_TEST_NODE_MISSING");
    let e = NodeSource::parse("env:IDMINT_TEST_NODE_MISSING")
        .unwrap()
        .resolve(&l)
        .unwrap_err();
    assert_eq!(
        e,
        Error::InvalidConfig {
            reason: "the node's environment variable is not set"
        }
    );
    for (name, value) in [
        ("IDMINT_TEST_NODE_EMPTY", ""),
        ("IDMINT_TEST_NODE_WORD", "seven"),
        ("IDMINT_TEST_NODE_NEG", "-3"),
        ("IDMINT_TEST_NODE_HEX", "0x1f"),
    ] {
        std::env::set_var(name, value);
        let e = NodeSource::Env(name.into()).resolve(&l).unwrap_err();
        assert!(matches!(e, Error::InvalidConfig { .. }), "{value:?}: {e:?}");
    }
    std::env::set_var("IDMINT_TEST_NODE_WIDE", "5000");
    assert!(matches!(
        NodeSource::Env("IDMINT_TEST_NODE_WIDE".into()).resolve(&l),
        Err(Error::OutOfRange { value: 5000, .. })
    ));
}

#[test]
fn ip_derivation_takes_the_low_node_bits() {
    let l = twitter();
    let ip = |s: &str| NodeSource::parse(s).unwrap().resolve(&l).unwrap();
    // 10.0.3.7 = 0x0A000307; the low 10 bits are 0x307.
    assert_eq!(ip("ip:10.0.3.7"), 0x307);
    assert_eq!(ip("ip:192.168.1.255"), 0x1ff);
    // Sonyflake: 16 machine bits = the address's last two octets.
    let sony = Layout::preset("sonyflake").unwrap();
    assert_eq!(
        NodeSource::Ip(Some(Ipv4Addr::new(172, 16, 18, 52)))
            .resolve(&sony)
            .unwrap(),
        (18 << 8) | 52
    );
    assert!(is_private_ipv4(Ipv4Addr::new(10, 9, 8, 7)));
    assert!(is_private_ipv4(Ipv4Addr::new(172, 31, 0, 1)));
    assert!(is_private_ipv4(Ipv4Addr::new(100, 64, 0, 1)));
    assert!(!is_private_ipv4(Ipv4Addr::new(172, 32, 0, 1)));
    assert!(!is_private_ipv4(Ipv4Addr::new(8, 8, 8, 8)));
    assert!(!is_private_ipv4(Ipv4Addr::new(127, 0, 0, 1)));
    assert!(!is_private_ipv4(Ipv4Addr::new(192, 0, 2, 2)));
}

/// `ip` without an address finds the host's first private IPv4 address: it agrees with
/// `hostname -I`, and fails with InvalidConfig on a host that has none.
#[test]
fn ip_auto_detection_matches_the_host() {
    let out = Command::new("hostname").arg("-I").output().unwrap();
    let listed: Vec<Ipv4Addr> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let private: Vec<Ipv4Addr> = listed
        .iter()
        .copied()
        .filter(|a| is_private_ipv4(*a))
        .collect();
    match private_ipv4() {
        Ok(a) => {
            assert!(private.contains(&a), "{a} is not among {listed:?}");
            assert_eq!(
                NodeSource::Ip(None).resolve(&twitter()).unwrap(),
                u64::from(u32::from(a)) & 1023
            );
        }
        Err(e) => {
            assert!(private.is_empty(), "missed a private address in {listed:?}");
            assert!(matches!(e, Error::InvalidConfig { .. }));
            assert!(NodeSource::Ip(None).resolve(&twitter()).is_err());
        }
    }
}

#[test]
fn random_source_stays_in_range() {
    let l = Layout::parse("time=41@1ms,node=3,seq=19,epoch=2020-01-01").unwrap();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..200 {
        let n = NodeSource::Random.resolve(&l).unwrap();
        assert!(n < 8);
        seen.insert(n);
    }
    assert!(seen.len() > 4, "random nodes are not spread: {seen:?}");
}

#[test]
fn from_source_builds_leased_and_plain_generators() {
    let cfg = Config::new(twitter());
    let fixed = LeasedSnowflake::from_source("static:7", cfg, LeaseOptions::new()).unwrap();
    assert_eq!(fixed.node(), 7);
    assert!(fixed.lease_info().is_none());
    let a = fixed.next_id().unwrap();
    assert_eq!(twitter().decompose(a).unwrap().node, 7);
    let mut batch = vec![0u64; 5000];
    fixed.next_ids(&mut batch).unwrap();
    assert!(batch[0] > a && batch.windows(2).all(|w| w[0] < w[1]));
    fixed.release().unwrap();

    std::env::set_var("IDMINT_TEST_FROM_SOURCE", "9");
    let env = LeasedSnowflake::from_source("env:IDMINT_TEST_FROM_SOURCE", cfg, LeaseOptions::new())
        .unwrap();
    assert_eq!(env.node(), 9);

    assert!(matches!(
        LeasedSnowflake::from_source("static:2048", cfg, LeaseOptions::new()),
        Err(Error::OutOfRange { .. })
    ));
    assert!(matches!(
        LeasedSnowflake::from_source("nonsense", cfg, LeaseOptions::new()),
        Err(Error::InvalidConfig { .. })
    ));

    let dir = std::env::temp_dir().join(format!("idmint-ns-{}", std::process::id()));
    let url = format!("file:{}", dir.display());
    let leased =
        LeasedSnowflake::from_source(&url, cfg, LeaseOptions::new().namespace("src")).unwrap();
    let other =
        LeasedSnowflake::from_source(&url, cfg, LeaseOptions::new().namespace("src")).unwrap();
    assert_ne!(
        leased.node(),
        other.node(),
        "two leases on one directory share a node"
    );
    let info = leased.lease_info().unwrap();
    assert_eq!((info.store, info.lease.node), ("file", leased.node()));
    assert!(leased.next_id().is_ok());
    drop((leased, other));
    let _ = std::fs::remove_dir_all(&dir);
}
