// The zone viewer's page: decodes the server's frames (server/admin/viewer_frame.h has the
// binary layout; keep the two in step) and draws them on a canvas.
//
// World coordinates are metres with y up and angles counter-clockwise from +x (the protocol's
// convention); the canvas has y down, so y and angles are flipped when drawn.
'use strict';

const FRAME_TYPE = 1;
const FRAME_VERSION = 1;
const BACKGROUND = '#101418';
const COLOURS = { player: '#4fc3f7', monster: '#ff8a65', dead: '#6b7178', known: '#ffd54f' };
const SHAPES = ['arc', 'circle', 'line'];
const SWING_MS = 700;  // how long a swing stays on screen
const FLASH_MS = 400;  // how long a hit entity flashes
const HEAT_CELLS = 48;

// Uncaught errors, counted for the browser test (tests/integration/viewer_browser_test.cc).
window.viewerErrors = 0;
window.addEventListener('error', () => { window.viewerErrors++; });

const $ = (id) => document.getElementById(id);
const canvas = $('canvas');
const ctx = canvas.getContext('2d', { willReadFrequently: true });
const params = new URLSearchParams(location.search);

const state = {
  ws: null,
  zones: [],
  zoneId: params.has('zone') ? Number(params.get('zone')) : null,
  // ?select=<id> follows an entity from the start; ?select=auto the first living player seen.
  selected: params.has('select') && params.get('select') !== 'auto' ? Number(params.get('select')) : 0,
  autoSelect: params.get('select') === 'auto',
  paused: false,
  frame: null,         // the last decoded frame
  byId: new Map(),     // id -> entity of the last frame
  swings: [],          // {swing, until}
  flashes: new Map(),  // id -> until
  swingsSeen: 0,
  frames: 0,
  lastBytes: null,     // {bytes, time} for KB/s out
  view: { scale: 1, x: 0, y: 0 },  // screen = (world - (x, y)) * scale, y flipped
  fitted: false,
  drag: null,
  lastPaintCount: 0,
};

// ---- the connection ----

function connect() {
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const token = params.get('token');
  const url = `${proto}://${location.host}/viewer/ws` +
      (token ? `?token=${encodeURIComponent(token)}` : '');
  const ws = new WebSocket(url);
  ws.binaryType = 'arraybuffer';
  state.ws = ws;
  setStatus('connecting');
  ws.onmessage = (e) => (typeof e.data === 'string' ? onHello(e.data) : onFrame(e.data));
  ws.onclose = (e) => {
    setStatus(`closed ${e.code}${e.reason ? ': ' + e.reason : ''}; retrying`, true);
    setTimeout(connect, 2000);
  };
}

function send(text) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(text);
}

function setStatus(text, bad = false) {
  $('status').textContent = text;
  $('status').classList.toggle('bad', bad);
}

function onHello(text) {
  const hello = JSON.parse(text);
  if (hello.type !== 'hello') return;
  state.zones = hello.zones;
  const select = $('zone');
  select.replaceChildren(...hello.zones.map((z) => new Option(`${z.name} (${z.id})`, z.id)));
  if (state.zoneId === null || !hello.zones.some((z) => z.id === state.zoneId)) {
    state.zoneId = hello.zones.length ? hello.zones[0].id : 0;
  }
  select.value = String(state.zoneId);
  send(`zone ${state.zoneId}`);
  if (state.selected) send(`select ${state.selected}`);
  if (state.paused) send('pause');
  setStatus(`connected, ${hello.frame_hz} frames/s at most`);
}

// ---- decoding (viewer_frame.h) ----

