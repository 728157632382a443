// The one interface every transport implements: whole protobuf messages in and out. A
// transport does its own framing (none for WebSocket, a varint length for TCP) and reports
// open, each message and the close, once each; it never retries or interprets anything.
import { offeredSubprotocols } from "../protocol";

/** Where to dial. `url` is ws://, wss:// or tcp:// (tcp://host:port). */
export interface DialTarget {
  url: string;
  /** WebSocket subprotocols to offer (zone.v<N>, newest first). */
  protocols: string[];
  /** The largest inbound frame accepted (bytes). */
  maxInboundFrameBytes: number;
}

export interface TransportClose {
  /** WebSocket close code, when there was one. */
  code?: number;
  /** WebSocket close reason (the server's Kick reason), or a transport's own description. */
  reason?: string;
  /** An I/O error, a refused handshake (with its HTTP status), a framing error. */
  error?: Error;
  /** The HTTP status of a refused WebSocket handshake (426, 400, 403, 503). */
  httpStatus?: number;
}

export interface TransportHandlers {
  /** Connected; `protocol` is the accepted subprotocol (WebSocket) or "" (TCP). */
  onOpen(protocol: string): void;
  /** One whole message (the bytes may be reused after the call returns). */
  onMessage(bytes: Uint8Array): void;
  /** Closed, for whatever reason; called once, and nothing after it. */
  onClose(info: TransportClose): void;
}

export interface Transport {
  /** Sends one whole message (framed as the transport needs). */
  send(bytes: Uint8Array): void;
  /** Closes; onClose follows (asynchronously). */
  close(): void;
  /** Bytes accepted by send() and not yet handed to the network. */
  readonly bufferedAmount: number;
}

export type TransportFactory = (target: DialTarget, handlers: TransportHandlers) => Transport;

export function dialTarget(url: string, maxInboundFrameBytes: number): DialTarget {
  return { url, protocols: offeredSubprotocols(), maxInboundFrameBytes };
}

/** "tcp", "ws" or "wss" of a URL (lower case), or "" when it has none we know. */
export function schemeOf(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  const s = m ? m[1].toLowerCase() : "";
  return s === "tcp" || s === "ws" || s === "wss" ? s : "";
}

/** host and port of tcp://host:port (or [v6]:port). */
export function hostPortOf(url: string): { host: string; port: number } {
  const rest = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/\/.*$/, "");
  const colon = rest.lastIndexOf(":");
  const host = rest.slice(0, colon).replace(/^\[|\]$/g, "");
  return { host, port: Number(rest.slice(colon + 1)) };
}
