// One zone split into two cells on two zone_server processes (issue 22, docs/seamless.md): a
// real nats-server and PostgreSQL started here, the nodes "west" and "east" each owning one half
// of the field (tests/integration/world/cells.yaml). Each side's players see the other side's
// entities near the border with their own ids and names, as ghosts; a killed node's ghosts go
// within the timeout; a node owning no cell is refused; forged and replayed batches are refused
// and counted. (One owner per cell in the directory: zone_directory_test.)
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster.pb.h"
#include "cluster/cluster_protocol.h"
#include "cluster/nats_bus.h"
#include "integration/split_zone.h"

namespace zs::integration {
namespace {

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
        for (const uint32_t moved : m.tick().moved_ids()) {  // the only one moving: no gap
          if (moved == eve_id_) return true;
        }
        for (const uint32_t turned : m.tick().turned_ids()) {
          if (turned == eve_id_) return true;
        }
        for (const auto& u : m.tick().updated()) {
          if (u.id() == eve_id_) return true;
        }
        return false;
      },
      5));
}

// A wolf of the east chases Wes across the border: its node hands it to the west's (same id;
// Wes is told of it once and never told it left), and when Wes runs beyond its leash it goes
// home and migrates back. Both nodes count each migration, out and in.
TEST_F(SplitZone, AMonsterChasingAcrossTheBorderMigratesAndComesBack) {
  ASSERT_TRUE(Meet());
  constexpr uint32_t kWolfTemplate = 2;
  uint32_t wolf = 0;
  int entered = 0, left = 0;
  const auto watch = [&](const pb::ServerMessage& m) {
    if (!m.has_tick()) return;
    for (const auto& e : m.tick().entered()) {
      if (e.template_id() == kWolfTemplate) {
        wolf = e.id();
        ++entered;
      }
    }
    for (const uint32_t id : m.tick().left()) left += wolf != 0 && id == wolf ? 1 : 0;
  };
  const auto migrations = [](ServerProcess& node, const std::string& direction) {
    const std::string page = node.HttpGet("/metrics");
    const std::string key = "\nzs_migrations_total{direction=\"" + direction + "\"} ";
    const size_t at = page.find(key);
    return at == std::string::npos ? -1.0 : std::stod(page.substr(at + key.size()));
  };
  ASSERT_TRUE(WalkWes({122, 110}, watch)) << west_->Log();
  const auto polled = [&](ServerProcess& node, const std::string& direction) {
    return PollUntil(
        *wes_, [&] { return migrations(node, direction) >= 1; }, kSlack * 20);
  };
  EXPECT_TRUE(polled(*east_, "out")) << east_->Log();
  EXPECT_TRUE(polled(*west_, "in")) << "the west took the wolf" << west_->Log();
  ASSERT_NE(wolf, 0u) << "Wes saw the wolf";
  EXPECT_EQ(wolf % 2, 1u) << "an id the east handed out, kept at the west";

  ASSERT_TRUE(WalkWes({105, 110}, watch)) << "beyond its leash" << west_->Log();
  EXPECT_TRUE(polled(*west_, "out")) << "the wolf went home" << west_->Log();
  EXPECT_TRUE(polled(*east_, "in")) << east_->Log();
  const double end = NowS() + 1;  // a second more of frames: nothing told twice
  while (NowS() < end) {
    if (const auto m = wes_->Read(0.1)) watch(*m);
  }
  EXPECT_EQ(entered, 1) << "told of the wolf once, whichever node held it";
  EXPECT_EQ(left, 0) << "and never told it left";
}

