# `workerd test worker-ai.capnp` runs the test() handler of the bundled worker.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "ai", worker = .worker) ],
);

const worker :Workerd.Worker = (
  modules = [
    (name = "worker-ai.js", esModule = embed "worker-ai.js"),
    (name = "selfheal_bg.wasm", wasm = embed "selfheal_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
);
