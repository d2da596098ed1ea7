//! Core values out as JavaScript objects, the same in both packages (`Parts`, `Field`s, node
//! sub-fields, `Stats`, `Run`, `UuidInfo`), and the bodies of the functions and constructors
//! both packages export alike (codecs, `parseAny`, obfuscators, UUID namespaces).

use idmint::codec::Codec;
use idmint::formats::ksuid::Ksuid;
use idmint::formats::typeid::TypeId;
use idmint::formats::ulid::Ulid;
use idmint::formats::uuid::{self, Uuid};
use idmint::named::NamedConfig;
use idmint::{AnyId, Config, Layout, Obfuscator, Run, SortableObfuscator, Stats};

use crate::convert::{
    bounded_arg, bytes_arg, id_arg, is_nullish, layout_arg, opt_string_arg, string_arg,
    text_or_bytes_arg, u128_arg, u64_arg,
};
use crate::error::OrThrow;
use crate::{Host, Out};

/// Node sub-field values by name, as a `Record<string, bigint>` in layout order.
pub fn node_record<H: Host>(h: &H, layout: &Layout, node: u64) -> Result<H::Value, H::Error> {
    let fields: Vec<_> = layout.try_split_node(node).or_throw(h)?.collect();
    let props: Vec<_> = fields
        .iter()
        .map(|(name, v)| (name.as_str(), Out::Big(*v)))
        .collect();
    h.object(&props)
}

/// The `Parts` object of ID `v` (a bigint, safe number or decimal string) under `layout`.
pub fn decompose<H: Host>(h: &H, layout: &Layout, v: &H::Value) -> Result<H::Value, H::Error> {
    let id = id_arg(h, v, "id")?;
    let p = layout.decompose(id).or_throw(h)?;
    h.object(&[
        ("time", Out::Big(p.time)),
        ("node", Out::Big(p.node)),
        // The layout caps the sequence at 32 bits and rollback at 8: exact as numbers.
        ("sequence", Out::Num(p.sequence as f64)),
        ("rollback", Out::Num(p.rollback as f64)),
        ("nodeFields", Out::Val(node_record(h, layout, p.node)?)),
        ("timestampMs", Out::Big(layout.timestamp_ms(id))),
    ])
}

/// `Layout.fields`: one object per field, most significant first.
pub fn fields<H: Host>(h: &H, layout: &Layout) -> Result<H::Value, H::Error> {
    let mut out = Vec::new();
    for f in layout.fields() {
        let kind = f.kind.name();
        out.push(h.object(&[
            ("name", Out::Str(f.name.as_str())),
            ("kind", Out::Str(kind)),
            ("bits", Out::Num(f64::from(f.bits))),
            ("shift", Out::Num(f64::from(f.shift))),
            ("max", Out::Big(f.max())),
        ])?);
    }
    h.array(out)
}

/// A generator's counters (all `bigint`).
pub fn stats<H: Host>(h: &H, s: Stats) -> Result<H::Value, H::Error> {
    h.object(&[
        ("rollbacks", Out::Big(s.rollbacks)),
        ("waitMs", Out::Big(s.wait_ms)),
        ("maxAheadMs", Out::Big(s.max_ahead_ms)),
        ("exhaustions", Out::Big(s.exhaustions)),
    ])
}

/// A run of IDs reserved with one swap.
pub fn run<H: Host>(h: &H, r: Run) -> Result<H::Value, H::Error> {
    h.object(&[
        ("first", Out::Big(r.first)),
        ("count", Out::Num(r.count as f64)),
        ("stride", Out::Big(r.stride)),
    ])
}

/// `bigint | null`.
pub fn opt_big<H: Host>(h: &H, v: Option<u64>) -> Result<H::Value, H::Error> {
    h.value(v.map_or(Out::Null, Out::Big))
}

/// `ms` since the Unix epoch as a `Date`'s time value: NaN (an Invalid Date) beyond
/// JavaScript's range of ±8.64e15 ms, i.e. after the year 275760.
pub fn date_ms(ms: u64) -> f64 {
    if ms > 8_640_000_000_000_000 {
        f64::NAN
    } else {
        ms as f64
    }
}

