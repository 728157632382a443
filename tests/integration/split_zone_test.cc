// One zone split into two cells on two zone_server processes (issue 22, docs/seamless.md): a
// real nats-server and PostgreSQL started here, the nodes "west" and "east" each owning one half
// of the field (tests/integration/world/cells.yaml). Each side's players see the other side's
// entities near the border with their own ids and names, as ghosts; a killed node's ghosts go
// within the timeout; a node owning no cell is refused; forged and replayed batches are refused
// and counted. (One owner per cell in the directory: zone_directory_test.)
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <set>
#include <string>

#include "cluster.pb.h"
#include "cluster/cluster_protocol.h"
#include "cluster/nats_bus.h"
#include "integration/harness.h"
#include "support/nats_server.h"
#include "support/postgres_suite.h"

namespace zs::integration {
namespace {

// The value of `name{outcome="<outcome>"}` in a Prometheus text page (-1 when absent).
double Outcome(const std::string& page, const std::string& name, const std::string& outcome) {
  const std::string key = "\n" + name + "{outcome=\"" + outcome + "\"} ";
  const size_t at = page.find(key);
  return at == std::string::npos ? -1 : std::stod(page.substr(at + key.size()));
}

// Reads until `c` has been told of entity `id` entering; returns it (nullopt: not in time).
std::optional<pb::EntityEnter> AwaitEntered(TestClient& c, uint32_t id, double seconds) {
  std::optional<pb::EntityEnter> found;
  c.ReadUntil(
      [&](const pb::ServerMessage& m) {
        if (!m.has_tick()) return false;
        for (const auto& e : m.tick().entered()) {
          if (e.id() == id) found = e;
        }
        return found.has_value();
      },
      seconds);
  return found;
}

// Reads until `c` has been told that entity `id` left (false: not in time).
bool AwaitLeft(TestClient& c, uint32_t id, double seconds) {
  return c
      .ReadUntil(
          [&](const pb::ServerMessage& m) {
            if (!m.has_tick()) return false;
            for (const uint32_t l : m.tick().left()) {
              if (l == id) return true;
            }
            return false;
          },
          seconds)
      .has_value();
}

// Reads (and drops) what `c` is sent until `done()` holds or `seconds` pass; returns done().
// For what a server sets after the frame that shows it went out (a gauge, a log line).
bool PollUntil(TestClient& c, const std::function<bool()>& done, double seconds) {
  const double end = NowS() + seconds;
  while (!done() && NowS() < end) c.Read(0.1);
  return done();
}

class SplitZone : public test::PostgresSuite {
 protected:
  // The node `node` (west or east) owning its cell of the field.
  std::unique_ptr<ServerProcess> Node(const std::string& node) {
    const std::string top = "storage: {backend: postgres, postgres: \"" + conninfo() +
                            "\", checkpoint_seconds: 1}\n" + "cluster: {nats_url: \"" +
                            nats_.url() + "\", node: " + node +
                            ", public_address: \"127.0.0.1:0\", zones: [field], "
                            "directory_ttl_seconds: 3}\n";
    return std::make_unique<ServerProcess>(
        "  idle_timeout_seconds: 60\n  max_connections_per_ip: 2000\n", top, ZS_CELLS_WORLD);
  }

  // Both nodes running, Wes logged in at the west and Eve at the east, on the border, each
  // told of the other (false when that does not come about in time).
  bool Meet() {
    west_ = Node("west");
    east_ = Node("east");
    wes_ = std::make_unique<TestClient>(west_->port());
    eve_ = std::make_unique<TestClient>(east_->port());
    const auto ww = wes_->Login("Wes");
    const auto we = eve_->Login("Eve");
    if (!ww || !we) return false;
    wes_id_ = ww->entity_id();
    eve_id_ = we->entity_id();
    return AwaitEntered(*wes_, eve_id_, 10) && AwaitEntered(*eve_, wes_id_, 10);
  }

