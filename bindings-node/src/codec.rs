//! Text forms of IDs: `encode(id, codec)` and `decodeString(text, codec?)`.

use idmint::codec::{decode_any, Codec};
use napi::bindgen_prelude::Unknown;
use napi::Env;
use napi_derive::napi;

use crate::convert::{opt_string_arg, string_arg, u64_arg};
use crate::errors::OrThrow;

/// Encodes an ID as text: `decimal` (default), `hex`, or the fixed-width sortable `base32`
/// (13 Crockford characters) and `base62` (11 characters), whose text order equals numeric
/// order. Unknown codec names throw `ERR_INVALID_CONFIG`.
#[napi(catch_unwind)]
pub fn encode(
    env: &Env,
    #[napi(ts_arg_type = "bigint | number")] id: Unknown<'_>,
    #[napi(ts_arg_type = "'decimal' | 'dec' | 'hex' | 'base32' | 'base62' | string")] codec: Option<
        Unknown<'_>,
    >,
) -> napi::Result<String> {
    let id = u64_arg(env, &id, "id")?;
    let codec = match opt_string_arg(env, codec.as_ref(), "codec")? {
        Some(name) => Codec::parse(&name).or_throw(env)?,
        None => Codec::Decimal,
    };
    Ok(codec.format(id).as_str().to_owned())
}

/// Decodes text produced by `encode`. Without a codec (or with `"auto"`) the codec is guessed
/// from the text's shape: all digits → decimal, `0x` → hex, 13 characters → base32,
/// 11 → base62. Malformed text throws `ERR_INVALID_ENCODING` with `codec`, `at` (character
/// index) and `reason`.
#[napi(catch_unwind)]
pub fn decode_string(
    env: &Env,
    #[napi(ts_arg_type = "string")] text: Unknown<'_>,
    #[napi(ts_arg_type = "'decimal' | 'dec' | 'hex' | 'base32' | 'base62' | 'auto' | string")]
    codec: Option<Unknown<'_>>,
) -> napi::Result<u64> {
    let text = string_arg(env, &text, "text")?;
    match opt_string_arg(env, codec.as_ref(), "codec")?.as_deref() {
        None | Some("auto") => decode_any(&text).or_throw(env),
        Some(name) => Codec::parse(name)
            .or_throw(env)?
            .decode(&text)
            .or_throw(env),
    }
}
