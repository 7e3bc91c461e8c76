#!/usr/bin/env node
// Cold start in workerd: CPU time of a Worker's first request, in fresh workerd processes.
//
//   node bench/workerd-cold.mjs [--runs 11] [--json out.json]
//
// Each sample bundles bench/workerd/worker.mjs as Wrangler would (the package's `workerd`
// condition, the .wasm kept as a module), starts `workerd serve` on a free loopback port, waits
// until it listens, and sends one request. CPU time is read from /proc/<pid>/task/*/schedstat
// (nanoseconds on a CPU, all of workerd's threads) before and after that request.
//
// `workerd serve` (the version in package.json) runs the Worker's module scope (compiling the
// .wasm, a module-scope Schema) before it listens, as Cloudflare does when an isolate starts
// (module scope has its own limit there; the per-request limit, 10 ms on the free plan, sees the
// handler). So the CPU before the request ("startup") holds module scope and the request's CPU
// the handler, plus a little of workerd's own. The variants of bench/workerd/worker.mjs separate
// them: the handler's own CPU is "module" minus "module-only" (the same module scope, an empty
// handler); the module-scope Schema costs "module-only" minus "empty" in startup CPU.
// "module-warm" minus "module-warm-only" is the handler's own CPU when module scope also ran one
// seeded loop (README, "In Cloudflare Workers"), which costs "module-warm-only" minus
// "module-only" in startup CPU.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PKG = path.resolve(process.env.SELFHEAL_PKG || path.join(ROOT, 'pkg'));
const WORKERD = path.join(ROOT, 'node_modules', '.bin', 'workerd');
const argv = process.argv.slice(2);
const option = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const RUNS = Number(option('--runs', 11));
const JSON_OUT = option('--json', null);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** CPU nanoseconds used so far by every thread of `pid`. */
function cpuNs(pid) {
  let total = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that just exited
    }
  }
  return total;
}

const freePort = () =>
  new Promise((ok, fail) => {
    const server = net.createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });

async function listening(port, child, deadline) {
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`workerd exited with ${child.exitCode}`);
    const ok = await new Promise((done) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('workerd did not listen in time');
}

async function build(variant, dir) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'bench', 'workerd', 'worker.mjs')],
    bundle: true,
    format: 'esm',
    logLevel: 'silent',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    alias: { selfheal: path.join(PKG, 'workerd.js') },
    define: { VARIANT: JSON.stringify(variant) },
    loader: { '.wasm': 'copy' },
    assetNames: '[name]',
    outdir: dir,
  });
  const port = await freePort();
  fs.writeFileSync(
    path.join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "selfheal_bg.wasm", wasm = embed "selfheal_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
);
`,
  );
  return port;
}

async function sample(dir, port) {
  const child = spawn(WORKERD, ['serve', path.join(dir, 'config.capnp')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  try {
    await listening(port, child, Date.now() + 30_000);
    await new Promise((r) => setTimeout(r, 50)); // let workerd settle after binding
    const before = cpuNs(child.pid);
    const response = await fetch(`http://127.0.0.1:${port}/`).catch((e) => {
      throw new Error(`request failed (${e.cause?.code ?? e.message}); workerd said:\n${stderr}`);
    });
    const body = await response.text();
    const after = cpuNs(child.pid);
    if (body !== 'ok') throw new Error(`worker answered ${response.status}: ${body}\n${stderr}`);
    return { startupMs: before / 1e6, firstRequestMs: (after - before) / 1e6 };
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('close', r));
  }
}

const results = {};
for (const variant of ['empty', 'module-only', 'module', 'handler', 'module-warm-only', 'module-warm']) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `selfheal-workerd-${variant}-`));
  try {
    const port = await build(variant, dir);
    const samples = [];
    process.stderr.write(`workerd: ${variant}\n`);
    for (let i = 0; i < RUNS; i++) samples.push(await sample(dir, port));
    results[variant] = {
      startupMs: median(samples.map((s) => s.startupMs)),
      firstRequestMs: median(samples.map((s) => s.firstRequestMs)),
      firstRequestRange: [Math.min(...samples.map((s) => s.firstRequestMs)), Math.max(...samples.map((s) => s.firstRequestMs))],
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
const label = {
  empty: 'selfheal loaded, empty handler',
  'module-only': 'Schema at module scope, empty handler',
  module: 'Schema at module scope, loop in the handler',
  handler: 'Schema and loop both in the first request',
  'module-warm-only': 'Schema and a seeded warm-up loop at module scope, empty handler',
  'module-warm': 'Schema and a seeded warm-up loop at module scope, loop in the handler',
};
console.log(`| workerd (median of ${RUNS} fresh processes; CPU time) | first request (with module scope) | range |`);
console.log('| --- | ---: | --- |');
for (const [k, r] of Object.entries(results)) {
  console.log(`| ${label[k]} | ${r.firstRequestMs.toFixed(2)} ms | ${r.firstRequestRange.map((x) => x.toFixed(2)).join('–')} ms |`);
}
const derived = {
  handlerMs: results.module.firstRequestMs - results['module-only'].firstRequestMs,
  moduleScopeSchemaMs: results['module-only'].startupMs - results.empty.startupMs,
  warmHandlerMs: results['module-warm'].firstRequestMs - results['module-warm-only'].firstRequestMs,
  warmUpMs: results['module-warm-only'].startupMs - results['module-only'].startupMs,
};
console.log(`| **the handler's own CPU** (module − module-only): the loop on a 0.5 KB reply | ${derived.handlerMs.toFixed(2)} ms | |`);
console.log(`| the module-scope new Schema (module-only − empty, CPU before the request) | ${derived.moduleScopeSchemaMs.toFixed(2)} ms | |`);
console.log(`| the handler's own CPU after a module-scope warm-up loop (module-warm − module-warm-only) | ${derived.warmHandlerMs.toFixed(2)} ms | |`);
console.log(`| the module-scope warm-up loop (module-warm-only − module-only, CPU before the request) | ${derived.warmUpMs.toFixed(2)} ms | |`);
if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify({ runs: RUNS, results, derived }, null, 2) + '\n');
