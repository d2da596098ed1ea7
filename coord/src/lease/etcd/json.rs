//! The JSON of etcd v3's gateway: the requests the store sends (transactions of comparisons,
//! ranges, puts and deletes, nested transactions) and the answers it reads.
//!
//! The gateway speaks the gRPC messages as protobuf JSON with the `.proto` field names: keys
//! and values are base64, 64-bit integers are strings, and fields at their zero value are left
//! out of answers (`succeeded: false`, `more: false`, an empty `kvs`, a key's `lease: 0`).

use serde_json::{json, Map, Value};

// ---------------------------------------------------------------------------------------------
// Base64 (standard alphabet, padded: what Go's encoding/json writes for bytes)

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in standard, padded base64.
pub(super) fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64 (padding optional); `None` if it is not base64.
pub(super) fn unbase64(text: &str) -> Option<Vec<u8>> {
    let digits = text.trim_end_matches('=');
    if text.len() - digits.len() > 2 || digits.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in digits.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = acc << 6 | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// Requests

/// How a comparison compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CompareOp {
    Equal,
    Less,
}

impl CompareOp {
    fn name(self) -> &'static str {
        match self {
            CompareOp::Equal => "EQUAL",
            CompareOp::Less => "LESS",
        }
    }
}

/// One comparison of a transaction's condition.
#[derive(Debug, Clone)]
pub(super) struct Compare(Value);

impl Compare {
    fn new(key: &str, op: CompareOp, target: &str, field: &str, operand: Value) -> Compare {
        let mut m = Map::new();
        m.insert("key".into(), base64(key.as_bytes()).into());
        m.insert("result".into(), op.name().into());
        m.insert("target".into(), target.into());
        m.insert(field.into(), operand);
        Compare(Value::Object(m))
    }

    /// The key's value (bytes compared in order) against `value`.
    pub fn value(key: &str, op: CompareOp, value: &str) -> Compare {
        let v = base64(value.as_bytes()).into();
        Compare::new(key, op, "VALUE", "value", v)
    }

    /// The key's create revision (0: it does not exist).
    pub fn create_revision(key: &str, op: CompareOp, revision: i64) -> Compare {
        Compare::new(key, op, "CREATE", "create_revision", int(revision))
    }

    /// The key's last modification revision (0: it does not exist).
    pub fn mod_revision(key: &str, op: CompareOp, revision: i64) -> Compare {
        Compare::new(key, op, "MOD", "mod_revision", int(revision))
    }

    /// The etcd lease the key is attached to (0: none).
    pub fn lease(key: &str, op: CompareOp, id: i64) -> Compare {
        Compare::new(key, op, "LEASE", "lease", int(id))
    }
}

/// An int64 as the gateway writes it: a string.
fn int(v: i64) -> Value {
    Value::String(v.to_string())
}

/// The order of a range's keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sort {
    /// By key, highest first.
    KeyDescending,
    /// By last modification, oldest first.
    ModAscending,
}

/// A read of the keys under a prefix.
#[derive(Debug, Clone)]
pub(super) struct Range {
    prefix: String,
    sort: Option<Sort>,
    limit: i64,
    keys_only: bool,
}

impl Range {
    /// Every key under `prefix`, unsorted, with values.
    pub fn prefix(prefix: &str) -> Range {
        Range {
            prefix: prefix.to_string(),
            sort: None,
            limit: 0,
            keys_only: false,
        }
    }

    pub fn sort(mut self, sort: Sort) -> Range {
        self.sort = Some(sort);
        self
    }

    /// At most `limit` keys (0: all).
    pub fn limit(mut self, limit: i64) -> Range {
        self.limit = limit;
        self
    }

    /// Keys without their values.
    pub fn keys_only(mut self) -> Range {
        self.keys_only = true;
        self
    }
}

/// The end of the range of every key that starts with `prefix` (etcd's `range_end`): the
/// prefix with its last byte below 0xff raised by one; `\0` (to the end) if there is none.
fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(&last) = end.last() {
        if last < 0xff {
            *end.last_mut().expect("not empty") = last + 1;
            return end;
        }
        end.pop();
    }
    vec![0]
}

