# Test configuration: the fleet example as built by the test (dist/), run by
# tests/packaging/fleet.test.mjs via `workerd test`, twice on the same storage folder (the second
# run is the restart).
#
#   coordinator     the FleetCoordinator Durable Object class, its objects on disk in storage/
#   app-1 .. app-3  the example Worker three times: three isolates, three wasm instances, each with
#                   FLEET bound to the coordinator service's namespace (as Wrangler's `script_name`)
#   app-4           the example Worker once more, bound to a coordinator that always throws
#   tester          test(): drives the apps (env.PHASE is the plan), prints RESULT lines;
#                   defines that unreachable coordinator (in memory)
#   loopback        the only network: 127.0.0.1, where the test's mock LLM listens
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "coordinator", worker = .coordinator),
    (name = "app-1", worker = .app),
    (name = "app-2", worker = .app),
    (name = "app-3", worker = .app),
    (name = "app-4", worker = .lost),
    (name = "tester", worker = .tester),
    (name = "loopback", network = (allow = ["127.0.0.1/32"])),
    (name = "storage", disk = (path = "storage", writable = true)),
  ],
);

const modules :List(Workerd.Worker.Module) = [
  (name = "index.js", esModule = embed "dist/index.js"),
  (name = "selfheal_bg.wasm", wasm = embed "dist/selfheal_bg.wasm"),
];

const coordinator :Workerd.Worker = (
  modules = .modules,
  compatibilityDate = "2025-09-01",
  bindings = [
    (name = "FLEET", durableObjectNamespace = "FleetCoordinator"),
    (name = "FLEET_POLICY", fromEnvironment = "FLEET_POLICY"),
    (name = "LLM_URL", fromEnvironment = "LLM_URL"),
  ],
  durableObjectNamespaces = [ (className = "FleetCoordinator", uniqueKey = "selfheal-example-fleet", enableSql = true) ],
  durableObjectStorage = (localDisk = "storage"),
  globalOutbound = "loopback",
);

const app :Workerd.Worker = (
  modules = .modules,
  compatibilityDate = "2025-09-01",
  bindings = [
    (name = "FLEET", durableObjectNamespace = (className = "FleetCoordinator", serviceName = "coordinator")),
    (name = "FLEET_POLICY", fromEnvironment = "FLEET_POLICY"),
    (name = "LLM_URL", fromEnvironment = "LLM_URL"),
    (name = "LLM_API_KEY", text = "test-key"),
    (name = "BACKOFF_BASE_MS", text = "20"),
  ],
  globalOutbound = "loopback",
);

# app-4: as app, but its coordinator cannot be reached (Unreachable, in tester.js).
const lost :Workerd.Worker = (
  modules = .modules,
  compatibilityDate = "2025-09-01",
  bindings = [
    (name = "FLEET", durableObjectNamespace = (className = "Unreachable", serviceName = "tester")),
    (name = "FLEET_POLICY", fromEnvironment = "FLEET_POLICY"),
    (name = "LLM_URL", fromEnvironment = "LLM_URL"),
    (name = "LLM_API_KEY", text = "test-key"),
    (name = "BACKOFF_BASE_MS", text = "20"),
  ],
  globalOutbound = "loopback",
);

const tester :Workerd.Worker = (
  modules = [ (name = "tester.js", esModule = embed "tester.js") ],
  compatibilityDate = "2025-09-01",
  bindings = [
    (name = "APP1", service = "app-1"),
    (name = "APP2", service = "app-2"),
    (name = "APP3", service = "app-3"),
    (name = "APP4", service = "app-4"),
    (name = "PHASE", fromEnvironment = "PHASE"),
  ],
  durableObjectNamespaces = [ (className = "Unreachable", uniqueKey = "selfheal-test-unreachable") ],
  durableObjectStorage = (inMemory = void),
  globalOutbound = "loopback",
);
