// The seat belt for a trap (issue 10 item 2), inlined by scripts/build.sh into both glues.
//
// A trap (`RuntimeError: unreachable` after a Rust panic, any other WebAssembly.RuntimeError, or
// a stack overflow inside wasm)
// leaves the instance in an unknown state: borrow flags held, the allocator mid-operation, the
// stack pointer not restored. Every later call would fail with another cryptic trap, or worse,
// succeed on corrupt state. So the exports the glue calls are wrapped: the first RuntimeError
// marks the instance dead, and that call and every later one throw one clear Error saying so
// (with the original RuntimeError as its `cause`). Freeing an object of a dead instance does
// nothing, so `free()`, `using` and the FinalizationRegistry never throw after a trap.
//
// Cost: one extra JS call per wasm call (a `trap === null` check and a try/catch, which V8
// optimises away while nothing throws); see docs/PERFORMANCE.md.
//
// Not a module: this text is pasted into the generated glue, which calls
// `__selfhealGuard(instance.exports)` where it used `instance.exports`.
function __selfhealGuard(exports) {
  let trap = null;
  const dead = (cause) =>
    new Error(
      "selfheal: the WebAssembly instance trapped" +
        (cause && cause.message ? ` (${cause.name || "RuntimeError"}: ${cause.message})` : "") +
        " and cannot be used again; every selfheal object of this module instance is lost. " +
        "Load selfheal in a new process, isolate or page (in a Worker, let the request fail: " +
        "the runtime starts a new isolate). A trap is a bug in selfheal: please report it " +
        "with the input that caused it.",
      { cause },
    );
  const caught = (e) => {
    if (trap !== null) return trap;
    // A stack overflow inside wasm is a RangeError, and leaves Rust's stack pointer unrestored.
    const overflow = e instanceof RangeError && /call stack/i.test(e.message);
    if (e instanceof WebAssembly.RuntimeError || overflow) {
      trap = dead(e);
      return trap;
    }
    return e;
  };
  const guarded = {};
  for (const name of Object.keys(exports)) {
    const f = exports[name];
    if (typeof f !== "function") {
      guarded[name] = f;
      continue;
    }
    // Freeing: after a trap there is nothing left to free, and a finalizer must not throw.
    const frees = /_free$/.test(name) || name === "__wbindgen_free";
    guarded[name] = guard(f, frees);
  }
  // One wrapper per arity, with exactly the function's own parameters: V8 inlines these into
  // the glue's call sites (a rest parameter or surplus arguments cost an adaptor frame).
  function guard(f, frees) {
    const dead = () => {
      if (frees) return undefined;
      throw trap;
    };
    switch (f.length) {
      case 0: return function () { if (trap !== null) return dead(); try { return f(); } catch (x) { throw caught(x); } };
      case 1: return function (a) { if (trap !== null) return dead(); try { return f(a); } catch (x) { throw caught(x); } };
      case 2: return function (a, b) { if (trap !== null) return dead(); try { return f(a, b); } catch (x) { throw caught(x); } };
      case 3: return function (a, b, c) { if (trap !== null) return dead(); try { return f(a, b, c); } catch (x) { throw caught(x); } };
      case 4: return function (a, b, c, d) { if (trap !== null) return dead(); try { return f(a, b, c, d); } catch (x) { throw caught(x); } };
      case 5: return function (a, b, c, d, e) { if (trap !== null) return dead(); try { return f(a, b, c, d, e); } catch (x) { throw caught(x); } };
      case 6: return function (a, b, c, d, e, g) { if (trap !== null) return dead(); try { return f(a, b, c, d, e, g); } catch (x) { throw caught(x); } };
      default: return function (...args) { if (trap !== null) return dead(); try { return f(...args); } catch (x) { throw caught(x); } };
    }
  }
  return guarded;
}
