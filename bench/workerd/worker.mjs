// The Worker of bench/workerd-cold.mjs: the pattern docs/PERFORMANCE.md recommends for Workers.
// The Schema is compiled once, at module scope (Workers run module scope when the isolate starts,
// before the first request); each request builds its RepairLoop inside the handler (a loop
// without a seed draws from crypto.getRandomValues, which Workers allow only inside a handler).
//
// VARIANT (replaced by the bundler's `define`):
//   "module"            new Schema at module scope; the request runs a loop on a 0.5 KB reply
//   "module-only"       new Schema at module scope; the handler answers at once
//   "module-warm"       "module", plus one seeded loop run at module scope on another reply, so
//                       V8 compiles the loop's code (lazily, on first call) before any request
//   "module-warm-only"  "module-warm"'s module scope; the handler answers at once
//   "handler"           the first request compiles the Schema itself, then runs the loop
//   "empty"             selfheal loaded, no Schema, the handler answers at once
import { RepairLoop, Schema } from "selfheal";
import { ORDER_SCHEMA, orderText } from "../fixtures.mjs";

const REPLY = orderText(512);
const PROMPT = { system: "Reply with the order as JSON.", user: "Order ord_12345678, please." };
let schema = VARIANT.startsWith("module") ? new Schema(ORDER_SCHEMA) : null;
if (VARIANT.startsWith("module-warm")) {
  // A seed of its own: Workers allow no random values at module scope.
  const warm = new RepairLoop({ prompt: PROMPT, schema, seed: 1 });
  warm.next({ kind: "reply", text: orderText(300) });
  warm.free();
}

export default {
  async fetch() {
    if (VARIANT === "empty" || VARIANT.endsWith("-only")) return new Response("ok");
    schema ??= new Schema(ORDER_SCHEMA);
    const loop = new RepairLoop({ prompt: PROMPT, schema });
    const step = loop.next({ kind: "reply", text: REPLY });
    loop.free();
    const ok = step.type === "done" && step.value.items.length > 0;
    return new Response(ok ? "ok" : `unexpected ${step.type}`, { status: ok ? 200 : 500 });
  },
};
