//! Text forms of IDs: `encode(id, codec)` and `decodeString(text, codec?)`.

use idmint::codec::{decode_any, Codec};
use wasm_bindgen::prelude::*;

use crate::convert::{opt_string_arg, string_arg, u64_arg};
use crate::errors::OrThrow;

/// Encodes an ID as text: `decimal` (default), `hex`, or the fixed-width sortable `base32`
/// (13 Crockford characters) and `base62` (11 characters), whose text order equals numeric
/// order. Unknown codec names throw `ERR_INVALID_CONFIG`.
#[wasm_bindgen]
pub fn encode(
    #[wasm_bindgen(unchecked_param_type = "bigint | number")] id: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "'decimal' | 'dec' | 'hex' | 'base32' | 'base62' | string"
    )]
    codec: JsValue,
) -> Result<String, JsValue> {
    let id = u64_arg(&id, "id")?;
    let codec = match opt_string_arg(&codec, "codec")? {
        Some(name) => Codec::parse(&name).or_throw()?,
        None => Codec::Decimal,
    };
    Ok(codec.format(id).as_str().to_owned())
}

/// Decodes text produced by `encode`. Without a codec (or with `"auto"`) the codec is guessed
/// from the text's shape: all digits → decimal, `0x` → hex, 13 characters → base32,
/// 11 → base62. Malformed text throws `ERR_INVALID_ENCODING` with `codec`, `at` (character
/// index) and `reason`.
#[wasm_bindgen(js_name = decodeString)]
pub fn decode_string(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "'decimal' | 'dec' | 'hex' | 'base32' | 'base62' | 'auto' | string"
    )]
    codec: JsValue,
) -> Result<u64, JsValue> {
    let text = string_arg(&text, "text")?;
    match opt_string_arg(&codec, "codec")?.as_deref() {
        None | Some("auto") => decode_any(&text).or_throw(),
        Some(name) => Codec::parse(name).or_throw()?.decode(&text).or_throw(),
    }
}