/// One operation of a transaction's branch.
#[derive(Debug, Clone)]
pub(super) struct Op(Value);

impl Op {
    /// Reads one key.
    pub fn get(key: &str) -> Op {
        Op(json!({ "request_range": { "key": base64(key.as_bytes()) } }))
    }

    /// Reads a range of keys.
    pub fn range(r: &Range) -> Op {
        let mut m = Map::new();
        m.insert("key".into(), base64(r.prefix.as_bytes()).into());
        m.insert(
            "range_end".into(),
            base64(&prefix_end(r.prefix.as_bytes())).into(),
        );
        if r.limit > 0 {
            m.insert("limit".into(), int(r.limit));
        }
        if let Some(sort) = r.sort {
            let (target, order) = match sort {
                Sort::KeyDescending => ("KEY", "DESCEND"),
                Sort::ModAscending => ("MOD", "ASCEND"),
            };
            m.insert("sort_target".into(), target.into());
            m.insert("sort_order".into(), order.into());
        }
        if r.keys_only {
            m.insert("keys_only".into(), true.into());
        }
        Op(json!({ "request_range": m }))
    }

    /// Writes `value` to `key`.
    pub fn put(key: &str, value: &str) -> Op {
        Op(json!({ "request_put": {
            "key": base64(key.as_bytes()),
            "value": base64(value.as_bytes()),
        }}))
    }

    /// Writes `value` to `key`, attached to the etcd lease `id`.
    pub fn put_leased(key: &str, value: &str, id: i64) -> Op {
        Op(json!({ "request_put": {
            "key": base64(key.as_bytes()),
            "value": base64(value.as_bytes()),
            "lease": int(id),
        }}))
    }

    /// Writes `key` again with its value unchanged (a new modification revision); fails the
    /// transaction if the key does not exist.
    pub fn touch(key: &str) -> Op {
        Op(json!({ "request_put": { "key": base64(key.as_bytes()), "ignore_value": true } }))
    }

    /// Deletes one key.
    pub fn delete(key: &str) -> Op {
        Op(json!({ "request_delete_range": { "key": base64(key.as_bytes()) } }))
    }

    /// A nested transaction: its condition decides its own branch, not the outer one.
    pub fn txn(t: &Txn) -> Op {
        Op(json!({ "request_txn": t.to_json() }))
    }
}

/// A transaction: when every comparison holds, the `success` operations, else the `failure`
/// ones, in one revision.
#[derive(Debug, Clone, Default)]
pub(super) struct Txn {
    compare: Vec<Compare>,
    success: Vec<Op>,
    failure: Vec<Op>,
}

impl Txn {
    pub fn new() -> Txn {
        Txn::default()
    }

    pub fn when(mut self, compare: Vec<Compare>) -> Txn {
        self.compare = compare;
        self
    }

    pub fn and_then(mut self, ops: Vec<Op>) -> Txn {
        self.success = ops;
        self
    }

    pub fn or_else(mut self, ops: Vec<Op>) -> Txn {
        self.failure = ops;
        self
    }

    /// The body of `POST /v3/kv/txn`.
    pub fn to_json(&self) -> Value {
        let list = |ops: &[Op]| Value::Array(ops.iter().map(|o| o.0.clone()).collect());
        json!({
            "compare": Value::Array(self.compare.iter().map(|c| c.0.clone()).collect()),
            "success": list(&self.success),
            "failure": list(&self.failure),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Answers

/// An answer that is not what the gateway sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Malformed;

/// An int64 (or uint64) field: a string, or a number; 0 when left out.
fn field<T: std::str::FromStr + TryFrom<i64> + TryFrom<u64>>(
    v: &Value,
    name: &str,
) -> Result<T, Malformed> {
    match v.get(name) {
        None | Some(Value::Null) => T::try_from(0i64).map_err(|_| Malformed),
        Some(Value::String(s)) => s.parse().map_err(|_| Malformed),
        Some(Value::Number(n)) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => T::try_from(i).map_err(|_| Malformed),
            (_, Some(u)) => T::try_from(u).map_err(|_| Malformed),
            _ => Err(Malformed),
        },
        Some(_) => Err(Malformed),
    }
}

/// A bytes field (base64); empty when left out.
fn bytes(v: &Value, name: &str) -> Result<Vec<u8>, Malformed> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => unbase64(s).ok_or(Malformed),
        Some(_) => Err(Malformed),
    }
}

/// A bool field; false when left out.
fn flag(v: &Value, name: &str) -> Result<bool, Malformed> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(Malformed),
    }
}

