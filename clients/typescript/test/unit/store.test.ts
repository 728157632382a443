// The entity store on broken lists a server never sends (a hostile or corrupted stream): whole
// pairs only, no id past 2^32 - 1 (the running sum does not wrap), sint32 sums wrapping as on the
// wire; never a NaN position. The same rules as the C++ library (ClientEntityStore.*) and the
// Python client (tests/golden/README.md, TickUpdate step 5).
import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { ServerMessageSchema } from "../../src/gen/zone_pb";
import type { ServerMessage } from "../../src/gen/zone_pb";
import { EntityStore } from "../../src/store";
import type { ZoneEvent } from "../../src/store";

function tick(value: Record<string, unknown>): ServerMessage {
  return create(ServerMessageSchema, { kind: { case: "tick", value: { tick: 1n, ...value } } } as never);
}

function storeWith5And9(): EntityStore {
  const store = new EntityStore({ onEnter: () => {}, onChange: () => {}, onLeave: () => {} });
  const events: ZoneEvent[] = [];
  store.apply(create(ServerMessageSchema, { kind: { case: "welcome", value: { entityId: 1, zoneId: 1, you: { hp: 10 } } } } as never), events);
  store.apply(tick({ entered: [{ id: 5, x: 2147483647, alive: true }, { id: 9, x: 20, alive: true }] }), events);
  return store;
}

test("broken delta lists apply whole pairs only and never name an id past 2^32 - 1", () => {
  const store = storeWith5And9();
  const events: ZoneEvent[] = [];
  store.apply(tick({ movedIds: [5, 4], movedDeltas: [1, 4, 99] }), events); // 9 has half a pair
  assert.equal(store.entities.get(5)!.x, -2147483648, "the sint32 sum wraps");
  assert.equal(store.entities.get(5)!.y, 4);
  assert.equal(store.entities.get(9)!.x, 20, "no complete pair for 9");
  store.apply(tick({ turnedIds: [9], turnedDeltas: [1, 1] }), events); // no facing
  assert.equal(store.entities.get(9)!.x, 20);
  store.apply(tick({ movedIds: [9, 0xfffffffc], movedDeltas: [0, 0, 400, 400] }), events);
  assert.equal(store.entities.get(5)!.x, -2147483648, "9 + 0xfffffffc must not wrap around to 5");
  for (const e of store.entities.values()) assert.ok(Number.isFinite(e.x) && Number.isFinite(e.y));
});
