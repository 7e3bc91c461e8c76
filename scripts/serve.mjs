#!/usr/bin/env node
// A tiny static file server for the playground, on 127.0.0.1 only.
//
//   node scripts/serve.mjs [port]        (or PORT=8080 node scripts/serve.mjs; 0 = a random free port)
//
// Serves www/ at /, the web build of the package (pkg/web/) at /pkg/web/ and the repository's
// README.md at /README.md (the "Use with" panel shows the README's snippets, read from there).
// Also importable: `const { url, close } = await startServer({ port: 0 })`.

import { createServer } from "node:http";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
};

/** URL prefix -> directory (a prefix ending in "/"), or exact path -> file; longest first. */
function mounts(root) {
  return [
    ["/README.md", join(root, "README.md")],
    ["/pkg/web/", join(root, "pkg", "web")],
    ["/", join(root, "www")],
  ];
}

/** The file a request path maps to, or null when it escapes its mount. */
function resolvePath(pathname, table) {
  for (const [prefix, dir] of table) {
    if (!prefix.endsWith("/")) {
      if (pathname === prefix) return dir;
      continue;
    }
    if (!pathname.startsWith(prefix)) continue;
    let rest = pathname.slice(prefix.length);
    if (rest === "" || rest.endsWith("/")) rest += "index.html";
    const file = normalize(join(dir, rest));
    return file === dir || file.startsWith(dir + sep) ? file : null;
  }
  return null;
}

function send(res, status, text) {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  res.end(text);
}

/**
 * Start the server. Resolves once listening.
 * @returns {Promise<{ url: string, port: number, close: () => Promise<void> }>}
 */
export function startServer({ port = 0, host = "127.0.0.1", root = ROOT, log = () => {} } = {}) {
  const table = mounts(root);
  const server = createServer(async (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "method not allowed\n");
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    } catch {
      return send(res, 400, "bad request\n");
    }
    const file = pathname.includes("\0") ? null : resolvePath(pathname, table);
    if (!file) return send(res, 403, "forbidden\n");
    let info;
    try {
      info = await stat(file);
    } catch {
      log(`404 ${pathname}`);
      return send(res, 404, `not found: ${pathname}\n`);
    }
    if (info.isDirectory()) {
      res.writeHead(301, { location: pathname + "/" });
      return res.end();
    }
    res.writeHead(200, {
      "content-type": MIME[extname(file).toLowerCase()] ?? "application/octet-stream",
      "content-length": info.size,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    if (req.method === "HEAD") return res.end();
    createReadStream(file).on("error", () => res.destroy()).pipe(res);
  });
  return new Promise((resolveStart, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolveStart({
        url: `http://${host}:${actual}/`,
        port: actual,
        close: () => new Promise((done) => {
          server.closeAllConnections?.();
          server.close(() => done());
        }),
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const raw = process.argv[2] ?? process.env.PORT ?? "8080";
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: port must be an integer 0..65535, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  const { url } = await startServer({ port, log: (line) => console.error(line) }).catch((e) => {
    // A port in use (or not ours to take) is one line, not a stack trace.
    console.error(`serve: cannot listen on 127.0.0.1:${port}: ${e.code === "EADDRINUSE" ? "the port is in use (make serve PORT=...)" : e.message}`);
    process.exit(1);
  });
  console.log(`selfheal playground: ${url}`);
  console.log("(serving www/ at /, pkg/web/ at /pkg/web/ and README.md; Ctrl-C to stop)");
}
