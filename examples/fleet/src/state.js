// What a coordinator holds for one provider endpoint, and how it answers: the fleet's
// CircuitBreaker and RetryBudget, counters, and the breaker's transitions. No I/O: the Durable
// Object (src/coordinator.js) loads it, calls one method per RPC, and stores `toJSON()`; tests run
// it directly in Node (tests/js/fleet.test.mjs).
//
// `decide(ask)` does for one outcome what a RepairLoop holding this breaker and budget does in
// `next()`, in the same order (RepairLoop::next_with, pre_call_check):
//
//   1. a first call is recorded in the budget     budget.recordRequest(now)
//   2. a transient failure in the breaker         breaker.recordFailure(now)
//   3. the resend is refused if the breaker is still open when it would be made, asked
//      without moving it (a copy's isOpen(callAt): until the reset timeout has really passed
//      the breaker stays open for everyone, as RepairLoop's own check leaves it)
//                                                 copy.isOpen(callAt)     -> "circuit-open"
//   4. else the budget is asked, and spent if it allows
//                                                 budget.tryRetry(now)    -> "retry-budget-exhausted"
//      (a refusal leaves the budget as it was, as the loop's own check does)
//
// so that a loop restored with copies of the state before step 1 (`before`) and fed the same
// outcome at the same `now` reaches the same decision. The protocol is in src/protocol.js.
import { CircuitBreaker, RetryBudget } from "selfheal";
import { readEvents, time } from "./protocol.js";

const MAX_TRANSITIONS = 100;

export class FleetState {
  /**
   * @param {{ breaker: object, retryBudget: object }} policy  the options of both
   * @param {object | null} stored  a previous `toJSON()`; reused only if made under this policy
   * @param {number} now  when it is loaded
   */
  constructor(policy, stored = null, now = Date.now()) {
    this.policy = { breaker: policy.breaker, retryBudget: policy.retryBudget };
    this.config = JSON.stringify(this.policy);
    if (stored && stored.config === this.config) {
      this.breaker = CircuitBreaker.fromJSON(stored.breaker);
      this.budget = RetryBudget.fromJSON(stored.retryBudget);
      this.meta = stored.meta;
      this.reset = null;
    } else {
      // First use, or other options since the state was written: start closed and empty.
      this.breaker = new CircuitBreaker(this.policy.breaker);
      this.budget = new RetryBudget(this.policy.retryBudget);
      this.meta = {
        version: 0, lastFailureAt: null, lastSuccessAt: null, transitions: [], startedAt: now,
        stats: { asks: 0, reports: 0, granted: 0, refused: { "circuit-open": 0, "retry-budget-exhausted": 0 },
                 firstCalls: 0, failures: 0, successes: 0, resends: 0, ignored: 0 },
      };
      this.reset = stored ? `FLEET_POLICY changed (${stored.config} -> ${this.config}); starting afresh` : null;
    }
    this.loadedAt = now;
  }

