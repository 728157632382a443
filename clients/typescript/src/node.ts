// @zone-server/client/node: the Node entry. Everything of the browser entry, plus WebSocket
// through `ws` and TCP through `net` (tcp://host:port: tools, bots, tests).
//
//   import { connect } from "@zone-server/client/node";
//   const client = connect({ url: "tcp://127.0.0.1:7777", name: "Aria" });
import { ZoneClient } from "./client";
import type { ClientOptions } from "./client";
import { nodeTcp } from "./transport/tcp";
import type { TransportFactory } from "./transport/types";
import { schemeOf } from "./transport/types";
import { nodeWebSocket } from "./transport/websocket";

export * from "./index";
export { nodeTcp } from "./transport/tcp";
export { nodeWebSocket } from "./transport/websocket";

/** Node's transports: ws://, wss:// (the `ws` package) and tcp:// (`net`). */
export function nodeTransportFor(url: string): TransportFactory | undefined {
  const s = schemeOf(url);
  if (s === "tcp") return nodeTcp;
  if (s === "ws" || s === "wss") return nodeWebSocket;
  return undefined;
}

/** Connects over ws://, wss:// or tcp://. Call client.resume() when your process wakes up. */
export function connect(options: ClientOptions): ZoneClient {
  return new ZoneClient({ transportFor: nodeTransportFor, ...options }).start();
}
