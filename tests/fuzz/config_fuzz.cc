// Fuzz target: the world config loader (LoadWorldConfig) on arbitrary YAML.
//
// Input: up to five files separated by NUL bytes, written to a private temporary directory as
// world.yaml, skills.yaml, monsters.yaml, zones/town.yaml and zones/field.yaml (the names the
// default world uses; the seeds are config/ itself). A file not given does not exist.
// Properties (a crash, an abort or libFuzzer's timeout when broken):
//   - the loader returns a WorldConfig or throws ConfigError: no other exception, no crash, no
//     hang;
//   - a WorldConfig it returns keeps the promises its checks make (ids unique, every reference
//     resolves, every rectangle and spawn point lies where it must, every zone's tree config is
//     valid);
//   - a small accepted world (up to kMaxMonstersToRun monsters) can be built and run: World,
//     one player in each zone, a few ticks.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_loader.h"
#include "spatial/quadtree.h"
#include "zone/world.h"
#include "zone/zone.h"

namespace zs::zone {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxInput = 64 * 1024;
constexpr uint64_t kMaxMonstersToRun = 400;
constexpr const char* kFiles[] = {"world.yaml", "skills.yaml", "monsters.yaml", "zones/town.yaml",
                                  "zones/field.yaml"};

void Require(bool ok) {
  if (!ok) __builtin_trap();
}

// $TMPDIR, else /dev/shm when it exists (rewriting files on a disk file system costs a flush
// each time: ext4 flushes a truncated-and-rewritten file on close, which dominated the run
// time), else /tmp; then zs_config_fuzz_<pid>. libFuzzer leaves with _Exit (no atexit), so each
// run removes the directories of runs that have ended instead.
const fs::path& Dir() {
  static const fs::path dir = [] {
    std::error_code ec;
    const char* tmpdir = std::getenv("TMPDIR");
    const fs::path base = tmpdir != nullptr && *tmpdir != '\0' ? fs::path(tmpdir)
                          : fs::is_directory("/dev/shm", ec)   ? fs::path("/dev/shm")
                                                               : fs::temp_directory_path();
    const std::string prefix = "zs_config_fuzz_";
    for (const auto& entry : fs::directory_iterator(base, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && !fs::exists("/proc/" + name.substr(prefix.size()), ec)) {
        fs::remove_all(entry.path(), ec);
      }
    }
    fs::path d = base / (prefix + std::to_string(::getpid()));
    fs::create_directories(d / "zones");
    return d;
  }();
  return dir;
}

void WriteFiles(std::string_view input) {
  std::vector<std::string_view> parts;
  for (;;) {
    const size_t end = input.find('\0');
    parts.push_back(input.substr(0, end));
    if (end == std::string_view::npos) break;
    input.remove_prefix(end + 1);
  }
  for (size_t i = 0; i < std::size(kFiles); ++i) {
    const fs::path path = Dir() / kFiles[i];
    if (i >= parts.size()) {
      fs::remove(path);
      continue;
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(parts[i].data(), static_cast<std::streamsize>(parts[i].size()));
  }
}

bool Inside(const Aabb& outer, const Aabb& inner) {
  return outer.Contains(inner.min) && outer.Contains(inner.max);
}

template <typename T>
bool UniqueIds(const std::vector<T>& items) {
  std::set<uint32_t> ids;
  for (const T& item : items) {
    if (!ids.insert(item.id).second) return false;
  }
  return true;
}

void CheckConfig(const WorldConfig& w) {
  Require(UniqueIds(w.zones) && UniqueIds(w.skills) && UniqueIds(w.monsters));
  Require(w.tick_rate >= 1 && w.tick_rate <= 120);
  Require(!w.zones.empty() && !w.skills.empty() && !w.monsters.empty());
  Require(!w.player.skills.empty() && w.player.skills.size() <= 4);
  for (uint32_t s : w.player.skills) Require(w.FindSkill(s) != nullptr);
  for (const MonsterTemplate& m : w.monsters) Require(w.FindSkill(m.skill) != nullptr);
  uint64_t monsters = 0;
  for (const ZoneConfig& z : w.zones) {
    Require(spatial::Quadtree::ValidateConfig(TreeConfigFor(z)).ok());
    Require(z.bounds.Contains(z.player_spawn));
    for (const SpawnGroup& g : z.spawns) {
      Require(w.FindMonster(g.monster) != nullptr && g.count >= 1);
      Require(Inside(z.bounds, g.area) && g.area.min.x < g.area.max.x &&
              g.area.min.y < g.area.max.y);
      monsters += g.count;
    }
    for (const Portal& p : z.portals) {
      const ZoneConfig* target = w.FindZone(p.target_zone);
      Require(target != nullptr && target->bounds.Contains(p.target_position));
    }
  }
  Require(monsters <= 500000);
}

uint64_t MonsterCount(const WorldConfig& w) {
  uint64_t n = 0;
  for (const ZoneConfig& z : w.zones) {
    for (const SpawnGroup& g : z.spawns) n += g.count;
  }
  return n;
}

// A world the loader accepted runs: every zone takes a player, ticks do not crash.
void RunWorld(const WorldConfig& config) {
  World world(config);
  for (const ZoneConfig& z : config.zones) {
    EntityId id = kInvalidEntity;
    Require(world.AddPlayer(z.id, &id).ok());
  }
  for (int i = 0; i < 3; ++i) world.Tick({}, {});
}

}  // namespace
}  // namespace zs::zone

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zs::zone;
  using zs::config::ConfigError;
  using zs::config::LoadWorldConfig;
  if (size > kMaxInput) return -1;
  WriteFiles({reinterpret_cast<const char*>(data), size});
  WorldConfig config;
  try {
    config = LoadWorldConfig((Dir() / "world.yaml").string());
  } catch (const ConfigError&) {
    return 0;  // refused with a message: what the loader promises
  }
  CheckConfig(config);
  if (MonsterCount(config) <= kMaxMonstersToRun) RunWorld(config);
  return 0;
}