// Wes, connected to the west, walks into the east's cell and back (step 4c). His connection
// stays on the west, which relays his inputs to the east and the east's frames to him: his
// frames keep coming one tick apart, never a resync, his moves are acknowledged while the east
// owns him, he is seen walking there, and Eve, at the east, is told of him once and never that
// he left. Both nodes count the migrations and the relayed messages.
TEST_F(SplitZone, APlayerWalksAcrossTheBorderAndBackOnOneConnection) {
  ASSERT_TRUE(Meet());
  uint64_t last_tick = 0;
  int gaps = 0, resyncs = 0;
  std::string gap_at;
  int eve_entered = 0, eve_left = 0;  // what Eve is told of Wes meanwhile
  const auto frames = [&](const pb::ServerMessage& m) {
    while (const auto e = eve_->Read(0.002)) {
      if (!e->has_tick()) continue;
      for (const auto& in : e->tick().entered()) eve_entered += in.id() == wes_id_ ? 1 : 0;
      for (const uint32_t id : e->tick().left()) eve_left += id == wes_id_ ? 1 : 0;
    }
    if (!m.has_tick()) return;
    const uint64_t t = m.tick().tick();
    if (last_tick != 0 && t != last_tick + 1) {
      ++gaps;
      gap_at += " " + std::to_string(last_tick) + "->" + std::to_string(t);
    }
    resyncs += m.tick().resync() ? 1 : 0;
    last_tick = t;
  };
  ASSERT_TRUE(WalkWes({150, 64}, frames))
      << "Wes walked into the east" << west_->Log() << east_->Log();
  EXPECT_GE(ByDirection(*west_, "zs_migrations_total", "out"), 1) << west_->Log();
  EXPECT_GE(ByDirection(*east_, "zs_migrations_total", "in"), 1) << east_->Log();
  const std::string east_page = east_->HttpGet("/metrics");
  EXPECT_GE(MetricValue(east_page, "zs_migration_latency_seconds_count"), 1)
      << "his migration's latency, measured where he arrived";
  EXPECT_LE(MetricValue(east_page, "zs_migration_latency_seconds_sum"),
            MetricValue(east_page, "zs_migration_latency_seconds_count") * 1.0)
      << "each well under a second on loopback";
  EXPECT_GT(ByDirection(*east_, "zs_relay_messages_total", "out"), 0) << "frames to the west";
  EXPECT_GT(ByDirection(*west_, "zs_relay_messages_total", "out"), 0) << "inputs to the east";

  // At the east: a move is acknowledged by the east's frames, relayed.
  wes_->Move(0, 1, ++wes_seq_);
  const uint32_t seq = wes_seq_;
  const auto acked = wes_->ReadUntil(
      [&](const pb::ServerMessage& m) {
        frames(m);
        return m.has_tick() && m.tick().last_input_seq() == seq;
      },
      kSlack * 10);
  EXPECT_TRUE(acked.has_value()) << "his input reached the east" << east_->Log();
  wes_->Move(0, 0, ++wes_seq_);

  ASSERT_TRUE(WalkWes({110, 64}, frames)) << "and back to the west" << west_->Log();
  EXPECT_TRUE(PollUntil(
      *wes_, [&] { return ByDirection(*west_, "zs_migrations_total", "in") >= 1; }, kSlack * 10))
      << west_->Log();
  const double end = NowS() + 1;  // a second more of frames, from the west itself
  while (NowS() < end) {
    if (const auto m = wes_->Read(0.1)) frames(*m);
  }
  EXPECT_EQ(gaps, 0) << "one tick apart throughout:" << gap_at;
  EXPECT_EQ(resyncs, 0);

  EXPECT_EQ(eve_entered, 0) << "Eve, who knew Wes, was not told of him again";
  EXPECT_EQ(eve_left, 0) << "nor that he left";
  EXPECT_FALSE(west_->Wait(0).has_value());
  EXPECT_FALSE(east_->Wait(0).has_value());
}

// A player's migrant carries the protocol version its client speaks: Wes (version 9), owned by
// the east with his frames relayed to the west, is told of Eve's turns as turns.
TEST_F(SplitZone, ARelayedClientIsSentTurnsInItsOwnVersion) {
  ASSERT_TRUE(Meet());
  const TurnsSeen seen = EveTurnsBesideWesInTheEast(3);
  EXPECT_GE(seen.turns, 3) << "the east knew that Wes speaks version 9" << east_->Log();
}

