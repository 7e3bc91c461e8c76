# Test configuration: the Durable Object example as built by the test (dist/), in-memory object
# storage (alarms included), a tester service whose test() handler drives the HTTP API, and an
# outbound network that reaches only the loopback address where the test's mock LLM listens.
# Run by tests/packaging/examples.test.mjs via `workerd test`.
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
    (name = "CALLS", durableObjectNamespace = "HealingCall"),
    (name = "LLM_URL", fromEnvironment = "LLM_URL"),
    (name = "LLM_API_KEY", text = "test-key"),
  ],
  durableObjectNamespaces = [ (className = "HealingCall", uniqueKey = "selfheal-example-healing-call", enableSql = true) ],
  durableObjectStorage = (inMemory = void),
  globalOutbound = "loopback",
);

const tester :Workerd.Worker = (
  modules = [ (name = "tester.js", esModule = embed "tester.js") ],
  compatibilityDate = "2025-09-01",
  bindings = [ (name = "APP", service = "main") ],
  globalOutbound = "loopback",
);
