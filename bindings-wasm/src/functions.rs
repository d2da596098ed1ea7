//! The functions that need neither a clock nor OS randomness — `encode`, `decodeString`, the
//! sans-IO UUID constructors and conversions, parsing and inspection of UUIDs, TypeIDs and
//! ULIDs — as `#[wasm_bindgen]` functions of the list both packages share
//! (`idmint_js::functions_api!`).

use crate::convert::wasm_functions;

idmint_js::functions_api!(wasm_functions);
