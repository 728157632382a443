// The page against a real zone_server in a real Chromium (npm test; dist/ is built first).
//
// Started here: zone_server (a temp config as tests/integration/harness.h's ServerProcess
// writes: loopback, ephemeral ports read from --port-file, the WebSocket door open to this
// page's origin, the integration world: the plaza, players spawn at (100, 100), PvP on, 150
// dummies at 120..160, the east edge x >= 390 a portal to the yard), serve.mjs on a free port,
// and /usr/bin/chromium through playwright-core. Two pages log in as A and B, see each other,
// A walks next to B by clicking (click-to-move) and swings at B (key 1, aimed with the mouse):
// both pages register the hit and B's hp drops; A's other skills (line, ground circle, circle)
// hit B too; A kills B (dead on both pages) and B respawns. They chat (say, whisper). B walks east with a
// held key through the portal into the yard: still in_world, never reconnecting. Then the server
// is SIGKILLed (both pages show the reconnecting banner) and started again on the same ports
// (both back in the world). No server at the URL: the banner says what to check. A refused
// name, and a server in token mode (a forged token refused,
// a minted one logged in), end up on the login form as they should. Screenshots go to
// test-artifacts/ (play.png: A's view as its skills hit B; play-dead.png; play-yard.png: B in
// the yard; play-reconnecting.png: the banner).
//
// A missing Chromium or server binary fails the test (ZS_CHROMIUM, ZS_SERVER_BIN override the
// paths). Waits are on conditions with generous deadlines, never fixed sleeps.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { accessSync, constants, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createHmac, randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const repo = resolve(pkg, "../..");
const CHROMIUM = process.env.ZS_CHROMIUM || "/usr/bin/chromium";
const SERVER_BIN = process.env.ZS_SERVER_BIN || resolve(repo, "build/test/server/app/zone_server");
const WORLD = resolve(repo, "tests/integration/world/world.yaml");
const ARTIFACTS = join(pkg, "test-artifacts");

const children = [];
let serverDir = "";
let serverLogPath = "";
let origin = "";
let wsUrl = "";
let browser;
const pages = {}; // name -> { page, errors }
const t0 = Date.now();
const step = (what) => console.log(`# ${((Date.now() - t0) / 1000).toFixed(1)} s: ${what}`);

function mustExist(path, what, hint) {
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(`${what} not found or not executable at ${path}: ${hint}`);
  }
}

function until(what, cond, timeoutMs = 15000) {
  return new Promise((resolvePromise, reject) => {
    const end = Date.now() + timeoutMs;
    const tick = async () => {
      let v;
      try {
        v = await cond();
      } catch (e) {
        return reject(e);
      }
      if (v) return resolvePromise(v);
      if (Date.now() > end) return reject(new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`));
      setTimeout(tick, 50);
    };
    tick();
  });
}

/** Starts a child; resolves with the first stdout line matching `re` (its match). */
function startChild(cmd, args, opts, re, what, timeoutMs = 15000) {
  const child = spawn(cmd, args, opts);
  children.push(child);
  if (!re) return { child, ready: Promise.resolve(null) };
  const ready = new Promise((resolvePromise, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${what}: not ready after ${timeoutMs} ms; output:\n${out}`)), timeoutMs);
    child.stdout.on("data", (d) => {
      out += d.toString();
      const m = re.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise(m);
      }
    });
    child.stderr?.on("data", (d) => (out += d.toString()));
    child.on("exit", (code) => reject(new Error(`${what} exited (${code}) before it was ready:\n${out}`)));
  });
  return { child, ready };
}

function writeServerConfig(dir, pageOrigin, extra = []) {
  writeFileSync(join(dir, "server.yaml"), [
    "listen: {address: 127.0.0.1, port: 0}",
    "admin: {address: 127.0.0.1, port: 0}",
    `websocket: {enabled: true, port: 0, allowed_origins: ["${pageOrigin}"]}`,
    `world: ${WORLD}`,
    `storage: {backend: sqlite, path: ${join(dir, "characters.db")}}`,
    "io_threads: 2",
    "log_level: info",
    ...extra,
    "limits:",
    "  idle_timeout_seconds: 60",
    "  max_connections_per_ip: 100",
    "",
  ].join("\n"));
}

