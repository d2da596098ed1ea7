//! `formats.json`: the formats next to Snowflake IDs, checked against suites idmint did not
//! write — RFC 9562's appendix examples, the TypeID spec's valid and invalid cases, the ULID
//! reference implementation's cases, segmentio/ksuid's examples — plus UUID v6/v8, Nil/Max, v1↔v6 and the three v7
//! monotonic methods from fixed inputs.
//!
//! The outside suites' expected outputs are written here as their sources publish them, and
//! generation fails if the core disagrees: the file can only ever say what the outside world
//! says.

use serde_json::Value;

use idmint::formats::ksuid::{Ksuid, KsuidGenerator};
use idmint::formats::typeid::{TypeId, TypeIdGenerator};
use idmint::formats::ulid::{Ulid, UlidGenerator};
use idmint::formats::uuid::{self, Uuid, Uuid7Generator, Uuid7Method};
use idmint::AnyId;

use idmint::codec::Codec;

use crate::{bytes, case, extend, hex, obj, outcome, s, T0};

const COMMENT: &str = "Formats beside Snowflake IDs, with suites from outside idmint. UUIDs \
are lower-case hyphenated strings, bytes lower-case hex, u64s decimal strings. \
`rfc9562`: RFC 9562 appendix A and B examples; each case has `method` and its inputs: \
v1(ticks, clock_seq, node) / v6(ticks, clock_seq, node) (ticks = 100 ns since 1582-10-15), \
v3/v5(namespace, name as UTF-8), v4(random: 16 bytes), v7(unix_ms, random: 10 bytes), \
v8_fields(custom_a, custom_b, custom_c), v8(bytes: 16 bytes; B.2's are the first 16 bytes of \
SHA-256(namespace bytes ++ name)), v1_to_v6(uuid), v6_to_v1(uuid); expect {uuid, version}. \
`special`: the Nil and Max UUIDs. `convert_errors`: v1_to_v6 / v6_to_v1 of a UUID of another \
version: ERR_INVALID_ARGUMENT. `v8_field_errors`: v8_fields with a value past its field: \
ERR_OUT_OF_RANGE. `v6_generator` and `v7_methods`: one generator per script (v7: \
Uuid7Generator.with_method(method)), fed `steps` in order: v6 next_at(unix_ms, random: 8 bytes \
drawn on the first call only), v7 next_at_precise(unix_ms, sub_ms_nanos, random: 10 bytes); \
expect {uuid}. `typeid_valid` / `typeid_invalid`: the TypeID spec's cases (parse `typeid`: \
expect {prefix, uuid} or an error ERR_INVALID_ENCODING with codec typeid); `typeid_encode`: \
TypeId(prefix, uuid) to text, or the error for a bad prefix; `typeid_generator`: \
TypeIdGenerator(prefix) fed next_at(unix_ms, random). `ulid_decode`: Ulid.parse(text) -> \
{ulid (canonical upper case), timestamp_ms, random_hex (10 bytes), uuid} or \
ERR_INVALID_ENCODING with codec ulid; `ulid_encode`: Ulid of (timestamp_ms, random: 10 bytes) \
-> {ulid}; `ulid_generator`: one UlidGenerator per script fed next_at(unix_ms, random) -> \
{ulid} or ERR_WOULD_BLOCK (the 80-bit part cannot grow within the millisecond). \
`ksuid_decode`: Ksuid.parse(text) -> {ksuid, timestamp (seconds since the KSUID epoch \
1400000000), unix_ms, payload_hex (16 bytes), bytes_hex (20 bytes)} or ERR_INVALID_ENCODING \
with codec ksuid; `ksuid_encode`: Ksuid of (timestamp, payload: 16 bytes) -> {ksuid}; \
`ksuid_generator`: one KsuidGenerator per script fed next_at(unix_ms, random: 16 bytes) -> \
{ksuid} (within the last KSUID's second: its payload plus one) or ERR_WOULD_BLOCK (the payload \
cannot grow within the second) or ERR_BEFORE_EPOCH; `any_id_kind`: which format the CLI's \
`idmint decode`, the service's `/v1/decode` and every surface's parse_any read a text as \
(AnyId.parse(text, codec: absent = guessed from the shape) -> {kind (snowflake, uuid, typeid, \
ulid, ksuid), value (the u64 as a decimal string, else the canonical text: a UUID lower-case \
hyphenated, a ULID upper-case), unix_ms (the time it carries, a decimal string, or null: a \
64-bit ID's time needs its layout), bytes_hex (null for a 64-bit ID; the 16 bytes of the UUID \
a UUID, TypeID or ULID holds; a KSUID's 20 bytes), prefix (TypeIDs only)} or the error): 27 \
characters are a KSUID, even all digits (no u64 is 27 decimal digits without leading zeros).";

