// What crosses between a Worker isolate (src/fleet.js) and the coordinator (src/coordinator.js).
// Both sides import this file, so each name is written once.
//
// Worker -> coordinator, as Durable Object RPC calls on the stub:
//
//   decide(Ask) -> Answer      before a resend: one round trip, on the request's critical path
//   report(Report) -> View     outcomes nobody waits for, in a batch (ctx.waitUntil)
//   inspect() -> Inspection    the whole state, for people and tests (GET /fleet)
//
// Ask    { now, firstCall, failure, callAt, events: Events }
//          now        the Worker's clock when the outcome arrived (the loop's `now`)
//          firstCall  this outcome is the loop's first call's (the loop records it in the budget)
//          failure    this outcome is a transient failure (the loop records it in the breaker)
//          callAt     when the resend would be made: now + delayMs for wait-for-backoff
//          events     the isolate's other outcomes not yet reported (applied first)
// Answer { go, refused, before?: Snapshot, view: View }
//          go         the resend may be made (it was counted in the budget)
//          refused    null | "circuit-open" | "retry-budget-exhausted" (the loop's stop reasons)
//          before     refused only: the state the Ask was decided on; a loop restored with copies
//                     of it, fed the same outcome at the same `now`, reaches the same decision
//                     (src/fleet.js)
//          view       the state after the Ask, for the isolate's own copy
// Report { events: Events }
// Events { firstCalls: Tally, failures: Tally, successAt: number | null, resends: Tally }
//          firstCalls first calls whose outcome asked for nothing (done, hard-fail, ...)
//          failures   transient failures that asked for nothing (transient-exhausted, ...)
//          successAt  the latest `done` (one success closes the breaker; older ones add nothing)
//          resends    resends made while the coordinator could not be reached
// Tally  [[at, count], ...]: times in ms, counts of events at that time, oldest first
// View   { version, breaker, retryBudget }: CircuitBreaker and RetryBudget toJSON() states;
//          `version` grows with every change, so an isolate keeps the newest view it was given
// Snapshot { breaker, retryBudget }

/** The decisions a coordinator can refuse a resend with: the RepairLoop's own stop reasons. */
export const REFUSALS = Object.freeze(["circuit-open", "retry-budget-exhausted"]);

/** Most entries a Tally may carry; an isolate merges into the last one beyond that. */
export const MAX_TALLY = 256;

/** Most events one Tally entry may count (a bound on the work a report can cause). */
export const MAX_COUNT = 100_000;

/** Events with nothing in them. */
export function emptyEvents() {
  return { firstCalls: [], failures: [], successAt: null, resends: [] };
}

/** Whether `events` holds nothing to report. */
export function isEmpty(events) {
  return events.firstCalls.length === 0 && events.failures.length === 0 && events.resends.length === 0 && events.successAt === null;
}

/** Count `n` events at `at` in a tally. */
export function tally(list, at, n = 1) {
  const last = list[list.length - 1];
  if (!last || at > last[0]) {
    if (list.length < MAX_TALLY) return void list.push([at, n]);
    last[0] = at; // full: fold into the last entry, as mergeTally does
  }
  if (at >= last[0]) last[1] = Math.min(last[1] + n, MAX_COUNT);
  else list.splice(0, list.length, ...mergeTally(list, [[at, n]])); // out of order: rare
}

/** Two tallies as one, oldest first; equal times share an entry, and entries beyond MAX_TALLY
 * fold into the last one (counted a little later than they happened). */
function mergeTally(a, b) {
  const out = [];
  for (const [at, n] of [...a, ...b].sort((x, y) => x[0] - y[0])) {
    const last = out[out.length - 1];
    if (last && (last[0] === at || out.length >= MAX_TALLY)) {
      last[0] = at;
      last[1] = Math.min(last[1] + n, MAX_COUNT);
    } else {
      out.push([at, n]);
    }
  }
  return out;
}

/** `b` folded into `a` (events taken for a round trip that failed go back to the pending ones). */
export function mergeEvents(a, b) {
  for (const key of ["firstCalls", "failures", "resends"]) a[key] = mergeTally(a[key], b[key]);
  if (b.successAt !== null) a.successAt = Math.max(a.successAt ?? b.successAt, b.successAt);
  return a;
}

/**
 * Checks events that came over RPC: a TypeError naming the field, never a half-applied report.
 * Returns them sorted by time as `[at, kind, count]`, the order the coordinator applies them in.
 */
export function readEvents(events, field = "events") {
  if (events === undefined || events === null) return [];
  if (typeof events !== "object") throw new TypeError(`fleet: ${field} must be an object`);
  const out = [];
  for (const [key, kind] of [["firstCalls", "first-call"], ["failures", "failure"], ["resends", "resend"]]) {
    const list = events[key] ?? [];
    if (!Array.isArray(list) || list.length > MAX_TALLY) throw new TypeError(`fleet: ${field}.${key} must be an array of at most ${MAX_TALLY} [at, count] pairs`);
    list.forEach((entry, i) => {
      const [at, n] = Array.isArray(entry) ? entry : [];
      if (!Number.isFinite(at) || !Number.isInteger(n) || n < 1 || n > MAX_COUNT) {
        throw new TypeError(`fleet: ${field}.${key}[${i}] must be [time, count] with a count from 1 to ${MAX_COUNT}`);
      }
      out.push([at, kind, n]);
    });
  }
  const { successAt = null } = events;
  if (successAt !== null) {
    if (!Number.isFinite(successAt)) throw new TypeError(`fleet: ${field}.successAt must be a finite number or null`);
    out.push([successAt, "success", 1]);
  }
  return out.sort((x, y) => x[0] - y[0]);
}

/** A finite number, or a TypeError naming the field. */
export function time(value, field) {
  if (!Number.isFinite(value)) throw new TypeError(`fleet: ${field} must be a finite number of ms`);
  return value;
}

/** The policy both sides use: `FLEET_POLICY` (JSON text or an object), defaults where absent. */
export function readPolicy(env) {
  let policy = env.FLEET_POLICY ?? {};
  if (typeof policy === "string") policy = policy.trim() === "" ? {} : JSON.parse(policy);
  if (policy === null || typeof policy !== "object") throw new TypeError("fleet: FLEET_POLICY must be an object");
  const { breaker = {}, retryBudget = {}, flushMs = 1000 } = policy;
  if (!(Number.isFinite(flushMs) && flushMs >= 0)) throw new RangeError("fleet: FLEET_POLICY.flushMs must be a number >= 0");
  return { breaker, retryBudget, flushMs };
}
