// Helpers for live tests: a client from node.ts, waiting on its state.
import { connect } from "../../src/node";
import type { ClientOptions, ZoneClient } from "../../src/node";
import { waitFor } from "./server";

export const live: ZoneClient[] = [];

export function client(options: ClientOptions): ZoneClient {
  const c = connect({ reconnect: { maxDelayMs: 1000 }, ...options });
  live.push(c);
  return c;
}

export async function inWorld(c: ZoneClient, timeoutMs = 10000): Promise<void> {
  await waitFor(`client in the world (state ${c.state}, ${c.connection.closeError?.message ?? ""})`, () => c.state === "in_world" && c.store.tick !== null, timeoutMs);
}

export async function closeAll(): Promise<void> {
  await Promise.all(live.splice(0).map((c) => Promise.race([c.close(), new Promise((r) => setTimeout(r, 3000))])));
}