/// Where the outside cases come from, and their licences.
const SOURCES: &str = "RFC 9562 (IETF Trust; examples from appendices A and B, \
https://www.rfc-editor.org/rfc/rfc9562). TypeID spec v0.3 test cases: jetify-com/typeid \
spec/valid.json and spec/invalid.json (Apache-2.0). ULID: ulid/javascript test.js \
(encodeTime, decodeTime and monotonic cases; MIT). KSUID: segmentio/ksuid README.md \
(the `ksuid -f inspect` examples) and ksuid_test.go (Nil, Max, TestIssue25, TestAppend; MIT).";

fn uuid_text(u: &Uuid) -> Value {
    u.hyphenated().to_string().into()
}

fn uuid_out(u: &Uuid) -> Value {
    obj([
        ("uuid", uuid_text(u)),
        ("version", (u.get_version_num() as u64).into()),
    ])
}

fn parse(text: &str) -> Uuid {
    uuid::parse(text).expect("a UUID in the source")
}

/// Checks the core against an outside expectation before it goes into the file.
fn agree(got: &Uuid, want: &str, what: &str) -> Value {
    assert_eq!(
        got.hyphenated().to_string(),
        want.to_ascii_lowercase(),
        "{what}: the core disagrees with its source"
    );
    uuid_out(got)
}

