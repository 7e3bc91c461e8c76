# Run the example Worker locally in workerd (no Wrangler needed):
#
#   npx esbuild src/index.js --bundle --format=esm --platform=browser \
#     --conditions=workerd,worker,browser --loader:.wasm=copy --asset-names='[name]' --outdir=dist
#   LLM_URL=http://127.0.0.1:8788 LLM_API_KEY=... npx workerd serve workerd.capnp
#   curl -s localhost:8787 -d '{"question": "Where is the Eiffel Tower?"}'
#
# The esbuild line is what Wrangler does for you on deploy: resolve "selfheal" with the workerd
# condition and keep the .wasm as a module next to the bundle.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    # The Worker's global fetch. Workers in production reach the internet; this local setup
    # allows loopback too, so LLM_URL may point at a local mock server.
    (name = "outbound", network = (allow = ["public", "local"])),
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
    (name = "LLM_URL", fromEnvironment = "LLM_URL"),
    (name = "LLM_API_KEY", fromEnvironment = "LLM_API_KEY"),
  ],
  globalOutbound = "outbound",
);
