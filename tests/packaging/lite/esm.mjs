// Node ESM: "selfheal/lite" by name (the "node" condition: the CommonJS lite build), and the full
// "selfheal" beside it in the same process: two builds, two instances, each its own answer.
import * as lite from "selfheal/lite";
import { RepairLoop } from "selfheal/lite";
import * as full from "selfheal";
import { runScenario } from "./scenario.mjs";

if (lite.RepairLoop !== RepairLoop) throw new Error("named and namespace imports differ");
if (lite.RepairLoop === full.RepairLoop) throw new Error("selfheal/lite resolved to the full build");
const fullSays = new full.Schema({ type: "object", required: ["city"] }).validate({});
console.log(JSON.stringify({ ...runScenario(lite), fullValidates: fullSays !== null }));
