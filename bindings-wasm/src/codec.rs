//! Text forms of IDs: `encode(id, codec?)` and `decodeString(text, codec?)`.

use idmint_js::values;
use wasm_bindgen::prelude::*;

use crate::convert::Web;

#[wasm_bindgen]
pub fn encode(id: JsValue, codec: JsValue) -> Result<String, JsValue> {
    values::encode(&Web, &id, Some(&codec))
}

#[wasm_bindgen(js_name = decodeString)]
pub fn decode_string(text: JsValue, codec: JsValue) -> Result<u64, JsValue> {
    values::decode_string(&Web, &text, Some(&codec))
}
