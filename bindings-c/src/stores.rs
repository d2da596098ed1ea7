//! Which of the two libraries this is: `libidmint-stores` (built with the `stores` feature: every
//! store of the coordination crate) or `libidmint` (the file lease store and the memory segment
//! store). The light one tells the coordination crate's scheme registry what to link instead, so
//! a store URL it lacks fails with `IDMINT_INVALID_CONFIG` whose message names the library.

/// Called by the constructors that open a store URL, before they open it.
pub(crate) fn name_the_full_library() {
    #[cfg(not(feature = "stores"))]
    idmint_coord::scheme::set_install_hint(
        "link libidmint-stores instead of libidmint (pkg-config idmint-stores, CMake idmint::idmint_stores)",
    );
}
