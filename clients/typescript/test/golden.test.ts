// The golden streams (tests/golden/README.md) replayed through the SDK's EntityStore: after
// every recorded ServerMessage the store's snapshot and the message's events must be exactly the
// recorded ones, and a listener fed alongside (onEnter/onChange/onLeave) must end each step
// knowing what the store knows. Every tests/golden/*.json is replayed (at least one must be
// there), and each must be of this SDK's protocol version.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { ServerMessageSchema } from "../src/gen/zone_pb";
import { EntityStore } from "../src/store";
import type { ZoneEvent } from "../src/store";
import { PROTOCOL_VERSION } from "../src/protocol";
import { GOLDEN_DIR } from "./support/paths";

interface Step {
  connection: number;
  message: string;
  store: unknown;
  events: unknown[];
}

/** An SDK event in the golden format (tests/golden/README.md "Events"). */
function goldenEvent(e: ZoneEvent): unknown {
  switch (e.type) {
    case "hit":
      return { type: "hit", attacker: e.attacker, skill: e.skill, targets: e.targets.map(([id, damage, killed]) => [id, damage, killed]) };
    case "chat":
      return { type: "chat", channel: e.channel, from: e.from, text: e.text };
    case "result":
      return { type: "result", kind: e.kind, seq: e.seq, outcome: e.outcome };
    case "zone_changed":
      return { type: "zone_changed", zone_id: e.zoneId, server_address: e.serverAddress, websocket_url: e.websocketUrl };
    case "kick":
      return { type: "kick", reason: e.reason };
    case "error":
      return { type: "error", code: e.code };
    case "notice":
      return { type: "notice", code: e.code };
  }
}

const streams = readdirSync(GOLDEN_DIR).filter((f) => f.endsWith(".json")).sort();

test("there is at least one golden stream, each of this protocol version", () => {
  assert.ok(streams.length >= 1, `no golden stream in ${GOLDEN_DIR}`);
  for (const f of streams) {
    const s = JSON.parse(readFileSync(join(GOLDEN_DIR, f), "utf8"));
    assert.equal(s.format, 1, f);
    assert.equal(s.protocol_version, PROTOCOL_VERSION, `${f}: recorded for protocol ${s.protocol_version}, the SDK speaks ${PROTOCOL_VERSION}`);
    assert.equal(s.name, f.replace(/\.json$/, ""));
  }
});

for (const f of streams) {
  test(`golden stream ${f}: every step's store and events`, () => {
    const stream = JSON.parse(readFileSync(join(GOLDEN_DIR, f), "utf8")) as { steps: Step[] };
    assert.ok(stream.steps.length > 0);
    const known = new Map<number, number>(); // the listener's own picture: id -> x
    const store = new EntityStore({
      onEnter: (e) => {
        assert.ok(!known.has(e.id), `entered twice without a leave: ${e.id}`);
        known.set(e.id, e.x);
      },
      onChange: (e) => {
        assert.ok(known.has(e.id), `changed before it entered: ${e.id}`);
        known.set(e.id, e.x);
      },
      onLeave: (e) => {
        assert.ok(known.delete(e.id), `left without entering: ${e.id}`);
      },
    });
    stream.steps.forEach((step, i) => {
      const m = fromBinary(ServerMessageSchema, Buffer.from(step.message, "base64"));
      const events: ZoneEvent[] = [];
      store.apply(m, events);
      const where = `${f} step ${i} (connection ${step.connection}, ${m.kind.case})`;
      assert.deepStrictEqual(store.snapshot(), step.store, `${where}: store`);
      assert.deepStrictEqual(events.map(goldenEvent), step.events, `${where}: events`);
      const expected = new Map([...store.entities.values()].map((e) => [e.id, e.x]));
      assert.deepStrictEqual(new Map([...known].sort((a, b) => a[0] - b[0])), new Map([...expected].sort((a, b) => a[0] - b[0])), `${where}: listener`);
    });
  });
}
