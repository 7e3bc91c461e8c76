// The playground (www/) in headless Chromium, driven like a person would:
// presets, clicks and typing in every panel, checking what the page shows.
//
//   node --test tests/browser/        (needs pkg/web/ — the web build — and /usr/bin/chromium)
//
// Any console error, page error or failed request fails the test it happens in.
// Screenshots of every panel (desktop and 390px) go to test-artifacts/screenshots/.

import { test, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startServer } from "../../scripts/serve.mjs";
import { GOOD_ORDER, GOOD_TEXT, STREAM_BAD_TEXT } from "../../www/lib/scenario.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SHOTS = `${ROOT}test-artifacts/screenshots`;
const MOCK = `${ROOT}tests/mock-llm/server.mjs`;
const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

let server;
let browser;
let page;
/** Console errors, page errors and failed requests seen since the last check. */
let problems = [];
/** Console errors matching this are expected (the live test provokes HTTP errors on purpose). */
let expectedConsole = null;

function watch(p) {
  p.on("console", (m) => {
    if (m.type() !== "error") return;
    if (expectedConsole?.test(m.text())) return;
    problems.push(`console.error: ${m.text()}`);
  });
  p.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  p.on("requestfailed", (r) => {
    if (!expectedConsole) problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
}

before(async () => {
  if (!existsSync(`${ROOT}pkg/web/selfheal_bg.wasm`)) {
    throw new Error("pkg/web/ is missing: build the web target first (wasm-bindgen --target web --out-dir pkg/web ...)");
  }
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer({ port: 0 });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  watch(page);
  await page.goto(server.url);
  await page.waitForSelector("body[data-ready]");
});

after(async () => {
  await browser?.close();
  await server?.close();
});

afterEach(() => {
  const seen = problems;
  problems = [];
  assert.deepEqual(seen, [], "no console errors, page errors or failed requests");
});

// ---------- helpers ----------

const text = (selector, p = page) => p.locator(selector).first().innerText();
async function shot(name, p = page) {
  await p.evaluate(() => window.scrollTo(0, 0));
  await p.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

/** Wait until the element's text contains `needle` (debounced inputs update a moment later). */
async function waitForText(selector, needle, p = page) {
  try {
    await p.waitForFunction(([s, n]) => document.querySelector(s)?.textContent.includes(n), [selector, needle], { timeout: 5000 });
  } catch {
    assert.fail(`${selector} should contain ${JSON.stringify(needle)}, shows ${JSON.stringify(await p.locator(selector).first().textContent().catch(() => null))}`);
  }
}

async function tab(name, p = page) {
  await p.click(`#tab-${name}`);
  await p.waitForSelector(`#panel-${name}:not([hidden])`);
}

async function classified() {
  return {
    class: await text("#classify-result [data-testid=class]"),
    cause: await text("#classify-result [data-testid=cause]"),
    signal: await text('#classify-result [data-field="signal"] code'),
    retryAfterMs: await text('#classify-result [data-field="retryAfterMs"]'),
  };
}

const issuePaths = () => page.$$eval("#p-final table.issues tbody tr", (rows) => rows.map((r) => r.dataset.path));
const chipsOf = (selector) => page.$$eval(selector, (els) => els.map((e) => e.textContent));

/** The timeline as data: one entry per outcome. */
function timeline(list = "#l-timeline") {
  return page.$$eval(`${list} > li.tl-item:not(.tl-end)`, (items) => items.map((li) => ({
    outcome: li.querySelector("[data-outcome]")?.dataset.outcome,
    instr: li.dataset.instr,
    strategy: li.querySelector("[data-strategy]")?.dataset.strategy ?? null,
    reason: li.querySelector("[data-reason]")?.dataset.reason ?? null,
    cls: li.querySelector(".tl-instr [data-class]")?.dataset.class ?? null,
    cause: li.querySelector(".tl-instr [data-cause]")?.dataset.cause ?? null,
    delayMs: li.querySelector(".wait-bar") ? Number(li.querySelector(".wait-bar").dataset.delayMs) : null,
  })));
}

async function report(card = "#l-report") {
  return page.$eval(card, (el) => ({
    calls: Number(el.querySelector('[data-stat="calls"] .stat-value').textContent),
    repaired: Number(el.querySelector('[data-stat="repaired"] .stat-value').textContent),
    byClass: Object.fromEntries([...el.querySelectorAll(".byclass li")].map((li) => [li.dataset.class, Number(li.querySelector(".byclass-n").textContent)])),
    warnings: [...el.querySelectorAll(".warnings li")].map((li) => li.textContent),
    final: el.querySelector(".final strong")?.textContent ?? null,
  }));
}

async function setValue(selector, value) {
  await page.fill(selector, String(value));
}

// ---------- the page ----------

test("the page loads the web build and says so", async () => {
  assert.equal(await page.getAttribute("body", "data-ready"), "true");
  assert.match(await text("#status"), /WebAssembly ready/);
  assert.equal(await page.title(), "selfheal playground");
  // Every form control has an accessible name.
  const unnamed = await page.$$eval("input, select, textarea, button", (els) =>
    els.filter((e) => !e.labels?.length && !e.getAttribute("aria-label") && !e.textContent.trim() && e.type !== "radio").map((e) => e.id || e.outerHTML.slice(0, 60)));
  assert.deepEqual(unnamed, []);
});

test("1. classify: presets show class, cause, signal and retryAfterMs", async () => {
  await tab("classify");
  const expect = {
    "rate-limit": { class: "transient", cause: "rate-limited", signal: "status", retryAfterMs: "2000" },
    overloaded: { class: "transient", cause: "overloaded", signal: "status" },
    quota: { class: "hard-fail", cause: "quota-exhausted", signal: "status" },
    "fetch-failed": { class: "transient", cause: "network", signal: "message" },
    unauthorized: { class: "hard-fail", cause: "auth", signal: "status" },
    context: { class: "hard-fail", cause: "context-overflow", signal: "status" },
  };
  for (const [preset, want] of Object.entries(expect)) {
    await page.click(`#panel-classify [data-preset="${preset}"]`);
    const got = await classified();
    assert.equal(got.class, want.class, preset);
    assert.equal(got.cause, want.cause, preset);
    assert.equal(got.signal, want.signal, preset);
    if (want.retryAfterMs) assert.match(got.retryAfterMs, new RegExp(want.retryAfterMs));
    else assert.match(got.retryAfterMs, /null/);
  }
  assert.match(await text("#classify-result .verdict-next"), /degrade at once/);

  // Headers as a Headers instance, and an HTTP-date-free retry-after in seconds typed by hand.
  await page.click('#panel-classify [data-preset="rate-limit"]');
  await page.selectOption("#c-headers-as", "Headers");
  await setValue("#c-headers", "retry-after: 7.5");
  await waitForText('#classify-result [data-field="retryAfterMs"]', "7500");
  assert.match(await page.textContent("#c-js"), /new Headers/);

  // An error without status: the Anthropic error type in the body decides.
  await setValue("#c-status", "");
  await setValue("#c-headers", "");
  await setValue("#c-body", '{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}');
  await waitForText('#classify-result [data-field="signal"]', "error-type");
  assert.equal((await classified()).cause, "overloaded");

  // Bad input is shown in the page, never thrown.
  await setValue("#c-body", "{not json");
  await waitForText("#c-error", "Response body is not valid JSON");
  assert.equal(await page.isVisible("#c-error"), true);
  await setValue("#c-headers", "no colon here");
  await setValue("#c-body", "");
  await waitForText("#c-error", "Headers, line 1");

  await page.click('#panel-classify [data-preset="overloaded"]');
  assert.equal(await page.isVisible("#c-error"), false);
  await shot("desktop-1-classify");
});

test("2. parse & repair: fixes as chips, issue paths, truncation, invalid schema", async () => {
  await tab("parse");

  await page.click('#panel-parse [data-preset="commas-quotes"]');
  assert.deepEqual(await chipsOf("#p-repair [data-fix]"), ["single-quotes", "trailing-comma"]);
  assert.match(await text("#p-strict"), /json-syntax/);
  assert.match(await text("#p-final"), /Accepted after local repair/);
  assert.match(await text("#p-value"), /"orderId": "ORD-1042"/);
  assert.match(await text("#p-repaired"), /^\{\n  "orderId": "ORD-1042",/);

  await page.click('#panel-parse [data-preset="fenced"]');
  assert.deepEqual(await chipsOf("#p-repair [data-fix]"), ["code-fence", "surrounding-prose"]);

  await page.click('#panel-parse [data-preset="prose"]');
  assert.deepEqual(await chipsOf("#p-repair [data-fix]"), ["surrounding-prose", "unquoted-key", "single-quotes", "python-literal"]);

  await page.click('#panel-parse [data-preset="mismatch"]');
  assert.deepEqual(await issuePaths(), ["/orderId", "/items/0/qty", "/total", ""]);
  assert.deepEqual(await chipsOf("#p-final [data-kind].chip"), ["schema"]);
  assert.match(await text("#p-final"), /Additional properties are not allowed/);

  // Cut off at the token limit: no local repair, kind truncated.
  await page.click('#panel-parse [data-preset="truncated"]');
  assert.equal(await page.inputValue("#p-stop"), "max_tokens");
  assert.match(await text("#p-repair"), /Skipped/);
  assert.deepEqual(await chipsOf("#p-final > .line [data-kind]"), ["truncated"]);
  // The same text not cut off is repaired locally (and then fails the schema).
  await page.selectOption("#p-stop", "end_turn");
  await page.waitForSelector('#p-repair [data-fix="unclosed-bracket"]');
  assert.deepEqual(await issuePaths(), ["", "", "/items/1", "/items/1"]);

  // Local repair off: the fixable reply fails strictly.
  await page.click('#panel-parse [data-preset="commas-quotes"]');
  await page.uncheck("#p-local");
  await waitForText("#p-final", "local repair off");
  assert.deepEqual(await chipsOf("#p-final > .line [data-kind]"), ["json-syntax"]);
  await page.check("#p-local");
  await waitForText("#p-final", "Accepted after local repair");

  // An invalid schema shows the TypeError, and the panel recovers.
  await setValue("#p-schema", '{"type": "bogus"}');
  await waitForText("#p-schema-error", "TypeError");
  assert.match(await text("#p-schema-error"), /not a valid JSON Schema.*\/type/);
  assert.match(await text("#p-final"), /does not compile/);
  await setValue("#p-schema", "{");
  await waitForText("#p-schema-error", "not valid JSON");
  await page.click('#panel-parse [data-preset="mismatch"]');
  assert.equal(await page.isVisible("#p-schema-error"), false);
  await shot("desktop-2-parse");
});

test("3. repair prompt: en / ja / zh, system and user, <broken_output>, maxRawChars", async () => {
  await tab("parse");
  await page.click('#panel-parse [data-preset="mismatch"]');
  await tab("prompt");
  assert.match(await text("#pr-failure"), /schema/);
  const scripts = { en: /^[\x00-\x7F]*$/, ja: /[\u3040-\u30ff]/, zh: /[\u4e00-\u9fff]/ };
  const systems = new Set();
  for (const locale of ["en", "ja", "zh"]) {
    await page.click(`label[for="pr-locale-${locale}"]`);
    const system = await text("#pr-system");
    const user = await page.textContent("#pr-user");
    assert.match(system, scripts[locale], `${locale} system prompt`);
    if (locale === "zh") assert.doesNotMatch(system, /[\u3040-\u30ff]/, "zh has no kana");
    assert.ok(user.includes("<broken_output>") && user.includes("</broken_output>"), `${locale}: quotes the broken output`);
    assert.ok(user.includes('"pattern": "^ORD-[0-9]{4}$"'), `${locale}: carries the schema`);
    for (const path of ["/orderId", "/items/0/qty", "/total"]) assert.ok(user.includes(`- ${path}: `), `${locale}: issue ${path}`);
    assert.ok((await page.locator("#pr-user mark.tag").count()) >= 2, "the markers are highlighted");
    assert.equal(await page.getAttribute("#pr-output", "lang"), locale);
    assert.match(await text("#pr-user-count"), /^[\d,]+ chars$/);
    systems.add(system);
    await shot(`desktop-3-prompt-${locale}`);
  }
  assert.equal(systems.size, 3, "each locale has its own text");

  await page.click('label[for="pr-locale-en"]');
  await setValue("#pr-max", "12");
  await waitForText("#pr-user", "...(truncated)");
  await setValue("#pr-max", "-1");
  await waitForText("#pr-error", "RangeError");
  await setValue("#pr-max", "2000");
  await waitForText("#pr-user", "</broken_output>");
  assert.equal(await page.isVisible("#pr-error"), false);

  // No failure: an empty state offering failing examples, which load in place.
  await tab("parse");
  await page.click('#panel-parse [data-preset="valid"]');
  await tab("prompt");
  assert.equal(await page.isVisible("#pr-empty"), true);
  assert.match(await text("#pr-empty"), /Nothing to repair/);
  await page.click('#pr-empty button:has-text("Truncated")');
  assert.equal(await page.isVisible("#pr-output"), true);
  assert.match(await text("#pr-failure"), /truncated/);
  await page.click(`#tab-prompt`);
});

test("4. loop timeline: scenarios, scripted steps, bars to scale, report", async () => {
  await tab("loop");

  // The overload storm: five waits growing exponentially, bars proportional to delayMs.
  await page.click('#panel-loop [data-scenario="storm"]');
  let entries = await timeline();
  assert.deepEqual(entries.map((e) => e.instr), [...Array(5).fill("wait-for-backoff"), "done"]);
  entries.slice(0, 5).forEach((e, k) => {
    const base = 1000 * 2 ** k;
    assert.ok(e.delayMs >= base && e.delayMs < base + 250, `wait ${k + 1}: ${e.delayMs} ms in [${base}, ${base + 250})`);
  });
  const bars = await page.$$eval("#l-timeline .wait-bar", (els) => els.map((el) => ({
    delay: Number(el.dataset.delayMs),
    width: el.getBoundingClientRect().width,
    track: el.parentElement.getBoundingClientRect().width,
    label: el.closest(".wait").querySelector(".wait-label").textContent,
  })));
  const longest = Math.max(...bars.map((b) => b.delay));
  for (const b of bars) {
    assert.ok(Math.abs(b.width - (b.track * b.delay) / longest) <= 1, `bar ${b.delay} ms: ${b.width}px of ${b.track}px`);
    assert.equal(b.label, `${b.delay.toLocaleString("en-US")} ms`);
  }
  let r = await report();
  assert.equal(r.calls, 6);
  assert.equal(r.byClass.transient, 5);
  assert.equal(r.final, "done");
  // The same seed gives the same run.
  const again = (await timeline()).map((e) => e.delayMs);
  await page.click("#l-run");
  assert.deepEqual((await timeline()).map((e) => e.delayMs), again);
  await shot("desktop-4-loop-storm");

  // A script built from the menu: 429 (retry-after 3) -> schema mismatch -> valid.
  await page.click("#l-clear");
  assert.match(await text("#l-steps"), /No outcomes yet/);
  for (const key of ["rate-limit", "mismatch", "valid"]) await page.click(`#l-add [data-add="${key}"]`);
  await page.fill('#l-steps li[data-type="rate-limit"] input', "3");
  await page.click("#l-run");
  entries = await timeline();
  assert.deepEqual(entries.map((e) => [e.outcome, e.instr]), [["error", "wait-for-backoff"], ["reply", "send-repair-prompt"], ["reply", "done"]]);
  assert.equal(entries[0].delayMs, 3000, "the server's retry-after replaces the backoff");
  assert.deepEqual([entries[0].cls, entries[0].cause], ["transient", "rate-limited"]);
  assert.deepEqual([entries[1].strategy, entries[1].cls, entries[1].cause], ["fix", "repairable", "schema"]);
  assert.match(await page.textContent("#l-timeline"), /<broken_output>/, "the fix prompt is shown");
  r = await report();
  assert.deepEqual([r.calls, r.repaired, r.byClass.transient, r.byClass.repairable], [3, 1, 1, 1]);
  // Virtual clock: 3 calls of 800 ms plus the 3 s wait.
  assert.match(await text("#l-clock"), /5\.40 s/);

  // Reorder and remove: valid first makes the rest unreachable.
  await page.click('button[aria-label="Move step 3 up"]');
  await page.click("#l-run");
  assert.deepEqual((await timeline()).map((e) => e.instr), ["wait-for-backoff", "done"]);
  assert.match(await text("#l-timeline"), /1 more step was not reached/);
  assert.equal(await page.locator("#l-steps .step-unused").count(), 1);
  await page.click('button[aria-label="Remove step 3"]');
  assert.equal(await page.locator("#l-steps li.step").count(), 2);

  // Downstream rejection: reask with the reason verbatim.
  await page.click('#panel-loop [data-scenario="rejected"]');
  entries = await timeline();
  assert.deepEqual(entries.map((e) => [e.outcome, e.instr, e.strategy]), [["reply", "done", null], ["rejected", "send-repair-prompt", "reask"], ["reply", "done", null]]);
  assert.match(await page.textContent("#l-timeline"), /total 55 must include 20% VAT \(66\)/);

  // 401: degrade at once with the fallback.
  await page.click('#panel-loop [data-scenario="auth"]');
  entries = await timeline();
  assert.deepEqual(entries.map((e) => [e.instr, e.reason, e.cls, e.cause]), [["degrade", "hard-fail", "hard-fail", "auth"]]);
  r = await report();
  assert.equal(r.byClass["hard-fail"], 1);
  assert.match(await text("#l-report"), /degrade: hard-fail/);
  assert.match(await text("#l-timeline"), /order-manual-review/);

  // Three repairs and an invalid verdict: both warnings.
  await page.click("#l-clear");
  await setValue("#o-repairable", 3);
  for (const key of ["broken", "broken", "broken", "valid", "invalid", "valid"]) await page.click(`#l-add [data-add="${key}"]`);
  await page.click("#l-run");
  entries = await timeline();
  assert.deepEqual(entries.map((e) => e.strategy ?? e.instr), ["fix", "fix", "fix", "done", "alternate", "done"]);
  r = await report();
  assert.equal(r.warnings.length, 2);
  assert.match(r.warnings[0], /structural problem/);
  assert.match(r.warnings[1], /review the approach/);
  await setValue("#o-repairable", 1);

  // The deadline stops the storm.
  await page.click('#panel-loop [data-scenario="storm"]');
  await setValue("#o-deadline", 5000);
  assert.equal(await page.evaluate(() => document.getElementById("l-output").classList.contains("stale")), true);
  await page.click("#l-run");
  entries = await timeline();
  assert.equal(entries.at(-1).reason, "deadline-exceeded");
  await setValue("#o-deadline", "");

  // Bad options are shown, not thrown; the next good run clears them.
  await setValue("#o-transient", -1);
  await page.click("#l-run");
  await waitForText("#l-error", "RangeError: selfheal: options.budget.transient must be >= 0, got -1");
  assert.equal(await page.locator("#l-timeline li").count(), 0);
  await setValue("#o-transient", 6);
  await page.click("#l-run");
  assert.equal(await page.isVisible("#l-error"), false);

  // Animated replay reveals the entries one by one, then the report.
  await page.click('#panel-loop [data-scenario="rate-then-fenced"]');
  await page.check("#l-animate");
  await page.click("#l-run");
  assert.ok((await page.locator("#l-timeline li.pending").count()) > 0, "entries start hidden");
  await page.waitForFunction(() => !document.querySelector("#l-timeline li.pending") && !document.getElementById("l-report-card").hidden, null, { timeout: 5000 });
  await page.uncheck("#l-animate");
  await page.click("#l-run");
  await shot("desktop-4-loop");
});

test("5. streaming: the partial value grows, the violation cuts the stream, one fix prompt heals it", async () => {
  await tab("stream");
  // Opening the tab streams the first scenario at 60 ms a chunk: the value grows while it runs.
  const seen = [];
  for (const needle of ['"orderId"', '"items"']) {
    await page.waitForFunction((n) => document.getElementById("s-value").textContent.includes(n), needle, { timeout: 10000 });
    seen.push(JSON.parse(await page.textContent("#s-value")));
  }
  assert.ok(!("items" in seen[0]) && "items" in seen[1], `the partial value grows: ${JSON.stringify(seen)}`);
  await page.waitForFunction(() => document.body.dataset.stream === "done", null, { timeout: 15000 });

  // The violation is definitive when "55.00 EUR" closes: the 12-character chunk holding its
  // closing quote is the last one read; the rest is never generated.
  const closesAt = STREAM_BAD_TEXT.indexOf('"55.00 EUR"') + '"55.00 EUR"'.length;
  const sent = Math.ceil(closesAt / 12) * 12;
  const rows = await page.$$eval("#s-ribbon .srow", (els) => els.map((r) => ({
    call: Number(r.dataset.call),
    mark: r.querySelector("[data-mark]")?.dataset.mark,
    at: Number(r.querySelector("[data-mark]")?.dataset.at),
    label: r.querySelector(".smark-label")?.textContent,
    rx: Number(r.querySelector(".sseg-rx").dataset.chars),
    unsent: r.querySelector(".sseg-unsent") ? Number(r.querySelector(".sseg-unsent").dataset.chars) : 0,
    markX: r.querySelector("[data-mark]").getBoundingClientRect().left,
    unsentX: r.querySelector(".sseg-unsent")?.getBoundingClientRect().left ?? null,
  })));
  assert.deepEqual(rows.map((r) => [r.call, r.mark, r.at, r.label, r.rx, r.unsent]), [
    [1, "violation", sent, "violation /total · abort", sent, STREAM_BAD_TEXT.length - sent],
    [2, "end", sent + GOOD_TEXT.length, "end_turn", GOOD_TEXT.length, 0],
  ]);
  assert.ok(Math.abs(rows[0].markX + 1.5 - rows[0].unsentX) <= 1.5, "the abort is drawn where the unsent part starts");
  const stats = await page.$$eval("#s-stats .stat", (els) => Object.fromEntries(els.map((e) => [e.dataset.stat, e.querySelector(".stat-value").textContent])));
  assert.deepEqual(stats, {
    calls: "2",
    received: String(sent + GOOD_TEXT.length),
    saved: String(STREAM_BAD_TEXT.length - sent),
    "saved-pct": `${Math.round((100 * (STREAM_BAD_TEXT.length - sent)) / STREAM_BAD_TEXT.length)}%`,
  });
  assert.equal(await page.textContent('#s-texts [data-call="1"] del.unsent'), STREAM_BAD_TEXT.slice(sent));
  assert.match(await page.textContent('#s-texts [data-call="1"] mark.bad'), /EUR"/);
  const entries = await timeline("#s-timeline");
  assert.deepEqual(entries.map((e) => [e.outcome, e.instr, e.strategy, e.cls, e.cause]), [
    ["reply", "send-repair-prompt", "fix", "repairable", "schema"], ["reply", "done", null, null, null],
  ]);
  assert.match(await text("#s-timeline"), /cut at \d+ of \d+ characters \(stopReason "aborted"\)/);
  assert.match(await text("#s-timeline"), /by stream/);
  assert.match(await page.textContent("#s-timeline"), /<broken_output>[\s\S]*"55\.00 EUR"/, "the fix prompt quotes what arrived");
  assert.deepEqual(JSON.parse(await page.textContent("#s-value")), GOOD_ORDER);
  await shot("desktop-5-stream");

  // A forbidden key is a violation the moment its name closes, before its long value streams.
  await setValue("#s-interval", 0);
  await page.click('#panel-stream [data-stream="forbidden-key"]');
  await page.waitForFunction(() => document.body.dataset.stream === "done", null, { timeout: 10000 });
  assert.equal(await page.getAttribute('#s-ribbon [data-call="1"] [data-mark]', "data-mark"), "violation");
  assert.ok(Number(await page.getAttribute('#s-ribbon [data-call="1"] .sseg-unsent', "data-chars")) > 200, "most of the reply is never generated");

  // A stream that ends without its final event: never completed locally, asked again.
  await page.click('#panel-stream [data-stream="cut-off"]');
  await page.waitForFunction(() => document.body.dataset.stream === "done", null, { timeout: 10000 });
  assert.equal(await page.getAttribute('#s-ribbon [data-call="1"] [data-mark]', "data-mark"), "incomplete");
  assert.deepEqual((await timeline("#s-timeline")).map((e) => [e.instr, e.strategy, e.cause]), [["send-repair-prompt", "reask", "truncated"], ["done", null, null]]);
  assert.equal(await page.textContent('#s-stats [data-stat="saved"] .stat-value'), "0");

  // A valid stream: one call, nothing cut.
  await page.click('#panel-stream [data-stream="valid"]');
  await page.waitForFunction(() => document.body.dataset.stream === "done", null, { timeout: 10000 });
  assert.deepEqual((await timeline("#s-timeline")).map((e) => e.instr), ["done"]);
  assert.equal(await page.textContent('#s-stats [data-stat="saved-pct"] .stat-value'), "—");

  // Stop mid-stream; bad input is shown, not thrown.
  await setValue("#s-interval", 300);
  await page.click("#s-run");
  await page.click("#s-stop");
  await page.waitForFunction(() => document.body.dataset.stream === "stopped");
  assert.equal(await page.isDisabled("#s-stop"), true);
  await setValue("#s-chunk", 0);
  await page.click("#s-run");
  await waitForText("#s-error", "RangeError: chunk (chars) must be an integer >= 1");
  await setValue("#s-chunk", 12);
  await setValue("#s-interval", 60);
});

test("6. live: the host loop with fetch() against the mock LLM", async (t) => {
  await tab("live");
  // Without a server: the same-origin static server answers 405 to a POST, which degrades at once.
  expectedConsole = /Failed to load resource: the server responded with a status of (405|429|503|529)/;
  try {
    await page.selectOption("#v-provider", "openai");
    await setValue("#v-base", `${server.url}nowhere/v1`);
    await page.click("#v-run");
    await page.waitForSelector("#v-report-card:not([hidden])");
    let entries = await timeline("#v-timeline");
    assert.deepEqual(entries.map((e) => [e.outcome, e.instr, e.reason, e.cause]), [["error", "degrade", "hard-fail", "bad-request"]]);
    assert.match(await text("#v-timeline"), /HTTP 405/);

    // Bad input is reported in the page.
    await setValue("#v-base", "not a url");
    await page.click("#v-run");
    await waitForText("#v-error", "Base URL is not a valid URL");

    if (!existsSync(MOCK)) {
      t.diagnostic("tests/mock-llm/server.mjs not found: the live run against a mock is not tested");
      return;
    }
    const { startMockLlm } = await import(MOCK);
    const order = { orderId: "ORD-1042", items: [{ sku: "mug", qty: 2, price: 12.5 }, { sku: "teapot", qty: 1, price: 30 }], total: 55 };
    const mock = await startMockLlm({
      script: [
        { kind: "rate-limited", retryAfterMs: 40 },
        { kind: "schema-mismatch", value: { orderId: "1042", items: [], total: "55" } },
        { kind: "valid", value: order },
      ],
      idleTimeoutMs: 20000,
    });
    try {
      // The mock speaks plain HTTP without CORS headers; a page on another origin needs them.
      // When it lacks them, the test adds them in the browser's network layer (the page and
      // its fetch() are unchanged), so the live panel is still driven end to end.
      const preflight = await fetch(`${mock.url}/v1/messages`, { method: "OPTIONS", headers: { origin: server.url.slice(0, -1), "access-control-request-method": "POST" } }).catch(() => null);
      const hasCors = Boolean(preflight?.headers.get("access-control-allow-origin"));
      if (!hasCors) {
        t.diagnostic("mock-llm sends no CORS headers: the test adds them with page.route()");
        const cors = {
          "access-control-allow-origin": "*",
          "access-control-allow-headers": "*",
          "access-control-allow-methods": "POST, OPTIONS",
          "access-control-expose-headers": "*",
        };
        await page.route(`${mock.url}/**`, async (route) => {
          if (route.request().method() === "OPTIONS") return route.fulfill({ status: 204, headers: cors });
          const response = await route.fetch();
          return route.fulfill({ response, headers: { ...response.headers(), ...cors } });
        });
      }
      await page.selectOption("#v-provider", "anthropic");
      await setValue("#v-base", mock.anthropicBaseURL);
      await setValue("#v-model", "claude-test");
      await setValue("#v-key", "test-key");
      await page.click("#v-run");
      await page.waitForSelector("#v-report-card:not([hidden])", { timeout: 10000 });
      entries = await timeline("#v-timeline");
      assert.deepEqual(entries.map((e) => [e.outcome, e.instr, e.strategy]), [["error", "wait-for-backoff", null], ["reply", "send-repair-prompt", "fix"], ["reply", "done", null]]);
      assert.equal(entries[0].delayMs, 40, "retry-after-ms read from the response headers");
      assert.equal(entries[0].cause, "rate-limited");
      const r = await report("#v-report");
      assert.deepEqual([r.calls, r.repaired, r.byClass.transient, r.byClass.repairable], [3, 1, 1, 1]);
      const calls = mock.requests.filter((q) => q.method === "POST");
      assert.equal(calls.length, 3);
      assert.equal(calls[0].headers["x-api-key"], "test-key");
      assert.match(calls[2].userText, /<broken_output>/, "the third call is the fix prompt");
      await shot("desktop-6-live");

      // Stop during a long server-requested wait: the loop is aborted, nothing more is sent.
      mock.setScript([{ kind: "rate-limited", retryAfter: 30 }]);
      await page.click("#v-run");
      await waitForText("#v-clock", "waiting 30,000 ms");
      await page.click("#v-stop");
      await page.waitForSelector("#v-report-card:not([hidden])");
      entries = await timeline("#v-timeline");
      assert.deepEqual(entries.map((e) => [e.instr, e.reason]), [["wait-for-backoff", null], ["degrade", "aborted"]]);
      assert.equal(await page.isDisabled("#v-stop"), true);
      assert.equal(mock.requests.filter((q) => q.method === "POST").length, 4);

      // Streamed: the third field breaks the schema; the stream is cut there, one fix prompt follows.
      for (const provider of ["anthropic", "openai"]) {
        mock.setScript([{ kind: "text", text: STREAM_BAD_TEXT }, { kind: "valid", value: order }]);
        const before = mock.requests.length;
        await page.selectOption("#v-provider", provider);
        await setValue("#v-base", provider === "anthropic" ? mock.anthropicBaseURL : mock.openaiBaseURL);
        await page.check("#v-stream");
        await page.click("#v-run");
        await page.waitForSelector("#v-report-card:not([hidden])", { timeout: 10000 });
        entries = await timeline("#v-timeline");
        assert.deepEqual(entries.map((e) => [e.outcome, e.instr, e.strategy, e.cause]), [["reply", "send-repair-prompt", "fix", "schema"], ["reply", "done", null, null]], provider);
        assert.match(await text("#v-timeline"), /streamed, cut at the violation after \d+ characters, stop: aborted/);
        assert.match(await text("#v-timeline"), /by stream/);
        const calls = mock.requests.slice(before);
        assert.deepEqual(calls.map((q) => q.stream), [true, true], `${provider}: both calls stream`);
        assert.match(calls[1].userText, /<broken_output>[\s\S]*"total": "55\.00 EUR"/, `${provider}: the fix prompt quotes what arrived`);
        assert.match(calls[1].userText, /- \/total: "55\.00 EUR" is not of type "number"/);
        assert.deepEqual(JSON.parse(await page.textContent("#v-partial")), order, `${provider}: the partial value of the repair call`);
        if (provider === "anthropic") await shot("desktop-6-live-stream");
      }
      await page.uncheck("#v-stream");
      if (!hasCors) await page.unroute(`${mock.url}/**`);
    } finally {
      await mock.close();
    }
  } finally {
    expectedConsole = null;
  }
});

test("7. use with: the README's runnable snippets, exactly as written, each with Copy", async () => {
  // The blocks tests/js/readme_use_with.test.mjs runs, read here independently of the page's reader.
  const readme = readFileSync(`${ROOT}README.md`, "utf8");
  const expected = [...readme.matchAll(/<!-- example:(use-[\w-]+) -->\n```js\n([\s\S]*?)\n```\n/g)].map((m) => [m[1], m[2]]);
  assert.deepEqual(expected.map(([name]) => name), ["use-zod", "use-ai-sdk", "use-tools", "use-otel"]);

  await tab("usewith");
  await page.waitForSelector('#u-snippets[data-state="ready"]');
  const shown = await page.$$eval("#u-snippets pre[data-example]", (els) => els.map((el) => [el.dataset.example, el.textContent]));
  assert.deepEqual(shown, expected, "the panel shows the README's snippets, no more, no less, character for character");
  assert.equal(await text("#u-title"), readme.match(/^## (Use with.*)$/m)[1]);
  assert.match(await text("#u-intro"), /optional/);
  assert.deepEqual(await chipsOf("#u-snippets .card-title"), ["Zod (or Valibot, ArkType) with heal", "The AI SDK", "Tool calls", "OpenTelemetry"]);
  assert.equal(await page.isVisible("#u-error"), false);

  // Copy puts the snippet, as shown, on the clipboard.
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url.slice(0, -1) });
  await page.click('#u-snippets article[data-example="use-ai-sdk"] button.copy');
  await waitForText('#u-snippets article[data-example="use-ai-sdk"] button.copy', "Copied");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), expected[1][1]);
  await shot("desktop-7-usewith");
});

test("390px wide: every panel fits without sideways scrolling", async () => {
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  watch(phone);
  try {
    await phone.goto(server.url);
    await phone.waitForSelector("body[data-ready]");
    const steps = [
      ["classify", "#panel-classify [data-preset=overloaded]"],
      ["parse", "#panel-parse [data-preset=mismatch]"],
      ["prompt", null],
      ["loop", "#panel-loop [data-scenario=storm]"],
      ["stream", null],
      ["live", null],
      ["usewith", null],
    ];
    for (const [i, [name, preset]] of steps.entries()) {
      await tab(name, phone);
      if (preset) await phone.click(preset);
      if (name === "stream") await phone.waitForFunction(() => document.body.dataset.stream === "done", null, { timeout: 15000 });
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${name}: ${overflow}px wider than the screen`);
      await shot(`mobile-${i + 1}-${name}`, phone);
    }
    assert.match(await text("#l-report", phone), /calls/);
  } finally {
    await phone.close();
  }
});
