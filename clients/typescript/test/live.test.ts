// The SDK against a real zone_server on loopback, over WebSocket and over TCP: login by name and
// by token, moves acknowledged and the prediction converging on the server's position, a swing's
// InputResult through its promise and its hit event, another player entering and leaving, a
// message too large refused before sending, chat, and a server killed (SIGKILL) and restarted
// on the same ports, resumed by the SDK by itself with the same character.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { ClientMessageSchema, EntityKind, InputKind, Outcome, ZoneClientError, ChatChannel, CloseReason } from "../src/node";
import type { Entity } from "../src/node";
import { SKIP_LIVE } from "./support/paths";
import { PROTOCOL_VERSION } from "../src/protocol";
import { ZoneServer, mintToken, waitFor } from "./support/server";
import { client, closeAll, inWorld } from "./support/clients";

for (const transport of ["ws", "tcp"] as const) {
  describe(`live over ${transport}`, { skip: SKIP_LIVE && "ZS_TS_SKIP_LIVE=1" }, () => {
    let server: ZoneServer;
    before(async () => {
      server = await ZoneServer.start();
    });
    after(async () => {
      await closeAll();
      await server?.stop();
    });

    test("logs in by name, walks (acked, prediction converges), swings (result + hit), chats", async () => {
      const name = `Walker${transport}`;
      const a = client({ url: server.url(transport), name });
      const states: string[] = [];
      a.on("state", (to) => states.push(to));
      await inWorld(a);
      assert.deepEqual(states.slice(0, 3), transport === "ws" ? ["connecting", "handshaking", "in_world"] : ["connecting", "handshaking", "in_world"]);
      assert.equal(a.welcome?.playerName, name);
      assert.equal(a.connection.protocolVersion, PROTOCOL_VERSION);
      assert.ok(a.skillList.length >= 1);
      await waitFor("entities in view", () => a.entities.size > 0);
      await waitFor("a pong", () => !Number.isNaN(a.stats.rtt.last), 5000);

      // Walk east, then stop: acked, and the predicted position meets the server's.
      const start = { ...a.store.self! };
      assert.ok(a.move(1, 0));
      await new Promise((r) => setTimeout(r, 400));
      assert.ok(a.stop());
      const stopSeq = a["inputSeq"] as number;
      await waitFor("the stop acked", () => a.store.lastInputSeq === stopSeq, 5000);
      await waitFor("prediction converged", () => {
        const p = a.selfPosition();
        return Math.hypot(p.x - a.store.self!.x, p.y - a.store.self!.y) < 2;
      }, 5000);
      assert.ok(a.store.self!.x > start.x + 500, `walked east: ${start.x} -> ${a.store.self!.x}`);
      assert.ok(Math.abs(a.store.self!.y - start.y) < 2);
      assert.equal(a.prediction.pendingCount, 0);

      // A second player at the spawn: A sees it enter; A swings at it (pvp plaza): the promise
      // gives the result and a hit event names A's attack; B leaves: A sees it leave.
      const entered: Entity[] = [];
      const left: number[] = [];
      a.on("enter", (e) => entered.push(e));
      a.on("leave", (e) => left.push(e.id));
      const hits: Array<{ attacker: number; targets: number[] }> = [];
      a.on("hit", (h) => hits.push({ attacker: h.attacker, targets: h.targets.map((t) => t[0]) }));
      // Walk back to the spawn so that B is within reach.
      a.move(-1, 0);
      await waitFor("back near the spawn", () => a.store.self!.x <= start.x + 30, 5000);
      a.stop();
      const b = client({ url: server.url(transport), name: `Target${transport}` });
      await inWorld(b);
      await waitFor("B entered A's view", () => entered.some((e) => e.id === b.selfId), 5000);
      const eb = entered.find((e) => e.id === b.selfId)!;
      assert.equal(eb.kind, EntityKind.PLAYER);
      assert.equal(eb.name, `Target${transport}`);
      const dx = eb.x - a.store.self!.x;
      const dy = eb.y - a.store.self!.y;
      const facing = Math.round(((Math.atan2(dy, dx) / (2 * Math.PI)) * 65536 + 65536) % 65536);
      assert.equal(a.cooldownLeft(1), 0);
      const result = await a.useSkill(1, facing);
      assert.equal(result.kind, InputKind.SKILL);
      assert.equal(result.outcome, Outcome.ACCEPTED);
      assert.ok(a.cooldownLeft(1) > 0, "cooling down after an accepted swing");
      await waitFor("the hit event", () => hits.some((h) => h.attacker === a.selfId && h.targets.includes(b.selfId)), 3000);
      await assert.rejects(a.useSkill(1, facing), (e: ZoneClientError) => e.code === "skill_on_cooldown");
      await assert.rejects(a.useSkill(999, 0), (e: ZoneClientError) => e.code === "unknown_skill");

      // Chat: the promise resolves with its result; A hears itself.
      const heard: string[] = [];
      a.on("chat", (c) => heard.push(c.text));
      const said = await a.chat("hello from TypeScript", { channel: ChatChannel.SAY });
      assert.equal(said.outcome, Outcome.ACCEPTED);
      await waitFor("A hears its own say", () => heard.includes("hello from TypeScript"), 3000);

      await b.close();
      assert.equal(b.connection.closeReason, CloseReason.Logout);
      await waitFor("B left A's view", () => left.includes(eb.id), 5000);
      assert.ok(!a.entities.has(eb.id));
    });

    test("every limit is a typed error before sending", async () => {
      const a = client({ url: server.url(transport), name: `Limits${transport}` });
      await inWorld(a);
      const sentBefore = a.stats.bytesOut;
      await assert.rejects(a.chat("x".repeat(257)), (e: ZoneClientError) => e.code === "chat_too_long" && e.details.limit === 256);
      await assert.rejects(a.chat(""), (e: ZoneClientError) => e.code === "bad_text");
      await assert.rejects(a.chat("a\nb"), (e: ZoneClientError) => e.code === "bad_text");
      const huge = create(ClientMessageSchema, { kind: { case: "chat", value: { seq: 1, channel: ChatChannel.SAY, text: "y".repeat(70000) } } });
      assert.throws(() => a.sendRaw(huge), (e: ZoneClientError) => e.code === "frame_too_large" && e.details.limit === 65536 && (e.details.bytes ?? 0) > 65536);
      assert.throws(() => a.move(NaN, 0), (e: ZoneClientError) => e.code === "invalid_argument");
      assert.equal(a.stats.bytesOut, sentBefore, "nothing was sent");
      assert.equal(a.state, "in_world", "still connected");
    });

    test("a server killed and restarted on the same ports: the SDK resumes the same character", async () => {
      const name = `Phoenix${transport}`;
      const a = client({ url: server.url(transport), name, reconnect: { initialDelayMs: 100, maxDelayMs: 500 } });
      const states: string[] = [];
      a.on("state", (to) => states.push(to));
      const entered = new Set<number>();
      a.on("enter", (e) => entered.add(e.id));
      a.on("leave", (e) => entered.delete(e.id));
      await inWorld(a);
      const id = a.selfId;
      a.move(0, 1);
      await waitFor("walked north", () => a.store.self!.y > 10000 + 300, 5000);
      a.stop();
      await waitFor("stopped and checkpointed", () => a.prediction.pendingCount === 0, 5000);
      await new Promise((r) => setTimeout(r, 1500)); // lets one checkpoint (1 s) pass: pacing, not a result
      const where = { ...a.store.self! };
      await server.kill("SIGKILL");
      await waitFor("the SDK notices", () => a.state === "reconnecting", 5000);
      await new Promise((r) => setTimeout(r, 300));
      const restartedAt = Date.now();
      await server.restart();
      const answering = Date.now();
      await inWorld(a, 15000);
      const resumed = Date.now();
      console.log(`[ resume ${transport} ] server answering again -> back in the world: ${resumed - answering} ms (restart took ${answering - restartedAt} ms)`);
      assert.ok(resumed - answering < 2000, `resumed ${resumed - answering} ms after the server answered`);
      assert.equal(a.store.self!.id !== 0, true);
      assert.equal(a.welcome!.playerName, name, "the same character");
      assert.ok(Math.hypot(a.store.self!.x - where.x, a.store.self!.y - where.y) < 300, `where it was: ${JSON.stringify(where)} vs ${JSON.stringify(a.store.self)}`);
      assert.ok(a.stats.reconnects >= 1);
      assert.ok(states.includes("reconnecting"));
      void id;
      // Listener consistency: what the listener heard is what the store holds.
      await waitFor("entities again", () => a.entities.size > 0, 5000);
      assert.deepEqual([...entered].sort(), [...a.entities.keys()].sort());
    });
  });
}

describe("live: token login", { skip: SKIP_LIVE && "ZS_TS_SKIP_LIVE=1" }, () => {
  let server: ZoneServer;
  before(async () => {
    server = await ZoneServer.start({ tokenAuth: true });
  });
  after(async () => {
    await closeAll();
    await server?.stop();
  });
  for (const transport of ["ws", "tcp"] as const) {
    test(`logs in with a fresh token per login over ${transport}, and a forged one is a typed final error`, async () => {
      let minted = 0;
      const name = `Tok${transport}`;
      const a = client({
        url: server.url(transport),
        token: async () => {
          minted++;
          return mintToken(server.secret!, transport === "ws" ? 41 : 42, name);
        },
      });
      await inWorld(a);
      assert.equal(a.welcome!.playerName, name);
      assert.equal(minted, 1);
      const bad = client({ url: server.url(transport), token: mintToken(Buffer.alloc(48, 1), 43, "Forger") });
      await waitFor("refused", () => bad.state === "closed", 5000);
      assert.equal(bad.connection.closeReason, CloseReason.ServerError);
      assert.equal(bad.connection.closeError?.code, "server_error");
      assert.equal(bad.connection.closeError?.serverCode, 9 /* AUTH_FAILED */);
    });
  }
});
