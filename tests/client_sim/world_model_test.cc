// WorldModel: a long run of protocol-abiding ticks (random, fixed seed) counts no violation and
// keeps every position exactly where the deltas put it; each broken promise, crafted into one
// otherwise good tick, is counted once under its own kind and nothing else is.
#include "client_sim/world_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "client_sim/random_messages.h"
#include "client_sim/stats.h"
#include "core/vec2.h"
#include "zone.pb.h"

namespace zs {
inline void PrintTo(const Vec2& v, std::ostream* os) { *os << "(" << v.x << ", " << v.y << ")"; }
}  // namespace zs

namespace zs::sim {
namespace {

namespace pb = ::zs::zone::v1;
using Clock = WorldModel::Clock;
using ViolationCounts = std::map<std::string, uint64_t>;

constexpr uint32_t kSelf = 1;

// A wire position (centimetres) the way the model reports it (metres).
Vec2 Cm(int32_t x, int32_t y) {
  return {static_cast<float>(x) / 100.0f, static_cast<float>(y) / 100.0f};
}

ViolationCounts Violations(Stats& stats) {
  std::lock_guard lock(stats.mu);
  return stats.violations;
}

pb::Welcome MakeWelcome(CmPoint min, CmPoint max, CmPoint at) {
  pb::Welcome w;
  w.set_protocol_version(2);
  w.set_entity_id(kSelf);
  w.set_zone_id(1);
  w.set_zone_min_x(min.x);
  w.set_zone_min_y(min.y);
  w.set_zone_max_x(max.x);
  w.set_zone_max_y(max.y);
  w.set_x(at.x);
  w.set_y(at.y);
  return w;
}

void Enter(pb::TickUpdate* t, uint32_t id, int32_t x, int32_t y, bool monster = true) {
  pb::EntityEnter* e = t->add_entered();
  e->set_id(id);
  e->set_kind(monster ? pb::ENTITY_KIND_MONSTER : pb::ENTITY_KIND_PLAYER);
  e->set_x(x);
  e->set_y(y);
  e->set_alive(true);
}

// Moved entities by id (ascending) with their deltas, encoded as the protocol says.
void Move(pb::TickUpdate* t, const std::vector<uint32_t>& ids, const std::vector<int32_t>& deltas) {
  uint32_t previous = 0;
  for (const uint32_t id : ids) {
    t->add_moved_ids(id - previous);
    previous = id;
  }
  for (const int32_t d : deltas) t->add_moved_deltas(d);
}

// Turned entities (v9): as Move, and a facing per id.
void Turn(pb::TickUpdate* t, const std::vector<uint32_t>& ids, const std::vector<int32_t>& deltas) {
  uint32_t previous = 0;
  for (const uint32_t id : ids) {
    t->add_turned_ids(id - previous);
    t->add_turned_facings(16384);
    previous = id;
  }
  for (const int32_t d : deltas) t->add_turned_deltas(d);
}

void Crowd(pb::TickUpdate* t, uint32_t grid, const std::vector<uint32_t>& counts, uint32_t total) {
  pb::CrowdSummary* c = t->mutable_crowd();
  c->set_grid(grid);
  c->set_cell_size(1000);
  for (const uint32_t n : counts) c->add_counts(n);
  c->set_total(total);
}

// Welcomed into a 100 m x 100 m zone at (5 m, 6 m), knowing monsters 5 at (1, 2) and 9 at
// (10, 10) and player 12 at (50, 50).
class WorldModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_.Welcome(MakeWelcome({0, 0}, {10000, 10000}, {500, 600}));
    pb::TickUpdate t = NextTick();
    Enter(&t, 5, 100, 200);
    Enter(&t, 9, 1000, 1000);
    Enter(&t, 12, 5000, 5000, /*monster=*/false);
    Apply(t);
    ASSERT_EQ(Violations(stats_), ViolationCounts{});
  }