// ... and Wes speaking version 8 is told of them as absolute updates, never as turns.
TEST_F(SplitZone, ARelayedOlderClientIsSentTurnsAsUpdates) {
  ASSERT_TRUE(Meet(wire::kTurnedVersion - 1));
  const TurnsSeen seen = EveTurnsBesideWesInTheEast(3);
  EXPECT_GE(seen.updates_with_facing, 3) << east_->Log();
  EXPECT_EQ(seen.turns, 0) << "a version-8 client is never sent turned_*";
}

// A portal into a split zone: the lobby's node offers the player to the owner of the cell its
// arrival point is in (the east), which takes it with a ticket; the client reconnects there and
// enters the field where the portal says.
TEST_F(SplitZone, APortalIntoASplitZoneHandsThePlayerToTheOwnerOfItsArrivalCell) {
  auto lobby = Node("lobby", ZS_CELLS_WORLD, "lobby");
  auto west = Node("west");
  auto east = Node("east");
  TestClient c(lobby->port());
  ASSERT_TRUE(c.Login("Visitor")) << lobby->Log();
  c.Move(1, 0, 1);
  const auto m =
      c.ReadUntil([](const pb::ServerMessage& s) { return s.has_zone_changed() || s.has_notice(); },
                  kSlack * 15);
  ASSERT_TRUE(m && m->has_zone_changed()) << lobby->Log();
  const pb::ZoneChanged& z = m->zone_changed();
  EXPECT_EQ(z.zone_name(), "field");
  const std::string address = z.server_address();
  EXPECT_EQ(address.substr(address.rfind(':') + 1), std::to_string(east->port()))
      << "the east owns the arrival point";
  ASSERT_FALSE(z.ticket().empty());

  TestClient there(east->port());
  pb::ClientMessage hello;
  hello.mutable_hello()->set_protocol_version(wire::kProtocolVersion);
  hello.mutable_hello()->set_ticket(z.ticket());
  there.Send(hello);
  const auto w =
      there.ReadUntil([](const pb::ServerMessage& s) { return s.has_welcome(); }, kSlack * 5);
  ASSERT_TRUE(w) << east->Log();
  EXPECT_EQ(w->welcome().player_name(), "Visitor");
  EXPECT_EQ(w->welcome().zone_id(), 3u);
  EXPECT_EQ(w->welcome().x(), 15000) << "the portal's arrival point";
}

// kill -9 of the east while Wes, whose client is at the west, walks in the east's cell: the
// west closes his connection once the east relays nothing (zone_unavailable) rather than leave
// him without frames. A standby for the east (same node name, waiting) takes over its cell
// once the directory entry expires. Wes logs in at the west again and is where the east last
// saved him, now owned by the standby; Eve, whose home died, logs in at the standby; they see
// each other again.
TEST_F(SplitZone, AStandbyTakesOverADeadNodesCellAndItsPlayersComeBack) {
  ASSERT_TRUE(Meet());
  auto standby = Node("east", ZS_CELLS_WORLD, "field", ", standby: true",
                      {.env = {}, .args = {}, .wait_for_ports = false});
  ASSERT_TRUE(PollUntil(
      *wes_, [&] { return standby->Log().find("standby: watching") != std::string::npos; },
      kSlack * 20))
      << standby->Log();
  ASSERT_TRUE(WalkWes({150, 64}, [](const pb::ServerMessage&) {})) << west_->Log();
  const auto saved = [&] {
    return MetricValue(east_->HttpGet("/metrics"), "zs_storage_rows_saved_total");
  };
  const double before = saved();
  ASSERT_TRUE(PollUntil(
      *wes_, [&] { return saved() > before; }, kSlack * 10))
      << "a checkpoint at the east saved him there";

  east_->Signal(SIGKILL);
  ASSERT_TRUE(east_->Wait(10).has_value());
  const auto closed = wes_->ReadUntilClosed(kSlack * 15);
  ASSERT_TRUE(closed && closed->has_kick()) << west_->Log();
  EXPECT_EQ(closed->kick().reason(), "zone_unavailable");
  EXPECT_NE(west_->Log().find("relayed nothing"), std::string::npos);

  ASSERT_TRUE(standby->AwaitPorts(kSlack * 20)) << "the standby took the cell" << standby->Log();
  TestClient wes(west_->port());
  const auto w = wes.Login("Wes");
  ASSERT_TRUE(w.has_value()) << west_->Log();
  EXPECT_GT(w->x(), 140 * 100) << "where the east last saved him";
  TestClient eve(standby->port());
  const auto e = eve.Login("Eve");
  ASSERT_TRUE(e.has_value()) << standby->Log();
  EXPECT_TRUE(AwaitEntered(wes, e->entity_id(), kSlack * 10))
      << "Wes, relayed from the standby, sees Eve" << west_->Log() << standby->Log();
  EXPECT_TRUE(AwaitEntered(eve, w->entity_id(), kSlack * 10)) << standby->Log();
  EXPECT_GE(ByDirection(*standby, "zs_migrations_total", "in"), 1)
      << "Wes is the standby's" << standby->Log();
}

