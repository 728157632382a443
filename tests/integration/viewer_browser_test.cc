// The zone viewer in a real browser: zone_server with 100 client_sim bots in the `raid` scenario,
// /viewer opened in headless Chromium (scripts/install-deps.sh installs it) and read through its
// DevTools protocol while it runs live (devtools.h): the entity count the page shows equals the
// server's /metrics, the canvas is not blank (the page counts its non-background pixels), and
// swings appear within a few seconds of the raid starting; a click selects a monster or a player
// (with its player-only rows: view radius, interest set, bytes per second), a drag pans, the
// wheel zooms, pause and resume work. A screenshot is kept as a CI artefact
// (<build dir>/tests/viewer.png; docs/viewer.png is one of them).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <string>

#include "integration/devtools.h"
#include "integration/harness.h"

namespace zs::integration {
namespace {

constexpr int kBots = 100;
constexpr double kSwingDeadlineS = 15;  // from the bots' start to a swing on the page

// zs_zone_entities{zone="<zone>"} in a /metrics page, or -1.
long ZoneEntities(const std::string& metrics, const std::string& zone) {
  const std::string key = "zs_zone_entities{zone=\"" + zone + "\"} ";
  const size_t at = metrics.find(key);
  return at == std::string::npos ? -1 : std::stol(metrics.substr(at + key.size()));
}

pid_t StartRaid(uint16_t port) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl(ZS_CLIENT_SIM_BIN, ZS_CLIENT_SIM_BIN, "--port", std::to_string(port).c_str(), "--bots",
            std::to_string(kBots).c_str(), "--ramp", "200", "--duration", "60", "--scenario",
            "raid", "--verify-every", "10", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// What the page shows (the text of its panel's elements), read in the page.
struct PageNumbers {
  long entities = -1;
  long swings = -1;
  long frames = -1;
  long painted = -1;
};
PageNumbers ReadPage(HeadlessChromium& browser) {
  const nlohmann::json v = browser.Evaluate(
      "['entities', 'swings', 'frames', 'painted'].map("
      "(id) => Number(document.getElementById(id).textContent))");
  if (!v.is_array() || v.size() != 4) return {};
  const auto n = [&v](size_t i) { return v[i].is_number() ? v[i].get<long>() : -1L; };
  return {.entities = n(0), .swings = n(1), .frames = n(2), .painted = n(3)};
}

// Polls `expression` in the page (every 100 ms) until it is true, up to `timeout_s`.
bool PageBecomes(HeadlessChromium& browser, const std::string& expression, double timeout_s = 5) {
  const double end = NowS() + timeout_s;
  for (;;) {
    if (browser.Evaluate(expression) == true) return true;
    if (NowS() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// Clicks a living player (where the page draws it) and waits for the panel to show its
// player-only rows filled from the server's next frames: view radius (plaza.yaml's 40 m), the
// size of its interest set, and the bytes per second its client is sent. A bot may die or walk
// through a portal meanwhile: up to three players are tried. The clicked id, or null.
nlohmann::json ClickAPlayer(HeadlessChromium& browser) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    nlohmann::json id = browser.Evaluate(R"((() => {
        const e = state.frame.entities.find((x) => x.kind === 'player' && x.alive);
        if (!e) return null;
        const r = canvas.getBoundingClientRect();
        const at = { clientX: r.left + sx(e.x), clientY: r.top + sy(e.y), bubbles: true };
        canvas.dispatchEvent(new MouseEvent('mousedown', at));
        canvas.dispatchEvent(new MouseEvent('mouseup', at));
        return e.id; })())");
    if (!id.is_number()) continue;
    const std::string shown =
        "Number(document.getElementById('sel-id').textContent) === " + id.dump() + R"( &&
        document.getElementById('sel-kind').textContent === 'player' &&
        [...document.querySelectorAll('.player-only')].every((row) => !row.hidden) &&
        document.getElementById('sel-view').textContent === '40 m' &&
        /^[0-9]+ entities$/.test(document.getElementById('sel-known').textContent) &&
        Number(document.getElementById('sel-bps').textContent) > 0)";
    if (PageBecomes(browser, shown)) return id;
  }
  return nullptr;
}

// The selection panel as the page shows it (a failure's message).
std::string SelectionPanel(HeadlessChromium& browser) {
  return browser
      .Evaluate(R"(['sel-id', 'sel-kind', 'sel-view', 'sel-known', 'sel-bps'].map(
          (id) => id + ' ' + document.getElementById(id).textContent).join(', ') +
          ', player rows ' + [...document.querySelectorAll('.player-only')].map(
          (row) => (row.hidden ? 'hidden' : 'shown')).join(' '))")
      .dump();
}