function decode(buffer) {
  const d = new DataView(buffer);
  let o = 0;
  const u8 = () => d.getUint8(o++);
  const u16 = () => { const v = d.getUint16(o, true); o += 2; return v; };
  const u32 = () => { const v = d.getUint32(o, true); o += 4; return v; };
  const i32 = () => { const v = d.getInt32(o, true); o += 4; return v; };
  const f32 = () => { const v = d.getFloat32(o, true); o += 4; return v; };
  const f64 = () => { const v = d.getFloat64(o, true); o += 8; return v; };
  if (u8() !== FRAME_TYPE || u8() !== FRAME_VERSION) return null;
  const f = { tickRate: u16(), zone: u32(), tick: u32() };
  f.bounds = { minX: f32(), minY: f32(), maxX: f32(), maxY: f32() };
  f.tickMs = f32();
  f.connections = u32();
  f.bytesOut = f64();
  const counts = { entities: u32(), nodes: u32(), swings: u32(), hits: u32(), selections: u32() };
  f.entities = [];
  for (let i = 0; i < counts.entities; i++) {
    const e = { id: u32(), x: f32(), y: f32(), r: f32(), hp: i32(), maxHp: i32() };
    e.kind = u8() === 0 ? 'player' : 'monster';
    const flags = u8();
    e.alive = (flags & 1) !== 0;
    e.ghost = (flags & 2) !== 0;  // real in a neighbouring cell, on another node
    u16();
    f.entities.push(e);
  }
  f.nodes = [];
  for (let i = 0; i < counts.nodes; i++) {
    const n = { minX: f32(), minY: f32(), maxX: f32(), maxY: f32(), depth: u16() };
    n.leaf = (u16() & 1) !== 0;
    n.count = u32();
    f.nodes.push(n);
  }
  f.swings = [];
  for (let i = 0; i < counts.swings; i++) {
    const s = { attacker: u32(), shape: SHAPES[u8()] || 'arc' };
    u8();
    s.age = u16();
    Object.assign(s, { x: f32(), y: f32(), facing: f32(), range: f32(), halfAngle: f32(),
                       radius: f32(), width: f32(), firstHit: u32(), numHits: u32() });
    f.swings.push(s);
  }
  f.hits = [];
  for (let i = 0; i < counts.hits; i++) {
    f.hits.push({ target: u32(), damage: i32(), killed: u8() !== 0 });
    u8(); u16();
  }
  f.selections = [];
  for (let i = 0; i < counts.selections; i++) {
    const s = { entity: u32(), viewRadius: f32(), bytesPerS: f32() };
    const known = u32();
    s.known = new Set();
    for (let k = 0; k < known; k++) s.known.add(u32());
    f.selections.push(s);
  }
  return f;
}

function onFrame(buffer) {
  const f = decode(buffer);
  if (!f || f.zone !== state.zoneId) return;
  const now = performance.now();
  const tickMs = 1000 / Math.max(1, f.tickRate);
  for (const s of f.swings) {
    state.swings.push({ swing: s, until: now + SWING_MS - s.age * tickMs });
    for (let h = s.firstHit; h < s.firstHit + s.numHits && h < f.hits.length; h++) {
      state.flashes.set(f.hits[h].target, now + FLASH_MS);
    }
  }
  state.swingsSeen += f.swings.length;
  state.frames++;
  if (state.lastBytes) {
    const dt = (now - state.lastBytes.time) / 1000;
    if (dt > 0.5) {
      $('kbps').textContent = ((f.bytesOut - state.lastBytes.bytes) / 1024 / dt).toFixed(1);
      state.lastBytes = { bytes: f.bytesOut, time: now };
    }
  } else {
    state.lastBytes = { bytes: f.bytesOut, time: now };
  }
  state.frame = f;
  state.byId = new Map(f.entities.map((e) => [e.id, e]));
  if (!state.fitted) fit(params.get('fit') === 'entities');
  if (state.autoSelect) {
    const first = f.entities.find((e) => e.kind === 'player' && e.alive);
    if (first) {
      state.autoSelect = false;
      select(first.id);
    }
  }
  updatePanel(f, buffer.byteLength);
  draw();
}

// ---- the panel ----

function updatePanel(f, bytes) {
  const players = f.entities.filter((e) => e.kind === 'player').length;
  $('tick').textContent = f.tick;
  $('tick-ms').textContent = f.tickMs.toFixed(2);
  $('entities').textContent = f.entities.length;
  $('kinds').textContent = `${players} / ${f.entities.length - players}`;
  $('nodes').textContent = f.nodes.length;
  $('connections').textContent = f.connections;
  $('frames').textContent = state.frames;
  $('frame-kb').textContent = (bytes / 1024).toFixed(1);
  $('swings').textContent = state.swingsSeen;
  updateSelection(f);
}

