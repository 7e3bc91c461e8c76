// Panel 2: strict parse, local repair and schema validation of one model reply.
// Also the source of "the current failure" for the repair-prompt panel.

import { $, h, fill, showError, chip, pretty, debounce, describeThrown } from "../lib/dom.js";
import { ORDER_SCHEMA, GOOD_ORDER } from "../lib/scenario.js";

const fence = (text) => "```json\n" + text + "\n```";

export const PARSE_PRESETS = {
  fenced: {
    label: "Fenced JSON",
    raw: "Here is the order:\n" + fence(pretty(GOOD_ORDER)),
  },
  "commas-quotes": {
    label: "Trailing commas + single quotes",
    raw: "{\n  'orderId': 'ORD-1042',\n  'items': [\n    {'sku': 'mug', 'qty': 2, 'price': 12.5,},\n    {'sku': 'teapot', 'qty': 1, 'price': 30,},\n  ],\n  'total': 55,\n}",
  },
  mismatch: {
    label: "Schema mismatch",
    raw: '{"orderId": "1042", "items": [{"sku": "mug", "qty": "two", "price": 12.5}], "total": "55", "note": "rush"}',
  },
  truncated: {
    label: "Truncated (max_tokens)",
    raw: '{"orderId": "ORD-1042", "items": [{"sku": "mug", "qty": 2, "price": 12.5}, {"sku": "tea',
    stopReason: "max_tokens",
  },
  prose: {
    label: "Prose + Python literals",
    raw: "Sure! Here's the order you asked for:\n\n{orderId: 'ORD-1042', items: [{sku: 'mug', qty: 2, price: 12.5, gift: True}, {sku: 'teapot', qty: 1, price: 30, gift: None}], total: 55}\n\nLet me know if you need anything else.",
  },
  valid: { label: "Valid", raw: JSON.stringify(GOOD_ORDER) },
};

const CUT_OFF = new Set(["max_tokens", "length", "MAX_TOKENS"]);

const kindTone = (kind) => ({ "json-syntax": "violet", schema: "violet", truncated: "orange", empty: "red" })[kind] ?? "neutral";

export const kindChips = (kinds) => kinds.map((k) => chip(k, kindTone(k), { "data-kind": k }));

export const fixChips = (fixes) => h("ul", { class: "chips", "aria-label": "Local fixes applied" },
  fixes.map((f) => h("li", {}, chip(f, "green", { "data-fix": f }))));

/** A table of failure issues with their JSON Pointer paths. */
export function issuesTable(issues) {
  return h("table", { class: "issues" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "path"), h("th", { scope: "col" }, "kind"), h("th", { scope: "col" }, "message"))),
    h("tbody", {}, issues.map((i) =>
      h("tr", { "data-path": i.path, "data-kind": i.kind },
        h("td", { class: "path" }, i.path === "" ? [h("code", {}, '""'), h("span", { class: "muted" }, " root")] : h("code", {}, i.path)),
        h("td", {}, chip(i.kind, kindTone(i.kind))),
        h("td", { class: "msg" }, i.message)))));
}

const okLine = (text) => h("p", { class: "line line-ok" }, h("span", { class: "icon", "aria-hidden": "true" }, "✓"), text);
const failLine = (...text) => h("p", { class: "line line-fail" }, h("span", { class: "icon", "aria-hidden": "true" }, "✕"), ...text);
const infoLine = (...text) => h("p", { class: "line line-info" }, ...text);

function renderStrict(strict) {
  if (strict.ok) return okLine("Valid JSON that passes the schema, as sent.");
  return [
    failLine("Fails as sent: ", ...kindChips(strict.report.kinds)),
    h("ul", { class: "plain-list" }, strict.report.issues.slice(0, 3).map((i) =>
      h("li", {}, h("code", {}, i.path === "" ? '""' : i.path), " ", i.message))),
    strict.report.issues.length > 3 ? h("p", { class: "muted small" }, `and ${strict.report.issues.length - 3} more, listed under Result`) : null,
  ];
}

function renderRepair({ repaired, localRepair, cutOff, stopReason, strictOk }) {
  const would = repaired && repaired.fixes.length ? [" repairJson() alone would apply ", ...repaired.fixes.map((f) => chip(f, "neutral")), "."] : [];
  if (cutOff) {
    return infoLine(h("strong", {}, "Skipped: "), `the reply was cut off (stopReason ${stopReason}). Closing its brackets would hide lost data, so it is re-asked instead.`, ...would);
  }
  if (!localRepair) return infoLine(h("strong", {}, "Off: "), "the reply is validated exactly as sent.", ...would);
  if (strictOk) return okLine("Nothing to repair.");
  if (repaired === null) return failLine("Nothing JSON-like to repair locally: a repair prompt is needed.");
  if (repaired.fixes.length === 0) return okLine("Already valid JSON: no fixes needed.");
  return [
    fixChips(repaired.fixes),
    h("pre", { class: "code", id: "p-repaired", "aria-label": "Repaired text" }, repaired.text),
  ];
}

