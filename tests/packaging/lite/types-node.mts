// Strict TypeScript, nodenext: "selfheal/lite" resolves to the lite Node build's declarations.
import { RepairLoop, Schema, heal, type Instruction, type Parsed } from "selfheal/lite";
// Ready once loaded: init() and initSync() do nothing, so browser code runs unchanged.
import init, { initSync } from "selfheal/lite";

await init();
initSync();
const loop = new RepairLoop({ prompt: { system: "s", user: "u" }, schema: { type: "object" }, seed: 1 });
const step: Instruction = loop.next({ kind: "reply", text: "{}" });
if (step.type === "done") {
  // The lite answer: false or absent, never true.
  const validated: false | undefined = step.validated;
  void validated;
}
const parsed: Parsed = new Schema({ type: "object" }).parse("{}");
if (parsed.ok) {
  const validated: false | undefined = parsed.validated;
  void validated;
}
export const kinds: [string, typeof heal] = [step.type, heal];
