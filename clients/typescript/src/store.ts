// EntityStore: what the client knows of its zone, kept exactly as tests/golden/README.md says
// (every client we ship reproduces the golden streams byte for byte in its snapshot and events).
//
// Owns: the zone, the last tick and last_input_seq, your own entity's state (`self`), the other
// entities by id (never your own), the crowd total. Entity objects are kept and mutated in place,
// so a game may hold on to one; an id that leaves and enters again gets a new object.
//
// Events: apply() appends the message's events (hit, chat, result, zone_changed, kick, error,
// notice) to the caller's array, in the golden order, and calls the listener's onEnter /
// onChange / onLeave. A resync (or a Welcome: a reconnect, a hand-off) forgets every entity, as
// the protocol says; the listener is then told the difference once the next frame has given the
// whole picture again (in the same frame): onLeave for those not in it, onChange for those in it
// that changed, not a storm of leaves and enters for everything that stayed. A Welcome (a new
// session: a reconnect, a hand-off) and a ZoneChanged tell onLeave for everything at once. After
// every apply() the listener has heard exactly what the store holds.
//
// Threads: none; apply() runs where the caller runs it. Pure: no I/O, no clock.
import type { EntityEnter, ServerMessage, TickUpdate, Welcome, ZoneChanged } from "./gen/zone_pb";
import { EntityKind } from "./gen/zone_pb";
import { MotionTrack } from "./interpolation";

/** The largest entity id (uint32): a running sum past it names no entity. */
const MAX_ID = 0xffffffff;

export interface ZoneInfo {
  id: number;
  name: string;
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** Your own entity, as the server last said. */
export interface SelfState {
  id: number;
  x: number;
  y: number;
  facing: number;
  hp: number;
  alive: boolean;
}

/** Another entity: a monster or a player. Positions in centimetres, facing 1/65536 turn. */
export class Entity {
  kind: EntityKind = EntityKind.PLAYER;
  templateId = 0;
  name = "";
  x = 0;
  y = 0;
  facing = 0;
  radius = 0;
  hp = 0;
  maxHp = 0;
  alive = true;
  /** Recent positions by tick, for interpolation (stateAt). */
  readonly track: MotionTrack;
  /** @internal frame stamp, to report each change once per frame */
  stamp = 0;
  constructor(readonly id: number, trackCapacity: number) {
    this.track = new MotionTrack(trackCapacity);
  }
}

export type HitTargetInfo = [id: number, damage: number, killed: boolean];

export type ZoneEvent =
  | { type: "hit"; attacker: number; skill: number; targets: HitTargetInfo[]; originX: number; originY: number; facing: number }
  | { type: "chat"; channel: number; from: number; fromName: string; text: string; to: string }
  | { type: "result"; kind: number; seq: number; outcome: number }
  | { type: "zone_changed"; zoneId: number; zoneName: string; serverAddress: string; websocketUrl: string; x: number; y: number }
  | { type: "kick"; reason: string }
  | { type: "error"; code: number; message: string }
  | { type: "notice"; code: number; text: string };

export interface StoreListener {
  onEnter?(e: Entity): void;
  onChange?(e: Entity): void;
  onLeave?(e: Entity): void;
}

/** The golden snapshot shape (tests/golden/README.md "The store"). */
export interface StoreSnapshot {
  zone: { id: number; name: string; min: [number, number]; max: [number, number] } | null;
  tick: number | null;
  last_input_seq: number;
  self: { id: number; x: number; y: number; facing: number; hp: number; alive: boolean } | null;
  entities: Array<{
    id: number; kind: number; template_id: number; name: string; x: number; y: number;
    facing: number; radius: number; hp: number; max_hp: number; alive: boolean;
  }>;
  crowd_total: number | null;
}

export class EntityStore {
  zone: ZoneInfo | null = null;
  tick: number | null = null;
  lastInputSeq = 0;
  self: SelfState | null = null;
  crowdTotal: number | null = null;
  readonly entities = new Map<number, Entity>();
  /** Frames applied since the store was made. */
  frames = 0;
  /** Resync frames seen. */
  resyncs = 0;

  // What a resync or Welcome forgot, until the next frame gives the whole picture again.
  private limbo: Map<number, Entity> | null = null;
  private changed: Entity[] = [];
  private stamp = 1;

  constructor(
    public listener: StoreListener = {},
    private readonly trackCapacity = 16,
  ) {}