// client_sim's `border` scenario on every node of a split field, `bots` verifying bots each:
// every bot walks back and forth across the border, swinging, so players migrate all the time
// and most clients are relayed at some point. No protocol violation (no tick gap, nothing
// entered twice, no id changing, every input answered), never more players real on the nodes
// together than there are bots, and migrations out of every node.
void BotsWalkBackAndForthAcrossTheBorders(std::vector<std::unique_ptr<ServerProcess>>& nodes,
                                          int bots, int seconds) {
  const std::string base =
      (std::filesystem::temp_directory_path() / ("zs_border_" + std::to_string(::getpid())))
          .string();
  std::vector<pid_t> sims;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string report = base + "-" + std::to_string(i) + ".json";
    sims.push_back(
        StartClientSim({"--port", std::to_string(nodes[i]->port()), "--bots", std::to_string(bots),
                        "--first-bot", std::to_string(static_cast<int>(i) * bots), "--ramp", "100",
                        "--duration", std::to_string(seconds), "--scenario", "border",
                        "--verify-every", "1", "--report", report},
                       report + ".log"));
  }
  // Each node read twice in a row and the smaller count taken: a player handed over between
  // two reads would count on both nodes otherwise.
  struct Gauges {
    double real = 0;     // zs_players_real: the players it owns
    double clients = 0;  // zs_players: the clients connected to it
  };
  const auto sweep = [&] {
    std::vector<Gauges> g;
    for (auto& n : nodes) {
      const std::string page = n->HttpGet("/metrics");
      g.push_back({.real = MetricValue(page, "zs_players_real"),
                   .clients = MetricValue(page, "zs_players")});
    }
    return g;
  };
  const double all = static_cast<double>(bots) * static_cast<double>(nodes.size());
  const double start = NowS();
  const double end = start + 2 + seconds - 1;  // the ramp-up, then the run (ends just after)
  // The steady run starts once every bot is connected (the clients first add up to `all`: on a
  // loaded machine the simulators may take seconds to start), and ends a second before the bots
  // leave; it must start within the run's first half.
  double steady = 0;
  double most = 0;
  double fewest_clients = 0;  // of any node at any moment: never below 0
  int miscounted = 0;         // samples of the steady run whose clients were not `all`
  std::vector<Gauges> before = sweep();
  while (NowS() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));  // the next sample
    const std::vector<Gauges> after = sweep();
    double both = 0;
    double clients = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      both += std::min(before[i].real, after[i].real);
      clients += after[i].clients;
      fewest_clients = std::min(fewest_clients, after[i].clients);
    }
    most = std::max(most, both);
    if (steady == 0 && clients == all) steady = NowS();
    if (steady != 0 && NowS() < end - 1 && clients != all) ++miscounted;
    before = after;
  }
  EXPECT_GT(steady, 0) << "every bot connected at once";
  EXPECT_LT(steady - start, seconds / 2.0) << "every bot connected within the run's first half";
  EXPECT_LE(most, all) << "a player real on two nodes";
  EXPECT_GT(most, all * 0.9) << "everyone in the world";
  EXPECT_GE(fewest_clients, 0) << "zs_players counts the clients connected to a node";
  EXPECT_EQ(miscounted, 0) << "the nodes' clients add up to the bots connected";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string report = base + "-" + std::to_string(i) + ".json";
    EXPECT_EQ(WaitExit(sims[i]), 0) << ReadFile(report + ".log");
    const nlohmann::json j =
        nlohmann::json::parse(ReadFile(report), nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(j.is_discarded()) << ReadFile(report + ".log");
    EXPECT_EQ(j["violations_total"], 0) << ReadFile(report + ".log");
    const double out = ByDirection(*nodes[i], "zs_migrations_total", "out");
    std::printf(
        "[ border ] node %zu: %.0f migrations out in %d s, answer p50 %.1f ms, p99 %.1f ms\n", i,
        out, seconds, j["answer_ms"]["p50"].get<double>(), j["answer_ms"]["p99"].get<double>());
    EXPECT_GE(out, bots) << "node " << i << ": every bot of its crossed at least once";
    EXPECT_GT(ByDirection(*nodes[i], "zs_relay_messages_total", "in"), 0) << "node " << i;
    EXPECT_FALSE(nodes[i]->Wait(0).has_value()) << "node " << i;
    std::filesystem::remove(report);
    std::filesystem::remove(report + ".log");
  }
  // Every bot has closed: no node counts a client, and none holds a real player, within the
  // bound of a home's leaving reaching the owner (and of a silent home, 2 s: docs/seamless.md).
  std::vector<Gauges> left;
  const double deadline = NowS() + kSlack * 10;
  const auto idle = [&] {
    left = sweep();
    return std::ranges::all_of(left, [](const Gauges& g) { return g.real == 0 && g.clients == 0; });
  };
  while (!idle() && NowS() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(left[i].clients, 0) << "node " << i << ": zs_players after the bots left";
    EXPECT_EQ(left[i].real, 0) << "node " << i << ": zs_players_real after the bots left"
                               << nodes[i]->Log();
  }
}

