//! `named.json`: generator-by-name configs, their canonical form, IDs they generate at fixed
//! times from a fixed random stream, and invalid configs.

use serde_json::Value;

use idmint::named::{GeneratedId, NamedConfig};

use crate::{bytes, case, error, extend, hex, obj, outcome, s, T0};

const COMMENT: &str = "Named generators (idmint::named). `configs`: NamedConfig::parse(config) \
must succeed, with `canonical` its Display (the canonical compact form, which parses back to \
an equal config) and `type` its type name. Then build a fresh generator and call \
next_at(now_ms, random) for each step in order, where `random` fills each buffer it is given \
with the next bytes of `random_hex` (a stream shared by all the steps of the config, consumed \
front to back; `random_used` bytes in total by the end). Each step expects {id}: a decimal \
string for snowflake, a lower-case hyphenated UUID otherwise, or an error object {error: \
Error::code(), message, ...the variant's fields}. `invalid`: configs that NamedConfig::parse \
rejects, with the exact error (ERR_INVALID_LAYOUT with `at` = byte offset into the config for \
syntax and key problems; policy and generator errors keep their own codes); \
`expect_snowflake` / `expect_uuid`, where present, is what a front door that builds only \
Snowflake (only UUID) generators answers instead (NamedConfig::parse_snowflake / parse_uuid: \
`Snowflake.fromConfig`, `UuidGenerator.fromConfig`), which checks the config's type before \
that type's keys; absent, it answers `expect`. Every u64 is a decimal string.";

