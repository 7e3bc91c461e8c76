# The two README commands:
#   make demo   install what is missing, build the package, run the Node demo, then (in a
#               terminal) serve the playground; `make serve` serves it alone
#   make test   install what is missing, build, run every test suite
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
LOGS := test-artifacts
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
export CHROMEDRIVER ?= /usr/bin/chromedriver
# Not exported: wasm-bindgen-test-runner takes the first of GECKODRIVER, SAFARIDRIVER and
# CHROMEDRIVER it finds in the environment, so the Chromium run must not see it.
GECKODRIVER ?= $(HOME)/.cargo/bin/geckodriver

WASM := pkg/selfheal_bg.wasm
SOURCES := $(shell find src crates/selfheal-hot/src crates/selfheal-pattern/src vendor -type f) crates/selfheal-hot/Cargo.toml crates/selfheal-pattern/Cargo.toml Cargo.toml Cargo.lock $(shell find js -type f) scripts/build.sh scripts/guard_glue.mjs
# Run by their own targets: they pack pkg/ and drive Chromium and workerd.
NODE_TESTS := $(filter-out tests/js/packaging.test.mjs,$(wildcard tests/js/*.test.mjs))
# The full build's size gate: issue 16's goal, 650 KiB (665,600 bytes). Measured 612,076 bytes
# since round 6 (states read by the JS deserializer, wasm-opt inlining no single-caller
# functions, enums without serde's Content, no Unicode case tables); 720 KB after rounds 4 and 5, 756 KB when the hot paths moved into
# crates/selfheal-hot, 786 KB before. docs/PERFORMANCE.md ("Size") has the history.
MAX_GZIP_BYTES := 665600
# selfheal/lite (pkg/lite/, built without jsonschema): a regression guard at the measured size plus
# a few KB: 268,378 bytes since round 6 (355 KB when lite landed, 387 KB with streaming, 352 KB
# after rounds 4 and 5); issue 16's goal is 250 KB, missed (docs/PERFORMANCE.md, "selfheal/lite":
# the gap is the serde boundary's generic code, not JSON Schema). Back at 280 KiB, where it was
# before 055404a, in the thirteenth session: 273,720 bytes at its start, then each hardening fix
# measured on its own (the allocator -0.5 KB, the tag neutraliser's lookalikes +1 KB, a stream
# kept in RepairLoop snapshots +1.5 KB, repairJson's limit +0.3 KB, the toolkit's and the loop's
# state checks +1.4 KB, the scanner's linear paths +0.9 KB), 278,424 bytes after them.
LITE_WASM := pkg/lite/selfheal_bg.wasm
MAX_LITE_GZIP_BYTES := 286720

.PHONY: demo test setup-demo setup-test build test-native test-browser test-browser-chrome \
	test-browser-firefox test-node test-types \
	test-packaging test-examples test-playground serve size lint clean

PORT ?= 8080

demo: setup-demo $(WASM)
	node examples/demo.mjs
	@if [ -t 0 ] && [ -t 1 ] && [ "$${DEMO_SERVE:-1}" != 0 ]; then \
	  echo; echo "Serving the playground (Ctrl-C to stop):"; node scripts/serve.mjs $(PORT); \
	else echo; echo "The playground: make serve   (then open http://127.0.0.1:$(PORT)/)"; fi

serve: $(WASM)
	node scripts/serve.mjs $(PORT)

test: setup-test $(WASM)
	@rm -rf $(LOGS) && mkdir -p $(LOGS)
	$(MAKE) --no-print-directory test-native test-browser test-node lint test-types test-packaging test-examples test-playground size
	@scripts/summary.sh

setup-demo:
	@scripts/setup.sh demo

setup-test:
	@scripts/setup.sh test

build: $(WASM)

$(WASM): $(SOURCES)
	scripts/build.sh

# The default build's suites, then selfheal/lite's (`--no-default-features --tests`: every suite
# that needs no validator, tests/lite.rs among them; a suite that does says
# `#![cfg(feature = "validate")]`. The doc examples validate: they run in the default build only).
test-native:
	@mkdir -p $(LOGS)
	cargo test 2>&1 | tee $(LOGS)/native.log
	cargo test --no-default-features --tests 2>&1 | tee $(LOGS)/native-lite.log
	cargo test -p selfheal-hot 2>&1 | tee $(LOGS)/native-hot.log

# The wasm-bindgen browser suites in headless Chromium, then in headless Firefox (firefox-esr and
# geckodriver from scripts/setup.sh test). Chromium now and then never finishes loading a test
# page (chromedriver: "Timed out receiving message from renderer", after 5 minutes); that
# failure, and only it, gets one more run.
test-browser: test-browser-chrome test-browser-firefox

test-browser-chrome:
	@mkdir -p $(LOGS)
	env -u GECKODRIVER wasm-pack test --headless --chrome 2>&1 | tee $(LOGS)/browser.log || { \
	  grep -q 'Failed to detect test as having been run' $(LOGS)/browser.log && \
	  echo 'test-browser: a test page never loaded (a Chromium hang): running the browser tests again' && \
	  env -u GECKODRIVER wasm-pack test --headless --chrome 2>&1 | tee $(LOGS)/browser.log; }

# Every suite runs in Firefox too. web_hostile's sparse array of length 2^32-1 once took
# SpiderMonkey ~45 s per JSON.stringify; jsonText (js/snippets/schema_keys.js) now refuses it first.
FIREFOX_SUITES ?= web web_toolkit web_policy web_de web_hostile web_stream
# wasm-bindgen-test-runner stops geckodriver but leaves its Firefox running (one per suite,
# busy on the CPU for as long as it lives): the last line ends those, whatever the result.
test-browser-firefox:
	@mkdir -p $(LOGS)
	status=0; GECKODRIVER=$(GECKODRIVER) WASM_BINDGEN_TEST_WEBDRIVER_JSON=$(CURDIR)/tests/webdriver-firefox.json \
	  wasm-pack test --headless --firefox $(addprefix --test ,$(FIREFOX_SUITES)) 2>&1 \
	  | tee $(LOGS)/browser-firefox.log || status=$$?; \
	pkill -f '[f]irefox-esr.*rust_mozprofile' || true; \
	exit $$status

test-node: $(WASM)
	@mkdir -p $(LOGS)
	node --test $(NODE_TESTS) 2>&1 | tee $(LOGS)/node.log

test-types: $(WASM)
	tsc -p tests/ts --noEmit

# The packed package imported by name from Node ESM and CommonJS, TypeScript, esbuild and Vite
# bundles and a plain <script type="module"> page in headless Chromium, and a workerd worker;
# selfheal/ai, /standard and /otel by name from ESM, CommonJS, strict TypeScript and workerd;
# the module pages in headless Firefox too (tests/packaging/browsers.test.mjs); selfheal/lite by name
# from all of these but Firefox (tests/packaging/lite.test.mjs).
test-packaging: $(WASM)
	@mkdir -p $(LOGS)
	node --test tests/js/packaging.test.mjs tests/packaging/ecosystem.test.mjs tests/packaging/browsers.test.mjs \
	  tests/packaging/lite.test.mjs \
	  2>&1 | tee $(LOGS)/packaging.log

# examples/worker, examples/durable-object and examples/fleet in workerd against the mock LLM on
# 127.0.0.1 (the fleet: three isolates, one coordinator object on disk, a workerd restart);
# examples/worker-stream against a streaming mock model of its own, its NDJSON read by a client.
test-examples: $(WASM)
	@mkdir -p $(LOGS)
	node --test tests/packaging/examples.test.mjs tests/packaging/fleet.test.mjs tests/packaging/worker_stream.test.mjs 2>&1 | tee $(LOGS)/examples.log

# The www/ playground in headless Chromium (Playwright): every panel, no console errors;
# screenshots go to test-artifacts/screenshots/.
test-playground: $(WASM)
	@mkdir -p $(LOGS)
	node --test tests/browser/ 2>&1 | tee $(LOGS)/playground.log

# No unwrap/expect/panic/unchecked indexing in non-test code (Cargo.toml [lints], clippy.toml).
lint:
	cargo fmt --check
	cargo clippy --all-targets --quiet -- -D warnings
	cargo clippy -p selfheal-hot --all-targets --quiet -- -D warnings
	cargo clippy --all-targets --quiet --target wasm32-unknown-unknown -- -D warnings
	cargo clippy --lib --tests --quiet --no-default-features -- -D warnings
	cargo clippy --lib --quiet --no-default-features --target wasm32-unknown-unknown -- -D warnings
	@# The cargo-fuzz targets (run by scripts/fuzz.sh, not here) must keep compiling: they are a
	@# workspace of their own, which once stopped building unnoticed.
	cargo check --quiet --manifest-path fuzz/Cargo.toml --bins --target-dir target/fuzz-check

# The release .wasm after wasm-opt -Oz must stay under MAX_GZIP_BYTES gzip, selfheal/lite's under
# MAX_LITE_GZIP_BYTES.
size: $(WASM)
	@status=0; for gate in "$(WASM) $(MAX_GZIP_BYTES)" "$(LITE_WASM) $(MAX_LITE_GZIP_BYTES)"; do \
	  set -- $$gate; gz=$$(gzip -9 -c $$1 | wc -c); raw=$$(stat -c %s $$1); \
	  echo "size: $$1 $$raw bytes raw, $$gz bytes gzip (limit $$2)"; \
	  test $$gz -le $$2 || { echo "size: $$1 is over its limit"; status=1; }; \
	done; exit $$status

clean:
	rm -rf pkg target
