// Node CommonJS: require("selfheal/lite") gives the same CommonJS lite build.
const lite = require("selfheal/lite");

import("./scenario.mjs").then(({ runScenario }) => console.log(JSON.stringify(runScenario(lite))));
