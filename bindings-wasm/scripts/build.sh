#!/usr/bin/env bash
# Builds the npm package's entries:
#   full        a release build of the crate (default features)   idmint-web, idmint-web/web: the whole API
#   formats     a release build with --features formats           idmint-web/formats, idmint-web/web/formats
#   snowflake   JavaScript (js/, bundled by esbuild)              idmint-web/snowflake, idmint-web/web/snowflake
# (the cargo features choose the part of the API a build holds, so a page loads only the entry it
# imports; the Snowflake-only entry is a JavaScript port of the core's Snowflake rules, because
# their WebAssembly build alone weighs as much as that page's budget: see js/snowflake.js),
# and each entry in three flavours, under pkg/<flavour>/ (full) or pkg/<flavour>/<entry>/:
#   pkg/web/      --target web      ES module for <script type="module"> and Web Workers (await init())
#   pkg/bundler/  --target bundler  ES module that imports the .wasm (webpack 5, Vite, esbuild, Rollup)
#   pkg/node/     --target nodejs   CommonJS for Node (what the shared JavaScript suite loads)
# each .wasm optimised by binaryen's wasm-opt (npm `binaryen`, pinned in package.json) and its
# imports renamed short (scripts/imports.mjs), the web flavour minified (esbuild), and the
# TypeScript declarations, generated from bindings-js/idmint.d.ts: index.d.ts (bundler and node
# flavours) and web.d.ts (web flavour) for the full entry, <entry>.d.ts and web-<entry>.d.ts for
# the others.
#
#   bash scripts/build.sh           build, then write the .d.ts files
#   bash scripts/build.sh --check   build, then fail if the committed .d.ts files are stale
#
# Needs: Debian's rustc-web (+ rust-web-src), wasm-bindgen-cli of the pinned version, npm ci.
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
[ "${1:-}" = "--check" ] && check=1

out=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release

# The features rustc enables for wasm32-unknown-unknown less the two .cargo/config.toml turns off
# (reference types, multi-value); no others, so the optimiser emits nothing a browser of the same
# generation cannot run. `--low-memory-unused`: the linker puts nothing below address 1024
# (its global base), so the optimiser may fold small constant offsets into addresses.
features=(--enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int
  --enable-sign-ext)

rm -rf pkg/web pkg/bundler pkg/node
# entry:cargo features (the full entry last: the release artifact is then the default build's).
pairs=()
for spec in "formats:--no-default-features --features formats" "full:"; do
  entry=${spec%%:*} cargo_features=${spec#*:}
  # shellcheck disable=SC2086 # the features are separate words
  RUSTC_BOOTSTRAP=1 cargo build --release --locked --quiet $cargo_features
  mkdir -p "$out/entries"
  wasm=$out/entries/$entry.wasm
  cp "$out/idmint_wasm.wasm" "$wasm"
  for target in web bundler nodejs; do
    dir=pkg/${target/nodejs/node}
    [ "$entry" = full ] || dir=$dir/$entry
    wasm-bindgen --target "$target" --out-name idmint --out-dir "$dir" "$wasm"
    node_modules/.bin/wasm-opt -Oz --converge "${features[@]}" --low-memory-unused --strip-debug --strip-producers \
      --strip-target-features "$dir/idmint_bg.wasm" -o "$dir/idmint_bg.wasm"
    # The declarations come from bindings-js/idmint.d.ts (one source for both packages); wasm-bindgen's
    # own only show that they name what the module exports (and give the web flavour's loader).
    node ../bindings-js/dts.mjs names web "$dir/idmint.d.ts" "$entry"
    if [ "$target" = web ]; then flavour=web; else flavour=wasm; fi
    node ../bindings-js/dts.mjs "$flavour" "$dir/idmint.d.ts" "$entry"
    glue=$dir/idmint.js
    [ -f "$dir/idmint_bg.js" ] && glue=$dir/idmint_bg.js
    node scripts/glue.mjs "$glue" "$entry"
    node scripts/imports.mjs "$dir/idmint_bg.wasm"
    if [ "$target" = web ]; then
      # Pages load the web flavour as it is (bundlers minify the bundler flavour themselves):
      # minified by esbuild (pinned in package.json), names kept (error messages name classes).
      node_modules/.bin/esbuild "$dir/idmint.js" --minify --keep-names --format=esm --log-level=warning \
        --outfile="$dir/idmint.min.js"
      mv "$dir/idmint.min.js" "$dir/idmint.js"
    fi
  done
  node_dts=pkg/node/idmint.d.ts web_dts=pkg/web/idmint.d.ts
  [ "$entry" = full ] || node_dts=pkg/node/$entry/idmint.d.ts web_dts=pkg/web/$entry/idmint.d.ts
  cmp -s "$node_dts" "${node_dts/node/bundler}" || {
    echo "build: the node and bundler declarations of $entry differ; one .d.ts cannot describe both" >&2
    exit 1
  }
  if [ "$entry" = full ]; then
    pairs+=("$node_dts:index.d.ts" "$web_dts:web.d.ts")
  else
    pairs+=("$node_dts:$entry.d.ts" "$web_dts:web-$entry.d.ts")
  fi
done
# wasm-bindgen's nodejs flavour is CommonJS; the package itself is "type": "module".
printf '{\n  "type": "commonjs"\n}\n' > pkg/node/package.json

# The Snowflake-only entry: js/ bundled by esbuild (pinned in package.json) into one module per
# flavour, the package version written in, class names kept (`Snowflake.name`, as the other
# entries'). The web flavour (js/web.js) adds the loader every web entry has, and is minified.
version=$(node -p 'require("./package.json").version')
for target in web bundler nodejs; do
  dir=pkg/${target/nodejs/node}/snowflake
  mkdir -p "$dir"
  source=js/snowflake.js format=(--format=esm) minify=()
  [ "$target" = web ] && source=js/web.js minify=(--minify)
  # Node's ES modules see a CommonJS module's named exports through the annotation esbuild
  # writes for --platform=node (`import { Snowflake } from 'idmint-web/snowflake'`).
  [ "$target" = nodejs ] && format=(--format=cjs --platform=node)
  node_modules/.bin/esbuild "$source" --bundle "${format[@]}" --target=es2022 --keep-names "${minify[@]}" --log-level=warning \
    --define:IDMINT_VERSION="'$version'" --outfile="$dir/idmint.js"
  if [ "$target" = web ]; then
    node ../bindings-js/dts.mjs webjs "$dir/idmint.d.ts" snowflake
  else
    node ../bindings-js/dts.mjs wasm "$dir/idmint.d.ts" snowflake
  fi
  # The declarations must name what the module exports: the classes' members as written.
  node ../bindings-js/dts.mjs names web "$dir/idmint.js" snowflake
done
cmp -s pkg/node/snowflake/idmint.d.ts pkg/bundler/snowflake/idmint.d.ts || {
  echo "build: the node and bundler declarations of snowflake differ; one .d.ts cannot describe both" >&2
  exit 1
}
pairs+=("pkg/node/snowflake/idmint.d.ts:snowflake.d.ts" "pkg/web/snowflake/idmint.d.ts:web-snowflake.d.ts")

status=0
for pair in "${pairs[@]}"; do
  generated=${pair%%:*} committed=${pair##*:}
  if [ $check = 1 ]; then
    if ! cmp -s "$generated" "$committed"; then
      echo "build: $committed is stale (regenerate with: bash bindings-wasm/scripts/build.sh)" >&2
      diff -u "$committed" "$generated" | head -n 40 >&2 || true
      status=1
    fi
  else
    cp "$generated" "$committed"
  fi
done
exit $status
