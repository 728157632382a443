// The zone viewer's pieces without sockets: commands from the page, the token helpers, the
// binary frame's layout (web/viewer/viewer.js decodes it) and the fixed list of page files.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "admin/admin_token.h"
#include "admin/viewer_command.h"
#include "admin/viewer_frame.h"
#include "admin/web_assets.h"
#include "zone/test_world.h"
#include "zone/world.h"

namespace zs::admin {
namespace {

using Kind = ViewerCommand::Kind;

TEST(ViewerCommand, ParsesTheFourCommandsStrictly) {
  EXPECT_EQ(ParseViewerCommand("pause")->kind, Kind::kPause);
  EXPECT_EQ(ParseViewerCommand("resume")->kind, Kind::kResume);
  EXPECT_EQ(ParseViewerCommand("zone 2")->value, 2u);
  EXPECT_EQ(ParseViewerCommand("zone 2")->kind, Kind::kZone);
  EXPECT_EQ(ParseViewerCommand("select 4294967295")->value, 4294967295u);
  EXPECT_EQ(ParseViewerCommand("select 0")->kind, Kind::kSelect);
  for (const char* bad : {"", "pause ", " pause", "PAUSE", "zone", "zone ", "zone  1", "zone -1",
                          "zone +1", "zone 1x", "zone 4294967296", "select 1 2", "zone\t1",
                          "selectx 1", "zone 99999999999999999999"}) {
    EXPECT_FALSE(ParseViewerCommand(bad).has_value()) << bad;
  }
  EXPECT_FALSE(ParseViewerCommand("select " + std::string(60, '1')).has_value());
  EXPECT_FALSE(ParseViewerCommand(std::string("zone 1\0", 7)).has_value());
}

TEST(AdminToken, SplitsTargetsAndFindsTheToken) {
  EXPECT_EQ(SplitTarget("/viewer/ws?token=a").path, "/viewer/ws");
  EXPECT_EQ(SplitTarget("/viewer/ws?token=a").query, "token=a");
  EXPECT_EQ(SplitTarget("/viewer").query, "");
  EXPECT_EQ(FindQueryParam("x=1&token=abc&token=d", "token").value, "abc");
  EXPECT_TRUE(FindQueryParam("token=", "token").found);
  EXPECT_FALSE(FindQueryParam("xtoken=abc", "token").found);
  EXPECT_FALSE(FindQueryParam("token", "token").found);
  EXPECT_TRUE(ConstantTimeEqual("s3cret", "s3cret"));
  EXPECT_FALSE(ConstantTimeEqual("s3cre", "s3cret"));
  EXPECT_FALSE(ConstantTimeEqual("s3crets", "s3cret"));
  EXPECT_FALSE(ConstantTimeEqual("", "s3cret"));
  EXPECT_FALSE(ConstantTimeEqual("s3creT", "s3cret"));
  EXPECT_TRUE(IsTokenText("A-z_0.9~"));
  EXPECT_FALSE(IsTokenText(""));
  EXPECT_FALSE(IsTokenText("a b"));
  EXPECT_FALSE(IsTokenText("a&b"));
  EXPECT_FALSE(IsTokenText(std::string(257, 'a')));
}

template <typename T>
T At(const std::string& b, size_t offset) {
  T v{};
  std::memcpy(&v, b.data() + offset, sizeof(T));
  return v;
}

TEST(ViewerFrame, LayoutMatchesTheHeaderComment) {
  ViewerSnapshot s;
  s.zone_id = 7;
  s.tick = 1000;
  s.tick_rate = 20;
  s.bounds = {{-1, -2}, {3, 4}};
  s.bytes_out = 123456789012ull;
  s.entities.push_back({.id = 42,
                        .x = 1.5f,
                        .y = -2.5f,
                        .radius = 0.5f,
                        .hp = 90,
                        .max_hp = 100,
                        .kind = zone::EntityKind::kMonster,
                        .alive = true,
                        .ghost = true});
  s.nodes.push_back({.rect = {{0, 0}, {8, 8}}, .depth = 3, .count = 5, .leaf = true});
  ViewerSwing sw;
  sw.attacker = 42;
  sw.shape = ViewerShape::kLine;
  sw.tick = 998;
  sw.range = 6;
  sw.width = 1;
  sw.num_hits = 1;
  s.swings.push_back(sw);
  s.hits.push_back({.target = 9, .damage = 12, .killed = true});
  s.selections.push_back({.entity = 42, .view_radius = 50, .bytes_per_s = 1000, .known = {1, 2}});
  const std::string b = EncodeViewerFrame(s);
  ASSERT_EQ(b.size(), 64u + 28 + 24 + 44 + 12 + 16 + 8);
  EXPECT_EQ(At<uint8_t>(b, 0), kViewerFrameType);
  EXPECT_EQ(At<uint8_t>(b, 1), kViewerFrameVersion);
  EXPECT_EQ(At<uint16_t>(b, 2), 20);
  EXPECT_EQ(At<uint32_t>(b, 4), 7u);
  EXPECT_EQ(At<uint32_t>(b, 8), 1000u);
  EXPECT_EQ(At<float>(b, 12), -1.0f);
  EXPECT_EQ(At<double>(b, 36), 123456789012.0);
  EXPECT_EQ(At<uint32_t>(b, 44), 1u);  // entities
  EXPECT_EQ(At<uint32_t>(b, 60), 1u);  // selections
  EXPECT_EQ(At<uint32_t>(b, 64), 42u);
  EXPECT_EQ(At<float>(b, 68), 1.5f);
  EXPECT_EQ(At<uint8_t>(b, 88), 1);        // monster
  EXPECT_EQ(At<uint8_t>(b, 89), 1 | 2);    // alive, a ghost
  EXPECT_EQ(At<uint16_t>(b, 92 + 16), 3);  // node depth
  const size_t swing = 92 + 24;
  EXPECT_EQ(At<uint8_t>(b, swing + 4), 2);     // line
  EXPECT_EQ(At<uint16_t>(b, swing + 6), 2);    // age: swung two ticks before the snapshot
  EXPECT_EQ(At<uint32_t>(b, swing + 40), 1u);  // hits
  EXPECT_EQ(At<uint32_t>(b, swing + 44), 9u);  // the hit's target
  const size_t sel = swing + 44 + 12;
  EXPECT_EQ(At<uint32_t>(b, sel + 12), 2u);
  EXPECT_EQ(At<uint32_t>(b, sel + 20), 2u);
}

// In a zone split into cells, the neighbouring node's entities near the border are drawn as
// ghosts: the capture marks them, and only them.
TEST(ViewerFrame, TheNeighbouringCellsGhostsAreMarked) {
  zone::WorldConfig config = zone::testing::SplitInTwo();
  zone::ZoneConfig& z = config.zones[0];
  zone::EntityIdAllocator ids(zone::IdsOfCell(z.cells, 0));
  const std::vector<zone::HostedCell> cells = {{.zone_id = 1, .cell = 0}};
  zone::World world(config, {}, &ids, cells);
  EntityId wes = kInvalidEntity;
  ASSERT_TRUE(world.RestorePlayer({.zone = 1, .position = {45, 20}, .hp = 100}, &wes, "Wes").ok());
  const EntityId eve = MakeEntityId(1, 0);  // cell 1 of 2 hands out odd indices
  zone::GhostBatch batch{.zone = 1,
                         .from_cell = 1,
                         .to_cell = 0,
                         .epoch = 1,
                         .tick = 1,
                         .ghosts = {},
                         .hits = {},
                         .says = {},
                         .migrants = {},
                         .hits_applied = 0};
  batch.ghosts.push_back({.id = eve,
                          .kind = zone::EntityKind::kPlayer,
                          .template_id = 0,
                          .position = {51, 20},
                          .velocity = {},
                          .facing = 0,
                          .radius = 0.5f,
                          .hp = 100,
                          .max_hp = 100,
                          .alive = true,
                          .name = "Eve"});
  ASSERT_EQ(world.TakeGhosts(batch), zone::GhostVerdict::kTaken);
  world.Tick(std::span<const zone::MoveInput>{}, {});
  ViewerSnapshot s;
  CaptureZone(world, 0, &s);
  ASSERT_EQ(s.entities.size(), 2u);
  for (const ViewerEntity& e : s.entities) {
    EXPECT_EQ(e.ghost, e.id == ToRaw(eve)) << e.id;
  }
}

TEST(WebAssets, ServesTheFixedListFromTheFirstCompleteDirectory) {
  WebAssets assets;
  std::string error;
  EXPECT_FALSE(assets.Load({"/nonexistent"}, &error));
  EXPECT_NE(error.find("/nonexistent"), std::string::npos);
  EXPECT_EQ(assets.Find("/viewer"), nullptr);
  ASSERT_TRUE(assets.Load({"/nonexistent", ZS_WEB_DIR}, &error)) << error;
  EXPECT_EQ(assets.dir(), std::filesystem::path(ZS_WEB_DIR));
  ASSERT_NE(assets.Find("/viewer"), nullptr);
  EXPECT_EQ(assets.Find("/viewer")->content_type, "text/html; charset=utf-8");
  EXPECT_NE(assets.Find("/viewer/viewer.js")->body.find("DataView"), std::string::npos);
  EXPECT_EQ(assets.Find("/viewer/index.html"), nullptr);
  EXPECT_EQ(assets.Find("/viewer/../viewer.js"), nullptr);
}

}  // namespace
}  // namespace zs::admin
