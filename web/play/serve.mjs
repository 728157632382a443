// npm start (after the build): serves dist/ and nothing else, for the page to be opened.
//
//   node serve.mjs [--host 127.0.0.1] [--port 8080]     (env PLAY_HOST, PLAY_PORT; --port 0: any free port)
//
// Only the regular files inside dist/ are served: the request's path is decoded, resolved
// against dist/ and refused unless it stays inside it (no "..", no symlink out of it: the real
// path is checked too). GET and HEAD only. Prints the page's URL once it listens.
import { createServer } from "node:http";
import { createReadStream, realpathSync, statSync } from "node:fs";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, "dist");

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
  return eq ? eq.slice(name.length + 3) : fallback;
}
const host = arg("host", process.env.PLAY_HOST || "127.0.0.1");
const port = Number(arg("port", process.env.PLAY_PORT || "8080"));
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`serve: bad port ${port}`);
  process.exit(2);
}

let distReal;
try {
  distReal = realpathSync(dist);
} catch {
  console.error(`serve: ${dist} does not exist: run npm run build (npm start does)`);
  process.exit(1);
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
};

/** The file of dist/ a URL path names, or null. */
function fileFor(urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes("\0")) return null;
  if (path.endsWith("/")) path += "index.html";
  const full = resolve(dist, "." + path);
  if (full !== dist && !full.startsWith(dist + sep)) return null;
  try {
    const real = realpathSync(full);
    if (!real.startsWith(distReal + sep)) return null;
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

const server = createServer((req, res) => {
  const send = (status, text) => {
    res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.end(req.method === "HEAD" ? undefined : text + "\n");
  };
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("allow", "GET, HEAD");
    return send(405, "method not allowed");
  }
  let pathname;
  try {
    pathname = new URL(req.url ?? "/", "http://x").pathname;
  } catch {
    return send(400, "bad request");
  }
  const file = fileFor(pathname);
  if (file === null) return send(404, "not found");
  const size = statSync(file).size;
  res.writeHead(200, {
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
    "content-length": size,
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
  });
  if (req.method === "HEAD") return res.end();
  createReadStream(file).on("error", () => res.destroy()).pipe(res);
});

server.on("error", (e) => {
  console.error(`serve: ${e.message}`);
  process.exit(1);
});
server.listen(port, host, () => {
  const a = server.address();
  const shown = a.family === "IPv6" ? `[${a.address}]` : a.address;
  console.log(`play: serving ${dist} at http://${shown}:${a.port}/`);
  console.log("play: the page connects to ws://<this host>:7778/ unless you add ?server=ws://host:port/ (the server's websocket.allowed_origins must allow this page's origin)");
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.close(() => process.exit(0)) && setTimeout(() => process.exit(0), 500).unref());