fn rfc9562() -> Vec<Value> {
    let node = [0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46];
    let ticks = 0x01EC_9414_C232_AB00_u64;
    let a1 = "C232AB00-9414-11EC-B3C8-9F6BDECED846";
    let a5 = "1EC9414C-232A-6B00-B3C8-9F6BDECED846";
    let v7_rand = [0x0C, 0xC3, 0x18, 0xC4, 0xDC, 0x0C, 0x0C, 0x07, 0x39, 0x8F];
    let v4_rand = 0x9191_08f7_52d1_4320_9bac_f847_db41_48a8_u128.to_be_bytes();
    let b2 = 0x5c14_6b14_3c52_4afd_938a_375d_0df1_fbf6_u128.to_be_bytes();
    let dns = uuid::NAMESPACE_DNS;
    let name = "www.example.com";
    vec![
        case(
            [
                ("appendix", "A.1".into()),
                ("method", "v1".into()),
                ("ticks", s(ticks)),
                ("clock_seq", 0x33C8.into()),
                ("node", hex(&node).into()),
            ],
            agree(&uuid::v1(ticks, 0x33C8, node), a1, "A.1"),
        ),
        case(
            [
                ("appendix", "A.2".into()),
                ("method", "v3".into()),
                ("namespace", uuid_text(&dns)),
                ("name", name.into()),
            ],
            agree(
                &uuid::v3(&dns, name.as_bytes()),
                "5df41881-3aed-3515-88a7-2f4a814cf09e",
                "A.2",
            ),
        ),
        case(
            [
                ("appendix", "A.3".into()),
                ("method", "v4".into()),
                ("random", hex(&v4_rand).into()),
            ],
            agree(
                &uuid::v4(v4_rand),
                "919108f7-52d1-4320-9bac-f847db4148a8",
                "A.3",
            ),
        ),
        case(
            [
                ("appendix", "A.4".into()),
                ("method", "v5".into()),
                ("namespace", uuid_text(&dns)),
                ("name", name.into()),
            ],
            agree(
                &uuid::v5(&dns, name.as_bytes()),
                "2ed6657d-e927-568b-95e1-2665a8aea6a2",
                "A.4",
            ),
        ),
        case(
            [
                ("appendix", "A.5".into()),
                ("method", "v6".into()),
                ("ticks", s(ticks)),
                ("clock_seq", 0x33C8.into()),
                ("node", hex(&node).into()),
            ],
            agree(&uuid::v6(ticks, 0x33C8, node), a5, "A.5"),
        ),
        case(
            [
                ("appendix", "A.1 to A.5".into()),
                ("method", "v1_to_v6".into()),
                ("uuid", a1.to_ascii_lowercase().into()),
            ],
            agree(&uuid::v1_to_v6(&parse(a1)).expect("v1"), a5, "v1_to_v6"),
        ),
        case(
            [
                ("appendix", "A.5 to A.1".into()),
                ("method", "v6_to_v1".into()),
                ("uuid", a5.to_ascii_lowercase().into()),
            ],
            agree(&uuid::v6_to_v1(&parse(a5)).expect("v6"), a1, "v6_to_v1"),
        ),
        case(
            [
                ("appendix", "A.6".into()),
                ("method", "v7".into()),
                ("unix_ms", s(0x017F_22E2_79B0)),
                ("random", hex(&v7_rand).into()),
            ],
            agree(
                &uuid::v7(0x017F_22E2_79B0, v7_rand),
                "017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
                "A.6",
            ),
        ),
        case(
            [
                ("appendix", "B.1".into()),
                ("method", "v8_fields".into()),
                ("custom_a", s(0x2489_E9AD_2EE2)),
                ("custom_b", s(0xE00)),
                ("custom_c", s(0x0EC9_32D5_F691_81C0)),
            ],
            agree(
                &uuid::v8_from_fields(0x2489_E9AD_2EE2, 0xE00, 0x0EC9_32D5_F691_81C0)
                    .expect("fits"),
                "2489E9AD-2EE2-8E00-8EC9-32D5F69181C0",
                "B.1",
            ),
        ),
        case(
            [
                ("appendix", "B.2".into()),
                ("method", "v8".into()),
                ("bytes", hex(&b2).into()),
                ("sha256_namespace", uuid_text(&dns)),
                ("sha256_name", name.into()),
            ],
            agree(&uuid::v8(b2), "5c146b14-3c52-8afd-938a-375d0df1fbf6", "B.2"),
        ),
        case(
            [
                ("appendix", "B.2".into()),
                ("method", "v8_sha256".into()),
                ("namespace", uuid_text(&dns)),
                ("name", name.into()),
            ],
            agree(
                &uuid::v8_sha256(&dns, name.as_bytes()),
                "5c146b14-3c52-8afd-938a-375d0df1fbf6",
                "B.2",
            ),
        ),
    ]
}

fn v7_methods() -> Vec<Value> {
    let mut scripts = Vec::new();
    for method in Uuid7Method::ALL {
        let mut g = Uuid7Generator::with_method(method);
        let mut steps = Vec::new();
        let plan: [(u64, u32); 8] = [
            (T0, 0),
            (T0, 250_000),
            (T0, 250_000),
            (T0 - 5, 999_999),
            (T0 + 1, 999_999),
            (T0 + 1, 999_999),
            (T0 + 1, 0),
            (T0 + 9, 1),
        ];
        for (i, (ms, ns)) in plan.into_iter().enumerate() {
            let r: [u8; 10] = bytes(700 + i as u64, 10).try_into().expect("10");
            let u = g.next_at_precise(ms, ns, r);
            steps.push(case(
                [
                    ("unix_ms", s(ms)),
                    ("sub_ms_nanos", u64::from(ns).into()),
                    ("random", hex(&r).into()),
                ],
                obj([("uuid", uuid_text(&u))]),
            ));
        }
        scripts.push(obj([
            ("method", method.name().into()),
            ("steps", steps.into()),
        ]));
    }
    scripts
}

fn v6_generator() -> Vec<Value> {
    let mut g = uuid::Uuid6Generator::new();
    let first = bytes(900, 8);
    let mut steps = Vec::new();
    for ms in [T0, T0, T0 + 1, T0 - 100, T0 + 2] {
        let u = g
            .next_at(ms, |b: &mut [u8]| {
                b.copy_from_slice(&first);
                Ok(())
            })
            .expect("random given");
        steps.push(case([("unix_ms", s(ms))], obj([("uuid", uuid_text(&u))])));
    }
    vec![obj([
        ("random", hex(&first).into()),
        ("steps", steps.into()),
    ])]
}

