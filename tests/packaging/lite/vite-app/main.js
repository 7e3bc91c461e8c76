// A Vite app importing "selfheal/lite": the "browser" condition gives the lite web build, its
// .wasm emitted as an asset, so init() needs no argument.
import init, * as lite from "selfheal/lite";
import { runScenario } from "../scenario.mjs";

try {
  await init();
  window.__result = runScenario(lite);
} catch (e) {
  window.__error = String(e?.stack ?? e);
}