/// An answer's header: which cluster answered, at which revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Header {
    pub cluster_id: u64,
    pub revision: i64,
}

impl Header {
    /// The header of an answer, if it has one.
    pub fn of(answer: &Value) -> Result<Option<Header>, Malformed> {
        match answer.get("header") {
            None | Some(Value::Null) => Ok(None),
            Some(h) => Ok(Some(Header {
                cluster_id: field(h, "cluster_id")?,
                revision: field(h, "revision")?,
            })),
        }
    }
}

/// A key and its value, as a range reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct KeyValue {
    pub key: Vec<u8>,
    pub value: Vec<u8>,
    pub create_revision: i64,
    pub mod_revision: i64,
}

impl KeyValue {
    fn parse(v: &Value) -> Result<KeyValue, Malformed> {
        Ok(KeyValue {
            key: bytes(v, "key")?,
            value: bytes(v, "value")?,
            create_revision: field(v, "create_revision")?,
            mod_revision: field(v, "mod_revision")?,
        })
    }
}

/// What a range read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct RangeResponse {
    pub kvs: Vec<KeyValue>,
    /// Whether more keys are in the range than the limit let through.
    pub more: bool,
}

impl RangeResponse {
    fn parse(v: &Value) -> Result<RangeResponse, Malformed> {
        let kvs = match v.get("kvs") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a.iter().map(KeyValue::parse).collect::<Result<_, _>>()?,
            Some(_) => return Err(Malformed),
        };
        Ok(RangeResponse {
            kvs,
            more: flag(v, "more")?,
        })
    }
}

/// The answer to one operation of a transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum OpResponse {
    Range(RangeResponse),
    Put,
    Delete,
    Txn(TxnResponse),
}

/// The answer to a transaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct TxnResponse {
    pub header: Option<Header>,
    /// Whether the condition held (the `success` branch ran).
    pub succeeded: bool,
    pub responses: Vec<OpResponse>,
}

impl TxnResponse {
    /// Reads a transaction's answer (nested ones have a header too, without the cluster id).
    pub fn parse(v: &Value) -> Result<TxnResponse, Malformed> {
        let responses = match v.get("responses") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a.iter().map(op_response).collect::<Result<_, _>>()?,
            Some(_) => return Err(Malformed),
        };
        Ok(TxnResponse {
            header: Header::of(v)?,
            succeeded: flag(v, "succeeded")?,
            responses,
        })
    }

    /// The answer of the range at `i` of the branch that ran.
    pub fn range(&self, i: usize) -> Option<&RangeResponse> {
        match self.responses.get(i)? {
            OpResponse::Range(r) => Some(r),
            _ => None,
        }
    }

    /// The first key the range at `i` read.
    pub fn first_kv(&self, i: usize) -> Option<&KeyValue> {
        self.range(i)?.kvs.first()
    }

    /// The answer of the nested transaction at `i`.
    pub fn txn(&self, i: usize) -> Option<&TxnResponse> {
        match self.responses.get(i)? {
            OpResponse::Txn(t) => Some(t),
            _ => None,
        }
    }
}

fn op_response(v: &Value) -> Result<OpResponse, Malformed> {
    let Value::Object(m) = v else {
        return Err(Malformed);
    };
    let mut it = m.iter();
    let (Some((name, body)), None) = (it.next(), it.next()) else {
        return Err(Malformed);
    };
    match name.as_str() {
        "response_range" => RangeResponse::parse(body).map(OpResponse::Range),
        "response_put" => Ok(OpResponse::Put),
        "response_delete_range" => Ok(OpResponse::Delete),
        "response_txn" => TxnResponse::parse(body).map(OpResponse::Txn),
        _ => Err(Malformed),
    }
}