/// The TypeID spec's valid cases: (name, typeid, prefix, uuid).
const TYPEID_VALID: [(&str, &str, &str, &str); 9] = [
    (
        "nil",
        "00000000000000000000000000",
        "",
        "00000000-0000-0000-0000-000000000000",
    ),
    (
        "one",
        "00000000000000000000000001",
        "",
        "00000000-0000-0000-0000-000000000001",
    ),
    (
        "ten",
        "0000000000000000000000000a",
        "",
        "00000000-0000-0000-0000-00000000000a",
    ),
    (
        "sixteen",
        "0000000000000000000000000g",
        "",
        "00000000-0000-0000-0000-000000000010",
    ),
    (
        "thirty-two",
        "00000000000000000000000010",
        "",
        "00000000-0000-0000-0000-000000000020",
    ),
    (
        "max-valid",
        "7zzzzzzzzzzzzzzzzzzzzzzzzz",
        "",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ),
    (
        "valid-alphabet",
        "prefix_0123456789abcdefghjkmnpqrs",
        "prefix",
        "0110c853-1d09-52d8-d73e-1194e95b5f19",
    ),
    (
        "valid-uuidv7",
        "prefix_01h455vb4pex5vsknk084sn02q",
        "prefix",
        "01890a5d-ac96-774b-bcce-b302099a8057",
    ),
    (
        "prefix-underscore",
        "pre_fix_00000000000000000000000000",
        "pre_fix",
        "00000000-0000-0000-0000-000000000000",
    ),
];

/// The TypeID spec's invalid cases: (name, typeid).
const TYPEID_INVALID: [(&str, &str); 21] = [
    ("prefix-uppercase", "PREFIX_00000000000000000000000000"),
    ("prefix-numeric", "12345_00000000000000000000000000"),
    ("prefix-period", "pre.fix_00000000000000000000000000"),
    ("prefix-non-ascii", "pr\u{e9}fix_00000000000000000000000000"),
    ("prefix-spaces", "  prefix_00000000000000000000000000"),
    (
        "prefix-64-chars",
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000",
    ),
    ("separator-empty-prefix", "_00000000000000000000000000"),
    ("separator-empty", "_"),
    ("suffix-short", "prefix_1234567890123456789012345"),
    ("suffix-long", "prefix_123456789012345678901234567"),
    ("suffix-spaces", "prefix_1234567890123456789012345 "),
    ("suffix-uppercase", "prefix_0123456789ABCDEFGHJKMNPQRS"),
    ("suffix-hyphens", "prefix_123456789-123456789-123456"),
    ("suffix-wrong-alphabet", "prefix_ooooooiiiiiiuuuuuuulllllll"),
    ("suffix-ambiguous-crockford", "prefix_i23456789ol23456789oi23456"),
    ("suffix-hyphens-crockford", "prefix_123456789-0123456789-0123456"),
    ("suffix-overflow", "prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz"),
    ("prefix-underscore-start", "_prefix_00000000000000000000000000"),
    ("prefix-underscore-end", "prefix__00000000000000000000000000"),
    ("empty", ""),
    ("prefix-empty", "prefix_"),
];

