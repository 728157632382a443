// The browser's WebSocket (also what engines with a WHATWG WebSocket provide: Deno, Bun, workers).
// One binary message is one protobuf message; the accepted subprotocol says the version.
import type { DialTarget, Transport, TransportFactory, TransportHandlers } from "./types";

export const browserWebSocket: TransportFactory = (target: DialTarget, h: TransportHandlers): Transport => {
  const Ctor = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  let closed = false;
  const finish = (info: Parameters<TransportHandlers["onClose"]>[0]) => {
    if (closed) return;
    closed = true;
    h.onClose(info);
  };
  if (Ctor === undefined) {
    queueMicrotask(() => finish({ error: new Error("no WebSocket in this environment") }));
    return { send() {}, close() {}, bufferedAmount: 0 };
  }
  const ws = new Ctor(target.url, target.protocols);
  ws.binaryType = "arraybuffer";
  ws.onopen = () => h.onOpen(ws.protocol);
  ws.onmessage = (ev: MessageEvent) => {
    if (closed) return;
    if (ev.data instanceof ArrayBuffer) h.onMessage(new Uint8Array(ev.data));
    else {
      // The server never sends text; a proxy that does is not speaking our protocol.
      finish({ error: new Error("a text WebSocket message (expected binary)") });
      ws.close(1003);
    }
  };
  ws.onerror = () => {
    /* a close event follows with the code; browsers do not say more */
  };
  ws.onclose = (ev: CloseEvent) => finish({ code: ev.code, reason: ev.reason });
  return {
    send: (bytes: Uint8Array) => ws.send(bytes),
    close: () => {
      if (ws.readyState === ws.CONNECTING || ws.readyState === ws.OPEN) ws.close(1000);
    },
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
  };
};
