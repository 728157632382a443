// The game on one client of the SDK: input (keys, pointer, chat box) -> client.move / useSkill /
// chat; events -> effects and the log; a requestAnimationFrame loop drawing a top-down view
// centred on the player (own entity at client.selfPosition(now), others at client.stateAt).
//
// The SDK polls by itself (autoPoll, its default: on arrival and every 25 ms), so the session
// lives on when the tab is in the background and rAF stops; the loop only reads and draws.
import { ChatChannel, EntityKind, Outcome, ZoneClientError } from "./sdk.ts";
import type { ChatInfo, ConnectionState, Entity, HitInfo, MotionState, SkillInfo, Welcome, ZoneClient, CloseReason } from "./sdk.ts";
import { Camera, angleOfFacing, facingOfAngle, shapeName, skillPath } from "./geometry.ts";
import { parseChat } from "./chat.ts";

const SWING_MS = 650; // a swing stays on screen this long
const FLASH_MS = 350; // a hit entity flashes this long
const FLOAT_MS = 1100; // a damage number rises this long
const OTHERS_SWING_MAX_DELAY_MS = 250; // others' swings wait for the interpolated timeline, at most this
const HANDOFF_BANNER_AFTER_MS = 600; // a hand-off shorter than this shows nothing
const MOVE_BURST = 8; // MoveInputs: a token bucket well under the server's move_rate (60/s)
const MOVE_RATE_PER_MS = 25 / 1000;
const DIRECTION_STEPS = 512; // click-to-move directions are rounded to 1/512 turn

const COLOURS = {
  floor: "#161b21",
  outside: "#0b0d10",
  grid: "rgba(255,255,255,0.06)",
  grid10: "rgba(255,255,255,0.13)",
  bounds: "#5c6b7a",
  self: "#7ee787",
  player: "#58a6ff",
  monster: "#f0883e",
  dead: "#6e7681",
  swingMine: [255, 214, 102],
  swingOnMe: [255, 92, 92],
  swingOther: [255, 160, 90],
} as const;

export const now = (): number => performance.timeOrigin + performance.now();

interface Swing {
  hit: HitInfo;
  skill: SkillInfo | undefined;
  received: number;
  tick: number; // the store's tick when it came (others' swings wait for the render tick)
  mine: boolean;
  onMe: boolean;
  shownAt?: number;
}

interface Floater {
  target: number; // entity id (or your own id)
  slot: number; // how many of this target's numbers were still fresh when it came (stacked)
  x: number; // cm, where it was when hit (used if the entity is gone)
  y: number;
  text: string;
  colour: string;
  at: number;
}

export interface HitRecord {
  attacker: number;
  skill: number;
  skillName: string;
  targets: Array<{ id: number; damage: number; killed: boolean }>;
  originX: number;
  originY: number;
  facing: number;
  at: number;
}

type LogKind = "chat" | "say" | "zone" | "whisper" | "system" | "notice" | "warn" | "error";

export interface GameHooks {
  /** The player asked to leave, or the session closed for good: back to the login form. */
  exit(message: string | undefined): void;
}

export class Game {
  readonly cam = new Camera();
  private readonly ctx: CanvasRenderingContext2D;
  private readonly keys = new Set<string>();
  private pointer: { x: number; y: number } | null = null; // CSS px in the canvas
  private moveTarget: { x: number; y: number } | null = null; // cm
  private dragging = false;
  private stoppedAt = 0; // when click-to-move last stopped
  private targetTries = 0; // corrections toward the current click target
  private stillTicks = 0; // ticks in a row your server position did not change
  private lastSelfPos = { x: NaN, y: NaN };
  private lastSent: { x: number; y: number } | null = null; // the direction last given to client.move
  private moveTokens = MOVE_BURST;
  private moveTokensAt = 0;
  private facing = 0; // the facing of the last skill used (or the pointer's)
  private swings: Swing[] = [];
  private floaters: Floater[] = [];
  private readonly flashes = new Map<number, number>();
  private readonly slotRefused = new Map<number, number>(); // skill index -> when a press was refused
  private templates = new Map<number, { name: string; radius: number; maxHp: number }>();
  private skills: SkillInfo[] = [];
  private skillById = new Map<number, SkillInfo>();
  private readonly removers: Array<() => void> = [];
  private raf = 0;
  private lastFrameAt = NaN;
  private fps = 0;
  private cpuMs = 0;
  private frames = 0;
  private wasAlive = true;
  private respawnAt = NaN;
  private handingOffSince = NaN;
  private banner: { text: string; kind: string } | null = null;
  private closedMessage: string | undefined;
  private stopped = false;
  private readonly tmp = { x: 0, y: 0, facing: 0 };
  // For tests and the curious (window.__play).
  readonly hits: HitRecord[] = [];
  readonly chatLines: ChatInfo[] = [];
  readonly logLines: string[] = [];
  readonly states: Array<{ to: ConnectionState; from: ConnectionState; reason?: string; error?: string; at: number }> = [];
  readonly errors: string[] = [];

  constructor(
    readonly client: ZoneClient,
    private readonly canvas: HTMLCanvasElement,
    private readonly ui: {
      banner: HTMLElement;
      bannerText: HTMLElement;
      bannerButton: HTMLButtonElement;
      chatLog: HTMLElement;
      chatInput: HTMLInputElement;
      logout: HTMLButtonElement;
    },
    private readonly hooks: GameHooks,
  ) {
    this.ctx = canvas.getContext("2d")!;
    this.wire();
    this.bindInput();
    this.resize();
    this.log("system", `connecting to ${client.connection.currentUrl} ...`);
    this.setBanner("Connecting ...", "info");
    this.raf = requestAnimationFrame((t) => this.frame(t));
  }

  // ---------------------------------------------------------------- SDK events

