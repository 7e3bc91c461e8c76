// selfheal/ai from a CommonJS TypeScript file (nodenext, the "require" condition's types).
import ai = require("selfheal/ai");

const middleware = ai.selfhealMiddleware({ seed: 1 });
export const version: "v4" = middleware.specificationVersion;
export const reason: string | undefined = ai.degradeOf(new Error("x"))?.reason;
