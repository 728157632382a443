// @zone-server/client: the browser entry (and any engine with a WHATWG WebSocket). Pulls in no
// Node module: Node's transports are in node.ts.
//
//   import { connect } from "@zone-server/client";
//   const client = connect({ url: "ws://127.0.0.1:7778/", name: "Aria" });
//   client.on("enter", (e) => console.log("enter", e.id, e.name));
import { ZoneClient } from "./client";
import type { ClientOptions } from "./client";
import { browserWebSocket } from "./transport/browser";
import type { TransportFactory } from "./transport/types";
import { schemeOf } from "./transport/types";

export { ZoneClient } from "./client";
export type { ClientOptions, ClientEvents, ClientStats, InputOutcome, HitInfo, ChatInfo } from "./client";
export type { ConnectionState, ReconnectOptions, TokenSource } from "./connection";
export { defaultHandoffUrl } from "./connection";
export { ZoneClientError, ServerError, CloseReason, closeReasonOf } from "./errors";
export type { ClientErrorCode } from "./errors";
export { Entity, EntityStore } from "./store";
export type { SelfState, ZoneInfo, ZoneEvent, StoreSnapshot, StoreListener } from "./store";
export { ClockSync, TickClock } from "./clock";
export { MotionTrack, lerpFacing } from "./interpolation";
export type { MotionState } from "./interpolation";
export { Prediction } from "./prediction";
export { FrameDecoder, frame, encodeVarint } from "./framing";
export * from "./protocol";
export type { Transport, TransportFactory, TransportHandlers, TransportClose, DialTarget } from "./transport/types";
export { browserWebSocket } from "./transport/browser";
export {
  ChatChannel, EntityKind, ErrorCode, InputKind, NoticeCode, Outcome, SkillShape, ClientMessageSchema, ServerMessageSchema,
} from "./gen/zone_pb";
export type { Welcome, TickUpdate, ZoneChanged, SkillInfo, ServerMessage, ClientMessage } from "./gen/zone_pb";

/** The browser's transports: ws:// and wss:// only. */
export function browserTransportFor(url: string): TransportFactory | undefined {
  const s = schemeOf(url);
  return s === "ws" || s === "wss" ? browserWebSocket : undefined;
}

/**
 * Connects (ws:// or wss:// in a browser). In a page, the client resumes by itself when the tab
 * comes back to the foreground (visibilitychange) or the network comes back (online).
 */
export function connect(options: ClientOptions): ZoneClient {
  const client = new ZoneClient({ transportFor: browserTransportFor, ...options });
  watchForeground(client);
  return client.start();
}

/** Calls client.resume() when the page becomes visible or the browser goes online again. */
export function watchForeground(client: ZoneClient): () => void {
  const doc = (globalThis as { document?: Document }).document;
  const win = (globalThis as { addEventListener?: typeof addEventListener; removeEventListener?: typeof removeEventListener });
  if (doc === undefined || typeof doc.addEventListener !== "function") return () => {};
  const onVisible = () => {
    if (doc.visibilityState === "visible") client.resume();
  };
  const onOnline = () => client.resume();
  doc.addEventListener("visibilitychange", onVisible);
  win.addEventListener?.("online", onOnline);
  const stop = () => {
    doc.removeEventListener("visibilitychange", onVisible);
    win.removeEventListener?.("online", onOnline);
  };
  client.on("closed", stop);
  return stop;
}