async function startServer(pageOrigin) {
  serverDir = mkdtempSync(join(tmpdir(), "zs-play-server-"));
  serverLogPath = join(serverDir, "server.log");
  writeServerConfig(serverDir, pageOrigin);
  return launchServer([]);
}

let serverChild;
let serverPorts;

/** Starts zone_server on the config in serverDir (extra args: the same ports again after a kill). */
async function launchServer(extraArgs) {
  const log = openSync(serverLogPath, "a");
  const portFile = join(serverDir, "ports");
  rmSync(portFile, { force: true });
  const child = spawn(SERVER_BIN, ["--config", join(serverDir, "server.yaml"), "--port-file", portFile, ...extraArgs], { stdio: ["ignore", log, log] });
  closeSync(log);
  children.push(child);
  serverChild = child;
  let exited = false;
  child.on("exit", () => (exited = true));
  const ports = await until("the server's port file", () => {
    if (exited) throw new Error(`zone_server exited at start:\n${serverLog()}`);
    if (!existsSync(portFile)) return null;
    const nums = readFileSync(portFile, "utf8").trim().split(/\s+/).map(Number);
    return nums.length >= 3 && nums.every((n) => n > 0) ? nums : null;
  }, 20000);
  serverPorts = { game: ports[0], admin: ports[1], ws: ports[2] };
  return serverPorts;
}

function serverLog() {
  try {
    return readFileSync(serverLogPath, "utf8").split("\n").slice(-30).join("\n");
  } catch {
    return "";
  }
}

/** A page's game state (window.__play) as plain data. */
function play(name) {
  return pages[name].page.evaluate(() => {
    const p = window.__play;
    if (!p) return null;
    return {
      state: p.state, zone: p.zone, selfId: p.selfId, name: p.name, self: p.self, entities: p.entities,
      hits: p.hits, chat: p.chat, states: p.states, errors: p.errors, banner: p.banner, frames: p.frames, fps: p.fps, moveTarget: p.moveTarget,
      log: p.log.slice(-15), pageErrors: window.__playErrors,
    };
  });
}

async function diag(name) {
  try {
    const p = await play(name);
    if (!p) return `${name}: no game`;
    return `${name}: state ${p.state}, zone ${p.zone}, self ${JSON.stringify(p.self)}, ${p.entities.length} entities, banner ${p.banner}\n  log: ${p.log.join("\n  ")}`;
  } catch (e) {
    return `${name}: ${e.message}`;
  }
}

/** Waits for cond(state of page `name`); on a timeout the error says both pages' state and the server's log. */
async function waitPlay(name, what, cond, timeoutMs = 15000) {
  try {
    return await until(`${name}: ${what}`, async () => {
      const p = await play(name);
      return p && cond(p) ? p : null;
    }, timeoutMs);
  } catch (e) {
    e.message += `\n${await diag("A")}\n${await diag("B")}\nserver log:\n${serverLog()}`;
    throw e;
  }
}

const other = (p, name) => p.entities.find((e) => e.kind === "player" && e.name === name);
const dist = (a, b) => Math.hypot(a.x - b.x, a.y - b.y);
// Drawn where the server has it (the prediction's correction decays exponentially: within 2 cm).
const standing = (p) => Math.hypot(p.self.x - p.self.serverX, p.self.y - p.self.serverY) < 2;