  /** Before a resend (Ask -> Answer, without the View). Throws a TypeError naming a bad field
   * before changing anything. */
  decide(ask) {
    const { now, callAt, firstCall, failure, events } = ask ?? {};
    time(now, "ask.now");
    time(callAt, "ask.callAt");
    this.#apply(readEvents(events, "ask.events"));
    const before = this.snapshot();
    const stats = this.meta.stats;
    stats.asks += 1;
    if (firstCall === true) {
      this.budget.recordRequest(now);
      stats.firstCalls += 1;
    }
    if (failure === true) this.#failure(now);
    let refused = null;
    const copy = CircuitBreaker.fromJSON(this.breaker.toJSON());
    try {
      if (copy.isOpen(callAt)) refused = "circuit-open";
    } finally {
      copy.free();
    }
    if (refused === null && !this.#tryRetry(now)) refused = "retry-budget-exhausted";
    if (refused) stats.refused[refused] += 1;
    else stats.granted += 1;
    this.meta.version += 1;
    return refused ? { go: false, refused, before } : { go: true, refused };
  }

  /** Outcomes nobody waits for (Report). Throws a TypeError naming a bad field before changing
   * anything. */
  report(report) {
    const events = readEvents(report?.events, "report.events");
    this.meta.stats.reports += 1;
    this.#apply(events);
    this.meta.version += 1;
  }

  /** The breaker's and the budget's states (toJSON). */
  snapshot() {
    return { breaker: this.breaker.toJSON(), retryBudget: this.budget.toJSON() };
  }

  /** What an isolate keeps a copy of. */
  view() {
    return { version: this.meta.version, ...this.snapshot() };
  }

  /** Everything, to store (and to give back to the constructor). */
  toJSON() {
    return { config: this.config, ...this.snapshot(), meta: this.meta };
  }

  /** Everything, for people and tests: options, states, counters, the breaker's transitions. */
  inspect(now = Date.now()) {
    return {
      policy: this.policy,
      version: this.meta.version,
      breaker: this.breaker.toJSON(),
      breakerState: this.breaker.state,
      retryBudget: this.budget.toJSON(),
      available: this.budget.available,
      lastFailureAt: this.meta.lastFailureAt,
      lastSuccessAt: this.meta.lastSuccessAt,
      stats: structuredClone(this.meta.stats),
      transitions: [...this.meta.transitions],
      startedAt: this.meta.startedAt,
      loadedAt: this.loadedAt,
      inspectedAt: now,
    };
  }

  /** `budget.tryRetry(now)`, leaving the budget untouched when it refuses, as the loop's own
   * check does: a refused `tryRetry` still moves the budget's clock to `now` (its `latest`). */
  #tryRetry(now) {
    const unspent = this.budget.toJSON();
    if (this.budget.tryRetry(now)) return true;
    this.budget.free();
    this.budget = RetryBudget.fromJSON(unspent);
    return false;
  }

  // ---- the breaker, with its transitions written down ----

  #failure(at) {
    this.meta.stats.failures += 1;
    this.meta.lastFailureAt = Math.max(this.meta.lastFailureAt ?? at, at);
    this.#watch(at, () => this.breaker.recordFailure(at));
  }

  #success(at) {
    this.meta.stats.successes += 1;
    this.meta.lastSuccessAt = Math.max(this.meta.lastSuccessAt ?? at, at);
    this.#watch(at, () => this.breaker.recordSuccess());
  }

  #watch(at, f) {
    const from = this.breaker.state;
    const result = f();
    const to = this.breaker.state;
    if (from !== to) {
      const list = this.meta.transitions;
      list.push({ from, to, at });
      if (list.length > MAX_TRANSITIONS) list.splice(0, list.length - MAX_TRANSITIONS);
    }
    return result;
  }

  // ---- reported events, oldest first ----

  #apply(events) {
    const meta = this.meta;
    for (const [at, kind, n] of events) {
      switch (kind) {
        case "first-call":
          for (let i = 0; i < n; i++) this.budget.recordRequest(at);
          meta.stats.firstCalls += n;
          break;
        case "failure":
          // A failure older than the latest success says nothing about the provider now: the
          // breaker counts failures since the last success. Reported late, the breaker counts it
          // as of its latest failure, so it never shortens an open breaker's wait.
          if (meta.lastSuccessAt !== null && at < meta.lastSuccessAt) {
            meta.stats.ignored += n;
            break;
          }
          for (let i = 0; i < n; i++) this.#failure(at);
          break;
        case "success":
          // A success older than the latest failure does not undo it (the breaker may have opened
          // on failures that came after that success).
          if (meta.lastFailureAt !== null && at < meta.lastFailureAt) {
            meta.stats.ignored += 1;
            break;
          }
          this.#success(at);
          break;
        case "resend":
          // Made while the coordinator was unreachable: counted as far as the budget has room
          // (RetryBudget has no way to count a resend it did not allow).
          for (let i = 0; i < n; i++) this.budget.tryRetry(at);
          meta.stats.resends += n;
          break;
      }
    }
  }
}
