// TCP through Node's `net` (tools, tests, bots): each message prefixed by its varint length.
// A server frame over the inbound limit, or a malformed length, closes with an error.
import { connect as netConnect } from "node:net";
import { FrameDecoder, frame } from "../framing";
import { hostPortOf } from "./types";
import type { DialTarget, Transport, TransportClose, TransportFactory, TransportHandlers } from "./types";

export const nodeTcp: TransportFactory = (target: DialTarget, h: TransportHandlers): Transport => {
  const { host, port } = hostPortOf(target.url);
  const decoder = new FrameDecoder(target.maxInboundFrameBytes);
  let closed = false;
  let error: Error | undefined;
  const finish = (info: TransportClose) => {
    if (closed) return;
    closed = true;
    h.onClose(info);
  };
  const socket = netConnect({ host, port, noDelay: true });
  socket.on("connect", () => h.onOpen(""));
  socket.on("data", (chunk: Buffer) => {
    if (closed) return;
    decoder.feed(chunk);
    for (let body = decoder.next(); body !== undefined; body = decoder.next()) {
      h.onMessage(body);
      if (closed) return;
    }
    if (decoder.error !== undefined) {
      error = new Error(`bad frame from the server: ${decoder.error}`);
      socket.destroy();
    }
  });
  socket.on("error", (e: Error) => {
    error ??= e;
  });
  socket.on("close", () => finish({ error, reason: error ? error.message : "closed" }));
  return {
    send: (bytes: Uint8Array) => {
      if (!socket.destroyed) socket.write(frame(bytes));
    },
    close: () => {
      socket.end();
      socket.destroySoon?.();
      setTimeout(() => socket.destroy(), 1000).unref();
    },
    get bufferedAmount() {
      return socket.writableLength;
    },
  };
};
