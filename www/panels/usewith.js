// Panel 6: the README's "Use with" snippets (Zod + heal, the AI SDK, tool calls, OpenTelemetry),
// read from README.md when the page loads, each with a Copy button. Needs no WebAssembly.

import { $, h, fill, showError, describeThrown, copyOnClick } from "../lib/dom.js";
import { useWithSection, inline } from "../lib/readme.js";

const README_URL = "./README.md";

export async function initUseWith() {
  const list = $("u-snippets");
  let section;
  try {
    const response = await fetch(README_URL);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    section = useWithSection(await response.text());
    if (!section || section.snippets.length === 0) throw new Error('it has no "## Use with" section with snippets');
  } catch (error) {
    showError($("u-error"), `Could not read the snippets from ${README_URL}: ${describeThrown(error)}`);
    list.dataset.state = "error";
    return;
  }
  $("u-title").textContent = section.title;
  fill($("u-intro"), inline(h, section.intro));
  fill(list, section.snippets.map((s) => {
    const code = h("pre", { class: "code snippet", id: `u-${s.name}`, tabindex: 0, "data-example": s.name, "aria-label": `${s.title}: code` }, s.code);
    const copy = h("button", { type: "button", class: "btn-ghost copy", "aria-label": `Copy ${s.title}` }, "Copy");
    copyOnClick(copy, () => code.textContent);
    return h("article", { class: "card", "data-example": s.name },
      h("div", { class: "card-title-row" }, h("h3", { class: "card-title" }, inline(h, s.title)), copy),
      h("p", { class: "snippet-text" }, inline(h, s.text)),
      code);
  }));
  list.dataset.state = "ready";
}