  /** Applies one server message; its events are appended to `events` in the golden order. */
  apply(m: ServerMessage, events: ZoneEvent[]): void {
    switch (m.kind.case) {
      case "tick":
        this.applyTick(m.kind.value, events);
        break;
      case "welcome":
        this.applyWelcome(m.kind.value);
        break;
      case "zoneChanged":
        this.applyZoneChanged(m.kind.value, events);
        break;
      case "kick":
        events.push({ type: "kick", reason: m.kind.value.reason });
        break;
      case "error":
        events.push({ type: "error", code: m.kind.value.code, message: m.kind.value.message });
        break;
      case "notice":
        events.push({ type: "notice", code: m.kind.value.code, text: m.kind.value.text });
        break;
      default:
        break; // pong: no change
    }
  }

  private applyWelcome(w: Welcome): void {
    this.zone = {
      id: w.zoneId, name: w.zoneName, minX: w.zoneMinX, minY: w.zoneMinY, maxX: w.zoneMaxX, maxY: w.zoneMaxY,
    };
    this.tick = null;
    this.lastInputSeq = 0;
    this.self = { id: w.entityId, x: w.x, y: w.y, facing: w.facing, hp: w.you?.hp ?? 0, alive: !(w.you?.dead ?? false) };
    this.crowdTotal = null;
    this.leaveAll(); // a new session: the listener hears it at once, as the store forgets
  }

  /** Forgets every entity now, telling the listener. */
  private leaveAll(): void {
    this.flushLimbo();
    const gone = [...this.entities.values()];
    this.entities.clear();
    if (this.listener.onLeave) for (const e of gone) this.listener.onLeave(e);
  }

  private applyZoneChanged(z: ZoneChanged, events: ZoneEvent[]): void {
    this.zone = {
      id: z.zoneId, name: z.zoneName, minX: z.zoneMinX, minY: z.zoneMinY, maxX: z.zoneMaxX, maxY: z.zoneMaxY,
    };
    if (this.self) {
      this.self.x = z.x;
      this.self.y = z.y;
    }
    this.crowdTotal = null;
    this.leaveAll(); // another zone: nothing known here comes back as the same entity
    events.push({ type: "zone_changed", zoneId: z.zoneId, zoneName: z.zoneName, serverAddress: z.serverAddress, websocketUrl: z.websocketUrl, x: z.x, y: z.y });
  }

  /** Forgets every entity (a resync); the listener hears the difference at the end of the frame. */
  private forgetAll(): void {
    if (this.limbo === null) this.limbo = new Map(this.entities);
    else for (const [id, e] of this.entities) this.limbo.set(id, e);
    this.entities.clear();
  }

  /** Tells the listener that whatever is still in limbo has left. */
  private flushLimbo(): void {
    const limbo = this.limbo;
    this.limbo = null;
    if (limbo && this.listener.onLeave) for (const e of limbo.values()) this.listener.onLeave(e);
  }

  private markChanged(e: Entity): void {
    if (e.stamp !== this.stamp) {
      e.stamp = this.stamp;
      this.changed.push(e);
    }
  }

  private enter(d: EntityEnter, tick: number): void {
    if (this.self !== null && d.id === this.self.id) return; // never your own entity
    let before = this.entities.get(d.id);
    if (before === undefined && this.limbo !== null) {
      before = this.limbo.get(d.id);
      if (before !== undefined) this.limbo.delete(d.id);
    }
    // The same entity when it comes back (from limbo, or re-sent) with the same identity.
    const same = before !== undefined && before.kind === d.kind && before.templateId === d.templateId && before.name === d.name;
    if (before !== undefined && !same) this.listener.onLeave?.(before);
    const e = same ? before! : new Entity(d.id, this.trackCapacity);
    const changed = same &&
      (e.x !== d.x || e.y !== d.y || e.facing !== d.facing || e.radius !== d.radius || e.hp !== d.hp || e.maxHp !== d.maxHp || e.alive !== d.alive);
    e.kind = d.kind;
    e.templateId = d.templateId;
    e.name = d.name;
    e.x = d.x;
    e.y = d.y;
    e.facing = d.facing;
    e.radius = d.radius;
    e.hp = d.hp;
    e.maxHp = d.maxHp;
    e.alive = d.alive;
    this.entities.set(d.id, e);
    if (same) {
      e.track.push(tick, e.x, e.y, e.facing);
      if (changed) this.markChanged(e);
    } else {
      e.track.reset(tick, e.x, e.y, e.facing);
      this.listener.onEnter?.(e);
    }
  }

