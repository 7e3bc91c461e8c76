// Strict TypeScript, nodenext: "selfheal/lite" resolves to the lite CommonJS build's .d.ts.
import { RepairLoop, Schema, heal, type Instruction, type Parsed } from "selfheal/lite";
// @ts-expect-error the Node build has no initSync
import { initSync } from "selfheal/lite";

void initSync;
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