fn typeids() -> (Vec<Value>, Vec<Value>, Vec<Value>, Vec<Value>) {
    let valid = TYPEID_VALID
        .iter()
        .map(|(name, text, prefix, uuid)| {
            let t = TypeId::parse(text).unwrap_or_else(|e| panic!("spec case {name}: {e}"));
            assert_eq!(
                (t.prefix(), t.uuid().hyphenated().to_string().as_str()),
                (*prefix, *uuid),
                "{name}"
            );
            assert_eq!(t.to_string(), *text, "{name} round trip");
            case(
                [("name", (*name).into()), ("typeid", (*text).into())],
                obj([("prefix", (*prefix).into()), ("uuid", (*uuid).into())]),
            )
        })
        .collect();
    let invalid = TYPEID_INVALID
        .iter()
        .map(|(name, text)| {
            let r = TypeId::parse(text);
            assert!(r.is_err(), "spec case {name} must fail");
            case(
                [("name", (*name).into()), ("typeid", (*text).into())],
                outcome(r, |_| Value::Null),
            )
        })
        .collect();
    let mut encode = Vec::new();
    for (prefix, u) in [
        ("user", parse("01890a5d-ac96-774b-bcce-b302099a8057")),
        ("", uuid::MAX),
        ("a_b", uuid::NIL),
        ("User", uuid::NIL),
        ("a_", uuid::NIL),
    ] {
        encode.push(case(
            [("prefix", prefix.into()), ("uuid", uuid_text(&u))],
            outcome(TypeId::new(prefix, u), |t| {
                obj([("typeid", t.to_string().into())])
            }),
        ));
    }
    let mut g = TypeIdGenerator::new("order").expect("prefix");
    let mut steps = Vec::new();
    for (i, ms) in [T0, T0, T0 - 3, T0 + 1].into_iter().enumerate() {
        let r: [u8; 10] = bytes(800 + i as u64, 10).try_into().expect("10");
        steps.push(case(
            [("unix_ms", s(ms)), ("random", hex(&r).into())],
            obj([("typeid", g.next_at(ms, r).to_string().into())]),
        ));
    }
    let gens = vec![obj([("prefix", "order".into()), ("steps", steps.into())])];
    (valid, invalid, encode, gens)
}

fn ulid_json(u: &Ulid) -> Value {
    obj([
        ("ulid", u.to_string().into()),
        ("timestamp_ms", s(u.timestamp_ms())),
        ("random_hex", hex(&u.random().to_be_bytes()[6..]).into()),
        ("uuid", uuid_text(&u.to_uuid())),
    ])
}

/// The reference implementation's stubbed random source (0.96 → `Y` in every position).
const Y16: u128 = 0xF7BD_EF7B_DEF7_BDEF_7BDE;

fn ulids() -> (Vec<Value>, Vec<Value>, Vec<Value>) {
    let mut decode = Vec::new();
    for text in [
        "01ARYZ6S41YYYYYYYYYYYYYYYY",
        "01aryz6s41yyyyyyyyyyyyyyyy",
        "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
        "00000000000000000000000000",
        "FFFF",
        "80000000000000000000000000",
        "&1ARZ3NDEKTSV4RRFFQ69G5FAV",
        "01ARYZ6S41YYYYYYYYYYYYYYYU",
        "01ARYZ6S41-YYYYYYYYYYYYYYY",
    ] {
        decode.push(case(
            [("text", text.into())],
            outcome(Ulid::parse(text), |u| ulid_json(&u)),
        ));
    }
    let max = Ulid::parse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ").expect("max");
    assert_eq!(
        max.timestamp_ms(),
        281_474_976_710_655,
        "decodeTime of the maximum"
    );
    assert_eq!(
        &Ulid::from_parts(1_469_918_176_385, 0)
            .expect("fits")
            .to_string()[..10],
        "01ARYZ6S41",
        "encodeTime"
    );
    assert_eq!(
        &Ulid::from_parts(1_470_264_322_240, 0)
            .expect("fits")
            .to_string()[..10],
        "01AS99AA60",
        "encodeTime"
    );
    let y: [u8; 10] = Y16.to_be_bytes()[6..].try_into().expect("10");
    let mut encode = Vec::new();
    for (ms, r) in [(1_469_918_176_385u64, y), (0, [0; 10]), (T0, [0xff; 10])] {
        encode.push(case(
            [("timestamp_ms", s(ms)), ("random", hex(&r).into())],
            obj([("ulid", Ulid::from_bytes_at(ms, r).to_string().into())]),
        ));
    }
    // The reference implementation's monotonic script, then an overflow.
    let script = |steps: &[(u64, [u8; 10], Option<&str>)]| {
        let mut g = UlidGenerator::new();
        let out: Vec<Value> = steps
            .iter()
            .map(|(ms, r, want)| {
                let got = g.next_at(*ms, *r);
                if let Some(w) = want {
                    assert_eq!(
                        got.map(|u| u.to_string()).ok().as_deref(),
                        Some(*w),
                        "ulid/javascript monotonic"
                    );
                }
                case(
                    [("unix_ms", s(*ms)), ("random", hex(r).into())],
                    outcome(got, |u| obj([("ulid", u.to_string().into())])),
                )
            })
            .collect();
        obj([("steps", out.into())])
    };
    let gens = vec![
        script(&[
            (1_469_918_176_385, y, Some("01ARYZ6S41YYYYYYYYYYYYYYYY")),
            (1_469_918_176_385, y, Some("01ARYZ6S41YYYYYYYYYYYYYYYZ")),
            (100_000_000, y, Some("01ARYZ6S41YYYYYYYYYYYYYYZ0")),
            (10_000, y, Some("01ARYZ6S41YYYYYYYYYYYYYYZ1")),
            (1_469_918_176_386, y, Some("01ARYZ6S42YYYYYYYYYYYYYYYY")),
        ]),
        script(&[
            (T0, [0xff; 10], None),
            (T0, [0; 10], None),
            (T0 + 1, [0; 10], None),
        ]),
    ];
    (decode, encode, gens)
}

