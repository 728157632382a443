// The zone server end to end: the real binary on loopback, clients speaking the public protocol.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "integration/harness.h"

namespace zs::integration {
namespace {

bool Entered(const pb::ServerMessage& m, uint32_t id) {
  if (!m.has_tick()) return false;
  for (const auto& e : m.tick().entered()) {
    if (e.id() == id) return true;
  }
  return false;
}
bool Left(const pb::ServerMessage& m, uint32_t id) {
  if (!m.has_tick()) return false;
  for (uint32_t l : m.tick().left()) {
    if (l == id) return true;
  }
  return false;
}
bool Updated(const pb::ServerMessage& m, uint32_t id) {
  if (!m.has_tick()) return false;
  for (const auto& u : m.tick().updated()) {
    if (u.id() == id && u.has_x()) return true;
  }
  uint32_t moved = 0;  // protocol 2: moves as deltas, ids as gaps from the previous id
  for (const uint32_t gap : m.tick().moved_ids()) {
    moved += gap;
    if (moved == id) return true;
  }
  uint32_t turned = 0;  // protocol 9: moves with a new facing, written the same way
  for (const uint32_t gap : m.tick().turned_ids()) {
    turned += gap;
    if (turned == id) return true;
  }
  return false;
}

TEST(Server, TwoClientsSeeEachOtherMoveSwingAndLeave) {
  ServerProcess server;
  TestClient a(server.port()), b(server.port());
  const auto wa = a.Login("alice");
  const auto wb = b.Login("bob");
  ASSERT_TRUE(wa && wb) << server.Log();
  EXPECT_EQ(wa->protocol_version(), wire::kProtocolVersion);
  EXPECT_EQ(wa->zone_name(), "plaza");
  EXPECT_EQ(wa->tick_rate(), 20u);
  const uint32_t ida = wa->entity_id(), idb = wb->entity_id();
  ASSERT_TRUE(a.ReadUntil([&](const auto& m) { return Entered(m, idb); }, 3));
  ASSERT_TRUE(b.ReadUntil([&](const auto& m) { return Entered(m, ida); }, 3));
  b.Move(0, 1, 1);
  ASSERT_TRUE(a.ReadUntil([&](const auto& m) { return Updated(m, idb); }, 3));
  auto acked =
      b.ReadUntil([](const auto& m) { return m.has_tick() && m.tick().last_input_seq() == 1; }, 3);
  EXPECT_TRUE(acked) << "the move's sequence number is echoed";
  b.Move(0, 0, 2);
  // Alice swings at Bob (PvP plaza): both see the hit event.
  pb::ClientMessage swing;
  swing.mutable_skill()->set_seq(1);
  swing.mutable_skill()->set_skill_id(2);  // whirlwind: radius 3 around the caster
  a.Send(swing);
  const auto hit = [&](const pb::ServerMessage& m) {
    if (!m.has_tick()) return false;
    for (const auto& h : m.tick().hits()) {
      if (h.attacker() == ida) return true;
    }
    return false;
  };
  EXPECT_TRUE(a.ReadUntil(hit, 3));
  EXPECT_TRUE(b.ReadUntil(hit, 3));
  // Bob disconnects: Alice sees him leave.
  b.Close();
  ASSERT_TRUE(a.ReadUntil([&](const auto& m) { return Left(m, idb); }, 3));
}

// What a client holds of one entity, from its frames.
struct Copy {
  bool known = false;
  int32_t x = 0, y = 0;
  uint32_t facing = 0;
  int turns = 0;                // listed in turned_ids (protocol 9)
  int updates_with_facing = 0;  // listed in `updated` with a facing
};

void ApplyTo(const pb::ServerMessage& m, uint32_t id, Copy* c) {
  if (!m.has_tick()) return;
  const pb::TickUpdate& t = m.tick();
  if (t.resync()) c->known = false;
  for (const uint32_t l : t.left()) c->known = c->known && l != id;
  for (const auto& e : t.entered()) {
    if (e.id() == id) *c = {.known = true, .x = e.x(), .y = e.y(), .facing = e.facing()};
  }
  for (const auto& u : t.updated()) {
    if (u.id() != id) continue;
    if (u.has_x()) c->x = u.x();
    if (u.has_y()) c->y = u.y();
    if (u.has_facing()) {
      c->facing = u.facing();
      ++c->updates_with_facing;
    }
  }
  uint32_t at = 0;
  for (int i = 0; i < t.moved_ids_size(); ++i) {
    at += t.moved_ids(i);
    if (at != id) continue;
    c->x += t.moved_deltas(2 * i);
    c->y += t.moved_deltas(2 * i + 1);
  }
  at = 0;
  for (int i = 0; i < t.turned_ids_size(); ++i) {
    at += t.turned_ids(i);
    if (at != id) continue;
    c->x += t.turned_deltas(2 * i);
    c->y += t.turned_deltas(2 * i + 1);
    c->facing = t.turned_facings(i);
    ++c->turns;
  }
}

// Protocol 9: a walker that changes direction reaches a client of version 9 as turns (a delta
// and the facing) and a client of version 8 as absolute updates; both hold its position and
// facing exactly as the walker's own frames say.
TEST(Server, TurnsReachNewClientsAsTurnsAndOlderOnesAsUpdates) {
  ServerProcess server;
  TestClient walker(server.port()), newer(server.port()), older(server.port());
  const auto ww = walker.Login("walker");
  const auto wn = newer.Login("newer");
  const auto wo = older.Login("older", wire::kTurnedVersion - 1);
  ASSERT_TRUE(ww && wn && wo) << server.Log();
  const uint32_t id = ww->entity_id();
  Copy self{.known = true, .x = ww->x(), .y = ww->y(), .facing = ww->facing()};
  const auto own = [&](const pb::ServerMessage& m) {
    if (!m.has_tick()) return;
    if (m.tick().self().has_x()) self.x = m.tick().self().x();
    if (m.tick().self().has_y()) self.y = m.tick().self().y();
    if (m.tick().self().has_facing()) self.facing = m.tick().self().facing();
  };
  // A small square, twice, three ticks a side (the players are fast: 2 m a tick).
  const float directions[][2] = {{-1, 0}, {0, -1}, {1, 0}, {0, 1}};
  for (uint32_t seq = 1; seq <= 8; ++seq) {
    walker.Move(directions[seq % 4][0], directions[seq % 4][1], seq);
    int ticks = 0;
    ASSERT_TRUE(walker.ReadUntil(
        [&](const pb::ServerMessage& m) {
          own(m);
          if (m.has_tick() && m.tick().last_input_seq() == seq) ++ticks;
          return ticks >= 3;
        },
        10));
  }
  walker.Move(0, 0, 9);
  uint64_t stopped = 0;  // the walker's first tick standing still
  ASSERT_TRUE(walker.ReadUntil(
      [&](const pb::ServerMessage& m) {
        own(m);
        if (!m.has_tick() || m.tick().last_input_seq() != 9 || m.tick().self().has_x()) {
          return false;
        }
        stopped = m.tick().tick();
        return true;
      },
      10));
  // Each watcher's copy once it has read that tick (all three are in the one zone).
  const auto read_to = [&](TestClient& c, Copy* copy) {
    return c.ReadUntil(
        [&](const pb::ServerMessage& m) {
          ApplyTo(m, id, copy);
          return m.has_tick() && m.tick().tick() >= stopped;
        },
        10);
  };
  Copy n, o;
  ASSERT_TRUE(read_to(newer, &n));
  ASSERT_TRUE(read_to(older, &o));
  for (const Copy* c : {&n, &o}) {
    EXPECT_TRUE(c->known);
    EXPECT_EQ(c->x, self.x);
    EXPECT_EQ(c->y, self.y);
    EXPECT_EQ(c->facing, self.facing);
  }
  EXPECT_GE(n.turns, 4) << "each change of direction while walking is a turn";
  EXPECT_EQ(o.turns, 0) << "a version-8 client is never sent turned_*";
  EXPECT_GE(o.updates_with_facing, 4) << "it gets each turn as an absolute update";
}

TEST(Server, WalkingOutOfViewAndBackLeavesOnceAndEntersOnce) {
  ServerProcess server;
  TestClient a(server.port()), b(server.port());
  const auto wa = a.Login("stay");
  const auto wb = b.Login("walker");
  ASSERT_TRUE(wa && wb);
  const uint32_t idb = wb->entity_id();
  ASSERT_TRUE(a.ReadUntil([&](const auto& m) { return Entered(m, idb); }, 3));
  int entered = 0, left = 0;
  auto count = [&](double seconds) {
    const double end = NowS() + seconds;
    while (NowS() < end) {
      auto m = a.Read(end - NowS());
      if (!m) continue;
      entered += Entered(*m, idb) ? 1 : 0;
      left += Left(*m, idb) ? 1 : 0;
    }
  };
  b.Move(0, -1, 1);  // 40 m/s south: beyond 40 + 5 in ~1.2 s
  count(2.0);
  b.Move(0, 1, 2);  // and back
  count(2.0);
  b.Move(0, 0, 3);
  count(0.5);
  EXPECT_EQ(left, 1);
  EXPECT_EQ(entered, 1);
}

TEST(Server, PingPong) {
  ServerProcess server;
  TestClient c(server.port());
  ASSERT_TRUE(c.Login("pinger"));
  pb::ClientMessage ping;
  ping.mutable_ping()->set_client_time(424242);
  c.Send(ping);
  auto pong = c.ReadUntil([](const auto& m) { return m.has_pong(); }, 3);
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->pong().client_time(), 424242u);
  EXPECT_GT(pong->pong().server_tick(), 0u);
}

// Every kind of bad input: the offender gets an error with a reason and is closed; a second
// client keeps receiving every tick without a gap.
TEST(Server, BadInputsHurtOnlyTheOffender) {
  ServerProcess server;
  TestClient observer(server.port());
  ASSERT_TRUE(observer.Login("observer"));
  TickWatch watch;
  const auto frame = [](std::string_view body) {
    std::string f;
    wire::AppendFrame(body, &f);
    return f;
  };
  struct Case {
    const char* name;
    bool login_first;
    std::function<void(TestClient&)> act;
    pb::ErrorCode want;
  };
  std::string oversize;
  wire::AppendVarint(1 << 20, &oversize);
  const std::vector<Case> cases = {
      {"oversize length prefix", false, [&](TestClient& c) { c.SendRaw(oversize); },
       pb::ERROR_CODE_BAD_FRAME},
      {"random bytes", false, [](TestClient& c) { c.SendRaw(std::string(64, '\xff')); },
       pb::ERROR_CODE_BAD_FRAME},
      {"unparsable payload", false, [&](TestClient& c) { c.SendRaw(frame("\xff\xff\xff")); },
       pb::ERROR_CODE_BAD_FRAME},
      {"unknown message", false, [&](TestClient& c) { c.SendRaw(frame("")); },
       pb::ERROR_CODE_BAD_FRAME},
      {"gameplay before hello", false, [](TestClient& c) { c.Move(1, 0, 1); },
       pb::ERROR_CODE_NOT_LOGGED_IN},
      {"wrong protocol version", false, [](TestClient& c) { c.Hello("old", 99); },
       pb::ERROR_CODE_PROTOCOL_VERSION},
      {"empty name", false, [](TestClient& c) { c.Hello(""); }, pb::ERROR_CODE_BAD_NAME},
      {"second hello", true, [](TestClient& c) { c.Hello("again"); },
       pb::ERROR_CODE_ALREADY_LOGGED_IN},
      {"NaN coordinates", true,
       [](TestClient& c) { c.Move(std::numeric_limits<float>::quiet_NaN(), 0, 5); },
       pb::ERROR_CODE_BAD_VALUE},
      {"truncated frame, then silence", false,
       [](TestClient& c) {
         c.SendRaw(
             std::string("\x64"
                         "0123456789",
                         11));
       },
       pb::ERROR_CODE_NOT_LOGGED_IN},  // the login timeout (1 s here) closes it
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    TestClient bad(server.port());
    if (k.login_first) {
      ASSERT_TRUE(bad.Login("bad"));
    }
    k.act(bad);
    const auto last = bad.ReadUntilClosed(4);
    EXPECT_TRUE(bad.closed());
    ASSERT_TRUE(last && last->has_error());
    EXPECT_EQ(last->error().code(), k.want) << last->error().message();
    EXPECT_FALSE(last->error().message().empty());
    watch.Drain(observer, 0.2);
  }
  // A flood: ~2,000 moves a second for four seconds (the limit is 60/s).
  {
    TestClient flood(server.port());
    ASSERT_TRUE(flood.Login("flood"));
    const double end = NowS() + 4.5;
    for (uint32_t seq = 1; NowS() < end && !flood.closed(); ++seq) {
      for (int i = 0; i < 100; ++i) flood.Move(1, 0, seq * 100 + i);
      watch.Drain(observer, 0.05);
      flood.Read(0);
    }
    const auto last = flood.ReadUntilClosed(3);
    EXPECT_TRUE(flood.closed());
    ASSERT_TRUE(last && last->has_error());
    EXPECT_EQ(last->error().code(), pb::ERROR_CODE_RATE_LIMITED);
  }
  watch.Drain(observer, 0.5);
  EXPECT_FALSE(watch.gap) << "the observer missed a tick";
  EXPECT_FALSE(observer.closed());
  const std::string metrics = server.HttpGet("/metrics");
  for (const char* reason :
       {"bad_frame", "unparsable", "unknown_message", "not_logged_in", "protocol_version",
        "second_hello", "bad_value", "flood", "login_timeout", "bad_name"}) {
    EXPECT_NE(metrics.find(std::string("zs_kicks_total{reason=\"") + reason + "\"}"),
              std::string::npos)
        << reason;
  }
}

TEST(Server, AClientThatNeverReadsIsCutOffAndOthersKeepTheirTickRate) {
  ServerProcess server;
  TestClient observer(server.port());
  ASSERT_TRUE(observer.Login("observer"));
  TestClient sleeper(server.port(), 4096);
  ASSERT_TRUE(sleeper.Login("sleeper"));
  const long rss_before = server.RssKiB();
  TickWatch watch;
  const double start = NowS();
  bool kicked = false;
  double most_queued = 0;  // the server's own accounting of what send queues hold
  // Its frames are small where it stands: filling the 12 KiB of socket buffers takes ~18 s.
  while (NowS() - start < 40 && !kicked) {
    watch.Drain(observer, 0.5);
    const std::string metrics = server.HttpGet("/metrics");
    most_queued = std::max(most_queued, MetricValue(metrics, "zs_send_queue_bytes"));
    kicked = metrics.find("zs_kicks_total{reason=\"slow_reader\"} 1") != std::string::npos;
  }
  // The sleeper's queue is capped by send_queue_bytes (512 KiB), counting every byte it holds.
  EXPECT_GT(most_queued, 0.0);
  EXPECT_LE(most_queued, 512 * 1024 + 64 * 1024);
  const double elapsed = NowS() - start;
  EXPECT_TRUE(kicked) << server.Log();
  EXPECT_FALSE(watch.gap);
  EXPECT_GT(static_cast<double>(watch.count), elapsed * 20 * 0.8) << "observer tick rate";
  EXPECT_LT(server.RssKiB() - rss_before, 20 * 1024) << "memory stays bounded";
  const std::string metrics = server.HttpGet("/metrics");
  EXPECT_EQ(metrics.find("zs_send_queue_overflows_total 0"), std::string::npos);
}

// limits.ticks_per_send: three ticks leave in one send, and the client still sees every tick,
// in order, at the tick rate; a Pong is not held back with them.
TEST(Server, TicksSentTogetherArriveEveryOneInOrder) {
  ServerProcess server("  idle_timeout_seconds: 60\n  ticks_per_send: 3\n");
  TestClient c(server.port());
  ASSERT_TRUE(c.Login("batched"));
  TickWatch watch;
  const double start = NowS();
  watch.Drain(c, 2);
  EXPECT_FALSE(watch.gap);
  EXPECT_GT(static_cast<double>(watch.count), (NowS() - start) * 20 * 0.8) << "tick rate";
  pb::ClientMessage ping;
  ping.mutable_ping()->set_client_time(7);
  c.Send(ping);
  bool pong = false;
  const double deadline = NowS() + 3;
  while (!pong && NowS() < deadline) {  // the ticks held before it come first, still in order
    auto m = c.Read(deadline - NowS());
    if (!m) continue;
    pong = m->has_pong();
    if (m->has_tick()) {
      EXPECT_EQ(m->tick().tick(), watch.last + 1);
      watch.last = m->tick().tick();
    }
  }
  EXPECT_TRUE(pong);
  const std::string metrics = server.HttpGet("/metrics");
  const double frames = MetricValue(metrics, "zs_messages_out_total");
  const double sends = MetricValue(metrics, "zs_sends_out_total");
  ASSERT_GT(sends, 0.0) << metrics;
  EXPECT_GT(frames / sends, 2.0) << "three ticks per send (the Welcome goes alone)";
}

TEST(Server, SigtermKicksEveryoneWithShutdownAndExitsZero) {
  ServerProcess server;
  TestClient a(server.port()), b(server.port());
  ASSERT_TRUE(a.Login("a") && b.Login("b"));
  server.Signal(SIGTERM);
  for (TestClient* c : {&a, &b}) {
    const auto last = c->ReadUntilClosed(4);
    ASSERT_TRUE(last && last->has_kick());
    EXPECT_EQ(last->kick().reason(), "shutdown");
  }
  EXPECT_EQ(server.Wait(5), std::optional<int>(0)) << server.Log();
}

TEST(Server, IdlePlayersAreKicked) {
  ServerProcess server("  idle_timeout_seconds: 1\n");
  TestClient c(server.port());
  ASSERT_TRUE(c.Login("afk"));
  const auto last = c.ReadUntilClosed(5);
  ASSERT_TRUE(last && last->has_kick());
  EXPECT_EQ(last->kick().reason(), "idle");
}

TEST(Server, ConnectionCapsRefuseWithAReason) {
  ServerProcess server("  max_connections_per_ip: 2\n");
  TestClient a(server.port()), b(server.port()), c(server.port());
  const auto last = c.ReadUntilClosed(3);
  ASSERT_TRUE(last && last->has_error());
  EXPECT_EQ(last->error().code(), pb::ERROR_CODE_SERVER_FULL);
  EXPECT_TRUE(a.Login("a"));
}

TEST(Server, HealthAndMetricsEndpoints) {
  ServerProcess server;
  EXPECT_EQ(server.HttpGet("/healthz"), "ok\n");
  const std::string m = server.HttpGet("/metrics");
  for (const char* name :
       {"zs_tick_duration_seconds_bucket", "zs_connections", "zs_bytes_out_total",
        "zs_sends_out_total", "zs_zone_entities{zone=\"plaza\"}", "zs_messages_in_total",
        "zs_interest_level 0", "zs_interest_scale 1", "zs_send_queue_bytes",
        "zs_tick_phase_seconds_total{phase=\"world\"}",
        "zs_tick_phase_seconds_total{phase=\"deliver\"}"}) {
    EXPECT_NE(m.find(name), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace zs::integration
