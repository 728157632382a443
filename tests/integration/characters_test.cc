// Characters that last (issue 10), on the real zone_server with real storage: a SQLite file in
// a temp dir, and a real PostgreSQL server that the test starts itself (tests/support).
//
// - Restart: log in, get hurt, walk, disconnect, kill the server, start it again: the same
//   zone, position and hp. The same across a SIGTERM while logged in, and after a zone change.
// - Crash: kill -9 while players walk; each comes back where the last checkpoint put it; the
//   worst loss in seconds of play is measured and printed (goal: <= checkpoint_seconds).
// - A second login with the same name takes the character over: the first connection gets
//   Kick "logged_in_elsewhere", one entity only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "integration/harness.h"
#include "support/postgres_server.h"

namespace zs::integration {
namespace {

enum class Backend { kSqlite, kPostgres };

constexpr double kCheckpointSeconds = 1.0;
constexpr float kPlayerSpeed = 40.0f;  // tests/integration/world/world.yaml
constexpr uint32_t kSword = 1;         // config/skills.yaml: 12 damage

// One place for the characters of a test: a SQLite file in a temp dir, or a fresh database on a
// PostgreSQL server shared by the suite.
class Storage {
 public:
  explicit Storage(Backend backend) : backend_(backend) {
    dir_ = fs::temp_directory_path() /
           ("zs_chars_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    if (backend_ == Backend::kPostgres) {
      database_ = "zs_" + std::to_string(::getpid()) + "_" + std::to_string(counter_);
      Postgres().CreateDatabase(database_);
    }
  }
  ~Storage() { fs::remove_all(dir_); }
  // The server.yaml lines that point the server here.
  [[nodiscard]] std::string Yaml() const {
    const std::string common = "checkpoint_seconds: " + std::to_string(kCheckpointSeconds) +
                               ", shutdown_timeout_seconds: 10";
    if (backend_ == Backend::kSqlite) {
      return "storage: {backend: sqlite, path: " + db().string() + ", " + common + "}\n";
    }
    return "storage: {backend: postgres, postgres: \"" + Postgres().conninfo(database_) + "\", " +
           common + "}\n";
  }
  [[nodiscard]] fs::path db() const { return dir_ / "characters.db"; }
  [[nodiscard]] const fs::path& dir() const { return dir_; }

  static test::PostgresServer& Postgres() {
    static test::PostgresServer server;  // one for the whole run, stopped at exit
    return server;
  }

