// The isolate's side of the fleet coordinator: a RepairLoop whose breaker and retry budget are the
// fleet's, at the price of one Durable Object round trip per resend.
//
// How a loop sees the fleet's decision (theory of operation):
//
// 1. Each outcome is fed to the loop as usual, but first the loop's state is kept: for the first
//    outcome, the options (with a seed) the loop was made from; later, `loop.toJSON()` (~20 µs,
//    paid only after a call has failed or needed repair). The loop has no breaker or budget of
//    its own, so its answer is what it would do if both allowed everything.
// 2. If that answer asks for no call (done, degrade), nothing waits: the outcome (a first call, a
//    success, a transient failure) joins this isolate's pending events, sent in a batch.
// 3. If it asks for a resend (wait-for-backoff, send-repair-prompt), the isolate asks the
//    coordinator once (`decide`): the coordinator records this outcome in the fleet's breaker and
//    budget exactly as the loop would have (first call, failure, breaker open at the time of the
//    call, then `tryRetry`), atomically, and answers go or refused, with the state it decided on.
// 4. Go: the loop's answer stands (with a breaker and budget that allow the call, a loop answers
//    exactly as it did without them). Refused: the loop is made again from what was kept
//    (`new RepairLoop(options, b, r)` or `RepairLoop.fromJSON(kept, b, r)`), with copies `b` and
//    `r` of that breaker and budget, and fed the same outcome at the same `now`; being
//    deterministic, it reaches the coordinator's decision itself: a `degrade` with reason
//    `circuit-open` or `retry-budget-exhausted`, its own detail, attempts and fallback.
//
// The isolate also keeps its own copy of the fleet's breaker and budget: the newest View it was
// given, plus what its own loops have seen since. It asks the breaker copy before a first call
// (no round trip), and if the coordinator cannot be reached, the copy decides, exactly as a
// per-isolate breaker and budget would, until the coordinator answers again.
//
// Durable Object stubs and promises are not shared between requests (Workers forbid I/O objects
// across request contexts): each call makes its own stub; only plain data lives at module scope.
import { CircuitBreaker, RepairLoop, RetryBudget } from "selfheal";
import { emptyEvents, isEmpty, mergeEvents, readPolicy, tally } from "./protocol.js";

const fleets = new Map();

/** The isolate's Fleet for one endpoint (one coordinator object per endpoint name). */
export function fleetFor(env, endpoint) {
  let fleet = fleets.get(endpoint);
  if (!fleet) {
    fleet = new Fleet(endpoint, readPolicy(env));
    fleets.set(endpoint, fleet);
  }
  return fleet;
}

/** The coordinator's name for an endpoint: the API URL, so one object per provider endpoint. */
export function endpointName(baseUrl, path = "/v1/messages") {
  return new URL(path, baseUrl.replace(/\/+$/, "") + "/").href;
}

export class Fleet {
  /** @param {string} name the coordinator object's name  @param policy readPolicy(env) */
  constructor(name, policy) {
    this.name = name;
    this.policy = policy;
    this.pending = emptyEvents();
    this.copy = null;          // { version, breaker: CircuitBreaker, budget: RetryBudget }
    this.flushAt = null;       // when the scheduled flush runs (null: none scheduled)
    this.lastFlush = 0;
    this.asking = false;       // a cold isolate's first request is asking for a View
  }

  stub(env) {
    return env.FLEET.get(env.FLEET.idFromName(this.name));
  }

  /** Install a View if it is newer than the copy held. */
  install(view) {
    if (this.copy && view.version <= this.copy.version) return;
    const breaker = CircuitBreaker.fromJSON(view.breaker);
    const budget = RetryBudget.fromJSON(view.retryBudget);
    this.copy?.breaker.free();
    this.copy?.budget.free();
    this.copy = { version: view.version, breaker, budget };
  }

  /** The isolate's copy; made from the policy alone until the coordinator has answered. */
  localCopy() {
    this.copy ??= {
      version: -1,
      breaker: new CircuitBreaker(this.policy.breaker),
      budget: new RetryBudget(this.policy.retryBudget),
    };
    return this.copy;
  }

  /**
   * Before a first call: may it be made? Asks the isolate's copy of the breaker (no round trip);
   * an isolate that has no copy yet asks the coordinator for one first.
   * @returns {Promise<{ open: boolean, asked: boolean, ms: number | null }>}
   */
  async admit(env, now = Date.now()) {
    let asked = false;
    let ms = null;
    // Requests arriving together at a cold isolate wait for the first one's answer (polling: a
    // promise must not be shared between requests), up to 100 ms, before asking themselves.
    for (let i = 0; i < 20 && !this.copy && this.asking; i++) await scheduler.wait(5);
    if (!this.copy) {
      asked = true;
      this.asking = true;
      try {
        ms = await this.flush(env).catch(() => null);
      } finally {
        this.asking = false;
      }
      if (!this.copy) this.localCopy();
    }
    return { open: this.copy.breaker.isOpen(now), asked, ms };
  }

