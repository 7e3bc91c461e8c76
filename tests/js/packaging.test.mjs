// One npm package for every runtime: pack pkg/, install the tarball into a scratch project, and
// import "selfheal" BY NAME from Node ESM, Node CommonJS, the web build in Node, TypeScript (three
// resolution modes), an esbuild bundle, a Vite build and a plain <script type="module"> page in
// headless Chromium, and a workerd worker. Each runtime runs the same seeded loop (tests/packaging/scenario.mjs) and must
// produce the same instructions. Run with `make test-packaging` (needs `make build`).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  PKG, ROOT, WORKER_BUNDLE, bundle, installPackedPackage, launchChromium, pageResult, scratch,
  serveStatic, taggedJson, workerdTest,
} from "../packaging/harness.mjs";
import { guardGlue } from "../../scripts/guard_glue.mjs";

const run = promisify(execFile);
const cargoBin = join(homedir(), ".cargo", "bin", "wasm-bindgen");
const WASM_BINDGEN = existsSync(cargoBin) ? cargoBin : "wasm-bindgen";
const FIXTURES = join(ROOT, "tests", "packaging", "fixtures");

let project; // the scratch project with selfheal installed from the tarball
let files; // the tarball's file list
let browser;
let server;

before(async () => {
  ({ project, files } = await installPackedPackage());
  cpSync(FIXTURES, project, { recursive: true });
  copyFileSync(join(ROOT, "tests", "packaging", "scenario.mjs"), join(project, "scenario.mjs"));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** What every runtime must answer (checked in full once, then compared step for step). */
function assertScenario(result, build) {
  assert.equal(result.build, build, "which build \"selfheal\" resolved to");
  const [wait, repair, done] = result.steps;
  assert.deepEqual(result.steps.map((s) => s.type), ["wait-for-backoff", "send-repair-prompt", "done"]);
  assert.equal(wait.delayMs, 2000);
  assert.equal(wait.classified.cause, "rate-limited");
  assert.equal(repair.strategy, "fix");
  assert.match(repair.prompt.user, /"city" is a required property/);
  assert.deepEqual(done.value, { city: "Paris" });
  assert.equal(done.source, "repaired");
  assert.deepEqual(done.fixes, ["code-fence", "trailing-comma"]);
  assert.equal(done.attempts, 3);
  assert.deepEqual(result.repaired, { text: '{"a": true}', fixes: ["single-quotes", "python-literal", "trailing-comma"] });
  assert.equal(result.heal, "function", "heal exported by the entry");
  assert.deepEqual(result.partial, {
    ok: false, report: { kinds: ["schema"], issues: [{ kind: "schema", path: "/n", message: "n must be even" }] },
  }, "the entry's PartialJson runs the Standard Schema's validate");
  // Same instructions, attempts and repair, to the byte, whatever the runtime.
  const { build: _, ...rest } = result;
  return JSON.stringify(rest);
}

/** The Node ESM answer, checked in full; every other runtime must match it exactly. */
let referenceRun;
const reference = () => (referenceRun ??= nodeRun("esm.mjs").then((r) => assertScenario(r, "node")));

async function nodeRun(file) {
  const { stdout, stderr } = await run(process.execPath, [file], { cwd: project, timeout: 30_000 });
  assert.equal(stderr, "", "no warnings (e.g. a module-type guess)");
  return JSON.parse(stdout);
}

test("the tarball holds the two builds, the workerd entry, heal(), the ecosystem entries and nothing else", () => {
  // wasm-bindgen puts JS snippets under snippets/<crate>-<hash>/; the hash is its own business.
  const snippet = (f) => f.replace(/^(web\/)?snippets\/selfheal-[0-9a-f]+\//, "$1snippets/selfheal-HASH/");
  // selfheal/lite's files (lite/) are listed by tests/packaging/lite.test.mjs.
  assert.deepEqual(files.filter((f) => !f.startsWith("lite/")).map(snippet), [
    "README.md", "package.json", "heal.cjs", "heal.d.cts", "heal.d.mts", "heal.mjs",
    // heal's modules (js/package/*.mts): Standard Schema, model fallback, tool calls, streaming
    "heal-schema.d.mts", "heal-schema.mjs", "models.d.mts", "models.mjs", "tools.d.mts", "tools.mjs",
    "stream.d.mts", "stream.mjs",
    // the entries with heal bound (js/package/build-ecosystem.mjs), and their PartialJson
    // running a Standard Schema's validate (js/package/partial.mts)
    "index.cjs", "index.d.ts", "web/index.d.ts", "web/index.js", "partial.cjs", "partial.mjs",
    // Node import: index.cjs's exports and init() as default; heal.cjs's (one instance each)
    "index.node.mjs", "index.node.d.mts", "heal.node.mjs",
    // selfheal/ai, /standard, /otel (tests/packaging/ecosystem.test.mjs)
    "ai-core.mjs", "ai.d.cts", "ai.d.mts", "ai.node.cjs", "ai.node.mjs", "ai.web.mjs", "ai.workerd.mjs",
    "otel.d.mts", "otel.mjs", "standard.d.mts", "standard.mjs",
    // the backoff wait heal and selfheal/ai share
    "sleep.d.mts", "sleep.mjs",
    "selfheal.d.ts", "selfheal.js", "selfheal_bg.wasm",
    "snippets/selfheal-HASH/js/snippets/gather.js", "snippets/selfheal-HASH/js/snippets/instructions.js",
    "snippets/selfheal-HASH/js/snippets/schema_keys.js",
    "web/package.json", "web/selfheal.d.ts", "web/selfheal.js", "web/selfheal_bg.wasm",
    "web/snippets/selfheal-HASH/js/snippets/gather.js", "web/snippets/selfheal-HASH/js/snippets/instructions.js",
    "web/snippets/selfheal-HASH/js/snippets/schema_keys.js",
    "workerd.js",
  ].sort());
  // The web build ships each snippet as written (ESM); the CommonJS glue gets CommonJS copies.
  const exported = {
    "gather.js": ["gatherError", "startOutcome", "randomFill"],
    "instructions.js": ["classified", "waitForBackoff", "parsedOk", "repaired", "done", "partialNew", "partialText", "partialApply"],
    "schema_keys.js": ["jsonText", "schemaSlot", "schemaSource", "schemaRemember"],
  };
  for (const [name, names] of Object.entries(exported)) {
    const source = readFileSync(join(ROOT, "js", "snippets", name), "utf8");
    const web = files.find((f) => f.startsWith("web/snippets/") && f.endsWith(`/${name}`));
    const node = files.find((f) => f.startsWith("snippets/") && f.endsWith(`/${name}`));
    assert.equal(readFileSync(join(PKG, web), "utf8"), source, web);
    const cjs = readFileSync(join(PKG, node), "utf8");
    assert.doesNotMatch(cjs, /^\s*(export|import)\b/m, `no ESM syntax in ${node}`);
    for (const n of names) assert.match(cjs, new RegExp(`^module\\.exports\\.${n} = ${n};$`, "m"), `${node} exports ${n}`);
  }
  const meta = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8"));
  const cargo = readFileSync(join(ROOT, "Cargo.toml"), "utf8");
  assert.equal(meta.name, "selfheal");
  assert.equal(meta.version, /^version = "(.*)"$/m.exec(cargo)[1], "the crate's version");
  assert.deepEqual(Object.keys(meta.exports["."]), ["workerd", "browser", "node", "types", "default"]);
  // What npm installed is what the build made.
  for (const file of ["selfheal.d.ts", "web/selfheal.d.ts", "selfheal.js", "web/selfheal.js"]) {
    assert.equal(readFileSync(join(project, "node_modules", "selfheal", file), "utf8"), readFileSync(join(PKG, file), "utf8"), file);
  }
});

test("the glue and declarations are wasm-bindgen's own output: declarations never patched, the glue only guarded", async () => {
  const wasm = join(ROOT, "target", "wasm32-unknown-unknown", "release", "selfheal.wasm");
  const out = scratch("bindgen");
  for (const [target, dir] of [["nodejs", ""], ["web", "web"]]) {
    await run(WASM_BINDGEN, ["--target", target, "--out-dir", join(out, dir), "--out-name", "selfheal", wasm]);
    const fresh = (file) => readFileSync(join(out, dir, file), "utf8");
    assert.equal(readFileSync(join(PKG, dir, "selfheal.d.ts"), "utf8"), fresh("selfheal.d.ts"), join(dir, "selfheal.d.ts"));
    // The one change to the glue is the trap seat belt (scripts/guard_glue.mjs), nothing else.
    assert.equal(readFileSync(join(PKG, dir, "selfheal.js"), "utf8"), guardGlue(fresh("selfheal.js"), target), join(dir, "selfheal.js"));
  }
});

test("Node ESM: import { RepairLoop } from \"selfheal\"", async () => {
  assert.equal(typeof (await reference()), "string");
});

test("Node CommonJS: require(\"selfheal\")", async () => {
  const result = await nodeRun("cjs.cjs");
  assert.equal(assertScenario(result, "node"), await reference());
});

test("Node, the web build: import from \"selfheal/web\" and initSync with the .wasm bytes", async () => {
  const result = await nodeRun("web-node.mjs");
  assert.equal(assertScenario(result, "web"), await reference());
});

test("TypeScript resolves each condition's declarations", async () => {
  // The classes declare [Symbol.dispose] (for `using`); the declarations declare the symbol
  // themselves, so a project whose lib lacks ESNext.Disposable compiles too (tsconfig.es2022:
  // target ES2022's default lib, skipLibCheck off; before, 10 TS2550 errors in selfheal.d.ts).
  const base = {
    strict: true, noEmit: true, skipLibCheck: false, types: [], target: "ES2022",
  };
  const configs = {
    // Node: the CommonJS build's types (no initSync: the @ts-expect-error in the file must fire).
    "tsconfig.node.json": { compilerOptions: { ...base, module: "nodenext", moduleResolution: "nodenext", lib: ["ES2022", "ESNext.Disposable"] }, files: ["types-node.mts"] },
    // A bundler project with no custom condition, and a Worker project with "workerd": the web types.
    "tsconfig.bundler.json": { compilerOptions: { ...base, module: "esnext", moduleResolution: "bundler", lib: ["ES2022", "ESNext.Disposable", "DOM"] }, files: ["types-web.ts"] },
    "tsconfig.workerd.json": { compilerOptions: { ...base, module: "esnext", moduleResolution: "bundler", customConditions: ["workerd"], lib: ["ES2022", "ESNext.Disposable", "DOM"] }, files: ["types-web.ts"] },
    "tsconfig.es2022.json": { compilerOptions: { ...base, module: "nodenext", moduleResolution: "nodenext", lib: ["ES2022"] }, files: ["types-node.mts"] },
  };
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  await Promise.all(Object.entries(configs).map(async ([name, config]) => {
    writeFileSync(join(project, name), JSON.stringify(config, null, 2));
    try {
      await run(process.execPath, [tsc, "-p", name], { cwd: project, timeout: 60_000 });
    } catch (e) {
      assert.fail(`tsc -p ${name}:\n${e.stdout}${e.stderr}`);
    }
  }));
});

test("TypeScript compiled to CommonJS: import init, { initSync } from \"selfheal\" type-checks and runs", async () => {
  // tsc's CommonJS interop takes `default` only from a module marked __esModule: without it,
  // `init` was the whole exports object ("(0, selfheal_1.default) is not a function").
  const dir = join(project, "ts-cjs");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "app.cts"), `import init, { initSync, RepairLoop } from "selfheal";
async function main(): Promise<void> {
  await init();
  initSync();
  (globalThis as unknown as { process: { stdout: { write(s: string): void } } }).process.stdout.write(typeof RepairLoop);
}
void main();
`);
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "ES2022", lib: ["ES2022", "ESNext.Disposable"], types: [], outDir: "out" },
    files: ["app.cts"],
  }));
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  try {
    await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: dir, timeout: 60_000 });
  } catch (e) {
    assert.fail(`tsc:\n${e.stdout}${e.stderr}`);
  }
  const { stdout } = await run(process.execPath, [join(dir, "out", "app.cjs")], { cwd: dir, timeout: 30_000 });
  assert.equal(stdout.trim(), "function");
});

