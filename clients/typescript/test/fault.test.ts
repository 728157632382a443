// Through a real network fault: the client talks to zone_server through a loopback proxy that
// adds latency and jitter and can cut or stall every connection (test/support/proxy.ts).
// Checks: remote motion drawn at 60 frames a second stays smooth (the largest step from one
// drawn frame to the next against what the walker can really move in that time); the predicted
// own position converges on the server's; after a cut, the SDK is back in the world soon after
// the path answers again (goal < 2 s); a stall is noticed (resume() probes at once) and healed.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { SKIP_LIVE } from "./support/paths";
import { FaultProxy } from "./support/proxy";
import { ZoneServer, sleep, waitFor } from "./support/server";
import { client, closeAll, inWorld } from "./support/clients";

for (const transport of ["tcp", "ws"] as const) {
  describe(`network faults over ${transport}`, { skip: SKIP_LIVE && "ZS_TS_SKIP_LIVE=1" }, () => {
    let server: ZoneServer;
    let proxy: FaultProxy;
    const url = () => (transport === "ws" ? `ws://127.0.0.1:${proxy.port}/` : `tcp://127.0.0.1:${proxy.port}`);
    before(async () => {
      server = await ZoneServer.start();
      proxy = await new FaultProxy(transport === "ws" ? server.wsPort : server.port, { latencyMs: 40, jitterMs: 15 }).listen();
    });
    after(async () => {
      await closeAll();
      await proxy?.close();
      await server?.stop();
    });

    test("remote motion is smooth and the prediction converges, with 40 ms latency and 15 ms jitter", async () => {
      const watcher = client({ url: url(), name: `Watcher${transport}` });
      const walker = client({ url: server.url(transport), name: `Runner${transport}` });
      await inWorld(watcher);
      await inWorld(walker);
      await waitFor("the walker in the watcher's view", () => watcher.entities.has(walker.selfId), 5000);
      const speed = walker.welcome!.you!.speed; // cm/s
      // The walker goes back and forth (0.4 s legs); the watcher draws it at ~60 fps.
      let worst = 0;
      let frames = 0;
      let last: { x: number; y: number; t: number } | undefined;
      const draw = setInterval(() => {
        const now = performance.timeOrigin + performance.now();
        const s = watcher.stateAt(walker.selfId, now);
        if (s === undefined) return;
        if (last !== undefined && now - last.t > 5) {
          const ratio = Math.hypot(s.x - last.x, s.y - last.y) / ((speed * (now - last.t)) / 1000);
          worst = Math.max(worst, ratio);
          frames++;
        }
        last = { x: s.x, y: s.y, t: now };
      }, 16);
      const legs = 8;
      for (let i = 0; i < legs; i++) {
        walker.move(i % 2 === 0 ? 1 : -1, 0);
        await sleep(400);
      }
      walker.stop();
      await sleep(300);
      clearInterval(draw);
      console.log(`[ smooth ${transport} ] ${frames} drawn frames: the largest step was ${worst.toFixed(2)}x what the walker can move in that time (jitter ${watcher.stats.jitterMs.toFixed(0)} ms, render delay ${watcher.ticks.renderDelayTicks().toFixed(2)} ticks)`);
      assert.ok(frames > 100, `frames ${frames}`);
      assert.ok(worst < 2, `a jump of ${worst.toFixed(2)}x the walker's speed`);

      // The watcher walks through the proxy: its prediction meets the server's position.
      watcher.move(0, 1);
      await sleep(500);
      watcher.move(1, 1);
      await sleep(300);
      watcher.stop();
      const seq = watcher["inputSeq"] as number;
      await waitFor("the stop acked", () => watcher.store.lastInputSeq === seq, 5000);
      await waitFor("prediction converged", () => {
        const p = watcher.selfPosition();
        return Math.hypot(p.x - watcher.store.self!.x, p.y - watcher.store.self!.y) < 2;
      }, 3000);
      console.log(`[ predict ${transport} ] largest correction ${watcher.prediction.largestCorrection.toFixed(1)} cm, snaps ${watcher.prediction.snaps}`);
      assert.equal(watcher.prediction.snaps, 0);
    });

    test("a cut: back in the world soon after the path answers again", async () => {
      const a = client({ url: url(), name: `Cut${transport}` });
      await inWorld(a);
      a.move(1, 0);
      proxy.cut(true); // every connection dropped, new ones refused
      await waitFor("reconnecting", () => a.state === "reconnecting", 5000);
      await sleep(1500); // the outage: backoff grows meanwhile
      proxy.up();
      const upAt = Date.now();
      await inWorld(a, 10000);
      const took = Date.now() - upAt;
      console.log(`[ cut ${transport} ] path up again -> back in the world: ${took} ms (reconnects ${a.stats.reconnects})`);
      assert.ok(took < 2000, `resumed after ${took} ms`);
      await waitFor("walking again (the direction re-sent)", () => a.prediction.direction.x === 1, 2000);
      a.stop();
    });

    test("a stall: resume() notices at once, and the SDK heals when it ends", async () => {
      const a = client({ url: url(), name: `Stall${transport}` });
      await inWorld(a);
      proxy.stall();
      const stalledAt = Date.now();
      await sleep(200);
      a.resume(); // the app comes back to the foreground: probes now
      await waitFor("the probe found it dead", () => a.state === "reconnecting", 3000);
      const noticed = Date.now() - stalledAt;
      await sleep(300);
      proxy.unstall();
      const unstalledAt = Date.now();
      await inWorld(a, 10000);
      const took = Date.now() - unstalledAt;
      console.log(`[ stall ${transport} ] noticed after ${noticed} ms (resume at 200 ms); back in the world ${took} ms after the stall ended`);
      assert.ok(noticed < 2500, `noticed after ${noticed} ms`);
      assert.ok(took < 2000, `resumed after ${took} ms`);
    });
  });
}