TEST_F(SplitZone, TwoHundredVerifyingBotsWalkBackAndForthAcrossTheBorder) {
  if (kUnderTsan) GTEST_SKIP() << "200 verifying bots on two TSan servers (5-15x slower)";
  std::vector<std::unique_ptr<ServerProcess>> nodes;
  nodes.push_back(Node("west"));
  nodes.push_back(Node("east"));
  BotsWalkBackAndForthAcrossTheBorders(nodes, 100, kSanitizerBuild ? 10 : 60);
}

// The same on a field split 2 x 2, one node per quarter, players starting where the four meet:
// they cross both borders and go diagonally from corner to corner.
TEST_F(SplitZone, TwoHundredVerifyingBotsWalkAcrossTheBordersOfFourCells) {
  if (kUnderTsan) GTEST_SKIP() << "200 verifying bots on four TSan servers (5-15x slower)";
  std::vector<std::unique_ptr<ServerProcess>> nodes;
  for (const char* name : {"sw", "se", "nw", "ne"}) nodes.push_back(Node(name, ZS_CELLS4_WORLD));
  BotsWalkBackAndForthAcrossTheBorders(nodes, 50, kSanitizerBuild ? 10 : 60);
}

// NATS down for a few seconds (longer than the directory's ttl), then back on the same port:
// each node keeps ticking its own cell (its client's frames keep coming), the other side's
// ghosts go after the timeout, and once NATS is back the batches flow again and each side sees
// the other as before, same ids.
TEST_F(SplitZone, NatsDownForAFewSecondsThenEverythingResumes) {
  ASSERT_TRUE(Meet());
  nats_.Kill();
  uint64_t first = 0, last = 0;
  const auto ticks = [&](const pb::ServerMessage& m) {
    if (!m.has_tick()) return;
    if (first == 0) first = m.tick().tick();
    last = m.tick().tick();
  };
  const bool gone = wes_->ReadUntil(
                            [&](const pb::ServerMessage& m) {
                              ticks(m);
                              if (!m.has_tick()) return false;
                              for (const uint32_t id : m.tick().left()) {
                                if (id == eve_id_) return true;
                              }
                              return false;
                            },
                            10)
                        .has_value();
  EXPECT_TRUE(gone) << "Eve's ghost dropped once the east fell silent" << west_->Log();
  const double down_until = NowS() + 3;  // longer than the directory's ttl (3 s) in all
  while (NowS() < down_until) {
    if (const auto m = wes_->Read(0.1)) ticks(*m);
  }
  EXPECT_GE(last - first, 60u) << "the west ticked on meanwhile (20 ticks/s)";
  nats_.Start();
  EXPECT_TRUE(AwaitEntered(*wes_, eve_id_, kSlack * 30))
      << "Eve seen again, by her own id" << west_->Log();
  EXPECT_TRUE(AwaitEntered(*eve_, wes_id_, kSlack * 30)) << east_->Log();
  EXPECT_TRUE(PollUntil(
      *wes_, [&] { return west_->Log().find("NATS is back; refreshing") != std::string::npos; },
      10))
      << "the west claimed its cell again" << west_->Log();
  EXPECT_FALSE(west_->Wait(0).has_value()) << "both nodes still run";
  EXPECT_FALSE(east_->Wait(0).has_value());
}

