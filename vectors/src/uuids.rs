//! `uuids.json`: name-based, random, time-based and monotonic UUIDs from fixed inputs, plus
//! inspection and parsing.

use serde_json::Value;

use idmint::formats::uuid::{self, Uuid, Uuid7Generator};

use crate::{bytes, case, hex, obj, outcome, s, T0};

const COMMENT: &str = "UUIDs (RFC 9562) from fixed inputs. UUIDs are lower-case hyphenated \
strings, byte strings lower-case hex. Every case holds its inputs and `expect`: {uuid, \
inspect: {version, variant, unix_ms (string or null)} from uuid::inspect(uuid)} or an error \
object. `name_based`: uuid::v3 (MD5) or v5 (SHA-1) of `namespace` (a UUID) and `name` (its \
UTF-8 bytes). `v4`: uuid::v4(random, 16 bytes). `v7`: uuid::v7(unix_ms, random, 10 bytes). \
`v1`: uuid::v1(ticks = 100 ns intervals since 1582-10-15, clock_seq, node, 6 bytes) or, when \
`unix_ms` is present, uuid::v1_random_node(unix_ms, ticks_100ns_extra, clock_seq, node). \
`v7_generator`: one Uuid7Generator per script, fed its `steps` in order with \
next_at(unix_ms, random); expect also lists `last_unix_ms` after the step. `parse`: \
uuid::parse(text); expect {uuid} or ERR_INVALID_ENCODING with codec uuid and `at` = \
character index. `inspect`: UUIDs (`uuid`) and what uuid::inspect says (`inspect`). Every \
u64 is a decimal string.";

fn inspect_json(u: &Uuid) -> Value {
    let i = uuid::inspect(u);
    obj([
        ("version", i.version.into()),
        ("variant", i.variant.into()),
        ("unix_ms", i.unix_ms.map_or(Value::Null, s)),
    ])
}

fn uuid_json(u: &Uuid) -> Value {
    obj([
        ("uuid", u.hyphenated().to_string().into()),
        ("inspect", inspect_json(u)),
    ])
}

fn arr<const N: usize>(b: &[u8]) -> [u8; N] {
    b.try_into().expect("exact length")
}

