// ZoneServer: the real zone_server binary as a child process for the live tests, configured as
// the C++ harness does (tests/integration/harness.h, ServerProcess): a temp dir with its own
// server.yaml (loopback, ephemeral ports, the WebSocket door open, the integration world, two io
// threads, a generous per-IP cap), started with --port-file, whose three numbers (game, admin,
// WebSocket port) are read once the file is there. kill() (SIGKILL by default) and restart() on
// the same ports (explicit --port, --ws-port, --admin-port) for the fault tests; stop() at the
// end. A missing binary throws, saying where it looked: live tests fail loudly, never skip in
// silence (ZS_TS_SKIP_LIVE=1 is the one way to leave them out).
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { randomBytes, createHmac } from "node:crypto";
import { accessSync, constants, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_WORLD, serverBinary } from "./paths";

export interface ServerOptions {
  /** The world file (absolute). Default: tests/integration/world/world.yaml. */
  world?: string;
  /** Extra top-level YAML lines (storage:, cluster:, ...). */
  top?: string;
  /** Extra lines under limits: (indented by two spaces). */
  limits?: string;
  /** Auth mode token with a fresh secret (mint tokens with mintToken). */
  tokenAuth?: boolean;
  /** Keep characters in a SQLite file in the server's dir (default true, unless `top` has storage:). */
  sqlite?: boolean;
  /** Extra command-line arguments. */
  args?: string[];
  /** Extra environment. */
  env?: Record<string, string>;
  /** Seconds to wait for the port file. Default 15. */
  startTimeoutS?: number;
  /** false: do not wait for the ports (a server that may refuse to start). */
  waitForPorts?: boolean;
}

export class ZoneServer {
  readonly dir: string;
  port = 0;
  adminPort = 0;
  wsPort = 0;
  secret: Buffer | undefined;
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  private running = false;

  private constructor(private readonly opts: ServerOptions) {
    this.dir = mkdtempSync(join(tmpdir(), "zs-ts-server-"));
  }

