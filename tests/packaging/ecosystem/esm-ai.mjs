import * as ai from "selfheal/ai";
import * as standard from "selfheal/standard";
import { startModelCall } from "selfheal/otel";
import { runAiScenario } from "./ai-scenario.mjs";

const result = await runAiScenario(ai, standard);
console.log(JSON.stringify({ ...result, otel: typeof startModelCall, exports: Object.keys(ai).sort() }));