/// A UUID namespace argument: a UUID string or `dns`, `url`, `oid`, `x500`.
pub fn namespace<H: Host>(h: &H, v: &H::Value) -> Result<Uuid, H::Error> {
    Ok(match string_arg(h, v, "namespace")?.as_str() {
        "dns" => uuid::NAMESPACE_DNS,
        "url" => uuid::NAMESPACE_URL,
        "oid" => uuid::NAMESPACE_OID,
        "x500" => uuid::NAMESPACE_X500,
        other => uuid::parse(other).or_throw(h)?,
    })
}

/// `uuidInfo(text)`: version, variant and (v1, v6, v7) creation time of a UUID string.
pub fn uuid_info<H: Host>(h: &H, v: &H::Value) -> Result<H::Value, H::Error> {
    let u = uuid::parse(&string_arg(h, v, "uuid")?).or_throw(h)?;
    let i = uuid::inspect(&u);
    let unix_ms = i.unix_ms.map_or(Out::Null, Out::Big);
    h.object(&[
        ("version", Out::Num(f64::from(i.version))),
        ("variant", Out::Str(i.variant)),
        ("unixMs", unix_ms),
    ])
}

/// `encode(id, codec?)`: the ID as text in `codec` (default decimal).
pub fn encode<H: Host>(h: &H, id: &H::Value, codec: Option<&H::Value>) -> Result<String, H::Error> {
    let id = u64_arg(h, id, "id")?;
    let codec = match opt_string_arg(h, codec, "codec")? {
        Some(name) => Codec::parse(&name).or_throw(h)?,
        None => Codec::Decimal,
    };
    Ok(codec.format(id).as_str().to_owned())
}

/// `parseId(text, codec?)`: without a codec (or `"auto"`) the codec is guessed.
pub fn parse_id<H: Host>(
    h: &H,
    text: &H::Value,
    codec: Option<&H::Value>,
) -> Result<u64, H::Error> {
    let text = string_arg(h, text, "text")?;
    match codec_arg(h, codec)? {
        None => idmint::codec::parse_id(&text).or_throw(h),
        Some(c) => c.decode(&text).or_throw(h),
    }
}

/// A `codec` argument of the parsing functions: absent, `null` or `"auto"` (guess from the
/// shape), else a codec's name.
fn codec_arg<H: Host>(h: &H, codec: Option<&H::Value>) -> Result<Option<Codec>, H::Error> {
    match opt_string_arg(h, codec, "codec")? {
        None => Ok(None),
        Some(name) => Codec::parse_or_auto(&name).or_throw(h),
    }
}

/// `parseAny(text, codec?)`: the core's `AnyId::parse` as `{kind, value, unixMs}`: `value` a
/// bigint for a 64-bit ID, else the canonical text (what `parseUuid`, `typeid()`, `ulid()` and
/// `ksuid()` give); `unixMs` a bigint or `null`.
pub fn parse_any<H: Host>(
    h: &H,
    text: &H::Value,
    codec: Option<&H::Value>,
) -> Result<H::Value, H::Error> {
    let text = string_arg(h, text, "text")?;
    let a = AnyId::parse(&text, codec_arg(h, codec)?).or_throw(h)?;
    let canonical = match a {
        AnyId::Snowflake(_) => String::new(),
        AnyId::Uuid(u) => uuid_text(&u),
        AnyId::TypeId(t) => t.to_string(),
        AnyId::Ulid(u) => u.to_string(),
        AnyId::Ksuid(k) => k.to_string(),
    };
    let value = match a {
        AnyId::Snowflake(id) => Out::Big(id),
        _ => Out::Str(&canonical),
    };
    h.object(&[
        ("kind", Out::Str(a.kind())),
        ("value", value),
        ("unixMs", a.unix_ms().map_or(Out::Null, Out::Big)),
    ])
}

/// `new Obfuscator(key, bits)`.
pub fn obfuscator<H: Host>(h: &H, key: &H::Value, bits: &H::Value) -> Result<Obfuscator, H::Error> {
    let key = u128_arg(h, key, "key")?;
    Obfuscator::new(key, bounded_arg(h, bits, "bits", 255)? as u8).or_throw(h)
}

/// `Obfuscator.forLayout(key, layout)`.
pub fn obfuscator_for_layout<H: Host>(
    h: &H,
    key: &H::Value,
    layout: &H::Value,
) -> Result<Obfuscator, H::Error> {
    let key = u128_arg(h, key, "key")?;
    Obfuscator::for_layout(key, &layout_arg(h, layout, "layout")?).or_throw(h)
}