  // The next tick in sequence: consecutive number, same ack, self present.
  pb::TickUpdate NextTick() {
    pb::TickUpdate t;
    t.set_tick(++tick_);
    t.set_last_input_seq(ack_);
    t.mutable_self()->set_id(kSelf);
    return t;
  }
  void Apply(const pb::TickUpdate& t,
             std::chrono::milliseconds after = std::chrono::milliseconds(50)) {
    now_ += after;
    model_.ApplyTick(t, now_);
  }
  // Stands at (x, y) (a good tick moving self there) and returns the nearest living monster.
  std::optional<Vec2> NearestFrom(int32_t x, int32_t y) {
    pb::TickUpdate t = NextTick();
    t.mutable_self()->set_x(x);
    t.mutable_self()->set_y(y);
    Apply(t);
    return model_.NearestMonster();
  }
  // The model has a living monster exactly at (x, y) centimetres.
  void ExpectMonsterAt(int32_t x, int32_t y) {
    EXPECT_EQ(NearestFrom(x, y), Cm(x, y)) << "no monster at (" << x << ", " << y << ") cm";
  }

  Stats stats_;
  WorldModel model_{&stats_};
  uint64_t tick_ = 100;
  uint32_t ack_ = 10;
  Clock::time_point now_;
};

TEST_F(WorldModelTest, GoodTickWithEveryListCountsNothingAndAppliesIt) {
  ack_ = 11;
  pb::TickUpdate t = NextTick();
  t.mutable_self()->set_x(700);
  t.add_left(12);
  Enter(&t, 20, 3000, 3000);
  pb::EntityUpdate* u = t.add_updated();
  u->set_id(9);
  u->set_y(1500);  // absolute; x stays 1000
  Move(&t, {5}, {-50, 30});
  Crowd(&t, 2, {1, 0, 3, 2}, 6);
  Apply(t);
  EXPECT_EQ(Violations(stats_), ViolationCounts{});
  EXPECT_EQ(model_.position(), Cm(700, 600));
  EXPECT_EQ(stats_.crowd_summaries.load(), 1u);
  EXPECT_EQ(stats_.crowd_total.load(), 6u);

  t = NextTick();
  Move(&t, {5, 9, 20}, {1, 1, -1000, 0, 7001, -8});
  Apply(t);
  EXPECT_EQ(Violations(stats_), ViolationCounts{});
  ExpectMonsterAt(51, 231);      // 5: (100, 200) + (-50, 30) + (1, 1)
  ExpectMonsterAt(0, 1500);      // 9: y updated, then x moved
  ExpectMonsterAt(10001, 2992);  // 20: (3000, 3000) + (7001, -8); 1 cm past the edge is slack
  EXPECT_EQ(Violations(stats_), ViolationCounts{});

  t = NextTick();  // v9: turns are deltas too, beside moves of other entities
  Move(&t, {9}, {5, 5});
  Turn(&t, {5, 20}, {-1, -1, -7001, 8});
  Apply(t);
  EXPECT_EQ(Violations(stats_), ViolationCounts{});
  ExpectMonsterAt(50, 230);
  ExpectMonsterAt(5, 1505);
  ExpectMonsterAt(3000, 3000);
}

TEST_F(WorldModelTest, DeltasAddUpOverManyTicks) {
  int32_t x = 100, y = 200;
  for (int i = 0; i < 200; ++i) {
    pb::TickUpdate t = NextTick();
    const int32_t dx = (i % 7) - 3, dy = (i % 2 == 0) ? 5 : -4;
    Move(&t, {5}, {dx, dy});
    Apply(t);
    x += dx;
    y += dy;
  }
  EXPECT_EQ(Violations(stats_), ViolationCounts{});
  ExpectMonsterAt(x, y);
  ExpectMonsterAt(1000, 1000);  // 9 never moved
}

TEST_F(WorldModelTest, DeadMonstersAndPlayersAreNotTargets) {
  pb::TickUpdate t = NextTick();
  pb::EntityUpdate* u = t.add_updated();
  u->set_id(5);
  u->set_alive(false);
  Apply(t);
  EXPECT_EQ(NearestFrom(5000, 5000), Cm(1000, 1000));  // player 12 stands there; 5 is dead
  t = NextTick();
  t.add_left(9);
  Apply(t);
  EXPECT_EQ(NearestFrom(5000, 5000), std::nullopt);
  EXPECT_EQ(Violations(stats_), ViolationCounts{});
}

struct BadTick {
  const char* name;
  const char* kind;  // the one violation it must count
  void (*spoil)(pb::TickUpdate* t);
};

class WorldModelBadTickTest : public WorldModelTest,
                              public ::testing::WithParamInterface<BadTick> {};

