// The fleet coordinator: one Durable Object per provider endpoint, holding the CircuitBreaker and
// the RetryBudget that every Worker isolate calling that endpoint shares.
//
// A Durable Object runs one event at a time (its input gate holds other calls while it waits on
// its own storage), so each RPC below is atomic: the breaker and the budget move exactly as one
// in-process breaker and budget shared by every loop would, in the order the calls arrive.
// The state is written to storage with every change (CircuitBreaker/RetryBudget toJSON()) and read
// back in the constructor (fromJSON()), so eviction, a restart or a deploy loses nothing.
//
// The protocol (Ask, Answer, Report, View) is described in src/protocol.js.
import { DurableObject } from "cloudflare:workers";
import { CircuitBreaker, RetryBudget } from "selfheal";
import { readEvents, readPolicy, time } from "./protocol.js";

const KEY = "fleet";
const MAX_TRANSITIONS = 100;

export class FleetCoordinator extends DurableObject {
  #policy;     // { breaker, retryBudget }: this object's options
  #config;     // the options as text: a stored state made under other options is not reused
  #breaker;
  #budget;
  #meta;       // { version, lastFailureAt, lastSuccessAt, stats, transitions, startedAt }

  constructor(ctx, env) {
    super(ctx, env);
    const { breaker, retryBudget } = readPolicy(env);
    this.#policy = { breaker, retryBudget };
    this.#config = JSON.stringify(this.#policy);
    // Nothing is served before the state is back from storage.
    ctx.blockConcurrencyWhile(async () => this.#load(await ctx.storage.get(KEY)));
  }

  /** Before a resend (Ask -> Answer): the same checks, in the same order, as a RepairLoop given
   * this breaker and budget makes for that outcome. */
  decide(ask) {
    const { now, callAt, firstCall, failure, events } = ask ?? {};
    time(now, "ask.now");
    time(callAt, "ask.callAt");
    const applied = readEvents(events, "ask.events");
    this.#apply(applied);
    const before = this.#snapshot();
    const stats = this.#meta.stats;
    stats.asks += 1;
    if (firstCall === true) {
      this.#budget.recordRequest(now);
      stats.firstCalls += 1;
    }
    if (failure === true) this.#failure(now);
    let refused = null;
    if (this.#isOpen(callAt)) refused = "circuit-open";
    else if (!this.#budget.tryRetry(now)) refused = "retry-budget-exhausted";
    if (refused) stats.refused[refused] += 1;
    else stats.granted += 1;
    const view = this.#save();
    return refused ? { go: false, refused, before, view } : { go: true, refused, view };
  }

  /** Outcomes nobody waits for (Report -> View); the answer refreshes the isolate's copy. */
  report(report) {
    const applied = readEvents(report?.events, "report.events");
    this.#meta.stats.reports += 1;
    this.#apply(applied);
    return this.#save();
  }

  /** Everything, for people and tests: options, states, counters, the breaker's transitions. */
  inspect(now = Date.now()) {
    return {
      policy: this.#policy,
      version: this.#meta.version,
      breaker: this.#breaker.toJSON(),
      breakerState: this.#breaker.state,
      retryBudget: this.#budget.toJSON(),
      available: this.#budget.available,
      lastFailureAt: this.#meta.lastFailureAt,
      lastSuccessAt: this.#meta.lastSuccessAt,
      stats: structuredClone(this.#meta.stats),
      transitions: [...this.#meta.transitions],
      startedAt: this.#meta.startedAt,
      loadedAt: this.#meta.loadedAt,
      inspectedAt: now,
    };
  }

  // ---- state ----

  #load(stored) {
    const fresh = () => ({
      version: 0, lastFailureAt: null, lastSuccessAt: null, transitions: [], startedAt: Date.now(),
      stats: { asks: 0, reports: 0, granted: 0, refused: { "circuit-open": 0, "retry-budget-exhausted": 0 },
               firstCalls: 0, failures: 0, successes: 0, resends: 0, ignored: 0 },
    });
    if (stored && stored.config === this.#config) {
      this.#breaker = CircuitBreaker.fromJSON(stored.breaker);
      this.#budget = RetryBudget.fromJSON(stored.retryBudget);
      this.#meta = stored.meta;
    } else {
      // First use, or FLEET_POLICY changed since the state was written: start closed and empty.
      if (stored) console.log(`fleet: FLEET_POLICY changed (${stored.config} -> ${this.#config}); starting afresh`);
      this.#breaker = new CircuitBreaker(this.#policy.breaker);
      this.#budget = new RetryBudget(this.#policy.retryBudget);
      this.#meta = fresh();
    }
    this.#meta.loadedAt = Date.now();
  }

  /** Write the state; returns it as a View. Not awaited: the object's output gate holds the
   * answer until the write is durable, so no isolate acts on a state that could be lost, and the
   * next call does not wait for the disk. */
  #save() {
    this.#meta.version += 1;
    const view = { version: this.#meta.version, ...this.#snapshot() };
    this.ctx.storage.put(KEY, { config: this.#config, breaker: view.breaker, retryBudget: view.retryBudget, meta: this.#meta });
    return view;
  }

  #snapshot() {
    return { breaker: this.#breaker.toJSON(), retryBudget: this.#budget.toJSON() };
  }

  // ---- the breaker, with its transitions written down ----

  #isOpen(at) {
    return this.#watch(at, () => this.#breaker.isOpen(at));
  }

  #failure(at) {
    this.#meta.stats.failures += 1;
    this.#meta.lastFailureAt = Math.max(this.#meta.lastFailureAt ?? at, at);
    this.#watch(at, () => this.#breaker.recordFailure(at));
  }

  #success(at) {
    this.#meta.stats.successes += 1;
    this.#meta.lastSuccessAt = Math.max(this.#meta.lastSuccessAt ?? at, at);
    this.#watch(at, () => this.#breaker.recordSuccess());
  }

  #watch(at, f) {
    const from = this.#breaker.state;
    const result = f();
    const to = this.#breaker.state;
    if (from !== to) {
      const list = this.#meta.transitions;
      list.push({ from, to, at });
      if (list.length > MAX_TRANSITIONS) list.splice(0, list.length - MAX_TRANSITIONS);
    }
    return result;
  }

  // ---- reported events, oldest first ----

  #apply(events) {
    const meta = this.#meta;
    for (const [at, kind, n] of events) {
      switch (kind) {
        case "first-call":
          for (let i = 0; i < n; i++) this.#budget.recordRequest(at);
          meta.stats.firstCalls += n;
          break;
        case "failure":
          // A failure older than the latest success says nothing about the provider now: the
          // breaker counts failures since the last success. Reported late, it counts as of the
          // latest failure, so it never shortens an open breaker's wait.
          if (meta.lastSuccessAt !== null && at < meta.lastSuccessAt) {
            meta.stats.ignored += n;
            break;
          }
          for (let i = 0; i < n; i++) this.#failure(Math.max(at, meta.lastFailureAt ?? at));
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
          for (let i = 0; i < n; i++) this.#budget.tryRetry(at);
          meta.stats.resends += n;
          break;
      }
    }
  }
}
