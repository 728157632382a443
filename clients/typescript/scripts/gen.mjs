// Generates src/gen/ from the repository's proto/zone.proto with protoc and protoc-gen-es.
//   node scripts/gen.mjs           regenerate src/gen/
//   node scripts/gen.mjs --check   generate into a temp dir; exit 1 if it differs from src/gen/
// protoc: $PROTOC, else /usr/bin/protoc (Debian's protobuf-compiler).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, mkdirSync, cpSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const repo = resolve(pkg, "../..");
// ZS_PROTO_FILE: another zone.proto (e.g. a committed version while proto/ is being edited).
const protoFile = process.env.ZS_PROTO_FILE ? resolve(process.env.ZS_PROTO_FILE) : join(repo, "proto/zone.proto");
const protoDir = dirname(protoFile);
const genDir = join(pkg, "src/gen");
const protoc = process.env.PROTOC || "/usr/bin/protoc";
const plugin = join(pkg, "node_modules/.bin/protoc-gen-es");
const check = process.argv.includes("--check");

if (!existsSync(plugin)) {
  console.error(`gen: ${plugin} missing: run npm ci first`);
  process.exit(2);
}
const out = mkdtempSync(join(tmpdir(), "zs-ts-gen-"));
try {
  execFileSync(protoc, [
    `--plugin=protoc-gen-es=${plugin}`,
    `--es_out=${out}`,
    "--es_opt=target=ts,import_extension=none",
    `-I${protoDir}`,
    protoFile,
  ], { stdio: "inherit" });
  const files = (d) => readdirSync(d).filter((f) => f.endsWith(".ts")).sort();
  if (check) {
    const want = files(out);
    const have = existsSync(genDir) ? files(genDir) : [];
    const stale = [];
    if (want.join() !== have.join()) stale.push(`files: generated [${want}] vs committed [${have}]`);
    for (const f of want) {
      if (have.includes(f) && readFileSync(join(out, f), "utf8") !== readFileSync(join(genDir, f), "utf8")) {
        stale.push(f);
      }
    }
    if (stale.length > 0) {
      console.error(`check-gen: src/gen is stale against proto/zone.proto (${stale.join("; ")}): run npm run gen`);
      process.exit(1);
    }
    console.log(`check-gen: src/gen matches proto/zone.proto (${want.join(", ")})`);
  } else {
    rmSync(genDir, { recursive: true, force: true });
    mkdirSync(genDir, { recursive: true });
    for (const f of files(out)) cpSync(join(out, f), join(genDir, f));
    console.log(`gen: wrote ${files(genDir).map((f) => "src/gen/" + f).join(", ")}`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
