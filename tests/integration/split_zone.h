// The split-zone fixture (issue 22, docs/seamless.md): a real nats-server and PostgreSQL
// started by the test, the nodes "west" and "east" each owning one half of the field
// (tests/integration/world/cells.yaml), two clients meeting on the border, and the helpers the
// split-zone tests share (split_zone_test.cc: ghosts, combat, migration, chat, the bots;
// split_zone_relay_test.cc: players whose clients are relayed, and the relay's liveness).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/vec2.h"
#include "integration/harness.h"
#include "support/nats_server.h"
#include "support/postgres_suite.h"

namespace zs::integration {

// Deadlines stretch under TSan, which slows the servers 5-15x (harness.h).
inline constexpr double kSlack = kUnderTsan ? 3 : 1;

// The value of `name{outcome="<outcome>"}` in a Prometheus text page (-1 when absent).
inline double Outcome(const std::string& page, const std::string& name,
                      const std::string& outcome) {
  const std::string key = "\n" + name + "{outcome=\"" + outcome + "\"} ";
  const size_t at = page.find(key);
  return at == std::string::npos ? -1 : std::stod(page.substr(at + key.size()));
}

// Reads until `c` has been told of entity `id` entering; returns it (nullopt: not in time).
inline std::optional<pb::EntityEnter> AwaitEntered(TestClient& c, uint32_t id, double seconds) {
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
inline bool AwaitLeft(TestClient& c, uint32_t id, double seconds) {
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
inline bool PollUntil(TestClient& c, const std::function<bool()>& done, double seconds) {
  const double end = NowS() + seconds;
  while (!done() && NowS() < end) c.Read(0.1);
  return done();
}

class SplitZone : public test::PostgresSuite {
 protected:
  // The node `node` (west or east; sw, se, nw or ne in `world` cells4.yaml) owning its cell of
  // the field.
  std::unique_ptr<ServerProcess> Node(const std::string& node, const char* world = ZS_CELLS_WORLD,
                                      const std::string& zones = "field",
                                      const std::string& extra = "",
                                      const ProcessExtras& extras = {}) {
    const std::string top = "storage: {backend: postgres, postgres: \"" + conninfo() +
                            "\", checkpoint_seconds: 1}\n" + "cluster: {nats_url: \"" +
                            nats_.url() + "\", node: " + node +
                            ", public_address: \"127.0.0.1:0\", zones: [" + zones +
                            "], directory_ttl_seconds: 3" + extra + "}\n";
    return std::make_unique<ServerProcess>(
        "  idle_timeout_seconds: 60\n  max_connections_per_ip: 2000\n", top, world, 0, extras);
  }

  // Both nodes running, Wes logged in at the west (speaking `wes_version`) and Eve at the east,
  // on the border, each told of the other (false when that does not come about in time).
  bool Meet(uint32_t wes_version = wire::kProtocolVersion) {
    west_ = Node("west");
    east_ = Node("east");
    wes_ = std::make_unique<TestClient>(west_->port());
    eve_ = std::make_unique<TestClient>(east_->port());
    const auto ww = wes_->Login("Wes", wes_version);
    const auto we = eve_->Login("Eve");
    if (!ww || !we) return false;
    wes_id_ = ww->entity_id();
    eve_id_ = we->entity_id();
    wes_at_ = {static_cast<float>(ww->x()) / 100, static_cast<float>(ww->y()) / 100};
    return AwaitEntered(*wes_, eve_id_, 10) && AwaitEntered(*eve_, wes_id_, 10);
  }

  test::NatsServer nats_;
  std::unique_ptr<ServerProcess> west_, east_;  // set by Meet
  std::unique_ptr<TestClient> wes_, eve_;
  uint32_t wes_id_ = 0, eve_id_ = 0;
  Vec2 wes_at_;  // where Wes is, as his frames tell (WalkWes)

  // Walks Wes to within a step of `to`, steering by the position his frames tell; every frame
  // read goes to `seen`. False when he is not there in time.
  bool WalkWes(Vec2 to, const std::function<void(const pb::ServerMessage&)>& seen) {
    constexpr float kNear = 2.5f;  // one step at 40 m/s and 20 ticks a second, and a margin
    const double end = NowS() + kSlack * 20;
    while (Length(to - wes_at_) > kNear && NowS() < end) {
      const Vec2 d = to - wes_at_;
      wes_->Move(d.x, d.y, ++wes_seq_);
      const auto m = wes_->Read(0.5);
      if (!m) continue;
      seen(*m);
      if (m->has_tick() && m->tick().has_self()) {
        const pb::EntityUpdate& self = m->tick().self();
        if (self.has_x()) wes_at_.x = static_cast<float>(self.x()) / 100;
        if (self.has_y()) wes_at_.y = static_cast<float>(self.y()) / 100;
      }
    }
    wes_->Move(0, 0, ++wes_seq_);
    return Length(to - wes_at_) <= kNear;
  }
  uint32_t wes_seq_ = 100;

  // How Eve's turns reached Wes.
  struct TurnsSeen {
    int turns = 0;                // in turned_ids (protocol 9)
    int updates_with_facing = 0;  // in `updated` with a facing
  };
  // Wes walks into the east's cell (owned there, his frames relayed home) and Eve walks a
  // small square beside him, four times turning; what Wes was told of her turns, once he has
  // been told of `enough` of them one way or the other.
  TurnsSeen EveTurnsBesideWesInTheEast(int enough) {
    TurnsSeen seen;
    const auto count = [&](const pb::ServerMessage& m) {
      if (!m.has_tick()) return;
      uint32_t id = 0;
      for (const uint32_t gap : m.tick().turned_ids()) {
        id += gap;
        seen.turns += id == eve_id_ ? 1 : 0;
      }
      for (const auto& u : m.tick().updated()) {
        seen.updates_with_facing += u.id() == eve_id_ && u.has_facing() ? 1 : 0;
      }
    };
    EXPECT_TRUE(WalkWes({150, 64}, count)) << west_->Log() << east_->Log();
    const float directions[][2] = {{0, 1}, {1, 0}, {0, -1}, {-1, 0}};
    for (uint32_t seq = 1; seq <= 4; ++seq) {
      eve_->Move(directions[seq - 1][0], directions[seq - 1][1], seq);
      int ticks = 0;  // three ticks of walking after the move was judged
      EXPECT_TRUE(eve_->ReadUntil(
          [&](const pb::ServerMessage& m) {
            if (m.has_tick() && m.tick().last_input_seq() == seq) ++ticks;
            return ticks >= 3;
          },
          kSlack * 10));
      while (const auto m = wes_->Read(0.002)) count(*m);
    }
    eve_->Move(0, 0, 5);
    wes_->ReadUntil(
        [&](const pb::ServerMessage& m) {
          count(m);
          return seen.turns + seen.updates_with_facing >= enough;
        },
        kSlack * 10);
    return seen;
  }
};

// The value of `name{direction="<direction>"}` in `node`'s /metrics (-1 when absent).
inline double ByDirection(ServerProcess& node, const std::string& name,
                          const std::string& direction) {
  const std::string page = node.HttpGet("/metrics");
  const std::string key = "\n" + name + "{direction=\"" + direction + "\"} ";
  const size_t at = page.find(key);
  return at == std::string::npos ? -1.0 : std::stod(page.substr(at + key.size()));
}

}  // namespace zs::integration
