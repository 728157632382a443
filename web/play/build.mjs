// npm run build: bundles src/main.ts (and the SDK from ../../clients/typescript/src, from source)
// into dist/play.js with esbuild, copies static/ (index.html, style.css) beside it, and prints
// the sizes. The SDK's one runtime dependency, @bufbuild/protobuf, is this package's dependency
// too (the same exact version) and always resolves from this package's node_modules (the
// plugin below; tsconfig.json's `paths` do the same for tsc): the SDK's own node_modules need
// not be installed, and a copy there is never bundled. Fails if a Node-only module (net, ws,
// the SDK's TCP or ws transports) got into the browser bundle.
//
//   node build.mjs            minified, with a source map (dist/play.js.map)
//   node build.mjs --dev      not minified
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
const dev = process.argv.includes("--dev");

/** Resolves @bufbuild/protobuf (and its subpaths) as if imported from this package. */
const sdkDepsFromHere = {
  name: "sdk-deps-from-here",
  setup(b) {
    b.onResolve({ filter: /^@bufbuild\/protobuf(\/|$)/ }, async (args) => {
      if (args.pluginData === "from-here") return undefined;
      const r = await b.resolve(args.path, { kind: args.kind, resolveDir: here, pluginData: "from-here" });
      return r.errors.length > 0 ? { errors: r.errors } : { path: r.path, sideEffects: r.sideEffects };
    });
  },
};

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const r = await build({
  entryPoints: [join(here, "src/main.ts")],
  outfile: join(dist, "play.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022", "chrome100", "firefox100", "safari15"],
  minify: !dev,
  sourcemap: "linked",
  plugins: [sdkDepsFromHere],
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
});
const inputs = Object.keys(r.metafile.inputs);
const foreign = inputs.filter((i) => i.includes("node_modules") && !resolve(i).startsWith(join(here, "node_modules")));
if (foreign.length > 0) {
  console.error(`build: modules from outside this package's node_modules: ${foreign.join(", ")}`);
  process.exit(1);
}
const bad = inputs.filter((i) => /(^|\/)(ws|net)(\/|$)|node:|transport\/(tcp|websocket)\.ts/.test(i));
if (bad.length > 0) {
  console.error(`build: Node-only modules in the browser bundle: ${bad.join(", ")}`);
  process.exit(1);
}
for (const f of readdirSync(join(here, "static"))) copyFileSync(join(here, "static", f), join(dist, f));

let total = 0;
let totalGz = 0;
const rows = [];
for (const f of readdirSync(dist).sort()) {
  if (f.endsWith(".map")) continue;
  const p = join(dist, f);
  if (!statSync(p).isFile()) continue;
  const bytes = readFileSync(p);
  const gz = gzipSync(bytes, { level: 9 }).length;
  total += bytes.length;
  totalGz += gz;
  rows.push(`build:   ${f.padEnd(12)} ${(bytes.length / 1024).toFixed(1).padStart(6)} KiB  (${(gz / 1024).toFixed(1)} KiB gzip)`);
}
// What the script is made of.
const parts = {};
for (const [path, info] of Object.entries(Object.values(r.metafile.outputs).find((o) => o.entryPoint)?.inputs ?? {})) {
  const key = path.includes("@bufbuild/protobuf") ? "@bufbuild/protobuf" : path.includes("clients/typescript/src/gen/") ? "SDK generated code" : path.includes("clients/typescript/") ? "SDK" : "game (src/)";
  parts[key] = (parts[key] ?? 0) + info.bytesInOutput;
}
console.log(`build: ${relative(process.cwd(), dist) || "."}/ (${dev ? "dev" : "minified"}): ${(total / 1024).toFixed(1)} KiB, ${(totalGz / 1024).toFixed(1)} KiB gzip`);
for (const row of rows) console.log(row);
console.log(`build:   play.js = ${Object.entries(parts).map(([k, v]) => `${k} ${(v / 1024).toFixed(1)} KiB`).join(", ")}`);