  test::NatsServer nats_;
  std::unique_ptr<ServerProcess> west_, east_;  // set by Meet
  std::unique_ptr<TestClient> wes_, eve_;
  uint32_t wes_id_ = 0, eve_id_ = 0;
};

TEST_F(SplitZone, EachSideSeesTheOtherAcrossTheBorderWithTheirOwnIdsAndNames) {
  auto west = Node("west");
  auto east = Node("east");
  TestClient wes(west->port()), eve(east->port());
  const auto ww = wes.Login("Wes");
  const auto we = eve.Login("Eve");
  ASSERT_TRUE(ww && we) << west->Log() << east->Log();
  EXPECT_EQ(ww->entity_id() % 2, 0u) << "cell 0 of 2 hands out even indices";
  EXPECT_EQ(we->entity_id() % 2, 1u);

  const auto eve_there = AwaitEntered(wes, we->entity_id(), 10);
  ASSERT_TRUE(eve_there) << west->Log();
  EXPECT_EQ(eve_there->name(), "Eve");
  EXPECT_EQ(eve_there->kind(), pb::ENTITY_KIND_PLAYER);
  const auto wes_there = AwaitEntered(eve, ww->entity_id(), 10);
  ASSERT_TRUE(wes_there) << east->Log();
  EXPECT_EQ(wes_there->name(), "Wes");

  std::string metrics;
  EXPECT_TRUE(PollUntil(
      wes,
      [&] {
        metrics = west->HttpGet("/metrics");
        return MetricValue(metrics, "zs_ghosts") >= 3;
      },
      10))
      << "Eve and the east's dummies: " << metrics;
  EXPECT_GT(Outcome(metrics, "zs_border_batches_total", "taken"), 0);
  EXPECT_GT(MetricValue(metrics, "zs_border_batches_sent_total"), 0);
  EXPECT_EQ(MetricValue(metrics, "zs_players"), 1) << "a ghost is not a player here";

  pb::ClientMessage say;  // Eve stands within chat_radius, on the other node
  say.mutable_chat()->set_seq(1);
  say.mutable_chat()->set_channel(pb::CHAT_CHANNEL_SAY);
  say.mutable_chat()->set_text("hello across");
  wes.Send(say);
  const auto heard = eve.ReadUntil(
      [&](const pb::ServerMessage& m) {
        if (!m.has_tick()) return false;
        for (const auto& line : m.tick().chat()) {
          if (line.from_id() == ww->entity_id() && line.text() == "hello across") return true;
        }
        return false;
      },
      10);
  ASSERT_TRUE(heard) << "Eve hears Wes's say across the border" << east->Log();
  for (const auto& line : heard->tick().chat()) {
    if (line.from_id() == ww->entity_id()) {
      EXPECT_EQ(line.from_name(), "Wes");
    }
  }

  eve.Move(1, 0, 1);  // 40 m/s east: beyond view radius + hysteresis of Wes within a second
  EXPECT_TRUE(AwaitLeft(wes, we->entity_id(), 10)) << "and leaves it when she walks away";
}

// The first hit event in `m` by `attacker` on `target`, if any.
std::optional<pb::HitTarget> HitBy(const pb::ServerMessage& m, uint32_t attacker, uint32_t target) {
  if (!m.has_tick()) return std::nullopt;
  for (const auto& ev : m.tick().hits()) {
    if (ev.attacker() != attacker) continue;
    for (const auto& t : ev.targets()) {
      if (t.id() == target) return t;
    }
  }
  return std::nullopt;
}

TEST_F(SplitZone, ASwingAcrossTheBorderIsToldOnBothSidesAndAppliedByTheTargetsNode) {
  ASSERT_TRUE(Meet());
  TestClient& wes = *wes_;
  TestClient& eve = *eve_;
  pb::ClientMessage whirl;  // a circle around Wes: Eve stands on the same spot, across the border
  whirl.mutable_skill()->set_seq(1);
  whirl.mutable_skill()->set_skill_id(2);
  wes.Send(whirl);
  std::optional<pb::HitTarget> at_west, at_east;
  wes.ReadUntil(
      [&](const pb::ServerMessage& m) {
        at_west = HitBy(m, wes_id_, eve_id_);
        return at_west.has_value();
      },
      10);
  eve.ReadUntil(
      [&](const pb::ServerMessage& m) {
        at_east = HitBy(m, wes_id_, eve_id_);
        return at_east.has_value();
      },
      10);
  ASSERT_TRUE(at_west) << "Wes sees his whirlwind land on Eve's ghost" << west_->Log();
  ASSERT_TRUE(at_east) << "Eve is told by her own node, with Wes's own id" << east_->Log();
  EXPECT_EQ(at_west->damage(), 20);
  EXPECT_EQ(at_east->damage(), 20);
  EXPECT_FALSE(at_east->killed());
  // Her node applied it: her hp as the west shows it (the next batch) is 80.
  EXPECT_TRUE(wes.ReadUntil(
      [&](const pb::ServerMessage& m) {
        if (!m.has_tick()) return false;
        for (const auto& u : m.tick().updated()) {
          if (u.id() == eve_id_ && u.has_hp() && u.hp() == 80) return true;
        }
        return false;
      },
      5))
      << "the ghost shows the damage its owner applied";
}

TEST_F(SplitZone, AKilledNodesGhostsGoWithinTheTimeout) {
  ASSERT_TRUE(Meet());
  TestClient& wes = *wes_;
  ServerProcess& west = *west_;
  east_->Signal(SIGKILL);
  ASSERT_TRUE(east_->Wait(10).has_value());
  EXPECT_TRUE(AwaitLeft(wes, eve_id_, 10)) << west.Log();
  // Logged and counted by the west's runner right after that tick's frames went out.
  EXPECT_TRUE(PollUntil(
      wes,
      [&] {
        return west.Log().find("sent nothing for 20 ticks: its ghosts dropped") !=
                   std::string::npos &&
               MetricValue(west.HttpGet("/metrics"), "zs_ghosts") == 0;
      },
      10))
      << west.Log();
  EXPECT_TRUE(wes.ReadUntil([](const pb::ServerMessage& m) { return m.has_tick(); }, 2))
      << "the west ticks on";
}

TEST_F(SplitZone, ANodeOwningNoCellOfASplitZoneRefusesToStart) {
  auto north = Node("north");
  const auto code = north->Wait(10);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2) << north->Log();
  EXPECT_NE(north->Log().find("owned by west, east; node 'north' owns none of them"),
            std::string::npos)
      << north->Log();
}

TEST_F(SplitZone, ForgedAndReplayedBatchesAreRefusedAndCounted) {
  ASSERT_TRUE(Meet());
  TestClient& wes = *wes_;
  ServerProcess& west = *west_;

  cluster::NatsBus mallory({.url = nats_.url(), .name = "mallory"});
  cluster::v1::GhostBatch forged;
  forged.set_version(cluster::kClusterProtocolVersion);
  forged.set_from_node("mallory");
  forged.set_zone_id(3);
  forged.set_from_cell(1);
  forged.set_to_cell(0);
  forged.set_epoch(1);
  forged.set_tick(1);
  const std::string subject = cluster::GhostSubject(3, 0);
  ASSERT_EQ(mallory.Publish(subject, forged.SerializeAsString()), cluster::BusStatus::kOk);
  forged.set_from_node("east");  // the east's name, but a run older than the east's: stale
  ASSERT_EQ(mallory.Publish(subject, forged.SerializeAsString()), cluster::BusStatus::kOk);
  forged.set_version(cluster::kClusterProtocolVersion + 1);
  ASSERT_EQ(mallory.Publish(subject, forged.SerializeAsString()), cluster::BusStatus::kOk);
  ASSERT_EQ(mallory.Publish(subject, "not a batch"), cluster::BusStatus::kOk);

  const auto counted = [&] {
    const std::string m = west.HttpGet("/metrics");
    return Outcome(m, "zs_border_batches_total", "wrong_sender") >= 1 &&
           Outcome(m, "zs_border_batches_total", "stale") >= 1 &&
           Outcome(m, "zs_border_batches_total", "version") >= 1 &&
           Outcome(m, "zs_border_batches_total", "unparsable") >= 1;
  };
  EXPECT_TRUE(PollUntil(wes, counted, 10)) << west.HttpGet("/metrics");
  // Eve is still there: nothing of the refused batches was applied.
  eve_->Move(0, 1, 1);
  EXPECT_TRUE(wes.ReadUntil(
      [&](const pb::ServerMessage& m) {
        if (!m.has_tick()) return false;
        for (const uint32_t moved : m.tick().moved_ids()) {
          if (moved == eve_id_) return true;
        }
        for (const auto& u : m.tick().updated()) {
          if (u.id() == eve_id_) return true;
        }
        return false;
      },
      5));
}

}  // namespace
}  // namespace zs::integration
