// The zone viewer in a real browser: zone_server with 100 client_sim bots in the `raid` scenario,
// /viewer opened in headless Chromium (scripts/install-deps.sh installs it), and the page's own
// numbers read back from its DOM (`--dump-dom`): the entity count it shows equals the server's
// /metrics, the canvas is not blank (the page counts its non-background pixels), and swings
// appear within a few seconds of the raid starting. A screenshot is kept as a CI artefact
// (<build dir>/tests/viewer.png).
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "integration/harness.h"

namespace zs::integration {
namespace {

constexpr int kBots = 100;
constexpr double kSwingDeadlineS = 10;  // from the bots' start to a swing on the page

// The page's numbers: the text of the elements with these ids in the dumped DOM.
struct PageNumbers {
  long entities = -1;
  long swings = -1;
  long frames = -1;
  long painted = -1;
};

long ElementNumber(const std::string& dom, const std::string& id) {
  const std::string open = "id=\"" + id + "\">";
  const size_t at = dom.find(open);
  if (at == std::string::npos) return -1;
  const size_t start = at + open.size();
  const size_t end = dom.find('<', start);
  try {
    return std::stol(dom.substr(start, end - start));
  } catch (const std::exception&) {
    return -1;
  }
}

// Runs headless Chromium with `mode` ("--dump-dom" or "--screenshot=PATH") on `url`, giving
// the page `budget_ms` of virtual time; returns what it printed on stdout.
std::string Chromium(const std::string& mode, const std::string& url, int budget_ms) {
  static int run = 0;
  const std::string profile =
      (fs::temp_directory_path() /
       ("zs_chromium_" + std::to_string(::getpid()) + "_" + std::to_string(run++)))
          .string();
  const std::string cmd =
      "timeout 45 chromium --headless=new --no-sandbox --disable-gpu "
      "--disable-dev-shm-usage --no-first-run --no-default-browser-check "
      "--hide-scrollbars --window-size=1280,800 --user-data-dir=" +
      profile + " --virtual-time-budget=" + std::to_string(budget_ms) + " " + mode + " '" + url +
      "' 2>/dev/null";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    ::pclose(p);
  }
  fs::remove_all(profile);
  return out;
}

PageNumbers ReadPage(const std::string& url) {
  const std::string dom = Chromium("--dump-dom", url, 3000);
  return {.entities = ElementNumber(dom, "entities"),
          .swings = ElementNumber(dom, "swings"),
          .frames = ElementNumber(dom, "frames"),
          .painted = ElementNumber(dom, "painted")};
}

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

bool HaveChromium() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }

TEST(ViewerBrowser, PageDrawsTheLiveZone) {
  ASSERT_TRUE(HaveChromium()) << "chromium is missing: run scripts/install-deps.sh";
  ServerProcess server("  idle_timeout_seconds: 60\n  max_connections_per_ip: 1000\n");
  const std::string url =
      "http://127.0.0.1:" + std::to_string(server.admin_port()) + "/viewer?zone=1";
  const double start = NowS();
  const pid_t bots = StartRaid(server.port());
  for (int i = 0; i < 100 && MetricValue(server.HttpGet("/metrics"), "zs_players") < kBots; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(MetricValue(server.HttpGet("/metrics"), "zs_players"), kBots);

  // The page against /metrics, until a swing has been drawn (bots swing from the start).
  PageNumbers page;
  long server_entities = -1;
  double swing_at = 0;
  while (NowS() < start + 30) {
    const long before = ZoneEntities(server.HttpGet("/metrics"), "plaza");
    page = ReadPage(url);
    const long after = ZoneEntities(server.HttpGet("/metrics"), "plaza");
    server_entities = page.entities == before ? before : after;
    if (page.swings > 0 && swing_at == 0) swing_at = NowS();
    if (swing_at != 0 && page.entities == server_entities) break;
  }
  EXPECT_GT(page.frames, 0) << "the page got no frame";
  EXPECT_EQ(page.entities, server_entities) << "the page's entity count differs from /metrics";
  EXPECT_GE(page.entities, kBots);
  EXPECT_GT(page.painted, 1000) << "the canvas is (nearly) blank";
  ASSERT_NE(swing_at, 0) << "no swing drawn";
  EXPECT_LT(swing_at - start, kSwingDeadlineS) << "the first swing took too long";

  // The screenshot: a CI artefact, and the README's picture.
  const std::string png = ZS_VIEWER_SCREENSHOT;
  fs::remove(png);
  Chromium("--screenshot=" + png, url, 3000);
  ASSERT_TRUE(fs::exists(png));
  std::ifstream in(png, std::ios::binary);
  std::string head(8, '\0');
  in.read(head.data(), 8);
  EXPECT_EQ(head, "\x89PNG\r\n\x1a\n");
  EXPECT_GT(fs::file_size(png), 10000u);  // a blank 1280x800 PNG compresses to ~5 KB

  ::kill(bots, SIGTERM);
  ::waitpid(bots, nullptr, 0);
}

}  // namespace
}  // namespace zs::integration
