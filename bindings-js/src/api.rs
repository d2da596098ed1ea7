//! The JavaScript members both packages declare, listed once. Each list is a "callback" macro:
//! `idmint_js::layout_api!(expander => RustType)` calls the binding's `expander!` with the class's
//! members, and the expander writes them as `#[napi]` or `#[wasm_bindgen]` methods of `RustType`
//! (a struct with the core value in `inner`). `functions_api!(expander)` lists the module's
//! functions that need neither a clock nor OS randomness the same way, without a class.
//!
//! A member is `#[getter]? "jsName" rust_name(arg, ...) -> ret` and then either `= expr;`, which
//! cannot throw, or `{ body }`, which returns `Result<_, Host::Error>`. `ret` is a Rust type the
//! binding returns as is, `value` (a `Host::Value`), `date` (milliseconds since the Unix epoch,
//! returned as a `Date`), `name` (an `Option<&str>`, returned as a string or `null`), `names`
//! (strings, returned as an array), `layout` (a core layout, returned as a `Layout`) or `uuid`
//! (a core UUID, returned as its hyphenated text). In `expr` and `body`, `h` is the host, `l`
//! the core value, each argument a `&Host::Value`, and the names of [`prelude`] are in scope.

/// What the bodies of the member lists use.
pub mod prelude {
    pub use crate::convert::{expect_object, id_arg, layout_arg, string_arg, u64_arg};
    pub use crate::error::OrThrow;
    pub use crate::options::{compose_parts, node_arg};
    pub use crate::{values, Host, Out};
}

/// `Layout`'s getters and methods (its constructor and static methods return the binding's own
/// class, and are declared in each binding).
#[macro_export]
macro_rules! layout_api {
    ($expander:ident => $rust:ident) => {
        $expander! { Layout => $rust (h, l)
            #[getter] "spec" spec() -> String = l.to_string();
            "toString" to_js_string() -> String = l.to_string();
            "toJSON" to_json() -> String = l.to_string();
            #[getter] "presetName" preset_name() -> name = l.preset_name();
            #[getter] "width" width() -> u32 = u32::from(l.width());
            #[getter] "epochMs" epoch_ms() -> u64 = l.epoch_ms();
            #[getter] "epoch" epoch() -> date = l.epoch_ms();
            #[getter] "tickMs" tick_ms() -> u64 = l.tick_ms();
            #[getter] "maxId" max_id() -> u64 = l.max_id();
            #[getter] "maxNode" max_node() -> u64 = l.max_node();
            #[getter] "maxSequence" max_sequence() -> u32 =
                u32::try_from(l.max_sequence()).unwrap_or(u32::MAX);
            #[getter] "maxTime" max_time() -> u64 = l.max_time();
            #[getter] "nodeBits" node_bits() -> u32 = u32::from(l.node_bits());
            #[getter] "nodeNames" node_names() -> names = l.node_fields().map(|f| f.name.as_str());
            #[getter] "isJsSafe" is_js_safe() -> bool = l.is_js_safe();
            #[getter] "capacityPerSecond" capacity_per_second() -> f64 = l.capacity_per_second() as f64;
            #[getter] "lifetimeEndMs" lifetime_end_ms() -> u64 = l.lifetime_end_ms();
            #[getter] "lifetimeEnd" lifetime_end() -> date = l.lifetime_end_ms();
            #[getter] "fields" fields() -> value { values::fields(h, l) }
            "compose" compose(parts) -> u64 {
                let p = compose_parts(h, parts, l)?;
                l.compose(&p).or_throw(h)
            }
            "decompose" decompose(id) -> value { values::decompose(h, l, id) }
            "timestampMs" timestamp_ms(id) -> u64 { Ok(l.timestamp_ms(id_arg(h, id, "id")?)) }
            "timestamp" timestamp(id) -> date { Ok(l.timestamp_ms(id_arg(h, id, "id")?)) }
            "tickAt" tick_at(now_ms) -> u64 { l.tick_at(u64_arg(h, now_ms, "nowMs")?).or_throw(h) }
            "tickStartMs" tick_start_ms(tick) -> u64 {
                Ok(l.tick_start_ms(u64_arg(h, tick, "tick")?))
            }
            "isExpiredAt" is_expired_at(now_ms) -> bool {
                Ok(l.is_expired_at(u64_arg(h, now_ms, "nowMs")?))
            }
            "splitNode" split_node(node) -> value {
                values::node_record(h, l, u64_arg(h, node, "node")?)
            }
            "joinNode" join_node(values) -> u64 {
                expect_object(h, values, "values")?;
                node_arg(h, values, l, "values")
            }
            "equals" equals(other) -> bool { Ok(*l == layout_arg(h, other, "other")?) }
        }
    };
}

/// `Obfuscator`'s getters and methods (its constructor and `forLayout` are in each binding).
#[macro_export]
macro_rules! obfuscator_api {
    ($expander:ident => $rust:ident) => {
        $expander! { Obfuscator => $rust (h, o)
            #[getter] "bits" bits() -> u32 = u32::from(o.bits());
            #[getter] "max" max() -> u64 = o.max();
            "encode" encode(x) -> u64 { o.encode(u64_arg(h, x, "x")?).or_throw(h) }
            "decode" decode(y) -> u64 { o.decode(u64_arg(h, y, "y")?).or_throw(h) }
        }
    };
}