async function openPage(name) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 720 } });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.stack ?? e.message}`));
  page.on("console", (m) => {
    // The browser logs each refused dial while the server is down: expected, not the page's error.
    if (m.type() === "error" && !/^WebSocket connection to .* failed/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  pages[name] = { page, errors };
  await page.goto(`${origin}/?server=${encodeURIComponent(wsUrl)}`);
  await page.fill("#name", name);
  await page.click("#play");
  return page;
}

before(async () => {
  mustExist(CHROMIUM, "Chromium", "install Debian's chromium (apt-get install chromium) or set ZS_CHROMIUM");
  mustExist(SERVER_BIN, "zone_server", "build it (scripts/build.sh test) or set ZS_SERVER_BIN");
  assert.ok(existsSync(join(pkg, "dist/play.js")), "dist/play.js is missing: npm test builds it (node build.mjs)");
  const serve = startChild(process.execPath, [join(pkg, "serve.mjs"), "--host", "127.0.0.1", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] }, /(http:\/\/127\.0\.0\.1:\d+)\//, "serve.mjs");
  origin = (await serve.ready)[1];
  const ports = await startServer(origin);
  wsUrl = `ws://127.0.0.1:${ports.ws}/`;
  step(`page at ${origin}/, zone_server's WebSocket door at ${wsUrl}`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
});

after(async () => {
  await browser?.close().catch(() => {});
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  if (serverDir) rmSync(serverDir, { recursive: true, force: true });
});

test("two pages log in and see each other", async () => {
  await openPage("A");
  await openPage("B");
  for (const n of ["A", "B"]) await waitPlay(n, "in the world in the plaza", (p) => p.state === "in_world" && p.zone === "plaza" && p.self !== null && p.frames > 0);
  step("both in the world");
  await waitPlay("A", "sees B", (p) => other(p, "B") !== undefined);
  await waitPlay("B", "sees A", (p) => other(p, "A") !== undefined);
  const a = await play("A");
  assert.ok(a.entities.some((e) => e.kind === "monster"), "A sees the plaza's dummies too");
  step(`A and B see each other (A knows ${a.entities.length} entities)`);
});

