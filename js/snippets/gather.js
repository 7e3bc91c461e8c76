// Reads, in one call from wasm, everything SPEC section 3 looks at on a thrown value, as the JSON
// text of the core's `ErrorInfo` (crates/selfheal-hot/src/classify.rs; `error_info` in
// src/wasm/read.rs hands it to `selfheal_hot::gather`, which deserializes it as it is). Reading
// the ~25 places one `Reflect.get` at a time from Rust cost a boundary crossing each (~5 µs per
// classify); here they are plain property reads in JIT-compiled JS.
//
// Rules, the same as the Rust reader they replace: a read from anything that is not an object or
// function is `undefined`; a getter, Proxy trap or revoked Proxy that throws is `undefined`; only
// strings and numbers are kept (BigInt, Symbol and objects are dropped); every string is made
// well-formed (a lone surrogate becomes U+FFFD, as it would crossing into Rust as text). A status
// is a whole number in 100..=999 (a number or a numeric string, read as Rust's `str::parse::<f64>`
// after `str::trim` reads it); codes and header values are text, a number written as Rust prints
// an f64 (`plain`). Never throws for any input. The fuzz model of this reader is `to_error_info`
// in fuzz/src/lib.rs.
//
// Shipped as a wasm-bindgen snippet: ESM as written (the web target); scripts/build.sh turns the
// `export` into `module.exports` for the CommonJS (nodejs target) glue.

const MAX_ENTRIES = 256; // hostile header objects can be huge

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

// Each string read is cut to this many UTF-16 units before anything else: classification looks at
// words near the start, a reason shows 300 characters, and a 100-million-character message took
// seconds and 200 MB per copy (an outside review). A surrogate pair cut in two ends in U+FFFD.
const MAX_TEXT_UNITS = 65536;

/** A string read from the error, cut to MAX_TEXT_UNITS and well-formed. */
function clipped(s) {
  return wellFormed(s.length > MAX_TEXT_UNITS ? s.slice(0, MAX_TEXT_UNITS) : s);
}

function str(v) {
  return typeof v === 'string' ? clipped(v) : null;
}

function scalar(v) {
  if (typeof v === 'string') return clipped(v);
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  return null;
}

function pushStr(out, v) {
  const s = str(v);
  if (s !== null) out.push(s);
}

/**
 * A number as Rust prints an f64: no exponent (`1e21` is "1000000000000000000000"), a sign on
 * -0. Where two 17-digit texts are equally near the number, JS and Rust may pick either: the same
 * number either way (tests/gather_model.rs).
 */
function plain(n) {
  if (Object.is(n, -0)) return '-0';
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(String(n));
  if (m === null) return String(n);
  const [, sign, first, rest = '', e] = m;
  const exp = Number(e);
  return exp > 0 ? sign + (first + rest).padEnd(exp + 1, '0') : `${sign}0.${'0'.repeat(-exp - 1)}${first}${rest}`;
}

/** A string, or a finite number as text (`plain`). */
function text(v) {
  const s = scalar(v);
  return typeof s === 'number' ? plain(s) : s;
}

function pushText(out, v) {
  const s = text(v);
  if (s !== null) out.push(s);
}