/// `new SortableObfuscator(key, layout)`.
pub fn sortable_obfuscator<H: Host>(
    h: &H,
    key: &H::Value,
    layout: &H::Value,
) -> Result<SortableObfuscator, H::Error> {
    let key = u128_arg(h, key, "key")?;
    SortableObfuscator::new(key, &layout_arg(h, layout, "layout")?).or_throw(h)
}

/// `new UuidGenerator(version?)`: the named config of version 1, 4, 6 or 7 (default 7).
pub fn uuid_version<H: Host>(h: &H, v: Option<&H::Value>) -> Result<NamedConfig, H::Error> {
    let v = match v.filter(|v| !is_nullish(h, v)) {
        Some(v) => u64_arg(h, v, "version")?,
        None => 7,
    };
    NamedConfig::uuid_of_version(v).or_throw(h)
}

/// `UuidGenerator.version`: 1, 4, 6 or 7.
pub fn uuid_version_of(config: &NamedConfig) -> u32 {
    config.kind().uuid_version().map_or(7, u32::from)
}

/// A named config string (`type=...` or its JSON form).
pub fn named_config<H: Host>(h: &H, v: &H::Value) -> Result<NamedConfig, H::Error> {
    NamedConfig::parse(&string_arg(h, v, "config")?).or_throw(h)
}

/// `UuidGenerator.fromConfig(text)`: a named config of a UUID type (the core refuses others).
pub fn uuid_named<H: Host>(h: &H, v: &H::Value) -> Result<NamedConfig, H::Error> {
    NamedConfig::parse_uuid(&string_arg(h, v, "config")?).or_throw(h)
}

/// `Snowflake.fromConfig(text)` / `AtomicSnowflake.fromConfig(text)`: the Snowflake config of
/// a named config (the core refuses other types).
pub fn named_snowflake<H: Host>(h: &H, v: &H::Value) -> Result<Config, H::Error> {
    NamedConfig::parse_snowflake(&string_arg(h, v, "config")?).or_throw(h)
}

/// The lower-case hyphenated text of a UUID.
pub fn uuid_text(u: &Uuid) -> String {
    u.hyphenated().to_string()
}

/// A UUID argument given as text (any form `parseUuid` reads).
pub fn uuid_arg<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<Uuid, H::Error> {
    uuid::parse(&string_arg(h, v, what)?).or_throw(h)
}

/// A `u16` argument (a clock sequence, extra ticks).
fn u16_arg<H: Host>(h: &H, v: &H::Value, what: &str) -> Result<u16, H::Error> {
    Ok(bounded_arg(h, v, what, u64::from(u16::MAX))? as u16)
}

/// `uuid1At(ticks, clockSeq, node)` and `uuid6At(...)`, the pure v1 and v6 constructors
/// (`version` 1 or 6).
pub fn uuid_v1_or_v6_at<H: Host>(
    h: &H,
    version: u8,
    ticks: &H::Value,
    clock_seq: &H::Value,
    node: &H::Value,
) -> Result<Uuid, H::Error> {
    let ticks = u64_arg(h, ticks, "ticks")?;
    let seq = u16_arg(h, clock_seq, "clockSeq")?;
    let node = bytes_arg(h, node, "node")?;
    Ok(match version {
        1 => uuid::v1(ticks, seq, node),
        _ => uuid::v6(ticks, seq, node),
    })
}

/// `uuid1RandomNode(unixMs, extraTicks, clockSeq, node)`.
pub fn uuid1_random_node<H: Host>(
    h: &H,
    unix_ms: &H::Value,
    extra_ticks: &H::Value,
    clock_seq: &H::Value,
    node: &H::Value,
) -> Result<Uuid, H::Error> {
    let ms = u64_arg(h, unix_ms, "unixMs")?;
    let extra = u16_arg(h, extra_ticks, "extraTicks")?;
    let seq = u16_arg(h, clock_seq, "clockSeq")?;
    Ok(uuid::v1_random_node(
        ms,
        extra,
        seq,
        bytes_arg(h, node, "node")?,
    ))
}

/// `uuid7At(unixMs, random)`: the pure v7 constructor.
pub fn uuid7_at<H: Host>(h: &H, unix_ms: &H::Value, random: &H::Value) -> Result<Uuid, H::Error> {
    let ms = u64_arg(h, unix_ms, "unixMs")?;
    Ok(uuid::v7(ms, bytes_arg(h, random, "random")?))
}