test("A walks to B by clicking and hits B; both pages show it", async () => {
  const A = pages.A.page;
  const B = pages.B.page;
  // B steps 6 m east with a held key, so that A has somewhere to walk.
  const b0 = (await play("B")).self;
  step("B walks 6 m east (key D held)");
  await B.keyboard.down("d");
  await waitPlay("B", "walked 6 m east", (p) => p.self.x > b0.x + 600);
  await B.keyboard.up("d");
  await waitPlay("B", "stopped", (p) => standing(p), 5000);
  // A clicks 1.2 m west of where it sees B: click-to-move walks there and stops.
  const seen = await waitPlay("A", "sees B where B stopped", (p) => {
    const b = other(p, "B");
    return b && Math.abs(b.x - (b0.x + 600)) < 2000;
  });
  const bAtA = other(seen, "B");
  step("A clicks 1.2 m west of B");
  const spot = await A.evaluate(([x, y]) => window.__play.toScreen(x, y), [bAtA.x - 120, bAtA.y]);
  await A.mouse.click(spot.x, spot.y);
  const arrived = await waitPlay("A", "walked to the clicked point and stopped", (p) => p.moveTarget === null && standing(p));
  const missed = Math.hypot(arrived.self.x - (bAtA.x - 120), arrived.self.y - bAtA.y);
  assert.ok(missed <= 150, `A stopped ${missed.toFixed(0)} cm from the point clicked (at most half a tick's step of 2 m at this world's 40 m/s, plus 50 cm)`);
  assert.ok(dist(arrived.self, other(arrived, "B")) < 250, "A is next to B");
  step(`A walked next to B by clicking (stopped ${missed.toFixed(0)} cm from the point)`);
  // Swing the sword (key 1) at B, aiming with the mouse; again if the first one missed.
  const bId = other(await play("A"), "B").id;
  const aId = (await play("A")).selfId;
  let hitAtA;
  const tried = [];
  for (let attempt = 0; attempt < 6 && !hitAtA; attempt++) {
    const pa = await play("A");
    const mine = pa.hits.filter((h) => h.attacker === aId).length;
    const b = other(pa, "B");
    const at = await A.evaluate(([x, y]) => window.__play.toScreen(x, y), [b.x, b.y]);
    await A.mouse.move(at.x, at.y);
    await A.keyboard.press("1");
    const after = await waitPlay("A", "its swing's HitEvent", (p) => p.hits.filter((h) => h.attacker === aId).length > mine, 5000).catch(() => null);
    const h = after?.hits.filter((x) => x.attacker === aId).at(-1);
    tried.push({ self: pa.self, b,  bSelf: (await play("B")).self, hit: h && { targets: h.targets, originX: h.originX, facing: h.facing } });
    if (h && h.targets.some((t) => t.id === bId)) hitAtA = h;
  }
  if (!hitAtA) console.log(JSON.stringify(tried));
  assert.ok(hitAtA, "A's page registered a HitEvent of A's on B");
  assert.equal(hitAtA.skillName, "sword_swing");
  const victim = await waitPlay("B", "the hit on B and B's hp down", (p) =>
    p.hits.some((h) => h.attacker === aId && h.targets.some((t) => t.id === p.selfId && t.damage > 0)) && p.self.hp < p.self.maxHp);
  step(`A hit B: B's hp ${victim.self.hp}/${victim.self.maxHp}`);
  await waitPlay("A", "B's hp down as A sees it", (p) => {
    const b = other(p, "B");
    return b && b.hp < b.maxHp;
  }, 5000);
  // The other three, each a shape of its own (thrust: a line; fireball: a ground circle at the
  // pointer; whirlwind: a circle around A), all aimed at B: 18 + 15 + 20 more, B lives (35 left).
  const before = (await play("A")).hits.length;
  const b = other(await play("A"), "B");
  const at = await A.evaluate(([x, y]) => window.__play.toScreen(x, y), [b.x, b.y]);
  await A.mouse.move(at.x, at.y);
  for (const key of ["3", "4", "2"]) await A.keyboard.press(key);
  const all = await waitPlay("A", "thrust, fireball and whirlwind hitting B", (p) => {
    const names = p.hits.slice(before).filter((h) => h.attacker === aId && h.targets.some((t) => t.id === bId)).map((h) => h.skillName);
    return ["thrust", "fireball", "whirlwind"].every((n) => names.includes(n));
  }, 8000);
  const fireball = all.hits.slice(before).find((h) => h.skillName === "fireball");
  assert.ok(dist({ x: fireball.originX, y: fireball.originY }, b) < 100, "the fireball landed at the pointer (on B)");
  await A.screenshot({ path: join(ARTIFACTS, "play.png") });
  step(`thrust, fireball, whirlwind hit B; screenshot: ${join(ARTIFACTS, "play.png")}`);
  await waitPlay("B", "hp 35 left", (p) => p.self.hp === 35, 5000);
});

test("A finishes B: dead on both pages, then B respawns", async () => {
  const A = pages.A.page;
  const bId = other(await play("A"), "B").id;
  await until("B dead", async () => {
    const pa = await play("A");
    const b = other(pa, "B");
    if (!b || !b.alive) return true;
    const at = await A.evaluate(([x, y]) => window.__play.toScreen(x, y), [b.x, b.y]);
    await A.mouse.move(at.x, at.y);
    await A.keyboard.press("1"); // pressed again while cooling down: refused by the SDK, silently
    return false;
  }, 15000);
  await waitPlay("A", "B drawn dead, a kill in the hits", (p) => other(p, "B")?.alive === false && p.hits.some((h) => h.targets.some((t) => t.id === bId && t.killed)));
  const dead = await waitPlay("B", "dead on its own page", (p) => !p.self.alive && p.self.hp === 0);
  assert.ok(dead.log.some((l) => l.includes("you were killed by A")), "B's log says who killed it");
  await pages.A.page.screenshot({ path: join(ARTIFACTS, "play-dead.png") });
  step("B is dead");
  await waitPlay("B", "respawned with full hp", (p) => p.self.alive && p.self.hp === p.self.maxHp && p.log.some((l) => l.includes("you respawned")), 15000);
  await waitPlay("A", "B alive again", (p) => other(p, "B")?.alive === true, 10000);
  step("B respawned");
});