  private wire(): void {
    const c = this.client;
    const on = this.removers;
    on.push(c.on("state", (to, from, reason, error) => this.onState(to, from, reason, error)));
    on.push(c.on("welcome", (w) => this.onWelcome(w)));
    on.push(c.on("zoneChanged", (z) => {
      this.moveTarget = null;
      this.lastSent = null; // you arrive standing still: a held key walks on
      this.swings = [];
      this.floaters = [];
      this.log("system", `you enter ${z.zoneName}${z.serverAddress ? ` (on ${z.serverAddress})` : ""}`);
    }));
    on.push(c.on("hit", (h) => this.onHit(h)));
    on.push(c.on("tick", () => {
      const s = c.store.self;
      if (s === null) return;
      this.stillTicks = s.x === this.lastSelfPos.x && s.y === this.lastSelfPos.y ? this.stillTicks + 1 : 0;
      this.lastSelfPos = { x: s.x, y: s.y };
    }));
    on.push(c.on("chat", (line) => this.onChat(line)));
    on.push(c.on("notice", (_code, text) => this.log("notice", `notice: ${text}`)));
    on.push(c.on("kick", (reason, text) => this.log("error", `kicked: ${text || reason}`)));
    on.push(c.on("error", (e) => {
      this.errors.push(e.message);
      this.log("error", e.message);
    }));
  }

  private onWelcome(w: Welcome): void {
    this.templates = new Map(w.monsterTemplates.map((t) => [t.id, { name: t.name, radius: t.radius, maxHp: t.maxHp }]));
    this.skills = [...(w.you?.skills ?? [])];
    this.skillById = new Map(this.skills.map((s) => [s.id, s]));
    this.moveTarget = null;
    this.lastSent = null;
    this.swings = [];
    this.floaters = [];
    this.wasAlive = !(w.you?.dead ?? false);
    this.respawnAt = w.you?.dead ? now() + (w.you?.respawnInMs ?? 0) : NaN;
    this.facing = w.facing;
    const z = this.client.store.zone;
    this.log("system", `welcome, ${w.playerName}: ${z?.name ?? "?"} (${((w.zoneMaxX - w.zoneMinX) / 100).toFixed(0)} x ${((w.zoneMaxY - w.zoneMinY) / 100).toFixed(0)} m), ${w.tickRate} ticks/s`);
    if (this.client.stats.reconnects === 0 && this.client.stats.handoffs === 0) {
      this.log("system", "WASD/arrows or click to walk, 1-4 to use a skill at the pointer, Enter to chat (/w name text, /z text), wheel to zoom");
    }
    if (w.you?.dead) this.log("warn", "you are dead; you will respawn at the zone's spawn point");
  }

  private onState(to: ConnectionState, from: ConnectionState, reason: CloseReason | undefined, error: ZoneClientError | undefined): void {
    this.states.push({ to, from, reason, error: error?.message, at: now() });
    if (error) this.errors.push(`${error.code}: ${error.message}`);
    this.lastSent = null;
    switch (to) {
      case "in_world":
        this.setBanner(null);
        this.handingOffSince = NaN;
        if (from === "reconnecting") this.log("system", "reconnected");
        else if (from === "handing_off") this.log("system", `arrived on ${this.client.connection.currentUrl}`);
        break;
      case "connecting":
      case "handshaking":
        this.setBanner("Connecting ...", "info");
        break;
      case "handing_off":
        this.handingOffSince = now(); // shown only if it takes a while (frame())
        break;
      case "reconnecting": {
        const why = error ? `${error.code}: ${error.message}` : reason ?? "";
        this.log("warn", `connection lost (${why}); reconnecting ...`);
        const everIn = this.client.stats.reconnects > 0 || this.states.some((s) => s.to === "in_world");
        const hint = everIn ? "" : ` Is the server running at ${this.client.connection.currentUrl}, and does its websocket.allowed_origins allow ${location.origin}? (A browser is not told why a WebSocket was refused.)`;
        this.setBanner(`Reconnecting ... (${why}).${hint}`, "warn");
        break;
      }
      case "closed": {
        const msg = closedMessage(reason, error);
        this.closedMessage = msg;
        this.log(error ? "error" : "system", `closed: ${msg}`);
        this.setBanner(`Disconnected: ${msg}`, "error", "Back to login");
        break;
      }
      default:
        break;
    }
  }

  private onHit(h: HitInfo): void {
    const t = now();
    const me = this.client.selfId;
    const skill = this.skillById.get(h.skill); // a monster's skill is not in the Welcome
    const mine = h.attacker === me;
    const onMe = h.targets.some(([id]) => id === me);
    this.swings.push({ hit: h, skill, received: t, tick: this.client.store.tick ?? 0, mine, onMe });
    this.hits.push({
      attacker: h.attacker, skill: h.skill, skillName: skill?.name ?? `skill ${h.skill}`,
      targets: h.targets.map(([id, damage, killed]) => ({ id, damage, killed })),
      originX: h.originX, originY: h.originY, facing: h.facing, at: t,
    });
    if (this.hits.length > 200) this.hits.splice(0, this.hits.length - 200);
    for (const [id, damage, killed] of h.targets) {
      this.flashes.set(id, t + FLASH_MS);
      const p = this.positionOf(id, t);
      const slot = this.floaters.filter((f) => f.target === id && t - f.at < 400).length;
      this.floaters.push({
        target: id, slot, x: p?.x ?? h.originX, y: p?.y ?? h.originY,
        text: killed ? `${damage} ✝` : String(damage),
        colour: id === me ? "#ff6b6b" : mine ? "#ffd666" : "#e6edf3",
        at: t,
      });
      if (id === me && killed) this.log("warn", `you were killed by ${this.nameOf(h.attacker)} (${skill?.name ?? h.skill})`);
      else if (mine && killed) this.log("system", `you defeated ${this.nameOf(id)}`);
    }
    if (this.floaters.length > 200) this.floaters.splice(0, this.floaters.length - 200);
  }

