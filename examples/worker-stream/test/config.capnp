# Test configuration: the example Worker as built by the test (dist/), a tester service whose
# test() handler calls it and reads its NDJSON, and an outbound network that reaches only the
# loopback address where the test's mock model listens. Run by tests/packaging/worker_stream.test.mjs
# via `workerd test`.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "tester", worker = .tester),
    (name = "loopback", network = (allow = ["127.0.0.1/32"])),
  ],
);

const worker :Workerd.Worker = (
  modules = [
    (name = "index.js", esModule = embed "dist/index.js"),
    (name = "selfheal_bg.wasm", wasm = embed "dist/selfheal_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
  bindings = [
    (name = "LLM_URL", fromEnvironment = "LLM_URL"),
    (name = "LLM_API_KEY", text = "test-key"),
    # Every partial value is sent, so the test sees each one (the default throttles to 50 ms).
    (name = "PARTIAL_INTERVAL_MS", text = "0"),
  ],
  globalOutbound = "loopback",
);

const tester :Workerd.Worker = (
  modules = [ (name = "tester.js", esModule = embed "tester.js") ],
  compatibilityDate = "2025-09-01",
  bindings = [ (name = "APP", service = "main") ],
  globalOutbound = "loopback",
);
