//! Tests of the named configs and generators, through the public API.

use super::config::{checked_kind, KEYS_REASON, NOT_SNOWFLAKE, NOT_UUID};
use super::*;
use crate::error::{Error, Result};
use crate::formats::uuid;
use crate::snowflake::LocalSnowflake;
extern crate std;
use crate::{ErrorKind, Parts};
use proptest::prelude::*;
use std::string::ToString;
use std::vec;

const T0: u64 = 1_700_000_000_000;

fn no_random(_: &mut [u8]) -> Result<()> {
    Ok(())
}

fn counting() -> impl FnMut(&mut [u8]) -> Result<()> {
    let mut n = 0u8;
    move |buf: &mut [u8]| {
        for b in buf {
            *b = n;
            n = n.wrapping_add(1);
        }
        Ok(())
    }
}

fn spec_at(s: &str) -> (usize, &'static str) {
    match NamedConfig::parse(s) {
        Err(Error::InvalidSpec { at, reason }) => (at, reason),
        other => panic!("{s}: expected InvalidSpec, got {other:?}"),
    }
}

#[test]
fn compact_round_trips() {
    for s in [
        "type=snowflake,layout=twitter,node=5,on_backwards=wait:1000,on_exhausted=borrow:16,sequence_start=vibrate:1,seed=42",
        "type=snowflake,layout=(time=41@1ms,worker=10,seq=12,epoch=2020-01-01),node=1023,on_backwards=logical:500,on_exhausted=wait,sequence_start=random,seed=18446744073709551615,fence_ms=1700000000000",
        "type=snowflake,layout=(time=40@1ms,rollback=2,worker=8,seq=13,epoch=2010-11-04T01:42:54.657Z),node=0,on_backwards=rollback_counter,on_exhausted=fail,sequence_start=zero",
        "type=snowflake,layout=sonyflake,node=65535,on_backwards=ring:64,on_exhausted=wait,sequence_start=zero",
        "type=uuid4",
        "type=uuid7",
        "type=uuid1",
    ] {
        let c = NamedConfig::parse(s).unwrap();
        assert_eq!(c.to_string(), s);
        assert_eq!(NamedConfig::parse(&c.to_string()).unwrap(), c);
    }
}

#[test]
fn defaults_and_spacing() {
    assert_eq!(
        NamedConfig::parse("type=snowflake,layout=twitter"),
        Err(Error::NodeRequired)
    );
    let c = NamedConfig::parse("  layout = ( twitter ) ,type= snowflake, node=0 ").unwrap();
    assert_eq!(
        c.to_string(),
        "type=snowflake,layout=twitter,node=0,on_backwards=wait:1000,on_exhausted=wait,sequence_start=zero"
    );
    let cfg = c.snowflake_config().unwrap();
    assert_eq!(cfg.layout().preset_name(), Some("twitter"));
    assert_eq!(cfg.fence(), None);
    let c = NamedConfig::parse("type=snowflake,layout=leaf,node=0,on_backwards=logical,sequence_start=vibrate,on_exhausted=borrow,seed=0").unwrap();
    assert_eq!(
        c.to_string(),
        "type=snowflake,layout=leaf,node=0,on_backwards=logical:1000,on_exhausted=borrow:16,sequence_start=vibrate:1"
    );
}

