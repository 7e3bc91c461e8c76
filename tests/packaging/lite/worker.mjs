// A Worker bundled with the "workerd" condition: "selfheal/lite" is the lite workerd entry (the
// .wasm imported as a module, initialised synchronously). Run by `workerd test`.
import * as lite from "selfheal/lite";
import { runScenario } from "./scenario.mjs";

export default {
  async test() {
    console.log("LITE " + JSON.stringify(runScenario(lite)));
  },
};