// Rust's `str::trim` (Unicode White_Space) and the decimal forms `str::parse::<f64>` reads (its
// `inf` and `nan` are never a status).
const RUST_BLANK = /^[\t\n\v\f\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+|[\t\n\v\f\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+$/g;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** An HTTP status: a whole number in 100..=999, given as a number or a numeric string. */
function statusOf(v) {
  let n = v;
  if (typeof v === 'string') {
    const t = v.replace(RUST_BLANK, '');
    n = DECIMAL.test(t) ? Number(t) : NaN;
  }
  return typeof n === 'number' && Number.isInteger(n) && n >= 100 && n <= 999 ? n : null;
}

function headerPairs(h) {
  const out = [];
  if (!isObj(h)) return out;
  const push = (k, v) => {
    if (typeof k !== 'string') return;
    let value;
    try {
      value = text(Array.isArray(v) ? get(v, 0) : v);
    } catch {
      value = null; // Array.isArray throws on a revoked Proxy
    }
    // Names lower-cased in ASCII only, as Rust's `to_ascii_lowercase`.
    if (value !== null) out.push([wellFormed(k).replace(/[A-Z]+/g, (c) => c.toLowerCase()), value]);
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

// JSON text of a list of well-formed strings.
const list = (xs) => `[${xs.map((x) => JSON.stringify(x)).join(',')}]`;

const MAX_BODY_CHARS = 65536; // a JSON body quoted in a message or sent as text is parsed up to this size

/** An error body given as JSON text (Mistral's SDK `body`, the AI SDK's `responseBody`), parsed. */
function parseBody(text) {
  if (typeof text !== 'string' || text.length > MAX_BODY_CHARS) return undefined;
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/**
 * The JSON object a message ends with, parsed: `@google/genai` throws `ApiError` whose message is
 * the body's JSON, Vertex AI's `ClientError` says `got status: 429 Too Many Requests. {...}`.
 */
function quotedBody(message) {
  if (typeof message !== 'string' || message.length > MAX_BODY_CHARS) return undefined;
  const open = message.indexOf('{');
  return open < 0 ? undefined : parseBody(message.slice(open));
}

const isHttpStatus = (v) => typeof v === 'number' && Number.isInteger(v) && v >= 400 && v <= 599;

/**
 * Where the value may keep its provider's error body, after the thrown value itself: `body`
 * (Cohere's SDK; Mistral's as text), `data` (the AI SDK's APICallError), `response.data` (axios),
 * `responseBody` (the AI SDK, as text), and a JSON body quoted in the message.
 */
function bodies(error, response, message) {
  const out = [];
  // The common case (a status, a network error): nothing to parse, nothing allocated past `out`.
  for (const b of [get(error, 'body'), get(error, 'data'), get(response, 'data')]) {
    const parsed = typeof b === 'string' ? parseBody(b) : b;
    if (isObj(parsed)) out.push(parsed);
  }
  const text = parseBody(get(error, 'responseBody'));
  if (isObj(text)) out.push(text);
  const quoted = quotedBody(message);
  if (isObj(quoted)) out.push(quoted);
  return out;
}

/** Moderation metadata (OpenRouter: `{reasons: [...], flagged_input: "..."}`). */
function flagged(metadata) {
  if (!isObj(metadata)) return false;
  if (typeof get(metadata, 'flagged_input') === 'string') return true;
  try {
    return Array.isArray(get(metadata, 'reasons'));
  } catch {
    return false; // a revoked Proxy
  }
}

/**
 * JSON text of the core's `ErrorInfo` by its serde names (`{present, name, className, status,
 * statusTexts, types, codes, messages, causeNames, retryable, overloaded, flagged, headers}`,
 * `headers` as `[name, value]` pairs; crates/selfheal-hot/src/classify.rs says where each field
 * comes from); fields that are empty, false or null are left out (they are its defaults), so a
 * plain `{status: 503}` crosses as `{"present":true,"className":"Object","status":503}`. Built
 * by hand: `JSON.stringify` of the same object costs more than all the reads together.
 */
export function gatherError(error) {
  if (error === null || error === undefined) return NOTHING;
  if (typeof error === 'string') {
    return record({ present: true, messages: [clipped(error)] }); // threw a bare string
  }
  const bodyStatus = []; // 4xx/5xx numbers in `code` places: the status when there is no other
  const statusTexts = [];
  const types = [];
  const codes = [];
  const messages = [];
  const causeNames = [];
  const inner = get(error, 'error');
  const inner2 = get(inner, 'error');
  const response = get(error, 'response');
  const cause = get(error, 'cause');

  const name = str(get(error, 'name'));
  const className = str(get(get(error, 'constructor'), 'name'));
  const ownStatus = get(error, 'status');
  const statuses = [ownStatus, get(error, 'statusCode'), get(response, 'status'),
    get(get(error, '$metadata'), 'httpStatusCode')]; // the last: the AWS SDK
  pushStr(statusTexts, ownStatus); // Vertex AI's GoogleApiError: status "RESOURCE_EXHAUSTED"
  pushStr(statusTexts, get(inner, 'status'));
  pushStr(statusTexts, get(inner2, 'status'));
  pushStr(types, get(inner, 'type'));
  pushStr(types, get(inner2, 'type'));
  pushStr(types, get(error, 'type'));
  const code = get(error, 'code');
  pushText(codes, code);
  pushText(codes, get(cause, 'code'));
  const innerCode = get(inner, 'code');
  pushText(codes, innerCode);
  const inner2Code = get(inner2, 'code');
  pushText(codes, inner2Code);
  if (isHttpStatus(code)) bodyStatus.push(code);
  if (isHttpStatus(innerCode)) bodyStatus.push(innerCode);
  if (isHttpStatus(inner2Code)) bodyStatus.push(inner2Code);
  // Deeper causes, after the places SPEC lists: undici hides the socket error two levels down
  // (SDK error -> TypeError('fetch failed') -> SocketError).
  let deeper = get(cause, 'cause');
  for (let i = 0; i < 3; i++) {
    pushText(codes, get(deeper, 'code'));
    deeper = get(deeper, 'cause');
  }
  const message = get(error, 'message');
  pushStr(messages, message);
  pushStr(messages, get(inner, 'message'));
  pushStr(messages, get(inner2, 'message'));
  pushStr(types, get(error, '__type')); // AWS JSON protocol
  let isFlagged = flagged(get(error, 'metadata')) || flagged(get(inner, 'metadata')) || flagged(get(inner2, 'metadata'));
  // Provider bodies kept elsewhere on the value (see `bodies`): their words come after SPEC's.
  for (const body of bodies(error, response, message)) {
    const envelope = get(body, 'error');
    for (const b of [body, envelope]) {
      pushStr(statusTexts, get(b, 'status'));
      pushStr(types, get(b, 'type'));
      pushStr(types, get(b, '__type'));
      const c = get(b, 'code');
      pushText(codes, c);
      if (isHttpStatus(c)) bodyStatus.push(c);
      pushStr(messages, get(b, 'message'));
      isFlagged = isFlagged || flagged(get(b, 'metadata'));
    }
  }
  pushStr(causeNames, get(cause, 'name'));
  pushStr(causeNames, get(get(cause, 'cause'), 'name'));
  pushStr(causeNames, get(get(error, 'reason'), 'name'));
  const h = get(error, 'headers');
  const r = get(response, 'headers');
  const headers = headerPairs(isObj(h) ? h : isObj(r) ? r : get(error, 'responseHeaders'));
  const status = statuses.map(statusOf).find((s) => s !== null) ?? bodyStatus[0] ?? null;
  return record({
    present: true, name, className, status, statusTexts, types, codes, messages, causeNames,
    retryable: get(error, 'retryable') === true, overloaded: get(error, 'overloaded') === true,
    flagged: isFlagged, headers,
  });
}

/** The JSON text of an `ErrorInfo`, without its empty, false and null fields. */
function record(g) {
  let out = g.present ? '"present":true' : '';
  const add = (key, text) => {
    out += `${out === '' ? '' : ','}"${key}":${text}`;
  };
  if (typeof g.name === 'string') add('name', JSON.stringify(g.name));
  if (typeof g.className === 'string') add('className', JSON.stringify(g.className));
  if (typeof g.status === 'number') add('status', String(g.status));
  if (g.statusTexts?.length) add('statusTexts', list(g.statusTexts));
  if (g.types?.length) add('types', list(g.types));
  if (g.codes?.length) add('codes', list(g.codes));
  if (g.messages?.length) add('messages', list(g.messages));
  if (g.causeNames?.length) add('causeNames', list(g.causeNames));
  if (g.retryable) add('retryable', 'true');
  if (g.overloaded) add('overloaded', 'true');
  if (g.flagged) add('flagged', 'true');
  if (g.headers?.length) add('headers', `[${g.headers.map(list).join(',')}]`);
  return `{${out}}`;
}

const NOTHING = record({ present: false });

/**
 * How `next(outcome)` starts, in one call, as the JSON text of `OutcomeStart` (src/wasm/read.rs,
 * serde's externally tagged enum):
 * - `{"error":[{...},n]}`: an outcome `{kind: "error", error, costUsd?}` whose cost `n` is
 *   absent (0), null (0) or a finite number >= 0, the error gathered by `gatherError`;
 * - `{"kind":k}`: `k` is "reply", "rejected" or "invalid" (read once here, so the Rust side
 *   does not read it again);
 * - `"unread"`: anything else (not an object, a getter that throws, another kind, a bad cost),
 *   which the Rust side reads field by field, with its errors.
 */
export function startOutcome(outcome) {
  const UNREAD = '"unread"';
  if (!isObj(outcome)) return UNREAD;
  let error;
  let cost;
  try {
    const kind = outcome.kind;
    if (kind === 'reply' || kind === 'rejected' || kind === 'invalid') return `{"kind":"${kind}"}`;
    if (kind !== 'error') return UNREAD;
    error = outcome.error;
    cost = outcome.costUsd;
  } catch {
    return UNREAD;
  }
  if (cost === undefined || cost === null) cost = 0;
  else if (!(typeof cost === 'number' && Number.isFinite(cost) && cost >= 0)) return UNREAD;
  return `{"error":[${gatherError(error)},${String(cost)}]}`;
}

let nodeRandomFill;

/**
 * `buf` (a view of wasm memory) filled with random bytes, for src/wasm/random.rs: Node's
 * `crypto.randomFillSync` where `process.getBuiltinModule` gives it, else
 * `crypto.getRandomValues`. In a fresh Node process the first use of `globalThis.crypto` loads
 * Node's whole WebCrypto (about 3.5 ms of the first `new Schema`, whose hash maps draw their keys
 * here); `node:crypto` is loaded already. Throws where the host gives no random values (a
 * Cloudflare Worker's global scope): the Rust side imports it with `catch`.
 */
export function randomFill(buf) {
  if (nodeRandomFill === undefined) {
    nodeRandomFill = null;
    try {
      const crypto = globalThis.process?.getBuiltinModule?.('node:crypto');
      if (typeof crypto?.randomFillSync === 'function') nodeRandomFill = crypto.randomFillSync;
    } catch {
      // No Node: the Web Crypto API below.
    }
  }
  if (nodeRandomFill !== null) nodeRandomFill(buf);
  else globalThis.crypto.getRandomValues(buf);
}