function updateSelection(f) {
  const e = state.selected ? state.byId.get(state.selected) : null;
  $('selected-none').hidden = !!e;
  $('selected-info').hidden = !e;
  if (!e) return;
  const sel = f.selections.find((s) => s.entity === e.id);
  $('sel-id').textContent = e.id;
  $('sel-kind').textContent =
    e.kind + (e.alive ? '' : ' (dead)') + (e.ghost ? ' (ghost: real on the neighbouring node)' : '');
  $('sel-hp').textContent = `${e.hp} / ${e.maxHp}`;
  $('sel-pos').textContent = `${e.x.toFixed(1)}, ${e.y.toFixed(1)}`;
  for (const row of document.querySelectorAll('.player-only')) row.hidden = e.kind !== 'player';
  $('sel-view').textContent = sel ? `${sel.viewRadius} m` : '-';
  $('sel-known').textContent = sel ? `${sel.known.size} entities` : '-';
  $('sel-bps').textContent = sel ? Math.round(sel.bytesPerS) : '-';
}

// ---- the view: pan and zoom ----

function resize() {
  const r = canvas.getBoundingClientRect();
  canvas.width = Math.max(1, Math.floor(r.width));
  canvas.height = Math.max(1, Math.floor(r.height));
  draw();
}

// The box around every entity, with a margin (?fit=entities: start on the action).
function entityBounds(f) {
  if (!f.entities.length) return f.bounds;
  const b = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  for (const e of f.entities) {
    b.minX = Math.min(b.minX, e.x); b.maxX = Math.max(b.maxX, e.x);
    b.minY = Math.min(b.minY, e.y); b.maxY = Math.max(b.maxY, e.y);
  }
  const margin = Math.max(10, 0.1 * Math.max(b.maxX - b.minX, b.maxY - b.minY));
  return { minX: b.minX - margin, minY: b.minY - margin, maxX: b.maxX + margin,
           maxY: b.maxY + margin };
}

function fit(toEntities = false) {
  const b = state.frame ? (toEntities ? entityBounds(state.frame) : state.frame.bounds)
                        : zoneBounds();
  if (!b) return;
  const w = b.maxX - b.minX, h = b.maxY - b.minY;
  const scale = 0.95 * Math.min(canvas.width / w, canvas.height / h);
  state.view.scale = scale;
  state.view.x = b.minX - (canvas.width / scale - w) / 2;
  state.view.y = b.maxY + (canvas.height / scale - h) / 2;
  state.fitted = true;
  draw();
}

function zoneBounds() {
  const z = state.zones.find((zz) => zz.id === state.zoneId);
  return z ? { minX: z.bounds[0], minY: z.bounds[1], maxX: z.bounds[2], maxY: z.bounds[3] } : null;
}

const sx = (x) => (x - state.view.x) * state.view.scale;
const sy = (y) => (state.view.y - y) * state.view.scale;
const wx = (px) => px / state.view.scale + state.view.x;
const wy = (py) => state.view.y - py / state.view.scale;

function zoomAt(px, py, factor) {
  const x = wx(px), y = wy(py);
  state.view.scale = Math.min(2000, Math.max(0.01, state.view.scale * factor));
  state.view.x = x - px / state.view.scale;
  state.view.y = y + py / state.view.scale;
  draw();
}

function pick(px, py) {
  if (!state.frame) return 0;
  const x = wx(px), y = wy(py);
  let best = 0, bestD = Infinity;
  for (const e of state.frame.entities) {
    const d = Math.hypot(e.x - x, e.y - y);
    const reach = Math.max(e.r, 6 / state.view.scale);
    if (d <= reach && d < bestD) { best = e.id; bestD = d; }
  }
  return best;
}

// ---- drawing ----

