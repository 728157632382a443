// ZoneClient: the public facade. It owns one EntityStore, ClockSync, TickClock and Prediction
// for its whole life (across reconnects and hand-offs) and one Connection (the state machine);
// it turns the game's calls into inputs (move, useSkill, chat) with every limit checked before
// sending, and the server's messages into events.
//
// Driving: with `autoPoll` (the default) a thin driver polls when bytes arrive and every 25 ms
// from a timer. With `autoPoll: false` nothing runs by itself: call poll(now) from the game loop
// (once a frame), which applies what arrived and runs every timer; nothing else touches a
// timer, so the client works in workers, WebGL builds and fixed-step loops.
//
// Times are local milliseconds from `now()` (default performance.timeOrigin + performance.now(),
// so epoch ms that never go back).
import { create } from "@bufbuild/protobuf";
import type { ClientMessage, SkillInfo, TickUpdate, Welcome, ZoneChanged } from "./gen/zone_pb";
import { ChatChannel, ClientMessageSchema, InputKind, Outcome } from "./gen/zone_pb";
import { ClockSync, TickClock } from "./clock";
import { Connection } from "./connection";
import type { ConnectionOptions, ConnectionState } from "./connection";
import { CloseReason, ServerError, ZoneClientError, closeReasonOf } from "./errors";
import { Emitter } from "./events";
import type { MotionState } from "./interpolation";
import { Prediction } from "./prediction";
import type { PredictionOptions } from "./prediction";
import { MAX_CHAT_BYTES, seqAcked, seqNext, utf8Length } from "./protocol";
import { Entity, EntityStore } from "./store";
import type { HitTargetInfo, ZoneEvent } from "./store";

export interface ClientOptions extends Omit<ConnectionOptions, "transportFor"> {
  transportFor?: ConnectionOptions["transportFor"];
  /** Poll by itself (on arrival and every 25 ms). Default true; false: call poll(now) yourself. */
  autoPoll?: boolean;
  /** The local clock (ms). */
  now?: () => number;
  prediction?: PredictionOptions;
  /** Extra ticks of delay for interpolation beyond 1 tick + the measured jitter. Default 0.25. */
  interpolationMarginTicks?: number;
  /** A skill or chat result not back after this long rejects with result_timeout. Default 5000. */
  resultTimeoutMs?: number;
  /** After a reconnect, send the direction the game last asked for again. Default true. */
  resumeMovement?: boolean;
  /** The first input seq (moves and skills). Default 1. */
  firstInputSeq?: number;
}

/** One input's outcome (TickUpdate.results). */
export interface InputOutcome {
  kind: InputKind;
  seq: number;
  outcome: Outcome;
  accepted: boolean;
}

export interface HitInfo {
  attacker: number;
  skill: number;
  targets: HitTargetInfo[];
  originX: number;
  originY: number;
  facing: number;
}

export interface ChatInfo {
  channel: ChatChannel;
  from: number;
  fromName: string;
  text: string;
  to: string;
}

export interface ClientStats {
  rtt: { last: number; smoothed: number; min: number };
  clockOffsetMs: number;
  jitterMs: number;
  bytesIn: number;
  bytesOut: number;
  bytesInPerSec: number;
  bytesOutPerSec: number;
  /** Server messages received (every kind). */
  frames: number;
  ticks: number;
  resyncs: number;
  reconnects: number;
  handoffs: number;
  /** Predicted own position: the correction left (cm) and how many snapped. */
  predictionErrorCm: number;
  predictionSnaps: number;
}

export type ClientEvents = {
  state: [to: ConnectionState, from: ConnectionState, reason: CloseReason | undefined, error: ZoneClientError | undefined];
  welcome: [welcome: Welcome];
  enter: [entity: Entity];
  change: [entity: Entity];
  leave: [entity: Entity];
  tick: [tick: TickUpdate];
  hit: [hit: HitInfo];
  chat: [line: ChatInfo];
  result: [result: InputOutcome];
  notice: [code: number, text: string];
  kick: [reason: CloseReason, text: string];
  error: [error: ZoneClientError];
  zoneChanged: [zone: ZoneChanged];
  pong: [rttMs: number];
  closed: [reason: CloseReason, error: ZoneClientError | undefined];
};

