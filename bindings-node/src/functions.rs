//! The functions that need neither a clock nor OS randomness — `encode`, `parseId`, the
//! sans-IO UUID constructors and conversions, parsing and inspection of UUIDs, TypeIDs and
//! ULIDs — as `#[napi]` functions of the list both packages share (`idmint_js::functions_api!`).

use crate::convert::napi_functions;

idmint_js::functions_api!(napi_functions);