/// A number field of a lease answer (`TTL`, `grantedTTL`, `ID`): 0 when left out.
pub(super) fn lease_field(v: &Value, name: &str) -> Result<i64, Malformed> {
    field(v, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for (raw, text) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (b"/p/a", "L3AvYQ=="),
            (&[0xff, 0xfe, 0x00, 0x3e, 0x3f][..], "//4APj8="),
        ] {
            assert_eq!(base64(raw), text);
            assert_eq!(unbase64(text).as_deref(), Some(raw));
        }
        assert_eq!(unbase64("Zm8").as_deref(), Some(&b"fo"[..]));
        for bad in ["Z", "Zm9v!", "Zg===", "Z=g=", "Zm9vY"] {
            assert_eq!(unbase64(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn prefix_ends() {
        assert_eq!(prefix_end(b"/p/"), b"/p0");
        assert_eq!(prefix_end(b"a\xff"), b"b");
        assert_eq!(prefix_end(b"\xff"), b"\0");
    }

    #[test]
    fn requests_are_the_gateways_json() {
        let t = Txn::new()
            .when(vec![
                Compare::create_revision("/k", CompareOp::Equal, 0),
                Compare::value("/v", CompareOp::Less, "2"),
            ])
            .and_then(vec![
                Op::put_leased("/k", "x", 7),
                Op::range(
                    &Range::prefix("/d/")
                        .sort(Sort::KeyDescending)
                        .limit(1)
                        .keys_only(),
                ),
            ])
            .or_else(vec![Op::txn(&Txn::new().and_then(vec![Op::delete("/k")]))]);
        assert_eq!(
            t.to_json(),
            json!({
                "compare": [
                    {"key": "L2s=", "result": "EQUAL", "target": "CREATE", "create_revision": "0"},
                    {"key": "L3Y=", "result": "LESS", "target": "VALUE", "value": "Mg=="},
                ],
                "success": [
                    {"request_put": {"key": "L2s=", "value": "eA==", "lease": "7"}},
                    {"request_range": {"key": "L2Qv", "range_end": "L2Qw", "limit": "1",
                        "sort_target": "KEY", "sort_order": "DESCEND", "keys_only": true}},
                ],
                "failure": [
                    {"request_txn": {"compare": [], "success": [
                        {"request_delete_range": {"key": "L2s="}}], "failure": []}},
                ],
            })
        );
    }

    #[test]
    fn answers_are_read_with_their_defaults() {
        // As etcd 3.4 answers: zero values left out.
        let a = json!({
            "header": {"cluster_id": "10611672078921687211", "member_id": "9", "revision": "3",
                "raft_term": "9"},
            "responses": [
                {"response_range": {"header": {"revision": "3"}, "kvs": [{"key": "L3AvYQ==",
                    "create_revision": "2", "mod_revision": "3", "version": "2",
                    "value": "djE="}], "count": "1", "more": true}},
                {"response_range": {"header": {"revision": "3"}}},
                {"response_txn": {"header": {}, "succeeded": true}},
                {"response_put": {"header": {"revision": "3"}}},
                {"response_delete_range": {"header": {"revision": "3"}, "deleted": "1"}},
            ]
        });
        let r = TxnResponse::parse(&a).unwrap();
        assert_eq!(
            r.header,
            Some(Header {
                cluster_id: 10_611_672_078_921_687_211,
                revision: 3
            })
        );
        assert!(!r.succeeded);
        let kv = r.first_kv(0).unwrap();
        assert_eq!((&kv.key[..], &kv.value[..]), (&b"/p/a"[..], &b"v1"[..]));
        assert_eq!((kv.create_revision, kv.mod_revision), (2, 3));
        assert!(r.range(0).unwrap().more);
        assert_eq!(r.range(1), Some(&RangeResponse::default()));
        assert!(r.txn(2).unwrap().succeeded);
        assert_eq!(r.responses[3..], [OpResponse::Put, OpResponse::Delete]);
        for bad in [
            json!({"responses": [{"response_range": {"kvs": [{"key": "!!"}]}}]}),
            json!({"responses": [{"response_what": {}}]}),
            json!({"succeeded": "yes"}),
            json!({"header": {"revision": "x"}}),
        ] {
            assert_eq!(TxnResponse::parse(&bad), Err(Malformed), "{bad}");
        }
    }
}