TEST_P(WorldModelBadTickTest, CountsItsKindOnceAndNothingElse) {
  pb::TickUpdate t = NextTick();
  GetParam().spoil(&t);
  Apply(t);
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{GetParam().kind, 1}}));
}

// On top of the fixture's good next tick (known: monsters 5 and 9, player 12; zone 0..10000 cm).
const BadTick kBadTicks[] = {
    {"EnteredTwice", "entered_twice", [](pb::TickUpdate* t) { Enter(t, 5, 0, 0); }},
    {"SelfEntered", "self_entered", [](pb::TickUpdate* t) { Enter(t, kSelf, 0, 0); }},
    {"UnknownLeave", "unknown_leave", [](pb::TickUpdate* t) { t->add_left(77); }},
    {"LeftTwice", "unknown_leave",
     [](pb::TickUpdate* t) {
       t->add_left(5);
       t->add_left(5);
     }},
    {"UnknownUpdate", "unknown_update", [](pb::TickUpdate* t) { t->add_updated()->set_id(77); }},
    {"UnknownMove", "unknown_move",
     [](pb::TickUpdate* t) {
       Move(t, {77}, {0, 0});
     }},
    {"MovedAfterLeaving", "unknown_move",
     [](pb::TickUpdate* t) {
       t->add_left(5);
       Move(t, {5}, {1, 1});
     }},
    {"IdSumPastUint32", "unknown_move",  // 9 + 0xFFFFFFFC wraps to 5 in 32 bits: not 5
     [](pb::TickUpdate* t) {
       t->add_moved_ids(9);
       t->add_moved_ids(0xFFFFFFFC);
       for (int i = 0; i < 4; ++i) t->add_moved_deltas(0);
     }},
    {"OddDeltas", "bad_moved_deltas",
     [](pb::TickUpdate* t) {
       t->add_moved_ids(5);
       t->add_moved_deltas(1);
     }},
    {"DeltasWithoutIds", "bad_moved_deltas",
     [](pb::TickUpdate* t) {
       t->add_moved_deltas(1);
       t->add_moved_deltas(1);
     }},
    {"RepeatedMovedId", "moved_not_ascending",
     [](pb::TickUpdate* t) {
       t->add_moved_ids(5);
       t->add_moved_ids(0);
       for (int i = 0; i < 4; ++i) t->add_moved_deltas(1);
     }},
    {"MovedAndUpdated", "moved_and_updated",
     [](pb::TickUpdate* t) {
       t->add_updated()->set_id(5);
       Move(t, {5}, {1, 1});
     }},
    {"MovedPastMaxX", "moved_out_of_zone",
     [](pb::TickUpdate* t) {
       Move(t, {9}, {9002, 0});
     }},
    {"MovedPastMaxY", "moved_out_of_zone",
     [](pb::TickUpdate* t) {
       Move(t, {9}, {0, 9002});
     }},
    {"MovedPastMinX", "moved_out_of_zone",
     [](pb::TickUpdate* t) {
       Move(t, {5}, {-102, 0});
     }},
    {"MovedByWrappingDelta", "moved_out_of_zone",
     [](pb::TickUpdate* t) {
       Move(t, {9}, {std::numeric_limits<int32_t>::min(), 0});
     }},
    {"UnknownTurn", "unknown_turn",
     [](pb::TickUpdate* t) {
       Turn(t, {77}, {0, 0});
     }},
    {"TurnWithoutFacing", "bad_turned_lists",
     [](pb::TickUpdate* t) {
       Turn(t, {5}, {1, 1});
       t->clear_turned_facings();
     }},
    {"OddTurnDeltas", "bad_turned_lists", [](pb::TickUpdate* t) { Turn(t, {5}, {1}); }},
    {"RepeatedTurnedId", "turned_not_ascending",
     [](pb::TickUpdate* t) {
       Turn(t, {5, 5}, {1, 1, 1, 1});
     }},
    {"TurnedAndMoved", "turned_listed_twice",
     [](pb::TickUpdate* t) {
       Move(t, {5}, {1, 1});
       Turn(t, {5}, {1, 1});
     }},
    {"TurnedAndUpdated", "turned_listed_twice",
     [](pb::TickUpdate* t) {
       t->add_updated()->set_id(9);
       Turn(t, {9}, {1, 1});
     }},
    {"TurnedPastMaxX", "turned_out_of_zone",
     [](pb::TickUpdate* t) {
       Turn(t, {9}, {9002, 0});
     }},
    {"CrowdCountsDoNotFillGrid", "bad_crowd",
     [](pb::TickUpdate* t) {
       Crowd(t, 2, {1, 0, 0}, 1);
     }},
    {"CrowdCountsDoNotAddUp", "bad_crowd", [](pb::TickUpdate* t) { Crowd(t, 1, {2}, 3); }},
    {"TickSkipped", "tick_gap", [](pb::TickUpdate* t) { t->set_tick(t->tick() + 1); }},
    {"TickRepeated", "tick_gap", [](pb::TickUpdate* t) { t->set_tick(t->tick() - 1); }},
    {"NoSelf", "missing_self", [](pb::TickUpdate* t) { t->clear_self(); }},
    {"SomeoneElseAsSelf", "missing_self", [](pb::TickUpdate* t) { t->mutable_self()->set_id(2); }},
    {"AckWentBack", "ack_went_back", [](pb::TickUpdate* t) { t->set_last_input_seq(9); }},
};