// A click on a monster selects it, without the player-only rows; a click on a player shows them.
void ExpectClicksSelect(HeadlessChromium& browser) {
  const nlohmann::json clicked = browser.Evaluate(R"((() => {
      const e = state.frame.entities.find((x) => x.kind === 'monster');
      const r = canvas.getBoundingClientRect();
      const at = { clientX: r.left + sx(e.x), clientY: r.top + sy(e.y), bubbles: true };
      canvas.dispatchEvent(new MouseEvent('mousedown', at));
      canvas.dispatchEvent(new MouseEvent('mouseup', at));
      return e.id; })())");
  ASSERT_TRUE(clicked.is_number());
  EXPECT_EQ(browser.Evaluate("Number(document.getElementById('sel-id').textContent)"), clicked);
  EXPECT_EQ(browser.Evaluate("document.getElementById('sel-kind').textContent"), "monster");
  EXPECT_EQ(
      browser.Evaluate("[...document.querySelectorAll('.player-only')].every((row) => row.hidden)"),
      true)
      << "a monster shows the player-only rows: " << SelectionPanel(browser);
  EXPECT_TRUE(ClickAPlayer(browser).is_number())
      << "no player's rows shown: " << SelectionPanel(browser);
}

// A drag pans: the view's origin moves by the drag over the scale (the world point under the
// pointer stays under it), the scale stays, and a drag is not a click (the selection stays).
void ExpectDragPans(HeadlessChromium& browser) {
  const nlohmann::json panned = browser.Evaluate(R"((() => {
      const r = canvas.getBoundingClientRect();
      const from = { x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2) };
      const before = { ...state.view };
      const selected = state.selected;
      const mouse = (type, dx, dy) => canvas.dispatchEvent(new MouseEvent(type,
          { clientX: from.x + dx, clientY: from.y + dy, bubbles: true }));
      mouse('mousedown', 0, 0);
      mouse('mousemove', 60, 40);
      mouse('mousemove', 120, 80);
      mouse('mouseup', 120, 80);
      const k = state.view.scale;
      return { dx: (before.x - state.view.x) * k, dy: (state.view.y - before.y) * k,
               scale: k / before.scale, kept: state.selected === selected }; })())");
  ASSERT_TRUE(panned.is_object()) << panned;
  EXPECT_NEAR(panned["dx"].get<double>(), 120, 0.01) << panned;
  EXPECT_NEAR(panned["dy"].get<double>(), 80, 0.01) << panned;
  EXPECT_EQ(panned["scale"], 1) << panned;
  EXPECT_EQ(panned["kept"], true) << panned;
}

