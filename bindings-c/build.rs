//! Gives libidmint.so its soname: `libidmint.so.MAJOR`, or `libidmint.so.0.MINOR` before 1.0
//! (where a minor release may change the ABI), so programs linked against one release keep
//! loading a compatible one and refuse an incompatible one. Built with the `stores` feature it
//! is `libidmint-stores.so.…`, the name that library is installed under.

fn main() {
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_default();
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR").unwrap_or_default();
    let abi = if major == "0" {
        format!("0.{minor}")
    } else {
        major
    };
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        // With every store the library is installed as libidmint-stores (bindings-c/install.sh).
        let name = if std::env::var_os("CARGO_FEATURE_STORES").is_some() {
            "libidmint-stores"
        } else {
            "libidmint"
        };
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{name}.so.{abi}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
