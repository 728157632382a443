// Prediction of your own movement: the player moves at once when the game asks, and the
// server's word corrects it smoothly.
//
// Model (docs/protocol.md "Inputs and their results"): a MoveInput sets a direction the server
// keeps until the next one; each tick the server moves the player at most speed / tick_rate
// along it and clamps the position to the zone. Every move and skill it judged is acknowledged
// by TickUpdate.last_input_seq (serial-number order, wrapping after 2^32 - 1).
//
// The client keeps each unacknowledged MoveInput (seq, direction, when it was sent). For a frame
// of tick T with your position S and last_input_seq L, the predicted position at local time t
// replays from S: the direction of the newest accepted move up to L until the first pending
// move was sent, then each pending move's direction until the next one was sent, the last until
// t; all clamped to the zone. Where tick T falls on the client's own timeline (when the client
// started drawing what the server shows at the end of T) is learnt from the acks: a move sent at
// s and first acknowledged in tick T put the server at the end of T one tick into it, so tick T
// is s + 1 tick on the client's timeline; the average over acks (an EWMA) is used, and before
// any, the frame's expected arrival less one round trip.
//
// Correction: when a frame changes the prediction, the difference is kept as an offset that
// decays (time constant `correctionMs`), so the drawn position glides to the truth; an error
// larger than `snapCm` snaps. Dead players are not predicted (the server refuses their moves).
//
// Pure: times are passed in (ms, the same clock throughout).
import { seqAcked } from "./protocol";
import type { ZoneInfo } from "./store";

interface PendingMove {
  seq: number;
  dx: number; // unit direction, or 0, 0
  dy: number;
  sentAt: number;
}

export interface PredictionOptions {
  /** Time constant of the correction's decay, ms. */
  correctionMs?: number;
  /** An error larger than this (cm) snaps instead of gliding. */
  snapCm?: number;
}

export class Prediction {
  speed = 0; // cm per second
  tickMs = 50;
  bounds: ZoneInfo | null = null;
  alive = true;
  private pending: PendingMove[] = [];
  private refused = new Set<number>();
  private ackedDx = 0;
  private ackedDy = 0;
  private serverX = 0;
  private serverY = 0;
  private serverTick = NaN;
  private lastSeq = 0;
  /** The first move sent since the last reset: with lastSeq, the window an ack must be in. */
  private firstSeq = NaN;
  private timelineOffset = NaN; // client time of tick T = T * tickMs + timelineOffset
  private correctionX = 0;
  private correctionY = 0;
  private correctedAt = NaN;
  readonly correctionMs: number;
  readonly snapCm: number;
  /** Largest correction applied since the last reset (cm), for stats and tests. */
  largestCorrection = 0;
  /** Corrections that snapped. */
  snaps = 0;

  constructor(opts: PredictionOptions = {}) {
    this.correctionMs = opts.correctionMs ?? 120;
    this.snapCm = opts.snapCm ?? 400;
  }

  /** Standing at (x, y), nothing pending: a Welcome, a zone change (you arrive standing still). */
  reset(x: number, y: number, alive = true): void {
    this.pending.length = 0;
    this.firstSeq = NaN;
    this.refused.clear();
    this.ackedDx = 0;
    this.ackedDy = 0;
    this.serverX = x;
    this.serverY = y;
    this.serverTick = NaN;
    this.correctionX = 0;
    this.correctionY = 0;
    this.alive = alive;
  }

  /** Moves sent and not yet acknowledged. */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** The direction the player is walking in, by the newest move sent (unit vector or 0). */
  get direction(): { x: number; y: number } {
    const last = this.pending[this.pending.length - 1];
    return last ? { x: last.dx, y: last.dy } : { x: this.ackedDx, y: this.ackedDy };
  }

  /** A MoveInput was sent. Its direction is normalised as the server does. */
  addMove(seq: number, dirX: number, dirY: number, sentAt: number): void {
    const len = Math.hypot(dirX, dirY);
    const dx = len > 0 ? dirX / len : 0;
    const dy = len > 0 ? dirY / len : 0;
    this.pending.push({ seq, dx, dy, sentAt });
    if (Number.isNaN(this.firstSeq)) this.firstSeq = seq;
    this.lastSeq = seq;
  }

  /** The server refused the move `seq` (InputResult): it never changed the direction. */
  moveRefused(seq: number): void {
    this.refused.add(seq);
  }

