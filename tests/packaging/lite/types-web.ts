// Bundlers and Workers (moduleResolution bundler, with or without the "workerd" condition): the
// lite web build's .d.ts, with init() and initSync().
import init, { initSync, RepairLoop, heal, type Instruction } from "selfheal/lite";

await init();
initSync({ module: new WebAssembly.Module(new Uint8Array(0)) });
const loop = new RepairLoop({ prompt: { system: "s", user: "u" }, seed: 1 });
const step: Instruction = loop.next({ kind: "reply", text: "{}" });
export const kind: string = step.type;
export const bound: typeof heal = heal;