/// `uuid3(namespace, name)`, `uuid5(...)` and `uuid8Sha256(...)` (`version` 3, 5 or 8): the
/// namespace by name or as a UUID, the name as text (UTF-8) or bytes.
pub fn uuid_name_based<H: Host>(
    h: &H,
    version: u8,
    namespace: &H::Value,
    name: &H::Value,
) -> Result<Uuid, H::Error> {
    let ns = self::namespace(h, namespace)?;
    let name = text_or_bytes_arg(h, name, "name")?;
    Ok(match version {
        3 => uuid::v3(&ns, &name),
        5 => uuid::v5(&ns, &name),
        _ => uuid::v8_sha256(&ns, &name),
    })
}

/// `uuid4(random?)`: from 16 given bytes, or, when `random` is missing, from `os` (the
/// package's random source).
pub fn uuid4<H: Host>(
    h: &H,
    random: Option<&H::Value>,
    os: impl FnOnce() -> idmint::Result<Uuid>,
) -> Result<Uuid, H::Error> {
    match random.filter(|r| !is_nullish(h, r)) {
        Some(r) => Ok(uuid::v4(bytes_arg(h, r, "random")?)),
        None => os().or_throw(h),
    }
}

/// `uuid8(bytes)`: 16 caller bytes with the version and variant set.
pub fn uuid8<H: Host>(h: &H, bytes: &H::Value) -> Result<Uuid, H::Error> {
    Ok(uuid::v8(bytes_arg(h, bytes, "bytes")?))
}

/// `uuid8FromFields(customA, customB, customC)`; a value past its field throws the core's
/// `ERR_OUT_OF_RANGE`.
pub fn uuid8_from_fields<H: Host>(
    h: &H,
    a: &H::Value,
    b: &H::Value,
    c: &H::Value,
) -> Result<Uuid, H::Error> {
    let a = u64_arg(h, a, "customA")?;
    let b = u64_arg(h, b, "customB")?;
    let c = u64_arg(h, c, "customC")?;
    uuid::v8_from_fields(a, b, c).or_throw(h)
}

/// `uuid8Fields(uuid)`: `{customA, customB, customC}` (bigint, number, bigint) or `null` for a
/// UUID that is not version 8.
pub fn uuid8_fields<H: Host>(h: &H, v: &H::Value) -> Result<H::Value, H::Error> {
    let u = uuid_arg(h, v, "uuid")?;
    match uuid::v8_fields(&u) {
        None => h.value(Out::Null),
        Some((a, b, c)) => h.object(&[
            ("customA", Out::Big(a)),
            ("customB", Out::Num(f64::from(b))),
            ("customC", Out::Big(c)),
        ]),
    }
}

/// `uuid1ToUuid6(text)`.
pub fn uuid1_to_uuid6<H: Host>(h: &H, v: &H::Value) -> Result<Uuid, H::Error> {
    uuid::v1_to_v6(&uuid_arg(h, v, "uuid")?).or_throw(h)
}

/// `uuid6ToUuid1(text)`.
pub fn uuid6_to_uuid1<H: Host>(h: &H, v: &H::Value) -> Result<Uuid, H::Error> {
    uuid::v6_to_v1(&uuid_arg(h, v, "uuid")?).or_throw(h)
}

/// The v7 method argument: `'counter'` (default), `'random_increment'`, `'sub_millisecond'`.
pub fn v7_method<H: Host>(h: &H, v: Option<&H::Value>) -> Result<uuid::Uuid7Method, H::Error> {
    match opt_string_arg(h, v, "method")? {
        None => Ok(uuid::Uuid7Method::Counter),
        Some(name) => uuid::Uuid7Method::parse(&name).or_throw(h),
    }
}

/// The sub-millisecond argument of `Uuid7Generator.nextAt` (0 when missing; ns, clamped by the
/// core to 999 999).
pub fn sub_ms_nanos<H: Host>(h: &H, v: Option<&H::Value>) -> Result<u32, H::Error> {
    match v.filter(|v| !is_nullish(h, v)) {
        None => Ok(0),
        Some(v) => Ok(bounded_arg(h, v, "subMsNanos", u64::from(u32::MAX))? as u32),
    }
}

/// `typeidFromUuid(prefix, uuid)`: the text of the TypeID of `uuid` under `prefix`.
pub fn typeid_from_uuid<H: Host>(
    h: &H,
    prefix: &H::Value,
    uuid: &H::Value,
) -> Result<String, H::Error> {
    let prefix = string_arg(h, prefix, "prefix")?;
    let u = uuid_arg(h, uuid, "uuid")?;
    Ok(TypeId::new(&prefix, u).or_throw(h)?.to_string())
}

