// FaultProxy: a loopback TCP proxy for network-fault tests. Every connection to it is forwarded
// to the target port with added one-way latency and jitter (order kept), and it can stall every
// connection (bytes held, nothing closed), cut them all (destroyed, as a dropped link looks to a
// client after its keepalive), or refuse new ones while "down".
import { createServer, connect } from "node:net";
import type { Server, Socket } from "node:net";

export interface ProxyOptions {
  latencyMs?: number; // one way, each direction
  jitterMs?: number; // uniform 0..jitter extra, order kept
}

export class FaultProxy {
  port = 0;
  latencyMs: number;
  jitterMs: number;
  private server: Server;
  private readonly pairs = new Set<{ a: Socket; b: Socket }>();
  private stalled = false;
  private down = false;
  private held: Array<() => void> = [];

  constructor(private readonly targetPort: number, opts: ProxyOptions = {}) {
    this.latencyMs = opts.latencyMs ?? 0;
    this.jitterMs = opts.jitterMs ?? 0;
    this.server = createServer((client) => this.accept(client));
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  private accept(client: Socket): void {
    if (this.down) {
      client.destroy();
      return;
    }
    client.setNoDelay(true);
    const upstream = connect({ host: "127.0.0.1", port: this.targetPort, noDelay: true });
    const pair = { a: client, b: upstream };
    this.pairs.add(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    this.pipe(client, upstream);
    this.pipe(upstream, client);
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  }

  private pipe(from: Socket, to: Socket): void {
    let lastDue = 0;
    from.on("data", (chunk: Buffer) => {
      const due = Math.max(Date.now() + this.latencyMs + Math.random() * this.jitterMs, lastDue);
      lastDue = due;
      const deliver = () => {
        if (this.stalled) {
          this.held.push(deliver);
          return;
        }
        if (!to.destroyed) to.write(chunk);
      };
      const wait = due - Date.now();
      if (wait <= 0 && !this.stalled) deliver();
      else setTimeout(deliver, Math.max(0, wait));
    });
  }

  /** Holds every byte in both directions (connections stay open) until unstall(). */
  stall(): void {
    this.stalled = true;
  }

  unstall(): void {
    this.stalled = false;
    const held = this.held;
    this.held = [];
    for (const d of held) d();
  }

  /** Destroys every connection. With `down`, new connections are refused until up(). */
  cut(down = false): void {
    this.down = down;
    this.held = [];
    this.stalled = false;
    for (const p of this.pairs) {
      p.a.destroy();
      p.b.destroy();
    }
    this.pairs.clear();
  }

  up(): void {
    this.down = false;
  }

  get connections(): number {
    return this.pairs.size;
  }

  async close(): Promise<void> {
    this.cut(true);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
