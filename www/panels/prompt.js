// Panel 3: the prompt buildRepairPrompt() writes for the failure in panel 2, in en / ja / zh.

import { $, h, fill, showError, codePoints, describeThrown, copyOnClick } from "../lib/dom.js";
import { kindChips } from "./parse.js";

/** The prompt text with the <broken_output> markers highlighted. */
function marked(text) {
  return text.split(/(<\/?broken_output>)/).map((part, i) => (i % 2 ? h("mark", { class: "tag" }, part) : part));
}

const FAILING_EXAMPLES = [
  ["mismatch", "Schema mismatch"],
  ["truncated", "Truncated (max_tokens)"],
];

export function initPrompt(sh, parse) {
  const locale = () => document.querySelector('input[name="pr-locale"]:checked')?.value ?? "en";
  const output = $("pr-output");
  const empty = $("pr-empty");
  const error = $("pr-error");

  const showEmpty = (...content) => {
    fill(empty, ...content);
    empty.hidden = false;
    output.hidden = true;
  };

  const update = () => {
    const cur = parse.current();
    showError(error, "");
    fill($("pr-failure"));
    if (!cur) return;
    if (!cur.parsed) {
      showEmpty(
        h("p", {}, h("strong", {}, "No failure to repair yet: "), "the schema in Parse & repair does not compile."),
        h("p", { class: "err-text" }, cur.schemaError),
        h("p", {}, h("a", { href: "#parse", "data-goto": "parse" }, "Fix the schema"), "."));
      return;
    }
    if (cur.parsed.ok) {
      showEmpty(
        h("p", {}, h("strong", {}, "Nothing to repair: "), "the reply in Parse & repair is accepted. Load a failing example:"),
        h("div", { class: "presets presets-inline" }, FAILING_EXAMPLES.map(([name, label]) =>
          h("button", { type: "button", class: "preset", onclick: () => parse.load(name) }, label))));
      return;
    }
    const report = cur.parsed.report;
    fill($("pr-failure"),
      h("span", { class: "muted" }, "Failure: "), ...kindChips(report.kinds),
      h("span", { class: "muted" }, ` ${report.issues.length} issue${report.issues.length === 1 ? "" : "s"} · `),
      h("a", { href: "#parse", "data-goto": "parse" }, "edit"));

    const maxText = $("pr-max").value.trim();
    const options = { locale: locale() };
    if (maxText !== "") options.maxRawChars = Number(maxText);
    let prompt;
    try {
      prompt = sh.buildRepairPrompt(report, cur.schema, cur.raw, options);
    } catch (e) {
      showError(error, describeThrown(e));
      output.classList.add("stale");
      return;
    }
    output.classList.remove("stale");
    empty.hidden = true;
    output.hidden = false;
    fill($("pr-system"), prompt.system);
    fill($("pr-user"), marked(prompt.user));
    $("pr-system-count").textContent = `${codePoints(prompt.system).toLocaleString("en-US")} chars`;
    $("pr-user-count").textContent = `${codePoints(prompt.user).toLocaleString("en-US")} chars`;
    output.lang = options.locale;
  };

  parse.onChange(update);
  $("pr-locale").addEventListener("change", update);
  $("pr-max").addEventListener("input", update);
  for (const button of document.querySelectorAll("#panel-prompt .copy")) {
    copyOnClick(button, () => $(button.dataset.copy).textContent);
  }
  update();
}
