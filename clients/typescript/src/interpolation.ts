// Interpolation of remote entities: each Entity keeps a MotionTrack of its recent positions by
// server tick, and stateAt(renderTick) gives where to draw it at a (fractional) tick, some ticks
// behind the newest (Interpolator picks that tick from the TickClock: about ticks_per_send ticks
// plus the arrival jitter behind).
//
// Positions in a tick are where entities stand at its end. Between two samples the track
// interpolates linearly (facing along the shorter arc); a sample after a long silence (an
// entity that stood still, or one of the far tier sent every few ticks) is preceded by a held
// copy of the last position, so a walker that starts again does not slide from long ago; a jump
// farther than `snapCm` (a respawn, a portal) is drawn as a jump. Past the newest sample it
// extrapolates with the last velocity for at most `maxExtrapolationTicks`, then holds; but only
// while no later frame has come: a frame that did not move the entity means it stopped there
// (the near tier sends every move), so it is held where it stands, not drawn ahead of it.
//
// Pure: no clock; the caller passes ticks. Storage: one Float64Array ring per entity.
import { TURN } from "./protocol";

export interface MotionState {
  x: number;
  y: number;
  facing: number;
}

const kFields = 4; // tick, x, y, facing

export class MotionTrack {
  private readonly ring: Float64Array;
  private head = 0; // index of the newest sample
  private count = 0;
  /** Samples farther apart than this (ticks) are not blended: the older is held until just before the newer. */
  static maxBlendGapTicks = 10;
  /** A step longer than this (cm) is drawn as a jump. */
  static snapCm = 2000;
  /** How far past its newest sample an entity is extrapolated. */
  static maxExtrapolationTicks = 2;

  constructor(private readonly capacity: number) {
    this.ring = new Float64Array(capacity * kFields);
  }

  get size(): number {
    return this.count;
  }

  /** The newest sample's tick (NaN when empty). */
  get newestTick(): number {
    return this.count === 0 ? NaN : this.ring[this.head * kFields];
  }

  reset(tick: number, x: number, y: number, facing: number): void {
    this.count = 0;
    this.write(tick, x, y, facing);
  }

  push(tick: number, x: number, y: number, facing: number): void {
    if (this.count === 0) return this.write(tick, x, y, facing);
    const r = this.ring;
    const h = this.head * kFields;
    const lastTick = r[h];
    if (tick === lastTick) {
      r[h + 1] = x;
      r[h + 2] = y;
      r[h + 3] = facing;
      return;
    }
    if (tick < lastTick || Math.hypot(x - r[h + 1], y - r[h + 2]) > MotionTrack.snapCm) {
      // Time went back (a new zone's count, a restarted server): start afresh. A teleport: the
      // old position is held until just before the new one's tick, so the jump happens there.
      if (tick > lastTick) {
        // Held until just before its tick, then the jump.
        if (tick - 1e-3 > lastTick) this.write(tick - 1e-3, r[h + 1], r[h + 2], r[h + 3]);
        this.write(tick, x, y, facing);
        return;
      }
      return this.reset(tick, x, y, facing);
    }
    if (tick - lastTick > MotionTrack.maxBlendGapTicks) {
      this.write(tick - 1, r[h + 1], r[h + 2], r[h + 3]);
    }
    this.write(tick, x, y, facing);
  }

  private write(tick: number, x: number, y: number, facing: number): void {
    this.head = this.count === 0 ? 0 : (this.head + 1) % this.capacity;
    const i = this.head * kFields;
    this.ring[i] = tick;
    this.ring[i + 1] = x;
    this.ring[i + 2] = y;
    this.ring[i + 3] = facing;
    if (this.count < this.capacity) this.count++;
  }

  /**
   * Where the entity stands at `tick` (fractional), written into `out`; false when empty.
   * `latestTick`: the newest frame applied to the store (frames after this entity's newest
   * sample that did not move it: it stands there, no extrapolation).
   */
  stateAt(tick: number, out: MotionState, latestTick: number = -Infinity): boolean {
    const n = this.count;
    if (n === 0) return false;
    const r = this.ring;
    const cap = this.capacity;
    let newer = this.head * kFields;
    if (tick >= r[newer]) {
      // Past the newest: extrapolate a little with the last velocity.
      if (n >= 2 && latestTick <= r[newer]) {
        const older = ((this.head - 1 + cap) % cap) * kFields;
        const dt = r[newer] - r[older];
        const ahead = Math.min(tick - r[newer], MotionTrack.maxExtrapolationTicks);
        if (dt > 0 && dt <= 2 && ahead > 0) {
          out.x = r[newer + 1] + ((r[newer + 1] - r[older + 1]) / dt) * ahead;
          out.y = r[newer + 2] + ((r[newer + 2] - r[older + 2]) / dt) * ahead;
          out.facing = r[newer + 3];
          return true;
        }
      }
      out.x = r[newer + 1];
      out.y = r[newer + 2];
      out.facing = r[newer + 3];
      return true;
    }
    for (let k = 1; k < n; k++) {
      const older = ((this.head - k + cap) % cap) * kFields;
      if (r[older] <= tick) {
        const t0 = r[older];
        const a = (tick - t0) / (r[newer] - t0);
        out.x = r[older + 1] + (r[newer + 1] - r[older + 1]) * a;
        out.y = r[older + 2] + (r[newer + 2] - r[older + 2]) * a;
        out.facing = lerpFacing(r[older + 3], r[newer + 3], a);
        return true;
      }
      newer = older;
    }
    // Older than anything kept: the oldest sample.
    out.x = r[newer + 1];
    out.y = r[newer + 2];
    out.facing = r[newer + 3];
    return true;
  }
}

/** Facing between `a` and `b` along the shorter arc, `t` in [0, 1]. */
export function lerpFacing(a: number, b: number, t: number): number {
  let d = b - a;
  if (d > TURN / 2) d -= TURN;
  else if (d < -TURN / 2) d += TURN;
  const f = a + d * t;
  return ((f % TURN) + TURN) % TURN;
}