TEST(ViewerBrowser, PageDrawsTheLiveZone) {
  ServerProcess server("  idle_timeout_seconds: 60\n  max_connections_per_ip: 1000\n");
  const double start = NowS();
  const pid_t bots = StartRaid(server.port());
  const int polls = kUnderTsan ? 600 : 150;  // every 100 ms: logins take longer under TSan
  for (int i = 0; i < polls && MetricValue(server.HttpGet("/metrics"), "zs_players") < kBots; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(MetricValue(server.HttpGet("/metrics"), "zs_players"), kBots);
  HeadlessChromium browser("http://127.0.0.1:" + std::to_string(server.admin_port()) +
                           "/viewer?zone=1&select=auto&fit=entities");
  ASSERT_TRUE(browser.ok()) << browser.error();

  // The page against /metrics, until a swing has been drawn (bots swing from the start) and the
  // page has had a second of frames.
  PageNumbers page;
  long server_entities = -1;
  double swing_at = 0;
  while (NowS() < start + (kUnderTsan ? 120 : 40)) {
    const long before = ZoneEntities(server.HttpGet("/metrics"), "plaza");
    page = ReadPage(browser);
    const long after = ZoneEntities(server.HttpGet("/metrics"), "plaza");
    server_entities = page.entities == before ? before : after;
    if (page.swings > 0 && swing_at == 0) swing_at = NowS();
    if (swing_at != 0 && page.frames >= 10 && page.entities == server_entities) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_GE(page.frames, 10) << "the page got too few frames";
  EXPECT_EQ(page.entities, server_entities) << "the page's entity count differs from /metrics";
  EXPECT_GE(page.entities, kBots);
  EXPECT_GT(page.painted, 1000) << "the canvas is (nearly) blank";
  ASSERT_NE(swing_at, 0) << "no swing drawn";
  if (!kUnderTsan) {  // TSan slows the server 5-15x (harness.h)
    EXPECT_LT(swing_at - start, kSwingDeadlineS) << "the first swing took too long";
  }

  // The screenshot: a CI artefact, and the README's picture.
  const std::string png = ZS_VIEWER_SCREENSHOT;
  fs::remove(png);
  ASSERT_TRUE(browser.Screenshot(png));
  std::ifstream in(png, std::ios::binary);
  std::string head(8, '\0');
  in.read(head.data(), 8);
  EXPECT_EQ(head, "\x89PNG\r\n\x1a\n");
  EXPECT_GT(fs::file_size(png), 10000u);  // a blank 1280x800 PNG compresses to ~5 KB

  // Interaction: a click on a monster selects it (no player-only rows), a click on a player shows
  // its view radius, interest set and bytes per second, a drag pans the view, the wheel zooms,
  // the heat map and the occupancy shading draw, pause stops the frames and resume restarts
  // them; no script error.
  ExpectClicksSelect(browser);
  ExpectDragPans(browser);
  EXPECT_EQ(browser.Evaluate(R"((() => {
      const before = state.view.scale;
      canvas.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, clientX: 300, clientY: 300,
                                                     bubbles: true, cancelable: true }));
      document.getElementById('heat').click();
      const shade = document.getElementById('shade');
      shade.value = 'occupancy';
      shade.dispatchEvent(new Event('change'));
      return state.view.scale > before; })())"),
            true);
  browser.Evaluate("document.getElementById('pause').click()");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const long paused = ReadPage(browser).frames;
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_LE(ReadPage(browser).frames, paused + 1) << "frames kept coming while paused";
  browser.Evaluate("document.getElementById('pause').click()");
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  EXPECT_GT(ReadPage(browser).frames, paused + 2) << "no frames after resume";
  EXPECT_EQ(browser.Evaluate("window.viewerErrors"), 0);

  ::kill(bots, SIGTERM);
  ::waitpid(bots, nullptr, 0);
}

// A zone split into cells (docs/seamless.md), hosted whole by one server: the page draws the
// cells' border, a dashed amber line down the middle of the field, and names each cell's node.
TEST(ViewerBrowser, PageDrawsTheCellsOfASplitZone) {
  ServerProcess server("  idle_timeout_seconds: 60\n", "", ZS_CELLS_WORLD);
  HeadlessChromium browser("http://127.0.0.1:" + std::to_string(server.admin_port()) +
                           "/viewer?zone=3");
  ASSERT_TRUE(browser.ok()) << browser.error();
  ASSERT_TRUE(PageBecomes(browser, "state.frame !== null && state.zones[0].cells !== undefined",
                          kUnderTsan ? 60 : 20));
  EXPECT_EQ(browser.Evaluate("JSON.stringify(state.zones[0].cells)"),
            R"({"columns":2,"rows":1,"nodes":["west","east"]})")
      << "hosted whole: no cell of its own";
  // Amber pixels along x = 128 m (the border), between the field's edges on screen.
  EXPECT_EQ(browser.Evaluate(R"((() => {
      draw();
      const x = Math.round(sx(128));
      const top = Math.max(0, Math.round(sy(128))), bottom = Math.min(canvas.height, sy(0));
      let amber = 0;
      for (let y = top; y < bottom; ++y) {
        const d = ctx.getImageData(x, y, 1, 1).data;
        if (d[0] > 160 && d[1] > 110 && d[1] < 200 && d[2] < 120) ++amber;
      }
      return amber > 20; })())"),
            true);
  EXPECT_EQ(browser.Evaluate("window.viewerErrors"), 0);
}

}  // namespace
}  // namespace zs::integration
