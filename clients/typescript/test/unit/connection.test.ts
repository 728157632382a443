// The state machine with a scripted transport and a fake clock (no timers, no sockets): login,
// loss and jittered backoff, resume(), silence, hand-offs over TCP and WebSocket, final and
// retryable errors and kicks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ClientMessageSchema, ErrorCode, ServerMessageSchema } from "../../src/gen/zone_pb";
import type { ClientMessage, ServerMessage } from "../../src/gen/zone_pb";
import { ZoneClient } from "../../src/client";
import type { TransportFactory, TransportHandlers } from "../../src/transport/types";
import { CloseReason } from "../../src/errors";
import { PROTOCOL_VERSION, offeredSubprotocols } from "../../src/protocol";

interface Dial {
  url: string;
  protocols: string[];
  h: TransportHandlers;
  sent: ClientMessage[];
  closed: boolean;
}

function rig(url = "tcp://127.0.0.1:1", extra: Record<string, unknown> = {}) {
  let now = 1_000_000;
  const dials: Dial[] = [];
  const factory: TransportFactory = (target, h) => {
    const d: Dial = { url: target.url, protocols: target.protocols, h, sent: [], closed: false };
    dials.push(d);
    return {
      send: (b) => d.sent.push(fromBinary(ClientMessageSchema, b)),
      close: () => {
        if (!d.closed) {
          d.closed = true;
          h.onClose({ reason: "closed by client" });
        }
      },
      bufferedAmount: 0,
    };
  };
  const states: string[] = [];
  const c = new ZoneClient({ url, name: "Tester", transportFor: () => factory, autoPoll: false, now: () => now, random: () => 0.5, ...extra });
  c.on("state", (to) => states.push(to));
  c.start();
  const last = () => dials[dials.length - 1];
  const serve = (m: Partial<ServerMessage["kind"]>) => last().h.onMessage(toBinary(ServerMessageSchema, create(ServerMessageSchema, { kind: m as ServerMessage["kind"] })));
  const welcome = () => serve({ case: "welcome", value: create(ServerMessageSchema, { kind: { case: "welcome", value: { entityId: 5, zoneId: 1, zoneName: "plaza", zoneMaxX: 40000, zoneMaxY: 40000, tickRate: 20, x: 100, y: 100, you: { speed: 400, hp: 100, maxHp: 100 } } } }).kind.value as never });
  const tick = (t: number, seq = 0) => serve({ case: "tick", value: create(ServerMessageSchema, { kind: { case: "tick", value: { tick: BigInt(t), lastInputSeq: seq } } }).kind.value as never });
  const advance = (ms: number) => {
    now += ms;
    c.poll(now);
  };
  return { c, dials, states, last, serve, welcome, tick, advance, now: () => now };
}

test("login: connecting -> handshaking -> in_world, Hello with the name and the protocol", () => {
  const r = rig();
  r.advance(0);
  assert.deepEqual(r.states, ["connecting"]);
  r.last().h.onOpen("");
  r.advance(1);
  assert.equal(r.states.at(-1), "handshaking");
  const hello = r.last().sent[0];
  assert.equal(hello.kind.case, "hello");
  assert.equal(hello.kind.case === "hello" && hello.kind.value.playerName, "Tester");
  assert.equal(hello.kind.case === "hello" && hello.kind.value.protocolVersion, PROTOCOL_VERSION);
  r.welcome();
  r.tick(1);
  r.advance(1);
  assert.equal(r.c.state, "in_world");
  assert.equal(r.c.selfId, 5);
  assert.ok(r.last().sent.some((m) => m.kind.case === "ping"), "pings at once");
});

test("a lost connection reconnects with jittered exponential backoff; resume() skips the wait", () => {
  const r = rig();
  r.advance(0);
  r.last().h.onOpen("");
  r.advance(1);
  r.welcome();
  r.advance(1);
  r.last().h.onClose({ error: new Error("ECONNRESET") });
  r.advance(1);
  assert.equal(r.c.state, "reconnecting");
  assert.equal(r.dials.length, 1);
  // attempt 1: 100 ms * (0.5 + 0.5 * 0.5) = 75 ms
  r.advance(70);
  assert.equal(r.dials.length, 1);
  r.advance(10);
  assert.equal(r.dials.length, 2);
  r.last().h.onClose({ error: new Error("ECONNREFUSED") });
  r.advance(1);
  // attempt 2: 200 ms * 0.75 = 150 ms
  r.advance(140);
  assert.equal(r.dials.length, 2);
  r.advance(15);
  assert.equal(r.dials.length, 3);
  r.last().h.onClose({ error: new Error("ECONNREFUSED") });
  r.advance(1);
  r.c.resume(r.now());
  r.advance(0);
  assert.equal(r.dials.length, 4, "resume() dials at once");
  r.last().h.onOpen("");
  r.advance(1);
  r.welcome();
  r.advance(1);
  assert.equal(r.c.state, "in_world");
  assert.equal(r.c.stats.reconnects, 1);
  assert.deepEqual(r.states, ["connecting", "handshaking", "in_world", "reconnecting", "in_world"]);
});

