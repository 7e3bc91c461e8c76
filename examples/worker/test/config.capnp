# Test configuration: the example Worker as built by the test (dist/), a tester service whose
# test() handler calls it, and an outbound network that reaches only the loopback address where
# the test's mock LLM listens. Run by tests/packaging/examples.test.mjs via `workerd test`.
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
  ],
  globalOutbound = "loopback",
);

const tester :Workerd.Worker = (
  modules = [ (name = "tester.js", esModule = embed "tester.js") ],
  compatibilityDate = "2025-09-01",
  bindings = [ (name = "APP", service = "main") ],
  globalOutbound = "loopback",
);
