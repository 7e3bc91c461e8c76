# Run the fleet example locally in workerd (no Wrangler needed):
#
#   npx esbuild src/index.js --bundle --format=esm --platform=browser --external:'cloudflare:*' \
#     --conditions=workerd,worker,browser --loader:.wasm=copy --asset-names='[name]' --outdir=dist
#   mkdir -p .storage
#   LLM_URL=https://api.anthropic.com LLM_API_KEY=... npx workerd serve workerd.capnp
#   curl -s localhost:8787/ -d '{"question": "Where is the Eiffel Tower?"}'
#   curl -s localhost:8787/fleet      # the coordinator: breaker, budget, counters, transitions
#
# test/config.capnp runs the same bundle as three Worker services (three isolates) sharing one
# coordinator service's objects.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "outbound", network = (allow = ["public", "local"])),
    (name = "storage", disk = (path = ".storage", writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:8787", http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [
    (name = "index.js", esModule = embed "dist/index.js"),
    (name = "selfheal_bg.wasm", wasm = embed "dist/selfheal_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
  bindings = [
    (name = "FLEET", durableObjectNamespace = "FleetCoordinator"),
    (name = "LLM_URL", fromEnvironment = "LLM_URL"),
    (name = "LLM_API_KEY", fromEnvironment = "LLM_API_KEY"),
    (name = "FLEET_POLICY", json = "{\"breaker\": {\"failureThreshold\": 20, \"resetTimeoutMs\": 30000}, \"flushMs\": 1000}"),
  ],
  durableObjectNamespaces = [ (className = "FleetCoordinator", uniqueKey = "selfheal-example-fleet", enableSql = true) ],
  # The coordinators' state is kept on disk: a restart loses nothing.
  durableObjectStorage = (localDisk = "storage"),
  globalOutbound = "outbound",
);