INSTANTIATE_TEST_SUITE_P(Kinds, WorldModelBadTickTest, ::testing::ValuesIn(kBadTicks),
                         [](const ::testing::TestParamInfo<BadTick>& case_info) {
                           return std::string(case_info.param.name);
                         });

TEST(WorldModel, EveryBadTickKindIsCovered) {
  // The kinds world_model.h lists; ZoneChanged and tick_before_welcome have their own tests.
  std::map<std::string, int> cases;
  for (const BadTick& b : kBadTicks) ++cases[b.kind];
  for (const char* kind :
       {"entered_twice", "self_entered", "unknown_leave", "unknown_update", "unknown_move",
        "bad_moved_deltas", "moved_not_ascending", "moved_and_updated", "moved_out_of_zone",
        "unknown_turn", "bad_turned_lists", "turned_not_ascending", "turned_listed_twice",
        "turned_out_of_zone", "bad_crowd", "tick_gap", "missing_self", "ack_went_back"}) {
    EXPECT_GT(cases[kind], 0) << kind;
  }
}

TEST_F(WorldModelTest, SeveralBrokenPromisesInOneTickAreEachCounted) {
  pb::TickUpdate t = NextTick();
  t.set_tick(t.tick() + 1);  // tick_gap
  t.add_left(77);            // unknown_leave
  Enter(&t, 9, 0, 0);        // entered_twice
  t.add_updated()->set_id(5);
  t.add_moved_ids(5);   // moved_and_updated
  t.add_moved_ids(0);   // moved_not_ascending
  t.add_moved_ids(10);  // 15: unknown_move
  for (int i = 0; i < 6; ++i) t.add_moved_deltas(1);
  Crowd(&t, 2, {1, 1, 1, 1}, 5);  // bad_crowd
  Apply(t);
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{"bad_crowd", 1},
                                                 {"entered_twice", 1},
                                                 {"moved_and_updated", 1},
                                                 {"moved_not_ascending", 1},
                                                 {"tick_gap", 1},
                                                 {"unknown_leave", 1},
                                                 {"unknown_move", 1}}));
}

TEST_F(WorldModelTest, RejectedMovesLeavePositionsAlone) {
  pb::TickUpdate t = NextTick();
  t.add_moved_ids(9);
  t.add_moved_ids(0xFFFFFFFC);  // wraps to 5 in 32 bits
  for (const int32_t d : {0, 0, 400, 400}) t.add_moved_deltas(d);
  Apply(t);
  t = NextTick();
  Move(&t, {5}, {1});  // odd: nothing applied
  Apply(t);
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{"bad_moved_deltas", 1}, {"unknown_move", 1}}));
  ExpectMonsterAt(100, 200);
}

