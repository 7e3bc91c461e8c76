// The fleet coordinator: one Durable Object per provider endpoint, holding the CircuitBreaker and
// the RetryBudget that every Worker isolate calling that endpoint shares (src/state.js).
//
// A Durable Object runs one event at a time, and nothing here awaits between reading the state and
// answering, so each RPC is atomic: the breaker and the budget move exactly as one in-process
// breaker and budget shared by every loop would, in the order the calls arrive. Every change is
// written to storage (CircuitBreaker/RetryBudget toJSON()) and read back in the constructor
// (fromJSON()), so eviction, a restart or a deploy loses nothing.
//
// The protocol (Ask, Answer, Report, View) is described in src/protocol.js.
import { DurableObject } from "cloudflare:workers";
import { readPolicy } from "./protocol.js";
import { FleetState } from "./state.js";

const KEY = "fleet";

export class FleetCoordinator extends DurableObject {
  #state;

  constructor(ctx, env) {
    super(ctx, env);
    const policy = readPolicy(env);
    // Nothing is served before the state is back from storage.
    ctx.blockConcurrencyWhile(async () => {
      this.#state = new FleetState(policy, (await ctx.storage.get(KEY)) ?? null);
      if (this.#state.reset) console.log(`fleet: ${this.#state.reset}`);
    });
  }

  /** Before a resend (Ask -> Answer). */
  decide(ask) {
    const answer = this.#state.decide(ask);
    return { ...answer, view: this.#save() };
  }

  /** Outcomes nobody waits for (Report -> View); the answer refreshes the isolate's copy. */
  report(report) {
    this.#state.report(report);
    return this.#save();
  }

  /** Everything, for people and tests (GET /fleet). */
  inspect() {
    return this.#state.inspect();
  }

  /** Write the state; returns the View. Not awaited: the object's output gate holds the answer
   * until the write is durable, so no isolate acts on a state a restart could lose, and the next
   * call does not wait for the disk. */
  #save() {
    const stored = this.#state.toJSON();
    this.ctx.storage.put(KEY, stored);
    return { version: stored.meta.version, breaker: stored.breaker, retryBudget: stored.retryBudget };
  }
}
