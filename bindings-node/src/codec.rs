//! Text forms of IDs: `encode(id, codec?)` and `decodeString(text, codec?)`.

use idmint_js::values;
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue};
use napi_derive::napi;

use crate::convert::Js;

#[napi(catch_unwind)]
pub fn encode(env: &Env, id: Unknown<'_>, codec: Option<Unknown<'_>>) -> napi::Result<String> {
    values::encode(&Js(env), &id.raw(), codec.map(|c| c.raw()).as_ref())
}

#[napi(catch_unwind)]
pub fn decode_string(
    env: &Env,
    text: Unknown<'_>,
    codec: Option<Unknown<'_>>,
) -> napi::Result<u64> {
    values::decode_string(&Js(env), &text.raw(), codec.map(|c| c.raw()).as_ref())
}