const CONFIGS: [(&str, &[u64]); 17] = [
    (
        "type=snowflake,layout=twitter,node=5,on_backwards=wait:1000,on_exhausted=borrow:16,sequence_start=vibrate:1,seed=42",
        &[T0, T0, T0 + 1, T0 + 2, T0 - 3],
    ),
    (
        r#"{"type":"snowflake","layout":"time=41@1ms,worker=10,seq=12,epoch=2020-01-01","node":5,"on_backwards":"logical:500"}"#,
        &[T0, T0 - 100, T0 - 600, T0 + 1],
    ),
    (
        "type=snowflake,layout=(time=41@1ms,worker=10,seq=2,epoch=2020-01-01),node=1023,on_exhausted=fail",
        &[T0, T0, T0, T0, T0, T0 + 1],
    ),
    (
        " type = snowflake , layout = ( time=40@1ms,rollback=2,worker=8,seq=13,epoch=2010-11-04T01:42:54.657Z ) , node = 0 , on_backwards = rollback_counter ",
        &[T0 + 10, T0 + 5, T0 + 6, T0 + 11],
    ),
    (
        r#"{ "on_backwards": "ring:8", "layout": "sonyflake", "type": "snowflake", "node": "65535", "sequence_start": "random", "seed": "18446744073709551615" }"#,
        &[T0, T0 + 10, T0 + 20, T0],
    ),
    (
        "type=snowflake,layout=js53,node=15,fence_ms=1800000000000,on_backwards=wait:10",
        &[1_800_000_000_000, 1_800_000_001_000, 1_799_999_999_995],
    ),
    (
        "layout=leaf,type=snowflake,node=3,on_exhausted=borrow,on_backwards=logical,sequence_start=vibrate",
        &[T0, T0 + 1],
    ),
    ("type=snowflake,layout=baidu,node=0", &[T0]),
    ("type=uuid4", &[T0, T0, 0]),
    (r#"{"type":"uuid4"}"#, &[T0]),
    ("type=uuid7", &[T0, T0, T0 - 5, T0 + 1]),
    (r#"{"type":"uuid\u0037"}"#, &[T0]),
    // RFC 9562's other monotonic methods by name; the counter is the default and unsaid.
    ("type=uuid7,method=random_increment", &[T0, T0, T0 - 5, T0 + 1]),
    (r#"{"type":"uuid7","method":"sub_millisecond"}"#, &[T0, T0, T0 - 5, T0 + 1]),
    ("type=uuid7,method=counter", &[T0]),
    ("type=uuid1", &[T0, T0, T0 - 1, T0 + 1]),
    ("   type=uuid1   ", &[0]),
];

const INVALID: [&str; 34] = [
    "",
    "type",
    "type=",
    "=uuid4",
    "type=uuid4,",
    "type=uuid9",
    "TYPE=uuid4",
    "type=uuid4,color=red",
    "type=uuid4,type=uuid4",
    "type=uuid4,node=1",
    "type=uuid7,method=fast",
    "type=uuid4,method=counter",
    "type=snowflake,layout=twitter,node=1,method=counter",
    r#"{"type":"uuid7","method":7}"#,
    "node=1",
    "type=snowflake",
    "type=snowflake,layout=time=41@1ms,worker=10,seq=12,epoch=2020-01-01",
    "type=snowflake,layout=(time=41@1ms,worker=10,seq=12,epoch=2020-01-01",
    "type=snowflake,layout=(time=41@1xs,seq=12,epoch=0)",
    "type=snowflake,layout=(time=60@1ms,worker=10,seq=12,epoch=0)",
    "type=snowflake,layout=nope",
    "type=snowflake,layout=twitter",
    "type=snowflake,layout=twitter,node=1024",
    "type=snowflake,layout=twitter,node=-1",
    "type=snowflake,layout=twitter,seed=18446744073709551616",
    "type=snowflake,layout=twitter,on_backwards=sideways",
    "type=snowflake,layout=twitter,on_backwards=rollback_counter",
    "type=snowflake,layout=twitter,on_backwards=ring:8,on_exhausted=borrow:2",
    "{",
    "{}",
    r#"{"type":"uuid4"} trailing"#,
    r#"{"type":"snowflake","layout":"twitter","node":1.5}"#,
    r#"{"type":"snowflake","layout":{"preset":"twitter"}}"#,
    r#"{"type":"snowflake","layout":"time=41@1ms,seq=x,epoch=0"}"#,
];

pub(crate) fn generate() -> Value {
    let configs: Vec<Value> = CONFIGS
        .iter()
        .enumerate()
        .map(|(k, &(text, times))| {
            let cfg = NamedConfig::parse(text).expect("valid named config");
            let stream = if cfg.kind().random_bytes() == 0 {
                Vec::new()
            } else {
                bytes(5000 + k as u64, 64)
            };
            let mut used = 0usize;
            let mut g = cfg.build().expect("buildable");
            let steps: Vec<Value> = times
                .iter()
                .map(|&now| {
                    let r = g.next_at(now, |buf: &mut [u8]| {
                        let end = used + buf.len();
                        buf.copy_from_slice(&stream[used..end]);
                        used = end;
                        Ok(())
                    });
                    case(
                        [("now_ms", s(now))],
                        outcome(r, |id| {
                            let v = match id {
                                GeneratedId::U64(n) => s(n),
                                other => other.to_string().into(),
                            };
                            obj([("id", v)])
                        }),
                    )
                })
                .collect();
            obj([
                ("config", text.into()),
                ("canonical", cfg.to_string().into()),
                ("type", cfg.kind().name().into()),
                ("random_hex", hex(&stream).into()),
                ("random_used", used.into()),
                ("steps", steps.into()),
            ])
        })
        .collect();
    let invalid: Vec<Value> = INVALID
        .iter()
        .map(|&text| {
            let e = NamedConfig::parse(text).expect_err("invalid named config");
            let mut c = case([("config", text.into())], error(&e));
            let doors = [
                (
                    "expect_snowflake",
                    NamedConfig::parse_snowflake(text).map(|_| ()),
                ),
                ("expect_uuid", NamedConfig::parse_uuid(text).map(|_| ())),
            ];
            for (key, answer) in doors {
                let other = answer.expect_err("a config parse refuses, a single-type door refuses");
                if other != e {
                    c = extend(c, [(key, error(&other))]);
                }
            }
            c
        })
        .collect();
    obj([
        ("_comment", COMMENT.into()),
        ("configs", configs.into()),
        ("invalid", invalid.into()),
    ])
}