test("browser: a page bundled by esbuild (browser condition), in headless Chromium", async () => {
  const out = join(project, "www");
  const { warnings } = await bundle({
    absWorkingDir: project, entryPoints: ["browser.mjs"], outdir: out, platform: "browser",
    loader: { ".wasm": "file" }, assetNames: "[name]-[hash]",
  });
  assert.deepEqual(warnings.map((w) => w.text), []);
  // The web glue outside node_modules, where esbuild does not hold back its warnings: none (it
  // once imported one snippet module twice under one key of its import object, "Duplicate key").
  const direct = await bundle({ entryPoints: [join(PKG, "web", "index.js")], write: false, loader: { ".wasm": "empty" } });
  assert.deepEqual(direct.warnings.map((w) => w.text), []);
  copyFileSync(join(project, "bundle.html"), join(out, "index.html"));
  // Only the web build is in the bundle (the Node glue reads files with `require('fs')`).
  const js = readFileSync(join(out, "browser.js"), "utf8");
  assert.ok(js.includes("function initSync(") && !js.includes("require('fs')"), "web build bundled");
  browser ??= await launchChromium();
  server ??= await serveStatic(project);
  const result = await pageResult(browser, `${server.url}/www/index.html`);
  assert.equal(assertScenario(result, "web"), await reference());
});

