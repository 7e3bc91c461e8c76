#!/usr/bin/env node
// The package's entries (SPEC section 11), written into a staging folder by scripts/build.sh
// (the sources are in js/package/):
//
//   index.cjs, index.d.ts          "node" require: the nodejs glue plus `heal`, and no-op
//                                  init()/initSync() (ready once loaded) for code written for browsers
//   index.node.mjs, index.node.d.mts   "node" import: re-exports index.cjs (one instance), init() default
//   web/index.js, web/index.d.ts   "browser" / "default": the web glue plus `heal`
//   workerd.js                     "workerd": initSync on the imported .wasm, plus `heal`
//   lite/index.cjs, lite/web/index.js, lite/workerd.js (+ .d.ts)
//                                  selfheal/lite: the same three entries around the glues built
//                                  without JSON Schema validation, `heal` bound to their RepairLoop
//   heal.cjs, heal.d.cts           heal.mjs (tsc's output of heal.mts) for require()
//   heal.node.mjs                  selfheal/heal for Node import: re-exports heal.cjs
//   partial.mjs, partial.cjs       checkedPartialJson (partial.mts): every entry's PartialJson runs
//                                  a Standard Schema's own validate in finish()
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
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const JS = dirname(fileURLToPath(import.meta.url)); // js/package/
const stage = process.argv[2];
if (!stage) {
  console.error("usage: node js/package/build-ecosystem.mjs <package folder>");
  process.exit(2);
}

// ---------- the entries: each glue's exports plus `heal` bound to its RepairLoop ----------
// (heal.mjs and heal.d.mts are already in the stage: tsc compiled js/package/heal.mts there.)
copyFileSync(join(stage, "heal.d.mts"), join(stage, "heal.d.cts")); // the same types for require()
const healType = (from) => `import type { Heal } from "${from}";
/** The host loop (selfheal/heal) bound to this entry's RepairLoop. */
export declare const heal: Heal;
`;
/**
 * The node, web and workerd entries of one build whose glues are in `dir` (the package root, or
 * lite/); `up` and `webUp` lead from `dir` and `dir`/web back to the root, where heal.mjs and
 * heal.cjs are shared.
 */
function entries(dir, up, webUp, name) {
  const out = join(stage, dir);
  writeFileSync(join(out, "workerd.js"), readFileSync(join(JS, "workerd.js"), "utf8")
    .replace('from "./heal.mjs"', `from "${up}heal.mjs"`)
    .replace('from "./partial.mjs"', `from "${up}partial.mjs"`));
  writeFileSync(join(out, "index.cjs"), `"use strict";
// ${name} for Node, require and import alike: the wasm-bindgen glue's exports plus \`heal\`, and
// PartialJson running a Standard Schema's validate in finish().
module.exports = require("./selfheal.js");
module.exports.heal = require("${up}heal.cjs").createHeal(module.exports.RepairLoop);
module.exports.PartialJson = require("${up}partial.cjs").checkedPartialJson(module.exports.PartialJson);
// Ready once loaded: init() and initSync() do nothing, so code written for browsers runs unchanged.
// __esModule: TypeScript's and bundlers' CommonJS interop then take \`default\` as the default export.
Object.defineProperty(module.exports, "__esModule", { value: true });
module.exports.default = async function init() {};
module.exports.initSync = function initSync() {};
`);
  writeFileSync(join(out, "index.node.mjs"), `// ${name} for Node import: the CommonJS entry's exports (import and require share one
// instance), with its init() as the default export, as in browsers and workerd.
export * from "./index.cjs";
import entry from "./index.cjs";
export default entry.default;
`);
  const ready = `/** The Node build is ready once loaded: init() resolves at once and initSync() does nothing, so
 *  code written for browsers (\`await init()\`) runs unchanged in Node (tests, SSR). */
export default function init(input?: unknown): Promise<void>;
export declare function initSync(input?: unknown): void;
`;
  writeFileSync(join(out, "index.d.ts"), `export * from "./selfheal.js";\n${healType(`${up}heal.cjs`)}${ready}`);
  writeFileSync(join(out, "index.node.d.mts"), `export * from "./selfheal.js";\n${healType(`${up}heal.mjs`)}${ready}`);
  writeFileSync(join(out, "web", "index.js"), `// ${name} for browsers and bundlers: the web glue's exports plus \`heal\` (call init() first).
export * from "./selfheal.js";
export { default } from "./selfheal.js";
import { PartialJson as GluePartialJson, RepairLoop } from "./selfheal.js";
import { createHeal } from "${webUp}heal.mjs";
import { checkedPartialJson } from "${webUp}partial.mjs";
export const heal = createHeal(RepairLoop);
/** PartialJson running a Standard Schema's own validate in finish() (a local export wins over export *). */
export const PartialJson = checkedPartialJson(GluePartialJson);
`);
  writeFileSync(join(out, "web", "index.d.ts"), `export * from "./selfheal.js";
export { default } from "./selfheal.js";
${healType(`${webUp}heal.mjs`)}`);
}
entries(".", "./", "../", "selfheal");
entries("lite", "../", "../../", "selfheal/lite (no JSON Schema validation)");

// ---------- selfheal/standard, selfheal/otel, selfheal/ai ----------
for (const file of ["standard.mjs", "standard.d.mts", "otel.mjs", "otel.d.mts", "sleep.mjs", "sleep.d.mts"]) copyFileSync(join(JS, file), join(stage, file));
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
// heal and checkedPartialJson for require(): the same modules as CommonJS.
for (const [name, what] of [["heal", "selfheal/heal"], ["partial", "the entries' PartialJson"]]) {
  await esbuild.build({
    entryPoints: [join(stage, `${name}.mjs`)],
    bundle: true, // its modules (heal-schema, models, tools, stream, standard, otel) inlined: require() needs no ESM
    format: "cjs",
    platform: "neutral",
    target: "es2022",
    outfile: join(stage, `${name}.cjs`),
    legalComments: "none",
    logLevel: "warning",
    banner: { js: `// ${what} for require(): ${name}.mjs as CommonJS (js/package/build-ecosystem.mjs).` },
  });
}
// selfheal/heal for Node import: heal.cjs, so that its classes (StreamViolation) are the ones the
// "selfheal" entry's heal uses (index.cjs binds heal.cjs), not a second copy from heal.mjs. Its
// names are listed: Node cannot find them in esbuild's CommonJS for the neutral platform.
const healNames = Object.keys(createRequire(import.meta.url)(resolve(stage, "heal.cjs"))).sort();
writeFileSync(join(stage, "heal.node.mjs"), `// selfheal/heal for Node import: the CommonJS module's exports, so import and require share one instance.
import cjs from "./heal.cjs";
export const { ${healNames.join(", ")} } = cjs;
`);
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
  banner: { js: "// selfheal/ai for Node require(): js/ai.mjs, js/standard.mjs, js/otel.mjs and js/sleep.mjs bundled by esbuild (js/package/build-ecosystem.mjs)." },
});