function draw() {
  ctx.fillStyle = BACKGROUND;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const f = state.frame;
  if (!f) return;
  drawBounds(f.bounds);
  drawNodes(f.nodes);
  drawCells(f.bounds);
  if ($('heat').checked) drawHeat(f);
  const sel = f.selections.find((s) => s.entity === state.selected);
  drawSelection(sel);
  drawEntities(f, sel);
  drawSwings();
}

function drawBounds(b) {
  ctx.fillStyle = '#151b21';
  ctx.fillRect(sx(b.minX), sy(b.maxY), (b.maxX - b.minX) * state.view.scale,
               (b.maxY - b.minY) * state.view.scale);
  ctx.strokeStyle = '#5c6b7a';
  ctx.lineWidth = 2;
  ctx.strokeRect(sx(b.minX), sy(b.maxY), (b.maxX - b.minX) * state.view.scale,
                 (b.maxY - b.minY) * state.view.scale);
}

// A split zone (docs/seamless.md): each cell's border, its node's name, and the cells simulated
// by other nodes shaded (what this node shows there are ghosts).
function drawCells(b) {
  const z = state.zones.find((zz) => zz.id === state.zoneId);
  const cells = z && z.cells;
  if (!cells) return;
  const w = (b.maxX - b.minX) / cells.columns, h = (b.maxY - b.minY) / cells.rows;
  ctx.font = '12px sans-serif';
  for (let row = 0; row < cells.rows; ++row) {
    for (let col = 0; col < cells.columns; ++col) {
      const index = row * cells.columns + col;
      const x0 = b.minX + col * w, y1 = b.minY + (row + 1) * h;
      const px = sx(x0), py = sy(y1), pw = w * state.view.scale, ph = h * state.view.scale;
      const own = cells.own === index;
      if (cells.own !== undefined && !own) {
        ctx.fillStyle = 'rgba(0, 0, 0, 0.25)';
        ctx.fillRect(px, py, pw, ph);
      }
      ctx.strokeStyle = '#d9a441';
      ctx.lineWidth = 1.5;
      ctx.setLineDash([8, 4]);
      ctx.strokeRect(px, py, pw, ph);
      ctx.setLineDash([]);
      ctx.fillStyle = '#d9a441';
      ctx.fillText(`cell ${index}: ${cells.nodes[index]}${own ? ' (this node)' : ''}`, px + 6,
                   py + 16);
    }
  }
}

function drawNodes(nodes) {
  const mode = $('shade').value;
  if (mode === 'off') return;
  let maxCount = 1, maxDepth = 1;
  for (const n of nodes) {
    if (n.leaf) maxCount = Math.max(maxCount, n.count);
    maxDepth = Math.max(maxDepth, n.depth);
  }
  ctx.lineWidth = 1;
  for (const n of nodes) {
    const x = sx(n.minX), y = sy(n.maxY);
    const w = (n.maxX - n.minX) * state.view.scale, h = (n.maxY - n.minY) * state.view.scale;
    if (n.leaf && mode !== 'none') {
      const t = mode === 'depth' ? n.depth / maxDepth : n.count / maxCount;
      ctx.fillStyle = mode === 'depth' ? `hsla(${210 - 170 * t}, 60%, 45%, ${0.08 + 0.22 * t})`
                                       : `hsla(130, 55%, 45%, ${0.04 + 0.4 * t})`;
      ctx.fillRect(x, y, w, h);
    }
    ctx.strokeStyle = `rgba(140, 170, 200, ${0.15 + 0.35 / (1 + n.depth)})`;
    ctx.strokeRect(x, y, w, h);
  }
}