#[test]
fn json_form_equals_compact_form() {
    let j = r#" { "type" : "snowflake", "layout": "time=41@1ms,worker=10,seq=12,epoch=2020-01-01",
        "node": 5, "on_backwards": "logical:500", "seed": "18446744073709551615", "fence_ms": 0 } "#;
    let c = NamedConfig::parse(j).unwrap();
    assert_eq!(
        c.to_string(),
        "type=snowflake,layout=(time=41@1ms,worker=10,seq=12,epoch=2020-01-01),node=5,on_backwards=logical:500,on_exhausted=wait,sequence_start=zero,seed=18446744073709551615,fence_ms=0"
    );
    assert_eq!(NamedConfig::parse(&c.to_string()).unwrap(), c);
    assert_eq!(
        NamedConfig::parse(r#"{"type":"uuid7"}"#).unwrap(),
        NamedConfig::Uuid7(uuid::Uuid7Method::Counter)
    );
    // Escapes are decoded.
    assert_eq!(
        NamedConfig::parse(r#"{"type":"uuid\u0037"}"#).unwrap(),
        NamedConfig::Uuid7(uuid::Uuid7Method::Counter)
    );
    assert_eq!(
        NamedConfig::parse(r#"{"type":"snowflake","layout":"twitt\u0065r","node":3}"#)
            .unwrap()
            .to_string(),
        "type=snowflake,layout=twitter,node=3,on_backwards=wait:1000,on_exhausted=wait,sequence_start=zero"
    );
}

#[test]
fn compact_errors_point_at_the_problem() {
    assert_eq!(spec_at("").0, 0);
    assert_eq!(spec_at("   ").0, 0);
    assert_eq!(spec_at("type").0, 0);
    assert_eq!(spec_at("type=uuid4,").0, 10);
    assert_eq!(spec_at("type=uuid4,,").0, 11);
    assert_eq!(spec_at("=uuid4"), (0, "missing key before '='"));
    assert_eq!(spec_at("type="), (5, "missing value after '='"));
    assert_eq!(spec_at("type=uuid4,color=red"), (11, KEYS_REASON));
    assert_eq!(spec_at("type=uuid4,type=uuid7"), (11, "key given twice"));
    assert_eq!(spec_at("type=uuid9").0, 5);
    assert_eq!(
        spec_at("type=segment"),
        (
            5,
            "type segment takes its IDs from a store: build it with idmint-coord"
        )
    );
    assert_eq!(
        spec_at("type=uuid4,node=1"),
        (11, "this key applies to type snowflake only")
    );
    assert_eq!(spec_at("node=1").0, 6); // missing type: end of input
    assert_eq!(spec_at("type=snowflake").0, 14); // missing layout
    assert_eq!(spec_at("type=snowflake,layout=(twitter").0, 22);
    assert_eq!(spec_at("type=snowflake,layout=(twitter) x").0, 32);
    assert_eq!(spec_at("type=snowflake,layout=((twitter))").0, 23);
    assert_eq!(spec_at("type=snowflake,layout=twi(tter").0, 25);
    // An unparenthesised spec gets a helpful message at the value.
    assert_eq!(
        spec_at("type=snowflake,layout=time=41@1ms,worker=10,seq=12,epoch=0").0,
        22
    );
    // Layout spec errors are re-based to the whole string.
    let s = "type=snowflake,layout=( time=41@1xs,seq=12,epoch=0)";
    assert_eq!(spec_at(s), (32, "tick unit must be ms, s, m or h"));
    assert_eq!(&s[32..35], "1xs");
    assert_eq!(spec_at("type=snowflake,layout=twitter,node=x").0, 35);
    assert_eq!(
        spec_at("type=snowflake,layout=twitter,seed=99999999999999999999"),
        (35, "number does not fit 64 bits")
    );
}

#[test]
fn semantic_errors_keep_their_variants() {
    let e = |s: &str| NamedConfig::parse(s).unwrap_err();
    assert_eq!(
        e("type=snowflake,layout=twitter,on_backwards=sideways").kind(),
        ErrorKind::InvalidConfig
    );
    assert!(matches!(
        e("type=snowflake,layout=twitter,node=1024"),
        Error::OutOfRange {
            value: 1024,
            max: 1023,
            ..
        }
    ));
    assert!(matches!(
        e("type=snowflake,layout=twitter,on_backwards=rollback_counter"),
        Error::InvalidConfig { .. }
    ));
    assert!(matches!(
        e("type=snowflake,layout=twitter,on_backwards=ring:8,on_exhausted=borrow:2"),
        Error::InvalidConfig { .. }
    ));
    assert!(matches!(
        e("type=snowflake,layout=nope"),
        Error::InvalidSpec { at: 22, .. }
    ));
    assert!(matches!(
        e("type=snowflake,layout=(time=60@1ms,worker=10,seq=12,epoch=0)"),
        Error::InvalidLayout { .. }
    ));
}

#[test]
fn json_errors_point_at_the_problem() {
    assert_eq!(spec_at("{").0, 1);
    assert_eq!(spec_at("{}").0, 2); // missing type
    assert_eq!(spec_at(r#"{"type":"uuid4"} x"#).0, 17);
    assert_eq!(spec_at(r#"{"type":"uuid4",}"#).0, 16);
    assert_eq!(spec_at(r#"{"type" "uuid4"}"#).0, 8);
    assert_eq!(spec_at(r#"{"type":"uuid4""#).0, 15);
    assert_eq!(spec_at(r#"{"type":"uuid4"#).0, 14);
    assert_eq!(spec_at(r#"{"type":null}"#).0, 8);
    assert_eq!(spec_at(r#"{"type":["uuid4"]}"#).0, 8);
    assert_eq!(spec_at(r#"{"type":true}"#), (8, "expected a string value"));
    assert_eq!(spec_at(r#"{"type":5}"#), (8, "expected a string value"));
    assert_eq!(spec_at(r#"{"type":"uuid4","type":"uuid4"}"#).0, 16);
    let base = r#"{"type":"snowflake","layout":"twitter","node":"#;
    let n = base.len();
    assert_eq!(spec_at(&[base, "-1}"].concat()).0, n);
    assert_eq!(spec_at(&[base, "01}"].concat()).0, n);
    assert_eq!(spec_at(&[base, "1.5}"].concat()).0, n + 1);
    assert_eq!(spec_at(&[base, "1e3}"].concat()).0, n + 1);
    assert_eq!(spec_at(&[base, "true}"].concat()).0, n);
    assert_eq!(spec_at(&[base, "\"0x1\"}"].concat()).0, n);
    assert_eq!(spec_at(&[base, "18446744073709551616}"].concat()).0, n);
    assert_eq!(spec_at(r#"{"type":"uu\x"}"#).0, 11);
    assert_eq!(spec_at(r#"{"type":"uu\u12"}"#).0, 11);
    assert_eq!(spec_at(r#"{"type":"\ud800"}"#).0, 9);
    assert_eq!(spec_at("{\"type\":\"uu\u{1}\"}").0, 11);
    // Layout errors inside a verbatim string are re-based; with escapes they point at it.
    let s = r#"{"type":"snowflake","layout":"time=41@1xs,seq=12,epoch=0"}"#;
    let (at, _) = spec_at(s);
    assert_eq!(&s[at..at + 3], "1xs");
    let s = r#"{"type":"snowflake","layout":"tim\u0065=41@1xs,seq=12,epoch=0"}"#;
    assert_eq!(spec_at(s).0, 29);
    // Surrogate pairs decode.
    assert_eq!(
        spec_at(r#"{"type":"\ud83d\ude00"}"#),
        (8, "unknown type (snowflake, uuid4, uuid7, uuid6, uuid1)")
    );
}

#[test]
fn snowflake_generator_matches_local() {
    let c = NamedConfig::parse(
        "type=snowflake,layout=(time=41@1ms,worker=10,seq=2,epoch=2020-01-01),node=3,on_exhausted=borrow:1",
    )
    .unwrap();
    let mut g = c.build().unwrap();
    assert_eq!(g.kind(), NamedType::Snowflake);
    let mut l = LocalSnowflake::new(*c.snowflake_config().unwrap()).unwrap();
    for now in [T0, T0, T0, T0, T0, T0, T0, T0, T0, T0 + 5] {
        let a = g.next_at(now, no_random).map(|i| i.as_u64());
        let b = l.next_id_at(now).map(Some);
        assert_eq!(a, b);
    }
    let layout = *c.snowflake_config().unwrap().layout();
    let id = GeneratedId::U64(
        layout
            .compose(&Parts {
                time: 1,
                node: 3,
                sequence: 0,
                rollback: 0,
            })
            .unwrap(),
    );
    assert_eq!(id.to_string(), ((1u64 << 12) | (3 << 2)).to_string());
}

#[test]
fn uuid_generators() {
    let mut r = counting();
    let mut g4 = NamedConfig::Uuid4.build().unwrap();
    let u = g4.next_at(T0, &mut r).unwrap();
    assert_eq!(u.to_string(), "00010203-0405-4607-8809-0a0b0c0d0e0f");

    let mut g7 = NamedConfig::parse("type=uuid7").unwrap().build().unwrap();
    let a = g7.next_at(T0, &mut r).unwrap();
    let b = g7.next_at(T0 - 5, &mut r).unwrap();
    assert!(b > a);
    assert_eq!(uuid::inspect(b.as_uuid().unwrap()).unix_ms, Some(T0));

    let mut g1 = NamedConfig::parse("type=uuid1").unwrap().build().unwrap();
    let mut calls = 0;
    let mut ids = vec![];
    for now in [T0, T0, T0 - 1, T0 + 1] {
        let id = g1
            .next_at(now, |b: &mut [u8]| {
                calls += 1;
                b.fill(0xab);
                Ok(())
            })
            .unwrap();
        ids.push(*id.as_uuid().unwrap());
    }
    assert_eq!(calls, 1);
    for u in &ids {
        assert_eq!(u.get_version_num(), 1);
        assert_eq!(u.get_node_id().unwrap(), [0xab; 6]);
    }
    let ts: std::vec::Vec<u64> = ids
        .iter()
        .map(|u| u.get_timestamp().unwrap().to_gregorian().0)
        .collect();
    assert!(ts.windows(2).all(|w| w[0] < w[1]), "{ts:?}");
    assert_eq!(uuid::inspect(&ids[2]).unix_ms, Some(T0));
    assert_eq!(uuid::inspect(&ids[3]).unix_ms, Some(T0 + 1));
}

#[test]
fn uuid1_carries_into_the_next_millisecond() {
    let mut g = Uuid1Generator::new();
    let fill = |b: &mut [u8]| {
        b.fill(0);
        Ok(())
    };
    let mut last = 0;
    for i in 0..10_001u64 {
        let u = g.next_at(T0, fill).unwrap();
        let t = u.get_timestamp().unwrap().to_gregorian().0;
        assert!(i == 0 || t > last);
        last = t;
    }
    assert_eq!(g.last_unix_ms(), Some(T0 + 1));
}

#[test]
fn random_source_errors_pass_through() {
    let fail = |_: &mut [u8]| Err(Error::RandomSource);
    for c in [
        NamedConfig::Uuid4,
        NamedConfig::Uuid7(uuid::Uuid7Method::RandomIncrement),
        NamedConfig::Uuid1,
    ] {
        let mut g = c.build().unwrap();
        assert_eq!(g.next_at(T0, fail), Err(Error::RandomSource));
        assert_eq!(g.kind(), c.kind());
        assert!(c.kind().random_bytes() > 0);
    }
    let mut g = NamedConfig::parse("type=snowflake,layout=leaf,node=1")
        .unwrap()
        .build()
        .unwrap();
    assert!(g.next_at(T0, fail).is_ok());
}

#[test]
fn types_by_name() {
    for t in NamedType::ALL {
        assert_eq!(NamedType::from_name(t.name()), Some(t));
        assert_eq!(t.to_string(), t.name());
    }
    assert_eq!(NamedType::from_name("UUID7"), None);
}

proptest! {
    #[test]
    fn never_panics(s in "\\PC{0,80}") {
        let _ = NamedConfig::parse(&s);
    }

    #[test]
    fn never_panics_on_config_alphabet(s in "[{}\\[\\]\":,=() a-z0-9@._\\\\u-]{0,80}") {
        if let Ok(c) = NamedConfig::parse(&s) {
            prop_assert_eq!(NamedConfig::parse(&c.to_string()).unwrap(), c);
        }
    }

    #[test]
    fn json_prefix_never_panics(s in "\\{[\"a-z0-9:,\\\\u{}\\[\\] .-]{0,60}") {
        let _ = NamedConfig::parse(&s);
    }
}

/// The single-type parsers agree with `parse` then `require_*` wherever the config's type is
/// theirs (same config, same error at the same byte), and give `require_*`'s answer where it is
/// not — also when the rest of the config is bad, since they stop at the type.
#[test]
fn single_type_parsers_agree_with_parse_then_require() {
    let texts = [
        "type=snowflake,layout=twitter,node=1",
        "type=snowflake,layout=(time=41@1ms,node=10,seq=12,epoch=2020-01-01),node=3",
        "type=snowflake,layout=twitter,nod=5",
        "type=snowflake,layout=twitter",
        "type=snowflake,layout=nope,node=1",
        "type=snowflake,layout=twitter,node=1,method=counter",
        "{\"type\":\"snowflake\",\"layout\":\"leaf\",\"node\":2,\"on_backwards\":\"wait\"}",
        "type=uuid7",
        "type=uuid7,method=sub_millisecond",
        "type=uuid7,method=nope",
        "type=uuid4,method=counter",
        "type=uuid1,layout=twitter",
        "type=uuid6",
        "type=segment",
        "type=nope",
        "layout=twitter",
        "type=uuid7,type=uuid4",
        "",
        "type=snowflake,layout=(time=41@1ms,node=10,seq=12,epoch=0,x=1),node=1",
    ];
    let is_kind = |t: &str, k: NamedType| {
        parse_entries(t)
            .ok()
            .and_then(|e| checked_kind(t, &e).ok())
            .is_some_and(|x| (x == NamedType::Snowflake) == (k == NamedType::Snowflake))
    };
    for t in texts {
        let full = NamedConfig::parse(t);
        let sf = NamedConfig::parse_snowflake(t);
        let uu = NamedConfig::parse_uuid(t);
        match &full {
            Ok(c) => {
                assert_eq!(sf, c.require_snowflake(), "{t}");
                assert_eq!(uu, c.require_uuid().map(|()| *c), "{t}");
            }
            Err(e) => {
                if is_kind(t, NamedType::Snowflake) {
                    assert_eq!(sf.as_ref().unwrap_err(), e, "{t}");
                    assert_eq!(uu, Err(NOT_UUID), "{t}");
                } else if is_kind(t, NamedType::Uuid4) {
                    assert_eq!(uu.as_ref().unwrap_err(), e, "{t}");
                    assert_eq!(sf, Err(NOT_SNOWFLAKE), "{t}");
                } else {
                    // The syntax, a key or the type is wrong: every parser says so alike.
                    assert_eq!(sf.as_ref().unwrap_err(), e, "{t}");
                    assert_eq!(uu.as_ref().unwrap_err(), e, "{t}");
                }
            }
        }
    }
}

#[test]
fn type_checks_of_the_single_type_front_doors() {
    let sf = NamedConfig::parse("type=snowflake,layout=twitter,node=1").unwrap();
    assert_eq!(sf.require_snowflake().unwrap().node_value(), Some(1));
    assert_eq!(
        sf.require_uuid().unwrap_err().kind(),
        crate::error::ErrorKind::InvalidConfig
    );
    let u = NamedConfig::parse("type=uuid7").unwrap();
    assert!(u.require_uuid().is_ok());
    assert_eq!(
        u.require_snowflake().unwrap_err().kind(),
        crate::error::ErrorKind::InvalidConfig
    );
    assert_eq!(NamedConfig::uuid_of_version(4).unwrap(), NamedConfig::Uuid4);
    assert_eq!(NamedConfig::uuid_of_version(6).unwrap(), NamedConfig::Uuid6);
    for v in [0, 2, 3, 5, 8, 256] {
        let e = NamedConfig::uuid_of_version(v).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid config: UUID generators are version 1, 4, 6 or 7"
        );
    }
}

#[test]
fn entries_are_what_the_core_interprets() {
    for s in [
        "type=snowflake, layout=(time=41@1ms,worker=10,seq=12,epoch=2020-01-01), node=5",
        r#"{"type":"snowflake","layout":"leaf","node":"7","seed":3}"#,
        "type=uuid7",
        "type=snowflake,layout=twitter,nod=5",
        "type=segment",
    ] {
        let entries = parse_entries(s).unwrap();
        assert_eq!(
            NamedConfig::from_entries(s, &entries),
            NamedConfig::parse(s)
        );
    }
    // Syntax errors come from the entries already.
    assert_eq!(
        parse_entries("type=uuid4,").map(|_| ()),
        NamedConfig::parse("type=uuid4,").map(|_| ())
    );
    let s = r#"{"type":"segment","store":"sqlite:/x","step":1000,"ok":true}"#;
    let e = parse_entries(s).unwrap();
    assert_eq!(
        (e[1].key(), e[1].key_at(), e[1].value_at()),
        ("store", 18, 26)
    );
    assert_eq!(e[1].text(), Ok("sqlite:/x"));
    assert_eq!(e[2].u64(), Ok(1000));
    assert_eq!(
        e[2].text(),
        Err(Error::InvalidSpec {
            at: 45,
            reason: "expected a string value"
        })
    );
    assert!(matches!(e[3].u64(), Err(Error::InvalidSpec { at: 55, .. })));
}

#[test]
fn a_node_from_elsewhere_is_left_unset() {
    let without = |s: &str| NamedConfig::snowflake_without_node(s, &parse_entries(s)?);
    let cfg = without("type=snowflake,layout=twitter,on_exhausted=borrow,fence_ms=5").unwrap();
    assert_eq!(cfg.node, None);
    assert_eq!(cfg.fence_ms, Some(5));
    let s = "type=snowflake,layout=twitter,node=1";
    assert!(matches!(without(s), Err(Error::InvalidSpec { at: 30, .. })));
    // The rest of the config is checked as with a node.
    let e = without("type=snowflake,layout=twitter,on_backwards=ring:8,on_exhausted=borrow:2");
    let n = NamedConfig::parse(
        "type=snowflake,layout=twitter,on_backwards=ring:8,on_exhausted=borrow:2,node=0",
    );
    assert_eq!(e.map(|_| ()), n.map(|_| ()));
    assert_eq!(
        without("type=snowflake").map(|_| ()),
        Err(spec_err_missing_layout())
    );
    assert!(matches!(
        without("type=uuid7"),
        Err(Error::InvalidConfig { .. })
    ));
}

fn spec_err_missing_layout() -> Error {
    match NamedConfig::parse("type=snowflake") {
        Err(e) => e,
        Ok(_) => panic!("a snowflake config needs a layout"),
    }
}

#[test]
fn uuid7_takes_a_method_by_name() {
    use uuid::Uuid7Method;
    for m in Uuid7Method::ALL {
        let text = std::format!("type=uuid7,method={}", m.name());
        let c = NamedConfig::parse(&text).unwrap();
        assert_eq!(c, NamedConfig::Uuid7(m));
        // The counter is the default and left out of the canonical form.
        let canonical = if m == Uuid7Method::Counter {
            "type=uuid7".to_string()
        } else {
            text.clone()
        };
        assert_eq!(c.to_string(), canonical);
        assert_eq!(NamedConfig::parse(&c.to_string()).unwrap(), c);
        let json = std::format!(r#"{{"type":"uuid7","method":"{}"}}"#, m.name());
        assert_eq!(NamedConfig::parse(&json).unwrap(), c);
    }
    let spec = |s: &str| match NamedConfig::parse(s) {
        Err(Error::InvalidSpec { at, reason }) => (at, reason),
        other => panic!("{s}: {other:?}"),
    };
    assert_eq!(
        spec("type=uuid7,method=fast"),
        (
            18,
            "unknown method (counter, random_increment, sub_millisecond)"
        )
    );
    assert_eq!(
        spec("type=uuid4,method=counter"),
        (11, "this key applies to type uuid7 only")
    );
    assert_eq!(
        spec("type=snowflake,layout=twitter,node=1,method=counter"),
        (37, "this key applies to type uuid7 only")
    );
    assert_eq!(
        spec("type=uuid7,method=counter,method=counter"),
        (26, "key given twice")
    );
    // The sub-millisecond method uses the fraction a clock gives; the others ignore it.
    let mut fine = NamedConfig::Uuid7(Uuid7Method::SubMillisecond)
        .build()
        .unwrap();
    let fill = |b: &mut [u8]| {
        b.fill(0);
        Ok(())
    };
    let (a, b) = (
        fine.next_at_precise(T0, 250_000, fill).unwrap(),
        fine.next_at_precise(T0, 750_000, fill).unwrap(),
    );
    let (GeneratedId::Uuid(a), GeneratedId::Uuid(b)) = (a, b) else {
        panic!("UUIDs expected")
    };
    assert!(b > a);
    assert_eq!(a.as_bytes()[6] & 0x0f, 0x04); // rand_a holds 1024 steps x 0.25 ms
    let mut plain = NamedConfig::Uuid7(Uuid7Method::Counter).build().unwrap();
    let mut seq = [0u8; 10].into_iter().chain(core::iter::repeat(7));
    let mut from = |b: &mut [u8]| {
        b.iter_mut().for_each(|x| *x = seq.next().unwrap_or(0));
        Ok(())
    };
    let x = plain.next_at_precise(T0, 999_999, &mut from).unwrap();
    let mut again = NamedConfig::Uuid7(Uuid7Method::Counter).build().unwrap();
    let y = again.next_at(T0, |b: &mut [u8]| {
        b.fill(0);
        Ok(())
    });
    assert_eq!(Ok(x), y);
}

#[test]
fn only_the_sub_millisecond_method_reads_the_fraction() {
    use crate::Clock;
    use uuid::Uuid7Method;
    struct Fine;
    impl Clock for Fine {
        fn now_ms(&self) -> u64 {
            T0
        }
        fn now_ms_nanos(&self) -> (u64, u32) {
            (T0, 500_000)
        }
    }
    let sub = NamedConfig::Uuid7(Uuid7Method::SubMillisecond);
    assert_eq!(sub.now_from(&Fine), (T0, 500_000));
    for other in [
        NamedConfig::Uuid7(Uuid7Method::Counter),
        NamedConfig::Uuid4,
        NamedConfig::Uuid1,
    ] {
        assert_eq!(other.now_from(&Fine), (T0, 0));
    }
}