  private onChat(line: ChatInfo): void {
    this.chatLines.push(line);
    if (this.chatLines.length > 200) this.chatLines.splice(0, this.chatLines.length - 200);
    switch (line.channel) {
      case ChatChannel.WHISPER:
        if (line.from === this.client.selfId) this.log("whisper", `to [${line.to}]: ${line.text}`);
        else this.log("whisper", `[${line.fromName}] whispers: ${line.text}`);
        break;
      case ChatChannel.ZONE:
        this.log("zone", `[zone] ${line.fromName}: ${line.text}`);
        break;
      default:
        this.log("say", `${line.fromName}: ${line.text}`);
        break;
    }
  }

  // ---------------------------------------------------------------- input

  private bindInput(): void {
    const add = <K extends keyof WindowEventMap>(target: Window | HTMLElement, type: K, fn: (e: WindowEventMap[K]) => void, opts?: AddEventListenerOptions) => {
      target.addEventListener(type, fn as EventListener, opts);
      this.removers.push(() => target.removeEventListener(type, fn as EventListener, opts));
    };
    add(window, "resize", () => this.resize());
    add(window, "blur", () => {
      this.keys.clear();
      this.dragging = false;
    });
    add(window, "keydown", (e) => this.onKeyDown(e));
    add(window, "keyup", (e) => {
      this.keys.delete(e.code);
      this.keys.delete(e.key);
    });
    const cv = this.canvas;
    add(cv, "mousemove", (e) => {
      this.pointer = this.canvasPoint(e);
      if (this.dragging) this.setMoveTarget(this.pointer);
    });
    add(cv, "mouseleave", () => {
      this.pointer = null;
      this.dragging = false;
    });
    add(cv, "mousedown", (e) => {
      if (e.button !== 0) return;
      this.ui.chatInput.blur();
      this.pointer = this.canvasPoint(e);
      this.dragging = true;
      this.setMoveTarget(this.pointer);
      e.preventDefault();
    });
    add(window, "mouseup", () => {
      this.dragging = false;
    });
    add(cv, "contextmenu", (e) => e.preventDefault());
    add(cv, "wheel", (e) => {
      this.zoom(Math.pow(1.1, -e.deltaY / 100));
      e.preventDefault();
    }, { passive: false });
    add(this.ui.chatInput, "keydown", (e) => {
      if (e.key === "Enter") {
        const text = this.ui.chatInput.value;
        this.ui.chatInput.value = "";
        this.ui.chatInput.blur();
        this.sendChat(text);
        e.preventDefault();
        e.stopPropagation();
      } else if (e.key === "Escape") {
        this.ui.chatInput.blur();
        e.stopPropagation();
      } else {
        e.stopPropagation(); // typing is not walking
      }
    });
    add(this.ui.logout, "click", () => void this.leave());
    add(this.ui.bannerButton, "click", () => this.exit(this.closedMessage));
  }