test("chat: say and whisper reach the other page", async () => {
  const A = pages.A.page;
  await A.keyboard.press("Enter");
  await A.keyboard.type("hello from A");
  await A.keyboard.press("Enter");
  await waitPlay("B", "A's say", (p) => p.chat.some((c) => c.fromName === "A" && c.text === "hello from A"));
  await A.keyboard.press("Enter");
  await A.keyboard.type("/w B psst");
  await A.keyboard.press("Enter");
  await waitPlay("B", "A's whisper", (p) => p.chat.some((c) => c.fromName === "A" && c.text === "psst" && c.to === "B"));
  step("say and whisper");
});

test("B walks east through the portal into the yard, no reconnect", async () => {
  const B = pages.B.page;
  const before = (await play("B")).states.length;
  await B.keyboard.down("ArrowRight");
  const p = await waitPlay("B", "in the yard", (s) => s.zone === "yard", 30000);
  await B.keyboard.up("ArrowRight");
  step(`B is in the ${p.zone} at ${(p.self.x / 100).toFixed(1)}, ${(p.self.y / 100).toFixed(1)} m`);
  const after = await waitPlay("B", "in the world in the yard, standing", (s) => s.state === "in_world" && s.zone === "yard" && standing(s), 10000);
  const seen = after.states.slice(before);
  assert.deepEqual(seen.filter((s) => s.to !== "in_world"), [], `no state change but in_world after the login: ${JSON.stringify(seen)}`);
  assert.ok(after.states.every((s) => s.to !== "reconnecting"), "never reconnecting");
  assert.equal(after.banner, null, "no banner");
  await waitPlay("A", "B gone from the plaza", (s) => other(s, "B") === undefined, 10000);
  await B.screenshot({ path: join(ARTIFACTS, "play-yard.png") });
  // The whisper crosses zones.
  const A = pages.A.page;
  await A.keyboard.press("Enter");
  await A.keyboard.type("/w B are you there");
  await A.keyboard.press("Enter");
  await waitPlay("B", "a whisper from the plaza", (s) => s.chat.some((c) => c.text === "are you there"));
  await A.keyboard.press("Enter");
  await A.keyboard.type("/w Nobody hi");
  await A.keyboard.press("Enter");
  await waitPlay("A", "a whisper to nobody refused in the log", (p) => p.log.some((l) => l.includes('no player named "Nobody"')));
  step("a whisper from the plaza reached the yard; one to nobody was refused");
});

test("the server dies: a reconnecting banner; it comes back on the same ports: back in the world", async () => {
  const { game, admin, ws } = serverPorts;
  const exited = new Promise((r) => serverChild.once("exit", r));
  serverChild.kill("SIGKILL");
  await exited;
  step("server killed");
  for (const n of ["A", "B"]) await waitPlay(n, "the reconnecting banner", (p) => p.state === "reconnecting" && /^Reconnecting/.test(p.banner ?? ""), 10000);
  await pages.A.page.screenshot({ path: join(ARTIFACTS, "play-reconnecting.png") });
  await launchServer(["--port", String(game), "--ws-port", String(ws), "--admin-port", String(admin)]);
  step("server restarted on the same ports");
  for (const n of ["A", "B"]) {
    const p = await waitPlay(n, "back in the world, no banner", (s) => s.state === "in_world" && s.banner === null && s.self !== null, 20000);
    assert.ok(p.states.some((x) => x.to === "reconnecting"), "it went through reconnecting");
  }
  step("both pages back in the world");
});

test("a name the server refuses is said on the login form", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/?server=${encodeURIComponent(wsUrl)}`);
  await page.fill("#name", "two  spaces");
  await page.click("#play");
  await page.waitForFunction(() => !document.getElementById("login").hidden && /not allowed/.test(document.getElementById("login-error").textContent ?? ""), null, { timeout: 15000 });
  step(`refused name: ${await page.textContent("#login-error")}`);
  await context.close();
});

test("no server at the URL: the banner says reconnecting and what to check", async () => {
  const port = await new Promise((r) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const p = srv.address().port;
      srv.close(() => r(p));
    });
  });
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/?server=${encodeURIComponent(`ws://127.0.0.1:${port}/`)}`);
  await page.fill("#name", "Nobody");
  await page.click("#play");
  await page.waitForFunction(() => /Reconnecting.*allowed_origins/.test(window.__play?.banner ?? ""), null, { timeout: 15000 });
  step(`banner: ${await page.evaluate(() => window.__play.banner)}`);
  await context.close();
});