test("silence in the world is a dead connection: reconnect at once", () => {
  const r = rig();
  r.advance(0);
  r.last().h.onOpen("");
  r.advance(1);
  r.welcome();
  r.advance(1);
  r.advance(3001);
  assert.equal(r.c.state, "reconnecting");
  r.advance(0);
  assert.equal(r.dials.length, 2);
});

test("a hand-off over TCP: dials server_address with the ticket; the game sees handing_off, no reconnect", () => {
  const r = rig();
  r.advance(0);
  r.last().h.onOpen("");
  r.advance(1);
  r.welcome();
  r.tick(1);
  r.advance(1);
  r.serve({ case: "zoneChanged", value: { zoneId: 2, zoneName: "yard", serverAddress: "127.0.0.1:9999", ticket: "T1" } as never });
  r.advance(1);
  assert.equal(r.c.state, "handing_off");
  assert.equal(r.last().url, "tcp://127.0.0.1:9999");
  assert.ok(r.dials[0].closed);
  r.last().h.onOpen("");
  r.advance(1);
  const hello = r.last().sent[0];
  assert.ok(hello.kind.case === "hello" && hello.kind.value.ticket === "T1" && hello.kind.value.playerName === "");
  r.welcome();
  r.advance(1);
  assert.equal(r.c.state, "in_world");
  assert.equal(r.c.stats.handoffs, 1);
  assert.equal(r.c.stats.reconnects, 0);
  assert.deepEqual(r.states, ["connecting", "handshaking", "in_world", "handing_off", "in_world"]);
});

test("a hand-off over WebSocket dials ZoneChanged.websocket_url (protocol 10), and without one is a typed error", () => {
  const r = rig("ws://127.0.0.1:1/");
  r.advance(0);
  assert.deepEqual(r.last().protocols, offeredSubprotocols());
  r.last().h.onOpen(`zone.v${PROTOCOL_VERSION}`);
  r.advance(1);
  r.welcome();
  r.advance(1);
  r.serve({ case: "zoneChanged", value: { zoneId: 2, zoneName: "yard", serverAddress: "127.0.0.1:9999", ticket: "T2", websocketUrl: "ws://127.0.0.1:9998/" } as never });
  r.advance(1);
  assert.equal(r.c.state, "handing_off");
  assert.equal(r.last().url, "ws://127.0.0.1:9998/");

  const r2 = rig("ws://127.0.0.1:1/");
  r2.advance(0);
  r2.last().h.onOpen(`zone.v${PROTOCOL_VERSION}`);
  r2.advance(1);
  r2.welcome();
  r2.advance(1);
  r2.serve({ case: "zoneChanged", value: { zoneId: 2, zoneName: "yard", serverAddress: "127.0.0.1:9999", ticket: "T3" } as never });
  r2.advance(1);
  assert.equal(r2.c.state, "closed");
  assert.equal(r2.c.connection.closeReason, CloseReason.HandoffFailed);
  assert.equal(r2.c.connection.closeError?.code, "no_websocket_address");
});

test("final and retryable server errors and kicks", () => {
  const cases: Array<[ServerMessage["kind"], string]> = [
    [{ case: "error", value: { code: ErrorCode.AUTH_FAILED, message: "authentication failed" } } as never, "closed"],
    [{ case: "error", value: { code: ErrorCode.STORAGE_UNAVAILABLE, message: "later" } } as never, "reconnecting"],
    [{ case: "kick", value: { reason: "logged_in_elsewhere" } } as never, "closed"],
    [{ case: "kick", value: { reason: "shutdown" } } as never, "reconnecting"],
    [{ case: "kick", value: { reason: "idle" } } as never, "closed"],
  ];
  for (const [kind, want] of cases) {
    const r = rig();
    r.advance(0);
    r.last().h.onOpen("");
    r.advance(1);
    r.welcome();
    r.advance(1);
    r.serve(kind);
    r.last().h.onClose({ reason: "server closed" });
    r.advance(1);
    assert.equal(r.c.state, want, JSON.stringify(kind));
  }
});

test("a subprotocol this SDK does not speak is a typed protocol_version close", () => {
  const r = rig("ws://127.0.0.1:1/");
  r.advance(0);
  r.last().h.onOpen("zone.v3");
  r.advance(1);
  assert.equal(r.c.state, "closed");
  assert.equal(r.c.connection.closeError?.code, "protocol_version");
});
