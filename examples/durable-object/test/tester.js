// The test driver: starts a call through the example's HTTP API (env.APP, a service binding),
// then polls GET /calls/:id until the Durable Object's alarm has resumed the loop and finished.
export default {
  async test(ctrl, env) {
    const api = async (path, init) => {
      const response = await env.APP.fetch(`http://worker.example${path}`, init);
      return { status: response.status, body: await response.json() };
    };
    const started = await api("/calls", { method: "POST", body: JSON.stringify({ question: "Where is the Eiffel Tower?" }) });
    const polls = [];
    let current = started;
    for (let i = 0; i < 200 && !["done", "degraded"].includes(current.body.status); i++) {
      await scheduler.wait(25);
      current = await api(`/calls/${started.body.id}`);
      polls.push(current.body.status);
    }
    console.log("RESULT " + JSON.stringify({ started, final: current, polls }));
    // A null body is a 400 and an id of 64 hex digits that is not one of this namespace a 404
    // (both were 500s).
    const bad = [await api("/calls", { method: "POST", body: "null" }), await api(`/calls/${"a".repeat(64)}`)];
    console.log("BAD " + JSON.stringify(bad));
  },
};
