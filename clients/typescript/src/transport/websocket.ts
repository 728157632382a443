// WebSocket in Node, through the `ws` package. One binary message is one protobuf message; the
// accepted subprotocol says the version. A refused handshake reports its HTTP status (426, 400,
// 403, 503), which browsers cannot.
import WebSocket from "ws";
import type { DialTarget, Transport, TransportClose, TransportFactory, TransportHandlers } from "./types";

export const nodeWebSocket: TransportFactory = (target: DialTarget, h: TransportHandlers): Transport => {
  let closed = false;
  let error: Error | undefined;
  let httpStatus: number | undefined;
  const finish = (info: TransportClose) => {
    if (closed) return;
    closed = true;
    h.onClose(info);
  };
  const ws = new WebSocket(target.url, target.protocols, {
    perMessageDeflate: false,
    maxPayload: target.maxInboundFrameBytes,
    handshakeTimeout: 10000,
  });
  ws.binaryType = "nodebuffer";
  ws.on("open", () => {
    const s = (ws as unknown as { _socket?: { setNoDelay?: (on: boolean) => void } })._socket;
    s?.setNoDelay?.(true);
    h.onOpen(ws.protocol);
  });
  ws.on("message", (data: WebSocket.RawData, isBinary: boolean) => {
    if (closed) return;
    if (!isBinary) {
      error = new Error("a text WebSocket message (expected binary)");
      ws.close(1003);
      return;
    }
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    h.onMessage(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
  });
  ws.on("unexpected-response", (_req, res) => {
    httpStatus = res.statusCode;
    error = new Error(`WebSocket handshake refused: HTTP ${res.statusCode}`);
    res.resume();
    ws.terminate();
  });
  ws.on("error", (e: Error) => {
    error ??= e;
  });
  ws.on("close", (code: number, reason: Buffer) => {
    finish({ code, reason: reason.toString("utf8"), error, httpStatus });
  });
  return {
    send: (bytes: Uint8Array) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(bytes, { binary: true });
    },
    close: () => {
      if (ws.readyState === WebSocket.OPEN) ws.close(1000);
      else ws.terminate();
    },
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
  };
};