// `zone` chat is the whole zone's: Eve, far into the east's cell (beyond any say's reach and out
// of Wes's view), hears Wes's zone line from the west, with his id and name; his own node tells
// him at once.
TEST_F(SplitZone, ZoneChatIsHeardOnEveryCellsNode) {
  ASSERT_TRUE(Meet());
  eve_->Move(1, 0, 1);  // 40 m/s east, out of Wes's view
  ASSERT_TRUE(AwaitLeft(*wes_, eve_id_, kSlack * 10)) << east_->Log();
  pb::ClientMessage zone_line;
  zone_line.mutable_chat()->set_seq(1);
  zone_line.mutable_chat()->set_channel(pb::CHAT_CHANNEL_ZONE);
  zone_line.mutable_chat()->set_text("anyone in the field?");
  wes_->Send(zone_line);
  const auto line_in = [&](const pb::ServerMessage& m) -> const pb::ChatLine* {
    if (!m.has_tick()) return nullptr;
    for (const pb::ChatLine& line : m.tick().chat()) {
      if (line.from_id() == wes_id_ && line.text() == "anyone in the field?") return &line;
    }
    return nullptr;
  };
  const auto own = wes_->ReadUntil([&](const pb::ServerMessage& m) { return line_in(m); }, 10);
  ASSERT_TRUE(own) << west_->Log();
  const auto heard =
      eve_->ReadUntil([&](const pb::ServerMessage& m) { return line_in(m); }, kSlack * 10);
  ASSERT_TRUE(heard) << "Eve hears it on the other node" << east_->Log();
  const pb::ChatLine* line = line_in(*heard);
  EXPECT_EQ(line->channel(), pb::CHAT_CHANNEL_ZONE);
  EXPECT_EQ(line->from_name(), "Wes");
  const std::string page = east_->HttpGet("/metrics");
  EXPECT_EQ(Outcome(page, "zs_zone_chat_total", "taken"), 1);
  EXPECT_EQ(ByDirection(*west_, "zs_zone_chat_lines_total", "out"), 1);
}

}  // namespace
}  // namespace zs::integration
