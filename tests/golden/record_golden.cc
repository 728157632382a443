// The golden streams' recorder (tests/golden/README.md): real zone_server processes on loopback,
// a scripted player whose every received ServerMessage is kept as the server sent it, with the
// C++ client library's store and events after it. Run by scripts/record-golden.sh, which sets
// ZS_GOLDEN_OUT to tests/golden; not a test of its own (it is not registered with ctest), but it
// fails when a recording misses a kind of news it must show, so a protocol change that breaks
// one is seen when the streams are re-recorded.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "golden/golden_json.h"
#include "integration/harness.h"
#include "support/nats_server.h"
#include "support/postgres_suite.h"

namespace zs::golden {
namespace {

namespace fs = std::filesystem;
namespace pb = zone::v1;
using integration::ChatMessage;
using integration::NowS;
using integration::ServerProcess;
using integration::SkillMessage;
using integration::TestClient;
using nlohmann::json;

constexpr double kTurn = 65536.0;

// One stream being recorded, and what it has shown so far.
class Recording {
 public:
  Recording(std::string name, std::string description)
      : name_(std::move(name)), description_(std::move(description)) {}

  void Keep(const TestClient& c, const pb::ServerMessage& m) {
    store_.Apply(m);
    std::vector<client::Event> events;
    client::CollectEvents(m, &events);
    steps_.push_back(json{{"connection", connection_},
                          {"message", Base64(c.last_body())},
                          {"store", StoreJson(store_)},
                          {"events", EventsJson(events)}});
    Count(m);
  }
  // Reads `c` for `seconds` (or until it closes), keeping every message; `after` is called
  // after each message and once per wake-up (with nullptr) so a script can act on time.
  void Pump(TestClient& c, double seconds,
            const std::function<bool(const pb::ServerMessage*)>& after = {}) {
    const double end = NowS() + seconds;
    while (NowS() < end && !c.closed()) {
      const auto m = c.Read(0.01);
      if (m) Keep(c, *m);
      if (after && after(m ? &*m : nullptr)) return;
    }
  }
  void NextConnection() { ++connection_; }
  [[nodiscard]] const client::EntityStore& store() const { return store_; }
  [[nodiscard]] int shown(const std::string& kind) const {
    const auto it = shown_.find(kind);
    return it == shown_.end() ? 0 : it->second;
  }
  void ExpectShown(const std::vector<std::string>& kinds) const {
    for (const std::string& k : kinds) EXPECT_GT(shown(k), 0) << name_ << " shows no " << k;
  }
  void Write() const {
    const char* out = std::getenv("ZS_GOLDEN_OUT");
    ASSERT_NE(out, nullptr) << "set ZS_GOLDEN_OUT (scripts/record-golden.sh does)";
    std::ofstream file(fs::path(out) / (name_ + ".json"));
    file << "{\"format\": " << kFormat << ", \"protocol_version\": " << wire::kProtocolVersion
         << ", \"name\": " << json(name_).dump()
         << ",\n \"description\": " << json(description_).dump() << ",\n \"steps\": [\n";
    for (size_t i = 0; i < steps_.size(); ++i) {
      file << "  " << steps_[i].dump() << (i + 1 < steps_.size() ? ",\n" : "\n");
    }
    file << "]}\n";
    std::printf("[ golden ] %s: %zu messages\n", name_.c_str(), steps_.size());
  }

 private:
  void Count(const pb::ServerMessage& m) {
    ++shown_[pb::ServerMessage::descriptor()->FindFieldByNumber(m.kind_case())->name()];
    if (!m.has_tick()) {
      if (m.has_kick()) ++shown_["kick " + m.kick().reason()];
      if (m.has_zone_changed() && !m.zone_changed().server_address().empty()) ++shown_["handoff"];
      return;
    }
    const pb::TickUpdate& t = m.tick();
    const auto count = [&](const char* kind, int n) { shown_[kind] += n; };
    count("resync", t.resync() ? 1 : 0);
    count("entered", t.entered_size());
    count("left", t.left_size());
    count("moved", t.moved_ids_size());
    count("turned", t.turned_ids_size());
    count("hits", t.hits_size());
    count("crowd", t.has_crowd() ? 1 : 0);
    count("self", t.has_self() ? 1 : 0);
    for (const auto& e : t.entered())
      count(e.kind() == pb::ENTITY_KIND_PLAYER ? "player" : "monster", 1);
    for (const auto& u : t.updated()) {
      count("updated", 1);
      count("updated hp", u.has_hp() ? 1 : 0);
      count("updated alive", u.has_alive() ? 1 : 0);
    }
    if (t.has_self()) count("self hp", t.self().has_hp() ? 1 : 0);
    for (const auto& c : t.chat()) count(pb::ChatChannel_Name(c.channel()).c_str(), 1);
    for (const auto& r : t.results()) count(pb::Outcome_Name(r.outcome()).c_str(), 1);
  }

