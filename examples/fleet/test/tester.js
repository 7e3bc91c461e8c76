// The test driver. `workerd test` runs this test() handler, which plays the plan in env.PHASE
// (JSON, written by tests/packaging/fleet.test.mjs) against the app isolates and prints what it
// saw on one line, "RESULT [...]":
//
//   { "wave": { "perApp": 30, "question": "...", "apps": [1, 2, 3] } }
//                          perApp requests to each app listed, all at once
//   { "serial": { "count": 20, "question": "..." } }   one request after another to app 1
//   { "sleep": 300 }       wait (lets the isolates' background reports land)
//   { "inspect": true }    GET /fleet on app 1: the coordinator's state
import { DurableObject } from "cloudflare:workers";

/** A coordinator that cannot be reached: app-4 is bound to it (config.capnp). */
export class Unreachable extends DurableObject {
  decide() {
    throw new Error("coordinator unreachable (test)");
  }
  report() {
    throw new Error("coordinator unreachable (test)");
  }
}

export default {
  async test(ctrl, env) {
    const apps = { 1: env.APP1, 2: env.APP2, 3: env.APP3, 4: env.APP4 };
    const ask = async (a, question) => {
      const response = await apps[a].fetch("http://app.example/", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ question }),
      });
      return { app: a, status: response.status, body: await response.json() };
    };
    const seen = [];
    for (const step of JSON.parse(env.PHASE)) {
      if (step.wave) {
        const { perApp, question, apps: which = [1, 2, 3] } = step.wave;
        const started = Date.now();
        const responses = await Promise.all(which.flatMap((a) =>
          Array.from({ length: perApp }, (_, i) => ask(a, `${question} (app ${a}, request ${i + 1})`))));
        seen.push({ wave: responses, ms: Date.now() - started });
      } else if (step.serial) {
        const responses = [];
        for (let i = 0; i < step.serial.count; i++) responses.push(await ask(1, `${step.serial.question} (serial ${i + 1})`));
        seen.push({ serial: responses });
      } else if (step.sleep) {
        await scheduler.wait(step.sleep);
        seen.push({ slept: step.sleep });
      } else if (step.inspect) {
        const response = await env.APP1.fetch("http://app.example/fleet");
        seen.push({ inspect: await response.json() });
      } else {
        throw new Error(`tester: unknown step ${JSON.stringify(step)}`);
      }
    }
    console.log("RESULT " + JSON.stringify(seen));
  },
};
