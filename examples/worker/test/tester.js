// The test driver: `workerd test config.capnp` runs this test() handler, which calls the example
// Worker through a service binding (env.APP) exactly as an HTTP client would, and prints each
// answer on a "RESULT" line for examples.test.mjs to check.
export default {
  async test(ctrl, env) {
    const ask = async (question) => {
      const response = await env.APP.fetch("http://worker.example/", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ question }),
      });
      return { status: response.status, body: await response.json() };
    };
    // The mock LLM's script decides what each call gets (see examples.test.mjs).
    const results = [await ask("Where is the Eiffel Tower?"), await ask("Where is the Colosseum?")];
    console.log("RESULT " + JSON.stringify(results));
    // Bad bodies are a 400, a JSON null included (it was a 500: null cannot be destructured).
    const bad = [];
    for (const body of ["null", "[]", "{bad", JSON.stringify({ question: 1 })]) {
      const response = await env.APP.fetch("http://worker.example/", { method: "POST", body });
      bad.push(response.status);
    }
    console.log("BAD " + JSON.stringify(bad));
  },
};
