//! Writes `include/idmint.h` (or the path given as the only argument) from this crate's
//! source with cbindgen, adding version macros from the crate's version (the workspace's).
//!
//! `bash bindings-c/gen-header.sh` runs it; `bindings-c/test.sh` runs it into a temporary file
//! and fails if the committed header differs.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::args_os()
        .nth(1)
        .map_or_else(|| dir.join("../include/idmint.h"), PathBuf::from);
    let mut config = match cbindgen::Config::from_file(dir.join("cbindgen.toml")) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("gen-header: cbindgen.toml: {e}");
            return ExitCode::FAILURE;
        }
    };
    config.after_includes = Some(format!(
        "\n/** Major version of the idmint C API this header declares. */\n\
         #define IDMINT_VERSION_MAJOR {}\n\
         /** Minor version. */\n\
         #define IDMINT_VERSION_MINOR {}\n\
         /** Patch version. */\n\
         #define IDMINT_VERSION_PATCH {}\n\
         /** The version as a string; idmint_version() returns the library's. */\n\
         #define IDMINT_VERSION \"{}\"",
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
        env!("CARGO_PKG_VERSION"),
    ));
    let bindings = match cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
    {
        Ok(b) => b,
        Err(e) => {
            eprintln!("gen-header: {e}");
            return ExitCode::FAILURE;
        }
    };
    bindings.write_to_file(&out);
    println!("gen-header: wrote {}", out.display());
    ExitCode::SUCCESS
}
