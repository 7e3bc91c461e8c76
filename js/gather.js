// Reads, in one call from wasm, everything SPEC section 3 looks at on a thrown value (see
// `error_info` in src/wasm/read.rs, which turns this into `ErrorInfo`). Reading the ~25 places
// one `Reflect.get` at a time from Rust cost a boundary crossing each (~5 µs per classify); here
// they are plain property reads in JIT-compiled JS.
//
// Rules, the same as the Rust reader they replace: a read from anything that is not an object or
// function is `undefined`; a getter, Proxy trap or revoked Proxy that throws is `undefined`; only
// strings and numbers are kept (BigInt, Symbol and objects are dropped); every string is made
// well-formed (a lone surrogate becomes U+FFFD, as it would crossing into Rust as text). Numbers
// stay numbers: Rust decides what they mean. Never throws for any input.
//
// Shipped as a wasm-bindgen snippet: ESM as written (the web target); scripts/build.sh turns the
// `export` into `module.exports` for the CommonJS (nodejs target) glue.

const MAX_ENTRIES = 256; // MAX_ENTRIES in src/wasm/read.rs: hostile header objects can be huge

const isObj = (o) => o !== null && (typeof o === 'object' || typeof o === 'function');

function get(o, k) {
  if (!isObj(o)) return undefined;
  try {
    return o[k];
  } catch {
    return undefined;
  }
}

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const wellFormed =
  typeof String.prototype.toWellFormed === 'function'
    ? (s) => s.toWellFormed()
    : (s) => s.replace(LONE, '\uFFFD');

function str(v) {
  return typeof v === 'string' ? wellFormed(v) : null;
}

function scalar(v) {
  if (typeof v === 'string') return wellFormed(v);
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  return null;
}

function pushStr(out, v) {
  const s = str(v);
  if (s !== null) out.push(s);
}

function pushScalar(out, v) {
  const s = scalar(v);
  if (s !== null) out.push(s);
}

function headerPairs(h) {
  const out = [];
  if (!isObj(h)) return out;
  const push = (k, v) => {
    if (typeof k !== 'string') return;
    let value;
    try {
      value = scalar(Array.isArray(v) ? get(v, 0) : v);
    } catch {
      value = null; // Array.isArray throws on a revoked Proxy
    }
    if (value !== null) out.push([wellFormed(k), value]);
  };
  try {
    const iterable =
      (typeof Headers === 'function' && h instanceof Headers) || h instanceof Map;
    if (iterable) {
      const pairs = Array.from(h);
      for (let i = 0; i < pairs.length && i < MAX_ENTRIES; i++) {
        push(get(pairs[i], 0), get(pairs[i], 1));
      }
      return out;
    }
    const keys = Reflect.ownKeys(h);
    for (let i = 0; i < keys.length && i < MAX_ENTRIES; i++) {
      if (typeof keys[i] === 'string') push(keys[i], get(h, keys[i]));
    }
  } catch {
    // instanceof with a throwing Symbol.hasInstance trap, a throwing iterator or ownKeys trap:
    // whatever was read so far stands.
  }
  return out;
}

// JSON text of one kept value: a well-formed string or a finite number.
const enc = (v) => (typeof v === 'string' ? JSON.stringify(v) : String(v));
const list = (xs) => `[${xs.map(enc).join(',')}]`;

/**
 * JSON text of `[present, name, className, status[], types[], codes[], messages[], headers[]]`
 * (`headers` as `[name, value]` pairs). Built by hand: `JSON.stringify` of the same thing as an
 * object costs more than all the reads together.
 */
export function gatherError(error) {
  if (error === null || error === undefined) return '[false,null,null,[],[],[],[],[]]';
  if (typeof error === 'string') {
    return `[true,null,null,[],[],[],[${enc(wellFormed(error))}],[]]`; // threw a bare string
  }
  const status = [];
  const types = [];
  const codes = [];
  const messages = [];
  const inner = get(error, 'error');
  const inner2 = get(inner, 'error');
  const response = get(error, 'response');
  const cause = get(error, 'cause');

  const name = str(get(error, 'name'));
  const className = str(get(get(error, 'constructor'), 'name'));
  pushScalar(status, get(error, 'status'));
  pushScalar(status, get(error, 'statusCode'));
  pushScalar(status, get(response, 'status'));
  pushStr(types, get(inner, 'type'));
  pushStr(types, get(inner2, 'type'));
  pushStr(types, get(error, 'type'));
  pushScalar(codes, get(error, 'code'));
  pushScalar(codes, get(cause, 'code'));
  pushScalar(codes, get(inner, 'code'));
  pushScalar(codes, get(inner2, 'code'));
  // Deeper causes, after the places SPEC lists: undici hides the socket error two levels down
  // (SDK error -> TypeError('fetch failed') -> SocketError).
  let deeper = get(cause, 'cause');
  for (let i = 0; i < 3; i++) {
    pushScalar(codes, get(deeper, 'code'));
    deeper = get(deeper, 'cause');
  }
  pushStr(messages, get(error, 'message'));
  pushStr(messages, get(inner, 'message'));
  pushStr(messages, get(inner2, 'message'));
  const h = get(error, 'headers');
  const headers = headerPairs(isObj(h) ? h : get(response, 'headers'));
  return (
    `[true,${name === null ? 'null' : enc(name)},${className === null ? 'null' : enc(className)},` +
    `${list(status)},${list(types)},${list(codes)},${list(messages)},` +
    `[${headers.map(([k, v]) => `[${enc(k)},${enc(v)}]`).join(',')}]]`
  );
}

/**
 * How `next(outcome)` starts, in one call: `[costUsd, ...gatherError(error)]` for an outcome
 * `{kind: "error", error, costUsd?}` whose cost is absent, null or a finite number >= 0; the
 * kind itself for "reply", "rejected" and "invalid" (read once, so the Rust side does not read
 * it again); "" for anything else (not an object, a getter that throws, another kind, a bad
 * cost), which the Rust side then reads field by field, with its errors.
 */
export function gatherErrorOutcome(outcome) {
  if (!isObj(outcome)) return '';
  let error;
  let cost;
  try {
    const kind = outcome.kind;
    if (kind === 'reply' || kind === 'rejected' || kind === 'invalid') return kind;
    if (kind !== 'error') return '';
    error = outcome.error;
    cost = outcome.costUsd;
  } catch {
    return '';
  }
  if (cost === undefined || cost === null) cost = 0;
  else if (!(typeof cost === 'number' && Number.isFinite(cost) && cost >= 0)) return '';
  return `[${String(cost)},${gatherError(error)}]`;
}
