// Config loading: the shipped world loads; each kind of mistake is refused with a message that
// names the file, the key and the problem. Real files: each case edits a copy of config/.
#include "config/config_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace zs::config {
namespace {

namespace fs = std::filesystem;
using zone::MonsterTemplate;
using zone::SkillDef;
using zone::SkillShape;
using zone::SpawnGroup;
using zone::WorldConfig;
using zone::ZoneConfig;

TEST(ConfigLoader, DefaultWorldLoads) {
  const WorldConfig w = LoadWorldConfig(ZS_CONFIG_DIR "/world.yaml");
  EXPECT_EQ(w.tick_rate, 20u);
  ASSERT_EQ(w.zones.size(), 2u);
  EXPECT_EQ(w.zones[0].name, "town");
  EXPECT_EQ(w.zones[1].name, "field");
  uint32_t monsters = 0;
  for (const ZoneConfig& z : w.zones) {
    for (const SpawnGroup& g : z.spawns) monsters += g.count;
    EXPECT_FALSE(z.portals.empty()) << z.name;
  }
  EXPECT_GE(monsters, 200u);
  EXPECT_GE(w.monsters.size(), 3u);
  // The interest block, in ticks at 20 Hz.
  EXPECT_EQ(w.zones[0].interest.near_max, 48u);
  EXPECT_EQ(w.zones[0].interest.mid_max, 200u);
  EXPECT_EQ(w.zones[0].interest.rank_floor, 0.0f);
  EXPECT_EQ(w.zones[0].interest.near_band, 4.0f);
  EXPECT_EQ(w.zones[0].interest.max_staleness_ticks, 20u);
  EXPECT_EQ(w.zones[0].interest.mid_period_ticks, 4u);
  EXPECT_DOUBLE_EQ(w.overload.work_share, 0.6);
  const SkillDef* sword = w.FindSkill(1);
  ASSERT_NE(sword, nullptr);
  EXPECT_EQ(sword->shape, SkillShape::kArc);
  EXPECT_NEAR(sword->half_angle, kPi / 3, 1e-6);
  EXPECT_EQ(sword->cooldown_ticks, 10u);  // 0.5 s at 20 Hz
  EXPECT_EQ(w.player.respawn_ticks, 100u);
}

// A copy of config/ in a fresh temporary directory, where one file can be edited.
class BrokenConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("zs_config_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::copy(ZS_CONFIG_DIR, dir_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Replaces `from` by `to` in `file` (relative to the config dir); the text must be there.
  void Edit(const std::string& file, const std::string& from, const std::string& to) {
    std::ifstream in(dir_ / file);
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    const size_t at = s.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    s.replace(at, from.size(), to);
    std::ofstream(dir_ / file) << s;
  }
  // The loader's message, or "" when it loaded.
  std::string Error() {
    try {
      LoadWorldConfig((dir_ / "world.yaml").string());
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  }
  void ExpectError(const std::string& file, const std::string& key, const std::string& what) {
    const std::string msg = Error();
    EXPECT_NE(msg.find(file), std::string::npos) << msg;
    EXPECT_NE(msg.find(key), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }

  fs::path dir_;
};

TEST_F(BrokenConfig, MissingKey) {
  Edit("zones/field.yaml", "view_radius: 40\n", "");
  ExpectError("zones/field.yaml", "view_radius", "missing");
}

// Found by tests/fuzz/config_fuzz: a key that is a list, a map or null escaped the loader as
// YAML::BadConversion instead of a ConfigError (zone_server died in std::terminate).
TEST_F(BrokenConfig, KeyThatIsNotAName) {
  Edit("world.yaml", "tick_rate: 20", "? [tick, rate]\n: 20");
  ExpectError("world.yaml", "(top level)", "keys must be plain names");
  Edit("world.yaml", "? [tick, rate]\n: 20", "tick_rate: 20\n? {a: 1}\n: 2");
  ExpectError("world.yaml", "(top level)", "keys must be plain names");
  Edit("world.yaml", "tick_rate: 20\n? {a: 1}\n: 2", "tick_rate: 20");
  Edit("skills.yaml", "{id: 2,", "{~: 1, id: 2,");
  ExpectError("skills.yaml", "skills[1]", "keys must be plain names");
}

TEST_F(BrokenConfig, WrongType) {
  Edit("world.yaml", "tick_rate: 20", "tick_rate: fast");
  ExpectError("world.yaml", "tick_rate", "must be an integer in 1..120, got \"fast\"");
}

TEST_F(BrokenConfig, OutOfRange) {
  Edit("zones/field.yaml", "count: 120", "count: -5");
  ExpectError("zones/field.yaml", "spawn_groups[0].count", "got \"-5\"");
}

TEST_F(BrokenConfig, NotFiniteNumber) {
  Edit("monsters.yaml", "radius: 0.6", "radius: .nan");
  ExpectError("monsters.yaml", "monsters[1].radius", "must be a number");
}

TEST_F(BrokenConfig, UnknownKeyIsATypo) {
  Edit("world.yaml", "respawn_seconds: 5", "respwan_seconds: 5");
  ExpectError("world.yaml", "player.respwan_seconds", "unknown key");
}

TEST_F(BrokenConfig, DuplicateId) {
  Edit("skills.yaml", "{id: 2,", "{id: 1,");
  ExpectError("skills.yaml", "skills[1].id", "duplicate skill id 1");
}

TEST_F(BrokenConfig, UnknownSkillReference) {
  Edit("monsters.yaml", "skill: 11}", "skill: 77}");
  ExpectError("monsters.yaml", "monsters[2].skill", "no skill with id 77");
}

TEST_F(BrokenConfig, UnknownMonsterReference) {
  Edit("zones/town.yaml", "monster: 1,", "monster: 9,");
  ExpectError("zones/town.yaml", "spawn_groups[0].monster", "no monster template with id 9");
}

TEST_F(BrokenConfig, BadShape) {
  Edit("skills.yaml", "shape: line", "shape: cone");
  ExpectError("skills.yaml", "skills[2].shape", "must be arc, circle or line");
}

TEST_F(BrokenConfig, SpawnAreaOutsideZone) {
  Edit("zones/field.yaml", "max: [900, 500]", "max: [1900, 500]");
  ExpectError("zones/field.yaml", "spawn_groups[1].area", "inside the zone bounds");
}

TEST_F(BrokenConfig, InvertedRectangle) {
  Edit("zones/town.yaml", "bounds: {min: [0, 0], max: [256, 256]}",
       "bounds: {min: [300, 0], max: [256, 256]}");
  ExpectError("zones/town.yaml", "bounds", "min must be below max");
}

TEST_F(BrokenConfig, PortalToUnknownZone) {
  Edit("zones/town.yaml", "target_zone: 2", "target_zone: 5");
  ExpectError("zones/town.yaml", "portals[0].target_zone", "no zone with id 5");
}

TEST_F(BrokenConfig, PortalTargetOutsideZone) {
  Edit("zones/town.yaml", "target_position: [20, 512]", "target_position: [2000, 512]");
  ExpectError("zones/town.yaml", "portals[0].target_position", "inside the bounds of zone 2");
}

TEST_F(BrokenConfig, PortalLandsInAPortal) {
  Edit("zones/town.yaml", "target_position: [20, 512]", "target_position: [4, 510]");
  ExpectError("zones/town.yaml", "portals[0].target_position", "bounce");
}

TEST_F(BrokenConfig, TooManyPlayerSkills) {
  Edit("world.yaml", "skills: [1, 2, 3, 4]", "skills: [1, 2, 3, 4, 10]");
  ExpectError("world.yaml", "player.skills", "at most 4");
}

TEST_F(BrokenConfig, InvalidYaml) {
  Edit("monsters.yaml", "monsters:", "monsters: [");
  ExpectError("monsters.yaml", "line", "not valid YAML");
}

TEST_F(BrokenConfig, BoundsTooSmallForTheQuadtree) {
  Edit("zones/town.yaml", "bounds: {min: [0, 0], max: [256, 256]}",
       "bounds: {min: [5000, 5000], max: [5040, 5040]}");
  ExpectError("zones/town.yaml", "bounds", "float precision");
}

TEST_F(BrokenConfig, LeashShorterThanAggroPlusWander) {
  Edit("monsters.yaml", "leash_radius: 30", "leash_radius: 5");
  ExpectError("monsters.yaml", "monsters[1].leash_radius", "at least wander_radius + aggro_radius");
}

TEST_F(BrokenConfig, MonstersThatCannotGoHome) {
  Edit("monsters.yaml", "run_speed: 5.0", "run_speed: 0");
  ExpectError("monsters.yaml", "monsters[1].run_speed", "must be a number in 0.01..");
}

TEST_F(BrokenConfig, TooManyMonsters) {
  Edit("zones/field.yaml", "count: 120", "count: 100000");
  Edit("zones/field.yaml", "count: 100,", "count: 100000,");
  Edit("zones/field.yaml", "count: 60", "count: 100000");
  Edit("zones/town.yaml", "count: 20", "count: 100000");
  // 400,000 so far: two more groups of 100,000 cross the 500,000 cap.
  Edit("zones/field.yaml", "portals:",
       "  - {monster: 2, count: 100000, area: {min: [1, 1], max: [2, 2]}, respawn_seconds: 1}\n"
       "  - {monster: 2, count: 100000, area: {min: [1, 1], max: [2, 2]}, respawn_seconds: 1}\n"
       "portals:");
  ExpectError("zones/field.yaml", "spawn_groups", "more than 500000 monsters");
}

TEST_F(BrokenConfig, InterestKeyOutOfRange) {
  Edit("zones/town.yaml", "near_max: 48", "near_max: 0");
  ExpectError("zones/town.yaml", "interest.near_max", "must be an integer in 1..10000, got \"0\"");
}

TEST_F(BrokenConfig, RankFloorThatIsNoDistance) {
  Edit("zones/town.yaml", "rank_floor: 0 ", "rank_floor: -1 ");
  ExpectError("zones/town.yaml", "interest.rank_floor", "-1");
}

TEST_F(BrokenConfig, NearBandThatIsNoDistance) {
  Edit("zones/town.yaml", "near_band: 4 ", "near_band: .nan ");
  ExpectError("zones/town.yaml", "interest.near_band", "nan");
}

TEST_F(BrokenConfig, InterestTypo) {
  Edit("zones/field.yaml", "mid_max: 200", "mid_maxx: 200");
  ExpectError("zones/field.yaml", "interest.mid_maxx", "unknown key");
}

TEST_F(BrokenConfig, MidTierSlowerThanStaleness) {
  Edit("zones/town.yaml", "mid_period_seconds: 0.2", "mid_period_seconds: 2");
  ExpectError("zones/town.yaml", "interest.mid_period_seconds", "must not exceed");
}

// A zone split into cells (zone/cells.h): the block is read, and each way it can be wrong is
// named.
TEST_F(BrokenConfig, ACellsBlockSplitsAZone) {
  Edit("zones/field.yaml", "pvp: false",
       "pvp: false\ncells: {columns: 2, rows: 2, nodes: [a, b, c, d], ghost_timeout_seconds: 1.5}");
  ASSERT_EQ(Error(), "");
  const WorldConfig w = LoadWorldConfig((dir_ / "world.yaml").string());
  const ZoneConfig& field = *w.FindZone(2);
  EXPECT_EQ(field.cells.count(), 4u);
  EXPECT_EQ(field.cells.nodes, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(field.cells.ghost_distance, zone::MinGhostDistance(w, field)) << "the least, unset";
  EXPECT_GT(field.cells.ghost_distance, field.view_radius + field.view_hysteresis);
  EXPECT_EQ(field.cells.ghost_timeout_ticks, 30u);
  EXPECT_EQ(field.cells.migration_margin, zone::kDefaultMigrationMargin);
  EXPECT_FALSE(w.FindZone(1)->cells.split()) << "the town is not split";
}

TEST_F(BrokenConfig, AMigrationMarginBeyondHalfTheGhostDistance) {
  Edit("zones/field.yaml", "pvp: false",
       "pvp: false\ncells: {columns: 2, rows: 1, nodes: [a, b], migration_margin: 5}");
  ASSERT_EQ(Error(), "");
  EXPECT_EQ(LoadWorldConfig((dir_ / "world.yaml").string()).FindZone(2)->cells.migration_margin,
            5.0f);
  Edit("zones/field.yaml", "migration_margin: 5", "migration_margin: 1000");
  ExpectError("zones/field.yaml", "cells.migration_margin", "must be a number in 0..");
}

TEST_F(BrokenConfig, CellsThatAreNoQuadtreeNodes) {
  Edit("zones/field.yaml", "pvp: false",
       "pvp: false\ncells: {columns: 3, rows: 1, nodes: [a, b, c]}");
  ExpectError("zones/field.yaml", "cells.columns", "must be 1, 2 or 4");
}

TEST_F(BrokenConfig, OneCellIsNoSplit) {
  Edit("zones/field.yaml", "pvp: false", "pvp: false\ncells: {columns: 1, rows: 1, nodes: [a]}");
  ExpectError("zones/field.yaml", "cells.columns", "at least 2 cells");
}

TEST_F(BrokenConfig, CellsWithoutAnOwnerEach) {
  Edit("zones/field.yaml", "pvp: false", "pvp: false\ncells: {columns: 2, rows: 1, nodes: [a]}");
  ExpectError("zones/field.yaml", "cells.nodes", "needs one node per cell: 2, got 1");
}

TEST_F(BrokenConfig, OneNodeOwningTwoCells) {
  Edit("zones/field.yaml", "pvp: false", "pvp: false\ncells: {columns: 2, rows: 1, nodes: [a, a]}");
  ExpectError("zones/field.yaml", "cells.nodes[1]", "at most one cell");
}

TEST_F(BrokenConfig, GhostDistanceShorterThanTheLeast) {
  Edit("zones/field.yaml", "pvp: false",
       "pvp: false\ncells: {columns: 2, rows: 1, nodes: [a, b], ghost_distance: 10}");
  ExpectError("zones/field.yaml", "cells.ghost_distance", "must be at least");
}

TEST_F(BrokenConfig, CellsNarrowerThanTheGhostDistance) {
  Edit("zones/field.yaml", "pvp: false",
       "pvp: false\ncells: {columns: 4, rows: 1, nodes: [a, b, c, d], ghost_distance: 300}");
  ExpectError("zones/field.yaml", "cells", "at least ghost_distance (300");
}

TEST_F(BrokenConfig, OverloadShareOutOfRange) {
  Edit("world.yaml", "work_share: 0.6", "work_share: 3");
  ExpectError("world.yaml", "overload.work_share", "must be a number in 0.05..1");
}

TEST_F(BrokenConfig, MissingFile) {
  fs::remove(dir_ / "zones/field.yaml");
  ExpectError("zones/field.yaml", "", "cannot open");
}

// Found by tests/fuzz/config_fuzz: a directory where a file belongs opens, then fails to read
// with std::ios_base::failure, which escaped the loader (zone_server died in std::terminate).
TEST_F(BrokenConfig, DirectoryInsteadOfAFile) {
  Edit("world.yaml", "skills: skills.yaml", "skills: zones");
  ExpectError("zones", "", "cannot read the file");
}

}  // namespace
}  // namespace zs::config