TEST_F(WorldModelTest, ZoneChangeAfterEverythingLeftCountsNothing) {
  pb::TickUpdate t = NextTick();
  for (const uint32_t id : {5u, 9u, 12u}) t.add_left(id);
  Apply(t);
  pb::ZoneChanged z;
  z.set_zone_id(2);
  z.set_zone_min_x(-20000);
  z.set_zone_min_y(-20000);
  z.set_zone_max_x(0);
  z.set_zone_max_y(0);
  z.set_x(-300);
  z.set_y(-400);
  model_.ZoneChanged(z);
  EXPECT_EQ(model_.zone_id(), 2u);
  EXPECT_EQ(model_.zone_min(), Cm(-20000, -20000));
  EXPECT_EQ(model_.zone_max(), Cm(0, 0));
  EXPECT_EQ(model_.position(), Cm(-300, -400));

  t = NextTick();
  Enter(&t, 5, -1000, -1000);  // the same id again, in the new zone
  Apply(t);
  EXPECT_EQ(Violations(stats_), ViolationCounts{});
  t = NextTick();
  Move(&t, {5}, {1001, 0});  // 1 cm: within the slack at the new zone's max x
  Apply(t);
  EXPECT_EQ(Violations(stats_), ViolationCounts{});
  t = NextTick();
  Move(&t, {5}, {1, 0});  // 2 cm past it
  Apply(t);
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{"moved_out_of_zone", 1}}));
}

TEST_F(WorldModelTest, ZoneChangeWhileEntitiesAreKnownIsCounted) {
  pb::ZoneChanged z;
  z.set_zone_id(2);
  z.set_zone_max_x(10000);
  z.set_zone_max_y(10000);
  model_.ZoneChanged(z);
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{"zone_change_without_leave", 1}}));
  pb::TickUpdate t = NextTick();
  Enter(&t, 5, 0, 0);  // forgotten on the change: not entered twice
  Apply(t);
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{"zone_change_without_leave", 1}}));
}

TEST_F(WorldModelTest, ResyncForgivesTheGapAndForgetsEverything) {
  pb::TickUpdate t = NextTick();
  tick_ += 40;  // a dropped backlog
  t.set_tick(tick_);
  t.set_resync(true);
  Enter(&t, 5, 300, 300);  // resync lists what is known again
  Apply(t);
  EXPECT_EQ(Violations(stats_), ViolationCounts{});
  ExpectMonsterAt(300, 300);
  t = NextTick();
  Move(&t, {9}, {1, 1});  // not listed on resync: no longer known
  Apply(t);
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{"unknown_move", 1}}));
}

TEST_F(WorldModelTest, ResetStartsANewConnection) {
  model_.Reset();
  pb::TickUpdate t;
  t.set_tick(3);  // any number: no tick seen on this connection yet
  t.mutable_self()->set_id(kSelf);
  Apply(t);
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{"tick_before_welcome", 1}}));
  model_.Welcome(MakeWelcome({0, 0}, {10000, 10000}, {0, 0}));
  t.set_tick(4);
  Move(&t, {5}, {0, 0});  // known on the old connection only
  Apply(t);
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{"tick_before_welcome", 1}, {"unknown_move", 1}}));
}

TEST(WorldModel, TickBeforeWelcomeIsCounted) {
  Stats stats;
  WorldModel model(&stats);
  pb::TickUpdate t;
  t.set_tick(1);
  model.ApplyTick(t, Clock::now());
  EXPECT_EQ(Violations(stats), (ViolationCounts{{"tick_before_welcome", 1}}));
  model.ApplyTickSummary(TickSummary{.tick = 2}, Clock::now());
  EXPECT_EQ(Violations(stats), (ViolationCounts{{"tick_before_welcome", 2}}));
}

TEST_F(WorldModelTest, IntervalsAreRecordedBetweenConsecutiveTicksOnly) {
  model_.intervals()->clear();
  Apply(NextTick(), std::chrono::milliseconds(20));
  Apply(NextTick(), std::chrono::milliseconds(70));
  pb::TickUpdate t = NextTick();
  t.set_tick(++tick_);  // gap: no interval
  Apply(t, std::chrono::milliseconds(500));
  Apply(NextTick(), std::chrono::milliseconds(30));
  EXPECT_EQ(*model_.intervals(), (std::vector<double>{20, 70, 30}));
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{"tick_gap", 1}}));
}