interface PendingResult {
  kind: InputKind;
  seq: number;
  skillId: number;
  sentAt: number;
  deadline: number;
  resolve: (r: InputOutcome) => void;
  reject: (e: ZoneClientError) => void;
}

const kDefaultNow = (): number => performance.timeOrigin + performance.now();

export class ZoneClient extends Emitter<ClientEvents> {
  readonly store: EntityStore;
  readonly clock = new ClockSync();
  readonly ticks = new TickClock();
  readonly prediction: Prediction;
  readonly connection: Connection;
  /** The last Welcome (your character, skills, zone, tick rate). */
  welcome: Welcome | undefined;
  private readonly now: () => number;
  private readonly opts: ClientOptions;
  private pollNow = 0;
  private inputSeq: number;
  /** The first input seq of this connection (set at its Welcome): acks count from here. */
  private sessionFirstSeq = NaN;
  private chatSeq = 0;
  private readonly pending = new Map<string, PendingResult>();
  private readonly skills = new Map<number, SkillInfo>();
  private readonly readyAt = new Map<number, number>();
  private desired = { x: 0, y: 0 };
  private lastSentDir = { x: NaN, y: NaN };
  private helloSentAt = NaN;
  private readonly zoneEvents: ZoneEvent[] = [];
  private pollScheduled = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private closeWaiters: Array<() => void> = [];
  private rate = { at: NaN, inBytes: 0, outBytes: 0 };
  readonly stats: ClientStats = {
    rtt: { last: NaN, smoothed: NaN, min: NaN },
    clockOffsetMs: NaN,
    jitterMs: 0,
    bytesIn: 0,
    bytesOut: 0,
    bytesInPerSec: 0,
    bytesOutPerSec: 0,
    frames: 0,
    ticks: 0,
    resyncs: 0,
    reconnects: 0,
    handoffs: 0,
    predictionErrorCm: 0,
    predictionSnaps: 0,
  };

  constructor(options: ClientOptions & { transportFor: ConnectionOptions["transportFor"] }) {
    super();
    this.opts = options;
    this.now = options.now ?? kDefaultNow;
    this.inputSeq = ((options.firstInputSeq ?? 1) - 1) >>> 0;
    this.prediction = new Prediction(options.prediction);
    this.store = new EntityStore({
      onEnter: (e) => this.emit("enter", e),
      onChange: (e) => this.emit("change", e),
      onLeave: (e) => this.emit("leave", e),
    });
    this.connection = new Connection(options, {
      message: (m, at) => this.onMessage(m, at),
      stateChange: (to, from, reason, error) => this.onState(to, from, reason, error),
      helloSent: (now) => {
        this.helloSentAt = now;
      },
      bytes: (i, o) => {
        this.stats.bytesIn += i;
        this.stats.bytesOut += o;
      },
      wake: () => this.wake(),
    }, this.now);
  }

  /** Starts connecting (connect() in index.ts / node.ts calls it). */
  start(): this {
    const now = this.now();
    this.pollNow = now;
    if (this.opts.autoPoll !== false) {
      this.timer = setInterval(() => this.poll(), 25);
      (this.timer as { unref?: () => void }).unref?.();
    }
    this.startPending = true; // dialled at the first poll: listeners added right after connect() hear "connecting"
    this.wake();
    return this;
  }

  private startPending = false;

  get state(): ConnectionState {
    return this.connection.state;
  }

  /** Your entity id (0 before the first Welcome). */
  get selfId(): number {
    return this.store.self?.id ?? 0;
  }