  static async start(opts: ServerOptions = {}): Promise<ZoneServer> {
    const bin = serverBinary();
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      throw new Error(`zone_server not found or not executable at ${bin}: build it (scripts/build.sh test) or set ZS_SERVER_BIN; ZS_TS_SKIP_LIVE=1 leaves the live tests out`);
    }
    const s = new ZoneServer(opts);
    s.writeConfig();
    await s.launch([]);
    return s;
  }

  get tcpUrl(): string {
    return `tcp://127.0.0.1:${this.port}`;
  }
  get wsUrl(): string {
    return `ws://127.0.0.1:${this.wsPort}/`;
  }
  url(transport: "ws" | "tcp"): string {
    return transport === "ws" ? this.wsUrl : this.tcpUrl;
  }

  private writeConfig(): void {
    const o = this.opts;
    const lines = [
      "listen: {address: 127.0.0.1, port: 0}",
      "admin: {address: 127.0.0.1, port: 0}",
      `world: ${o.world ?? TEST_WORLD}`,
      "websocket: {enabled: true, port: 0}",
      "io_threads: 2",
      "log_level: info",
      "stats_interval_seconds: 5",
    ];
    if (o.tokenAuth) {
      this.secret = randomBytes(48);
      writeFileSync(join(this.dir, "secret"), this.secret);
      lines.push(`auth: {mode: token, secret_file: ${join(this.dir, "secret")}}`);
    }
    const top = o.top ?? "";
    if (o.sqlite !== false && !/^storage:/m.test(top)) {
      lines.push(`storage: {backend: sqlite, path: ${join(this.dir, "characters.db")}, checkpoint_seconds: 1}`);
    }
    if (top) lines.push(top.trimEnd());
    lines.push("limits:", "  idle_timeout_seconds: 60", "  max_connections_per_ip: 2000");
    if (o.limits) lines.push(o.limits.trimEnd());
    writeFileSync(join(this.dir, "server.yaml"), lines.join("\n") + "\n");
  }

  private async launch(extraArgs: string[]): Promise<void> {
    const portFile = join(this.dir, "ports");
    rmSync(portFile, { force: true });
    const log = openSync(join(this.dir, "server.log"), "a");
    const args = ["--config", join(this.dir, "server.yaml"), "--port-file", portFile, ...(this.opts.args ?? []), ...extraArgs];
    const child = spawn(serverBinary(), args, { stdio: ["ignore", log, log], env: { ...process.env, ...this.opts.env } });
    closeSync(log);
    this.child = child;
    this.running = true;
    this.exited = new Promise((resolve) => child.on("exit", (code, signal) => {
      this.running = false;
      resolve(code ?? (signal ? 128 : null));
    }));
    if (this.opts.waitForPorts === false) return;
    await this.awaitPorts((this.opts.startTimeoutS ?? 15) * 1000);
  }

  /** Waits for the port file; throws with the log if the server exits or it does not come. */
  async awaitPorts(timeoutMs: number): Promise<void> {
    const portFile = join(this.dir, "ports");
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (existsSync(portFile)) {
        const text = readFileSync(portFile, "utf8").trim();
        const nums = text.split(/\s+/).map(Number);
        if (nums.length >= 3 && nums.every((n) => n > 0)) {
          [this.port, this.adminPort, this.wsPort] = nums;
          return;
        }
      }
      if (!this.running) throw new Error(`zone_server exited at start:\n${this.log()}`);
      if (Date.now() > end) throw new Error(`zone_server: no port file after ${timeoutMs} ms:\n${this.log()}`);
      await sleep(25);
    }
  }

  log(): string {
    try {
      return readFileSync(join(this.dir, "server.log"), "utf8");
    } catch {
      return "";
    }
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get isRunning(): boolean {
    return this.running;
  }

  signal(sig: NodeJS.Signals): void {
    if (this.running) this.child?.kill(sig);
  }

  /** Kills it (SIGKILL: a crash) and waits until it is gone. */
  async kill(sig: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (!this.running) return;
    this.child?.kill(sig);
    await this.exited;
  }

  /** Its exit code, or undefined if still running after `timeoutMs`. */
  async wait(timeoutMs: number): Promise<number | null | undefined> {
    return Promise.race([this.exited, sleep(timeoutMs).then(() => undefined)]);
  }

  /** Starts it again on the same ports (and the same files). */
  async restart(): Promise<void> {
    await this.kill();
    await this.launch(["--port", String(this.port), "--ws-port", String(this.wsPort), "--admin-port", String(this.adminPort)]);
  }

  /** GET `path` from the admin port. */
  async adminGet(path: string): Promise<string> {
    const r = await fetch(`http://127.0.0.1:${this.adminPort}${path}`);
    return r.text();
  }

  async stop(): Promise<void> {
    await this.kill("SIGKILL");
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function b64url(data: Buffer): string {
  return data.toString("base64url");
}

/**
 * A login token as a studio's login service mints it (docs/accounts.md; as
 * examples/python/mint_token.py): "zs1." b64url(payload) "." b64url(HMAC-SHA256(secret, signed)),
 * payload = account "\n" expiry "\n" nonce "\n" name.
 */
export function mintToken(secret: Buffer, account: number, name: string, ttlSeconds = 300): string {
  const expiry = Math.floor(Date.now() / 1000) + ttlSeconds;
  const nonce = b64url(randomBytes(12));
  const signed = "zs1." + b64url(Buffer.from(`${account}\n${expiry}\n${nonce}\n${name}`, "utf8"));
  return signed + "." + b64url(createHmac("sha256", secret).update(signed, "ascii").digest());
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `cond()` holds (checked every 10 ms); throws saying `what` after `timeoutMs`. */
export async function waitFor(what: string, cond: () => boolean, timeoutMs = 10000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(10);
  }
}
