// One cold start, run by bench/run.mjs in a fresh Node process per sample (a process that has
// already compiled the same bytes would hit V8's native-module cache). Prints one JSON line.
//
//   node bench/startup.cjs module  PKG_DIR  read the .wasm, WebAssembly.compile (async, as the web
//                                           glue does), WebAssembly.instantiate with the import
//                                           object filled by no-op stubs (WebAssembly.Module.imports)
//   node bench/startup.cjs require PKG_DIR  require() of the nodejs glue (read + synchronous
//                                           compile + instantiate + __wbindgen_start + glue JS),
//                                           then the first new Schema of the 2 KB order schema,
//                                           a later new Schema never seen before (the order
//                                           schema with another $comment), and the first
//                                           Schema.parse (0.5 KB order). The first of each pays
//                                           V8's lazy compilation of the functions it runs.
//                                           The *CpuMs fields are the process's CPU time (all
//                                           threads) over the same spans: on a loaded machine the
//                                           wall times inflate with waiting, the CPU times less.
'use strict';
const fs = require('fs');
const path = require('path');
const { performance } = require('perf_hooks');

const [mode, pkgDir] = process.argv.slice(2);
const wasmPath = path.join(pkgDir, 'selfheal_bg.wasm');

async function moduleMode() {
  const t0 = performance.now();
  const bytes = fs.readFileSync(wasmPath);
  const t1 = performance.now();
  const module = await WebAssembly.compile(bytes);
  const t2 = performance.now();
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.kind !== 'function') throw new Error(`unexpected ${imp.kind} import ${imp.module}.${imp.name}`);
    (imports[imp.module] ??= {})[imp.name] = () => {
      throw new Error('stub import called during instantiation');
    };
  }
  const t3 = performance.now();
  await WebAssembly.instantiate(module, imports);
  const t4 = performance.now();
  return { readMs: t1 - t0, compileMs: t2 - t1, instantiateMs: t4 - t3 };
}

async function requireMode() {
  const { ORDER_SCHEMA, orderText } = await import('./fixtures.mjs');
  const text = orderText(512);
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const c0 = cpu();
  const t0 = performance.now();
  const selfheal = require(path.join(pkgDir, 'selfheal.js'));
  const t1 = performance.now();
  const c1 = cpu();
  const schema = new selfheal.Schema(ORDER_SCHEMA);
  const t2 = performance.now();
  const c2 = cpu();
  new selfheal.Schema({ ...ORDER_SCHEMA, $comment: 'a later schema' });
  const t3 = performance.now();
  const r = schema.parse(text);
  const t4 = performance.now();
  if (!r.ok) throw new Error('first parse failed');
  return {
    requireMs: t1 - t0, firstSchemaMs: t2 - t1, laterSchemaMs: t3 - t2, firstParseMs: t4 - t3,
    requireCpuMs: c1 - c0, firstSchemaCpuMs: c2 - c1,
  };
}

(mode === 'module' ? moduleMode() : requireMode()).then(
  (r) => process.stdout.write(JSON.stringify(r) + '\n'),
  (e) => {
    process.stderr.write(String(e && e.stack) + '\n');
    process.exit(1);
  },
);