pub(crate) fn generate() -> Value {
    let namespaces = [
        ("dns", uuid::NAMESPACE_DNS),
        ("url", uuid::NAMESPACE_URL),
        ("oid", uuid::NAMESPACE_OID),
        ("x500", uuid::NAMESPACE_X500),
    ];
    let names = [
        "",
        "python.org",
        "idmint",
        "https://example.com/a?b=c",
        "h\u{e9}llo w\u{f6}rld \u{1f600}",
    ];
    let mut name_based = Vec::new();
    for (ns_name, ns) in namespaces {
        for name in names {
            for (version, u) in [
                (3, uuid::v3(&ns, name.as_bytes())),
                (5, uuid::v5(&ns, name.as_bytes())),
            ] {
                name_based.push(case(
                    [
                        ("version", Value::from(version)),
                        ("namespace_name", ns_name.into()),
                        ("namespace", ns.hyphenated().to_string().into()),
                        ("name", name.into()),
                    ],
                    uuid_json(&u),
                ));
            }
        }
    }

    let mut v4 = Vec::new();
    let mut v4_inputs = vec![[0u8; 16], [0xff; 16]];
    v4_inputs.extend((1..=4).map(|i| arr(&bytes(i, 16))));
    for r in v4_inputs {
        v4.push(case([("random", hex(&r).into())], uuid_json(&uuid::v4(r))));
    }

    let mut v7 = Vec::new();
    let times = [
        0,
        1,
        T0,
        1_288_834_974_657,
        (1 << 48) - 1,
        1 << 48,
        u64::MAX,
    ];
    for (i, ms) in times.into_iter().enumerate() {
        for r in [[0u8; 10], [0xff; 10], arr(&bytes(100 + i as u64, 10))] {
            v7.push(case(
                [("unix_ms", s(ms)), ("random", hex(&r).into())],
                uuid_json(&uuid::v7(ms, r)),
            ));
        }
    }

    let mut v1 = Vec::new();
    let ticks_list = [
        0u64,
        1,
        0x01b2_1dd2_1381_4000, // the Unix epoch
        0x01b2_1dd2_1381_4000 + T0 * 10_000 + 1234,
        (1 << 60) - 1,
        1 << 60,
        u64::MAX,
    ];
    for (i, ticks) in ticks_list.into_iter().enumerate() {
        let node: [u8; 6] = arr(&bytes(200 + i as u64, 6));
        for clock_seq in [0u16, 0x3fff, 0xffff, 0x1234] {
            v1.push(case(
                [
                    ("ticks", s(ticks)),
                    ("clock_seq", clock_seq.into()),
                    ("node", hex(&node).into()),
                ],
                uuid_json(&uuid::v1(ticks, clock_seq, node)),
            ));
        }
    }
    for (i, (ms, extra)) in [
        (0u64, 0u16),
        (T0, 0),
        (T0, 1),
        (T0, 9_999),
        (T0, 10_000),
        (T0, u16::MAX),
        (u64::MAX, 5),
    ]
    .into_iter()
    .enumerate()
    {
        let node: [u8; 6] = if i == 0 {
            [0; 6]
        } else {
            arr(&bytes(300 + i as u64, 6))
        };
        let clock_seq = 0x2bcd;
        v1.push(case(
            [
                ("unix_ms", s(ms)),
                ("ticks_100ns_extra", extra.into()),
                ("clock_seq", clock_seq.into()),
                ("node", hex(&node).into()),
            ],
            uuid_json(&uuid::v1_random_node(ms, extra, clock_seq, node)),
        ));
    }

    let scripts: [(&str, Vec<u64>); 3] = [
        ("same_ms", vec![T0; 5]),
        (
            "clock_steps",
            vec![
                T0,
                T0 + 1,
                T0 + 1,
                T0 - 10,
                T0 - 10,
                T0 + 1,
                T0 + 2,
                T0 + 500,
            ],
        ),
        (
            "end_of_range",
            vec![(1 << 48) - 2, (1 << 48) - 1, 1 << 48, u64::MAX, 5],
        ),
    ];
    let mut v7_generator = Vec::new();
    for (k, (name, times)) in scripts.into_iter().enumerate() {
        let mut g = Uuid7Generator::new();
        let steps: Vec<Value> = times
            .into_iter()
            .enumerate()
            .map(|(i, ms)| {
                let r: [u8; 10] = if k == 0 && i == 0 {
                    [0xff; 10] // the largest seed
                } else {
                    arr(&bytes(1000 * k as u64 + i as u64, 10))
                };
                let u = g.next_at(ms, r);
                case(
                    [("unix_ms", s(ms)), ("random", hex(&r).into())],
                    crate::extend(
                        uuid_json(&u),
                        [("last_unix_ms", g.last_unix_ms().map_or(Value::Null, s))],
                    ),
                )
            })
            .collect();
        v7_generator.push(obj([("name", name.into()), ("steps", steps.into())]));
    }

    let parse_inputs = [
        "886313e1-3b8a-5372-9b90-0c9aee199e5d",
        "886313E1-3B8A-5372-9B90-0C9AEE199E5D",
        "886313e13b8a53729b900c9aee199e5d",
        "{886313e1-3b8a-5372-9b90-0c9aee199e5d}",
        "urn:uuid:886313e1-3b8a-5372-9b90-0c9aee199e5d",
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "",
        "886313e1-3b8a-5372-9b90-0c9aee199e5x",
        "886313e1-3b8a-5372-9b90-0c9aee199e5",
        "886313e1-3b8a-5372-9b90-0c9aee199e5d0",
        "886313e1+3b8a-5372-9b90-0c9aee199e5d",
        "886313e13b8a-5372-9b90-0c9aee199e5d",
        "886313e13b8a53729b900c9aee199e5",
        "{886313e1-3b8a-5372-9b90-0c9aee199e5d",
        "{886313e13b8a53729b900c9aee199e5d}",
        "urn:uuid:886313e13b8a53729b900c9aee199e5d",
        "URN:UUID:886313e1-3b8a-5372-9b90-0c9aee199e5d",
        " 886313e1-3b8a-5372-9b90-0c9aee199e5d",
        "886313é1-3b8a-5372-9b90-0c9aee199e5d",
    ];
    let parse: Vec<Value> = parse_inputs
        .iter()
        .map(|&text| {
            case(
                [("text", text.into())],
                outcome(uuid::parse(text), |u| {
                    obj([("uuid", u.hyphenated().to_string().into())])
                }),
            )
        })
        .collect();

    let inspect: Vec<Value> = [
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "018bcfe5-6800-7000-8000-000000000000",
        "1ec9414c-232a-6b00-b3c8-9f6bdeced846",
        "c232ab00-9414-11ec-b3c8-9f6bdeced846",
        "00000000-0000-1000-8000-000000000000",
        "886313e1-3b8a-5372-9b90-0c9aee199e5d",
        "886313e1-3b8a-5372-db90-0c9aee199e5d",
        "886313e1-3b8a-5372-fb90-0c9aee199e5d",
        "886313e1-3b8a-8372-9b90-0c9aee199e5d",
    ]
    .iter()
    .filter_map(|t| uuid::parse(t).ok())
    .map(|u| uuid_json(&u))
    .collect();

    obj([
        ("_comment", COMMENT.into()),
        ("name_based", name_based.into()),
        ("v4", v4.into()),
        ("v7", v7.into()),
        ("v1", v1.into()),
        ("v7_generator", v7_generator.into()),
        ("parse", parse.into()),
        ("inspect", inspect.into()),
    ])
}