  private canvasPoint(e: MouseEvent): { x: number; y: number } {
    const r = this.canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  private onKeyDown(e: KeyboardEvent): void {
    if (document.activeElement === this.ui.chatInput) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const code = e.code;
    if (MOVE_KEYS[code] !== undefined || MOVE_KEYS[e.key] !== undefined) {
      this.keys.add(MOVE_KEYS[code] !== undefined ? code : e.key);
      e.preventDefault();
      return;
    }
    const digit = /^(?:Digit|Numpad)([1-9])$/.exec(code)?.[1] ?? (/^[1-9]$/.test(e.key) ? e.key : undefined);
    if (digit !== undefined) {
      this.useSkill(Number(digit) - 1, e.repeat);
      e.preventDefault();
      return;
    }
    if (e.key === "Enter") {
      this.ui.chatInput.focus();
      e.preventDefault();
    } else if (e.key === "+" || e.key === "=") this.zoom(1.25);
    else if (e.key === "-" || e.key === "_") this.zoom(0.8);
  }

  private zoom(f: number): void {
    this.cam.scale = Math.min(120, Math.max(3, this.cam.scale * f));
  }

  private setMoveTarget(p: { x: number; y: number }): void {
    const z = this.client.store.zone;
    let x = this.cam.wx(p.x);
    let y = this.cam.wy(p.y);
    if (z) {
      // The server clamps you to the zone: a point outside would be walked at forever.
      const r = this.client.welcome?.you?.radius ?? 50;
      x = Math.min(z.maxX - r, Math.max(z.minX + r, x));
      y = Math.min(z.maxY - r, Math.max(z.minY + r, y));
    }
    this.moveTarget = { x, y };
    this.targetTries = 0;
  }

  private keyDirection(): { x: number; y: number } | null {
    let x = 0;
    let y = 0;
    for (const k of this.keys) {
      const d = MOVE_KEYS[k];
      if (d) {
        x += d[0];
        y += d[1];
      }
    }
    if (this.keys.size === 0) return null;
    return { x: Math.sign(x), y: Math.sign(y) };
  }

  /** Each frame: keys win, else walk toward the click target and stop there. */
  private steer(t: number, dtMs: number): void {
    const c = this.client;
    const self = c.store.self;
    if (c.state !== "in_world" || self === null) return;
    let dx = 0;
    let dy = 0;
    const kd = this.keyDirection();
    if (kd !== null) {
      this.moveTarget = null;
      dx = kd.x;
      dy = kd.y;
    } else if (this.moveTarget !== null) {
      if (!self.alive) this.moveTarget = null;
      else {
        // Walk while the prediction (where you are drawn) is short of the point; once stopped
        // and the server's position has settled, done if it is within a tick's step of the
        // point, else walk again (a first move's prediction can be off by a tick or two).
        const p = c.selfPosition(t);
        const tx = this.moveTarget.x - p.x;
        const ty = this.moveTarget.y - p.y;
        const d = Math.hypot(tx, ty);
        const speed = c.welcome?.you?.speed ?? 600; // cm/s
        const tickStep = speed / Math.max(1, c.welcome?.tickRate ?? 20);
        const frameStep = (speed * Math.max(dtMs, 16)) / 1000;
        const walking = this.lastSent !== null && (this.lastSent.x !== 0 || this.lastSent.y !== 0);
        const aim = () => {
          const a = Math.round((Math.atan2(ty, tx) / (2 * Math.PI)) * DIRECTION_STEPS) * ((2 * Math.PI) / DIRECTION_STEPS);
          dx = Math.cos(a);
          dy = Math.sin(a);
        };
        if (walking) {
          const overshot = tx * this.lastSent!.x + ty * this.lastSent!.y <= 0;
          if (d <= Math.max(5, frameStep / 2) || (overshot && d < frameStep * 2)) this.stoppedAt = t;
          else aim();
        } else if (t - this.stoppedAt > 100 && this.stillTicks >= 2) {
          const sd = Math.hypot(this.moveTarget.x - self.x, this.moveTarget.y - self.y);
          if (sd <= tickStep / 2 + 10 || this.targetTries >= 5) this.moveTarget = null;
          else {
            this.targetTries++;
            aim();
          }
        }
      }
    }
    if (!self.alive) {
      dx = 0;
      dy = 0;
    }
    this.requestMove(dx, dy, t);
  }

  private requestMove(dx: number, dy: number, t: number): void {
    const len = Math.hypot(dx, dy);
    const ux = len > 0 ? dx / len : 0;
    const uy = len > 0 ? dy / len : 0;
    const last = this.lastSent;
    if (last !== null && Math.abs(last.x - ux) < 1e-9 && Math.abs(last.y - uy) < 1e-9) return;
    this.moveTokens = Math.min(MOVE_BURST, this.moveTokens + (t - this.moveTokensAt) * MOVE_RATE_PER_MS);
    this.moveTokensAt = t;
    if (this.moveTokens < 1) return; // next frame
    this.moveTokens -= 1;
    try {
      this.client.move(ux, uy);
      this.lastSent = { x: ux, y: uy };
    } catch (e) {
      this.log("error", `move: ${(e as Error).message}`);
    }
  }

  private pointerWorld(): { x: number; y: number } | null {
    return this.pointer ? { x: this.cam.wx(this.pointer.x), y: this.cam.wy(this.pointer.y) } : null;
  }

  /** Keys 1-4: the Welcome's skills in order, facing the pointer; ground skills at the pointer. */
  private useSkill(index: number, repeat: boolean): void {
    const skill = this.skills[index];
    const c = this.client;
    if (skill === undefined || c.state !== "in_world") return;
    const t = now();
    const me = c.selfPosition(t);
    const p = this.pointerWorld();
    if (p !== null && Math.hypot(p.x - me.x, p.y - me.y) > 1) this.facing = facingOfAngle(Math.atan2(p.y - me.y, p.x - me.x));
    let target: { x: number; y: number } | undefined;
    if (skill.castRange > 0) {
      if (p !== null) target = p;
      else {
        const a = angleOfFacing(this.facing);
        const d = Math.min(skill.castRange, 500);
        target = { x: me.x + Math.cos(a) * d, y: me.y + Math.sin(a) * d };
      }
    }
    c.useSkill(skill.id, this.facing, target).then(
      (r) => {
        if (!r.accepted) {
          this.slotRefused.set(index, now());
          if (!repeat || r.outcome !== Outcome.COOLDOWN) this.log("warn", `${skill.name}: refused (${outcomeName(r.outcome)})`);
        }
      },
      (e: unknown) => {
        this.slotRefused.set(index, now());
        const err = e as ZoneClientError;
        if (err.code === "skill_on_cooldown") return; // the skill bar shows it
        if (err.code === "connection_lost" || err.code === "closed") return; // the banner says it
        this.log("error", `${skill.name}: ${err.message}`);
      },
    );
  }

  private sendChat(line: string): void {
    const cmd = parseChat(line);
    if (cmd === null) return;
    if (cmd.kind === "help") {
      this.log("system", "chat: text says it nearby; /z text: the whole zone; /w name text (or /w \"a name\" text): a whisper; Esc leaves the box");
      return;
    }
    if (cmd.kind === "error") {
      this.log("warn", cmd.message);
      return;
    }
    this.client.chat(cmd.text, { channel: cmd.channel, to: cmd.to }).then(
      (r) => {
        if (!r.accepted) {
          const what = r.outcome === Outcome.NO_SUCH_PLAYER ? `no player named "${cmd.to}" is online` : outcomeName(r.outcome);
          this.log("warn", `chat refused: ${what}`);
        }
      },
      (e: unknown) => this.log("error", `chat: ${(e as Error).message}`),
    );
  }

  // ---------------------------------------------------------------- UI bits

  private log(kind: LogKind, text: string): void {
    this.logLines.push(`[${kind}] ${text}`);
    if (this.logLines.length > 500) this.logLines.splice(0, this.logLines.length - 500);
    const el = document.createElement("div");
    el.className = `line ${kind}`;
    el.textContent = text;
    const log = this.ui.chatLog;
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    log.appendChild(el);
    while (log.childElementCount > 200) log.firstElementChild?.remove();
    if (atBottom) log.scrollTop = log.scrollHeight;
  }

  private setBanner(text: string | null, kind = "info", button?: string): void {
    const same = (this.banner?.text ?? null) === text && this.banner?.kind === kind;
    if (same) return;
    this.banner = text === null ? null : { text, kind };
    const b = this.ui.banner;
    b.hidden = text === null;
    b.className = `banner ${kind}`;
    this.ui.bannerText.textContent = text ?? "";
    this.ui.bannerButton.hidden = button === undefined;
    if (button !== undefined) this.ui.bannerButton.textContent = button;
  }

  private resize(): void {
    const dpr = window.devicePixelRatio || 1;
    const w = this.canvas.clientWidth;
    const h = this.canvas.clientHeight;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.cam.width = w;
    this.cam.height = h;
  }

  /** Logs out (Logout, then the server's Kick) and goes back to the form. */
  async leave(): Promise<void> {
    if (this.client.state !== "closed") await this.client.close();
    this.exit(undefined);
  }

  private exit(message: string | undefined): void {
    if (this.stopped) return;
    this.stop();
    this.hooks.exit(message);
  }

  stop(): void {
    this.stopped = true;
    cancelAnimationFrame(this.raf);
    for (const r of this.removers.splice(0)) r();
    if (this.client.state !== "closed") void this.client.close();
  }

  // ---------------------------------------------------------------- lookups

  private nameOf(id: number): string {
    if (id === this.client.selfId) return "you";
    const e = this.client.entities.get(id);
    if (e === undefined) return `#${id}`;
    return e.kind === EntityKind.PLAYER ? e.name : this.templates.get(e.templateId)?.name ?? `monster #${id}`;
  }

  private positionOf(id: number, t: number): { x: number; y: number } | undefined {
    if (id === this.client.selfId) return this.client.selfPosition(t);
    const e = this.client.entities.get(id);
    if (e === undefined) return undefined;
    const s = this.drawState(e, t);
    return s ? { x: s.x, y: s.y } : undefined;
  }

  /**
   * Where to draw `e` at `t`: the SDK's interpolation (client.stateAt), except past the entity's
   * newest sample when frames of later ticks came without moving it, i.e. it stands. There the
   * SDK (MotionTrack.stateAt) extrapolates its last step for up to two ticks and then holds that
   * extrapolated point, so a walker that stopped would be drawn two steps beyond where it stands
   * until it moves again; the game draws it where the store says it is.
   */
  private drawState(e: Entity, t: number, out: MotionState = this.tmp): MotionState | undefined {
    const c = this.client;
    const s = c.stateAt(e, t, out);
    if (s === undefined || !c.ticks.known) return s;
    const newest = e.track.newestTick;
    const latest = c.store.tick;
    if (latest !== null && latest > newest && c.renderTick(t) >= newest) {
      s.x = e.x;
      s.y = e.y;
      s.facing = e.facing;
    }
    return s;
  }

  // ---------------------------------------------------------------- the frame

  private frame(_rafTime: number): void {
    if (this.stopped) return;
    this.raf = requestAnimationFrame((t) => this.frame(t));
    const t0 = performance.now();
    const t = now();
    const dt = Number.isNaN(this.lastFrameAt) ? 16 : t - this.lastFrameAt;
    this.lastFrameAt = t;
    if (dt > 0) this.fps = this.fps === 0 ? 1000 / dt : this.fps * 0.95 + (1000 / dt) * 0.05;
    try {
      this.steer(t, dt);
      this.watchSelf(t);
      if (!Number.isNaN(this.handingOffSince) && this.client.state === "handing_off" && t - this.handingOffSince > HANDOFF_BANNER_AFTER_MS) {
        this.setBanner("Travelling to the next zone ...", "info");
      }
      this.draw(t);
    } catch (e) {
      this.errors.push(`frame: ${(e as Error).stack ?? e}`);
      throw e;
    }
    this.frames++;
    const cpu = performance.now() - t0;
    this.cpuMs = this.cpuMs === 0 ? cpu : this.cpuMs * 0.95 + cpu * 0.05;
  }

  private watchSelf(t: number): void {
    const self = this.client.store.self;
    if (self === null || this.client.state !== "in_world") return;
    if (this.wasAlive && !self.alive) {
      this.respawnAt = t + (this.client.welcome?.you?.respawnMs ?? 0);
      this.moveTarget = null;
    } else if (!this.wasAlive && self.alive) {
      this.respawnAt = NaN;
      this.log("system", "you respawned");
    }
    this.wasAlive = self.alive;
  }

  private draw(t: number): void {
    const ctx = this.ctx;
    const c = this.client;
    const cam = this.cam;
    const me = c.store.self;
    const inWorld = me !== null && c.store.zone !== null;
    if (inWorld) {
      const p = c.selfPosition(t);
      cam.cx = p.x;
      cam.cy = p.y;
    }
    ctx.fillStyle = COLOURS.outside;
    ctx.fillRect(0, 0, cam.width, cam.height);
    if (!inWorld) {
      this.drawOverlay(t);
      return;
    }
    this.drawFloor();
    this.drawSwings(t);
    this.drawEntities(t);
    this.drawSelf(t);
    this.drawMoveTarget();
    this.drawFloaters(t);
    this.drawHud(t);
    this.drawOverlay(t);
  }

  private drawFloor(): void {
    const ctx = this.ctx;
    const cam = this.cam;
    const z = this.client.store.zone!;
    const x0 = cam.sx(z.minX);
    const x1 = cam.sx(z.maxX);
    const y0 = cam.sy(z.maxY);
    const y1 = cam.sy(z.minY);
    ctx.fillStyle = COLOURS.floor;
    ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
    // A metre grid (every 5 m when zoomed far out), heavier every 10 m.
    const v = cam.visible();
    const stepM = cam.scale >= 6 ? 1 : cam.scale >= 1.5 ? 5 : 10;
    const minX = Math.max(z.minX, Math.floor(v.minX / 100 / stepM) * stepM * 100);
    const maxX = Math.min(z.maxX, v.maxX);
    const minY = Math.max(z.minY, Math.floor(v.minY / 100 / stepM) * stepM * 100);
    const maxY = Math.min(z.maxY, v.maxY);
    for (const heavy of [false, true]) {
      ctx.beginPath();
      for (let x = minX; x <= maxX; x += stepM * 100) {
        if ((Math.round(x / 100) % 10 === 0) !== heavy) continue;
        const sx = Math.round(cam.sx(x)) + 0.5;
        ctx.moveTo(sx, Math.max(y0, 0));
        ctx.lineTo(sx, Math.min(y1, cam.height));
      }
      for (let y = minY; y <= maxY; y += stepM * 100) {
        if ((Math.round(y / 100) % 10 === 0) !== heavy) continue;
        const sy = Math.round(cam.sy(y)) + 0.5;
        ctx.moveTo(Math.max(x0, 0), sy);
        ctx.lineTo(Math.min(x1, cam.width), sy);
      }
      ctx.strokeStyle = heavy ? COLOURS.grid10 : COLOURS.grid;
      ctx.lineWidth = 1;
      ctx.stroke();
    }
    // Grid labels every 10 m along the left and bottom of the screen.
    if (cam.scale >= 4) {
      ctx.fillStyle = "rgba(255,255,255,0.28)";
      ctx.font = "10px ui-monospace, monospace";
      ctx.textAlign = "left";
      ctx.textBaseline = "top";
      const startX = Math.ceil(Math.max(z.minX, v.minX) / 1000) * 1000;
      for (let x = startX; x <= maxX; x += 1000) ctx.fillText(`${x / 100}`, cam.sx(x) + 2, Math.min(y1, cam.height) - 12);
      const startY = Math.ceil(Math.max(z.minY, v.minY) / 1000) * 1000;
      for (let y = startY; y <= maxY; y += 1000) ctx.fillText(`${y / 100}`, Math.max(x0, 0) + 2, cam.sy(y) + 2);
    }
    ctx.strokeStyle = COLOURS.bounds;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0, y0, x1 - x0, y1 - y0);
  }

