# Run the example Worker locally in workerd (no Wrangler needed):
#
#   npx esbuild src/index.js --bundle --format=esm --platform=browser \
#     --conditions=workerd,worker,browser --loader:.wasm=copy --asset-names='[name]' --outdir=dist
#   LLM_URL=https://api.anthropic.com LLM_API_KEY=... npx workerd serve workerd.capnp
#   curl -sN localhost:8787 -d '{"question": "Tell me about the Eiffel Tower"}'
#
# `curl -N` prints each NDJSON line as it arrives.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
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