test("browser: a Vite app (browser condition, the .wasm emitted as an asset), in headless Chromium", async () => {
  const { build } = await import("vite");
  await build({
    root: join(project, "vite-app"), configFile: false, logLevel: "silent",
    base: "./", build: { outDir: "dist", emptyOutDir: true },
  });
  const assets = readdirSync(join(project, "vite-app", "dist", "assets"));
  assert.ok(assets.some((f) => /^selfheal_bg-.*\.wasm$/.test(f)), `wasm emitted: ${assets}`);
  browser ??= await launchChromium();
  server ??= await serveStatic(project);
  const result = await pageResult(browser, `${server.url}/vite-app/dist/index.html`);
  assert.equal(assertScenario(result, "web"), await reference());
});

test("browser: plain <script type=\"module\"> with an import map, no bundler", async () => {
  browser ??= await launchChromium();
  server ??= await serveStatic(project);
  const result = await pageResult(browser, `${server.url}/plain.html`);
  assert.equal(assertScenario(result, "web"), await reference());
});

test("workerd: a Worker bundled with the workerd condition (wasm imported as a module)", async () => {
  const out = join(project, "worker");
  await bundle({ absWorkingDir: project, entryPoints: ["worker.mjs"], outdir: out, ...WORKER_BUNDLE });
  assert.match(readFileSync(join(out, "worker.js"), "utf8"), /^import \w+ from "\.\/selfheal_bg\.wasm";$/m);
  copyFileSync(join(project, "worker.capnp"), join(out, "config.capnp"));
  const { code, output } = await workerdTest(join(out, "config.capnp"));
  assert.equal(code, 0, output);
  assert.match(output, /\[ PASS \] packaging/);
  assert.equal(assertScenario(taggedJson(output, "SCENARIO"), "web"), await reference());
});

