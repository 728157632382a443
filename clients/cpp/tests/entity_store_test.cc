// The C++ client library's EntityStore on crafted messages: what the golden streams cannot show
// (a hostile or broken stream must not crash it or corrupt what it knows) and its listener.
#include "zs_client/entity_store.h"

#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "zone.pb.h"

namespace zs::client {
namespace {

namespace pb = zone::v1;

pb::ServerMessage Welcome() {
  pb::ServerMessage m;
  auto* w = m.mutable_welcome();
  w->set_entity_id(1);
  w->set_zone_id(7);
  w->set_x(100);
  w->set_y(200);
  w->mutable_you()->set_hp(50);
  return m;
}

pb::ServerMessage Enter(uint32_t id, int32_t x) {
  pb::ServerMessage m;
  m.mutable_tick()->set_tick(1);
  auto* e = m.mutable_tick()->add_entered();
  e->set_id(id);
  e->set_x(x);
  e->set_alive(true);
  return m;
}

class Recorder : public StoreListener {
 public:
  void OnEnter(const Entity& e) override { heard.push_back("enter " + std::to_string(e.id)); }
  void OnChange(const Entity& e) override { heard.push_back("change " + std::to_string(e.id)); }
  void OnLeave(const Entity& e) override { heard.push_back("leave " + std::to_string(e.id)); }
  std::vector<std::string> heard;
};

TEST(ClientEntityStore, DeltaListsShorterThanTheirIdsApplyOnlyThePairsPresent) {
  EntityStore store;
  store.Apply(Welcome());
  store.Apply(Enter(5, 10));
  store.Apply(Enter(9, 20));
  pb::ServerMessage m;
  m.mutable_tick()->set_tick(2);
  m.mutable_tick()->add_moved_ids(5);
  m.mutable_tick()->add_moved_ids(4);  // id 9, but no deltas for it
  m.mutable_tick()->add_moved_deltas(3);
  m.mutable_tick()->add_moved_deltas(4);
  m.mutable_tick()->add_moved_deltas(99);  // half a pair
  m.mutable_tick()->add_turned_ids(9);     // a turn without its facing
  m.mutable_tick()->add_turned_deltas(1);
  m.mutable_tick()->add_turned_deltas(1);
  store.Apply(m);
  EXPECT_EQ(store.Find(5)->x, 13);
  EXPECT_EQ(store.Find(5)->y, 4);
  EXPECT_EQ(store.Find(9)->x, 20) << "no complete move or turn for it";
  EXPECT_EQ(store.tick(), 2U);
}

TEST(ClientEntityStore, DeltasThatOverflowWrapAndUnknownIdsAreIgnored) {
  EntityStore store;
  store.Apply(Welcome());
  store.Apply(Enter(5, INT32_MAX));
  pb::ServerMessage m;
  m.mutable_tick()->add_moved_ids(5);
  m.mutable_tick()->add_moved_deltas(1);
  m.mutable_tick()->add_moved_deltas(0);
  m.mutable_tick()->add_moved_ids(1000);  // id 1005: never entered
  m.mutable_tick()->add_moved_deltas(1);
  m.mutable_tick()->add_moved_deltas(1);
  auto* u = m.mutable_tick()->add_updated();
  u->set_id(77);
  u->set_hp(3);
  store.Apply(m);
  EXPECT_EQ(store.Find(5)->x, INT32_MIN);
  EXPECT_EQ(store.entities().size(), 1U);

  pb::ServerMessage wrap;  // 9 + 0xFFFFFFFC is past every id: it must not wrap around to 5
  wrap.mutable_tick()->add_moved_ids(9);
  wrap.mutable_tick()->add_moved_ids(0xFFFFFFFC);
  for (const int32_t d : {0, 0, 400, 400}) wrap.mutable_tick()->add_moved_deltas(d);
  store.Apply(wrap);
  EXPECT_EQ(store.Find(5)->x, INT32_MIN);
  EXPECT_EQ(store.Find(5)->y, 0);
}

TEST(ClientEntityStore, TheListenerHearsEnterChangeLeaveAndEveryOneForgottenByAResync) {
  EntityStore store;
  Recorder heard;
  store.set_listener(&heard);
  store.Apply(Welcome());
  store.Apply(Enter(5, 10));
  store.Apply(Enter(3, 10));
  store.Apply(Enter(5, 11));  // entered again: replaced
  pb::ServerMessage hp;
  auto* u = hp.mutable_tick()->add_updated();
  u->set_id(3);
  u->set_hp(1);
  store.Apply(hp);
  pb::ServerMessage resync;
  resync.mutable_tick()->set_resync(true);
  resync.mutable_tick()->add_entered()->set_id(8);
  store.Apply(resync);
  EXPECT_EQ(heard.heard, (std::vector<std::string>{"enter 5", "enter 3", "leave 5", "enter 5",
                                                   "change 3", "leave 3", "leave 5", "enter 8"}));
  store.Apply(Welcome());
  EXPECT_EQ(heard.heard.back(), "leave 8") << "a new Welcome forgets what the store knew";
  EXPECT_TRUE(store.entities().empty());
  EXPECT_EQ(store.self()->hp, 50);
}

}  // namespace
}  // namespace zs::client

