#!/usr/bin/env bash
# Build the npm package into pkg/ (one package, every runtime; see README "Install and build"):
#
#   pkg/selfheal.js, selfheal.d.ts, selfheal_bg.wasm     wasm-bindgen --target nodejs (CommonJS,
#                                                        self-initialising)
#   pkg/web/selfheal.js, selfheal.d.ts, selfheal_bg.wasm wasm-bindgen --target web (ESM, init() /
#                                                        initSync())
#   pkg/heal.mjs, heal.d.mts, heal.cjs                   js/package/heal.mts compiled by tsc
#   pkg/index.cjs, web/index.js, workerd.js (+ .d.ts)    the entries: each glue's exports plus `heal`
#                                                        bound to its RepairLoop; "node", "browser" /
#                                                        "default" and "workerd" (workerd.js imports
#                                                        the .wasm as a module and calls initSync)
#   pkg/ai.*, standard.*, otel.*                         selfheal/ai, /standard, /otel
#   pkg/package.json                                     js/package/package.template.json + Cargo.toml
#   pkg/lite/...                                         selfheal/lite: the same layout (glues, .wasm,
#                                                        entries with heal) built without the
#                                                        `validate` feature (no jsonschema)
#
# Sources: js/snippets/ are the wasm layer's private JS (wasm-bindgen copies them into
# snippets/); js/package/ holds the public entries and js/package/build-ecosystem.mjs, which
# writes every entry but the glues.
#
# Two cargo builds (the full one, then selfheal/lite: `--profile lite --no-default-features`,
# Cargo.toml [profile.lite]), wasm-bindgen twice each, wasm-opt -Oz from npm's binaryen (wasm-pack
# cannot download binaryen here, and Debian's is too old for current Rust output). The package is
# assembled in a staging folder and swapped in at the end, so a failed build leaves the previous
# pkg/ in place.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

cargo build --release --lib --target wasm32-unknown-unknown 1>&2
raw_wasm=target/wasm32-unknown-unknown/release/selfheal.wasm
cargo build --profile lite --no-default-features --lib --target wasm32-unknown-unknown 1>&2
raw_lite=target/wasm32-unknown-unknown/lite/selfheal.wasm

stage=$(mktemp -d target/pkg.XXXXXX)  # target/ is ignored by git and on the same disk as pkg/
trap 'rm -rf "$stage"' EXIT

# -Oz with the features Rust's wasm32-unknown-unknown target emits by default. Functions with one
# caller are not inlined (binaryen inlines them all by default): a few KB more raw, but 50 KB less
# gzip on the full build and 34 KB on lite, at the same speed (docs/PERFORMANCE.md, "Round 6").
optimize() {
  wasm-opt -Oz --one-caller-inline-max-function-size 0 \
    --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
    --enable-nontrapping-float-to-int --enable-multivalue --enable-reference-types \
    "$1" -o "$1.opt"
  mv "$1.opt" "$1"
}

