// The test driver: `workerd test config.capnp` runs this test() handler. It is the browser's part:
// it POSTs a question to the example Worker (through the service binding env.APP, as an HTTP
// client would), reads the NDJSON body line by line as it streams, and prints every event with
// the moment it arrived on a "RESULT" line for worker_stream.test.mjs to check.
async function* ndjsonLines(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line) yield JSON.parse(line);
    }
  }
  if (buffer.trim()) yield JSON.parse(buffer);
}

export default {
  async test(ctrl, env) {
    const ask = async (question) => {
      const response = await env.APP.fetch("http://worker.example/", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ question }),
      });
      const events = [];
      for await (const event of ndjsonLines(response.body)) events.push({ ...event, at: Date.now() });
      return { status: response.status, contentType: response.headers.get("content-type"), events };
    };
    // The mock model's script decides what each call streams (see worker_stream.test.mjs).
    const results = [await ask("Tell me about the Eiffel Tower"), await ask("Tell me about the Colosseum")];
    console.log("RESULT " + JSON.stringify(results));
  },
};
