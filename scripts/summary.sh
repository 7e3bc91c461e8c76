#!/usr/bin/env bash
# Tally the test logs of `make test` into one closing line: "tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
passed=0; failed=0
for log in test-artifacts/*.log; do
  [ -f "$log" ] || continue
  # cargo test and wasm-bindgen-test-runner: "test result: ok. 12 passed; 0 failed; ..."
  while read -r p f; do passed=$((passed + p)); failed=$((failed + f)); done < <(
    sed -n 's/.*test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' "$log")
  # node --test: "# pass 12" / "# fail 0"
  p=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$log" | tail -1); f=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$log" | tail -1)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
done
echo "tests: $passed passed, $failed failed"
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ]
