//! Unit tests of the ZooKeeper store's URL parsing, records and plans.

use zookeeper_client::Stat;

use super::records::*;
use super::*;

#[test]
fn urls() {
    let s = ZkStore::open("zk://127.0.0.1:2181,[::1]:2182/apps/idmint?timeout_ms=250&session_timeout_ms=4000&identity=10.0.0.7:8080").unwrap();
    assert_eq!(s.hosts, "127.0.0.1:2181,[::1]:2182");
    assert_eq!(s.root, "/apps/idmint");
    assert_eq!(s.timeout, Duration::from_millis(250));
    assert_eq!(s.session_timeout, Some(Duration::from_secs(4)));
    assert_eq!(s.identity.as_deref(), Some("10.0.0.7:8080"));
    let s = ZkStore::open("zk://zk-1.example:2181/idmint").unwrap();
    assert_eq!(
        (s.timeout, s.session_timeout),
        (super::super::DEFAULT_STORE_TIMEOUT, None)
    );
    for bad in [
        "zk://127.0.0.1:2181",
        "zk://127.0.0.1:2181/",
        "zk:///idmint",
        "zk://127.0.0.1/idmint",
        "zk://127.0.0.1:0/idmint",
        "zk://127.0.0.1:99999/idmint",
        "zk://127.0.0.1:2181,/idmint",
        "zk://127.0.0.1:2181/a//b",
        "zk://127.0.0.1:2181/a/",
        "zk://127.0.0.1:2181/a/../b",
        "zk://127.0.0.1:2181/zookeeper/x",
        "zk://127.0.0.1:2181/idmint?mode=boot",
        "zk://127.0.0.1:2181/idmint?timeout_ms=0",
        "zk://127.0.0.1:2181/idmint?session_timeout_ms=x",
        "zk://127.0.0.1:2181/idmint?session_timeout_ms=0",
        "zk://127.0.0.1:2181/idmint?identity=",
        "zk://127.0.0.1:2181/idmint?color=blue",
        "zk://bad host:2181/idmint",
    ] {
        assert!(
            matches!(ZkStore::open(bad), Err(Error::InvalidConfig { .. })),
            "{bad} was accepted"
        );
    }
}

#[test]
fn identities_as_znode_names() {
    assert_eq!(encode_identity("10.0.0.7:8080"), "10.0.0.7:8080");
    assert_eq!(encode_identity("a/b c%"), "a%2Fb%20c%25");
    assert_eq!(encode_identity(".."), "%2E%2E");
    assert_eq!(entry_sequence("svc-a-0000000007", "svc-a"), Some(7));
    assert_eq!(entry_sequence("svc-a-b-0000000007", "svc-a"), None);
    assert_eq!(entry_sequence("svc-a-0000000007", "svc"), None);
    assert_eq!(entry_sequence("svc-a-12", "svc-a"), None);
    assert!(check_identity(&"x".repeat(129)).is_err());
    assert!(check_identity("with space").is_err());
}

#[test]
fn records() {
    let stat = Stat {
        czxid: 1,
        mzxid: 9,
        pzxid: 1,
        ctime: 0,
        mtime: 0,
        version: 3,
        cversion: 0,
        aversion: 0,
        ephemeral_owner: 0,
        data_length: 0,
        num_children: 0,
    };
    let data = record_data(None, Some(0xabc), "h:1:ff", "svc");
    assert_eq!(data, "bound=- owner=abc holder=h:1:ff identity=svc");
    let r = NodeRecord::parse(data.as_bytes(), &stat).unwrap();
    assert_eq!(
        (r.bound, r.owner, r.version, r.mzxid),
        (None, Some(0xabc), 3, 9)
    );
    let renewed = rewrite(data.as_bytes(), Some(42), Some(0xabc));
    assert_eq!(renewed, "bound=42 owner=abc holder=h:1:ff identity=svc");
    let released = rewrite(renewed.as_bytes(), Some(40), None);
    assert_eq!(
        NodeRecord::parse(released.as_bytes(), &stat).unwrap().owner,
        None
    );
    assert!(NodeRecord::parse(b"bound=x owner=-", &stat).is_err());
    let e = Epoch {
        value: 0xfeed,
        horizon: 2_000,
        lost_at: 5,
        fence: 2_005,
        version: 3,
    };
    assert_eq!(Epoch::parse(e.data().as_bytes(), &stat).unwrap(), e);
    assert!(Epoch::parse(b"epoch=0 horizon=1 lost_at=1 fence=1", &stat).is_err());
}
