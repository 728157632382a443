// Time: the server's clock from Ping/Pong, and the server's ticks on the local clock.
//
// ClockSync: each Pong (and the Welcome, timed from the Hello) gives a sample
// offset = server_time_ms - (sent + received) / 2 with its round trip; the offset used is that
// of the sample with the smallest round trip among the recent ones (the least queued, so the
// least skewed). RTT stats: last, smoothed (1/8 EWMA, as TCP does), min.
//
// TickClock: where each tick falls on the local clock, from when frames arrive. Each frame of
// tick T arriving at local time a gives a candidate origin a - T * tickMs; the earliest of the
// recent ones (a window of about 3 s) is the origin (frames are only ever late: batched by
// ticks_per_send, queued, delayed), and how much later than it frames typically come is the
// jitter. renderTick(now) is where to draw remote entities: one tick (positions are where
// entities stand at the end of a tick) plus the jitter plus a margin behind the newest tick.
// A tick count that jumps (a zone change, a reconnect) starts the window afresh.
//
// Server tick <-> server time: from Welcome (server_tick, server_time_ms) and each Pong.
//
// Pure: times are passed in (ms, any origin for TickClock; ClockSync's local clock must be the
// one Ping.client_time was taken from, and in epoch ms for serverNow to mean wall-clock time).

export class ClockSync {
  private readonly samples: Array<{ rtt: number; offset: number }> = [];
  /** Server clock minus local clock, ms (NaN until a sample). */
  offset = NaN;
  rttLast = NaN;
  rttSmoothed = NaN;
  rttMin = NaN;
  /** Pongs seen. */
  pongs = 0;

  constructor(private readonly window = 8) {}

  /** A sample: a request sent at `sentMs`, answered at `receivedMs`, the server's clock saying `serverMs`. */
  addSample(sentMs: number, receivedMs: number, serverMs: number, isPing = true): void {
    const rtt = Math.max(0, receivedMs - sentMs);
    const offset = serverMs - (sentMs + receivedMs) / 2;
    this.samples.push({ rtt, offset });
    if (this.samples.length > this.window) this.samples.shift();
    let best = this.samples[0];
    for (const s of this.samples) if (s.rtt < best.rtt) best = s;
    this.offset = best.offset;
    if (!isPing) return; // a Welcome's round trip includes the login: not a network RTT
    this.pongs++;
    this.rttLast = rtt;
    this.rttSmoothed = Number.isNaN(this.rttSmoothed) ? rtt : this.rttSmoothed + (rtt - this.rttSmoothed) / 8;
    this.rttMin = Number.isNaN(this.rttMin) ? rtt : Math.min(this.rttMin, rtt);
  }

  /** The server's wall clock now, by the local clock `localMs`. */
  serverNow(localMs: number): number {
    return localMs + (Number.isNaN(this.offset) ? 0 : this.offset);
  }
}

export class TickClock {
  tickMs = 50;
  private readonly candidates: Float64Array;
  private n = 0;
  private next = 0;
  private origin = NaN;
  private lastTick = NaN;
  /** How much later than the earliest frames typically come, ms (the 90th percentile). */
  jitterMs = 0;
  private sinceJitter = 0;
  // server tick <-> server time anchor
  private anchorTick = NaN;
  private anchorServerMs = NaN;

  constructor(private readonly windowFrames = 64) {
    this.candidates = new Float64Array(windowFrames);
  }

  setTickRate(tickRate: number): void {
    this.tickMs = 1000 / Math.max(1, tickRate);
  }

  /** Forgets the tick origin (a new zone or connection counts its ticks afresh). */
  reset(): void {
    this.n = 0;
    this.next = 0;
    this.origin = NaN;
    this.lastTick = NaN;
    this.jitterMs = 0;
  }

  /** Forgets the server tick <-> server time anchor (another zone counts its own ticks). */
  clearAnchor(): void {
    this.anchorTick = NaN;
    this.anchorServerMs = NaN;
  }

  /** A frame of `tick` arrived at local time `arrivalMs`. */
  observe(tick: number, arrivalMs: number): void {
    if (!Number.isNaN(this.lastTick) && (tick < this.lastTick || tick > this.lastTick + 200)) {
      this.reset();
    }
    this.lastTick = tick;
    const c = arrivalMs - tick * this.tickMs;
    this.candidates[this.next] = c;
    this.next = (this.next + 1) % this.windowFrames;
    if (this.n < this.windowFrames) this.n++;
    let min = Infinity;
    for (let i = 0; i < this.n; i++) if (this.candidates[i] < min) min = this.candidates[i];
    this.origin = min;
    if (++this.sinceJitter >= 8 || this.n < 8) {
      this.sinceJitter = 0;
      const late = Array.from(this.candidates.subarray(0, this.n), (v) => v - min).sort((a, b) => a - b);
      this.jitterMs = late[Math.min(late.length - 1, Math.floor(late.length * 0.9))];
    }
  }

  /** True once a frame has been seen. */
  get known(): boolean {
    return !Number.isNaN(this.origin);
  }

  /** The newest tick seen. */
  get newestTick(): number {
    return this.lastTick;
  }

  /** The local time the frame of `tick` is expected (at the earliest). */
  localTimeOfTick(tick: number): number {
    return this.origin + tick * this.tickMs;
  }

  /** The (fractional) tick whose frame is due at local time `localMs`. */
  tickAt(localMs: number): number {
    return (localMs - this.origin) / this.tickMs;
  }

  /** How many ticks behind the newest to draw remote entities: 1 + jitter + margin. */
  renderDelayTicks(marginTicks = 0.25): number {
    return 1 + this.jitterMs / this.tickMs + marginTicks;
  }

  /** The tick to draw remote entities at, at local time `localMs`. */
  renderTick(localMs: number, marginTicks = 0.25): number {
    return this.tickAt(localMs) - this.renderDelayTicks(marginTicks);
  }

  /** Ties a server tick to the server's clock (Welcome, Pong). */
  anchor(serverTick: number, serverMs: number): void {
    this.anchorTick = serverTick;
    this.anchorServerMs = serverMs;
  }

  /** The server's wall-clock time of `tick` (NaN before an anchor). */
  serverTimeOfTick(tick: number): number {
    return this.anchorServerMs + (tick - this.anchorTick) * this.tickMs;
  }

  /** The server's (fractional) tick at server wall-clock time `serverMs` (NaN before an anchor). */
  tickAtServerTime(serverMs: number): number {
    return this.anchorTick + (serverMs - this.anchorServerMs) / this.tickMs;
  }
}
