// The packed package in headless browsers, plural (issue 14 item 6): the plain
// <script type="module"> page in Firefox (Chromium runs it in tests/js/packaging.test.mjs),
// selfheal/ai in a module page in Chromium and Firefox, and what each engine throws for a
// failed fetch, classified. Firefox is driven through geckodriver (tests/packaging/firefox.mjs).
// Run by `make test-packaging` (needs `make build`).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, cpSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT, installPackedPackage, launchChromium, pageResult, serveStatic } from "./harness.mjs";
import { firefoxPageResult, launchFirefox } from "./firefox.mjs";

const run = promisify(execFile);
let project;
let server;
let chromium;
let firefox;

before(async () => {
  ({ project } = await installPackedPackage());
  cpSync(join(ROOT, "tests", "packaging", "fixtures"), project, { recursive: true });
  cpSync(join(ROOT, "tests", "packaging", "ecosystem"), project, { recursive: true });
  copyFileSync(join(ROOT, "tests", "packaging", "scenario.mjs"), join(project, "scenario.mjs"));
  server = await serveStatic(project);
});

after(async () => {
  await firefox?.quit();
  await chromium?.close();
  await server?.close();
});

const chromiumBrowser = async () => (chromium ??= await launchChromium());
const firefoxDriver = async () => (firefox ??= await launchFirefox());

/** The same scenario in Node ESM: every engine must give the same instructions. */
async function nodeReference() {
  const { stdout } = await run(process.execPath, ["esm.mjs"], { cwd: project, timeout: 30_000 });
  const { build: _, ...rest } = JSON.parse(stdout);
  return rest;
}

/** A port on 127.0.0.1 that nobody listens on (taken, then released). */
async function closedPort() {
  const probe = createServer();
  await new Promise((ok) => probe.listen(0, "127.0.0.1", ok));
  const { port } = probe.address();
  await new Promise((ok) => probe.close(ok));
  return port;
}

const AI_EXPECTED = {
  calls: 3,
  steps: [["wait-for-backoff", 3], ["wait-for-backoff", 2], ["done", null]],
  structuredOutputText: '{"city": "Paris"}',
  standard: { source: "none", reason: "- /city: city is missing" },
  middleware: ["specificationVersion", "wrapGenerate", "wrapStream"],
  exports: ["SelfhealError", "createSelfhealAi", "degradeOf", "forClassify", "repairText", "repairToolCall", "selfhealMiddleware"],
};

test("Firefox: the plain <script type=\"module\"> page gives the Node run's instructions", async () => {
  const result = await firefoxPageResult(await firefoxDriver(), `${server.url}/plain.html`);
  assert.equal(result.build, "web");
  const { build: _, ...rest } = result;
  assert.deepEqual(rest, await nodeReference());
});

test("Chromium: selfheal/ai in a module page (browser condition, after init())", async () => {
  assert.deepEqual(await pageResult(await chromiumBrowser(), `${server.url}/page-ai.html`), AI_EXPECTED);
});

test("Firefox: selfheal/ai in a module page (browser condition, after init())", async () => {
  assert.deepEqual(await firefoxPageResult(await firefoxDriver(), `${server.url}/page-ai.html`), AI_EXPECTED);
});

// The engines differ in what a failed fetch throws (SPEC section 10 lists both messages);
// classify must call each of them transient/network.
test("a failed fetch: Chromium's and Firefox's errors differ, both classify as transient/network", async () => {
  const port = await closedPort();
  const url = `${server.url}/fetch-error.html?port=${port}`;
  const page = await (await chromiumBrowser()).newPage();
  let inChromium;
  try {
    await page.goto(url);
    await page.waitForFunction(() => "__result" in window || "__error" in window, null, { timeout: 20_000 });
    const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
    assert.equal(error, undefined, error);
    inChromium = result;
  } finally {
    await page.close();
  }
  const inFirefox = await firefoxPageResult(await firefoxDriver(), url);
  assert.deepEqual(inChromium, { name: "TypeError", message: "Failed to fetch", class: "transient", cause: "network", signal: "message" });
  assert.deepEqual(inFirefox, { name: "TypeError", message: "NetworkError when attempting to fetch resource.", class: "transient", cause: "network", signal: "message" });
});