// The scanned path checks the same header promises, moves self and counts crowd summaries.
TEST_F(WorldModelTest, SummariesCheckTheHeader) {
  const auto summary = [this] {
    return TickSummary{.tick = ++tick_, .last_input_seq = 10, .self_id = kSelf};
  };
  TickSummary s = summary();
  s.has_self_x = true;
  s.self_x = -5;
  s.has_crowd = true;
  s.crowd_total = 7;
  model_.ApplyTickSummary(s, now_);
  s = summary();
  s.has_self_y = true;
  s.self_y = 42;
  model_.ApplyTickSummary(s, now_);
  EXPECT_EQ(Violations(stats_), ViolationCounts{});
  EXPECT_EQ(model_.position(), Cm(-5, 42));
  EXPECT_EQ(stats_.crowd_summaries.load(), 1u);
  EXPECT_EQ(stats_.crowd_total.load(), 7u);

  s = summary();
  s.tick += 1;
  model_.ApplyTickSummary(s, now_);
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{"tick_gap", 1}}));
  tick_ = s.tick;
  s = summary();
  s.self_id = 0;
  model_.ApplyTickSummary(s, now_);
  EXPECT_EQ(Violations(stats_), (ViolationCounts{{"missing_self", 1}, {"tick_gap", 1}}));
  s = summary();
  s.last_input_seq = 3;
  model_.ApplyTickSummary(s, now_);
  EXPECT_EQ(Violations(stats_),
            (ViolationCounts{{"ack_went_back", 1}, {"missing_self", 1}, {"tick_gap", 1}}));
  s = summary();
  s.resync = true;
  s.tick += 100;
  model_.ApplyTickSummary(s, now_);
  EXPECT_EQ(Violations(stats_),
            (ViolationCounts{{"ack_went_back", 1}, {"missing_self", 1}, {"tick_gap", 1}}));
}