function drawHeat(f) {
  const b = f.bounds;
  const cw = (b.maxX - b.minX) / HEAT_CELLS, ch = (b.maxY - b.minY) / HEAT_CELLS;
  const grid = new Uint32Array(HEAT_CELLS * HEAT_CELLS);
  let max = 1;
  for (const e of f.entities) {
    const cx = Math.min(HEAT_CELLS - 1, Math.max(0, Math.floor((e.x - b.minX) / cw)));
    const cy = Math.min(HEAT_CELLS - 1, Math.max(0, Math.floor((e.y - b.minY) / ch)));
    max = Math.max(max, ++grid[cy * HEAT_CELLS + cx]);
  }
  for (let cy = 0; cy < HEAT_CELLS; cy++) {
    for (let cx = 0; cx < HEAT_CELLS; cx++) {
      const n = grid[cy * HEAT_CELLS + cx];
      if (!n) continue;
      const t = Math.sqrt(n / max);
      ctx.fillStyle = `hsla(${60 - 60 * t}, 100%, 50%, ${0.15 + 0.5 * t})`;
      const x0 = b.minX + cx * cw, y1 = b.minY + (cy + 1) * ch;
      ctx.fillRect(sx(x0), sy(y1), cw * state.view.scale + 1, ch * state.view.scale + 1);
    }
  }
}

function drawSelection(sel) {
  const e = state.selected ? state.byId.get(state.selected) : null;
  if (!e || !sel || sel.viewRadius <= 0) return;
  ctx.beginPath();
  ctx.arc(sx(e.x), sy(e.y), sel.viewRadius * state.view.scale, 0, 2 * Math.PI);
  ctx.fillStyle = 'rgba(255, 213, 79, 0.06)';
  ctx.fill();
  ctx.strokeStyle = 'rgba(255, 213, 79, 0.7)';
  ctx.setLineDash([6, 4]);
  ctx.stroke();
  ctx.setLineDash([]);
}

function drawEntities(f, sel) {
  const now = performance.now();
  const known = sel ? sel.known : null;
  const zoomed = state.view.scale >= 4;  // hitboxes show once a metre is 4 px or more
  for (const e of f.entities) {
    const x = sx(e.x), y = sy(e.y);
    if (x < -20 || y < -20 || x > canvas.width + 20 || y > canvas.height + 20) continue;
    const colour = e.alive ? COLOURS[e.kind] : COLOURS.dead;
    const r = Math.max(2, e.r * state.view.scale);
    ctx.fillStyle = colour;
    ctx.beginPath();
    ctx.arc(x, y, zoomed ? r : 2.2, 0, 2 * Math.PI);
    if (e.ghost) {  // another node's: an outline only, dashed
      ctx.strokeStyle = colour;
      ctx.lineWidth = 1;
      ctx.setLineDash([2, 2]);
      ctx.stroke();
      ctx.setLineDash([]);
    } else if (zoomed) {
      ctx.globalAlpha = 0.35;
      ctx.fill();
      ctx.globalAlpha = 1;
      ctx.strokeStyle = colour;
      ctx.lineWidth = 1;
      ctx.stroke();
    } else {
      ctx.fill();
    }
    const flash = state.flashes.get(e.id);
    if (flash && flash > now) ring(x, y, r + 3, `rgba(255, 255, 255, ${(flash - now) / FLASH_MS})`, 2);
    if (known && known.has(e.id)) ring(x, y, r + 2, COLOURS.known, 1.5);
    if (e.id === state.selected) ring(x, y, r + 5, '#ffffff', 2);
  }
}

function ring(x, y, r, colour, width) {
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.stroke();
}

function drawSwings() {
  const now = performance.now();
  state.swings = state.swings.filter((s) => s.until > now);
  for (const { swing: s, until } of state.swings) {
    const alpha = Math.min(1, (until - now) / SWING_MS);
    ctx.fillStyle = `rgba(255, 82, 82, ${0.3 * alpha})`;
    ctx.strokeStyle = `rgba(255, 120, 120, ${0.9 * alpha})`;
    ctx.lineWidth = 1.5;
    const x = sx(s.x), y = sy(s.y), k = state.view.scale;
    ctx.beginPath();
    if (s.shape === 'arc') {
      ctx.moveTo(x, y);
      ctx.arc(x, y, s.range * k, -s.facing - s.halfAngle, -s.facing + s.halfAngle);
      ctx.closePath();
    } else if (s.shape === 'circle') {
      ctx.arc(x, y, Math.max(1, s.radius * k), 0, 2 * Math.PI);
    } else {
      drawCapsule(x, y, s.facing, s.range * k, (s.width / 2) * k);
    }
    ctx.fill();
    ctx.stroke();
  }
}

