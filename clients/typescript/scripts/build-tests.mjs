// Bundles each test/**/*.test.ts (and the test support) with esbuild into .build/test/*.mjs for
// node's test runner (node 20 runs no TypeScript by itself). Packages stay external.
import { build } from "esbuild";
import { readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(pkg, ".build");

function walk(dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

const entries = walk(join(pkg, "test")).filter((f) => f.endsWith(".test.ts"));
const extra = process.argv.slice(2).map((f) => resolve(f));
rmSync(join(out, "test"), { recursive: true, force: true });
await build({
  entryPoints: [...entries, ...extra],
  outdir: out,
  outbase: pkg,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  packages: "external",
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "inline",
  logLevel: "warning",
});
console.log(`build-tests: ${entries.length + extra.length} files -> ${relative(pkg, out)}/`);