// Random ticks that keep every promise: entities enter, update, move by deltas and leave; resyncs
// and a zone change happen. An oracle tracks the truth; after every tick no violation is counted,
// self is where it was sent, and the nearest monster is exactly the oracle's.
TEST(WorldModel, RandomGoodTicksCountNothingAndKeepPositionsExact) {
  struct Entity {
    CmPoint at;
    bool monster = true;
    bool alive = true;
  };
  MessageGen g(31);
  Stats stats;
  WorldModel model(&stats);
  CmPoint min{-5000, -3000}, max{5000, 8000};
  CmPoint self{0, 0};
  model.Welcome(MakeWelcome(min, max, self));
  std::map<uint32_t, Entity> known;
  uint64_t tick = 1000;
  uint32_t ack = 0;
  Clock::time_point now;
  const auto random_point = [&] {
    return CmPoint{min.x + static_cast<int32_t>(g.Below(static_cast<uint32_t>(max.x - min.x) + 1)),
                   min.y + static_cast<int32_t>(g.Below(static_cast<uint32_t>(max.y - min.y) + 1))};
  };
  const auto near = [&](int32_t v, int32_t lo, int32_t hi) {
    return std::clamp(v + static_cast<int32_t>(g.Below(601)) - 300, lo, hi);
  };
  int probes = 0, moves = 0;
  for (int i = 0; i < 3000; ++i) {
    if (i == 1500) {  // a portal: everything leaves, then the zone changes
      pb::TickUpdate t;
      t.set_tick(++tick);
      t.set_last_input_seq(ack);
      t.mutable_self()->set_id(kSelf);
      for (const auto& [id, e] : known) t.add_left(id);
      known.clear();
      model.ApplyTick(t, now += std::chrono::milliseconds(50));
      min = {20000, 20000};
      max = {26000, 23000};
      self = {21000, 21000};
      pb::ZoneChanged z;
      z.set_zone_id(2);
      z.set_zone_min_x(min.x);
      z.set_zone_min_y(min.y);
      z.set_zone_max_x(max.x);
      z.set_zone_max_y(max.y);
      z.set_x(self.x);
      z.set_y(self.y);
      model.ZoneChanged(z);
    }
    pb::TickUpdate t;
    const bool resync = g.OneIn(100);
    tick += resync ? 1 + g.Below(5) : 1;
    t.set_tick(tick);
    t.set_resync(resync);
    ack += g.Below(3);
    t.set_last_input_seq(ack);
    t.mutable_self()->set_id(kSelf);

    std::map<uint32_t, Entity> before;  // may be updated or moved this tick
    if (resync) {                       // everything known is listed again
      for (const auto& [id, e] : known) {
        pb::EntityEnter* enter = t.add_entered();
        enter->set_id(id);
        enter->set_kind(e.monster ? pb::ENTITY_KIND_MONSTER : pb::ENTITY_KIND_PLAYER);
        enter->set_x(e.at.x);
        enter->set_y(e.at.y);
        enter->set_alive(e.alive);
      }
    } else {
      for (auto it = known.begin(); it != known.end();) {
        if (g.OneIn(15)) {
          t.add_left(it->first);
          it = known.erase(it);
        } else {
          ++it;
        }
      }
      before = known;
    }
    for (uint32_t n = g.Below(known.size() < 30 ? 4 : 2); n > 0; --n) {
      const uint32_t id = 2 + g.Below(300);
      if (known.contains(id)) continue;
      const Entity e{.at = random_point(), .monster = !g.OneIn(4), .alive = !g.OneIn(8)};
      known[id] = e;
      pb::EntityEnter* enter = t.add_entered();
      enter->set_id(id);
      enter->set_kind(e.monster ? pb::ENTITY_KIND_MONSTER : pb::ENTITY_KIND_PLAYER);
      enter->set_x(e.at.x);
      enter->set_y(e.at.y);
      enter->set_alive(e.alive);
    }
    std::vector<uint32_t> moved_ids;
    std::vector<int32_t> deltas;
    for (const auto& entry : before) {
      const uint32_t id = entry.first;
      Entity& e = known[id];
      if (g.OneIn(8)) {
        pb::EntityUpdate* u = t.add_updated();
        u->set_id(id);
        if (g.Coin()) u->set_x(e.at.x = random_point().x);
        if (g.Coin()) u->set_y(e.at.y = random_point().y);
        if (g.OneIn(3)) u->set_alive(e.alive = !e.alive);
      } else if (g.OneIn(2)) {
        const CmPoint to{near(e.at.x, min.x - 1, max.x + 1), near(e.at.y, min.y - 1, max.y + 1)};
        moved_ids.push_back(id);
        deltas.push_back(to.x - e.at.x);
        deltas.push_back(to.y - e.at.y);
        e.at = to;
        ++moves;
      }
    }
    Move(&t, moved_ids, deltas);
    if (g.OneIn(10)) {
      const uint32_t grid = 1 + g.Below(4);
      std::vector<uint32_t> counts(grid * grid);
      uint32_t total = 0;
      for (uint32_t& c : counts) total += c = g.Below(5);
      Crowd(&t, grid, counts, total);
    }
    // Stand on a living monster (after this tick's moves), or somewhere, or stay.
    std::vector<CmPoint> targets;
    for (const auto& [id, e] : known) {
      if (e.monster && e.alive) targets.push_back(e.at);
    }
    const bool probe = !targets.empty() && g.Coin();
    const CmPoint was = self;
    if (probe) {
      self = targets[g.Below(static_cast<uint32_t>(targets.size()))];
    } else if (g.Coin()) {
      self = random_point();
    }
    // A coordinate that changed is sent; one that did not may be.
    if (self.x != was.x || g.Coin()) t.mutable_self()->set_x(self.x);
    if (self.y != was.y || g.Coin()) t.mutable_self()->set_y(self.y);
    model.ApplyTick(t, now += std::chrono::milliseconds(50));

    ASSERT_EQ(stats.TotalViolations(), 0u) << "tick " << i << ": " << t.ShortDebugString();
    ASSERT_EQ(model.position(), Cm(self.x, self.y)) << "tick " << i;
    const std::optional<Vec2> nearest = model.NearestMonster();
    ASSERT_EQ(nearest.has_value(), !targets.empty()) << "tick " << i;
    if (!nearest) continue;
    const Vec2 from = Cm(self.x, self.y);
    bool found = false;
    for (const CmPoint& p : targets) {
      ASSERT_LE(DistanceSq(*nearest, from), DistanceSq(Cm(p.x, p.y), from)) << "tick " << i;
      found = found || *nearest == Cm(p.x, p.y);
    }
    ASSERT_TRUE(found) << "tick " << i << ": no monster at the nearest point";
    if (probe) {
      ASSERT_EQ(*nearest, Cm(self.x, self.y)) << "tick " << i;
      ++probes;
    }
  }
  EXPECT_GT(probes, 1000);
  EXPECT_GT(moves, 10000);
  EXPECT_EQ(stats.ticks.load(), 3001u);
}

}  // namespace
}  // namespace zs::sim