  /**
   * A frame: your position (x, y) at the end of `tick`, with `lastInputSeq` judged; `now` is the
   * local time it is applied, `expectedArrival` the local time the frame of `tick` was due and
   * `rtt` the round trip (both for the first frames, before any ack has shown the timeline).
   */
  onFrame(tick: number, lastInputSeq: number, x: number, y: number, alive: boolean, now: number, expectedArrival: number, rtt: number): void {
    const before = this.rawAt(now);
    // Acknowledged moves leave the pending list; the newest accepted one is the server's direction.
    let acked = 0;
    const isAcked = (seq: number): boolean => seqAcked(seq, lastInputSeq, this.firstSeq, this.lastSeq);
    while (acked < this.pending.length && isAcked(this.pending[acked].seq)) {
      const m = this.pending[acked];
      if (!this.refused.has(m.seq)) {
        this.ackedDx = m.dx;
        this.ackedDy = m.dy;
      }
      this.refused.delete(m.seq);
      const sample = m.sentAt + this.tickMs - tick * this.tickMs;
      if (acked === this.pending.length - 1 || !isAcked(this.pending[acked + 1].seq)) {
        // Only the newest move acked in this frame was (most likely) applied in this tick.
        this.timelineOffset = Number.isNaN(this.timelineOffset) ? sample : this.timelineOffset + (sample - this.timelineOffset) * 0.2;
      }
      acked++;
    }
    if (acked > 0) this.pending.splice(0, acked);
    if (this.refused.size > 64) this.refused.clear();
    if (!alive) {
      this.ackedDx = 0;
      this.ackedDy = 0;
    }
    this.alive = alive;
    this.serverX = x;
    this.serverY = y;
    this.serverTick = tick;
    if (Number.isNaN(this.timelineOffset) && !Number.isNaN(expectedArrival)) {
      this.fallbackOffset = expectedArrival - (Number.isNaN(rtt) ? 100 : rtt) - tick * this.tickMs;
    }
    const after = this.rawAt(now);
    this.addCorrection(before.x - after.x, before.y - after.y, now);
  }

  private fallbackOffset = NaN;

  private addCorrection(dx: number, dy: number, now: number): void {
    this.decay(now);
    const cx = this.correctionX + dx;
    const cy = this.correctionY + dy;
    const size = Math.hypot(cx, cy);
    if (size > this.snapCm) {
      this.snaps++;
      this.correctionX = 0;
      this.correctionY = 0;
    } else {
      this.largestCorrection = Math.max(this.largestCorrection, size);
      this.correctionX = cx;
      this.correctionY = cy;
    }
  }

  private decay(now: number): void {
    if (!Number.isNaN(this.correctedAt) && now > this.correctedAt) {
      const k = Math.exp(-(now - this.correctedAt) / this.correctionMs);
      this.correctionX *= k;
      this.correctionY *= k;
    }
    this.correctedAt = now;
  }

  /** Where the server will have the player at `now`, by the inputs sent (no smoothing). */
  rawAt(now: number): { x: number; y: number } {
    let x = this.serverX;
    let y = this.serverY;
    if (!this.alive) return { x, y };
    const perMs = this.speed / 1000;
    const offset = Number.isNaN(this.timelineOffset) ? this.fallbackOffset : this.timelineOffset;
    let t = Number.isNaN(this.serverTick) || Number.isNaN(offset) ? -Infinity : this.serverTick * this.tickMs + offset;
    let dx = this.ackedDx;
    let dy = this.ackedDy;
    for (const m of this.pending) {
      if (t === -Infinity) t = m.sentAt; // nothing known of the timeline: from the first send
      if (m.sentAt > t) {
        x += dx * perMs * (m.sentAt - t);
        y += dy * perMs * (m.sentAt - t);
        [x, y] = this.clamp(x, y);
        t = m.sentAt;
      }
      if (!this.refused.has(m.seq)) {
        dx = m.dx;
        dy = m.dy;
      }
    }
    if (t !== -Infinity && now > t) {
      x += dx * perMs * (now - t);
      y += dy * perMs * (now - t);
    }
    return this.clampObj(x, y);
  }

  /** Where to draw the player at `now`: the prediction plus the decaying correction. */
  positionAt(now: number): { x: number; y: number } {
    this.decay(now);
    const raw = this.rawAt(now);
    return this.clampObj(raw.x + this.correctionX, raw.y + this.correctionY);
  }

  /** The remaining correction (cm). */
  get correction(): number {
    return Math.hypot(this.correctionX, this.correctionY);
  }

  private clamp(x: number, y: number): [number, number] {
    const b = this.bounds;
    if (b === null) return [x, y];
    return [Math.min(Math.max(x, b.minX), b.maxX), Math.min(Math.max(y, b.minY), b.maxY)];
  }

  private clampObj(x: number, y: number): { x: number; y: number } {
    const [cx, cy] = this.clamp(x, y);
    return { x: cx, y: cy };
  }
}