 private:
  static inline int counter_ = 0;
  Backend backend_;
  fs::path dir_;
  std::string database_;
};

void Skill(TestClient& c, uint32_t skill, float facing, uint32_t seq) {
  pb::ClientMessage m;
  m.mutable_skill()->set_seq(seq);
  m.mutable_skill()->set_skill_id(skill);
  m.mutable_skill()->set_facing(wire::ToTurn16(facing));
  c.Send(m);
}

// What the server says about a character right now: a second login takes it over and gets a
// Welcome with the server's own state (the first connection is kicked). Returns that client.
std::unique_ptr<TestClient> TakeOver(uint16_t port, const std::string& name, pb::Welcome* truth) {
  auto c = std::make_unique<TestClient>(port);
  auto w = c->Login(name);
  EXPECT_TRUE(w.has_value()) << "takeover login of " << name;
  if (w) *truth = *w;
  return c;
}

void ExpectSameCharacter(const pb::Welcome& got, const pb::Welcome& want) {
  EXPECT_EQ(got.zone_id(), want.zone_id());
  EXPECT_EQ(got.x(), want.x());
  EXPECT_EQ(got.y(), want.y());
  EXPECT_EQ(got.facing(), want.facing());
  EXPECT_EQ(got.you().hp(), want.you().hp());
  EXPECT_EQ(got.you().dead(), want.you().dead());
  EXPECT_EQ(got.player_name(), want.player_name());
}

// Aria is hit once by Bob's sword, walks north for a while and stops: returns the server's state
// of Aria (by a takeover, which leaves `*aria` logged in through the new connection).
pb::Welcome HurtWalkAndStop(ServerProcess& s, std::unique_ptr<TestClient>* aria) {
  TestClient first(s.port());
  EXPECT_TRUE(first.Login("Aria"));
  TestClient bob(s.port());
  EXPECT_TRUE(bob.Login("Bob"));
  Skill(bob, kSword, 0, 1);  // both stand on the spawn point: the arc covers Aria
  Sleep(0.2);                // (once Aria walks north she is outside the eastward arc)
  first.Move(0, 1, 1);
  Sleep(0.4);
  first.Move(0, 0, 2);
  Sleep(0.3);
  pb::Welcome truth;
  *aria = TakeOver(s.port(), "Aria", &truth);
  const auto kick = first.ReadUntilClosed(3);
  EXPECT_TRUE(kick && kick->has_kick() && kick->kick().reason() == "logged_in_elsewhere")
      << (kick ? kick->DebugString() : "no kick");
  EXPECT_EQ(truth.you().hp(), 100 - 12) << "Bob's sword hit Aria once";
  EXPECT_GT(truth.y(), 100 * 100 + 200) << "Aria walked north";
  EXPECT_EQ(MetricValue(s.HttpGet("/metrics"), "zs_players"), 2) << "one entity for Aria";
  return truth;
}

class Characters : public ::testing::TestWithParam<Backend> {};

TEST_P(Characters, AfterADisconnectAndACrashTheCharacterIsWhereItWas) {
  Storage storage(GetParam());
  pb::Welcome truth;
  {
    ServerProcess s("  idle_timeout_seconds: 60\n", storage.Yaml());
    std::unique_ptr<TestClient> aria;
    truth = HurtWalkAndStop(s, &aria);
    aria->Close();  // a disconnect: saved at once, not at the next checkpoint
    Sleep(0.5);
    s.Signal(SIGKILL);  // so only the logout's own save can have kept it
    ASSERT_TRUE(s.Wait(5));
  }
  ServerProcess again("  idle_timeout_seconds: 60\n", storage.Yaml());
  TestClient c(again.port());
  const auto w = c.Login("Aria");
  ASSERT_TRUE(w) << again.Log();
  ExpectSameCharacter(*w, truth);
}

TEST_P(Characters, ASigtermWhileLoggedInSavesTheCharacterAndExitsZero) {
  Storage storage(GetParam());
  pb::Welcome truth;
  {
    ServerProcess s("  idle_timeout_seconds: 60\n", storage.Yaml());
    std::unique_ptr<TestClient> aria;
    truth = HurtWalkAndStop(s, &aria);
    s.Signal(SIGTERM);  // Aria still logged in
    const auto code = s.Wait(15);
    ASSERT_TRUE(code.has_value());
    EXPECT_EQ(*code, 0) << s.Log();
    EXPECT_NE(s.Log().find("characters saved"), std::string::npos) << s.Log();
  }
  ServerProcess again("  idle_timeout_seconds: 60\n", storage.Yaml());
  TestClient c(again.port());
  const auto w = c.Login("Aria");
  ASSERT_TRUE(w) << again.Log();
  ExpectSameCharacter(*w, truth);
}

TEST_P(Characters, AZoneChangeIsSavedAtOnce) {
  Storage storage(GetParam());
  {
    ServerProcess s("  idle_timeout_seconds: 60\n", storage.Yaml());
    TestClient c(s.port());
    ASSERT_TRUE(c.Login("Wanderer"));
    c.Move(1, 0, 1);  // east, into the plaza's portal to the yard (x 390: about 7 s)
    const auto changed =
        c.ReadUntil([](const pb::ServerMessage& m) { return m.has_zone_changed(); }, 15);
    ASSERT_TRUE(changed) << s.Log();
    Sleep(0.3);  // well under the 1 s checkpoint: only the zone change's own save counts
    s.Signal(SIGKILL);
    ASSERT_TRUE(s.Wait(5));
  }
  ServerProcess again("  idle_timeout_seconds: 60\n", storage.Yaml());
  TestClient c(again.port());
  const auto w = c.Login("Wanderer");
  ASSERT_TRUE(w) << again.Log();
  EXPECT_EQ(w->zone_id(), 2u) << "the yard";
  EXPECT_EQ(w->zone_name(), "yard");
}

// kill -9 while 8 players walk in straight lines at full speed: after the restart each is on its
// line, behind where it was by at most the checkpoint interval (plus a tick or two).
TEST_P(Characters, AfterKillNineEachCharacterIsWhereTheLastCheckpointPutIt) {
  Storage storage(GetParam());
  constexpr int kPlayers = 8;
  std::vector<float> angle(kPlayers);
  double walked_s = 0;
  {
    ServerProcess s("  idle_timeout_seconds: 60\n", storage.Yaml());
    std::vector<std::unique_ptr<TestClient>> clients;
    for (int i = 0; i < kPlayers; ++i) {
      clients.push_back(std::make_unique<TestClient>(s.port()));
      ASSERT_TRUE(clients.back()->Login("Walker" + std::to_string(i)));
      angle[i] = static_cast<float>(i) * (kPi / 2) / (kPlayers - 1);  // east .. north
    }
    const double start = NowS();
    for (int i = 0; i < kPlayers; ++i) {
      clients[i]->Move(std::cos(angle[i]), std::sin(angle[i]), 1);
    }
    Sleep(3.55);  // some time after the third checkpoint
    s.Signal(SIGKILL);
    walked_s = NowS() - start;
    ASSERT_TRUE(s.Wait(5));
  }
  ServerProcess again("  idle_timeout_seconds: 60\n", storage.Yaml());
  double worst_loss = 0;
  for (int i = 0; i < kPlayers; ++i) {
    TestClient c(again.port());
    const auto w = c.Login("Walker" + std::to_string(i));
    ASSERT_TRUE(w) << again.Log();
    const double dx = (w->x() - 10000) / 100.0, dy = (w->y() - 10000) / 100.0;
    const double along = std::hypot(dx, dy);
    if (along > 1) {  // on its line (the direction it was walking)
      EXPECT_NEAR(std::atan2(dy, dx), angle[i], 0.02) << i;
    }
    const double loss = walked_s - along / kPlayerSpeed;
    worst_loss = std::max(worst_loss, loss);
  }
  std::printf(
      "[ characters ] kill -9 after %.2f s of walking: worst loss %.2f s of play "
      "(checkpoint every %.1f s)\n",
      walked_s, worst_loss, kCheckpointSeconds);
  RecordProperty("worst_loss_seconds", std::to_string(worst_loss));
  if (!kUnderTsan) {  // a promise about time: TSan stretches the tick 5-15x
    EXPECT_LE(worst_loss, kCheckpointSeconds + 0.25) << "goal: at most one checkpoint interval";
  }
  EXPECT_GT(worst_loss, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Backends, Characters,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const auto& backend) {
                           return backend.param == Backend::kSqlite ? "Sqlite" : "Postgres";
                         });

// A database that stops answering without closing the connection (every PostgreSQL process
// stopped): SIGTERM still ends the server within storage.shutdown_timeout_seconds and a short
// grace, exit 0, saying what could not be saved, instead of waiting for the database forever.
TEST(Characters, ASigtermWhileTheDatabaseHangsStillExitsZeroWithinItsTimeout) {
  test::PostgresServer pg;  // its own: this test stops every process of it
  pg.CreateDatabase("zs_hang");
  ServerProcess s("  idle_timeout_seconds: 60\n",
                  "storage: {backend: postgres, postgres: \"" + pg.conninfo("zs_hang") +
                      "\", checkpoint_seconds: 1, shutdown_timeout_seconds: 2}\n");
  TestClient c(s.port());
  ASSERT_TRUE(c.Login("Aria")) << s.Log();
  c.Move(1, 0, 1);
  Sleep(0.3);
  pg.Freeze();
  Sleep(1.5);  // a checkpoint is due meanwhile: the worker is inside the stopped database
  const double start = NowS();
  s.Signal(SIGTERM);
  const auto code = s.Wait(20);
  const double took = NowS() - start;
  pg.Thaw();
  ASSERT_TRUE(code.has_value()) << "still waiting for the database after 20 s\n" << s.Log();
  EXPECT_EQ(*code, 0) << s.Log();
  EXPECT_LT(took, 10.0) << "shutdown_timeout_seconds 2 + the grace + closing the connections";
  EXPECT_NE(s.Log().find("could not be saved within storage.shutdown_timeout_seconds"),
            std::string::npos)
      << s.Log();
  EXPECT_NE(s.Log().find("exiting without it"), std::string::npos) << s.Log();
}

TEST(Characters, ACorruptDatabaseFileStopsStartupNamingTheFile) {
  Storage storage(Backend::kSqlite);
  std::ofstream(storage.db()) << std::string(8192, 'x');
  ServerProcess s("  idle_timeout_seconds: 60\n", storage.Yaml());
  const auto code = s.Wait(10);
  ASSERT_TRUE(code.has_value()) << "still running on a corrupt database";
  EXPECT_NE(*code, 0);
  EXPECT_NE(s.Log().find(storage.db().string()), std::string::npos) << s.Log();
}

// A login whose character row is slow to come (every PostgreSQL process stopped) waits on the
// storage thread; the zone keeps ticking at its rate for the players already in, and the login
// completes once the database answers again.
TEST(Characters, ALoginWaitingForItsRowDoesNotStallTheTick) {
  test::PostgresServer pg;  // its own: this test stops every process of it
  pg.CreateDatabase("zs_slow_load");
  ServerProcess s("  idle_timeout_seconds: 60\n", "storage: {backend: postgres, postgres: \"" +
                                                      pg.conninfo("zs_slow_load") +
                                                      "\", checkpoint_seconds: 10}\n");
  TestClient steady(s.port());
  ASSERT_TRUE(steady.Login("Steady")) << s.Log();
  steady.Move(0, 1, 1);
  pg.Freeze();
  TestClient late(s.port());
  late.Hello("Late");
  TickWatch watch;
  watch.Drain(steady, 0.2);  // frames already queued before the freeze
  watch.count = 0;
  const double start = NowS();
  watch.Drain(steady, 2.0);  // Steady reads its frames meanwhile
  const double elapsed = NowS() - start;
  const auto waiting = late.Read(0.05);
  EXPECT_FALSE(waiting && waiting->has_welcome()) << "no row yet: no Welcome";
  pg.Thaw();
  EXPECT_FALSE(watch.gap) << "Steady's ticks follow each other";
  // A promise about time: TSan stretches the tick 5-15x, so it gets a loose bound (a tick that
  // waited for the row would bring ~0 frames in these 2 s).
  const double floor = kUnderTsan ? 10 : 0.85 * 20 * elapsed;
  EXPECT_GE(static_cast<double>(watch.count), floor)
      << "the plaza keeps its rate while the login waits for its row";
  const auto welcome = late.ReadUntil(
      [](const pb::ServerMessage& m) { return m.has_welcome() || m.has_error(); }, 10);
  ASSERT_TRUE(welcome) << s.Log();
  EXPECT_TRUE(welcome->has_welcome()) << welcome->DebugString();
}

}  // namespace
}  // namespace zs::integration