  private applyTick(t: TickUpdate, events: ZoneEvent[]): void {
    this.stamp++;
    this.frames++;
    const tick = Number(t.tick);
    const entities = this.entities;
    if (t.resync) {
      this.resyncs++;
      this.forgetAll();
    }
    // left
    for (let i = 0; i < t.left.length; i++) {
      const id = t.left[i];
      const e = entities.get(id);
      if (e !== undefined) {
        entities.delete(id);
        this.listener.onLeave?.(e);
      }
    }
    // entered
    for (let i = 0; i < t.entered.length; i++) this.enter(t.entered[i], tick);
    // updated
    for (let i = 0; i < t.updated.length; i++) {
      const u = t.updated[i];
      const e = entities.get(u.id);
      if (e === undefined) continue;
      let moved = false;
      if (u.x !== undefined) { e.x = u.x; moved = true; }
      if (u.y !== undefined) { e.y = u.y; moved = true; }
      if (u.facing !== undefined) { e.facing = u.facing; moved = true; }
      if (u.hp !== undefined) e.hp = u.hp;
      if (u.alive !== undefined) e.alive = u.alive;
      if (moved) e.track.push(tick, e.x, e.y, e.facing);
      this.markChanged(e);
    }
    // moved: ids as running sums, two deltas per id
    {
      const ids = t.movedIds;
      const d = t.movedDeltas;
      const n = Math.min(ids.length, Math.floor(d.length / 2)); // a broken list: whole pairs only
      let id = 0;
      for (let i = 0; i < n; i++) {
        if (i > 0 && ids[i] === 0) continue; // the same id again: skipped
        id += ids[i];
        if (id > MAX_ID) break; // past every id: the sum does not wrap
        const e = entities.get(id);
        if (e === undefined) continue;
        e.x = (e.x + d[2 * i]) | 0; // sint32 sums wrap, as on the wire
        e.y = (e.y + d[2 * i + 1]) | 0;
        e.track.push(tick, e.x, e.y, e.facing);
        this.markChanged(e);
      }
    }
    // turned: as moved, and the new facing
    {
      const ids = t.turnedIds;
      const d = t.turnedDeltas;
      const f = t.turnedFacings;
      const n = Math.min(ids.length, Math.floor(d.length / 2), f.length);
      let id = 0;
      for (let i = 0; i < n; i++) {
        if (i > 0 && ids[i] === 0) continue;
        id += ids[i];
        if (id > MAX_ID) break;
        const e = entities.get(id);
        if (e === undefined) continue;
        e.x = (e.x + d[2 * i]) | 0;
        e.y = (e.y + d[2 * i + 1]) | 0;
        e.facing = f[i];
        e.track.push(tick, e.x, e.y, e.facing);
        this.markChanged(e);
      }
    }
    // self
    const s = t.self;
    if (s !== undefined && this.self !== null) {
      if (s.x !== undefined) this.self.x = s.x;
      if (s.y !== undefined) this.self.y = s.y;
      if (s.facing !== undefined) this.self.facing = s.facing;
      if (s.hp !== undefined) this.self.hp = s.hp;
      if (s.alive !== undefined) this.self.alive = s.alive;
    }
    this.tick = tick;
    this.lastInputSeq = t.lastInputSeq;
    if (t.crowd !== undefined) this.crowdTotal = t.crowd.total;

    // The whole picture is back: whatever did not come back from limbo has left.
    this.flushLimbo();
    if (this.changed.length > 0) {
      const onChange = this.listener.onChange;
      if (onChange) for (let i = 0; i < this.changed.length; i++) onChange(this.changed[i]);
      this.changed.length = 0;
    }

    for (const h of t.hits) {
      const targets: HitTargetInfo[] = h.targets.map((x) => [x.id, x.damage, x.killed]);
      events.push({ type: "hit", attacker: h.attacker, skill: h.skillId, targets, originX: h.originX, originY: h.originY, facing: h.facing });
    }
    for (const c of t.chat) {
      events.push({ type: "chat", channel: c.channel, from: c.fromId, fromName: c.fromName, text: c.text, to: c.to });
    }
    for (const r of t.results) events.push({ type: "result", kind: r.kind, seq: r.seq, outcome: r.outcome });
  }

  /** The store in the golden format (tests/golden/README.md). */
  snapshot(): StoreSnapshot {
    const ids = [...this.entities.keys()].sort((a, b) => a - b);
    return {
      zone: this.zone && { id: this.zone.id, name: this.zone.name, min: [this.zone.minX, this.zone.minY], max: [this.zone.maxX, this.zone.maxY] },
      tick: this.tick,
      last_input_seq: this.lastInputSeq,
      self: this.self && { id: this.self.id, x: this.self.x, y: this.self.y, facing: this.self.facing, hp: this.self.hp, alive: this.self.alive },
      entities: ids.map((id) => {
        const e = this.entities.get(id)!;
        return {
          id: e.id, kind: e.kind, template_id: e.templateId, name: e.name, x: e.x, y: e.y, facing: e.facing,
          radius: e.radius, hp: e.hp, max_hp: e.maxHp, alive: e.alive,
        };
      }),
      crowd_total: this.crowdTotal,
    };
  }
}
