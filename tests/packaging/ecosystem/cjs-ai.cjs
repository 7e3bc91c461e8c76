const ai = require("selfheal/ai");

(async () => {
  const standard = await import("selfheal/standard");
  const { runAiScenario } = await import("./ai-scenario.mjs");
  const result = await runAiScenario(ai, standard);
  console.log(JSON.stringify({ ...result, exports: Object.keys(ai).sort() }));
})();
