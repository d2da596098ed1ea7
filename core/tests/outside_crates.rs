//! idmint's UUIDs, ULIDs and TypeIDs against implementations we did not write, in the same
//! process: the `uuid` crate's own builders and timestamp reader (its code for versions 1, 6, 7
//! and 8, not ours), the `ulid` crate (the reference implementation's Rust port) and
//! `type-safe-id` (the TypeID implementation the spec lists for Rust). What they make, idmint
//! reads to the same bits, time and prefix; what idmint makes, they read the same way.

use std::str::FromStr;

use idmint::formats::typeid::TypeId;
use idmint::formats::ulid::Ulid;
use idmint::formats::uuid::{self as uuids, Uuid};
use idmint::named::clocked;
use proptest::prelude::*;
use type_safe_id::{DynamicType, StaticType, TypeSafeId};
use uuid::Builder;

/// A random node with its multicast bit on, as idmint's v1/v6 always make it.
fn node(n: [u8; 6]) -> [u8; 6] {
    let mut n = n;
    n[0] |= 0x01;
    n
}

/// Milliseconds since the Unix epoch by the `uuid` crate's reading of a UUID's timestamp.
fn their_unix_ms(u: &Uuid) -> u64 {
    let (s, ns) = u.get_timestamp().expect("a time-based UUID").to_unix();
    s * 1000 + u64::from(ns) / 1_000_000
}

const GREGORIAN_TO_UNIX_TICKS: u64 = 0x01B2_1DD2_1381_4000;

proptest! {
    #[test]
    fn v1_is_the_uuid_crates_v1(ticks in 0u64..1 << 60, seq in 0u16..1 << 14, n: [u8; 6]) {
        let ours = uuids::v1(ticks, seq, n);
        let theirs = Builder::from_gregorian_timestamp(ticks, seq, &node(n)).into_uuid();
        prop_assert_eq!(ours, theirs);
        prop_assert_eq!(ours.get_version_num(), 1);
        prop_assert_eq!(theirs.get_timestamp().map(|t| t.to_gregorian()), Some((ticks, seq)));
    }

    #[test]
    fn v6_is_the_uuid_crates_v6(ticks in 0u64..1 << 60, seq in 0u16..1 << 14, n: [u8; 6]) {
        let ours = uuids::v6(ticks, seq, n);
        let theirs = Builder::from_sorted_gregorian_timestamp(ticks, seq, &node(n)).into_uuid();
        prop_assert_eq!(ours, theirs);
        prop_assert_eq!(ours.get_version_num(), 6);
        prop_assert_eq!(theirs.get_timestamp().map(|t| t.to_gregorian()), Some((ticks, seq)));
        // idmint's v1 -> v6 is the uuid crate's v6 of the same fields, and back.
        let v1 = Builder::from_gregorian_timestamp(ticks, seq, &node(n)).into_uuid();
        prop_assert_eq!(uuids::v1_to_v6(&v1).ok(), Some(theirs));
        prop_assert_eq!(uuids::v6_to_v1(&theirs).ok(), Some(v1));
    }

    #[test]
    fn v1_and_v6_times_read_alike(ticks in GREGORIAN_TO_UNIX_TICKS..1 << 60, seq: u16, n: [u8; 6]) {
        for u in [uuids::v1(ticks, seq, n), uuids::v6(ticks, seq, n)] {
            prop_assert_eq!(uuids::inspect(&u).unix_ms, Some(their_unix_ms(&u)));
        }
    }

    #[test]
    fn v7_is_the_uuid_crates_v7(ms in 0u64..1 << 48, random: [u8; 10]) {
        let ours = uuids::v7(ms, random);
        let theirs = Builder::from_unix_timestamp_millis(ms, &random).into_uuid();
        prop_assert_eq!(ours, theirs);
        prop_assert_eq!(their_unix_ms(&ours), ms);
        prop_assert_eq!(uuids::inspect(&theirs).unix_ms, Some(ms));
    }

    #[test]
    fn v8_is_the_uuid_crates_v8(bytes: [u8; 16]) {
        let ours = uuids::v8(bytes);
        prop_assert_eq!(ours, Builder::from_custom_bytes(bytes).into_uuid());
        prop_assert_eq!(uuids::inspect(&ours).version, 8);
    }

    #[test]
    fn text_reads_alike(bytes: [u8; 16]) {
        let u = Uuid::from_bytes(bytes);
        for text in [
            u.hyphenated().to_string(),
            u.simple().to_string(),
            u.braced().to_string(),
            u.urn().to_string(),
            u.hyphenated().to_string().to_uppercase(),
        ] {
            prop_assert_eq!(uuids::parse(&text).ok(), Some(u), "{}", text);
        }
        let mut buf = [0u8; uuids::HYPHENATED_LEN];
        uuids::encode_hyphenated_into(&u, &mut buf).unwrap();
        let theirs = u.hyphenated().to_string();
        prop_assert_eq!(std::str::from_utf8(&buf).ok(), Some(theirs.as_str()));
    }

    #[test]
    fn ulid_texts_read_alike(ms in 0u64..1 << 48, random in 0u128..1 << 80) {
        let ours = Ulid::from_parts(ms, random).unwrap();
        let theirs = ulid::Ulid::from_parts(ms, random);
        prop_assert_eq!(ours.to_string(), theirs.to_string());
        prop_assert_eq!(ulid::Ulid::from_string(&ours.to_string()).map(|u| u.0), Ok(ours.0));
        prop_assert_eq!(Ulid::parse(&theirs.to_string()).map(|u| u.0), Ok(theirs.0));
        prop_assert_eq!(Ulid::parse(&theirs.to_string().to_lowercase()).map(|u| u.0), Ok(theirs.0));
        prop_assert_eq!(ours.timestamp_ms(), theirs.timestamp_ms());
        prop_assert_eq!(ours.random(), theirs.random());
    }

    #[test]
    fn typeid_texts_read_alike(prefix in "([a-z]([a-z_]{0,61}[a-z])?)?", bytes: [u8; 16]) {
        // A TypeID's suffix encodes any UUID, not only a v7.
        let u = Uuid::from_bytes(bytes);
        let ours = TypeId::new(&prefix, u).unwrap();
        let theirs = TypeSafeId::from_type_and_uuid(DynamicType::new(&prefix).unwrap(), u);
        prop_assert_eq!(ours.to_string(), theirs.to_string());
        let back = TypeSafeId::<DynamicType>::from_str(&ours.to_string()).unwrap();
        prop_assert_eq!((back.type_prefix(), back.uuid()), (prefix.as_str(), u));
        let read = TypeId::parse(&theirs.to_string()).unwrap();
        prop_assert_eq!((read.prefix(), read.uuid()), (prefix.as_str(), u));
    }
}