  private drawSwings(t: number): void {
    const ctx = this.ctx;
    const renderTick = this.client.ticks.known ? this.client.renderTick(t) : Infinity;
    this.swings = this.swings.filter((s) => s.shownAt === undefined || t - s.shownAt < SWING_MS);
    for (const s of this.swings) {
      // Yours at once; others' when the interpolated timeline (where their attacker is drawn)
      // reaches the tick, at most OTHERS_SWING_MAX_DELAY_MS late.
      if (s.shownAt === undefined) {
        if (s.mine || renderTick >= s.tick - 1 || t - s.received >= OTHERS_SWING_MAX_DELAY_MS) s.shownAt = t;
        else continue;
      }
      const left = 1 - (t - s.shownAt) / SWING_MS;
      if (left <= 0) continue;
      const rgb = s.mine ? COLOURS.swingMine : s.onMe ? COLOURS.swingOnMe : COLOURS.swingOther;
      ctx.beginPath();
      if (s.skill) skillPath(ctx, this.cam, s.skill, s.hit.originX, s.hit.originY, s.hit.facing);
      else {
        // A skill not in our Welcome (a monster's): a small mark at its origin, facing.
        const x = this.cam.sx(s.hit.originX);
        const y = this.cam.sy(s.hit.originY);
        const a = -angleOfFacing(s.hit.facing);
        ctx.moveTo(x, y);
        ctx.arc(x, y, Math.max(6, 120 * this.cam.k), a - 0.6, a + 0.6);
        ctx.closePath();
      }
      ctx.fillStyle = `rgba(${rgb[0]},${rgb[1]},${rgb[2]},${0.32 * left})`;
      ctx.strokeStyle = `rgba(${rgb[0]},${rgb[1]},${rgb[2]},${0.95 * left})`;
      ctx.lineWidth = 1.5;
      ctx.fill();
      ctx.stroke();
    }
  }

