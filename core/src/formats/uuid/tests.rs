//! Tests of the UUID constructors, generators, inspection and text forms.

use super::v1::GREGORIAN_TO_UNIX_TICKS;
use super::v7::MAX_V7_MS;
use super::*;
use crate::error::Error;
use uuid::Builder;
extern crate std;
use proptest::prelude::*;
use std::string::ToString;

#[test]
fn python_reference_values() {
    assert_eq!(
        v5(&NAMESPACE_DNS, b"python.org").to_string(),
        "886313e1-3b8a-5372-9b90-0c9aee199e5d"
    );
    assert_eq!(
        v3(&NAMESPACE_DNS, b"python.org").to_string(),
        "6fa459ea-ee8a-3ca4-894e-db77e160355e"
    );
}

#[test]
fn v1_node_is_multicast() {
    let u = v1_random_node(0, 0, 0xffff, [0; 6]);
    assert_eq!(u.get_version_num(), 1);
    assert_eq!(u.get_node_id(), Some([1, 0, 0, 0, 0, 0]));
    assert_eq!(inspect(&u).unix_ms, Some(0));
    let t = v1_random_node(1_234_567, 20_000, 0, [2; 6]);
    assert_eq!(
        t.get_timestamp().unwrap().to_gregorian().0,
        GREGORIAN_TO_UNIX_TICKS + 12_345_679_999
    );
    assert_eq!(t.get_node_id(), Some([3, 2, 2, 2, 2, 2]));
    assert_eq!(inspect(&v1(0, 0, [0; 6])).unix_ms, None); // 1582
    let _ = v1_random_node(u64::MAX, u16::MAX, u16::MAX, [0xff; 6]);
}

#[test]
fn inspect_versions() {
    let v4u = v4([0x55; 16]);
    assert_eq!(
        inspect(&v4u),
        UuidInfo {
            version: 4,
            variant: "rfc9562",
            unix_ms: None
        }
    );
    assert_eq!(
        inspect(&Uuid::nil()),
        UuidInfo {
            version: 0,
            variant: "ncs",
            unix_ms: None
        }
    );
    assert_eq!(
        inspect(&Uuid::max()),
        UuidInfo {
            version: 15,
            variant: "future",
            unix_ms: None
        }
    );
    let v6 = Builder::from_sorted_gregorian_timestamp(
        GREGORIAN_TO_UNIX_TICKS + 10_000 * 42 + 1,
        0,
        &[1; 6],
    )
    .into_uuid();
    assert_eq!(inspect(&v6).unix_ms, Some(42));
    // A "v7" of the Microsoft variant carries no RFC 9562 time.
    let mut b = *v7(99, [0; 10]).as_bytes();
    b[8] = 0xc0;
    assert_eq!(inspect(&Uuid::from_bytes(b)).variant, "microsoft");
    assert_eq!(inspect(&Uuid::from_bytes(b)).unix_ms, None);
}

fn bad(s: &str) -> (usize, &'static str) {
    match parse(s) {
        Err(Error::InvalidEncoding {
            codec: "uuid",
            at,
            reason,
        }) => (at, reason),
        other => panic!("{s:?}: {other:?}"),
    }
}

#[test]
fn parse_forms_and_errors() {
    let u = v5(&NAMESPACE_URL, b"x");
    let s = u.to_string();
    assert_eq!(parse(&s), Ok(u));
    assert_eq!(parse(&s.to_uppercase()), Ok(u));
    assert_eq!(parse(&std::format!("{{{s}}}")), Ok(u));
    assert_eq!(parse(&std::format!("urn:uuid:{s}")), Ok(u));
    assert_eq!(parse(&u.simple().to_string()), Ok(u));

    assert_eq!(bad(""), (0, "empty input"));
    assert_eq!(
        bad("886313e1-3b8a-5372-9b90-0c9aee199e5g"),
        (35, "not a hexadecimal digit")
    );
    assert_eq!(bad("886313e1_3b8a-5372-9b90-0c9aee199e5d").0, 8);
    assert_eq!(bad("886313e1-3b8a-5372-9b900-c9aee199e5d").0, 23);
    assert_eq!(bad("886313e1-3b8a-5372-9b90-0c9aee199e5").0, 35);
    assert_eq!(bad("886313e13b8a53729b900c9aee199e5").0, 31);
    assert_eq!(
        bad("{886313e1-3b8a-5372-9b90-0c9aee199e5d").1,
        "missing closing brace"
    );
    assert_eq!(bad("urn:uuid:886313e1-3b8a-5372-9b90-0c9aee199e5z").0, 44);
    assert_eq!(bad("{886313e13b8a53729b900c9aee199e5d}").0, 9);
    assert_eq!(bad("ü86313e1-3b8a-5372-9b90-0c9aee199e5d").0, 0);
}

#[test]
fn hyphenated_into() {
    let mut buf = [0u8; 36];
    let u = v5(&NAMESPACE_DNS, b"python.org");
    assert_eq!(encode_hyphenated_into(&u, &mut buf), Ok(36));
    assert_eq!(&buf[..], b"886313e1-3b8a-5372-9b90-0c9aee199e5d");
    assert_eq!(
        encode_hyphenated_into(&u, &mut buf[..10]),
        Err(Error::BufferTooSmall { needed: 36 })
    );
}

proptest! {
    #[test]
    fn parse_never_panics(s in ".*") {
        let _ = parse(&s);
    }

    #[test]
    fn parse_near_misses(s in "[0-9a-fA-F{}:urnid-]{30,46}") {
        match parse(&s) {
            Ok(u) => prop_assert_eq!(parse(&u.to_string()), Ok(u)),
            Err(Error::InvalidEncoding { at, .. }) => prop_assert!(at <= s.chars().count()),
            Err(e) => prop_assert!(false, "{:?}", e),
        }
    }

    #[test]
    fn v7_generator_orders_any_clock(steps in proptest::collection::vec((0u64..2_000, any::<[u8; 10]>()), 1..200)) {
        let mut g = Uuid7Generator::new();
        let mut prev: Option<Uuid> = None;
        for (ms, r) in steps {
            let u = g.next_at(1_700_000_000_000 + ms, r);
            if let Some(p) = prev {
                prop_assert!(u > p);
            }
            prev = Some(u);
        }
    }

    /// The process-wide `uuid7()` draws the counter's seed only when it needs one; given the
    /// same bits it issues exactly what `next_at` does, on any clock.
    #[test]
    fn v7_lazy_seed_issues_what_next_at_does(steps in proptest::collection::vec((0u64..20, any::<[u8; 10]>()), 1..200)) {
        let (mut eager, mut lazy) = (Uuid7Generator::new(), Uuid7Generator::new());
        for (ms, r) in steps {
            let now = 1_700_000_000_000 + ms;
            let tail = u32::from_be_bytes([r[6], r[7], r[8], r[9]]);
            let seed = || Ok::<_, Error>(u64::from_be_bytes([0, 0, r[0], r[1], r[2], r[3], r[4], r[5]]));
            prop_assert_eq!(lazy.next_counter_with(now, tail, seed), Ok(eager.next_at(now, r)));
            prop_assert_eq!(lazy, eager);
        }
    }

    #[test]
    fn v7_time_round_trips(ms in 0u64..=MAX_V7_MS, r in any::<[u8; 10]>()) {
        prop_assert_eq!(inspect(&v7(ms, r)).unix_ms, Some(ms));
        prop_assert_eq!(inspect(&Uuid7Generator::new().next_at(ms, r)).unix_ms, Some(ms));
    }
}
