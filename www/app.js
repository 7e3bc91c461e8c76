// The playground: loads the web build of selfheal, then wires the panels.
// Plain ES modules, no build step. Served by scripts/serve.mjs (www/ at /, pkg/web/ at /pkg/web/).

import { $ } from "./lib/dom.js";
import { initClassify } from "./panels/classify.js";
import { initParse } from "./panels/parse.js";
import { initPrompt } from "./panels/prompt.js";
import { initLoop } from "./panels/loop.js";
import { initStream } from "./panels/stream.js";
import { initLive } from "./panels/live.js";
import { initUseWith } from "./panels/usewith.js";

const PACKAGE_URL = "./pkg/web/selfheal.js";
const TABS = ["classify", "parse", "prompt", "loop", "stream", "live", "usewith"];

function setStatus(state, text) {
  const el = $("status");
  el.dataset.state = state;
  el.querySelector(".status-text").textContent = text;
}

// ---------- tabs (WAI-ARIA tabs pattern, with #hash links) ----------

function selectTab(name, { focus = false, push = true } = {}) {
  if (!TABS.includes(name)) name = TABS[0];
  for (const tab of TABS) {
    const button = $(`tab-${tab}`);
    const selected = tab === name;
    button.setAttribute("aria-selected", String(selected));
    button.tabIndex = selected ? 0 : -1;
    $(`panel-${tab}`).hidden = !selected;
    if (selected && focus) button.focus();
  }
  $(`tab-${name}`).scrollIntoView({ block: "nearest", inline: "nearest" });
  if (push && location.hash !== `#${name}`) history.replaceState(null, "", `#${name}`);
  document.dispatchEvent(new CustomEvent("playground:tab", { detail: name }));
}

function initTabs() {
  for (const [i, name] of TABS.entries()) {
    const button = $(`tab-${name}`);
    button.addEventListener("click", () => selectTab(name));
    button.addEventListener("keydown", (event) => {
      const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 };
      if (!(event.key in moves)) return;
      event.preventDefault();
      selectTab(TABS[(moves[event.key] + TABS.length) % TABS.length], { focus: true });
    });
  }
  document.addEventListener("click", (event) => {
    const link = event.target.closest("[data-goto]");
    if (!link) return;
    event.preventDefault();
    selectTab(link.dataset.goto, { focus: true });
  });
  window.addEventListener("hashchange", () => selectTab(location.hash.slice(1), { push: false }));
  selectTab(location.hash.slice(1) || TABS[0], { push: false });
}

async function main() {
  initTabs();
  const snippets = initUseWith(); // README.md, not WebAssembly
  let sh;
  try {
    sh = await import(PACKAGE_URL);
    await sh.default();
  } catch (error) {
    setStatus("error", "WebAssembly failed to load");
    const banner = $("load-error");
    banner.textContent =
      `Could not load the selfheal package from ${PACKAGE_URL}: ${error?.message ?? error}. ` +
      "Build the web target first (see README), then reload.";
    banner.hidden = false;
    document.body.dataset.ready = "error";
    return;
  }
  setStatus("ready", "WebAssembly ready");
  initClassify(sh);
  const parse = initParse(sh);
  initPrompt(sh, parse);
  const loop = initLoop(sh);
  initStream(sh);
  initLive(sh, loop);
  await snippets;
  document.body.dataset.ready = "true";
}

main();