test("selfheal/heal resolves by name and runs the host loop with the package's RepairLoop", async () => {
  const file = join(project, "heal-by-name.mjs");
  writeFileSync(file, `
    import { RepairLoop } from "selfheal";
    import { createHeal } from "selfheal/heal";
    const heal = createHeal(RepairLoop);
    const replies = [Object.assign(new Error("busy"), { status: 503, headers: { "retry-after-ms": "5" } }), { text: "[1, 2,]" }];
    const result = await heal(async () => { const r = replies.shift(); if (r instanceof Error) throw r; return r; },
      { prompt: { system: "s", user: "u" }, schema: { type: "array" }, seed: 1 });
    console.log(JSON.stringify({ type: result.type, value: result.value, fixes: result.fixes, attempts: result.attempts }));
  `);
  const { stdout } = await run(process.execPath, [file], { cwd: project, timeout: 30_000 });
  assert.deepEqual(JSON.parse(stdout), { type: "done", value: [1, 2], fixes: ["trailing-comma"], attempts: 2 });
});

test("Node: selfheal/heal's StreamViolation is the class the entry's heal cuts a stream with, for import and require", async () => {
  // import "selfheal/heal" loaded heal.mjs, a second copy of the class: a cut stream's reason was
  // not instanceof the StreamViolation a user imported.
  const file = join(project, "heal-identity.mjs");
  writeFileSync(file, `
    import { createRequire } from "node:module";
    import { heal } from "selfheal";
    import { StreamViolation } from "selfheal/heal";
    const require = createRequire(import.meta.url);
    let reason;
    await heal(async (prompt, { push, streamSignal }) => {
      push('{"n": "not a number", ');
      reason = streamSignal.reason;
      return { text: '{"n": "not a number"}' };
    }, { prompt: { system: "s", user: "u" }, schema: { type: "object", properties: { n: { type: "number" } } }, budget: { repairable: 0 } });
    console.log(JSON.stringify([reason instanceof StreamViolation, StreamViolation === require("selfheal/heal").StreamViolation]));
  `);
  const { stdout } = await run(process.execPath, [file], { cwd: project, timeout: 30_000 });
  assert.deepEqual(JSON.parse(stdout), [true, true]);
});

test("heal is exported by the entry itself, bound to its RepairLoop: Node ESM and CommonJS", async () => {
  const body = (heal) => `
    const replies = [Object.assign(new Error("busy"), { status: 503, headers: { "retry-after-ms": "5" } }), { text: "[1, 2,]" }];
    ${heal}(async () => { const r = replies.shift(); if (r instanceof Error) throw r; return r; },
      { prompt: { system: "s", user: "u" }, schema: { type: "array" }, seed: 1 })
      .then((result) => console.log(JSON.stringify({ type: result.type, value: result.value, fixes: result.fixes, attempts: result.attempts })));
  `;
  writeFileSync(join(project, "heal-entry.mjs"), `import { heal } from "selfheal";\n${body("heal")}`);
  writeFileSync(join(project, "heal-entry.cjs"), body('require("selfheal").heal'));
  for (const file of ["heal-entry.mjs", "heal-entry.cjs"]) {
    const { stdout } = await run(process.execPath, [file], { cwd: project, timeout: 30_000 });
    assert.deepEqual(JSON.parse(stdout), { type: "done", value: [1, 2], fixes: ["trailing-comma"], attempts: 2 }, file);
  }
});
