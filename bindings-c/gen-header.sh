#!/usr/bin/env bash
# Regenerates include/idmint.h from bindings-c/src with cbindgen (the `cbindgen` crate, pinned in
# the workspace, behind this crate's `gen-header` feature; never part of the library).
#   bash bindings-c/gen-header.sh            # rewrite include/idmint.h
#   bash bindings-c/gen-header.sh OUT.h      # write elsewhere (the staleness check uses this)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-include/idmint.h}
case $out in /*) ;; *) out=$PWD/$out ;; esac
cargo run --locked -q -p idmint-c --features gen-header --bin idmint-gen-header -- "$out"