  private drawEntities(t: number): void {
    const ctx = this.ctx;
    const cam = this.cam;
    const v = cam.visible(300);
    const showMonsterNames = cam.scale >= 14;
    for (const e of this.client.entities.values()) {
      const s = this.drawState(e, t);
      if (!s || s.x < v.minX || s.x > v.maxX || s.y < v.minY || s.y > v.maxY) continue;
      const isPlayer = e.kind === EntityKind.PLAYER;
      const label = isPlayer ? e.name : showMonsterNames ? this.templates.get(e.templateId)?.name ?? `#${e.templateId}` : "";
      this.drawBody(t, e.id, s.x, s.y, s.facing, e.radius, e.alive, isPlayer ? COLOURS.player : COLOURS.monster, label, e.hp, e.maxHp, isPlayer);
    }
  }

  private drawSelf(t: number): void {
    const c = this.client;
    const self = c.store.self!;
    const p = c.selfPosition(t);
    const you = c.welcome?.you;
    // Aim: a faint line toward the pointer (skills face it).
    const pw = this.pointerWorld();
    if (pw && self.alive) {
      const ctx = this.ctx;
      ctx.beginPath();
      ctx.moveTo(this.cam.sx(p.x), this.cam.sy(p.y));
      ctx.lineTo(this.cam.sx(pw.x), this.cam.sy(pw.y));
      ctx.strokeStyle = "rgba(126,231,135,0.18)";
      ctx.setLineDash([4, 6]);
      ctx.lineWidth = 1;
      ctx.stroke();
      ctx.setLineDash([]);
    }
    const facing = pw && self.alive ? facingOfAngle(Math.atan2(pw.y - p.y, pw.x - p.x)) : self.facing;
    this.drawBody(t, self.id, p.x, p.y, facing, you?.radius ?? 50, self.alive, COLOURS.self, c.welcome?.playerName ?? "you", self.hp, you?.maxHp ?? self.hp, true);
  }

