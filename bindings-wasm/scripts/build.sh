#!/usr/bin/env bash
# Builds the npm package's entries, each in three flavours:
#   full        JavaScript (js/full.js)        idmint-web, idmint-web/web: the whole API
#   formats     JavaScript (js/formats.js)     idmint-web/formats, idmint-web/web/formats
#   snowflake   JavaScript (js/snowflake.js)   idmint-web/snowflake, idmint-web/web/snowflake
#   wasm        the crate's release build      idmint-web/wasm, idmint-web/web/wasm: the whole API
#               (WebAssembly)                  as the core itself, which the JavaScript is tested against
# (why the entries are a JavaScript port of the core's rules: js/full.js), in pkg/<flavour>/
# (full) or pkg/<flavour>/<entry>/:
#   pkg/web/      ES module for <script type="module"> and Web Workers (`await init()`), minified
#   pkg/bundler/  ES module (webpack 5, Vite, esbuild, Rollup; the wasm entry imports its .wasm)
#   pkg/node/     CommonJS for Node (what the shared JavaScript suite loads)
# The JavaScript entries are bundled by esbuild (pinned in package.json). The .wasm is
# optimised by binaryen's wasm-opt (npm `binaryen`, pinned) and its imports renamed short
# (scripts/imports.mjs), its glue completed by scripts/glue.mjs. The TypeScript declarations are
# generated from bindings-js/idmint.d.ts: index.d.ts and web.d.ts (full; the wasm entry's are the
# same but for the web loader: web-wasm.d.ts), <entry>.d.ts and web-<entry>.d.ts for the others.
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
pairs=()
RUSTC_BOOTSTRAP=1 cargo build --release --locked --quiet
for target in web bundler nodejs; do
  dir=pkg/${target/nodejs/node}/wasm
  wasm-bindgen --target "$target" --out-name idmint --out-dir "$dir" "$out/idmint_wasm.wasm"
  node_modules/.bin/wasm-opt -Oz --converge "${features[@]}" --low-memory-unused --strip-debug --strip-producers \
    --strip-target-features "$dir/idmint_bg.wasm" -o "$dir/idmint_bg.wasm"
  # The declarations come from bindings-js/idmint.d.ts (one source for both packages); wasm-bindgen's
  # own only show that they name what the module exports (and give the web flavour's loader).
  node ../bindings-js/dts.mjs names web "$dir/idmint.d.ts"
  if [ "$target" = web ]; then flavour=web; else flavour=wasm; fi
  node ../bindings-js/dts.mjs "$flavour" "$dir/idmint.d.ts"
  glue=$dir/idmint.js
  [ -f "$dir/idmint_bg.js" ] && glue=$dir/idmint_bg.js
  node scripts/glue.mjs "$glue"
  node scripts/imports.mjs "$dir/idmint_bg.wasm"
  if [ "$target" = web ]; then
    # Pages load the web flavour as it is (bundlers minify the bundler flavour themselves):
    # minified by esbuild, names kept (error messages name classes).
    node_modules/.bin/esbuild "$dir/idmint.js" --minify --keep-names --format=esm --log-level=warning \
      --outfile="$dir/idmint.min.js"
    mv "$dir/idmint.min.js" "$dir/idmint.js"
  fi
done
cmp -s pkg/node/wasm/idmint.d.ts pkg/bundler/wasm/idmint.d.ts || {
  echo "build: the node and bundler declarations of the wasm entry differ; one .d.ts cannot describe both" >&2
  exit 1
}
# The wasm entry declares the API of the full one (index.d.ts) and its own web loader.
pairs+=("pkg/node/wasm/idmint.d.ts:index.d.ts" "pkg/web/wasm/idmint.d.ts:web-wasm.d.ts")
# wasm-bindgen's nodejs flavour is CommonJS; the package itself is "type": "module".
printf '{\n  "type": "commonjs"\n}\n' > pkg/node/package.json

# The JavaScript entries: js/<entry>.js bundled by esbuild into one module per flavour, the
# package version written in, class names kept (`Snowflake.name`, as in messages). The web
# flavour (js/web-<entry>.js) adds the loader every web entry has, and is minified. ES2022, as
# the README states the floor (Chrome/Edge 94, Firefox 93, Safari 16.4: the class static blocks
# --keep-names writes): below it esbuild lowers whole classes, private fields into WeakMap
# lookups, and `nextId()` takes twice as long.
browsers=--target=es2022
version=$(node -p 'require("./package.json").version')
for entry in full formats snowflake; do
  for target in web bundler nodejs; do
    dir=pkg/${target/nodejs/node}
    [ "$entry" = full ] || dir=$dir/$entry
    mkdir -p "$dir"
    source=js/$entry.js format=(--format=esm "$browsers") minify=()
    [ "$target" = web ] && source=js/web-$entry.js minify=(--minify)
    # Node's ES modules see a CommonJS module's named exports through the annotation esbuild
    # writes for --platform=node (`import { Snowflake } from 'idmint-web/snowflake'`).
    [ "$target" = nodejs ] && format=(--format=cjs --platform=node --target=node20)
    node_modules/.bin/esbuild "$source" --bundle "${format[@]}" --keep-names "${minify[@]}" --log-level=warning \
      --define:IDMINT_VERSION="'$version'" --outfile="$dir/idmint.js"
    if [ "$target" = web ]; then
      node ../bindings-js/dts.mjs webjs "$dir/idmint.d.ts" "$entry"
    else
      node ../bindings-js/dts.mjs wasm "$dir/idmint.d.ts" "$entry"
    fi
    # The declarations must name what the module exports: the classes' members as written.
    node ../bindings-js/dts.mjs names web "$dir/idmint.js" "$entry"
  done
  node_dts=pkg/node/idmint.d.ts web_dts=pkg/web/idmint.d.ts
  [ "$entry" = full ] || node_dts=pkg/node/$entry/idmint.d.ts web_dts=pkg/web/$entry/idmint.d.ts
  cmp -s "$node_dts" "${node_dts/node/bundler}" || {
    echo "build: the node and bundler declarations of $entry differ; one .d.ts cannot describe both" >&2
    exit 1
  }
  if [ "$entry" = full ]; then
    # The same API as the wasm entry's (index.d.ts, above).
    cmp -s "$node_dts" pkg/node/wasm/idmint.d.ts || {
      echo "build: the full entry's declarations differ from the wasm entry's; index.d.ts describes both" >&2
      exit 1
    }
    pairs+=("$web_dts:web.d.ts")
  else
    pairs+=("$node_dts:$entry.d.ts" "$web_dts:web-$entry.d.ts")
  fi
done

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
