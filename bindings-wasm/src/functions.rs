//! The functions that need neither a clock nor OS randomness — `encode`, `parseId`, the
//! sans-IO UUID constructors and conversions, parsing and inspection of UUIDs, TypeIDs and
//! ULIDs — as `#[wasm_bindgen]` functions of the lists both packages share
//! (`idmint_js::codec_functions_api!`, `idmint_js::format_functions_api!`).

use crate::convert::wasm_functions;

idmint_js::codec_functions_api!(wasm_functions);
idmint_js::format_functions_api!(wasm_functions);