fn ksuid_json(k: &Ksuid) -> Value {
    obj([
        ("ksuid", k.to_string().into()),
        ("timestamp", s(u64::from(k.timestamp()))),
        ("unix_ms", s(k.unix_ms())),
        ("payload_hex", hex(&k.payload()).into()),
        ("bytes_hex", hex(&k.to_bytes()).into()),
    ])
}

/// segmentio/ksuid's README examples: text, raw bytes, timestamp.
const KSUID_README: [(&str, &str, u32); 2] = [
    (
        "0ujtsYcgvSTl8PAuAdqWYSMnLOv",
        "0669F7EFB5A1CD34B5F99D1154FB6853345C9735",
        107_608_047,
    ),
    (
        "0ujzPyRiIAffKhBux4PvQdDqMHY",
        "066A029C73FC1AA3B2446246D6E89FCD909E8FE8",
        107_610_780,
    ),
];

type Cases = Vec<Value>;

fn ksuids() -> (Cases, Cases, Cases) {
    for (text, raw, ts) in KSUID_README {
        let k = Ksuid::parse(text).expect("segmentio/ksuid README");
        assert_eq!(hex(&k.to_bytes()), raw.to_ascii_lowercase(), "{text}: raw");
        assert_eq!(k.timestamp(), ts, "{text}: timestamp");
    }
    assert_eq!(
        Ksuid::parse("0ujtsYcgvSTl8PAuAdqWYSMnLOv").map(|k| k.unix_ms()),
        Ok(1_507_608_047_000),
        "2017-10-09 21:00:47 -0700 PDT"
    );
    assert_eq!(Ksuid::MAX.to_string(), "aWgEPTl1tmebfsQzFP4bxwgy80V", "Max");
    assert_eq!(Ksuid::NIL.to_string(), "0".repeat(27), "Nil");
    let mut decode = Vec::new();
    for text in [
        KSUID_README[0].0,
        KSUID_README[1].0,
        "0pN1Own7255s7jwpwy495bAZeEa",
        "000000000000000000000000000",
        "aWgEPTl1tmebfsQzFP4bxwgy80V",
        "aWgEPTl1tmebfsQzFP4bxwgy80W",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "aWgEPTl1tmebfsQzFP4bxwgy80!",
        "123",
        "0ujtsYcgvSTl8PAuAdqWYSMnLOv0",
        "0ujtsYcgvSTl8PAuAdq-YSMnLOv",
    ] {
        let got = Ksuid::parse(text);
        if text.starts_with("aWgEPTl1tmebfsQzFP4bxwgy80") && text != "aWgEPTl1tmebfsQzFP4bxwgy80V"
            || text.starts_with("aaa")
            || text == "123"
        {
            assert!(got.is_err(), "{text}: ksuid_test.go refuses it");
        }
        decode.push(case(
            [("text", text.into())],
            outcome(got, |k| ksuid_json(&k)),
        ));
    }
    let mut encode = Vec::new();
    for (ts, payload) in [
        (
            107_608_047u32,
            0xB5A1_CD34_B5F9_9D11_54FB_6853_345C_9735_u128,
        ),
        (0, 0),
        (u32::MAX, u128::MAX),
        (1, 61),
    ] {
        let k = Ksuid::from_parts(ts, payload.to_be_bytes());
        encode.push(case(
            [
                ("timestamp", s(u64::from(ts))),
                ("payload", hex(&payload.to_be_bytes()).into()),
            ],
            obj([("ksuid", k.to_string().into())]),
        ));
    }
    let script = |steps: &[(u64, [u8; 16])]| {
        let mut g = KsuidGenerator::new();
        let out: Vec<Value> = steps
            .iter()
            .map(|(ms, r)| {
                case(
                    [("unix_ms", s(*ms)), ("random", hex(r).into())],
                    outcome(g.next_at(*ms, *r), |k| {
                        obj([("ksuid", k.to_string().into())])
                    }),
                )
            })
            .collect();
        obj([("steps", out.into())])
    };
    let r = |seed: u64| -> [u8; 16] { bytes(seed, 16).try_into().expect("16") };
    let gens = vec![
        // New second, the same second twice, a clock step back, the next second.
        script(&[
            (T0, r(900)),
            (T0 + 999, r(901)),
            (T0 - 5_000, r(902)),
            (T0 + 1_000, r(903)),
        ]),
        // The payload at its top: wait for the next second, which draws afresh.
        script(&[(T0, [0xff; 16]), (T0 + 500, [0; 16]), (T0 + 1_000, [0; 16])]),
        // Before the KSUID epoch, then its first and last millisecond of second 0.
        script(&[
            (1_399_999_999_999, [1; 16]),
            (1_400_000_000_000, [1; 16]),
            (1_400_000_000_999, [1; 16]),
        ]),
    ];
    (decode, encode, gens)
}