  /** The entities you are sent (never your own), by id. */
  get entities(): ReadonlyMap<number, Entity> {
    return this.store.entities;
  }

  private wake(): void {
    if (this.opts.autoPoll === false || this.pollScheduled) return;
    this.pollScheduled = true;
    queueMicrotask(() => {
      this.pollScheduled = false;
      this.poll();
    });
  }

  /** Applies what arrived and runs every timer due at `now`. */
  poll(now: number = this.now()): void {
    this.pollNow = now;
    if (this.startPending) {
      this.startPending = false;
      this.connection.start(now);
    }
    this.connection.poll(now);
    this.expireResults(now);
    this.updateStats(now);
  }

  /** Back in the foreground (tab visible, app resumed): pings now; a dead connection reconnects now. */
  resume(now: number = this.now()): void {
    this.connection.resume(now);
    this.wake();
  }

  /** Alias of resume() for engines. */
  onForeground(now: number = this.now()): void {
    this.resume(now);
  }

  /** Logs out and closes; resolves once closed. */
  close(): Promise<void> {
    if (this.state === "closed") return Promise.resolve();
    const done = new Promise<void>((resolve) => this.closeWaiters.push(resolve));
    this.connection.close(this.now());
    this.wake();
    return done;
  }

  // ------------------------------------------------------------------ inputs

  private nextSeq(): number {
    this.inputSeq = seqNext(this.inputSeq);
    return this.inputSeq;
  }

  private sendInput(m: ClientMessage): void {
    this.connection.send(m);
  }

  /**
   * Walk in direction (x, y) (any length; (0, 0) stops) until told otherwise. Sent only when it
   * differs from the last direction sent; remembered while not in the world and sent again after
   * a reconnect. Returns whether a MoveInput was sent. Throws invalid_argument for NaN/inf.
   */
  move(x: number, y: number, force = false): boolean {
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new ZoneClientError("invalid_argument", "move: direction must be finite");
    const len = Math.hypot(x, y);
    const ux = len > 0 ? x / len : 0;
    const uy = len > 0 ? y / len : 0;
    this.desired = { x: ux, y: uy };
    if (this.state !== "in_world") return false;
    if (!force && Math.abs(ux - this.lastSentDir.x) < 1e-6 && Math.abs(uy - this.lastSentDir.y) < 1e-6) return false;
    const seq = this.nextSeq();
    this.sendInput(create(ClientMessageSchema, { kind: { case: "move", value: { seq, directionX: ux, directionY: uy } } }));
    this.lastSentDir = { x: ux, y: uy };
    this.prediction.addMove(seq, ux, uy, this.now());
    return true;
  }

  /** Stop walking. */
  stop(): boolean {
    return this.move(0, 0);
  }

  /** The skills of your character (from the Welcome). */
  get skillList(): SkillInfo[] {
    return [...this.skills.values()];
  }

  /** Milliseconds until `skillId` is ready (0: ready). Throws unknown_skill. */
  cooldownLeft(skillId: number, now: number = this.now()): number {
    if (!this.skills.has(skillId)) throw new ZoneClientError("unknown_skill", `skill ${skillId} is not one of your skills`);
    return Math.max(0, (this.readyAt.get(skillId) ?? 0) - now);
  }

