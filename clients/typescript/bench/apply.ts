// CPU to decode and apply a crowded frame: 250 known entities in view, each tick's news like a
// crowd's (most walking: moved; some turning: turned; some hurt: updated hp; a few hits), built
// as the server would send them, encoded with protobuf-es, then decoded and applied to an
// EntityStore (with its interpolation tracks) many times over. Goal: under 0.1 ms per frame.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { EntityKind, ServerMessageSchema } from "../src/gen/zone_pb";
import type { ServerMessage } from "../src/gen/zone_pb";
import { EntityStore } from "../src/store";
import type { ZoneEvent } from "../src/store";

const N = 250;
const FRAMES = 400; // distinct frames, replayed in a loop
const ITER = 20000;
let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);

const welcome = create(ServerMessageSchema, {
  kind: { case: "welcome", value: { entityId: 100000, zoneId: 1, zoneName: "field", zoneMaxX: 100000, zoneMaxY: 100000, tickRate: 20, x: 50000, y: 50000, you: { hp: 100, maxHp: 100, speed: 400 } } },
});
const ids = Array.from({ length: N }, (_, i) => 1 + i * 3);
const enter = create(ServerMessageSchema, {
  kind: {
    case: "tick",
    value: {
      tick: 1n,
      entered: ids.map((id) => ({ id, kind: EntityKind.MONSTER, templateId: 1 + (id % 3), x: 48000 + Math.floor(rnd() * 4000), y: 48000 + Math.floor(rnd() * 4000), facing: Math.floor(rnd() * 65536), radius: 50, hp: 100, maxHp: 100, alive: true })),
    },
  },
});

function frame(tick: number): Uint8Array {
  // Each entity in at most one of updated / moved / turned, as the server does.
  const moved: number[] = [];
  const turned: number[] = [];
  const updated: Array<{ id: number; hp?: number; x?: number; y?: number }> = [];
  for (const id of ids) {
    const r = rnd();
    if (r < 0.7) moved.push(id);
    else if (r < 0.85) turned.push(id);
    else if (r < 0.93) updated.push({ id, hp: 100 - Math.floor(rnd() * 50) });
  }
  const gaps = (list: number[]) => list.map((id, i) => id - (i === 0 ? 0 : list[i - 1]));
  const deltas = (list: number[]) => list.flatMap(() => [Math.round(rnd() * 40 - 20), Math.round(rnd() * 40 - 20)]);
  const hits = Array.from({ length: 4 }, () => ({ attacker: ids[Math.floor(rnd() * N)], skillId: 10, originX: 50000, originY: 50000, facing: 1000, targets: [{ id: 100000, damage: 4 }] }));
  const m = create(ServerMessageSchema, {
    kind: {
      case: "tick",
      value: {
        tick: BigInt(tick), lastInputSeq: tick, movedIds: gaps(moved), movedDeltas: deltas(moved),
        turnedIds: gaps(turned), turnedDeltas: deltas(turned), turnedFacings: turned.map(() => Math.floor(rnd() * 65536)),
        updated, hits, self: { x: 50000 + tick, y: 50000 },
      },
    },
  });
  return toBinary(ServerMessageSchema, m);
}

const frames = Array.from({ length: FRAMES }, (_, i) => frame(i + 2));
const bytes = frames.reduce((s, f) => s + f.length, 0) / FRAMES;
let changes = 0;
const store = new EntityStore({ onChange: () => changes++ });
const events: ZoneEvent[] = [];
store.apply(welcome, events);
store.apply(enter, events);

function run(iterations: number, tickBase: number): void {
  for (let i = 0; i < iterations; i++) {
    const m: ServerMessage = fromBinary(ServerMessageSchema, frames[i % FRAMES]);
    // keep ticks increasing so the interpolation tracks take every sample
    if (m.kind.case === "tick") m.kind.value.tick = BigInt(tickBase + i);
    events.length = 0;
    store.apply(m, events);
  }
}

run(3000, 10); // warm up
let decodeOnly = performance.now();
for (let i = 0; i < ITER; i++) fromBinary(ServerMessageSchema, frames[i % FRAMES]);
decodeOnly = (performance.now() - decodeOnly) / ITER;
const t0 = performance.now();
run(ITER, 10000);
const perFrame = (performance.now() - t0) / ITER;
if (store.entities.size !== N) throw new Error(`store holds ${store.entities.size}`);
console.log(`bench: ${N} entities in view, frame ~${Math.round(bytes)} bytes (${Math.round(N * 0.7)} moved, ${Math.round(N * 0.15)} turned, ${Math.round(N * 0.08)} updated, 4 hits)`);
console.log(`bench: decode+apply ${(perFrame * 1000).toFixed(1)} us/frame (decode alone ${(decodeOnly * 1000).toFixed(1)} us) over ${ITER} frames; goal < 100 us: ${perFrame < 0.1 ? "met" : "NOT met"}`);