/// A checked TypeID prefix argument (the core's rule: `[a-z]([a-z_]*[a-z])?`, at most 63).
pub fn typeid_prefix<H: Host>(h: &H, prefix: &H::Value) -> Result<TypeId, H::Error> {
    let prefix = string_arg(h, prefix, "prefix")?;
    TypeId::new(&prefix, Uuid::nil()).or_throw(h)
}

/// `parseTypeId(text)`: `{prefix, suffix, uuid}`.
pub fn parse_typeid<H: Host>(h: &H, v: &H::Value) -> Result<H::Value, H::Error> {
    let t = TypeId::parse(&string_arg(h, v, "text")?).or_throw(h)?;
    let suffix = t.suffix();
    h.object(&[
        ("prefix", Out::Str(t.prefix())),
        (
            "suffix",
            Out::Str(core::str::from_utf8(&suffix).unwrap_or("")),
        ),
        ("uuid", Out::Str(&uuid_text(&t.uuid()))),
    ])
}

/// `ulidAt(timestampMs, random)`: the ULID of a time and 10 random bytes (the core refuses a
/// time past 48 bits).
pub fn ulid_at<H: Host>(h: &H, ms: &H::Value, random: &H::Value) -> Result<Ulid, H::Error> {
    let ms = u64_arg(h, ms, "timestampMs")?;
    let r: [u8; 10] = crate::convert::bytes_arg(h, random, "random")?;
    let mut wide = [0u8; 16];
    if let Some(tail) = wide.get_mut(6..) {
        tail.copy_from_slice(&r);
    }
    Ulid::from_parts(ms, u128::from_be_bytes(wide)).or_throw(h)
}

/// `ulidFromUuid(uuid)`: the ULID with the same 128 bits.
pub fn ulid_from_uuid<H: Host>(h: &H, v: &H::Value) -> Result<String, H::Error> {
    Ok(Ulid::from_uuid(&uuid_arg(h, v, "uuid")?).to_string())
}

/// `parseUlid(text)`: `{ulid, timestampMs, random, uuid}` (`ulid` in canonical upper case,
/// `timestampMs` a bigint, `random` the 80-bit part as 20 lower-case hex digits).
pub fn parse_ulid<H: Host>(h: &H, v: &H::Value) -> Result<H::Value, H::Error> {
    let u = Ulid::parse(&string_arg(h, v, "text")?).or_throw(h)?;
    ulid_record(h, &u)
}

/// `ksuidAt(unixMs, payload)` (Node only): the KSUID of the second holding `unixMs` and 16
/// payload bytes (the core refuses a time before 2014-05-13T16:53:20Z or past the 32-bit
/// seconds).
pub fn ksuid_at<H: Host>(h: &H, ms: &H::Value, payload: &H::Value) -> Result<Ksuid, H::Error> {
    let ms = u64_arg(h, ms, "unixMs")?;
    let p: [u8; 16] = crate::convert::bytes_arg(h, payload, "payload")?;
    Ksuid::from_unix_ms(ms, p).or_throw(h)
}

/// `parseKsuid(text)` (Node only): `{ksuid, timestamp, unixMs, payload}` (`timestamp` the seconds since the
/// KSUID epoch as a number, `unixMs` a bigint, `payload` 32 lower-case hex digits).
pub fn parse_ksuid<H: Host>(h: &H, v: &H::Value) -> Result<H::Value, H::Error> {
    let k = Ksuid::parse(&string_arg(h, v, "text")?).or_throw(h)?;
    let payload = format!("{:032x}", k.payload_u128());
    h.object(&[
        ("ksuid", Out::Str(&k.to_string())),
        ("timestamp", Out::Num(f64::from(k.timestamp()))),
        ("unixMs", Out::Big(k.unix_ms())),
        ("payload", Out::Str(&payload)),
    ])
}

/// A ULID's record (see [`parse_ulid`]).
pub fn ulid_record<H: Host>(h: &H, u: &Ulid) -> Result<H::Value, H::Error> {
    let random = format!("{:020x}", u.random());
    h.object(&[
        ("ulid", Out::Str(&u.to_string())),
        ("timestampMs", Out::Big(u.timestamp_ms())),
        ("random", Out::Str(&random)),
        ("uuid", Out::Str(&uuid_text(&u.to_uuid()))),
    ])
}
