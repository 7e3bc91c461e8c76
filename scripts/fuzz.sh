#!/usr/bin/env bash
# Run every cargo-fuzz target (fuzz/fuzz_targets/) for a while: scripts/fuzz.sh [seconds] [target...]
#
#   scripts/fuzz.sh              60 seconds per target, all targets, one after another
#   scripts/fuzz.sh 600 classify ten minutes of one target
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`). cargo-fuzz passes nightly-only flags
# (-Zsanitizer=address); on a stable toolchain RUSTC_BOOTSTRAP=1 allows them, as done here.
# The committed seeds in fuzz/corpus/<target>/ are only read; what libFuzzer finds goes to
# fuzz/work/<target>/ (ignored by git), crashes to fuzz/artifacts/<target>/. Not run by CI (`make
# test`): the property tests in tests/reliability.rs check the same invariants there.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export RUSTC_BOOTSTRAP=1

seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "cargo-fuzz is not installed: cargo install cargo-fuzz --locked" >&2
  exit 1
fi

cargo fuzz build 1>&2
for t in "${targets[@]}"; do
  mkdir -p "fuzz/work/$t" "fuzz/corpus/$t"
  echo "== $t: $seconds s" >&2
  # -timeout: an input that takes 10 s is a failure (all work here is linear or bounded).
  cargo fuzz run "$t" "fuzz/work/$t" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
done
echo "fuzz: ${targets[*]} ran ${seconds}s each without a failure" >&2