#[derive(Default)]
struct User;

impl StaticType for User {
    const TYPE: &'static str = "user";
}

#[test]
fn what_the_clocked_front_doors_make_the_crates_read() {
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let mut last = (Uuid::nil(), Uuid::nil(), 0u128);
    for _ in 0..10_000 {
        let (v7, v6, v1) = (
            clocked::uuid7().unwrap(),
            clocked::uuid6().unwrap(),
            clocked::uuid1().unwrap(),
        );
        assert_eq!(
            (
                v7.get_version_num(),
                v6.get_version_num(),
                v1.get_version_num()
            ),
            (7, 6, 1)
        );
        assert_eq!(v7.get_variant(), uuid::Variant::RFC4122);
        for u in [v7, v6, v1] {
            // The coarse clock lags the wall clock by up to a kernel tick, never leads it.
            let ms = their_unix_ms(&u);
            assert!(ms + 100 >= before && ms <= now_ms(), "{u}: {ms}");
        }
        assert!(v7 > last.0 && v6 > last.1, "{v7} {v6} after {:?}", last);
        let ulid = clocked::ulid().unwrap();
        let theirs = ulid::Ulid::from_string(&ulid.to_string()).unwrap();
        assert!(theirs.0 > last.2);
        assert!(theirs.timestamp_ms() + 100 >= before && theirs.timestamp_ms() <= now_ms());
        let t = clocked::typeid("user").unwrap();
        let read = TypeSafeId::<User>::from_str(&t.to_string()).unwrap();
        assert_eq!(read.uuid(), t.uuid());
        last = (v7, v6, theirs.0);
    }
}

#[test]
fn what_the_crates_make_idmint_reads() {
    let mut gen = ulid::Generator::new();
    let mut last = 0u128;
    for _ in 0..10_000 {
        let u = Uuid::now_v7();
        assert_eq!(uuids::inspect(&u).unix_ms, Some(their_unix_ms(&u)));
        assert_eq!(uuids::inspect(&u).version, 7);
        let u6 = Uuid::now_v6(&[1, 2, 3, 4, 5, 6]);
        assert_eq!(uuids::inspect(&u6).unix_ms, Some(their_unix_ms(&u6)));
        let v1 = uuids::v6_to_v1(&u6).unwrap();
        assert_eq!(
            v1,
            Uuid::new_v1(u6.get_timestamp().unwrap(), &[1, 2, 3, 4, 5, 6])
        );
        let next = gen.generate().unwrap();
        let read = Ulid::parse(&next.to_string()).unwrap();
        assert!(read.0 == next.0 && read.0 > last);
        assert_eq!(read.timestamp_ms(), next.timestamp_ms());
        last = read.0;
        let t = TypeSafeId::<User>::new();
        let ours = TypeId::parse(&t.to_string()).unwrap();
        assert_eq!((ours.prefix(), ours.uuid()), ("user", t.uuid()));
    }
    // Past the largest ULID (the first character would carry bits 128 and 129), which the spec
    // says every implementation must refuse: idmint does; ulid 3.0.0 drops the extra bits and
    // reads this one as the nil ULID.
    assert!(Ulid::parse("80000000000000000000000000").is_err());
    let max = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ";
    assert_eq!(
        Ulid::parse(max).unwrap().0,
        ulid::Ulid::from_string(max).unwrap().0
    );
    // A TypeID the spec refuses, both refuse.
    for bad in [
        "User_01h455vb4pex5vsknk084sn02q",
        "user_81h455vb4pex5vsknk084sn02q",
        "_user_01h455vb4pex5vsknk084sn02q",
        "user__01h455vb4pex5vsknk084sn02q",
        "user_01h455vb4pex5vsknk084sn02",
    ] {
        assert!(TypeId::parse(bad).is_err(), "{bad}");
        assert!(TypeSafeId::<DynamicType>::from_str(bad).is_err(), "{bad}");
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}
