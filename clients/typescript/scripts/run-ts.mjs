// Runs one TypeScript file of this package (bundled by esbuild into .build/) with node.
//   node scripts/run-ts.mjs bench/apply.ts [args...]
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const [file, ...args] = process.argv.slice(2);
const out = join(pkg, ".build/run", basename(file).replace(/\.ts$/, ".mjs"));
await build({ entryPoints: [resolve(pkg, file)], outfile: out, bundle: true, packages: "external", platform: "node", format: "esm", target: "node20", sourcemap: "inline", logLevel: "warning" });
const r = spawnSync(process.execPath, ["--enable-source-maps", out, ...args], { stdio: "inherit" });
process.exit(r.status ?? 1);
