// A browser app bundled by esbuild (the "browser" condition gives the lite web build); the .wasm
// is imported as a URL (esbuild's `file` loader) and handed to init().
import init, * as lite from "selfheal/lite";
import wasmUrl from "selfheal/lite/web/selfheal_bg.wasm";
import { runScenario } from "./scenario.mjs";

try {
  await init({ module_or_path: wasmUrl });
  window.__result = runScenario(lite);
} catch (e) {
  window.__error = String(e?.stack ?? e);
}
