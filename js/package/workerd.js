// Entry for Cloudflare Workers and workerd (the "workerd" export condition).
//
// Workers forbid compiling WebAssembly from bytes at request time, so the module is imported
// as a precompiled WebAssembly.Module (Wrangler and workerd do that for a .wasm import) and
// instantiated synchronously at module load. Nothing here draws random values: RepairLoop
// seeds itself from crypto in its constructor, so construct loops inside a handler.
import wasm from "./web/selfheal_bg.wasm";
import init, { initSync, PartialJson as GluePartialJson, RepairLoop } from "./web/selfheal.js";
import { createHeal } from "./heal.mjs";
import { checkedPartialJson } from "./partial.mjs";

initSync({ module: wasm });

// The same exports as the web build, so code written for browsers runs unchanged:
// `await init()` resolves at once because the instance already exists.
export * from "./web/selfheal.js";
export default init;
/** The host loop (selfheal/heal) bound to this entry's RepairLoop. */
export const heal = createHeal(RepairLoop);
/** PartialJson running a Standard Schema's own validate in finish() (a local export wins over export *). */
export const PartialJson = checkedPartialJson(GluePartialJson);