namespace zs::client {
namespace {

class Anomalies : public AnomalyListener {
 public:
  void OnAnomaly(Anomaly anomaly, uint32_t id) override { heard.emplace_back(anomaly, id); }
  std::vector<std::pair<Anomaly, uint32_t>> heard;
};

TEST(ClientEntityStore, EveryBrokenPromiseIsReportedAsItsAnomaly) {
  EntityStore store;
  Anomalies a;
  store.set_anomaly_listener(&a);
  pb::ServerMessage w = Welcome();
  w.mutable_welcome()->set_zone_max_x(10000);
  w.mutable_welcome()->set_zone_max_y(10000);
  store.Apply(w);
  store.Apply(Enter(5, 10));
  store.Apply(Enter(9, 20));
  EXPECT_TRUE(a.heard.empty()) << "a good stream reports nothing";
  pb::ServerMessage m;
  pb::TickUpdate* t = m.mutable_tick();
  t->add_left(77);                                                 // unknown
  t->add_entered()->set_id(5);                                     // known already
  t->add_entered()->set_id(1);                                     // your own entity
  t->add_updated()->set_id(78);                                    // unknown
  t->add_updated()->set_id(9);                                     // ... and then moved too
  for (const uint32_t gap : {9U, 0U, 70U}) t->add_moved_ids(gap);  // 9, 9 again, 79 (unknown)
  for (const int32_t d : {1, 1, 2, 2, 3, 3}) t->add_moved_deltas(d);
  t->add_turned_ids(5);  // its facing missing: a bad list, nothing applied
  t->add_turned_deltas(20000);
  t->add_turned_deltas(0);
  store.Apply(m);
  using A = Anomaly;
  EXPECT_EQ(a.heard, (std::vector<std::pair<Anomaly, uint32_t>>{{A::kUnknownLeave, 77},
                                                                {A::kEnteredTwice, 5},
                                                                {A::kSelfEntered, 1},
                                                                {A::kUnknownUpdate, 78},
                                                                {A::kMovedAndUpdated, 9},
                                                                {A::kMovedNotAscending, 9},
                                                                {A::kUnknownMove, 79},
                                                                {A::kBadTurnedLists, 0}}));
  a.heard.clear();
  pb::ServerMessage far;
  far.mutable_tick()->add_moved_ids(9);
  far.mutable_tick()->add_moved_deltas(-1000);  // x 21 - 1000: outside the zone
  far.mutable_tick()->add_moved_deltas(0);
  far.mutable_tick()->add_turned_ids(9);  // moved and turned in one tick
  far.mutable_tick()->add_turned_deltas(0);
  far.mutable_tick()->add_turned_deltas(0);
  far.mutable_tick()->add_turned_facings(7);
  store.Apply(far);
  EXPECT_EQ(a.heard,
            (std::vector<std::pair<Anomaly, uint32_t>>{
                {A::kMovedOutOfZone, 9}, {A::kTurnedListedTwice, 9}, {A::kTurnedOutOfZone, 9}}));
}

}  // namespace
}  // namespace zs::client