/** A login token as a studio's login service mints it (docs/accounts.md; clients/typescript/test/support/server.ts). */
function mintToken(secret, account, name, ttlSeconds = 300) {
  const expiry = Math.floor(Date.now() / 1000) + ttlSeconds;
  const nonce = randomBytes(12).toString("base64url");
  const signed = "zs1." + Buffer.from(`${account}\n${expiry}\n${nonce}\n${name}`, "utf8").toString("base64url");
  return signed + "." + createHmac("sha256", secret).update(signed, "ascii").digest("base64url");
}

test("a server in token mode: the token field logs in; a refused token is said on the form", async () => {
  const dir = mkdtempSync(join(tmpdir(), "zs-play-token-"));
  try {
    const secret = randomBytes(48);
    writeFileSync(join(dir, "secret"), secret);
    writeServerConfig(dir, origin, [`auth: {mode: token, secret_file: ${join(dir, "secret")}}`]);
    const portFile = join(dir, "ports");
    const log = openSync(join(dir, "server.log"), "a");
    const child = spawn(SERVER_BIN, ["--config", join(dir, "server.yaml"), "--port-file", portFile], { stdio: ["ignore", log, log] });
    closeSync(log);
    children.push(child);
    const ports = await until("the token server's port file", () => {
      if (child.exitCode !== null) throw new Error(`zone_server (token mode) exited: ${readFileSync(join(dir, "server.log"), "utf8")}`);
      const nums = existsSync(portFile) ? readFileSync(portFile, "utf8").trim().split(/\s+/).map(Number) : [];
      return nums.length >= 3 && nums.every((n) => n > 0) ? nums : null;
    }, 20000);
    const context = await browser.newContext({ viewport: { width: 900, height: 600 } });
    const page = await context.newPage();
    await page.goto(`${origin}/?server=${encodeURIComponent(`ws://127.0.0.1:${ports[2]}/`)}`);
    // A forged token: AUTH_FAILED, final: back on the form, saying so.
    await page.fill("#token", mintToken(randomBytes(48), 7, "Tok"));
    await page.click("#play");
    await page.waitForFunction(() => !document.getElementById("login").hidden && /AUTH_FAILED/.test(document.getElementById("login-error").textContent ?? ""), null, { timeout: 15000 });
    // A good one: in the world as the token's character, whatever the name field says.
    await page.fill("#name", "Ignored");
    await page.fill("#token", mintToken(secret, 7, "Tok"));
    await page.click("#play");
    await page.waitForFunction(() => window.__play?.state === "in_world" && window.__play?.name === "Tok", null, { timeout: 15000 });
    step("token mode: a forged token refused on the form, a good one logged in as Tok");
    await context.close();
    child.kill("SIGKILL");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("no uncaught errors on either page", async () => {
  for (const n of ["A", "B"]) {
    const p = await play(n);
    assert.deepEqual([...pages[n].errors, ...p.pageErrors], [], `${n}'s page errors`);
    assert.ok(p.frames > 30, `${n} drew ${p.frames} frames`);
  }
  console.log(`screenshots: ${["play.png", "play-dead.png", "play-yard.png", "play-reconnecting.png"].map((f) => join(ARTIFACTS, f)).join(" ")}`);
});

mkdirSync(ARTIFACTS, { recursive: true });
// Whatever ends this process (a failure, Ctrl-C, a closed pipe), the children it started go too.
const killChildren = () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  if (serverDir) rmSync(serverDir, { recursive: true, force: true });
};
process.on("exit", killChildren);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE"]) {
  process.on(sig, () => {
    killChildren();
    process.exit(130);
  });
}
