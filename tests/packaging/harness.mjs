// Shared machinery for the packaging and example tests (not a test file itself):
// pack pkg/ and install it by name into a scratch project, bundle with esbuild, serve files on
// 127.0.0.1, drive headless Chromium through playwright-core, run `workerd test`.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const PKG = join(ROOT, "pkg");
export const WORKERD = join(ROOT, "node_modules", ".bin", "workerd");
const run = promisify(execFile);

/** A scratch folder removed when the process exits (unless KEEP_TMP is set, for debugging). */
export function scratch(prefix) {
  const dir = mkdtempSync(join(tmpdir(), `selfheal-${prefix}-`));
  if (!process.env.KEEP_TMP) process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * `npm pack` the built pkg/ and `npm install` the tarball (offline: it has no dependencies) into a
 * fresh project, so "selfheal" resolves by name through the published `files` and `exports`.
 * Returns the project folder and the list of files in the tarball.
 */
export async function installPackedPackage() {
  assert.ok(existsSync(join(PKG, "package.json")), "pkg/ is not built: run `make build`");
  const dir = scratch("consumer");
  const npmArgs = ["--no-audit", "--no-fund", "--loglevel=error"];
  const { stdout } = await run("npm", ["pack", PKG, "--pack-destination", dir, "--json", ...npmArgs], { cwd: dir });
  const [packed] = JSON.parse(stdout);
  const project = join(dir, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "selfheal-consumer", private: true }, null, 2));
  await run("npm", ["install", "--offline", "--ignore-scripts", ...npmArgs, join(dir, packed.filename)], { cwd: project });
  return { project, tarball: join(dir, packed.filename), files: packed.files.map((f) => f.path).sort() };
}

/** esbuild, from the repo's devDependencies, resolving bare imports from `absWorkingDir`. */
export async function bundle(options) {
  const esbuild = await import("esbuild");
  return esbuild.build({ bundle: true, format: "esm", logLevel: "silent", ...options });
}

/** The esbuild options for a Worker, as Wrangler resolves packages: the `workerd` condition,
 * each imported .wasm kept as a module import next to the bundle (workerd compiles it), and the
 * runtime's own modules (`cloudflare:workers`) left to the runtime. */
export const WORKER_BUNDLE = {
  platform: "browser",
  external: ["cloudflare:*"],
  conditions: ["workerd", "worker", "browser"],
  loader: { ".wasm": "copy" },
  assetNames: "[name]",
};

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
};

/** A static file server for `dir` on 127.0.0.1 and a random port. */
export async function serveStatic(dir) {
  const base = resolve(dir);
  const server = createServer((req, res) => {
    if (req.url === "/favicon.ico") return void res.writeHead(204).end(); // keeps the console clean
    const path = normalize(join(base, decodeURIComponent(new URL(req.url, "http://x").pathname)));
    if (!(path + sep).startsWith(base + sep) || !existsSync(path) || !statSync(path).isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": MIME[extname(path)] ?? "application/octet-stream" });
    createReadStream(path).pipe(res);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((ok) => server.close(ok)) };
}

export const CHROMIUM = {
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
};

/** Launch headless Chromium once for a test file; returns the browser (close it in `after`). */
export async function launchChromium() {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ ...CHROMIUM, headless: true, timeout: 30_000 });
}

/**
 * Open `url`, wait until the page sets `window.__result` (or `window.__error`), and return it.
 * A page error, console error, failed request or HTTP error response fails the test at once.
 */
export async function pageResult(browser, url) {
  const page = await browser.newPage();
  const problems = [];
  let failNow;
  const failed = new Promise((_, reject) => (failNow = reject));
  const problem = (text) => {
    problems.push(text);
    failNow(new Error(`${url}:\n${problems.join("\n")}`));
  };
  page.on("pageerror", (e) => problem(`pageerror: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problem(`console: ${m.text()}`));
  page.on("requestfailed", (r) => problem(`requestfailed: ${r.url()}`));
  page.on("response", (r) => r.status() >= 400 && problem(`HTTP ${r.status()}: ${r.url()}`));
  try {
    await Promise.race([
      failed,
      page.goto(url).then(() => page.waitForFunction(() => "__result" in window || "__error" in window, null, { timeout: 20_000 })),
    ]);
    const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
    assert.equal(error, undefined, `${url}: ${error}`);
    assert.deepEqual(problems, [], url);
    return result;
  } finally {
    failed.catch(() => {}); // a problem after the result was read is reported by the assert above
    await page.close();
  }
}

/**
 * `workerd test <config>`: runs the `test()` handler of every service in the config. Resolves with
 * the exit code and output; `env` is added to the environment (for `fromEnvironment` bindings).
 */
export function workerdTest(config, { env = {}, timeoutMs = 60_000 } = {}) {
  return new Promise((ok, fail) => {
    const child = spawn(WORKERD, ["test", config], { env: { ...process.env, ...env }, cwd: dirname(config) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", fail);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      ok({ code, signal, stdout, stderr, output: stdout + stderr });
    });
  });
}

/** The JSON printed by a worker as a line `<TAG> {...}`; fails with the whole output if absent. */
/**
 * Bundles `worker.mjs` in `dir` against the package's "workerd" entry, writes a one-Worker
 * workerd config beside it (the module and the .wasm embedded) and runs its test handler.
 */
export async function runTestWorker(dir) {
  await bundle({ absWorkingDir: dir, entryPoints: ["worker.mjs"], outdir: join(dir, "out"), ...WORKER_BUNDLE, alias: { selfheal: join(PKG, "workerd.js") } });
  writeFileSync(join(dir, "out", "config.capnp"), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = ( services = [ (name = "main", worker = .worker) ] );
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js"), (name = "selfheal_bg.wasm", wasm = embed "selfheal_bg.wasm") ],
  compatibilityDate = "2025-09-01",
);
`);
  return workerdTest(join(dir, "out", "config.capnp"));
}

export function taggedJson(output, tag) {
  const line = output.split("\n").find((l) => l.startsWith(`${tag} `));
  assert.ok(line, `no "${tag}" line in workerd output:\n${output}`);
  return JSON.parse(line.slice(tag.length + 1));
}