# glue <raw .wasm> <folder>: the nodejs glue in <folder>, the web glue in <folder>/web, each
# with its snippets, guarded, and the .wasm optimised.
glue() {
  local raw_wasm=$1 out=$2
  wasm-bindgen --target nodejs --out-dir "$out" --out-name selfheal "$raw_wasm"
  wasm-bindgen --target web --out-dir "$out/web" --out-name selfheal "$raw_wasm"
  # The raw-export declarations are only for wasm-bindgen's bundler target; nothing here uses them.
  rm -f "$out/selfheal_bg.wasm.d.ts" "$out/web/selfheal_bg.wasm.d.ts"
  # JS snippets (js/snippets/*.js) are ES modules; the nodejs glue require()s them, which only newer
  # Node versions do for ESM. Rewrite them to CommonJS there: `export function f` -> `function f`
  # plus `module.exports.f = f` (the only export form the snippets use).
  find "$out/snippets" -name '*.js' -print0 2>/dev/null | while IFS= read -r -d '' snippet; do
    node -e '
      const fs = require("fs");
      const file = process.argv[1];
      const src = fs.readFileSync(file, "utf8");
      const names = [...src.matchAll(/^export function (\w+)/gm)].map((m) => m[1]);
      if (/^\s*(import|export)\b(?! function)/m.test(src)) {
        console.error(`build: ${file}: only "export function" is supported in snippets`);
        process.exit(1);
      }
      const cjs = src.replace(/^export function /gm, "function ");
      fs.writeFileSync(file, `"use strict";\n${cjs}\n${names.map((n) => `module.exports.${n} = ${n};`).join("\n")}\n`);
    ' "$snippet"
  done

  # The trap seat belt (js/snippets/trap_guard.js): both glues call the exports through __selfhealGuard, so a
  # trap makes every later call throw one clear Error instead of `unreachable` forever. The one
  # change made to wasm-bindgen's output (scripts/guard_glue.mjs); the build fails if wasm-bindgen
  # ever writes the line it changes differently.
  node scripts/guard_glue.mjs "$out/selfheal.js" nodejs
  node scripts/guard_glue.mjs "$out/web/selfheal.js" web

  # Both glues import the same module names today, so the two .wasm files are byte-identical:
  # optimise once and copy. Should a wasm-bindgen version make them differ, optimise each.
  if cmp -s "$out/selfheal_bg.wasm" "$out/web/selfheal_bg.wasm"; then
    optimize "$out/selfheal_bg.wasm"
    cp "$out/selfheal_bg.wasm" "$out/web/selfheal_bg.wasm"
  else
    optimize "$out/selfheal_bg.wasm" & node_job=$!
    optimize "$out/web/selfheal_bg.wasm"
    wait "$node_job"
  fi
}

glue "$raw_wasm" "$stage"
glue "$raw_lite" "$stage/lite"

# heal and its modules (js/package/*.mts): compiled beside the glue declarations and the JS
# modules (standard.mjs, otel.mjs, sleep.mjs) they import (tsc maps .mts to .mjs and .d.mts).
ts_sources=$(cd js/package && ls *.mts | grep -v '\.d\.mts$')
for f in $ts_sources standard.mjs standard.d.mts otel.mjs otel.d.mts sleep.mjs sleep.d.mts; do cp "js/package/$f" "$stage/$f"; done
(cd "$stage" && tsc --target ES2022 --module NodeNext --moduleResolution NodeNext --declaration --strict \
  --skipLibCheck --lib ES2022,DOM --removeComments false --outDir . $ts_sources && rm $ts_sources)
cp js/package/web.package.json "$stage/web/package.json"
cp js/package/web.package.json "$stage/lite/web/package.json"
node js/package/build-ecosystem.mjs "$stage"   # the entries with heal; selfheal/lite, /ai, /standard, /otel
cp README.md "$stage/README.md"
# package.json: the template's layout and exports, the crate's name, version and metadata.
cargo metadata --no-deps --offline --format-version 1 | node -e '
  const fs = require("fs");
  const crate = JSON.parse(fs.readFileSync(0, "utf8")).packages.find((p) => p.name === "selfheal");
  const pkg = JSON.parse(fs.readFileSync("js/package/package.template.json", "utf8"));
  Object.assign(pkg, {
    name: crate.name, version: crate.version, description: crate.description,
    license: crate.license, repository: { type: "git", url: crate.repository }, keywords: crate.keywords,
  });
  fs.writeFileSync(process.argv[1], JSON.stringify(pkg, null, 2) + "\n");
' "$stage/package.json"

rm -rf pkg
mv "$stage" pkg
chmod 755 pkg
trap - EXIT

for wasm in pkg/selfheal_bg.wasm pkg/web/selfheal_bg.wasm pkg/lite/selfheal_bg.wasm; do
  raw=$(stat -c %s "$wasm")
  gz=$(gzip -9 -c "$wasm" | wc -c)
  echo "built $wasm: $raw bytes raw, $gz bytes gzip" 1>&2
done
