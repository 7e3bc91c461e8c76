#!/usr/bin/env bash
# The benchmark (docs/PERFORMANCE.md): the release package in pkg/ (scripts/build.sh: release
# build + wasm-opt -Oz) against Ajv, @cfworker/json-schema and jsonrepair, in one Node process,
# then the sizes, cold start in 21 fresh Node processes (bench/startup.cjs) and a Worker's first
# request in fresh workerd processes (bench/workerd-cold.mjs), and every goal met or missed.
#
#   scripts/bench.sh                   print the table
#   scripts/bench.sh --json out.json   also save every figure (compare two builds with
#                                      node bench/compare.mjs old.json new.json)
#   scripts/bench.sh --write           also regenerate the tables in docs/PERFORMANCE.md
#                                      (and the twiggy size breakdown, bench/size.mjs)
#   scripts/bench.sh --quick           a short, noisier smoke run
#
# Builds pkg/ first when it is missing; installs the npm devDependencies when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

if [ ! -d node_modules/ajv ] || [ ! -d node_modules/jsonrepair ] || [ ! -d node_modules/@cfworker/json-schema ]; then
  npm install --no-audit --no-fund 1>&2
fi
if [ ! -f pkg/selfheal.js ] || [ ! -f pkg/selfheal_bg.wasm ]; then
  scripts/build.sh
fi
node bench/run.mjs "$@"
for arg in "$@"; do
  if [ "$arg" = "--write" ]; then
    if command -v twiggy >/dev/null 2>&1 && [ -f target/wasm32-unknown-unknown/release/selfheal.wasm ]; then
      node bench/size.mjs --write >/dev/null
    else
      echo "bench: size breakdown not regenerated (needs twiggy and target/wasm32-unknown-unknown/release/selfheal.wasm)" 1>&2
    fi
  fi
done
# Streaming (issue 13): PartialJson against the AI SDK's parsePartialJson and partial-json.
if [ ! -d node_modules/partial-json ]; then npm install --no-audit --no-fund 1>&2; fi
node bench/stream.mjs "$@"