// A line skill: a capsule from (x, y) along `facing` (canvas angles are flipped).
function drawCapsule(x, y, facing, length, half) {
  const a = -facing;
  const ex = x + Math.cos(a) * length, ey = y + Math.sin(a) * length;
  const nx = -Math.sin(a) * half, ny = Math.cos(a) * half;
  ctx.moveTo(x + nx, y + ny);
  ctx.lineTo(ex + nx, ey + ny);
  ctx.arc(ex, ey, Math.max(half, 0.5), a + Math.PI / 2, a - Math.PI / 2, true);
  ctx.lineTo(x - nx, y - ny);
  ctx.arc(x, y, Math.max(half, 0.5), a - Math.PI / 2, a + Math.PI / 2, true);
  ctx.closePath();
}

// How much of the canvas is not background (sampled every 4th pixel both ways), for the browser
// test and as a sanity check: a blank canvas means nothing was drawn.
function countPainted() {
  if (!canvas.width || !canvas.height) return 0;
  const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  let painted = 0;
  for (let y = 0; y < canvas.height; y += 4) {
    for (let x = 0; x < canvas.width; x += 4) {
      const i = 4 * (y * canvas.width + x);
      if (data[i] !== 0x10 || data[i + 1] !== 0x14 || data[i + 2] !== 0x18) painted++;
    }
  }
  return painted;
}

// ---- input ----

function togglePause() {
  state.paused = !state.paused;
  send(state.paused ? 'pause' : 'resume');
  $('pause').textContent = state.paused ? 'resume' : 'pause';
  $('pause').classList.toggle('on', state.paused);
}

function select(id) {
  state.selected = id;
  send(`select ${id}`);
  if (state.frame) updateSelection(state.frame);
  draw();
}

canvas.addEventListener('mousedown', (e) => {
  state.drag = { x: e.offsetX, y: e.offsetY, vx: state.view.x, vy: state.view.y, moved: false };
});
canvas.addEventListener('mousemove', (e) => {
  const d = state.drag;
  if (!d) return;
  const dx = e.offsetX - d.x, dy = e.offsetY - d.y;
  if (Math.abs(dx) + Math.abs(dy) > 3) d.moved = true;
  state.view.x = d.vx - dx / state.view.scale;
  state.view.y = d.vy + dy / state.view.scale;
  draw();
});
canvas.addEventListener('mouseup', (e) => {
  const d = state.drag;
  state.drag = null;
  if (d && !d.moved) select(pick(e.offsetX, e.offsetY));
});
canvas.addEventListener('mouseleave', () => { state.drag = null; });
canvas.addEventListener('wheel', (e) => {
  e.preventDefault();
  zoomAt(e.offsetX, e.offsetY, Math.exp(-e.deltaY * 0.0015));
}, { passive: false });
$('zone').addEventListener('change', () => {
  state.zoneId = Number($('zone').value);
  state.frame = null;
  state.fitted = false;
  state.swings = [];
  state.selected = 0;
  send(`zone ${state.zoneId}`);
  fit();
});
$('pause').addEventListener('click', togglePause);
$('fit').addEventListener('click', () => fit());
$('heat').addEventListener('change', draw);
$('shade').addEventListener('change', draw);
window.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'SELECT') return;
  if (e.key === ' ') { e.preventDefault(); togglePause(); }
  if (e.key === 'f') fit();
  if (e.key === 'e' && state.frame) fit(true);
  if (e.key === 'h') { $('heat').checked = !$('heat').checked; draw(); }
});
window.addEventListener('resize', resize);

function animate() {
  if (state.swings.length) draw();  // swings fade between frames
  requestAnimationFrame(animate);
}

if (params.get('heat') === '1') $('heat').checked = true;
setInterval(() => { $('painted').textContent = countPainted(); }, 500);
resize();
connect();
requestAnimationFrame(animate);
