// The README's "Use with" section, read from README.md itself (scripts/serve.mjs serves it at
// /README.md), so the panel has no copy of the snippets that could drift from the tested ones.

/**
 * The section under the `## Use with` heading: its title, its first paragraph and each snippet
 * marked `<!-- example:use-NAME -->` (the ones tests/js/readme_use_with.test.mjs runs as written),
 * with the paragraph before it split into its bold lead (`title`) and the rest (`text`).
 * Null when the README has no such section.
 */
export function useWithSection(markdown) {
  const start = markdown.search(/^## Use with/m);
  if (start < 0) return null;
  const rest = markdown.slice(start);
  const next = rest.slice(3).search(/^## /m);
  const section = next < 0 ? rest : rest.slice(0, next + 3);
  const [heading, ...body] = section.split("\n");
  const intro = paragraphs(body.join("\n"))[0] ?? "";
  const snippets = [];
  for (const m of section.matchAll(/<!-- example:(use-[\w-]+) -->\n```js\n([\s\S]*?)\n```\n/g)) {
    const before = paragraphs(section.slice(0, m.index)).at(-1) ?? "";
    const lead = /^\*\*(.+?)\*\*\s*/.exec(before);
    snippets.push({
      name: m[1],
      title: lead ? lead[1].replace(/\.$/, "") : m[1],
      text: lead ? before.slice(lead[0].length) : before,
      code: m[2],
    });
  }
  return { title: heading.slice(3).trim(), intro, snippets };
}

/** Paragraphs of prose (not fences, headings or comments), each joined onto one line. */
function paragraphs(text) {
  return text
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter((p) => p && !/^(```|#|<!--)/.test(p))
    .map((p) => p.replace(/\s*\n\s*/g, " "));
}

/** Markdown inline code (`x`) as <code> nodes, the rest as text; `h` builds elements. */
export function inline(h, text) {
  return text.split("`").map((part, i) => (i % 2 ? h("code", {}, part) : part.replaceAll("**", "")));
}
