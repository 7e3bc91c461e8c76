#!/usr/bin/env node
// The package's ecosystem entries (SPEC section 11), written into a staging folder by
// scripts/build.sh:
//
//   standard.mjs, standard.d.mts   selfheal/standard: Standard Schema v1 (js/standard.mjs)
//   otel.mjs, otel.d.mts           selfheal/otel: spans for model calls (js/otel.mjs)
//   ai-core.mjs                    js/ai.mjs: the AI SDK parts, taking selfheal by injection
//   ai.node.cjs                    selfheal/ai for Node require(): one esbuild bundle of the
//                                  above, bound to ./selfheal.js (CommonJS)
//   ai.node.mjs                    selfheal/ai for Node import: re-exports ai.node.cjs, so
//                                  import and require share one instance, as the core does
//   ai.web.mjs, ai.workerd.mjs     selfheal/ai for browsers (after init()) and workerd, bound
//                                  to ./web/selfheal.js and ./workerd.js
//   ai.d.mts, ai.d.cts             their types (js/ai.d.mts)
//
// None of these imports `ai`, `@opentelemetry/api` or a schema library: those are optional peer
// dependencies, so the core package installs and runs without them.
import { copyFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const JS = join(ROOT, "js");
const stage = process.argv[2];
if (!stage) {
  console.error("usage: node scripts/build-ecosystem.mjs <package folder>");
  process.exit(2);
}

for (const file of ["standard.mjs", "standard.d.mts", "otel.mjs", "otel.d.mts"]) copyFileSync(join(JS, file), join(stage, file));
copyFileSync(join(JS, "ai.mjs"), join(stage, "ai-core.mjs"));
copyFileSync(join(JS, "ai.d.mts"), join(stage, "ai.d.mts"));
copyFileSync(join(JS, "ai.d.mts"), join(stage, "ai.d.cts"));

const NAMES = "selfhealMiddleware, repairText, repairToolCall, degradeOf";
const bound = (glue, note) => `// selfheal/ai ${note}: js/ai.mjs bound to ${glue}.
import * as selfheal from "${glue}";
import { createSelfhealAi } from "./ai-core.mjs";

export { createSelfhealAi, forClassify, SelfhealError } from "./ai-core.mjs";
export const { ${NAMES} } = createSelfhealAi(selfheal);
`;
writeFileSync(join(stage, "ai.web.mjs"), bound("./web/selfheal.js", "for browsers and bundlers (call the package's init() before the first model call)"));
writeFileSync(join(stage, "ai.workerd.mjs"), bound("./workerd.js", "for Cloudflare Workers and workerd"));
writeFileSync(join(stage, "ai.node.mjs"), `// selfheal/ai for Node import: the CommonJS entry's exports, so import and require share one instance.
export { createSelfhealAi, forClassify, SelfhealError, ${NAMES} } from "./ai.node.cjs";
`);

const esbuild = await import("esbuild");
await esbuild.build({
  // The same binding, with ai-core.mjs read from js/ so that it is bundled in.
  stdin: { contents: bound("./selfheal.js", "for Node require()").replaceAll('"./ai-core.mjs"', JSON.stringify(join(JS, "ai.mjs"))), resolveDir: stage, sourcefile: "ai.node.entry.mjs" },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node18",
  external: ["./selfheal.js"],
  outfile: join(stage, "ai.node.cjs"),
  legalComments: "none",
  logLevel: "warning",
  banner: { js: "// selfheal/ai for Node require(): js/ai.mjs, js/standard.mjs and js/otel.mjs bundled by esbuild (scripts/build-ecosystem.mjs)." },
});