  private drawBody(t: number, id: number, wx: number, wy: number, facing: number, radius: number, alive: boolean, colour: string, label: string, hp: number, maxHp: number, bold: boolean): void {
    const ctx = this.ctx;
    const cam = this.cam;
    const x = cam.sx(wx);
    const y = cam.sy(wy);
    const r = Math.max(3, radius * cam.k);
    const fill = alive ? colour : COLOURS.dead;
    ctx.globalAlpha = alive ? 1 : 0.55;
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fillStyle = fill;
    ctx.fill();
    ctx.globalAlpha = 1;
    if (alive) {
      const a = -angleOfFacing(facing);
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.lineTo(x + Math.cos(a) * r * 1.4, y + Math.sin(a) * r * 1.4);
      ctx.strokeStyle = "rgba(0,0,0,0.65)";
      ctx.lineWidth = Math.max(1.5, r / 5);
      ctx.stroke();
    } else {
      const d = r * 0.6;
      ctx.beginPath();
      ctx.moveTo(x - d, y - d);
      ctx.lineTo(x + d, y + d);
      ctx.moveTo(x + d, y - d);
      ctx.lineTo(x - d, y + d);
      ctx.strokeStyle = "#0b0d10";
      ctx.lineWidth = 2;
      ctx.stroke();
    }
    const flash = this.flashes.get(id);
    if (flash !== undefined) {
      if (flash > t) {
        ctx.beginPath();
        ctx.arc(x, y, r + 3, 0, 2 * Math.PI);
        ctx.strokeStyle = `rgba(255,255,255,${(flash - t) / FLASH_MS})`;
        ctx.lineWidth = 3;
        ctx.stroke();
      } else this.flashes.delete(id);
    }
    // hp bar and name above
    const w = Math.max(26, r * 2.4);
    const top = y - r - 8;
    if (maxHp > 0) {
      const f = Math.max(0, Math.min(1, hp / maxHp));
      ctx.fillStyle = "rgba(0,0,0,0.7)";
      ctx.fillRect(x - w / 2 - 1, top - 1, w + 2, 5);
      ctx.fillStyle = f > 0.5 ? "#3fb950" : f > 0.25 ? "#d29922" : "#f85149";
      ctx.fillRect(x - w / 2, top, w * f, 3);
    }
    if (label) {
      ctx.font = bold ? "bold 12px system-ui, sans-serif" : "11px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "bottom";
      ctx.fillStyle = alive ? (bold ? "#e6edf3" : "rgba(230,237,243,0.75)") : "#8b949e";
      ctx.fillText(alive ? label : `${label} (dead)`, x, top - 3);
    }
  }

  private drawMoveTarget(): void {
    if (this.moveTarget === null) return;
    const ctx = this.ctx;
    const x = this.cam.sx(this.moveTarget.x);
    const y = this.cam.sy(this.moveTarget.y);
    ctx.beginPath();
    ctx.moveTo(x - 5, y - 5);
    ctx.lineTo(x + 5, y + 5);
    ctx.moveTo(x + 5, y - 5);
    ctx.lineTo(x - 5, y + 5);
    ctx.strokeStyle = "#7ee787";
    ctx.lineWidth = 2;
    ctx.stroke();
  }

  private drawFloaters(t: number): void {
    const ctx = this.ctx;
    this.floaters = this.floaters.filter((f) => t - f.at < FLOAT_MS);
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (const f of this.floaters) {
      const p = this.positionOf(f.target, t) ?? f;
      const age = (t - f.at) / FLOAT_MS;
      ctx.globalAlpha = Math.max(0, 1 - age * age);
      ctx.font = "bold 15px system-ui, sans-serif";
      ctx.lineWidth = 3;
      ctx.strokeStyle = "rgba(0,0,0,0.8)";
      const e = this.client.entities.get(f.target);
      const r = Math.max(3, (e?.radius ?? this.client.welcome?.you?.radius ?? 50) * this.cam.k);
      const x = this.cam.sx(p.x) + (f.slot % 2 === 0 ? 1 : -1) * Math.min(f.slot, 1) * 12;
      const y = this.cam.sy(p.y) - r - 34 - f.slot * 15 - age * 36;
      ctx.strokeText(f.text, x, y);
      ctx.fillStyle = f.colour;
      ctx.fillText(f.text, x, y);
    }
    ctx.globalAlpha = 1;
  }

  private drawHud(t: number): void {
    const ctx = this.ctx;
    const c = this.client;
    const cam = this.cam;
    const self = c.store.self!;
    const you = c.welcome?.you;
    // The zone's name, top centre.
    ctx.font = "bold 18px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    ctx.fillStyle = "rgba(230,237,243,0.9)";
    ctx.fillText(c.store.zone?.name ?? "", cam.width / 2, 10);
    // The skill bar, bottom centre, with hp above it.
    const n = this.skills.length;
    const slot = 64;
    const gap = 8;
    const total = n * slot + (n - 1) * gap;
    let x = cam.width / 2 - total / 2;
    const y = cam.height - slot - 14;
    const maxHp = you?.maxHp ?? 0;
    if (maxHp > 0) {
      const f = Math.max(0, Math.min(1, self.hp / maxHp));
      ctx.fillStyle = "rgba(0,0,0,0.6)";
      ctx.fillRect(x, y - 22, total, 14);
      ctx.fillStyle = f > 0.5 ? "#3fb950" : f > 0.25 ? "#d29922" : "#f85149";
      ctx.fillRect(x + 1, y - 21, (total - 2) * f, 12);
      ctx.font = "11px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillStyle = "#fff";
      ctx.fillText(`${self.hp} / ${maxHp}`, x + total / 2, y - 15);
    }
    for (let i = 0; i < n; i++) {
      const s = this.skills[i];
      let left = 0;
      try {
        left = c.cooldownLeft(s.id, t);
      } catch {
        left = 0;
      }
      ctx.fillStyle = "rgba(22,27,34,0.9)";
      ctx.fillRect(x, y, slot, slot);
      if (left > 0 && s.cooldownMs > 0) {
        ctx.fillStyle = "rgba(255,255,255,0.12)";
        const f = Math.min(1, left / s.cooldownMs);
        ctx.fillRect(x, y + slot * (1 - f), slot, slot * f);
      }
      const refused = this.slotRefused.get(i);
      ctx.strokeStyle = refused !== undefined && t - refused < 250 ? "#f85149" : self.alive && left === 0 ? "#7ee787" : "#30363d";
      ctx.lineWidth = 2;
      ctx.strokeRect(x + 1, y + 1, slot - 2, slot - 2);
      ctx.fillStyle = "#e6edf3";
      ctx.textAlign = "left";
      ctx.textBaseline = "top";
      ctx.font = "bold 13px system-ui, sans-serif";
      ctx.fillText(String(i + 1), x + 5, y + 4);
      ctx.font = "10px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.fillText(s.name.replace(/_/g, " "), x + slot / 2, y + slot - 26);
      ctx.fillStyle = "#8b949e";
      ctx.fillText(left > 0 ? `${Math.max(0.1, left / 1000).toFixed(1)} s` : `${s.damage} dmg`, x + slot / 2, y + slot - 13);
      x += slot + gap;
    }
    if (!self.alive) {
      ctx.font = "bold 22px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillStyle = "#f85149";
      const secs = Number.isNaN(this.respawnAt) ? "" : ` (respawn in ${Math.max(0, (this.respawnAt - t) / 1000).toFixed(1)} s)`;
      ctx.fillText(`You are dead${secs}`, cam.width / 2, cam.height / 2 - 60);
    }
  }