  /**
   * Use a skill facing `facing` (1/65536 turn), at ground point `target` (cm) for ground-targeted
   * skills. Resolves with its InputResult (accepted or refused: see `outcome`); rejects with
   * not_in_world, unknown_skill, skill_on_cooldown (before sending), connection_lost,
   * result_lost or result_timeout.
   */
  useSkill(skillId: number, facing: number, target?: { x: number; y: number }): Promise<InputOutcome> {
    try {
      if (this.state !== "in_world") throw new ZoneClientError("not_in_world", `cannot use a skill while ${this.state}`);
      if (!Number.isInteger(facing) || facing < 0 || facing > 65535) throw new ZoneClientError("invalid_argument", "facing is an integer in 0..65535 (1/65536 turn)");
      const now = this.now();
      const left = this.cooldownLeft(skillId, now);
      const tolerance = Math.min(100, Number.isNaN(this.clock.rttSmoothed) ? 50 : this.clock.rttSmoothed / 2);
      if (left > tolerance) throw new ZoneClientError("skill_on_cooldown", `skill ${skillId} is ready in ${Math.ceil(left)} ms`);
      const seq = this.nextSeq();
      const value = { seq, skillId, facing, targetX: Math.round(target?.x ?? 0), targetY: Math.round(target?.y ?? 0) };
      this.sendInput(create(ClientMessageSchema, { kind: { case: "skill", value } }));
      return this.awaitResult(InputKind.SKILL, seq, skillId, now);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Say `text` (1..256 bytes of UTF-8, no control characters) on `channel` (say by default;
   * whisper needs `to`). Resolves with its InputResult; limits are refused before sending
   * (chat_too_long, bad_text, invalid_argument, not_in_world).
   */
  chat(text: string, options: { channel?: ChatChannel; to?: string } = {}): Promise<InputOutcome> {
    try {
      const channel = options.channel ?? ChatChannel.SAY;
      const bytes = utf8Length(text);
      if (bytes > MAX_CHAT_BYTES) throw new ZoneClientError("chat_too_long", `chat text is ${bytes} bytes; at most ${MAX_CHAT_BYTES}`, { bytes, limit: MAX_CHAT_BYTES });
      if (bytes === 0) throw new ZoneClientError("bad_text", "chat text is empty");
      // eslint-disable-next-line no-control-regex
      if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text)) throw new ZoneClientError("bad_text", "chat text has a control character");
      if (channel === ChatChannel.WHISPER && !options.to) throw new ZoneClientError("invalid_argument", "a whisper needs `to`");
      if (this.state !== "in_world") throw new ZoneClientError("not_in_world", `cannot chat while ${this.state}`);
      this.chatSeq = seqNext(this.chatSeq);
      const seq = this.chatSeq;
      this.sendInput(create(ClientMessageSchema, { kind: { case: "chat", value: { seq, channel, text, to: options.to ?? "" } } }));
      return this.awaitResult(InputKind.CHAT, seq, 0, this.now());
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Sends any ClientMessage as it is (size-checked). For tools and tests. */
  sendRaw(m: ClientMessage): void {
    this.connection.send(m);
  }

  private awaitResult(kind: InputKind, seq: number, skillId: number, sentAt: number): Promise<InputOutcome> {
    return new Promise<InputOutcome>((resolve, reject) => {
      this.pending.set(`${kind}:${seq}`, { kind, seq, skillId, sentAt, deadline: sentAt + (this.opts.resultTimeoutMs ?? 5000), resolve, reject });
    });
  }

  private expireResults(now: number): void {
    for (const [key, p] of this.pending) {
      if (now >= p.deadline) {
        this.pending.delete(key);
        p.reject(new ZoneClientError("result_timeout", `no result for ${InputKind[p.kind]} seq ${p.seq}`));
      }
    }
  }

  private rejectAll(error: ZoneClientError): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(error);
  }

  // ------------------------------------------------------------------ rendering

  /** Where to draw your own entity at `now`: the prediction, smoothly corrected (cm). */
  selfPosition(now: number = this.now()): { x: number; y: number } {
    return this.prediction.positionAt(now);
  }

  /** The tick to draw remote entities at, at `now` (fractional). */
  renderTick(now: number = this.now()): number {
    return this.ticks.renderTick(now, this.opts.interpolationMarginTicks ?? 0.25);
  }

  /** Where to draw `entity` at `now` (interpolated), into `out` (a new object when absent). */
  stateAt(entity: Entity | number, now: number = this.now(), out?: MotionState): MotionState | undefined {
    const e = typeof entity === "number" ? this.store.entities.get(entity) : entity;
    if (e === undefined) return undefined;
    const o = out ?? { x: 0, y: 0, facing: 0 };
    if (!this.ticks.known) {
      o.x = e.x;
      o.y = e.y;
      o.facing = e.facing;
      return o;
    }
    return e.track.stateAt(this.renderTick(now), o, this.store.tick ?? -Infinity) ? o : undefined;
  }

  /** The server's wall clock at local time `now`. */
  serverTime(now: number = this.now()): number {
    return this.clock.serverNow(now);
  }

  // ------------------------------------------------------------------ server messages

  private onMessage(m: import("./gen/zone_pb").ServerMessage, at: number): void {
    const now = this.pollNow;
    this.stats.frames++;
    const events = this.zoneEvents;
    events.length = 0;
    switch (m.kind.case) {
      case "welcome": {
        const w = m.kind.value;
        this.welcome = w;
        this.store.apply(m, events);
        this.ticks.setTickRate(w.tickRate);
        this.ticks.reset();
        this.ticks.anchor(Number(w.serverTick), Number(w.serverTimeMs));
        if (!Number.isNaN(this.helloSentAt)) this.clock.addSample(this.helloSentAt, at, Number(w.serverTimeMs), false);
        this.prediction.speed = w.you?.speed ?? 0;
        this.prediction.tickMs = 1000 / Math.max(1, w.tickRate);
        this.prediction.bounds = this.store.zone;
        this.prediction.reset(w.x, w.y, !(w.you?.dead ?? false));
        this.sessionFirstSeq = seqNext(this.inputSeq); // this connection's inputs start here
        this.lastSentDir = { x: 0, y: 0 };
        this.skills.clear();
        this.readyAt.clear();
        for (const s of w.you?.skills ?? []) {
          this.skills.set(s.id, s);
          this.readyAt.set(s.id, at + s.readyInMs);
        }
        this.emit("welcome", w);
        return;
      }
      case "tick": {
        const t = m.kind.value;
        this.stats.ticks++;
        if (t.resync) this.stats.resyncs++;
        this.ticks.observe(Number(t.tick), at);
        this.store.apply(m, events);
        const self = this.store.self;
        // Results first: a refused move never changed the direction.
        for (const r of t.results) if (r.kind === InputKind.MOVE && r.outcome !== Outcome.ACCEPTED) this.prediction.moveRefused(r.seq);
        if (self !== null) {
          this.prediction.onFrame(Number(t.tick), t.lastInputSeq, self.x, self.y, self.alive, now, this.ticks.localTimeOfTick(Number(t.tick)), this.clock.rttSmoothed);
        }
        this.dispatch(events, now);
        // A skill acknowledged without its result: the result was in a frame that was dropped.
        for (const [key, p] of this.pending) {
          if (p.kind === InputKind.SKILL && seqAcked(p.seq, t.lastInputSeq, this.sessionFirstSeq, this.inputSeq)) {
            this.pending.delete(key);
            p.reject(new ZoneClientError("result_lost", `skill seq ${p.seq} was judged but its result was lost (resync)`));
          }
        }
        this.emit("tick", t);
        return;
      }
      case "zoneChanged": {
        const z = m.kind.value;
        this.store.apply(m, events);
        this.prediction.bounds = this.store.zone;
        this.prediction.reset(z.x, z.y, this.store.self?.alive ?? true);
        this.lastSentDir = { x: 0, y: 0 };
        this.desired = { x: 0, y: 0 };
        this.ticks.reset();
        this.ticks.clearAnchor();
        this.emit("zoneChanged", z);
        return;
      }
      case "pong": {
        const p = m.kind.value;
        this.clock.addSample(Number(p.clientTime), at, Number(p.serverTimeMs));
        this.ticks.anchor(Number(p.serverTick), Number(p.serverTimeMs));
        this.emit("pong", at - Number(p.clientTime));
        return;
      }
      default:
        this.store.apply(m, events);
        this.dispatch(events, now);
        return;
    }
  }

  private dispatch(events: ZoneEvent[], now: number): void {
    for (const ev of events) {
      switch (ev.type) {
        case "hit":
          this.emit("hit", { attacker: ev.attacker, skill: ev.skill, targets: ev.targets, originX: ev.originX, originY: ev.originY, facing: ev.facing });
          break;
        case "chat":
          this.emit("chat", { channel: ev.channel, from: ev.from, fromName: ev.fromName, text: ev.text, to: ev.to });
          break;
        case "result": {
          const r: InputOutcome = { kind: ev.kind, seq: ev.seq, outcome: ev.outcome, accepted: ev.outcome === Outcome.ACCEPTED };
          const p = this.pending.get(`${ev.kind}:${ev.seq}`);
          if (p !== undefined) {
            this.pending.delete(`${ev.kind}:${ev.seq}`);
            if (p.kind === InputKind.SKILL && r.accepted) {
              const skill = this.skills.get(p.skillId);
              const owd = Number.isNaN(this.clock.rttSmoothed) ? 0 : this.clock.rttSmoothed / 2;
              if (skill) this.readyAt.set(p.skillId, Math.max(p.sentAt, now - owd) + skill.cooldownMs);
            }
            p.resolve(r);
          }
          this.emit("result", r);
          break;
        }
        case "notice":
          this.emit("notice", ev.code, ev.text);
          break;
        case "kick":
          this.emit("kick", closeReasonOf(ev.reason), ev.reason);
          break;
        case "error":
          this.emit("error", new ServerError(ev.code, ev.message));
          break;
        case "zone_changed":
          break; // emitted with the message
      }
    }
  }

  private onState(to: ConnectionState, from: ConnectionState, reason: CloseReason | undefined, error: ZoneClientError | undefined): void {
    this.stats.reconnects = this.connection.reconnects;
    this.stats.handoffs = this.connection.handoffs;
    if (from === "in_world" && to !== "in_world") {
      this.rejectAll(error ?? new ZoneClientError("connection_lost", `left the world (${to})`));
      this.lastSentDir = { x: NaN, y: NaN };
    }
    this.emit("state", to, from, reason, error);
    if (to === "in_world" && from === "reconnecting" && this.opts.resumeMovement !== false && (this.desired.x !== 0 || this.desired.y !== 0)) {
      this.move(this.desired.x, this.desired.y, true);
    }
    if (to === "closed") {
      if (this.timer !== undefined) clearInterval(this.timer);
      this.timer = undefined;
      this.rejectAll(new ZoneClientError("closed", `closed: ${reason ?? "unknown"}`));
      this.emit("closed", reason ?? CloseReason.Unknown, error);
      const waiters = this.closeWaiters;
      this.closeWaiters = [];
      for (const w of waiters) w();
    }
  }

  private updateStats(now: number): void {
    const s = this.stats;
    s.rtt.last = this.clock.rttLast;
    s.rtt.smoothed = this.clock.rttSmoothed;
    s.rtt.min = this.clock.rttMin;
    s.clockOffsetMs = this.clock.offset;
    s.jitterMs = this.ticks.jitterMs;
    s.predictionErrorCm = this.prediction.correction;
    s.predictionSnaps = this.prediction.snaps;
    if (Number.isNaN(this.rate.at)) this.rate = { at: now, inBytes: s.bytesIn, outBytes: s.bytesOut };
    else if (now - this.rate.at >= 1000) {
      const dt = (now - this.rate.at) / 1000;
      s.bytesInPerSec = (s.bytesIn - this.rate.inBytes) / dt;
      s.bytesOutPerSec = (s.bytesOut - this.rate.outBytes) / dt;
      this.rate = { at: now, inBytes: s.bytesIn, outBytes: s.bytesOut };
    }
  }
}