/// `any_id_kind`: a case per shape decision of `AnyId::parse`, and per codec given.
fn any_ids() -> Vec<Value> {
    let id = 0x1d83_a824_2880_0000;
    let base32 = Codec::Base32.format(id);
    let base62 = Codec::Base62.format(id);
    let guessed = [
        // UUIDs: hyphenated (either case), braced, urn; versions with and without a time.
        "01890a5d-ac96-774b-bcce-b302099a8057",
        "919108F7-52D1-4320-9BAC-F847DB4148A8",
        "{01890a5d-ac96-774b-bcce-b302099a8057}",
        "urn:uuid:C232AB00-9414-11EC-B3C8-9F6BDECED846",
        // TypeIDs: a prefix (any UUID inside), or none and a lower-case version 7 UUID.
        "user_01h455vb4pex5vsknk084sn02q",
        "prefix_00000000000000000000000000",
        "01h455vb4pex5vsknk084sn02q",
        // ULIDs: the same 26 characters upper-case, or lower-case without a version 7 inside.
        "01H455VB4PEX5VSKNK084SN02Q",
        "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        "01arz3ndektsv4rrffq69g5fav",
        // KSUIDs: 27 characters, all digits or `0x…` too.
        "0ujtsYcgvSTl8PAuAdqWYSMnLOv",
        "000000000000000000000000042",
        "0x000000000000000000000002a",
        // 64-bit IDs: decimal (leading zeros too), 0x hex, 13 base32, 11 base62.
        "42",
        "00000000000000000042",
        "18446744073709551615",
        "0x1d83a82428800000",
        base32.as_str(),
        base62.as_str(),
        // 13 and 11 digits: decimal, not base32 or base62.
        "0000000000042",
        "00000000042",
        // Errors: ambiguous, bad characters, a bad TypeID prefix, too large, no shape, empty.
        "0x123456789",
        "01890a5d-ac96-774b-bcce-b302099a805g",
        "01ARZ3NDEKTSV4RRFFQ69G5FAU",
        "User_01h455vb4pex5vsknk084sn02q",
        "aWgEPTl1tmebfsQzFP4bxwgy80W",
        "18446744073709551616",
        "ééééé",
        "",
    ];
    let given = [
        ("2a", Codec::Hex),
        ("0x2A", Codec::Hex),
        ("0000000000042", Codec::Base32),
        ("00000000042", Codec::Base62),
        ("00000000000000000042", Codec::Decimal),
        ("01ARZ3NDEKTSV4RRFFQ69G5FAV", Codec::Hex),
        ("01890a5d-ac96-774b-bcce-b302099a8057", Codec::Decimal),
    ];
    let any = |a: AnyId| {
        let value = match a {
            AnyId::Snowflake(id) => s(id),
            AnyId::Uuid(u) => uuid_text(&u),
            AnyId::TypeId(t) => t.to_string().into(),
            AnyId::Ulid(u) => u.to_string().into(),
            AnyId::Ksuid(k) => k.to_string().into(),
        };
        let bytes_hex = match a {
            AnyId::Snowflake(_) => Value::Null,
            AnyId::Ksuid(k) => hex(&k.to_bytes()).into(),
            other => other
                .uuid()
                .map_or(Value::Null, |u| hex(u.as_bytes()).into()),
        };
        let out = obj([
            ("kind", a.kind().into()),
            ("value", value),
            ("unix_ms", a.unix_ms().map_or(Value::Null, s)),
            ("bytes_hex", bytes_hex),
        ]);
        match a {
            AnyId::TypeId(t) => extend(out, [("prefix", t.prefix().into())]),
            _ => out,
        }
    };
    let mut cases: Vec<Value> = guessed
        .iter()
        .map(|text| {
            case(
                [("text", (*text).into())],
                outcome(AnyId::parse(text, None), any),
            )
        })
        .collect();
    cases.extend(given.iter().map(|(text, c)| {
        case(
            [("text", (*text).into()), ("codec", c.name().into())],
            outcome(AnyId::parse(text, Some(*c)), any),
        )
    }));
    cases
}