  private drawOverlay(_t: number): void {
    const c = this.client;
    const s = c.stats;
    const ctx = this.ctx;
    const self = c.store.self;
    const p = self ? c.selfPosition(_t) : null;
    const lines = [
      `zone ${c.store.zone?.name ?? "-"} · ${c.state}`,
      `${this.fps.toFixed(0)} fps · frame ${this.cpuMs.toFixed(2)} ms`,
      `rtt ${fmtMs(s.rtt.smoothed)} (min ${fmtMs(s.rtt.min)}) · in ${(s.bytesInPerSec / 1024).toFixed(1)} KiB/s`,
      `entities ${c.entities.size}${c.store.crowdTotal ? ` (+${c.store.crowdTotal} not sent)` : ""} · tick ${c.store.tick ?? "-"}`,
      p ? `at ${(p.x / 100).toFixed(1)}, ${(p.y / 100).toFixed(1)} m · ${this.cam.scale.toFixed(0)} px/m` : "",
      s.reconnects || s.handoffs ? `reconnects ${s.reconnects} · hand-offs ${s.handoffs}` : "",
    ].filter((l) => l !== "");
    ctx.font = "12px ui-monospace, SFMono-Regular, Menlo, monospace";
    ctx.textAlign = "left";
    ctx.textBaseline = "top";
    let w = 0;
    for (const l of lines) w = Math.max(w, ctx.measureText(l).width);
    ctx.fillStyle = "rgba(0,0,0,0.55)";
    ctx.fillRect(8, 8, w + 16, lines.length * 16 + 10);
    ctx.fillStyle = "#c9d1d9";
    lines.forEach((l, i) => ctx.fillText(l, 16, 14 + i * 16));
  }

  // ---------------------------------------------------------------- for tests (window.__play)

  api(): object {
    const game = this;
    const c = this.client;
    return {
      get state() {
        return c.state;
      },
      get zone() {
        return c.store.zone?.name ?? null;
      },
      get selfId() {
        return c.selfId;
      },
      get name() {
        return c.welcome?.playerName ?? null;
      },
      get self() {
        const s = c.store.self;
        if (s === null) return null;
        const p = c.selfPosition(now());
        return { id: s.id, x: p.x, y: p.y, serverX: s.x, serverY: s.y, hp: s.hp, maxHp: c.welcome?.you?.maxHp ?? 0, alive: s.alive };
      },
      get entities() {
        const t = now();
        return [...c.entities.values()].map((e: Entity) => {
          const s = game.drawState(e, t, { x: 0, y: 0, facing: 0 });
          return {
            id: e.id, kind: e.kind === EntityKind.PLAYER ? "player" : "monster",
            name: e.kind === EntityKind.PLAYER ? e.name : game.templates.get(e.templateId)?.name ?? "",
            x: s?.x ?? e.x, y: s?.y ?? e.y, rawX: e.x, rawY: e.y, newestTick: e.track.newestTick, hp: e.hp, maxHp: e.maxHp, alive: e.alive,
          };
        });
      },
      get skills() {
        return game.skills.map((s) => ({ id: s.id, name: s.name, shape: shapeName(s) }));
      },
      get hits() {
        return game.hits;
      },
      get chat() {
        return game.chatLines;
      },
      get log() {
        return game.logLines;
      },
      get states() {
        return game.states;
      },
      get errors() {
        return game.errors;
      },
      get frames() {
        return game.frames;
      },
      get fps() {
        return game.fps;
      },
      get moveTarget() {
        return game.moveTarget;
      },
      get banner() {
        return game.banner?.text ?? null;
      },
      get stats() {
        return JSON.parse(JSON.stringify(c.stats));
      },
      /** Where world point (cm) is on the page, in CSS px of the viewport. */
      toScreen(x: number, y: number) {
        const r = game.canvas.getBoundingClientRect();
        return { x: r.left + game.cam.sx(x), y: r.top + game.cam.sy(y) };
      },
    };
  }
}

const MOVE_KEYS: Record<string, [number, number] | undefined> = {
  KeyW: [0, 1],
  KeyS: [0, -1],
  KeyA: [-1, 0],
  KeyD: [1, 0],
  ArrowUp: [0, 1],
  ArrowDown: [0, -1],
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
};

function outcomeName(o: Outcome): string {
  return (Outcome[o] ?? String(o)).toLowerCase().replace(/_/g, " ");
}

function fmtMs(v: number): string {
  return Number.isNaN(v) ? "-" : `${v.toFixed(v < 10 ? 1 : 0)} ms`;
}

function closedMessage(reason: CloseReason | undefined, error: ZoneClientError | undefined): string {
  if (error === undefined) return reason === "logout" || reason === "client_closed" ? "logged out" : String(reason ?? "closed");
  switch (error.code) {
    case "kicked":
      switch (error.details.reason) {
        case "idle":
          return "kicked for being idle (no move, skill or chat for a while)";
        case "logged_in_elsewhere":
          return "this character logged in elsewhere";
        default:
          return `kicked: ${error.details.reason ?? error.message}`;
      }
    case "server_error":
      return error.message;
    case "no_websocket_address":
      return "the next zone's server has no WebSocket door (it cannot be followed from a browser)";
    default:
      return `${error.code}: ${error.message}`;
  }
}
