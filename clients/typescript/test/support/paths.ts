// Where things are, for the tests: the repository, the server binary, the golden streams.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";

function findPackageRoot(): string {
  // Tests run bundled from .build/test/..., sources from test/...: walk up to package.json.
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(resolve(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot();
export const REPO_ROOT = resolve(PACKAGE_ROOT, "../..");
export const GOLDEN_DIR = resolve(REPO_ROOT, "tests/golden");
export const TEST_WORLD = resolve(REPO_ROOT, "tests/integration/world/world.yaml");
export const CLUSTER_WORLD = resolve(REPO_ROOT, "tests/integration/world/cluster.yaml");
/** proto/zone.proto, or $ZS_PROTO_FILE (as scripts/gen.mjs reads it). */
export const PROTO_FILE = process.env.ZS_PROTO_FILE ? resolve(process.env.ZS_PROTO_FILE) : resolve(REPO_ROOT, "proto/zone.proto");

/** The zone_server binary: $ZS_SERVER_BIN, else <repo>/build/test/server/app/zone_server. */
export function serverBinary(): string {
  return process.env.ZS_SERVER_BIN || resolve(REPO_ROOT, "build/test/server/app/zone_server");
}

/** Live tests run unless ZS_TS_SKIP_LIVE=1; without a binary they fail, loudly. */
export const SKIP_LIVE = process.env.ZS_TS_SKIP_LIVE === "1";
