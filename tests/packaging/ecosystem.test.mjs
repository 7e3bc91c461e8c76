// The ecosystem entries of the packed package (SPEC section 11): `selfheal/ai`, `selfheal/standard`
// and `selfheal/otel` imported BY NAME from Node ESM, Node CommonJS, strict TypeScript (ESM and
// CommonJS, nodenext) and a workerd worker; their peers (ai, @opentelemetry/api, zod, valibot,
// arktype) are optional: the core package installs and runs without any of them. Run by
// `make test-packaging` (needs `make build`).
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync, copyFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { PKG, ROOT, WORKER_BUNDLE, bundle, installPackedPackage, taggedJson, workerdTest } from "./harness.mjs";

const run = promisify(execFile);
const FIXTURES = join(ROOT, "tests", "packaging", "ecosystem");
const PEERS = ["ai", "@opentelemetry/api", "zod", "valibot", "@valibot/to-json-schema", "arktype"];

let project;
let files;

before(async () => {
  ({ project, files } = await installPackedPackage());
  cpSync(FIXTURES, project, { recursive: true });
});

/** What every runtime must answer, to the byte. */
const EXPECTED = {
  calls: 3,
  steps: [["wait-for-backoff", 3], ["wait-for-backoff", 2], ["done", null]],
  structuredOutputText: '{"city": "Paris"}',
  standard: { source: "none", reason: "- /city: city is missing" },
  middleware: ["specificationVersion", "wrapGenerate", "wrapStream"],
};
const EXPORTS = ["SelfhealError", "createSelfhealAi", "degradeOf", "forClassify", "repairText", "repairToolCall", "selfhealMiddleware"];

async function nodeRun(file) {
  const { stdout, stderr } = await run(process.execPath, [file], { cwd: project, timeout: 30_000 });
  assert.equal(stderr, "", "no warnings");
  return JSON.parse(stdout);
}

test("the tarball ships the ecosystem entries, and declares their peers optional", () => {
  for (const f of ["ai-core.mjs", "ai.node.cjs", "ai.node.mjs", "ai.web.mjs", "ai.workerd.mjs", "ai.d.mts", "ai.d.cts",
    "standard.mjs", "standard.d.mts", "otel.mjs", "otel.d.mts"]) {
    assert.ok(files.includes(f), `${f} is in the tarball`);
  }
  const meta = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8"));
  assert.equal(meta.dependencies, undefined, "no dependencies at all");
  assert.deepEqual(Object.keys(meta.peerDependencies).sort(), [...PEERS].sort());
  for (const peer of PEERS) assert.deepEqual(meta.peerDependenciesMeta[peer], { optional: true }, peer);
  assert.deepEqual(Object.keys(meta.exports["./ai"]), ["workerd", "browser", "node", "types", "default"]);
  // Nothing the package ships imports a peer: the core must run without them.
  for (const f of files.filter((name) => /\.(c|m)?js$/.test(name))) {
    const source = readFileSync(join(PKG, f), "utf8");
    for (const peer of PEERS) {
      assert.doesNotMatch(source, new RegExp(`(from|import\\(|require\\()\\s*["']${peer.replace("/", "\\/")}["']`), `${f} imports ${peer}`);
    }
  }
});

test("the core installs without any peer: none of them is in the consumer's node_modules", () => {
  const installed = readdirSync(join(project, "node_modules")).filter((n) => !n.startsWith("."));
  assert.deepEqual(installed, ["selfheal"]);
});

test("Node ESM: import from \"selfheal/ai\", \"selfheal/standard\", \"selfheal/otel\" without the peers", async () => {
  const result = await nodeRun("esm-ai.mjs");
  const { exports, otel, ...rest } = result;
  assert.deepEqual(rest, EXPECTED);
  assert.deepEqual(exports, EXPORTS);
  assert.equal(otel, "function");
});

test("Node CommonJS: require(\"selfheal/ai\")", async () => {
  const { exports, ...rest } = await nodeRun("cjs-ai.cjs");
  assert.deepEqual(rest, EXPECTED);
  assert.deepEqual(exports, EXPORTS);
});

test("workerd: a Worker importing \"selfheal/ai\" (bound to the workerd entry)", async () => {
  const out = join(project, "worker-ai");
  await bundle({ absWorkingDir: project, entryPoints: ["worker-ai.mjs"], outdir: out, ...WORKER_BUNDLE });
  const js = readFileSync(join(out, "worker-ai.js"), "utf8");
  assert.match(js, /^import \w+ from "\.\/selfheal_bg\.wasm";$/m, "the workerd entry, wasm imported as a module");
  copyFileSync(join(project, "worker-ai.capnp"), join(out, "config.capnp"));
  const { code, output } = await workerdTest(join(out, "config.capnp"));
  assert.equal(code, 0, output);
  const { exports, ...rest } = taggedJson(output, "AI");
  assert.deepEqual(rest, EXPECTED);
  assert.deepEqual(exports, EXPORTS);
});

const tsc = (cwd, config) => run(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", config], { cwd, timeout: 120_000 })
  .catch((e) => assert.fail(`tsc -p ${config}:\n${e.stdout}${e.stderr}`));
const STRICT = { strict: true, noEmit: true, types: [], target: "ES2022", module: "nodenext", moduleResolution: "nodenext" };

test("strict TypeScript, no peer installed, skipLibCheck off: the declarations stand alone (ESM and CommonJS)", async () => {
  writeFileSync(join(project, "tsconfig.own.json"), JSON.stringify({
    compilerOptions: { ...STRICT, skipLibCheck: false, lib: ["ES2022", "ESNext.Disposable"], exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true },
    files: ["types-own.mts", "types-ai.cts"],
  }, null, 2));
  await tsc(project, "tsconfig.own.json");
});

test("strict TypeScript with the real ai, zod and @opentelemetry/api: the parts fit where the SDK asks for them", async () => {
  // A sub-project that has the peers (linked from this repository's node_modules); "selfheal"
  // still resolves from the consumer project above it, as installed from the tarball. The AI
  // SDK's own declarations need @types/node, which this repository does not install: skipLibCheck.
  const dir = join(project, "ts-ai");
  for (const peer of ["ai", "zod", "@opentelemetry/api", "valibot", "@valibot/to-json-schema"]) {
    const target = join(ROOT, "node_modules", peer);
    assert.ok(existsSync(target), `${peer} is a devDependency`);
    mkdirSync(dirname(join(dir, "node_modules", peer)), { recursive: true });
    symlinkSync(target, join(dir, "node_modules", peer), "dir");
  }
  copyFileSync(join(project, "types-ai.mts"), join(dir, "types-ai.mts"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "ts-ai", private: true, type: "module" }));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { ...STRICT, skipLibCheck: true, lib: ["ES2022", "DOM", "DOM.Iterable", "ESNext.Disposable"] },
    files: ["types-ai.mts"],
  }, null, 2));
  await tsc(dir, "tsconfig.json");
});