  std::string name_;
  std::string description_;
  int connection_ = 1;
  client::EntityStore store_;
  std::vector<json> steps_;
  std::map<std::string, int> shown_;
};

uint32_t FacingTo(double dx, double dy) {
  const double turns = std::atan2(dy, dx) / (2 * M_PI);
  return static_cast<uint32_t>(std::lround((turns - std::floor(turns)) * kTurn)) % 65536U;
}

pb::ClientMessage Logout() {
  pb::ClientMessage m;
  m.mutable_logout();
  return m;
}

// The nearest living moth the store knows, as (dx, dy, surface distance) in metres.
std::optional<std::array<double, 3>> NearestMoth(const client::EntityStore& store) {
  std::optional<std::array<double, 3>> best;
  const auto& me = *store.self();
  for (const auto& [id, e] : store.entities()) {
    if (e.kind != client::EntityKind::kMonster || e.template_id != 1 || !e.alive) continue;
    const double dx = (e.x - me.x) / 100.0, dy = (e.y - me.y) / 100.0;
    const double gap = std::hypot(dx, dy) - e.radius / 100.0 - 0.5;
    if (!best || gap < (*best)[2]) best = std::array<double, 3>{dx, dy, gap};
  }
  return best;
}

// Logs out and keeps what comes until the server closes.
void LeaveAndRecord(Recording& r, TestClient& c) {
  c.Send(Logout());
  r.Pump(c, 5);
}

std::string ServerYaml() { return "  idle_timeout_seconds: 60\n"; }

TEST(GoldenRecord, Basics) {
  ServerProcess server(ServerYaml(), "", ZS_GOLDEN_WORLD);
  Recording r("basics",
              "Aria logs in to the arena, swings (accepted, cooldown, an unknown skill), says "
              "hello, hunts moths (hits, kills, respawns), is bitten by hornets, sees Bea log in, "
              "whisper to her and log out, and logs out herself.");
  TestClient a(server.port());
  a.Hello("Aria");
  r.Pump(a, 5, [](const pb::ServerMessage* m) { return m != nullptr && m->has_welcome(); });
  ASSERT_TRUE(r.store().self()) << server.Log();
  std::optional<TestClient> b;
  uint32_t seq = 0;
  double next_hunt = 0;
  std::map<std::string, bool> done;
  const auto once = [&](const std::string& what, double at, double t) {
    if (t < at || done[what]) return false;
    return done[what] = true;
  };
  const double start = NowS();
  r.Pump(a, 8, [&](const pb::ServerMessage*) {
    const double t = NowS() - start;
    if (b) {
      while (b->Read(0)) {
      }
    }
    if (once("swings", 0.3, t)) {
      a.Send(SkillMessage(++seq, 1, 0));
      a.Send(SkillMessage(++seq, 1, 0));   // within the cooldown: refused
      a.Send(SkillMessage(++seq, 99, 0));  // not a skill of hers
    }
    if (once("say", 0.5, t)) a.Send(ChatMessage(1, pb::CHAT_CHANNEL_SAY, "hello, arena"));
    if (once("bea", 1.0, t)) {
      b.emplace(server.port());
      b->Hello("Bea");
    }
    if (once("whisper", 1.8, t))
      b->Send(ChatMessage(1, pb::CHAT_CHANNEL_WHISPER, "psst, Aria", "Aria"));
    if (once("bea leaves", 4.0, t)) {
      b->Send(Logout());
      b->ReadUntilClosed(2);
    }
    if (t >= 2.0 && t < 6.5 && t >= next_hunt) {
      next_hunt = t + 0.15;
      if (const auto moth = NearestMoth(r.store())) {
        const auto [dx, dy, gap] = *moth;
        a.Move(static_cast<float>(dx), static_cast<float>(dy), ++seq);
        if (gap < 1.8) a.Send(SkillMessage(++seq, 1, FacingTo(dx, dy)));
      }
    }
    if (once("stop", 6.5, t)) a.Move(0, 0, ++seq);
    return false;
  });
  LeaveAndRecord(r, a);
  r.ExpectShown({"welcome",
                 "entered",
                 "monster",
                 "player",
                 "left",
                 "moved",
                 "turned",
                 "updated",
                 "updated hp",
                 "updated alive",
                 "self",
                 "self hp",
                 "hits",
                 "crowd",
                 "CHAT_CHANNEL_SAY",
                 "CHAT_CHANNEL_WHISPER",
                 "OUTCOME_ACCEPTED",
                 "OUTCOME_COOLDOWN",
                 "OUTCOME_UNKNOWN_SKILL",
                 "kick logout"});
  r.Write();
}

TEST(GoldenRecord, Resync) {
  ServerProcess server(ServerYaml(), "", ZS_GOLDEN_WORLD);
  Recording r("resync",
              "Rhea walks east from the arena's spawn into its portal to the garden, on the same "
              "server: a ZoneChanged, then the garden's first frame with resync set; she logs out "
              "there.");
  TestClient a(server.port());
  a.Hello("Rhea");
  r.Pump(a, 5, [](const pb::ServerMessage* m) { return m != nullptr && m->has_welcome(); });
  ASSERT_TRUE(r.store().self()) << server.Log();
  a.Move(1, 0, 1);
  r.Pump(a, 10, [](const pb::ServerMessage* m) { return m != nullptr && m->has_zone_changed(); });
  int after = 0;
  r.Pump(a, 5, [&](const pb::ServerMessage* m) {
    return m != nullptr && m->has_tick() && ++after == 10;
  });
  LeaveAndRecord(r, a);
  r.ExpectShown({"welcome", "zone_changed", "resync", "entered", "kick logout"});
  r.Write();
}

class GoldenCluster : public test::PostgresSuite {
 protected:
  std::unique_ptr<ServerProcess> Node(const std::string& node, const std::string& zone) {
    const std::string top = "storage: {backend: postgres, postgres: \"" + conninfo() +
                            "\", checkpoint_seconds: 1}\ncluster: {nats_url: \"" + nats_.url() +
                            "\", node: " + node + ", public_address: \"127.0.0.1:0\", zones: [" +
                            zone +
                            "], directory_ttl_seconds: 3}\nwebsocket: {enabled: true, port: 0}\n";
    return std::make_unique<ServerProcess>(ServerYaml(), top, ZS_GOLDEN_WORLD);
  }
  test::NatsServer nats_;
};

TEST_F(GoldenCluster, Handoff) {
  auto arena = Node("arena-node", "arena");
  auto garden = Node("garden-node", "garden");
  Recording r("handoff",
              "Hana walks east from the arena into its portal to the garden, which another node "
              "hosts: ZoneChanged{server_address, ticket} and Kick zone_handoff on connection 1; "
              "connection 2 logs in there with the ticket, and she logs out in the garden.");
  TestClient a(arena->port());
  a.Hello("Hana");
  r.Pump(a, 5, [](const pb::ServerMessage* m) { return m != nullptr && m->has_welcome(); });
  ASSERT_TRUE(r.store().self()) << arena->Log();
  a.Move(1, 0, 1);
  std::optional<pb::ZoneChanged> handoff;
  r.Pump(a, 15, [&](const pb::ServerMessage* m) {
    if (m != nullptr && m->has_zone_changed()) handoff = m->zone_changed();
    return handoff.has_value();
  });
  ASSERT_TRUE(handoff && !handoff->server_address().empty()) << arena->Log();
  r.Pump(a, 5);  // the Kick, then the close
  const std::string& address = handoff->server_address();
  TestClient there(static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1))));
  r.NextConnection();
  pb::ClientMessage hello;
  hello.mutable_hello()->set_protocol_version(wire::kProtocolVersion);
  hello.mutable_hello()->set_ticket(handoff->ticket());
  there.Send(hello);
  int ticks = 0;
  r.Pump(there, 5, [&](const pb::ServerMessage* m) {
    return m != nullptr && m->has_tick() && ++ticks == 10;
  });
  LeaveAndRecord(r, there);
  r.ExpectShown({"welcome", "handoff", "kick zone_handoff", "entered", "kick logout"});
  EXPECT_FALSE(handoff->websocket_url().empty()) << "the garden node's door (protocol 10)";
  r.Write();
}

}  // namespace
}  // namespace zs::golden
