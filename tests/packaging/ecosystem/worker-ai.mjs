// A Worker bundled with the workerd condition: selfheal/ai is bound to the workerd entry.
import * as ai from "selfheal/ai";
import * as standard from "selfheal/standard";
import { runAiScenario } from "./ai-scenario.mjs";

export default {
  async test() {
    console.log("AI " + JSON.stringify({ ...(await runAiScenario(ai, standard)), exports: Object.keys(ai).sort() }));
  },
};
