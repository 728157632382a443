// The services a two-node cluster needs, started by the test as the C++ suite does
// (tests/support/nats_server.h, postgres_server.h): a nats-server with JetStream on a free
// loopback port, and PostgreSQL (initdb, pg_ctl) listening only on a unix socket in a temp dir;
// under root the PostgreSQL commands run as the `postgres` user (runuser), since initdb refuses
// root. Missing binaries throw, saying what to install.
import { execFileSync, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sleep } from "./server";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function which(name: string, extra: string[]): string {
  for (const d of [...(process.env.PATH ?? "").split(":"), ...extra]) {
    if (d && existsSync(join(d, name))) return join(d, name);
  }
  throw new Error(`${name} not found: install the '${name === "nats-server" ? "nats-server" : "postgresql"}' package (scripts/install-deps.sh)`);
}

export class NatsServer {
  private child: ChildProcess | undefined;
  port = 0;
  readonly dir = mkdtempSync(join(tmpdir(), "zs-ts-nats-"));
  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }
  static async start(): Promise<NatsServer> {
    const n = new NatsServer();
    const bin = process.env.ZS_NATS_SERVER || which("nats-server", ["/usr/sbin", "/usr/bin"]);
    n.port = await freePort();
    n.child = spawn(bin, ["-js", "-a", "127.0.0.1", "-p", String(n.port), "-sd", join(n.dir, "store"), "-l", join(n.dir, "server.log")], { stdio: "ignore" });
    const end = Date.now() + 10000;
    while (!(await n.greets())) {
      if (Date.now() > end) throw new Error("nats-server: not accepting after 10 s");
      await sleep(20);
    }
    return n;
  }
  private greets(): Promise<boolean> {
    return new Promise((resolve) => {
      const s = connect({ host: "127.0.0.1", port: this.port });
      s.once("data", (d) => {
        s.destroy();
        resolve(d.toString().startsWith("INFO "));
      });
      s.once("error", () => resolve(false));
    });
  }
  stop(): void {
    this.child?.kill("SIGTERM");
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export class PostgresServer {
  readonly dir = mkdtempSync("/tmp/zs_ts_pg_");
  private bin = "";
  private as: string[] = [];
  static start(): PostgresServer {
    const p = new PostgresServer();
    const root = "/usr/lib/postgresql";
    const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin/initdb"))).sort((a, b) => Number(b) - Number(a)) : [];
    if (versions.length === 0) throw new Error("PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin: install the 'postgresql' package");
    p.bin = join(root, versions[0], "bin");
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
      const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
      chownSync(p.dir, uid, gid);
      p.as = ["runuser", "-u", "postgres", "--"];
    }
    p.run(join(p.bin, "initdb"), ["-D", join(p.dir, "data"), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]);
    p.run(join(p.bin, "pg_ctl"), ["-D", join(p.dir, "data"), "-l", join(p.dir, "server.log"), "-o", `-k ${p.dir} -c listen_addresses='' -c fsync=off`, "-w", "start"]);
    return p;
  }
  private run(cmd: string, args: string[]): void {
    const full = [...this.as, cmd, ...args];
    execFileSync(full[0], full.slice(1), { stdio: "pipe" });
  }
  createDatabase(name: string): string {
    this.run(join(this.bin, "createdb"), ["-h", this.dir, "-U", "postgres", name]);
    return `host=${this.dir} dbname=${name} user=postgres`;
  }
  stop(): void {
    try {
      this.run(join(this.bin, "pg_ctl"), ["-D", join(this.dir, "data"), "-m", "immediate", "-w", "stop"]);
    } catch {
      /* gone already */
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
