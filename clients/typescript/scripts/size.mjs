// Bundle size of a minimal page (bench/minimal-page.ts: connect and log the entity count), as a
// browser bundle: esbuild, minified, tree-shaken. Fails if Node's `net` or `ws` got in.
import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const r = await build({
  entryPoints: [join(pkg, "bench/minimal-page.ts")],
  bundle: true,
  minify: true,
  platform: "browser",
  format: "esm",
  target: "es2022",
  write: false,
  metafile: true,
  logLevel: "warning",
});
const code = r.outputFiles[0].contents;
const inputs = Object.keys(r.metafile.inputs);
const bad = inputs.filter((i) => /(^|\/)(ws|net)(\/|$)|node:net|transport\/(tcp|websocket)\.ts/.test(i));
if (bad.length > 0) {
  console.error(`size: the browser bundle pulled in Node transports: ${bad.join(", ")}`);
  process.exit(1);
}
const byPkg = {};
for (const [path, info] of Object.entries(r.metafile.outputs)[0][1].inputs ? Object.entries(Object.values(r.metafile.outputs)[0].inputs) : []) {
  const key = path.includes("node_modules/@bufbuild/protobuf") ? "@bufbuild/protobuf" : path.includes("src/gen/") ? "src/gen (zone.proto)" : "SDK (src/)";
  byPkg[key] = (byPkg[key] ?? 0) + info.bytesInOutput;
}
console.log(`size: minimal page (connect + log entity count): ${(code.length / 1024).toFixed(1)} KiB minified, ${(gzipSync(code, { level: 9 }).length / 1024).toFixed(1)} KiB gzip`);
for (const [k, v] of Object.entries(byPkg)) console.log(`size:   ${k}: ${(v / 1024).toFixed(1)} KiB minified`);
