// Small DOM helpers: no framework, no innerHTML with data.

/** h("div", { class: "x", onclick }, child, "text", [more]) -> Element */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

export const $ = (id) => document.getElementById(id);

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Show a message in an error line (or hide it when message is empty). */
export function showError(el, message) {
  el.textContent = message ?? "";
  el.hidden = !message;
}

/** "TypeError: message" for anything thrown. */
export function describeThrown(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return `Thrown: ${JSON.stringify(error)}`;
  } catch {
    return `Thrown: ${String(error)}`;
  }
}

export const fmtMs = (ms) => `${Math.round(ms).toLocaleString("en-US")} ms`;

/** Number of Unicode code points (what selfheal counts). */
export const codePoints = (s) => [...s].length;

export function debounce(fn, ms = 120) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

export const pretty = (value) => JSON.stringify(value, null, 2);

/** A small chip: h("span", { class: "chip chip-<tone>" }, text). */
export const chip = (text, tone = "neutral", attrs = {}) => h("span", { class: `chip chip-${tone}`, ...attrs }, text);

/** Tone of an error class, for chips and badges. */
export const classTone = (cls) =>
  ({ transient: "amber", repairable: "violet", "semantic-invalid": "orange", "hard-fail": "red" })[cls] ?? "neutral";

/** A "Copy" button: copies what text() returns and says whether it worked. */
export function copyOnClick(button, text) {
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text());
      button.textContent = "Copied";
    } catch {
      button.textContent = "Copy failed";
    }
    setTimeout(() => (button.textContent = "Copy"), 1500);
  });
}
