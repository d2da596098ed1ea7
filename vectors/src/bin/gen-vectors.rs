//! Writes idmint's shared test vectors (`*.json`) into the `vectors/` directory.
//!
//! Run `cargo run -p idmint-vectors --bin gen-vectors` after any change to the core that changes
//! an output; `cargo test -p idmint-vectors` fails until the committed files match.

use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = idmint_vectors::dir();
    for (name, value) in idmint_vectors::generate() {
        let path = dir.join(name);
        let text = idmint_vectors::render(&value);
        let unchanged = std::fs::read_to_string(&path).is_ok_and(|old| old == text);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("gen-vectors: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        let state = if unchanged { "unchanged" } else { "written" };
        println!("{state:>9} {}", path.display());
    }
    ExitCode::SUCCESS
}