  /**
   * A loop for one request: `{ loop, options, asks }`, for `next()`; free with `call.loop.free()`.
   * The seed is drawn here when absent (inside a handler), so that the loop before its first
   * outcome can be made again from `options` alone.
   */
  start(options) {
    const seed = options.seed ?? crypto.getRandomValues(new Uint32Array(1))[0];
    const withSeed = { ...options, seed };
    return { loop: new RepairLoop(withSeed), options: withSeed, asks: [] };
  }

  /**
   * Feed `outcome` to `call.loop`; ask the coordinator when the loop wants a resend. Replaces
   * `call.loop` when the loop had to be restored to see a refusal.
   * @param {{ loop: RepairLoop, options: object, asks: number[] }} call  from start(); `asks`
   *   collects the round trips' ms
   */
  async next(env, call, outcome, now = Date.now()) {
    const firstCall = call.loop.attempts.length === 0; // as the loop decides when to record it
    const kept = firstCall ? null : call.loop.toJSON(); // null: made again from call.options
    const step = call.loop.next(outcome, now);
    const resend = step.type === "wait-for-backoff" || step.type === "send-repair-prompt";
    const failure = outcome.kind === "error" && step.classified?.class === "transient";
    if (!resend) {
      // Reported later; and seen at once by the isolate's copy, as by a breaker and budget the
      // loop held itself.
      const copy = this.localCopy();
      if (firstCall) {
        tally(this.pending.firstCalls, now);
        copy.budget.recordRequest(now);
      }
      if (failure) {
        tally(this.pending.failures, now);
        copy.breaker.recordFailure(now);
      }
      if (step.type === "done") {
        this.pending.successAt = Math.max(this.pending.successAt ?? now, now);
        copy.breaker.recordSuccess();
      }
      return step;
    }

    const ask = { now, firstCall, failure, callAt: now + (step.delayMs ?? 0), events: this.pending };
    this.pending = emptyEvents();
    let answer;
    const sent = Date.now();
    try {
      answer = await this.stub(env).decide(ask);
      call.asks.push(Date.now() - sent);
    } catch (error) {
      // The coordinator cannot be reached: the isolate's copy decides, and this outcome waits
      // with the other pending events for the next report.
      console.log(`fleet: coordinator ${this.name} unreachable (${error?.message ?? error}); deciding locally`);
      mergeEvents(this.pending, ask.events);
      if (firstCall) tally(this.pending.firstCalls, now);
      if (failure) tally(this.pending.failures, now);
      const copy = this.localCopy();
      const again = this.#replay(call, kept, outcome, now, copy.breaker, copy.budget);
      if (again.type === "wait-for-backoff" || again.type === "send-repair-prompt") {
        tally(this.pending.resends, now);
        // The loop goes on: take it off the copy, so that its next answer is again its own.
        const state = call.loop.toJSON();
        call.loop.free();
        call.loop = RepairLoop.fromJSON(state);
      }
      return again;
    }
    this.install(answer.view);
    if (answer.go) return step;

    const breaker = CircuitBreaker.fromJSON(answer.before.breaker);
    const budget = RetryBudget.fromJSON(answer.before.retryBudget);
    try {
      const again = this.#replay(call, kept, outcome, now, breaker, budget);
      if (again.type !== "degrade" || again.reason !== answer.refused) {
        throw new Error(`fleet: the coordinator refused (${answer.refused}) but the restored loop answered ${again.type} ${again.reason ?? ""}`);
      }
      return again;
    } finally {
      breaker.free(); // the loop keeps its own handle on both
      budget.free();
    }
  }

  /** Restore the loop as it was before `outcome` with this breaker and budget, and feed it again. */
  #replay(call, kept, outcome, now, breaker, budget) {
    call.loop.free();
    call.loop = kept ? RepairLoop.fromJSON(kept, breaker, budget) : new RepairLoop(call.options, breaker, budget);
    return call.loop.next(outcome, now);
  }

  /**
   * Send the pending events (and get a fresh View). Resolves with the round trip's ms; on failure
   * the events go back to the pending ones and the promise rejects.
   */
  async flush(env) {
    const events = this.pending;
    this.pending = emptyEvents();
    this.lastFlush = Date.now();
    const sent = Date.now();
    try {
      this.install(await this.stub(env).report({ events }));
      return Date.now() - sent;
    } catch (error) {
      mergeEvents(this.pending, events);
      throw error;
    }
  }

  /**
   * At the end of a request: make sure pending events reach the coordinator within `flushMs`,
   * in the background (`ctx.waitUntil`), one flush per isolate at a time.
   */
  settle(env, ctx) {
    if (isEmpty(this.pending) || this.flushAt !== null) return;
    this.flushAt = Math.max(Date.now(), this.lastFlush + this.policy.flushMs);
    ctx.waitUntil((async () => {
      try {
        // Events that arrive while a report is out go in the next one, flushMs later; a few
        // rounds at most here, then the next request schedules again.
        for (let round = 0; round < 5 && !isEmpty(this.pending); round++) {
          const wait = this.flushAt - Date.now();
          if (wait > 0) await scheduler.wait(wait);
          await this.flush(env);
          this.flushAt = this.lastFlush + this.policy.flushMs;
        }
      } catch (error) {
        console.log(`fleet: report to ${this.name} failed (${error?.message ?? error}); kept for the next one`);
      } finally {
        this.flushAt = null;
      }
    })());
  }
}
