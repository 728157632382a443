// Prediction (replay after the ack, wrap of seqs, smooth correction) and interpolation (between
// samples, held after silence, extrapolation bounded, teleports) and the tick clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Prediction } from "../../src/prediction";
import { MotionTrack, lerpFacing } from "../../src/interpolation";
import { TickClock, ClockSync } from "../../src/clock";
import { seqAcked } from "../../src/protocol";

const bounds = { id: 1, name: "z", minX: 0, minY: 0, maxX: 100000, maxY: 100000 };

function predictor(): Prediction {
  const p = new Prediction();
  p.speed = 400; // cm/s
  p.tickMs = 50;
  p.bounds = bounds;
  p.reset(1000, 1000);
  return p;
}

test("prediction moves at once, replays unacked moves after the server's word, across the seq wrap", () => {
  const p = predictor();
  const seq = 0xfffffffe; // wraps after the next one
  p.addMove(seq, 1, 0, 0);
  assert.ok(Math.abs(p.positionAt(500).x - (1000 + 200)) < 1e-6, "moves before any ack");
  p.addMove(0xffffffff, 0, 1, 500);
  p.addMove(0, 0, 0, 1000); // stop (seq 0 comes after 2^32 - 1)
  // Tick 10: the server has applied the first move (sent at 0) in tick 10 and walked 1 tick.
  p.onFrame(10, seq, 1020, 1000, true, 550, NaN, 100);
  assert.equal(p.pendingCount, 2);
  // Everything acked, the server's final position: the prediction equals it.
  p.onFrame(40, 0, 1200, 1200, true, 2000, NaN, 100);
  assert.equal(p.pendingCount, 0);
  const raw = p.rawAt(2000);
  assert.deepEqual(raw, { x: 1200, y: 1200 });
  // The drawn position glides to it: after 1 s the correction is gone.
  const drawn = p.positionAt(3000);
  assert.ok(Math.hypot(drawn.x - 1200, drawn.y - 1200) < 1, JSON.stringify(drawn));
  assert.equal(p.snaps, 0);
});

test("a fresh session's last_input_seq 0 acknowledges no move from the upper half of the seq space", () => {
  const p = predictor();
  p.addMove(0x80000005, 1, 0, 0);
  p.addMove(0x80000006, 0, 1, 100);
  p.onFrame(3, 0, 1000, 1000, true, 150, NaN, 100); // the server has judged nothing yet
  assert.equal(p.pendingCount, 2, "0 is outside the session's window 0x80000005 .. 0x80000006");
  p.onFrame(4, 0x80000005, 1020, 1000, true, 200, NaN, 100);
  assert.equal(p.pendingCount, 1);
  assert.equal(seqAcked(0x80000005, 0, 0x80000005, 0x80000006), false);
  assert.equal(seqAcked(0x80000005, 0x80000006, 0x80000005, 0x80000006), true);
  assert.equal(seqAcked(0xffffffff, 0, 0xffffffff, 2), true, "a window across the wrap still takes 0");
  assert.equal(seqAcked(1, 0, NaN, 2), false, "nothing sent this session");
});

test("prediction clamps to the zone and snaps a large error", () => {
  const p = predictor();
  p.addMove(1, -1, 0, 0);
  assert.equal(p.rawAt(10000).x, 0, "clamped at min x");
  p.onFrame(5, 1, 50000, 1000, true, 100, NaN, 100);
  assert.equal(p.snaps, 1);
});

test("interpolation: between samples, held after a silence, bounded extrapolation, teleports", () => {
  const t = new MotionTrack(16);
  const out = { x: 0, y: 0, facing: 0 };
  t.reset(10, 0, 0, 0);
  t.push(11, 20, 0, 0);
  t.push(12, 40, 0, 0);
  t.stateAt(11.5, out);
  assert.equal(out.x, 30);
  t.stateAt(13, out);
  assert.equal(out.x, 60, "extrapolated one tick");
  t.stateAt(20, out);
  assert.equal(out.x, 80, "at most two ticks ahead");
  t.stateAt(13, out, 14);
  assert.equal(out.x, 40, "a later frame did not move it: it stopped at its newest sample");
  t.stateAt(11.5, out, 14);
  assert.equal(out.x, 30, "interpolation before that is unchanged");
  t.push(30, 60, 0, 0); // after a silence: held at 40 until tick 29
  t.stateAt(25, out);
  assert.equal(out.x, 40);
  t.stateAt(29.5, out);
  assert.equal(out.x, 50);
  t.push(31, 9000, 0, 0); // a teleport: drawn as a jump at its tick
  t.stateAt(30.5, out);
  assert.equal(out.x, 60);
  assert.equal(lerpFacing(65000, 500, 0.5) > 65000 || lerpFacing(65000, 500, 0.5) < 500, true);
});

test("tick clock: earliest arrivals set the origin, jitter from the rest; clock offset from the min-RTT sample", () => {
  const c = new TickClock();
  c.setTickRate(20);
  for (let t = 0; t < 40; t++) c.observe(t, 1000 + t * 50 + (t % 2 === 0 ? 50 : 0)); // pairs: the first of each waits a tick
  assert.equal(c.localTimeOfTick(10), 1500);
  assert.equal(c.jitterMs, 50);
  assert.equal(c.renderDelayTicks(0), 2);
  const s = new ClockSync();
  s.addSample(0, 100, 5050); // rtt 100: offset 5000
  s.addSample(200, 220, 5200 + 10 + 3); // rtt 20: offset 5003
  s.addSample(400, 700, 9999); // rtt 300: ignored for the offset
  assert.equal(s.offset, 5003);
  assert.equal(s.rttMin, 20);
  assert.equal(s.rttLast, 300);
});
