// selfheal/lite, the second entry of the one package (issue 16, item 1): pack pkg/, install the
// tarball into a scratch project and import "selfheal/lite" BY NAME from Node ESM (beside the full
// "selfheal" in the same process) and CommonJS, strict TypeScript (nodenext, bundler, workerd),
// an esbuild bundle, a Vite app and a plain <script type="module"> page in headless Chromium, and
// a workerd worker. Each runs tests/packaging/lite/scenario.mjs and must give the same answer.
// Run by `make test-packaging` (needs `make build`).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import {
  PKG, ROOT, WORKER_BUNDLE, bundle, installPackedPackage, launchChromium, pageResult, serveStatic,
  taggedJson, workerdTest,
} from "./harness.mjs";

const run = promisify(execFile);
const FIXTURES = join(ROOT, "tests", "packaging", "lite");

let project; // the consumer project; the lite fixtures are in its lite/ folder
let lite; // project/lite
let files;
let browser;
let server;

before(async () => {
  ({ project, files } = await installPackedPackage());
  lite = join(project, "lite");
  cpSync(FIXTURES, lite, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const SCHEMA_ERROR = /^Error: selfheal\/lite does not validate JSON Schema: Schema\.validate is only in the full build/;

/** What every runtime must answer (checked in full once, then compared to the byte). */
function assertScenario(result, build) {
  assert.equal(result.build, build, "which build \"selfheal/lite\" resolved to");
  assert.deepEqual(result.steps.map((s) => s.type), ["wait-for-backoff", "done", "send-repair-prompt", "done"]);
  const [wait, first, repair, last] = result.steps;
  assert.equal(wait.delayMs, 2000);
  assert.equal(wait.classified.cause, "rate-limited");
  // Not validated, and saying so: the wrong shape is done, marked.
  assert.deepEqual(first.value, { town: "Paris" });
  assert.equal(first.validated, false);
  // The host's refusal comes back as a repair prompt quoting it (a reask, as in the full build).
  assert.equal(repair.classified.cause, "rejected");
  assert.match(repair.prompt.user, /<rejection_reason>\n\/city: a string is required\n<\/rejection_reason>/);
  assert.deepEqual(last.value, { city: "Paris" });
  assert.equal(last.source, "repaired");
  assert.deepEqual(last.fixes, ["code-fence", "trailing-comma"]);
  assert.equal(last.validated, false);
  assert.equal(last.attempts, 3);
  assert.equal(result.check, null, "the repaired value passes the host's check");
  assert.deepEqual(result.parsed, { ok: true, value: { town: 1 }, fixes: [], validated: false });
  assert.match(result.validate, SCHEMA_ERROR);
  assert.equal(result.odd, '{"type":12}');
  assert.deepEqual(result.repaired, { text: '{"a": true}', fixes: ["single-quotes", "python-literal", "trailing-comma"] });
  assert.equal(result.heal, "function", "heal exported by the lite entry");
  const { build: _, fullValidates: __, ...rest } = result;
  return JSON.stringify(rest);
}

async function nodeRun(file) {
  const { stdout, stderr } = await run(process.execPath, [file], { cwd: lite, timeout: 30_000 });
  assert.equal(stderr, "", "no warnings");
  return JSON.parse(stdout);
}

let referenceRun;
const reference = () => (referenceRun ??= nodeRun("esm.mjs").then((r) => {
  assert.equal(r.fullValidates, true, "the full build in the same process still validates");
  return assertScenario(r, "node");
}));

test("the tarball ships selfheal/lite: both glues, the .wasm, the three entries and their .d.ts", () => {
  const snippet = (f) => f.replace(/snippets\/selfheal-[0-9a-f]+\//, "snippets/selfheal-HASH/");
  const shipped = files.filter((f) => f.startsWith("lite/")).map(snippet);
  const snippets = (dir) => ["gather.js", "instructions.js", "schema_keys.js"].map((s) => `${dir}snippets/selfheal-HASH/js/snippets/${s}`);
  assert.deepEqual(shipped, [
    "lite/index.cjs", "lite/index.d.ts", "lite/index.node.mjs", "lite/index.node.d.mts", "lite/selfheal.d.ts", "lite/selfheal.js", "lite/selfheal_bg.wasm",
    ...snippets("lite/"), "lite/web/index.d.ts", "lite/web/index.js", "lite/web/package.json",
    "lite/web/selfheal.d.ts", "lite/web/selfheal.js", "lite/web/selfheal_bg.wasm", ...snippets("lite/web/"),
    "lite/workerd.js",
  ].sort());
  const meta = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8"));
  assert.deepEqual(Object.keys(meta.exports["./lite"]), ["workerd", "browser", "node", "types", "default"]);
  // The lite .wasm is its own, built without jsonschema: none of the meta-schemas the full build
  // embeds, and smaller than the full one by more than the validator's 300 KB gzip. (It was also
  // under half the full one until issue 16 item 2 took 30 KB off the full build and nothing off
  // lite, all opt-level "z" already: docs/PERFORMANCE.md, "Round 3".)
  const size = (f) => gzipSync(readFileSync(join(PKG, f)), { level: 9 }).length;
  const metaSchema = "draft/2020-12/meta/validation";
  assert.ok(readFileSync(join(PKG, "selfheal_bg.wasm")).includes(metaSchema), "the full .wasm embeds the meta-schemas");
  assert.ok(!readFileSync(join(PKG, "lite/selfheal_bg.wasm")).includes(metaSchema), "the lite .wasm has no meta-schema");
  assert.ok(size("selfheal_bg.wasm") - size("lite/selfheal_bg.wasm") > 300 * 1024, "the lite .wasm is smaller by more than the validator");
  assert.deepEqual(readFileSync(join(PKG, "lite/selfheal_bg.wasm")), readFileSync(join(PKG, "lite/web/selfheal_bg.wasm")));
  // heal is shared with the full entries, bound to the lite RepairLoop.
  assert.match(readFileSync(join(PKG, "lite/index.cjs"), "utf8"), /require\("\.\.\/heal\.cjs"\)\.createHeal\(module\.exports\.RepairLoop\)/);
  assert.match(readFileSync(join(PKG, "lite/workerd.js"), "utf8"), /from "\.\.\/heal\.mjs"/);
  assert.ok(statSync(join(project, "node_modules", "selfheal", "lite", "selfheal_bg.wasm")).isFile(), "installed");
});

test("Node ESM: import from \"selfheal/lite\", the full \"selfheal\" beside it", async () => {
  assert.equal(typeof (await reference()), "string");
});

test("Node CommonJS: require(\"selfheal/lite\")", async () => {
  assert.equal(assertScenario(await nodeRun("cjs.cjs"), "node"), await reference());
});

test("heal from selfheal/lite: the host loop bound to the lite RepairLoop (ESM and CommonJS)", async () => {
  const body = (heal) => `
    const replies = [Object.assign(new Error("busy"), { status: 503, headers: { "retry-after-ms": "5" } }), { text: '{"town": 1,}' }];
    ${heal}(async () => { const r = replies.shift(); if (r instanceof Error) throw r; return r; },
      { prompt: { system: "s", user: "u" }, schema: { type: "object", required: ["city"] }, seed: 1 })
      .then((r) => console.log(JSON.stringify({ type: r.type, value: r.value, fixes: r.fixes, attempts: r.attempts, validated: r.validated })));
  `;
  writeFileSync(join(lite, "heal-entry.mjs"), `import { heal } from "selfheal/lite";\n${body("heal")}`);
  writeFileSync(join(lite, "heal-entry.cjs"), body('require("selfheal/lite").heal'));
  for (const file of ["heal-entry.mjs", "heal-entry.cjs"]) {
    const { stdout } = await run(process.execPath, [file], { cwd: lite, timeout: 30_000 });
    assert.deepEqual(JSON.parse(stdout), { type: "done", value: { town: 1 }, fixes: ["trailing-comma"], attempts: 2, validated: false }, file);
  }
});

test("strict TypeScript resolves the lite declarations (nodenext, bundler, workerd)", async () => {
  const base = { strict: true, noEmit: true, skipLibCheck: false, types: [], target: "ES2022", exactOptionalPropertyTypes: true };
  const configs = {
    "tsconfig.node.json": { compilerOptions: { ...base, module: "nodenext", moduleResolution: "nodenext", lib: ["ES2022", "ESNext.Disposable"] }, files: ["types-node.mts"] },
    "tsconfig.bundler.json": { compilerOptions: { ...base, module: "esnext", moduleResolution: "bundler", lib: ["ES2022", "ESNext.Disposable", "DOM"] }, files: ["types-web.ts"] },
    "tsconfig.workerd.json": { compilerOptions: { ...base, module: "esnext", moduleResolution: "bundler", customConditions: ["workerd"], lib: ["ES2022", "ESNext.Disposable", "DOM"] }, files: ["types-web.ts"] },
  };
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  for (const [name, config] of Object.entries(configs)) {
    writeFileSync(join(lite, name), JSON.stringify(config, null, 2));
    try {
      await run(process.execPath, [tsc, "-p", name], { cwd: lite, timeout: 120_000 });
    } catch (e) {
      assert.fail(`tsc -p ${name}:\n${e.stdout}${e.stderr}`);
    }
  }
});

test("browser: a page bundled by esbuild (browser condition), in headless Chromium", async () => {
  const out = join(lite, "www");
  await bundle({
    absWorkingDir: lite, entryPoints: ["browser.mjs"], outdir: out, platform: "browser",
    loader: { ".wasm": "file" }, assetNames: "[name]-[hash]",
  });
  copyFileSync(join(lite, "bundle.html"), join(out, "index.html"));
  const js = readFileSync(join(out, "browser.js"), "utf8");
  assert.ok(js.includes("function initSync(") && !js.includes("require('fs')"), "the lite web build bundled");
  const wasm = readdirSync(out).find((f) => f.endsWith(".wasm"));
  assert.deepEqual(readFileSync(join(out, wasm)), readFileSync(join(PKG, "lite", "web", "selfheal_bg.wasm")), "the lite .wasm");
  browser ??= await launchChromium();
  server ??= await serveStatic(project);
  assert.equal(assertScenario(await pageResult(browser, `${server.url}/lite/www/index.html`), "web"), await reference());
});

test("browser: a Vite app importing \"selfheal/lite\" (the .wasm emitted as an asset), in headless Chromium", async () => {
  const { build } = await import("vite");
  await build({
    root: join(lite, "vite-app"), configFile: false, logLevel: "silent",
    base: "./", build: { outDir: "dist", emptyOutDir: true },
  });
  const dir = join(lite, "vite-app", "dist", "assets");
  const wasm = readdirSync(dir).filter((f) => /^selfheal_bg-.*\.wasm$/.test(f));
  assert.equal(wasm.length, 1, `one wasm emitted: ${wasm}`);
  assert.deepEqual(readFileSync(join(dir, wasm[0])), readFileSync(join(PKG, "lite", "web", "selfheal_bg.wasm")), "the lite .wasm");
  browser ??= await launchChromium();
  server ??= await serveStatic(project);
  assert.equal(assertScenario(await pageResult(browser, `${server.url}/lite/vite-app/dist/index.html`), "web"), await reference());
});

test("browser: plain <script type=\"module\"> with an import map to selfheal/lite, no bundler", async () => {
  browser ??= await launchChromium();
  server ??= await serveStatic(project);
  assert.equal(assertScenario(await pageResult(browser, `${server.url}/lite/plain.html`), "web"), await reference());
});

test("workerd: a Worker importing \"selfheal/lite\" (the workerd condition, wasm imported as a module)", async () => {
  const out = join(lite, "worker");
  await bundle({ absWorkingDir: lite, entryPoints: ["worker.mjs"], outdir: out, ...WORKER_BUNDLE });
  assert.match(readFileSync(join(out, "worker.js"), "utf8"), /^import \w+ from "\.\/selfheal_bg\.wasm";$/m);
  assert.deepEqual(readFileSync(join(out, "selfheal_bg.wasm")), readFileSync(join(PKG, "lite", "web", "selfheal_bg.wasm")), "the lite .wasm");
  copyFileSync(join(lite, "worker.capnp"), join(out, "config.capnp"));
  const { code, output } = await workerdTest(join(out, "config.capnp"));
  assert.equal(code, 0, output);
  assert.match(output, /\[ PASS \] lite/);
  assert.equal(assertScenario(taggedJson(output, "LITE"), "web"), await reference());
});
