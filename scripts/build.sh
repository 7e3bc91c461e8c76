#!/usr/bin/env bash
# Build the npm package into pkg/: wasm-pack (release), then wasm-opt -Oz from npm's binaryen
# (wasm-pack cannot download binaryen here, and Debian's is too old for current Rust output).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

wasm-pack build --release --target nodejs --out-dir pkg --out-name selfheal 1>&2
wasm="pkg/selfheal_bg.wasm"
# The features Rust's wasm32-unknown-unknown target emits by default.
wasm-opt -Oz \
  --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
  --enable-nontrapping-float-to-int --enable-multivalue --enable-reference-types \
  "$wasm" -o "$wasm.opt"
mv "$wasm.opt" "$wasm"
raw=$(stat -c %s "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
echo "built $wasm: $raw bytes raw, $gz bytes gzip" 1>&2