/// `SortableObfuscator`'s getters and methods (its constructor is in each binding).
#[macro_export]
macro_rules! sortable_obfuscator_api {
    ($expander:ident => $rust:ident) => {
        $expander! { SortableObfuscator => $rust (h, o)
            #[getter] "lowBits" low_bits() -> u32 = u32::from(o.low_bits());
            "encode" encode(id) -> u64 { o.encode(u64_arg(h, id, "id")?).or_throw(h) }
            "decode" decode(id) -> u64 { o.decode(u64_arg(h, id, "id")?).or_throw(h) }
        }
    };
}

/// The getters and methods `Snowflake` and `AtomicSnowflake` share (their constructors and
/// per-ID methods are in each binding).
#[macro_export]
macro_rules! snowflake_api {
    ($expander:ident, $js:ident => $($rust:tt)*) => {
        $expander! { $js => $($rust)* (h, s)
            "nextIdAt" next_id_at(now_ms) -> u64 {
                s.next_id_at(u64_arg(h, now_ms, "nowMs")?).or_throw(h)
            }
            "decode" decode(id) -> value { values::decompose(h, s.config().layout(), id) }
            "stats" stats() -> value { values::stats(h, s.stats()) }
            "setNode" set_node(node) -> () {
                let node = node_arg(h, node, s.config().layout(), "node")?;
                s.set_node(node).or_throw(h)
            }
            #[getter] "node" node() -> u64 = s.node();
            #[getter] "layout" layout() -> layout = *s.config().layout();
            #[getter] "config" config() -> String =
                idmint::named::NamedConfig::Snowflake(*s.config()).to_string();
            #[getter] "maxRollbackTicks" max_rollback_ticks() -> value {
                values::opt_big(h, s.config().max_rollback_ticks())
            }
        }
    };
}

/// The functions that need neither a clock nor OS randomness (the clocked ones, `uuid7()` and
/// the like, read each package's own clock and are declared in each binding): the codecs'
/// and the formats' lists below, for a binding that exports all of them in one module.
#[macro_export]
macro_rules! functions_api {
    ($expander:ident) => {
        $crate::codec_functions_api!($expander);
        $crate::format_functions_api!($expander);
    };
}

/// `encode` and `parseId` (the browser package leaves them out of its smaller entries).
#[macro_export]
macro_rules! codec_functions_api {
    ($expander:ident) => {
        $expander! { (h)
            "encode" encode(id, codec) -> String { values::encode(h, id, Some(codec)) }
            "parseId" parse_id(text, codec) -> u64 {
                values::parse_id(h, text, Some(codec))
            }
        }
    };
}

/// The UUID, TypeID and ULID functions that need neither a clock nor OS randomness, and
/// `parseAny` (the browser package's `idmint-web/formats` entry holds them without the rest).
#[macro_export]
macro_rules! format_functions_api {
    ($expander:ident) => {
        $expander! { (h)
            "uuid3" uuid3(namespace, name) -> uuid { values::uuid_name_based(h, 3, namespace, name) }
            "uuid5" uuid5(namespace, name) -> uuid { values::uuid_name_based(h, 5, namespace, name) }
            "uuid1At" uuid1_at(ticks, clock_seq, node) -> uuid {
                values::uuid_v1_or_v6_at(h, 1, ticks, clock_seq, node)
            }
            "uuid1RandomNode" uuid1_random_node(unix_ms, extra_ticks, clock_seq, node) -> uuid {
                values::uuid1_random_node(h, unix_ms, extra_ticks, clock_seq, node)
            }
            "uuid6At" uuid6_at(ticks, clock_seq, node) -> uuid {
                values::uuid_v1_or_v6_at(h, 6, ticks, clock_seq, node)
            }
            "uuid7At" uuid7_at(unix_ms, random) -> uuid { values::uuid7_at(h, unix_ms, random) }
            "uuid8" uuid8(bytes) -> uuid { values::uuid8(h, bytes) }
            "uuid8FromFields" uuid8_from_fields(custom_a, custom_b, custom_c) -> uuid {
                values::uuid8_from_fields(h, custom_a, custom_b, custom_c)
            }
            "uuid8Fields" uuid8_fields(uuid) -> value { values::uuid8_fields(h, uuid) }
            "uuid8Sha256" uuid8_sha256(namespace, name) -> uuid {
                values::uuid_name_based(h, 8, namespace, name)
            }
            "uuid1ToUuid6" uuid1_to_uuid6(uuid) -> uuid { values::uuid1_to_uuid6(h, uuid) }
            "uuid6ToUuid1" uuid6_to_uuid1(uuid) -> uuid { values::uuid6_to_uuid1(h, uuid) }
            "parseUuid" parse_uuid(text) -> uuid {
                idmint::formats::uuid::parse(&string_arg(h, text, "text")?).or_throw(h)
            }
            "uuidInfo" uuid_info(uuid) -> value { values::uuid_info(h, uuid) }
            "typeidFromUuid" typeid_from_uuid(prefix, uuid) -> String {
                values::typeid_from_uuid(h, prefix, uuid)
            }
            "parseTypeId" parse_typeid(text) -> value { values::parse_typeid(h, text) }
            "ulidAt" ulid_at(timestamp_ms, random) -> String {
                values::ulid_at(h, timestamp_ms, random).map(|u| u.to_string())
            }
            "ulidFromUuid" ulid_from_uuid(uuid) -> String { values::ulid_from_uuid(h, uuid) }
            "parseUlid" parse_ulid(text) -> value { values::parse_ulid(h, text) }
            "parseAny" parse_any(text, codec) -> value { values::parse_any(h, text, Some(codec)) }
        }
    };
}