pub(crate) fn generate() -> Value {
    let (typeid_valid, typeid_invalid, typeid_encode, typeid_generator) = typeids();
    let (ulid_decode, ulid_encode, ulid_generator) = ulids();
    let (ksuid_decode, ksuid_encode, ksuid_generator) = ksuids();
    let any_id_kind = any_ids();
    let v1 = parse("C232AB00-9414-11EC-B3C8-9F6BDECED846");
    let v4 = parse("919108f7-52d1-4320-9bac-f847db4148a8");
    obj([
        ("_comment", COMMENT.into()),
        ("_sources", SOURCES.into()),
        ("rfc9562", rfc9562().into()),
        (
            "special",
            obj([
                ("nil", uuid_text(&uuid::NIL)),
                ("max", uuid_text(&uuid::MAX)),
            ]),
        ),
        (
            "convert_errors",
            vec![
                case(
                    [("method", "v1_to_v6".into()), ("uuid", uuid_text(&v4))],
                    outcome(uuid::v1_to_v6(&v4), |u| uuid_out(&u)),
                ),
                case(
                    [("method", "v6_to_v1".into()), ("uuid", uuid_text(&v1))],
                    outcome(uuid::v6_to_v1(&v1), |u| uuid_out(&u)),
                ),
            ]
            .into(),
        ),
        (
            "v8_field_errors",
            [(1u64 << 48, 0u64, 0u64), (0, 0x1000, 0), (0, 0, 1 << 62)]
                .iter()
                .map(|&(a, b, c)| {
                    case(
                        [("custom_a", s(a)), ("custom_b", s(b)), ("custom_c", s(c))],
                        outcome(uuid::v8_from_fields(a, b, c), |u| uuid_out(&u)),
                    )
                })
                .collect::<Vec<_>>()
                .into(),
        ),
        ("v6_generator", v6_generator().into()),
        ("v7_methods", v7_methods().into()),
        ("typeid_valid", typeid_valid.into()),
        ("typeid_invalid", typeid_invalid.into()),
        ("typeid_encode", typeid_encode.into()),
        ("typeid_generator", typeid_generator.into()),
        ("ulid_decode", ulid_decode.into()),
        ("ulid_encode", ulid_encode.into()),
        ("ulid_generator", ulid_generator.into()),
        ("ksuid_decode", ksuid_decode.into()),
        ("ksuid_encode", ksuid_encode.into()),
        ("ksuid_generator", ksuid_generator.into()),
        ("any_id_kind", any_id_kind.into()),
    ])
}