function renderFinal(parsed, localRepair) {
  if (parsed.ok) {
    const how = parsed.fixes.length ? ["Accepted after local repair: ", ...parsed.fixes.map((f) => chip(f, "green"))] : ["Accepted as sent."];
    return [
      okLine(...how),
      h("p", { class: "label" }, "value"),
      h("pre", { class: "code", id: "p-value", "aria-label": "Parsed value" }, pretty(parsed.value)),
    ];
  }
  const r = parsed.report;
  return [
    failLine(`${r.issues.length} issue${r.issues.length === 1 ? "" : "s"}: `, ...kindChips(r.kinds),
      localRepair ? "" : h("span", { class: "muted" }, " (local repair off)")),
    issuesTable(r.issues),
    h("p", { class: "muted small" }, "Next: ", h("a", { href: "#prompt", "data-goto": "prompt" }, "the repair prompt for this failure"), "."),
  ];
}

export function initParse(sh) {
  const listeners = new Set();
  let schemaCache = { text: null, schema: null, error: null };
  let current = null;

  const compile = (text) => {
    if (text === schemaCache.text) return schemaCache;
    schemaCache.schema?.free();
    let schema = null;
    let error = null;
    try {
      schema = new sh.Schema(text);
    } catch (e) {
      error = describeThrown(e);
    }
    schemaCache = { text, schema, error };
    return schemaCache;
  };

  const update = () => {
    const schemaText = $("p-schema").value;
    const raw = $("p-raw").value;
    const stopReason = $("p-stop").value;
    const localRepair = $("p-local").checked;
    const options = stopReason ? { localRepair, stopReason } : { localRepair };
    const { schema, error } = compile(schemaText);
    showError($("p-schema-error"), error);
    $("p-schema").setAttribute("aria-invalid", String(Boolean(error)));

    let repaired = null;
    try {
      repaired = sh.repairJson(raw);
    } catch (e) {
      repaired = null;
    }
    const cutOff = CUT_OFF.has(stopReason);

    if (!schema) {
      const msg = h("p", { class: "line line-fail" }, h("span", { class: "icon", "aria-hidden": "true" }, "✕"), "The schema does not compile: ", h("span", { class: "err-text" }, error));
      fill($("p-strict"), msg.cloneNode(true));
      fill($("p-repair"), renderRepair({ repaired, localRepair, cutOff, stopReason, strictOk: false }));
      fill($("p-final"), msg);
      current = { ok: false, schemaError: error, schemaText, raw, stopReason, localRepair, parsed: null, schema: null };
    } else {
      try {
        const strict = schema.parse(raw, { ...options, localRepair: false });
        const parsed = schema.parse(raw, options);
        fill($("p-strict"), renderStrict(strict));
        fill($("p-repair"), renderRepair({ repaired, localRepair, cutOff, stopReason, strictOk: strict.ok }));
        fill($("p-final"), renderFinal(parsed, localRepair));
        current = { ok: true, schemaError: null, schemaText, raw, stopReason, localRepair, parsed, schema };
      } catch (e) {
        fill($("p-final"), failLine(describeThrown(e)));
        current = { ok: false, schemaError: describeThrown(e), schemaText, raw, stopReason, localRepair, parsed: null, schema };
      }
    }
    for (const fn of listeners) fn(current);
  };

  const load = (name) => {
    const p = PARSE_PRESETS[name];
    $("p-schema").value = pretty(ORDER_SCHEMA);
    $("p-raw").value = p.raw;
    $("p-stop").value = p.stopReason ?? "";
    for (const b of document.querySelectorAll("#panel-parse .preset")) b.setAttribute("aria-pressed", String(b.dataset.preset === name));
    update();
  };

  for (const b of document.querySelectorAll("#panel-parse .preset")) b.addEventListener("click", () => load(b.dataset.preset));
  const later = debounce(update);
  const edited = (event) => {
    // Editing the texts leaves the example; switches and selects do not.
    if (event.target.tagName === "TEXTAREA") {
      for (const b of document.querySelectorAll("#panel-parse .preset")) b.setAttribute("aria-pressed", "false");
    }
    later();
  };
  $("parse-form").addEventListener("input", edited);
  $("parse-form").addEventListener("change", edited);
  $("parse-form").addEventListener("submit", (e) => e.preventDefault());
  load("mismatch");

  return {
    current: () => current,
    load,
    onChange: (fn) => listeners.add(fn),
  };
}
