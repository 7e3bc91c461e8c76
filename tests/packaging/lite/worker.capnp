# `workerd test config.capnp` runs the test() handler of the bundled selfheal/lite worker.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "lite", worker = .worker) ],
);

const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "selfheal_bg.wasm", wasm = embed "selfheal_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
);
